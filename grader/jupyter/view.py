"""The in-notebook check's output (grader/jupyter/__init__.py): one graded run as a block of HTML for a
notebook cell, and as plain text for a terminal.

Both are written from the one view (grader/report/view.py), as every report is. The HTML is the
feedback page's (grader/report/html.py: its escaping, check items, marks) as a fragment a
notebook embeds: no document, no script, a style sheet whose every rule is under the block's
own class, so it changes nothing else in the notebook. Every text is escaped: a student's
printed output or an exception's message is never markup.
"""

from __future__ import annotations

from grader.report import render_view
from grader.report.html import _mark, esc, exercise_body
from grader.report.view import SubmissionView, points

BLOCK = "grader-check"
STYLE = f"""
.{BLOCK}{{font-family:system-ui,sans-serif;line-height:1.4;color:#222;background:#fff;border:1px solid #d0d7de;
border-radius:6px;padding:.5rem .8rem;max-width:60rem}}
.{BLOCK} .pass{{color:#1a7f37}}.{BLOCK} .fail{{color:#cf222e}}
.{BLOCK} .gc-head{{font-size:1.1em;font-weight:600;margin:.2rem 0}}
.{BLOCK} .gc-cells{{color:#57606a;font-size:.9em;margin:.2rem 0}}
.{BLOCK} .note{{background:#fff8c5;padding:.3rem .5rem;margin:.3rem 0}}
.{BLOCK} ul{{margin:.3rem 0;padding-left:1.2rem}}.{BLOCK} li{{margin:.15rem 0}}
.{BLOCK} .message,.{BLOCK} .cx{{white-space:pre-wrap}}.{BLOCK} .cx{{font-family:monospace;color:#0550ae}}
.{BLOCK} .hint{{color:#6e7781}}.{BLOCK} pre{{background:#f6f8fa;padding:.4rem;overflow:auto}}
.{BLOCK} table{{border-collapse:collapse}}.{BLOCK} td,.{BLOCK} th{{padding:.15rem .5rem;text-align:left;
border-bottom:1px solid #eee}}.{BLOCK} td.points{{text-align:right;font-variant-numeric:tabular-nums}}
.{BLOCK} .diagnosis{{border-left:3px solid #cf222e;padding-left:.5rem;margin:.4rem 0}}
"""


def html_block(view: SubmissionView, lines: list[str]) -> str:
    """The graded run as an HTML fragment: the score, ``lines`` (warnings, which cells were
    graded), the notes, then each exercise with every check (✓/✗, points, message,
    counterexample, hint) and the known mistakes named."""
    parts = [f"<div class='{BLOCK}' lang='{esc(view.lang)}' data-score='{esc(points(view.score))}' "
             f"data-max-score='{esc(points(view.max_score))}'>", f"<style>{STYLE}</style>"]
    if len(view.exercises) == 1:
        exercise = view.exercises[0]
        parts.append(f"<div class='gc-head'>{_mark(exercise.complete)} <code>{esc(exercise.id)}</code> "
                     f"{esc(exercise.title)}: {esc(exercise.points)}</div>")
    else:
        parts.append(f"<div class='gc-head'>{_mark(view.all_passed)} {esc(view.label('report.title'))}: "
                     f"{esc(view.points)}</div>")
    parts += [f"<p class='gc-cells'>{esc(line)}</p>" for line in lines]
    parts += [f"<p class='note'>{esc(note)}</p>" for note in view.notes]
    if len(view.exercises) > 1:
        parts.append("<table>" + "".join(
            f"<tr><td>{_mark(e.complete)}</td><td><code>{esc(e.id)}</code></td><td>{esc(e.title)}</td>"
            f"<td class='points'>{esc(e.points)}</td></tr>" for e in view.exercises)
            + f"<tr><th></th><th>{esc(view.label('report.total'))}</th><th></th>"
              f"<th class='points'>{esc(view.points)}</th></tr></table>")
    for exercise in view.exercises:
        if len(view.exercises) > 1:
            if exercise.complete:
                continue
            parts.append(f"<div class='gc-head'>{_mark(False)} <code>{esc(exercise.id)}</code> "
                         f"{esc(exercise.title)}: {esc(exercise.points)}</div>")
        parts += exercise_body(exercise, view, exercise.checks if len(view.exercises) == 1 else exercise.failing)
    parts.append("</div>")
    return "\n".join(parts) + "\n"


def text_block(view: SubmissionView, lines: list[str]) -> str:
    """The graded run as the text report ``grade check`` prints, after ``lines``."""
    return "".join(f"{line}\n" for line in lines) + render_view(view, "text")


def line_html(line: str, failed: bool = True) -> str:
    """One line (an error, a progress) as a small block of the same look."""
    mark = _mark(False) if failed else "⏳"
    return f"<div class='{BLOCK}'><style>{STYLE}</style>{mark} {esc(line)}</div>\n"
