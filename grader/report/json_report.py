"""The JSON report of CONTRACT section 5."""

from __future__ import annotations

import json

from grader.report.view import SubmissionView, number
from grader.report import Writer, class_writer


def report_data(view: SubmissionView) -> dict:
    """`grade check --format json`'s object (`grade class` lists one per student)."""
    return {"score": number(view.score), "max_score": number(view.max_score), "isolation": view.isolation,
            "exercises": [_exercise(e) for e in view.exercises], "notes": list(view.notes)}


def _exercise(exercise) -> dict:
    return {"id": exercise.id, "title": exercise.title, "score": number(exercise.score),
            "max_score": number(exercise.max_score), "diagnoses": [d.id for d in exercise.diagnoses],
            "problem": exercise.problem or None, "notes": list(exercise.notes),
            "checks": [check_data(c) for c in exercise.checks]}


def check_data(check) -> dict:
    data = {"name": check.name, "passed": check.passed, "score": number(check.score),
            "max_score": number(check.max_score), "message": check.message}
    if check.counterexample:
        data["counterexample"] = check.counterexample
    return data


def render_json(view: SubmissionView) -> str:
    return dumps(report_data(view))


# This format's entry of grader/report/__init__.py WRITERS.
WRITER = Writer(render_json, ".json", many=class_writer("json"))


def dumps(data) -> str:
    return escape_invisible(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"


def escape_invisible(encoded: str) -> str:
    """JSON text with every character a terminal may act on (DEL, C1 controls such as U+009B,
    bidi overrides, line separators, lone surrogates; json.dumps(ensure_ascii=False) leaves
    them raw) written as a ``\\uXXXX`` escape: the values parse back unchanged. Outside
    strings, json.dumps writes only printable characters and newlines."""
    if encoded.replace("\n", "").isprintable():
        return encoded       # the usual case, without a Python loop
    return "".join(c if c.isprintable() or c == "\n" else _escape(c) for c in encoded)


def _escape(c: str) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000      # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
