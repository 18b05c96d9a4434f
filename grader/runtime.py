"""State shared by every submission graded in one run.

Test inputs, reference results and known mistakes' results are computed once
and memoised here, so grading a class costs one reference run plus, per
student, only their own code and the comparisons.

Visible checks draw their inputs from ``seed``, published with the grader; hidden
checks from the course secret (grader/secret.py), which students never hold.
"""

from __future__ import annotations

from grader.course import Course, MistakeSpec
from grader.modules import ModuleSet
from grader.secret import course_secret, fingerprint, hidden_seed

DEFAULT_SEED = 20261129   # the visible checks' seed: public, their inputs are shown anyway


def module_name(file: str) -> str:
    return file[:-3] if file.endswith(".py") else file


class CourseRuntime:
    def __init__(self, course: Course, seed: int = DEFAULT_SEED, secret: bytes | None = None):
        self.course = course
        self.seed = seed
        # Read (or created) now, not in a check: a problem with it is bad input, never a failed check.
        self._secret = course_secret(course) if secret is None else secret
        self.secret_fingerprint = fingerprint(self._secret)
        self._memo: dict = {}
        self.reference = ModuleSet(course.reference_dir)
        self._mistakes: dict[str, ModuleSet] = {}
        self._answer_key = None

    def hidden_seed(self, exercise_id: str, tag: str) -> int:
        """The seed of a hidden check's inputs, from the course secret."""
        return hidden_seed(self._secret, exercise_id, tag)

    def memo(self, key, build):
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def reference_function(self, file: str, func: str):
        return self.reference.function(module_name(file), func)

    def mistake_modules(self, mistake: MistakeSpec, variant) -> ModuleSet:
        """The reference with one wrong implementation appended to its file."""
        key = str(variant)
        if key not in self._mistakes:
            file = self.course.exercises[mistake.exercise].file
            source = variant.read_text(encoding="utf-8")
            self._mistakes[key] = ModuleSet(self.course.reference_dir, {module_name(file): source})
        return self._mistakes[key]

    def answer_key(self) -> dict:
        if self._answer_key is None:
            self._answer_key = self.course.answer_key() or {}
        return self._answer_key
