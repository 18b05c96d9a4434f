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

from grader.i18n import Message, text

OUTPUT_SHOWN = 600      # characters of the student's own prints shown per exercise
OUTPUT_LINES = 12
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


def render_markdown(result, lang: str) -> str:
    lines: list[str] = []
    mark = PASS if result.all_passed else FAIL
    lines.append(f"## {inline(_msg('report.title', lang))} — {_num(result.score)}/{_num(result.max_score)} {mark}")
    lines.append("")
    if result.notes:
        lines.append("\n>\n".join(f"> ⚠️ {inline(note.render(lang))}" for note in result.notes))
        lines.append("")
    lines.append(f"{inline(_msg('report.fmt_source', lang))}: {code(result.source)} · "
                 f"{inline(_msg('report.isolation', lang))}: {code(result.isolation)}")
    lines.append("")
    lines += _table(result, lang)
    for exercise in result.exercises:
        if _complete(exercise):
            continue
        lines.append("")
        lines += _exercise(exercise, lang)
    return "\n".join(lines).rstrip("\n") + "\n"


def _table(result, lang: str) -> list[str]:
    head = [_msg("report.exercise", lang), _msg("report.fmt_title", lang), _msg("report.score", lang), ""]
    rows = [f"| {' | '.join(inline(h) for h in head)} |", "|:--|:--|--:|:-:|"]
    for exercise in result.exercises:
        rows.append(f"| {code(exercise.id, cell=True)} | {inline(text(exercise.title, lang))} | "
                    f"{_num(exercise.score)}/{_num(exercise.max_score)} | {PASS if _complete(exercise) else FAIL} |")
    rows.append(f"| **{inline(_msg('report.total', lang))}** | | "
                f"**{_num(result.score)}/{_num(result.max_score)}** | {PASS if result.all_passed else FAIL} |")
    return rows


def _exercise(exercise, lang: str) -> list[str]:
    lines = [f"### {FAIL} {code(exercise.id)} {inline(text(exercise.title, lang))}: "
             f"{_num(exercise.score)}/{_num(exercise.max_score)}", ""]
    lines += [f"> {inline(note.render(lang))}\n" for note in exercise.notes]
    if exercise.problem is not None:
        lines += [f"**{inline(_msg('report.problem', lang))}:** {inline(_clip(exercise.problem.render(lang)))}", ""]
    failing = [c for c in exercise.checks if not c.passed or c.score < c.max_score]
    if failing:
        lines += [f"**{inline(_msg('report.fmt_failed_checks', lang))}**", ""]
        lines += [_check(check, lang, show_message=exercise.problem is None) for check in failing]
        lines.append("")
    for diagnosis in exercise.diagnoses:
        item = (f"- **{inline(_msg('report.diagnosis', lang))}** {code(diagnosis.id)}: "
                f"**{inline(text(diagnosis.title, lang))}**")
        explanation = text(diagnosis.explanation, lang)
        if explanation:
            item += f"<br>{inline(explanation)}"
        hint = text(diagnosis.hint, lang)
        if hint:
            item += f"<br>*{inline(_msg('report.hint', lang))}:* {inline(hint)}"
        lines.append(item)
    if exercise.diagnoses:
        lines.append("")
    if exercise.output.strip():
        shown = exercise.output[:OUTPUT_SHOWN] + ("…" if len(exercise.output) > OUTPUT_SHOWN else "")
        shown = "\n".join(shown.splitlines()[:OUTPUT_LINES])
        lines += [f"<details><summary>{pre(_msg('report.output', lang))}</summary>", "",
                  f"<pre>{pre(shown)}</pre>", "", "</details>", ""]
    return lines


def _check(check, lang: str, show_message: bool) -> str:
    mark = PASS if check.passed else FAIL
    item = f"- {mark} {code(check.name)}"
    if check.hidden:
        item += f" ({inline(_msg('report.hidden', lang))})"
    item += f" · {_num(check.score)}/{_num(check.max_score)}"
    title = text(check.title, lang)
    if title:
        item += f" · {inline(title)}"
    if check.hidden:
        # pass/fail only: no message, no counterexample, no hint
        return item + f" · {inline(_msg('report.passed' if check.passed else 'report.failed', lang))}"
    if not show_message:
        return item
    message = check.message.render(lang) if check.message is not None else ""
    if message:
        item += f"<br>{inline(_clip(message))}"
    counterexample = getattr(check, "counterexample", None)
    if counterexample is not None and not check.passed:
        item += f"<br>{inline(_clip(counterexample.render(lang)))}"
    hint = text(check.hint, lang)
    if hint and not check.passed:
        item += f"<br>*{inline(_msg('report.hint', lang))}:* {inline(hint)}"
    return item


# ---------------------------------------------------------------- escaping

def visible(raw: str, keep: str = "\n") -> str:
    """Control and other non-printable characters (ANSI codes, NUL, bidi overrides, lone
    surrogates) shown as escapes such as ``\\x1b``, so they are data, not terminal or
    layout commands. ``\\r\\n`` counts as a newline."""
    raw = str(raw).replace("\r\n", "\n")
    if raw.isprintable() or (keep == "\n" and raw.replace("\n", "").isprintable()):
        return raw   # the usual case, without a Python loop
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in raw)


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

def _complete(exercise) -> bool:
    return all(c.passed for c in exercise.checks) and exercise.score >= exercise.max_score


def _clip(message: str) -> str:
    return message if len(message) <= MESSAGE_SHOWN else message[:MESSAGE_SHOWN] + "…"


def _msg(key: str, lang: str, **params) -> str:
    return Message(key, **params).render(lang)


def _num(x: float) -> str:
    """Whole numbers as ints (10, not 10.0); others with up to 4 decimals."""
    x = round(float(x), 4)
    return str(int(x)) if x.is_integer() else f"{x:g}"
