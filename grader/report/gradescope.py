"""Gradescope's ``results.json`` (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

Only documented keys are written. Top level: ``score`` (the submission's total),
``output`` (a short summary), ``output_format``,
``visibility`` and ``stdout_visibility`` ("visible"), ``extra_data`` and
``tests``: one test per check with ``name`` ("<exercise>::<check> — <title>"),
``number``, ``score``, ``max_score``, ``status`` ("passed"/"failed"),
``name_format``/``output_format`` ("text": nothing a student wrote is read as
HTML or Markdown), ``output``, ``tags`` and ``visibility``.

A visible check's output is its message, counterexample and hint; the known
mistakes of an exercise go with its first failing visible check (or its first
failing check if only hidden ones failed). A hidden check's output is never its
own message, only the generic text; it stays "visible" so students see their total.

No ``execution_time`` (the specification makes it optional): the grading time includes
the hidden checks' calls, and student code that sleeps in proportion to a hidden input
would show that input in it.
"""

from __future__ import annotations

import json

from grader.i18n import Message, text

HIDDEN_VISIBILITY = "visible"   # a hidden check shows pass/fail and points only; its message is never included
MESSAGE_SHOWN = 4000


def render_gradescope(result, lang: str) -> str:
    tests = []
    for n, exercise in enumerate(result.exercises, start=1):
        target = _diagnosis_target(exercise)
        for m, check in enumerate(exercise.checks, start=1):
            tests.append(_test(exercise, check, f"{n}.{m}", lang, with_diagnoses=check is target))
    data = {
        "score": _number(result.score),
        "output": _summary(result, lang),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "visible",
        "extra_data": {
            "max_score": _number(result.max_score),
            "isolation": result.isolation,
            "diagnoses": {e.id: [d.id for d in e.diagnoses] for e in result.exercises if e.diagnoses},
        },
        "tests": tests,
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _test(exercise, check, number: str, lang: str, with_diagnoses: bool) -> dict:
    title = text(check.title, lang)
    name = f"{exercise.id}::{check.name}" + (f" — {title}" if title else "")
    parts = [note.render(lang) for note in exercise.notes] if check is exercise.checks[0] else []
    if check.hidden:
        if not check.passed:
            parts.append(_msg("report.hidden_failed", lang))   # never the hidden check's own message
    else:
        if check.message is not None and (not check.passed or check.score < check.max_score):
            parts.append(_clip(check.message.render(lang)))
        counterexample = getattr(check, "counterexample", None)
        if counterexample is not None and not check.passed:
            parts.append(_clip(counterexample.render(lang)))
        hint = text(check.hint, lang)
        if hint and not check.passed:
            parts.append(f"{_msg('report.hint', lang)}: {hint}")
    if with_diagnoses:
        parts += [_diagnosis(d, lang) for d in exercise.diagnoses]
    return {
        "name": plain(name),
        "name_format": "text",
        "number": number,
        "score": _number(check.score),
        "max_score": _number(check.max_score),
        "status": "passed" if check.passed else "failed",
        "output": plain("\n\n".join(parts)),
        "output_format": "text",
        "tags": [plain(exercise.id)],
        "visibility": HIDDEN_VISIBILITY if check.hidden else "visible",
    }


def _diagnosis_target(exercise):
    """The check whose output carries the exercise's known mistakes."""
    if not exercise.diagnoses:
        return None
    failing = [c for c in exercise.checks if not c.passed]
    visible = [c for c in failing if not c.hidden]
    return (visible or failing or [None])[0]


def _diagnosis(diagnosis, lang: str) -> str:
    lines = [f"{_msg('report.diagnosis', lang)} [{diagnosis.id}]: {text(diagnosis.title, lang)}"]
    if text(diagnosis.explanation, lang):
        lines.append(text(diagnosis.explanation, lang))
    if text(diagnosis.hint, lang):
        lines.append(f"{_msg('report.hint', lang)}: {text(diagnosis.hint, lang)}")
    return "\n".join(lines)


def _summary(result, lang: str) -> str:
    checks = [c for e in result.exercises for c in e.checks]
    failed = sum(1 for c in checks if not c.passed)
    params = {"score": _number(result.score), "max_score": _number(result.max_score),
              "checks": len(checks), "failed": failed}
    lines = [_msg("report.fmt_summary" if failed else "report.fmt_summary_passed", lang, **params)]
    ids = [d.id for e in result.exercises for d in e.diagnoses]
    if ids:
        lines.append(_msg("report.fmt_known_mistakes", lang, ids=", ".join(ids)))
    lines += [note.render(lang) for note in result.notes]
    return plain("\n".join(lines))


def plain(raw) -> str:
    """Text shown as text: newlines kept, control characters (ANSI escapes...), lone
    surrogates and other non-printables written as visible escapes such as ``\\x1b``."""
    raw = str(raw).replace("\r\n", "\n")
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in raw)


def _clip(message: str) -> str:
    return message if len(message) <= MESSAGE_SHOWN else message[:MESSAGE_SHOWN] + "…"


def _msg(key: str, lang: str, **params) -> str:
    return Message(key, **params).render(lang)


def _number(x: float):
    x = round(float(x), 4)
    return int(x) if x.is_integer() else x
