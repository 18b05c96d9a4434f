"""``grade validate``: proof that every check of the course can pass and fail.

1. The reference, laid out as a student folder, scores full marks and is
   never diagnosed with a mistake.
2. The stubs score zero on every check.
3. Every known mistake (each implementation variant), laid out as the
   reference with that one file made wrong, loses points on its exercise,
   fails the checks its catalogue entry lists, and is named.
4. Every check of every exercise is failed by at least one of the above.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.engine import Grader
from grader.grade_path import grade_path


@dataclass
class ValidationReport:
    problems: list[str] = field(default_factory=list)
    mistakes: int = 0
    implementations: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def reference_folder(course, dest: Path) -> Path:
    """The reference files plus the answer key, as a student would hand them in."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in course.reference_dir.iterdir():
        if path.suffix in (".py", ".yaml"):
            shutil.copy2(path, dest / path.name)
    return dest


def mistake_folder(course, mistake, variant: Path, dest: Path) -> Path:
    reference_folder(course, dest)
    target = dest / course.exercises[mistake.exercise].file
    wrong = variant.read_text(encoding="utf-8")
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + wrong, encoding="utf-8")
    return dest


def _equation_problems(course, exercises) -> list[str]:
    """An equation question whose answer-key answer cannot serve as its reference."""
    from grader.equation import reference_problem

    questions = [spec for exercise in exercises if exercise.is_quiz for spec in exercise.checks
                 if (spec.question or {}).get("format") == "equation"]
    key = (course.answer_key() or {}) if questions else {}
    problems = []
    for spec in questions:
        problem = reference_problem(spec.question.get("equation"), key.get(spec.id))
        if problem:
            problems.append(f"{course.answer_key_path.name}: {spec.id}: {problem}")
    return problems


def validate_course(course, only=(), echo=print) -> ValidationReport:
    report = ValidationReport()
    exercises = course.select(only)
    ids = [e.id for e in exercises]
    failed_by: dict[tuple[str, str], list[str]] = {(e.id, c.id): [] for e in exercises for c in e.checks}

    with tempfile.TemporaryDirectory(prefix="grade-validate-") as tmp, Grader(course, counterexamples=False) as grader:
        tmp = Path(tmp)

        def grade(folder: Path, which):
            result = grade_path(folder, grader, which, prefix="grade-validate-")
            for ex in result.exercises:
                for c in ex.checks:
                    if c.internal:
                        report.problems.append(f"check {ex.id}.{c.name} broke on {folder.name}: {c.internal}")
            return result

        report.problems.extend(_equation_problems(course, exercises))
        reference = grade(reference_folder(course, tmp / "reference"), ids)
        for ex in reference.exercises:
            for c in ex.checks:
                if not c.passed:
                    report.problems.append(f"reference fails {ex.id}.{c.name}: {c.rendered('en')}")
            for d in ex.diagnoses:
                report.problems.append(f"reference is diagnosed with {d.id}")
        echo(f"reference  {reference.score:g}/{reference.max_score:g}")

        stubs = grade(course.stubs_dir, ids)
        for ex in stubs.exercises:
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
                    result = grade(folder, [exercise.id]).exercises[0]
                    failed = [c.name for c in result.checks if not c.passed]
                    for check_id in failed:
                        failed_by[(exercise.id, check_id)].append(mistake.id)
                    problems = []
                    if result.score >= result.max_score:
                        problems.append("loses no points")
                    if mistake.id not in [d.id for d in result.diagnoses]:
                        problems.append("is not named")
                    missed = [c for c in mistake.fails if c not in failed]
                    if missed:
                        problems.append(f"passes {', '.join(missed)} (listed in its catalogue 'fails')")
                    for p in problems:
                        report.problems.append(f"{name} {p}")
                    status = "ok" if not problems else "PROBLEM: " + "; ".join(problems)
                    echo(f"  {name:<44} {result.score:>5g}/{result.max_score:<4g} "
                         f"fails {len(failed):>2} checks  {status}")
                    shutil.rmtree(folder, ignore_errors=True)

    code_checks = [(e, c) for (e, c), who in failed_by.items() if course.exercises[e].is_quiz is False]
    for key in code_checks:
        if not [w for w in failed_by[key] if w != "stub"]:
            report.problems.append(f"no known mistake fails {key[0]}.{key[1]}")
    echo(f"validate: {len(exercises)} exercises, {sum(len(e.checks) for e in exercises)} checks, "
         f"{report.mistakes} known mistakes ({report.implementations} implementations), "
         f"{len(report.problems)} problems")
    for problem in report.problems:
        echo(f"  problem: {problem}")
    return report

