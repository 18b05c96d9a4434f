"""The Markdown report: fits a GitHub Actions job summary (``$GITHUB_STEP_SUMMARY``).

Layout: a heading with the total score, notes as a blockquote, the isolation
line, a table of exercises, then one section per exercise that lost points:
its failing checks (hidden ones as pass/fail only, never their message), the
known mistakes named, and what the student's code printed.

Every text that is not markup written here is escaped (:func:`inline`,
:func:`pre`): messages quote student code, exception texts and file names, so
nothing in them can open a tag, a code span, a link, a table cell or a heading.
"""

from __future__ import annotations

from grader.report.escaping import visible
from grader.report.view import CheckView, ExerciseView, SubmissionView
from grader.report import Writer, class_writer

MESSAGE_SHOWN = 2000    # characters of one message (student exception texts can be long)

PASS, FAIL = "✅", "❌"

# Markdown punctuation that can start or end inline markup (GitHub also renders $math$).
_BACKSLASHED = set("\\`*_[]|~$")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Inside <pre> only the HTML specials matter; the rest are entities too, so no student
# text appears verbatim anywhere in the summary (nothing to trip a later Markdown pass).
_PRE_ENTITIES = {**_ENTITIES, "|": "&#124;", "`": "&#96;", "$": "&#36;", "#": "&#35;"}
_INLINE = str.maketrans({"\n": "<br>", **_ENTITIES, **{c: "\\" + c for c in _BACKSLASHED}})
_PRE = str.maketrans(_PRE_ENTITIES)


def render_markdown(view: SubmissionView) -> str:
    lines: list[str] = []
    mark = PASS if view.all_passed else FAIL
    lines.append(f"## {inline(view.label('report.title'))} — {view.points} {mark}")
    lines.append("")
    if view.notes:
        lines.append("\n>\n".join(f"> ⚠️ {inline(note)}" for note in view.notes))
        lines.append("")
    lines.append(f"{inline(view.label('report.fmt_source'))}: {code(view.source)} · "
                 f"{inline(view.label('report.isolation'))}: {code(view.isolation)}")
    lines.append("")
    lines += _table(view)
    for exercise in view.exercises:
        if exercise.complete:
            continue
        lines.append("")
        lines += _exercise(exercise, view)
    return "\n".join(lines).rstrip("\n") + "\n"


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_markdown, ".md", many=class_writer("markdown"))


def _table(view: SubmissionView) -> list[str]:
    head = [view.label("report.exercise"), view.label("report.fmt_title"), view.label("report.score"), ""]
    rows = [f"| {' | '.join(inline(h) for h in head)} |", "|:--|:--|--:|:-:|"]
    for exercise in view.exercises:
        rows.append(f"| {code(exercise.id, cell=True)} | {inline(exercise.title)} | "
                    f"{exercise.points} | {PASS if exercise.complete else FAIL} |")
    rows.append(f"| **{inline(view.label('report.total'))}** | | "
                f"**{view.points}** | {PASS if view.all_passed else FAIL} |")
    return rows


def _exercise(exercise: ExerciseView, view: SubmissionView) -> list[str]:
    lines = [f"### {FAIL} {code(exercise.id)} {inline(exercise.title)}: {exercise.points}", ""]
    lines += [f"> {inline(note)}\n" for note in exercise.notes]
    if exercise.problem:
        lines += [f"**{inline(view.label('report.problem'))}:** {inline(_clip(exercise.problem))}", ""]
    if exercise.failing:
        lines += [f"**{inline(view.label('report.fmt_failed_checks'))}**", ""]
        lines += [_check(check, view, show_message=not exercise.problem) for check in exercise.failing]
        lines.append("")
    for diagnosis in exercise.diagnoses:
        item = f"- **{inline(view.label('report.diagnosis'))}** {code(diagnosis.id)}: **{inline(diagnosis.title)}**"
        if diagnosis.explanation:
            item += f"<br>{inline(diagnosis.explanation)}"
        if diagnosis.hint:
            item += f"<br>*{inline(view.label('report.hint'))}:* {inline(diagnosis.hint)}"
        lines.append(item)
    if exercise.diagnoses:
        lines.append("")
    excerpt = exercise.output_excerpt()
    if excerpt:
        lines += [f"<details><summary>{pre(view.label('report.output'))}</summary>", "",
                  f"<pre>{pre(excerpt)}</pre>", "", "</details>", ""]
    return lines


def _check(check: CheckView, view: SubmissionView, show_message: bool) -> str:
    mark = PASS if check.passed else FAIL
    item = f"- {mark} {code(check.name)}"
    if check.hidden:
        item += f" ({inline(view.label('report.hidden'))})"
    item += f" · {check.points}"
    if check.title:
        item += f" · {inline(check.title)}"
    if check.hidden and not check.revealed:
        # pass/fail only: not even the generic text a hidden check has (grader/report/view.py)
        return item + f" · {inline(view.label('report.' + check.status))}"
    if not show_message:
        return item
    for part in (check.message, check.counterexample):
        if part:
            item += f"<br>{inline(_clip(part))}"
    if check.hint:
        item += f"<br>*{inline(view.label('report.hint'))}:* {inline(check.hint)}"
    return item


# ---------------------------------------------------------------- escaping

def inline(raw: str) -> str:
    """Text for a Markdown paragraph, list item or table cell: no markup survives.

    HTML specials become entities, inline-markup punctuation is backslash-escaped
    (``\\|`` also keeps a table cell closed), newlines become ``<br>`` so a message
    never starts a block (heading, list, quote, fence) of its own.
    """
    return visible(raw).translate(_INLINE)


def pre(raw: str) -> str:
    """Text inside an HTML ``<pre>`` (or any HTML element): entities only, newlines kept."""
    return visible(raw).translate(_PRE)


def code(raw: str, cell: bool = False) -> str:
    """A code span (ids, paths) on one line. Its fence is longer than any backtick run
    inside, so the content cannot close it; in a table cell pipes are escaped too."""
    content = visible(raw, keep="")
    if cell:
        content = content.replace("|", "\\|")
    longest, run = 0, 0
    for c in content:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if content.startswith("`") or content.endswith("`") or not content.strip() else ""
    return f"{fence}{pad}{content}{pad}{fence}"


# ---------------------------------------------------------------- helpers

def _clip(message: str) -> str:
    return message if len(message) <= MESSAGE_SHOWN else message[:MESSAGE_SHOWN] + "…"
