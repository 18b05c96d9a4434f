"""State shared by every submission graded in one run.

Test inputs, reference results and known mistakes' results are computed once
and memoised here, so grading a class costs one reference run plus, per
student, only their own code and the comparisons.

Visible checks draw their inputs from ``seed``, published with the grader; hidden
checks from the course secret (grader/course/secret.py), which students never hold.
"""

from __future__ import annotations

from pathlib import Path

from grader.course.loader import Course, MistakeSpec
from grader.course.kit_records import REFERENCE, NotInKit, RecordedModules, RecordingModules
from grader.course.modules import ModuleSet, module_name
from grader.course.secret import course_secret, fingerprint, hidden_seed

DEFAULT_SEED = 20261129   # the visible checks' seed: public, their inputs are shown anyway


class CourseRuntime:
    """The instructor's: the course's own code runs here. ``recording``: a
    :class:`grader.course.kit_records.Recording` that keeps every result the course's code gives
    (``grade release`` builds the kit's data so). ``CourseRuntime(course)`` of a student kit's
    course is a :class:`KitRuntime`.

    What a runtime can do, the grading stages ask it (grader/grading/run.py): ``runs_reference``
    (the reference runs on any input: stand-ins and counterexample searches need it),
    ``has_secret`` (hidden checks can be drawn and run) and ``has_answer_key`` (the quiz is graded)."""

    kit = False
    runs_reference = True
    has_answer_key = True

    def __new__(cls, course: Course | None = None, *args, **kwargs):
        if cls is CourseRuntime and course is not None and course.is_kit:
            cls = KitRuntime
        return super().__new__(cls)

    def __init__(self, course: Course, seed: int = DEFAULT_SEED, secret: bytes | None = None, recording=None):
        self.course = course
        self.seed = seed
        # Read (or created) now, not in a check: a problem with it is bad input, never a failed check.
        self._secret = self._read_secret(secret)
        self.secret_fingerprint = fingerprint(self._secret) if self._secret is not None else "kit"
        self._memo: dict = {}
        self.recording = recording
        self.reference = self._implementations(REFERENCE, course.reference_dir)
        self._mistakes: dict[str, object] = {}
        self._answer_key = None
        self._trusted_calls = None

    def _read_secret(self, secret: bytes | None) -> bytes | None:
        return course_secret(self.course) if secret is None else secret

    def _implementations(self, source: str, folder, overrides=None):
        """The course's code: the reference, or the reference with a mistake appended."""
        modules = ModuleSet(folder, overrides)
        return RecordingModules(modules, self.recording, source) if self.recording is not None else modules

    @property
    def has_secret(self) -> bool:
        """The course secret is here: hidden checks can be drawn and run."""
        return self._secret is not None

    def hidden_seed(self, exercise_id: str, tag: str) -> int:
        """The seed of a hidden check's inputs, from the course secret."""
        if self._secret is None:
            raise NotInKit("hidden checks are graded by the instructor only")
        return hidden_seed(self._secret, exercise_id, tag)

    def memo(self, key, build):
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def memo_entries(self) -> dict:
        """What the memo holds (grader/grading/kept_memo.py keeps it between runs)."""
        return dict(self._memo)

    def start_memo(self, entries: dict) -> None:
        """Entries an earlier run built (grader/grading/kept_memo.py), where this run has none yet."""
        for key, value in entries.items():
            self._memo.setdefault(key, value)

    def reference_function(self, file: str, func: str):
        return self.reference.function(module_name(file), func)

    def trusted_calls(self):
        """The bounded helper (grader/sandbox/trusted_calls.py) that runs the course's code on arguments a
        student chose; None where that code is not run here (a kit answers from its records) or
        where every call must be recorded in this process (``grade release``)."""
        if self.recording is not None:
            return None
        if self._trusted_calls is None:
            from grader.sandbox.trusted_calls import TrustedCalls

            self._trusted_calls = TrustedCalls(self)
        return self._trusted_calls

    def close(self):
        """Stop the helper, if one runs (the next call starts another)."""
        if self._trusted_calls is not None:
            self._trusted_calls.stop()

    def mistake_modules(self, mistake: MistakeSpec, variant) -> ModuleSet:
        """The reference with one wrong implementation appended to its file."""
        return self._variant_modules(self.course.exercises[mistake.exercise], variant)

    def _variant_modules(self, exercise, variant):
        key = str(variant)
        if key not in self._mistakes:
            self._mistakes[key] = self._variant(exercise, variant, f"mistakes/{exercise.id}/{Path(variant).stem}")
        return self._mistakes[key]

    def _variant(self, exercise, variant, source: str):
        code = Path(variant).read_text(encoding="utf-8")
        return self._implementations(source, self.course.reference_dir, {module_name(exercise.file): code})

    def variant_function(self, exercise, variant, func: str):
        """One function of a known mistake's modules (None when its file has no such function)."""
        try:
            return self._variant_modules(exercise, variant).function(module_name(exercise.file), func)
        except AttributeError:
            return None

    def answer_key(self) -> dict:
        if self._answer_key is None:
            self._answer_key = self.course.answer_key() or {}
        return self._answer_key


class KitRuntime(CourseRuntime):
    """A student kit's: no course code, no secret, no answer key. The release's records
    (grader/course/kit_records.py) answer the calls it recorded, and no other: a call nobody
    recorded raises NotInKit, and the instructor grades what needs it."""

    kit = True
    runs_reference = False
    has_answer_key = False

    def _read_secret(self, secret: bytes | None) -> None:
        return None   # a kit runs no hidden check, and holds no secret

    def _implementations(self, source: str, folder, overrides=None):
        return RecordedModules(self.course.kit_dir / f"{source}.rec")

    def trusted_calls(self):
        return None   # nothing of the course's code runs here

    def _variant(self, exercise, variant, source: str):
        return self._implementations(source, None)
