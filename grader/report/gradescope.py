"""Gradescope's ``results.json`` (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

Only documented keys are written. Top level: ``score`` (the submission's total),
``output`` (a short summary), ``output_format``,
``visibility`` and ``stdout_visibility`` ("visible"), ``extra_data`` and
``tests``: one test per check with ``name`` ("<exercise>::<check> — <title>"),
``number``, ``score``, ``max_score``, ``status`` ("passed"/"failed"),
``name_format``/``output_format`` ("text": nothing a student wrote is read as
HTML or Markdown), ``output``, ``tags`` and ``visibility``.

A visible check's output is its message, counterexample and hint; the known
mistakes of an exercise go with the check the view names as their carrier (its first
failing visible check about written code, else its first failing check). A hidden
check's output is never its own message, only the generic text; it stays "visible" so
students see their total. `grade class --format gradescope` prints
``{"submissions": [{"student": NAME, <results.json>}, ...]}``.

No ``execution_time`` (the specification makes it optional): the grading time includes
the hidden checks' calls, and student code that sleeps in proportion to a hidden input
would show that input in it.
"""

from __future__ import annotations

from grader.report.escaping import visible
from grader.report.json_report import dumps
from grader.report.view import CheckView, ExerciseView, SubmissionView, number
from grader.report import Writer, class_writer

HIDDEN_VISIBILITY = "visible"   # a hidden check shows pass/fail and points only; its message is never included
MESSAGE_SHOWN = 4000


def render_gradescope(view: SubmissionView) -> str:
    return dumps(results_data(view))


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_gradescope, ".json", many=class_writer("gradescope"))


def results_data(view: SubmissionView) -> dict:
    """Gradescope's results.json object (`grade class` lists one per student)."""
    tests = []
    for n, exercise in enumerate(view.exercises, start=1):
        for m, check in enumerate(exercise.checks, start=1):
            tests.append(_test(exercise, check, f"{n}.{m}", view))
    return {
        "score": number(view.score),
        "output": _summary(view),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "visible",
        "extra_data": {
            "max_score": number(view.max_score),
            "isolation": view.isolation,
            "diagnoses": {e.id: [d.id for d in e.diagnoses] for e in view.exercises if e.diagnoses},
        },
        "tests": tests,
    }


def _test(exercise: ExerciseView, check: CheckView, number_: str, view: SubmissionView) -> dict:
    name = f"{exercise.id}::{check.name}" + (f" — {check.title}" if check.title else "")
    parts = list(exercise.notes) if check is exercise.checks[0] else []
    if not check.passed or check.partial:
        parts += [_clip(part) for part in (check.message, check.counterexample) if part]
    if check.hint:
        parts.append(f"{view.label('report.hint')}: {check.hint}")
    if check is exercise.carrier:
        parts += [_diagnosis(d, view) for d in exercise.diagnoses]
    return {
        "name": visible(name),
        "name_format": "text",
        "number": number_,
        "score": number(check.score),
        "max_score": number(check.max_score),
        "status": check.status,
        "output": visible("\n\n".join(parts)),
        "output_format": "text",
        "tags": [visible(exercise.id)],
        "visibility": HIDDEN_VISIBILITY if check.hidden else "visible",
    }


def _diagnosis(diagnosis, view: SubmissionView) -> str:
    lines = [f"{view.label('report.diagnosis')} [{diagnosis.id}]: {diagnosis.title}"]
    if diagnosis.explanation:
        lines.append(diagnosis.explanation)
    if diagnosis.hint:
        lines.append(f"{view.label('report.hint')}: {diagnosis.hint}")
    return "\n".join(lines)


def _summary(view: SubmissionView) -> str:
    checks = [c for _, c in view.checks]
    failed = sum(1 for c in checks if not c.passed)
    params = {"score": number(view.score), "max_score": number(view.max_score), "checks": len(checks),
              "failed": failed}
    lines = [view.label("report.fmt_summary" if failed else "report.fmt_summary_passed", **params)]
    ids = [d.id for e in view.exercises for d in e.diagnoses]
    if ids:
        lines.append(view.label("report.fmt_known_mistakes", ids=", ".join(ids)))
    lines += view.notes
    return visible("\n".join(lines))


def _clip(message: str) -> str:
    return message if len(message) <= MESSAGE_SHOWN else message[:MESSAGE_SHOWN] + "…"
