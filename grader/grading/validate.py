"""``grade validate``: proof that every check of the course can pass and fail.

1. The reference, laid out as a student folder, scores full marks and is
   never diagnosed with a mistake.
2. The stubs score zero on every check.
3. Every known mistake (each implementation variant), laid out as the
   reference with that one file made wrong, loses points on its exercise,
   fails the checks its catalogue entry lists, and is named (a mistake whose entry sets
   ``hidden_evidence``, which only a hidden check shows: named in the instructor's
   ``hidden_diagnoses``, as the student's report names nothing from a hidden check's calls).
4. Every check of every exercise is failed by at least one of the above, except a check
   declared ``guards: true`` (a safety net: dtype, arguments left alone, no state), which
   no known mistake need fail; validate proves it can fail with generated mistakes instead
   (the reference's result in float32, its arguments modified after the call, a state
   kept between calls).
5. Every path a student's grading takes runs: the counterexample search and the diagnosis
   on every known mistake. A failure of the course's own code or YAML found on the way (the
   reference raising on a check's inputs, a builder raising, names of the wrong type, a known
   mistake that does not compile, a quiz's known wrong answer that the answer key grades
   right) is a course error naming the file: listed with the problems, then raised
   (:class:`CourseError`, exit 2).
6. Hints follow evidence: every known mistake's report (each language) shows the mistake's
   own hint and no hint tied to another cause (another mistake's, a check's hint for a way
   of failing); a visible check whose only hints are tied to a way of failing, or whose
   generic hint is a known mistake's, is a problem naming its file and check.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.course.solution_folders import mistake_folder, reference_folder
from grader.grading.engine import Grader
from grader.base.errors import CourseError
from grader.grading.grade_path import grade_path
from grader.report import check_message


@dataclass
class ValidationReport:
    problems: list[str] = field(default_factory=list)
    mistakes: int = 0
    implementations: int = 0
    course_errors: list[str] = field(default_factory=list)   # also in problems: validate then raises

    @property
    def ok(self) -> bool:
        return not self.problems


def _equation_problems(course, exercises) -> list[str]:
    """An equation question whose answer-key answer cannot serve as its reference."""
    from grader.quiz.equation import reference_problem

    questions = [spec for exercise in exercises if exercise.is_quiz for spec in exercise.checks
                 if (spec.question or {}).get("format") == "equation"]
    key = (course.answer_key() or {}) if questions else {}
    problems = []
    for spec in questions:
        problem = reference_problem(spec.question.get("equation"), key.get(spec.id))
        if problem:
            problems.append(f"{course.answer_key_path.name}: {spec.id}: {problem}")
    return problems


# Generated mistakes (appended to a function's file like a known mistake) that prove a check
# declared ``guards: true`` can fail: the reference's result in float32, its array arguments
# changed after the call, a result that drifts with every call.
GENERATED_HELPERS = """
import numpy as _guard_np


def _guard_float32(value):
    if isinstance(value, _guard_np.ndarray) and value.dtype.kind == "f":
        return value.astype(_guard_np.float32)
    if isinstance(value, float):
        return _guard_np.float32(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_guard_float32(v) for v in value)
    if isinstance(value, dict):
        return {k: _guard_float32(v) for k, v in value.items()}
    return value


def _guard_modified(args, kwargs):
    for value in [*args, *kwargs.values()]:
        if isinstance(value, _guard_np.ndarray) and value.size and value.flags.writeable:
            if value.dtype.kind == "b":
                value.flat[0] = not value.flat[0]
            elif value.dtype.kind in "iuf":
                value.flat[0] = value.flat[0] + 1


_guard_calls = [0]


def _guard_state(value):
    _guard_calls[0] += 1
    if isinstance(value, _guard_np.ndarray) and value.dtype.kind == "f":
        return value + 0.5 * _guard_calls[0]
    if isinstance(value, float):
        return value + 0.5 * _guard_calls[0]
    if isinstance(value, (tuple, list)):
        return type(value)(_guard_state(v) for v in value)
    return value
"""
GENERATED = {
    "float32 result": "return _guard_float32(_guard_reference_{f}(*args, **kwargs))",
    "modified argument": "result = _guard_reference_{f}(*args, **kwargs)\n    _guard_modified(args, kwargs)\n"
                         "    return result",
    "state kept between calls": "return _guard_state(_guard_reference_{f}(*args, **kwargs))",
}


def generated_mistake(exercise, how: str) -> str:
    """The code that makes each of the exercise's functions a generated mistake ``how``."""
    parts = [GENERATED_HELPERS]
    for f in exercise.functions:
        parts.append(f"_guard_reference_{f} = {f}\n\n\ndef {f}(*args, **kwargs):\n    {GENERATED[how].format(f=f)}\n")
    return "\n\n".join(parts)


def _mistake_sources(course, exercises) -> list[str]:
    """Known mistakes whose files do not compile: a course error at the file and line."""
    problems = []
    for exercise in exercises:
        for mistake in exercise.mistakes:
            for variant in mistake.variants:
                if variant.suffix != ".py":
                    continue
                try:
                    compile(variant.read_text(encoding="utf-8"), str(variant), "exec")
                except SyntaxError as exc:
                    problems.append(f"{variant}:{exc.lineno}: the known mistake does not compile: {exc.msg}")
                except (OSError, UnicodeDecodeError, ValueError) as exc:
                    problems.append(f"{variant}: cannot read the known mistake: {exc}")
    return problems


def _wrong_answer_problems(course, exercises) -> list[str]:
    """Quiz questions listing a known wrong answer that the answer key grades right."""
    from grader.quiz.grade import wrong_answer_problems

    problems = []
    for exercise in exercises:
        if exercise.is_quiz and any("wrong" in (spec.question or {}) for spec in exercise.checks):
            problems += wrong_answer_problems(exercise, course.answer_key() or {})
    return problems


def _search_problems(course, exercises, runtime) -> tuple[list[str], list[str]]:
    """(course errors, problems) of the counterexample search's inputs, every function's ladder
    built as a student's grading builds it (grader/checks/choices.py): a builder that raises is a course
    error at its file and line; a builder whose calls the reference mostly refuses draws calls
    that no correct function need accept (a shape not derived from the same sizes)."""
    from grader.checks.api import course_frame
    from grader.checks.choices import ladder
    from grader.grading.counterexample import _REFUSED, _expected
    from grader.course.kit_records import call_digest

    errors, problems = [], []
    for exercise in exercises:
        for func in exercise.functions if not exercise.is_quiz else ():
            spec = course.registry.builders.get(func)
            if spec is None:
                continue
            try:
                rungs = ladder(spec, lambda case, func=func: call_digest(func, case.args, case.kwargs))
            except Exception as exc:  # noqa: BLE001 -- the course's builder may raise anything
                where = course_frame(exc, root=course.root)
                errors.append(f"the counterexample builder of {func}() raised{where}: {type(exc).__name__}: {exc}")
                continue
            reference = runtime.reference_function(exercise.file, func)
            refused = [rung for rung in rungs if _expected(reference, rung.case) is _REFUSED]
            if 2 * len(refused) > len(rungs):
                problems.append(f"the reference raises on {len(refused)} of the {len(rungs)} counterexample inputs of "
                                f"{func}() (e.g. {describe(refused[0].case)}): the builder draws calls a correct "
                                "function need not accept (derive every shape from the same size symbols)")
    return errors, problems


def _hint_problems(course, exercises) -> list[str]:
    """Hints follow evidence (docs/authoring.md section 3): a visible check whose only hints are tied
    to a way of failing (no generic hint that restates what it verifies), or whose generic hint is a
    known mistake's own hint (a cause named for every failure), is a course problem at its file and
    check."""
    from grader.base.i18n import text

    problems = []
    for exercise in exercises:
        mistakes = {text(m.hint, "en").strip(): m.id for m in exercise.mistakes if text(m.hint, "en").strip()}
        where = exercise.path.name if exercise.path is not None else f"{exercise.id}.yaml"
        for spec in exercise.checks:
            if spec.hidden:
                continue
            at = f"exercises/{where}:{spec.line}" if spec.line else f"exercises/{where}"
            generic = text(spec.hint, "en").strip()
            if spec.hints and not generic:
                problems.append(f"{at}: check {exercise.id}.{spec.id}: its only hints are tied to a way of failing "
                                f"({', '.join(sorted(spec.hints))}): give it a generic hint (what it verifies)")
            elif generic in mistakes:
                problems.append(f"{at}: check {exercise.id}.{spec.id}: its hint is the hint of the known mistake "
                                f"{mistakes[generic]}, shown for every failure: keep it on the mistake and give the "
                                "check a generic hint (what it verifies)")
    return problems


def _report_hint_problems(exercise, mistake, result, messages=None) -> list[str]:
    """What the report of a known mistake shows, in every language: the mistake's own hint, and no
    hint tied to another cause (another mistake's, or a check's hint for a way of failing)."""
    from grader.base.i18n import LANGUAGES, text
    from grader.report.view import exercise_view

    problems = []
    if not (result.diagnoses and any(d.id == mistake.id for d in result.diagnoses)):
        return problems   # not named in the student's report: "is not named" says so
    specs = {c.id: c for c in exercise.checks}
    for lang in LANGUAGES:
        view = exercise_view(result, lang, messages)
        own = text(mistake.hint, lang).strip()   # none given: its explanation is all it says
        if own and own not in [d.hint.strip() for d in view.diagnoses if d.id == mistake.id]:
            problems.append(f"report ({lang}) does not show its own hint")
        others = [d.id for d in view.diagnoses if d.id != mistake.id and d.hint]
        if others:
            problems.append(f"report ({lang}) also shows the hint of {', '.join(others)}, another cause")
        for check in view.checks:
            spec = specs.get(check.name)
            if not check.hint or spec is None:
                continue
            if check.hint.strip() != text(spec.hint, lang).strip():
                problems.append(f"report ({lang}) shows a hint of {exercise.id}.{check.name} tied to another cause: "
                                f"{check.hint[:60]!r}")
    return problems


def describe(case) -> str:
    from grader.grading.counterexample import format_call

    return format_call("", case)[1:-1] or "no arguments"


def validate_course(course, only=(), echo=print) -> ValidationReport:
    """The report; raises :class:`CourseError` (after echoing every problem) where the course's
    own code or YAML failed."""
    report = ValidationReport()
    exercises = course.select(only)
    ids = [e.id for e in exercises]
    failed_by: dict[tuple[str, str], list[str]] = {(e.id, c.id): [] for e in exercises for c in e.checks}

    with temporary_folder("validate") as tmp, Grader(course) as grader:
        tmp = Path(tmp)
        grader.diagnoser.explain_all = True    # every implementation that explains a result (listed ones agree)

        def grade(folder: Path, which):
            try:
                result = grade_path(folder, grader, which, kind="validate")
            except CourseError as exc:   # the course's code or YAML failed while grading this folder
                report.course_errors.append(str(exc))
                report.problems.append(f"course error while grading {folder.name}: {exc}")
                return None
            for ex in result.exercises:
                for c in ex.checks:
                    if c.internal:
                        report.problems.append(f"check {ex.id}.{c.name} broke on {folder.name}: {c.internal}")
            return result

        report.problems.extend(_equation_problems(course, exercises))
        search_errors, search_problems = _search_problems(course, exercises, grader.runtime)
        for problem in _mistake_sources(course, exercises) + _wrong_answer_problems(course, exercises) + search_errors:
            report.course_errors.append(problem)
            report.problems.append(problem)
        report.problems.extend(search_problems)
        report.problems.extend(_hint_problems(course, exercises))
        if report.course_errors:
            return _finish(report, exercises, echo)
        reference = grade(reference_folder(course, tmp / "reference"), ids)
        if reference is None:
            return _finish(report, exercises, echo)
        for ex in reference.exercises:
            for c in ex.checks:
                if not c.passed:
                    shown = check_message(c, "en", course.messages)
                    report.problems.append(f"reference fails {ex.id}.{c.name}: {shown}")
            for d in ex.diagnoses:
                report.problems.append(f"reference is diagnosed with {d.id}")
        echo(f"reference  {reference.score:g}/{reference.max_score:g}")

        stubs = grade(course.stubs_dir, ids)
        for ex in stubs.exercises if stubs is not None else ():
            for c in ex.checks:
                if c.score > 0:
                    report.problems.append(f"stub scores on {ex.id}.{c.name}")
                else:
                    failed_by[(ex.id, c.name)].append("stub")
        echo(f"stubs      {stubs.score:g}/{stubs.max_score:g}")

        for exercise in exercises:
            for mistake in exercise.mistakes:
                report.mistakes += 1
                for variant in mistake.variants:
                    report.implementations += 1
                    name = f"{mistake.id}" + (f" ({variant.stem.split('__', 1)[1]})" if "__" in variant.stem else "")
                    folder = mistake_folder(course, mistake, variant, tmp / f"m{report.implementations}")
                    graded = grade(folder, [exercise.id])
                    if graded is None:
                        continue
                    result = graded.exercises[0]
                    failed = [c.name for c in result.checks if not c.passed]
                    for check_id in failed:
                        failed_by[(exercise.id, check_id)].append(mistake.id)
                    problems = []
                    if result.score >= result.max_score:
                        problems.append("loses no points")
                    # A mistake only hidden checks show (hidden_evidence) is named to the instructor
                    # only: the student's report names nothing from a hidden check's calls.
                    named = [d.id for d in result.diagnoses]
                    named += result.hidden_diagnoses if mistake.hidden_evidence else []
                    if mistake.id not in named:
                        problems.append("is not named")
                    elif mistake.listed and len(mistake.variants) > 1:
                        # implementations: [..] of one mistake agree wherever it speaks: each explains the others'
                        explained = grader.diagnoser.explained.get(mistake.id, [])
                        problems += [f"and {other.name} disagree where the mistake speaks (declare where it says "
                                     "nothing with silent:)" for other in mistake.variants if other not in explained]
                    problems += _report_hint_problems(exercise, mistake, result, course.messages)
                    missed = [c for c in mistake.fails if c not in failed]
                    if missed:
                        problems.append(f"passes {', '.join(missed)} (listed in its catalogue 'fails')")
                    for p in problems:
                        report.problems.append(f"{name} {p}")
                    status = "ok" if not problems else "PROBLEM: " + "; ".join(problems)
                    echo(f"  {name:<44} {result.score:>5g}/{result.max_score:<4g} "
                         f"fails {len(failed):>2} checks  {status}")
                    shutil.rmtree(folder, ignore_errors=True)

        # Safety nets (guards: true) no known mistake fails: generated mistakes must fail them.
        unproven = {}
        for exercise in exercises:
            if exercise.is_quiz:
                continue
            for spec in exercise.checks:
                if spec.guards and not [w for w in failed_by[(exercise.id, spec.id)] if w != "stub"]:
                    unproven.setdefault(exercise.id, []).append(spec.id)
        for exercise_id, check_ids in unproven.items():
            exercise = course.exercises[exercise_id]
            for n, how in enumerate(GENERATED):
                folder = reference_folder(course, tmp / f"g{n}-{exercise_id}")
                target = folder / exercise.file
                target.write_text(target.read_text(encoding="utf-8") + "\n\n" + generated_mistake(exercise, how),
                                  encoding="utf-8")
                graded = grade(folder, [exercise_id])
                if graded is None:
                    continue
                failed = [c.name for c in graded.exercises[0].checks if not c.passed]
                for check_id in failed:
                    failed_by[(exercise_id, check_id)].append(f"generated: {how}")
                echo(f"  {exercise_id + ' (generated: ' + how + ')':<44} fails {len(failed):>2} checks")
                shutil.rmtree(folder, ignore_errors=True)

    code_checks = [(e, c) for (e, c), who in failed_by.items() if course.exercises[e].is_quiz is False]
    for key in code_checks:
        spec = next(c for c in course.exercises[key[0]].checks if c.id == key[1])
        if spec.guards:
            if not [w for w in failed_by[key] if w != "stub"]:
                report.problems.append(f"no known mistake fails {key[0]}.{key[1]}, nor a generated one "
                                       f"({', '.join(GENERATED)}): a check declared guards: true must be able to fail")
        elif not [w for w in failed_by[key] if w != "stub"]:
            report.problems.append(f"no known mistake fails {key[0]}.{key[1]}")
    return _finish(report, exercises, echo)


def _finish(report: ValidationReport, exercises, echo) -> ValidationReport:
    echo(f"validate: {len(exercises)} exercises, {sum(len(e.checks) for e in exercises)} checks, "
         f"{report.mistakes} known mistakes ({report.implementations} implementations), "
         f"{len(report.problems)} problems")
    for problem in report.problems:
        echo(f"  problem: {problem}")
    if report.course_errors:
        more = len(report.course_errors) - 1
        raise CourseError(report.course_errors[0] + (f" (and {more} more course error{'s' * (more > 1)})"
                                                     if more else ""))
    return report

