"""Per-student variants of quiz questions (CONTRACT section 11).

A question may declare parameters and compute its answer from them (docs/authoring.md,
"Per-student variants")::

    - key: weight_count
      format: int
      params: {n: [2, 8], m: [2, 8]}        # integers from 2 to 8 (inclusive); [0.5, 2.0]: a number
      defaults: {n: 3, m: 4}                # the variant of the answer key, the generic kit, grade check
      answer: "n*m + m"                     # an expression over the parameters
      question:
        en: "How many parameters has a dense layer from n = {n} inputs to m = {m} outputs?"
        zh: "从 n = {n} 个输入到 m = {m} 个输出的全连接层有多少个参数？"

Each student's values are drawn from the course secret (grader/course/secret.py) and the student's id
with HMAC-SHA256, so they are the same on every release and every machine that holds the secret,
and no student can compute another's without it. ``{name}`` in the question's texts becomes the
value. ``grade release OUT --roster roster.csv`` writes one kit per student with their own texts;
``grade class`` grades each entry (named by its roster id) against that student's own answer,
so a copied numeric answer of another student is wrong. Without a student (``grade check``,
``grade validate``) a question is graded against the answer key as before, whose answer must be
the one of ``defaults``.

The expression language: numbers, the parameters, ``+ - * / // % **`` and parentheses, and
``abs min max round sqrt exp log``; nothing else is evaluated (no names, attributes or calls
beyond those), and a power's exponent is at most 64.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import hashlib
import hmac
import math
import re
from pathlib import Path

from grader.base.errors import BadInput, CourseError

_ACTIVE: dict = {"secret": None, "student": None}
_FUNCTIONS = {"abs": abs, "min": min, "max": max, "round": round, "sqrt": math.sqrt, "exp": math.exp, "log": math.log}
_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


@contextlib.contextmanager
def for_student(secret: bytes | None, student: str | None):
    """Within: variant questions are graded for ``student`` (grader/classroom/class_run.py, one entry at a time)."""
    before = dict(_ACTIVE)
    _ACTIVE.update(secret=secret, student=student if secret is not None else None)
    try:
        yield
    finally:
        _ACTIVE.update(before)


def variant_questions(course) -> list:
    return [spec for exercise in course.exercises.values() if exercise.is_quiz for spec in exercise.checks
            if isinstance((spec.question or {}).get("params"), dict)]


def has_variants(course) -> bool:
    return bool(variant_questions(course))


def draw(secret: bytes, student: str, question: str, params: dict) -> dict:
    """The student's values of ``params`` (``{name: [low, high]}`` or ``{name: {choices: [...]}}``)."""
    values = {}
    for name in sorted(params):
        spec = params[name]
        digest = hmac.new(secret, f"variant:{student}:{question}:{name}".encode("utf-8", "surrogateescape"),
                          hashlib.sha256).digest()
        number = int.from_bytes(digest[:8], "little")
        if isinstance(spec, dict) and isinstance(spec.get("choices"), list) and spec["choices"]:
            values[name] = spec["choices"][number % len(spec["choices"])]
        elif isinstance(spec, (list, tuple)) and len(spec) == 2 and all(isinstance(v, (int, float))
                                                                       and not isinstance(v, bool) for v in spec):
            low, high = spec
            if high < low:
                raise CourseError(f"question {question!r}: parameter {name!r}: {low} > {high}")
            if isinstance(low, int) and isinstance(high, int):
                values[name] = low + number % (high - low + 1)
            else:
                values[name] = round(low + (high - low) * (number / 2.0 ** 64), 2)
        else:
            raise CourseError(f"question {question!r}: parameter {name!r} must be [low, high] or "
                              "{choices: [...]}")
    return values


def evaluate(expression: str, values: dict, question: str = "?"):
    """The answer ``expression`` over the parameters' ``values`` (the language of the module docstring)."""
    try:
        tree = ast.parse(str(expression), mode="eval")
    except SyntaxError as exc:
        raise CourseError(f"question {question!r}: answer {expression!r} is not an expression ({exc.msg})") from None

    def run(node):
        if isinstance(node, ast.Expression):
            return run(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value,
                                                                                                     bool):
            return node.value
        if isinstance(node, ast.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = run(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            base, exponent = run(node.left), run(node.right)
            if abs(exponent) > 64:
                raise CourseError(f"question {question!r}: answer {expression!r}: an exponent above 64")
            return base ** exponent
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](run(node.left), run(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS \
                and not node.keywords:
            return _FUNCTIONS[node.func.id](*[run(arg) for arg in node.args])
        raise CourseError(f"question {question!r}: answer {expression!r}: {ast.dump(node)[:60]} is not allowed "
                          "(numbers, the parameters, + - * / // % ** and abs min max round sqrt exp log)")

    try:
        return run(tree)
    except CourseError:
        raise
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise CourseError(f"question {question!r}: answer {expression!r} fails for {values}: {exc}") from None


def values_of(spec, student: str | None, secret: bytes | None) -> dict:
    question = spec.question or {}
    if student is None or secret is None:
        return dict(question.get("defaults") or {})
    return draw(secret, student, spec.id, question["params"])


def variant_key(exercise, key: dict, grade_answer) -> dict:
    """The answer key as the student being graded sees it: each variant question's answer
    computed from their values; without a student, ``key`` as it is (checked against the
    defaults with ``grade_answer``, grader/quiz/grade.py's, which imports this module)."""
    student, secret = _ACTIVE["student"], _ACTIVE["secret"]
    if student is None or secret is None:
        check_defaults(exercise, key, grade_answer)
        return key
    changed = dict(key)
    for spec in exercise.checks:
        question = spec.question or {}
        if isinstance(question.get("params"), dict) and "answer" in question:
            changed[spec.id] = evaluate(question["answer"], values_of(spec, student, secret), spec.id)
    return changed


def check_defaults(exercise, key: dict, grade_answer) -> None:
    """A variant question's course errors, found by ``grade validate`` and ``grade check``: parameters
    that cannot be drawn, an answer that is no expression over them, or an answer key that is not
    the answer of ``defaults`` (as ``grade_answer`` grades it)."""
    for spec in exercise.checks:
        question = spec.question or {}
        if not isinstance(question.get("params"), dict):
            continue
        where = str(exercise.path or exercise.id) + (f":{spec.line}" if spec.line else "")
        if "answer" not in question or not isinstance(question.get("defaults"), dict):
            raise CourseError(f"{where}: question {spec.id!r} declares params, so it needs answer: (an expression "
                              "over them) and defaults: (the values of the answer key's variant)")
        draw(b"check the parameters", "check", spec.id, question["params"])
        missing = sorted(set(question["params"]) - set(question["defaults"]))
        if missing:
            raise CourseError(f"{where}: question {spec.id!r}: defaults gives no {missing[0]!r}")
        computed = evaluate(question["answer"], question["defaults"], spec.id)
        if key.get(spec.id) is not None and grade_answer(question, computed, key.get(spec.id)).fraction < 1:
            raise CourseError(f"{where}: question {spec.id!r}: the answer key says {key.get(spec.id)!r}, but its "
                              f"answer with the defaults {question['defaults']} is {computed!r}")


def fill(texts: dict, values: dict) -> dict:
    """``{name}`` of each parameter replaced by its value in every language (other braces, as LaTeX's, kept)."""
    if not values:
        return texts
    pattern = re.compile(r"\{(" + "|".join(re.escape(name) for name in values) + r")\}")
    return {lang: pattern.sub(lambda m: str(values[m.group(1)]), text) if isinstance(text, str) else text
            for lang, text in (texts or {}).items()}


def personalised(course, student: str | None, secret: bytes | None):
    """A copy of ``course`` whose variant questions read with ``student``'s values (with None: the defaults)."""
    if not has_variants(course):
        return course
    copied = copy.copy(course)
    copied.exercises = dict(course.exercises)
    for exercise_id, exercise in course.exercises.items():
        if not exercise.is_quiz:
            continue
        checks = []
        for spec in exercise.checks:
            if isinstance((spec.question or {}).get("params"), dict):
                spec = dataclasses.replace(spec, title=fill(spec.title, values_of(spec, student, secret)))
            checks.append(spec)
        copied.exercises[exercise_id] = dataclasses.replace(exercise, checks=checks)
    return copied


def read_roster(path: Path) -> list[str]:
    """``roster.csv``'s ``student`` column: each id once, none empty."""
    from grader.base.csv_rows import read_csv_rows

    rows = read_csv_rows(path, ("student", "student"), "--roster")
    ids = [student for student, _ in rows if student]
    if not ids:
        raise BadInput(f"--roster {path}: no student")
    twice = sorted({s for s in ids if ids.count(s) > 1})
    if twice:
        raise BadInput(f"--roster {path}: student {twice[0]!r} is listed twice")
    bad = [s for s in ids if s in (".", "..") or "/" in s or "\\" in s or "\0" in s or s.startswith(".")]
    if bad:
        raise BadInput(f"--roster {path}: {bad[0]!r} cannot name a kit folder")
    return ids
