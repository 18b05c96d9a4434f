"""The JUnit XML report that CI systems read (Jenkins / Surefire conventions).

::

    <testsuites name tests failures errors time>
      <testsuite name=EXERCISE tests failures errors skipped time>
        <properties>  title, score, max_score, isolation, diagnosis (one per named mistake), note
        <testcase classname=EXERCISE name=CHECK time="0">
          <failure message=MESSAGE>details</failure>     (a check that failed)
          <error message=MESSAGE>details</error>         (a check that broke: a grader bug)
        <system-out>  the known mistakes explained, the problem, what the student's code printed

A hidden check's failure carries only the generic "a hidden check failed" text (the view
decides). Every ``time`` is 0: an exercise's time includes its hidden checks' calls, and
student code that sleeps in proportion to a hidden input would write that input into it.
ElementTree escapes markup; characters XML 1.0 forbids (control characters such as ANSI
escapes, lone surrogates) are written as visible escapes like ``\\x1b``.

A class (`grade class --format junit`) is one ``<testsuites>`` with one suite per student
and exercise, named ``STUDENT::EXERCISE``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.report.escaping import visible
from grader.report.view import OUTPUT_KEPT, CheckView, ExerciseView, SubmissionView, points
from grader.report import Writer, class_writer

NO_TIME = "0"         # the attribute CI readers expect, with no measurement in it (see above)


def render_junit(view: SubmissionView) -> str:
    return _document(view.label("report.title"), [("", view)])


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_junit, ".xml", many=class_writer("junit"))


def render_junit_class(views: list[tuple[str, SubmissionView]], title: str) -> str:
    """``views``: (student, view) pairs."""
    return _document(title, views)


def _document(title: str, views) -> str:
    checks = [check for _, view in views for _, check in view.checks]
    root = ET.Element("testsuites", {
        "name": clean(title),
        "tests": str(len(checks)),
        "failures": str(sum(1 for c in checks if not c.passed and not c.internal)),
        "errors": str(sum(1 for c in checks if not c.passed and c.internal)),
        "time": NO_TIME,
    })
    for student, view in views:
        for exercise in view.exercises:
            _suite(root, f"{student}::{exercise.id}" if student else exercise.id, exercise, view)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(root, name: str, exercise: ExerciseView, view: SubmissionView) -> None:
    failing = [c for c in exercise.checks if not c.passed]
    suite = ET.SubElement(root, "testsuite", {
        "name": clean(name),
        "tests": str(len(exercise.checks)),
        "failures": str(sum(1 for c in failing if not c.internal)),
        "errors": str(sum(1 for c in failing if c.internal)),
        "skipped": "0",
        "time": NO_TIME,
    })
    properties = ET.SubElement(suite, "properties")
    _property(properties, "title", exercise.title)
    _property(properties, "score", points(exercise.score))
    _property(properties, "max_score", points(exercise.max_score))
    _property(properties, "isolation", view.isolation)
    for diagnosis in exercise.diagnoses:
        _property(properties, "diagnosis", diagnosis.id)
    for note in view.notes:
        _property(properties, "note", note)

    for check in exercise.checks:
        case = ET.SubElement(suite, "testcase", {"classname": clean(name), "name": clean(check.name), "time": NO_TIME})
        if check.passed:
            continue
        message = check.message or view.label("report.failed")
        element = ET.SubElement(case, "error" if check.internal else "failure", {"message": clean(message)})
        element.text = clean(_details(check, message, view))

    out = _system_out(exercise, view)
    if out:
        ET.SubElement(suite, "system-out").text = clean(out)


def _details(check: CheckView, message: str, view: SubmissionView) -> str:
    """The failure's body: title, points, message, and for visible checks the
    counterexample and the hint."""
    head = check.name + (f" ({view.label('report.hidden')})" if check.hidden else "")
    lines = [f"{head}: {check.title}" if check.title else head,
             f"{check.points} {view.label('report.points')}", message]
    if check.counterexample:
        lines.append(check.counterexample)
    if check.hint:
        lines.append(f"{view.label('report.hint')}: {check.hint}")
    return "\n".join(lines)


def _system_out(exercise: ExerciseView, view: SubmissionView) -> str:
    parts = []
    if exercise.problem:
        parts.append(f"{view.label('report.problem')}: {exercise.problem}")
    for diagnosis in exercise.diagnoses:
        block = [f"{view.label('report.diagnosis')} [{diagnosis.id}]: {diagnosis.title}"]
        if diagnosis.explanation:
            block.append(f"    {diagnosis.explanation}")
        if diagnosis.hint:
            block.append(f"    {view.label('report.hint')}: {diagnosis.hint}")
        parts.append("\n".join(block))
    excerpt = exercise.output_excerpt(OUTPUT_KEPT, lines=None)
    if excerpt:
        parts.append(f"{view.label('report.output')}:\n" + "\n".join("    | " + row for row in excerpt.splitlines()))
    return "\n\n".join(parts)


def clean(raw) -> str:
    """Text that is legal XML 1.0: newlines and tabs kept, every other non-printable
    character written as a visible escape such as ``\\x1b``."""
    return visible(raw, keep="\n\t")


def _property(properties, name: str, value) -> None:
    ET.SubElement(properties, "property", {"name": name, "value": clean(value)})
