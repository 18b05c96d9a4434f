"""A student's feedback as a standalone HTML page (`grade class --feedback html`).

The same parts as the Markdown report (total, notes, a table of exercises, then each
exercise that lost points: failing checks with message, counterexample and hint, the
known mistakes, what the code printed), as real HTML. One inline style sheet, no
script, nothing fetched, and the page says so to the browser: a Content-Security-Policy as
strict as the class report's (grader/classroom/class_page.py), so even markup that slipped through would
run no script and fetch nothing (issue 41). Every text is escaped (visible escapes for control
characters, then HTML entities): no student text is ever markup.
"""

from __future__ import annotations

import html

from grader.report.escaping import visible
from grader.report.view import CheckView, ExerciseView, SubmissionView
from grader.report import Writer

STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left}
td.points{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37}.fail{color:#cf222e}.note{background:#fff8c5;padding:.4rem .6rem}
.message,.cx{white-space:pre-wrap}.cx{font-family:monospace;color:#0550ae}.hint{color:#6e7781}
pre{background:#f6f8fa;padding:.6rem;overflow:auto}
"""

# Nothing is fetched and nothing runs: no script, image, font, frame or connection from anywhere,
# only the inline style sheet; no <base> may redirect links, no form may submit anywhere.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def esc(raw) -> str:
    return html.escape(visible(raw), quote=True)


def render_html(view: SubmissionView, title: str = "") -> str:
    mark = _mark(view.all_passed)
    parts = ["<!doctype html>", f"<html lang='{esc(view.lang)}'>", "<meta charset='utf-8'>",
             f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
             f"<title>{esc(title or view.label('report.title'))}</title>", f"<style>{STYLE}</style>",
             f"<h1>{esc(view.label('report.title'))} — {esc(view.points)} {mark}</h1>"]
    parts += [f"<p class='note'>{esc(note)}</p>" for note in view.notes]
    parts.append(f"<p>{esc(view.label('report.fmt_source'))}: <code>{esc(view.source)}</code> · "
                 f"{esc(view.label('report.isolation'))}: <code>{esc(view.isolation)}</code></p>")
    parts.append("<table><tr>" + "".join(f"<th>{esc(view.label(k))}</th>" for k in
                                         ("report.exercise", "report.fmt_title", "report.score")) + "<th></th></tr>")
    for exercise in view.exercises:
        parts.append(f"<tr><td><code>{esc(exercise.id)}</code></td><td>{esc(exercise.title)}</td>"
                     f"<td class='points'>{esc(exercise.points)}</td><td>{_mark(exercise.complete)}</td></tr>")
    parts.append(f"<tr><th>{esc(view.label('report.total'))}</th><td></td><th class='points'>{esc(view.points)}</th>"
                 f"<td>{mark}</td></tr></table>")
    for exercise in view.exercises:
        if not exercise.complete:
            parts += _exercise(exercise, view)
    return "\n".join(parts) + "\n"


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_html, ".html")       # no class format: feedback files only


def _exercise(exercise: ExerciseView, view: SubmissionView) -> list[str]:
    heading = f"<h2>{_mark(False)} <code>{esc(exercise.id)}</code> {esc(exercise.title)}: {esc(exercise.points)}</h2>"
    return [heading] + exercise_body(exercise, view, exercise.failing)


def exercise_body(exercise: ExerciseView, view: SubmissionView, checks) -> list[str]:
    """One exercise under its heading: notes, its problem, ``checks``, named mistakes and output
    (the feedback page shows the failing checks; the in-notebook check, grader/jupyter/view.py,
    every check of a lone exercise)."""
    parts = [f"<p class='note'>{esc(note)}</p>" for note in exercise.notes]
    if exercise.problem:
        parts.append(f"<p><strong>{esc(view.label('report.problem'))}:</strong> "
                     f"<span class='message'>{esc(exercise.problem)}</span></p>")
    if checks:
        parts.append("<ul>" + "".join(_check(c, view, not exercise.problem) for c in checks) + "</ul>")
    for diagnosis in exercise.diagnoses:
        parts.append(f"<p class='diagnosis'><strong>{esc(view.label('report.diagnosis'))}</strong> "
                     f"<code>{esc(diagnosis.id)}</code>: <strong>{esc(diagnosis.title)}</strong><br>"
                     f"{esc(diagnosis.explanation)}"
                     + (f"<br><span class='hint'>{esc(view.label('report.hint'))}: {esc(diagnosis.hint)}</span>"
                        if diagnosis.hint else "") + "</p>")
    excerpt = exercise.output_excerpt()
    if excerpt:
        parts.append(f"<details><summary>{esc(view.label('report.output'))}</summary><pre>{esc(excerpt)}</pre></details>")
    return parts


def _check(check: CheckView, view: SubmissionView, show_message: bool) -> str:
    item = f"<li>{_mark(check.passed)} <code>{esc(check.name)}</code>"
    if check.hidden:
        item += f" ({esc(view.label('report.hidden'))})"
    item += f" · {esc(check.points)}" + (f" · {esc(check.title)}" if check.title else "")
    if show_message:
        if check.message:
            item += f"<div class='message'>{esc(check.message)}</div>"
        if check.counterexample:
            item += f"<div class='cx'>{esc(check.counterexample)}</div>"
        if check.hint:
            item += f"<div class='hint'>{esc(view.label('report.hint'))}: {esc(check.hint)}</div>"
    return item + "</li>"


def _mark(passed: bool) -> str:
    # ✓ and ✗ are in ordinary text fonts; emoji marks show as empty boxes where no emoji font is installed
    return "<span class='pass'>✓</span>" if passed else "<span class='fail'>✗</span>"
