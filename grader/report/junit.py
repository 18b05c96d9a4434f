"""The JUnit XML report that CI systems read (Jenkins / Surefire conventions).

::

    <testsuites name tests failures errors time>
      <testsuite name=EXERCISE tests failures errors skipped time>
        <properties>  title, score, max_score, isolation, diagnosis (one per named mistake), note
        <testcase classname=EXERCISE name=CHECK time="0">
          <failure message=MESSAGE>details</failure>     (a check that failed)
          <error message=MESSAGE>details</error>         (a check that broke: a grader bug)
        <system-out>  the known mistakes explained, the problem, what the student's code printed

A hidden check's failure carries only the generic "a hidden check failed" text. Every
``time`` is 0: an exercise's time includes its hidden checks' calls, and student code
that sleeps in proportion to a hidden input would write that input into it.
ElementTree escapes markup; characters XML 1.0 forbids (control characters such
as ANSI escapes, lone surrogates) are written as visible escapes like ``\\x1b``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.i18n import Message, text

OUTPUT_SHOWN = 4000   # characters of the student's own prints kept per exercise
NO_TIME = "0"         # the attribute CI readers expect, with no measurement in it (see above)


def render_junit(result, lang: str) -> str:
    root = ET.Element("testsuites", {
        "name": clean(_msg("report.title", lang)),
        "tests": str(sum(len(e.checks) for e in result.exercises)),
        "failures": str(sum(_failures(e) for e in result.exercises)),
        "errors": str(sum(_errors(e) for e in result.exercises)),
        "time": NO_TIME,
    })
    for exercise in result.exercises:
        _suite(root, exercise, result, lang)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(root, exercise, result, lang: str) -> None:
    suite = ET.SubElement(root, "testsuite", {
        "name": clean(exercise.id),
        "tests": str(len(exercise.checks)),
        "failures": str(_failures(exercise)),
        "errors": str(_errors(exercise)),
        "skipped": "0",
        "time": NO_TIME,
    })
    properties = ET.SubElement(suite, "properties")
    _property(properties, "title", text(exercise.title, lang))
    _property(properties, "score", _num(exercise.score))
    _property(properties, "max_score", _num(exercise.max_score))
    _property(properties, "isolation", result.isolation)
    for diagnosis in exercise.diagnoses:
        _property(properties, "diagnosis", diagnosis.id)
    for note in result.notes:
        _property(properties, "note", note.render(lang))

    for check in exercise.checks:
        case = ET.SubElement(suite, "testcase", {
            "classname": clean(exercise.id), "name": clean(check.name), "time": NO_TIME})
        if check.passed:
            continue
        tag = "error" if check.internal else "failure"
        message = _message(check, lang)
        element = ET.SubElement(case, tag, {"message": clean(message)})
        element.text = clean(_details(check, message, lang))

    out = _system_out(exercise, lang)
    if out:
        ET.SubElement(suite, "system-out").text = clean(out)


def _message(check, lang: str) -> str:
    if check.hidden:
        return _msg("report.hidden_failed", lang)     # never the hidden check's own message
    return check.message.render(lang) if check.message is not None else _msg("report.failed", lang)


def _details(check, message: str, lang: str) -> str:
    """The failure's body: title, points, message, and for visible checks the
    counterexample and the hint."""
    title = text(check.title, lang)
    head = f"{check.name}" + (f" ({_msg('report.hidden', lang)})" if check.hidden else "")
    lines = [f"{head}: {title}" if title else head,
             f"{_num(check.score)}/{_num(check.max_score)} {_msg('report.points', lang)}",
             message]
    if not check.hidden:
        counterexample = getattr(check, "counterexample", None)
        if counterexample is not None:
            lines.append(counterexample.render(lang))
        hint = text(check.hint, lang)
        if hint:
            lines.append(f"{_msg('report.hint', lang)}: {hint}")
    return "\n".join(lines)


def _system_out(exercise, lang: str) -> str:
    parts = []
    if exercise.problem is not None:
        parts.append(f"{_msg('report.problem', lang)}: {exercise.problem.render(lang)}")
    for diagnosis in exercise.diagnoses:
        block = [f"{_msg('report.diagnosis', lang)} [{diagnosis.id}]: {text(diagnosis.title, lang)}"]
        if text(diagnosis.explanation, lang):
            block.append(f"    {text(diagnosis.explanation, lang)}")
        if text(diagnosis.hint, lang):
            block.append(f"    {_msg('report.hint', lang)}: {text(diagnosis.hint, lang)}")
        parts.append("\n".join(block))
    if exercise.output.strip():
        shown = exercise.output[:OUTPUT_SHOWN] + ("…" if len(exercise.output) > OUTPUT_SHOWN else "")
        parts.append(f"{_msg('report.output', lang)}:\n" + "\n".join("    | " + row for row in shown.splitlines()))
    return "\n\n".join(parts)


def clean(raw) -> str:
    """Text that is legal XML 1.0: newlines and tabs kept, every other non-printable
    character (C0/C1 controls such as ESC, NUL, U+FFFE, lone surrogates, bidi controls)
    written as a visible escape such as ``\\x1b``."""
    raw = str(raw).replace("\r\n", "\n")
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in raw)


def _property(properties, name: str, value) -> None:
    ET.SubElement(properties, "property", {"name": name, "value": clean(value)})


def _failures(exercise) -> int:
    return sum(1 for c in exercise.checks if not c.passed and not c.internal)


def _errors(exercise) -> int:
    return sum(1 for c in exercise.checks if not c.passed and c.internal)


def _msg(key: str, lang: str) -> str:
    return Message(key).render(lang)


def _num(x: float) -> str:
    x = round(float(x), 4)
    return str(int(x)) if x.is_integer() else f"{x:g}"
