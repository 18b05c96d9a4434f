"""``grade report``'s page: one static HTML file drawn from the class's statistics
(grader/classroom/class_report.py collects them).

The page is a single file with no server and nothing fetched: inline CSS and inline SVG, no
JavaScript, and a Content-Security-Policy that forbids fetching. Every text that comes from a
student or a folder (names, paths, report fields) is escaped with :func:`html.escape`; numbers
are formatted here.
"""

from __future__ import annotations

import datetime as _dt
import html
import statistics

from grader.classroom.class_report import NAMES_SHOWN, ClassStats
from grader.report.escaping import visible
from grader.base.i18n import render as msg
from grader.report.view import points


CSS = """
:root { --ink: #1d2330; --muted: #5c6575; --line: #d9dde5; --bar: #3d6fb6; --good: #2f8f57; --bad: #c2453d;
        --bg: #ffffff; --panel: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; color: var(--ink); background: var(--bg);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC",
             "PingFang SC", "Microsoft YaHei", sans-serif; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
p.meta, p.note { color: var(--muted); margin: 4px 0 12px; }
code { font: 12.5px/1.3 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 16px;
        min-width: 140px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 22px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; max-width: 1100px; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #e7e9ef;
       color: var(--muted); margin-left: 6px; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif;
           fill: var(--ink); }
svg .axis { stroke: var(--ink); stroke-width: 1; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .bar { fill: var(--bar); }
svg .rate { fill: var(--good); }
svg .track { fill: #e7e9ef; }
"""


def render_html(stats: ClassStats, lang: str = "en", messages=None) -> str:
    """``messages``: the course's catalogue (``Course.messages``; None: the package's)."""
    t = _Texts(lang, messages)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing is ever fetched: no scripts, and images, fonts and styles only from the page itself.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "img-src data:\">",
        f"<title>{esc(t('title'))}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(t('title'))}</h1>",
        f'<p class="meta">{esc(t("generated", gradebook=stats.gradebook, generated=stats.generated))}</p>',
    ]
    if not stats.students:
        parts.append(f'<p class="note">{esc(t("empty"))}</p>')
    else:
        parts += _summary(stats, t)
        parts += _final_section(stats, t)
        parts += _histogram_section(stats, t)
        parts += _exercises_section(stats, t)
        parts += _checks_section(stats, t)
        parts += _mistakes_section(stats, t)
        parts += _slowest_section(stats, t)
    parts += _runs_section(stats, t)
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _final_section(stats: ClassStats, t) -> list[str]:
    """Late work and adjustments: every student whose final score is not the graded one, or who has
    no hand-in time under a policy (grader/classroom/late_policy.py); the mean final score."""
    def late_cell(f) -> str:
        if f.status in ("late", "past_cap"):
            return f"{f.units_late} {msg(f'staff.unit_{f.unit}', t.lang, t.messages)}" + (f" ({t('past_cap')})" if
                                                                             f.status == "past_cap" else "")
        return {"on_time": t("on_time"), "no_time": t("no_time")}.get(f.status, "")

    finals = stats.finals
    setting = stats.late_setting
    active = setting is not None and setting[1] != "none"
    shown = [f for f in finals.values() if f.late_penalty or f.adjustments or (active and f.status == "no_time")]
    if not active and not shown:
        return []
    mean = statistics.fmean(f.total for f in finals.values()) if finals else 0.0
    intro = t("final_intro", policy=setting[1], deadline=setting[0] or "-") if active else t("final_none")
    parts = [f"<h2>{esc(t('final'))}</h2>",
             f'<p class="note">{esc(intro)}</p>',
             f'<p class="note">{esc(t("final_mean"))}: {num(mean)} / {num(stats.max_score)}</p>']
    no_time = sum(1 for f in finals.values() if active and f.status == "no_time")
    if no_time:
        parts.append(f'<p class="note">{esc(t("final_no_time", count=no_time))}</p>')
    if not shown:
        return parts
    parts += ["<table>", f"<thead><tr><th>{esc(t('student'))}</th><th>{esc(t('submitted_at'))}</th>"
              f"<th>{esc(t('lateness'))}</th><th class=\"num\">{esc(t('raw'))}</th>"
              f"<th class=\"num\">{esc(t('late_penalty'))}</th><th class=\"num\">{esc(t('adjustments'))}</th>"
              f"<th class=\"num\">{esc(t('total'))}</th></tr></thead>", "<tbody>"]
    for student in sorted(s for s, f in finals.items() if f in shown):
        f = finals[student]
        parts.append(f"<tr><td>{esc(student)}</td><td>{esc(f.submitted_at or '-')}</td><td>{esc(late_cell(f))}</td>"
                     f'<td class="num">{num(f.raw)}</td><td class="num">{num(f.late_penalty)}</td>'
                     f'<td class="num">{f.adjustments:+g}</td><td class="num">{num(f.total)} / {num(f.max_score)}</td>'
                     "</tr>")
    parts += ["</tbody>", "</table>"]
    return parts


class _Texts:
    def __init__(self, lang: str, messages=None):
        self.lang, self.messages = lang, messages

    def __call__(self, key: str, **params) -> str:
        return msg(f"class_report.{key}", self.lang, self.messages, **params)


def esc(value) -> str:
    """Any text on the page: control characters visible (grader/report/escaping.py), then HTML entities."""
    return html.escape(visible(value), quote=True)


def num(x) -> str:
    """Points (scores, means) as every report prints them (grader/report/view.py)."""
    return points(x)


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _summary(stats: ClassStats, t) -> list[str]:
    scores = [s.score for s in stats.students]
    full = sum(1 for s in stats.students if s.max_score > 0 and s.score >= s.max_score)
    cards = [(t("students"), str(len(scores))),
             (t("mean"), f"{num(statistics.fmean(scores))} / {num(stats.max_score)}"),
             (t("median"), f"{num(statistics.median(scores))} / {num(stats.max_score)}"),
             (t("full_marks"), f"{full} ({pct(full / len(scores))})")]
    out = [f"<h2>{esc(t('summary'))}</h2>", '<div class="cards">']
    for label, value in cards:
        out.append(f'<div class="card"><div class="label">{esc(label)}</div>'
                   f'<div class="value">{esc(value)}</div></div>')
    out.append("</div>")
    return out


def _histogram_section(stats: ClassStats, t) -> list[str]:
    return [f"<h2>{esc(t('histogram'))}</h2>", histogram_svg(stats.histogram, t)]


def histogram_svg(bins: list[tuple[str, int]], t) -> str:
    width, height = 760, 320
    left, right, top, bottom = 64, 16, 24, 64
    plot_w, plot_h = width - left - right, height - top - bottom
    top_count = max([n for _, n in bins] + [1])
    step = max(1, -(-top_count // 5))              # at most about six ticks, whole students
    y_max = step * -(-top_count // step)
    slot = plot_w / len(bins)
    bar_w = slot * 0.8

    def y(count: float) -> float:
        return top + plot_h - plot_h * count / y_max

    svg = [f'<svg class="chart histogram" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(t("histogram"))}">']
    for tick in range(0, y_max + 1, step):
        svg.append(f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}"/>')
        svg.append(f'<text class="tick" x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick}</text>')
    for i, (label, count) in enumerate(bins):
        x = left + i * slot + (slot - bar_w) / 2
        svg.append(f'<rect class="bar" data-bin="{esc(label)}" data-count="{count}" x="{x:.1f}" y="{y(count):.1f}" '
                   f'width="{bar_w:.1f}" height="{y(0) - y(count):.1f}">'
                   f'<title>{esc(t("histogram_bar", label=label, count=count))}</title></rect>')
        if count:
            svg.append(f'<text class="count" x="{x + bar_w / 2:.1f}" y="{y(count) - 5:.1f}" '
                       f'text-anchor="middle">{count}</text>')
        svg.append(f'<text class="label" x="{left + i * slot + slot / 2:.1f}" y="{top + plot_h + 18}" '
                   f'text-anchor="middle">{esc(label)}</text>')
    svg.append(f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}"/>')
    svg.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>')
    svg.append(f'<text class="axis-title" x="{left + plot_w / 2:.1f}" y="{height - 14}" '
               f'text-anchor="middle">{esc(t("histogram_x"))}</text>')
    svg.append(f'<text class="axis-title" x="{-(top + plot_h / 2):.1f}" y="18" transform="rotate(-90)" '
               f'text-anchor="middle">{esc(t("histogram_y"))}</text>')
    svg.append("</svg>")
    return "".join(svg)


def rate_svg(rate: float) -> str:
    width = 120
    return (f'<svg class="rate-bar" xmlns="http://www.w3.org/2000/svg" width="{width}" height="12" '
            f'viewBox="0 0 {width} 12" aria-hidden="true"><rect class="track" x="0" y="1" width="{width}" '
            f'height="10" rx="2"/><rect class="rate" x="0" y="1" width="{width * rate:.1f}" height="10" rx="2"/></svg>')


def _exercises_section(stats: ClassStats, t) -> list[str]:
    out = [f"<h2>{esc(t('exercises'))}</h2>", f'<p class="note">{esc(t("pass_rate_note"))}</p>', "<table>",
           f"<thead><tr><th>{esc(t('exercise'))}</th><th>{esc(t('title_col'))}</th>"
           f"<th class=\"num\">{esc(t('points'))}</th><th class=\"num\">{esc(t('pass_rate'))}</th><th></th>"
           f"<th class=\"num\">{esc(t('mean_col'))}</th></tr></thead>", "<tbody>"]
    for e in stats.exercises:
        out.append(f'<tr class="exercise" data-exercise="{esc(e.id)}" data-pass-rate="{e.pass_rate:.4f}" '
                   f'data-mean="{e.mean:.4f}"><td><code>{esc(e.id)}</code></td><td>{esc(e.title)}</td>'
                   f'<td class="num">{num(e.max_score)}</td><td class="num">{pct(e.pass_rate)} '
                   f'({e.full}/{e.students})</td><td>{rate_svg(e.pass_rate)}</td>'
                   f'<td class="num">{num(e.mean)} / {num(e.max_score)}</td></tr>')
    out += ["</tbody>", "</table>"]
    return out


def _checks_section(stats: ClassStats, t) -> list[str]:
    out = [f"<h2>{esc(t('checks'))}</h2>"]
    if not stats.checks:
        return out + [f'<p class="note">{esc(t("no_failures"))}</p>']
    out += [f'<p class="note">{esc(t("checks_note", passed=stats.checks_all_passed))}</p>', "<table>",
            f"<thead><tr><th>{esc(t('exercise'))}</th><th>{esc(t('check'))}</th><th>{esc(t('title_col'))}</th>"
            f"<th class=\"num\">{esc(t('failures'))}</th><th class=\"num\">{esc(t('points_lost'))}</th></tr></thead>",
            "<tbody>"]
    for c in stats.checks:
        hidden = f'<span class="tag">{esc(t("hidden"))}</span>' if c.hidden else ""
        out.append(f'<tr class="check" data-check="{esc(c.exercise)}::{esc(c.name)}" data-failures="{c.failures}">'
                   f"<td><code>{esc(c.exercise)}</code></td><td><code>{esc(c.name)}</code>{hidden}</td>"
                   f"<td>{esc(c.title)}</td><td class=\"num\">{c.failures}/{c.attempts}</td>"
                   f"<td class=\"num\">{num(c.points_lost)}</td></tr>")
    out += ["</tbody>", "</table>"]
    return out


def _mistakes_section(stats: ClassStats, t) -> list[str]:
    out = [f"<h2>{esc(t('mistakes'))}</h2>"]
    if not stats.mistakes:
        return out + [f'<p class="note">{esc(t("no_mistakes"))}</p>']
    out += [f'<p class="note">{esc(t("mistakes_note"))}</p>', "<table>",
            f"<thead><tr><th>{esc(t('mistake'))}</th><th>{esc(t('title_col'))}</th>"
            f"<th class=\"num\">{esc(t('count'))}</th><th>{esc(t('who'))}</th></tr></thead>", "<tbody>"]
    for m in stats.mistakes:
        title = (m.title or t("unknown_mistake")) + (" " + t("hidden_only") if m.hidden else "")
        names = ", ".join(m.students[:NAMES_SHOWN])
        if len(m.students) > NAMES_SHOWN:
            names += " " + t("more", count=len(m.students) - NAMES_SHOWN)
        out.append(f'<tr class="mistake" data-mistake="{esc(m.id)}" data-count="{len(m.students)}">'
                   f"<td><code>{esc(m.id)}</code></td><td>{esc(title)}</td>"
                   f"<td class=\"num\">{len(m.students)}</td><td>{esc(names)}</td></tr>")
    out += ["</tbody>", "</table>"]
    return out


def _slowest_section(stats: ClassStats, t) -> list[str]:
    out = [f"<h2>{esc(t('slowest'))}</h2>", "<table>",
           f"<thead><tr><th>{esc(t('student'))}</th><th class=\"num\">{esc(t('seconds'))}</th>"
           f"<th class=\"num\">{esc(t('score'))}</th><th>{esc(t('graded_at'))}</th></tr></thead>", "<tbody>"]
    for s in stats.slowest:
        out.append(f'<tr class="slow" data-student="{esc(s.student)}"><td>{esc(s.student)}</td>'
                   f'<td class="num">{s.seconds:.2f}</td><td class="num">{num(s.score)} / {num(s.max_score)}</td>'
                   f"<td>{esc(_when(s.graded_at))}</td></tr>")
    out += ["</tbody>", "</table>"]
    return out


def _runs_section(stats: ClassStats, t) -> list[str]:
    out = [f"<h2>{esc(t('runs'))}</h2>"]
    if not stats.runs:
        return out + [f'<p class="note">{esc(t("no_runs"))}</p>']
    out += ["<table>",
            f"<thead><tr><th class=\"num\">{esc(t('run'))}</th><th>{esc(t('started'))}</th>"
            f"<th>{esc(t('finished'))}</th><th class=\"num\">{esc(t('duration'))}</th><th>{esc(t('status'))}</th>"
            f"<th class=\"num\">{esc(t('graded'))}</th><th class=\"num\">{esc(t('skipped'))}</th>"
            f"<th>{esc(t('directory'))}</th></tr></thead>", "<tbody>"]
    for r in stats.runs:
        out.append(f'<tr class="run" data-run="{r.id}"><td class="num">{r.id}</td><td>{esc(_when(r.started_at))}</td>'
                   f"<td>{esc(_when(r.finished_at))}</td>"
                   f"<td class=\"num\">{esc(_duration(r.started_at, r.finished_at))}"
                   f"</td><td>{esc(r.status)}</td><td class=\"num\">{r.graded}</td><td class=\"num\">{r.skipped}</td>"
                   f"<td><code>{esc(r.directory)}</code></td></tr>")
    out += ["</tbody>", "</table>"]
    return out


def _parse(stamp: str | None):
    if not stamp:
        return None
    try:
        return _dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None


def _when(stamp: str | None) -> str:
    parsed = _parse(stamp)
    if parsed is None:
        return stamp or "—"
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(_dt.timezone.utc)
    return parsed.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if parsed.tzinfo is not None else "")


def _duration(start: str | None, end: str | None) -> str:
    a, b = _parse(start), _parse(end)
    if a is None or b is None:
        return "—"
    seconds = max((b - a).total_seconds(), 0.0)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes} min {seconds:02d} s"
