"""Red team, issue 31 item 5: nothing of a hidden input shows through diagnosis.

A mistake was named from a hidden check's calls when its catalogue entry set ``hidden_evidence``,
so whether it was named depended on the hidden inputs' values, not only on the check's pass or
fail. Two submissions that differ only in how they treat the sign of the first entry of x_t
behave, on the hidden check's huge pre-activations, like a hand-written tanh that overflows
(step.manual_tanh_overflow) when that sign is theirs, and return NaN everywhere otherwise: both
fail the same hidden check, and the one named "manual tanh overflow" learnt the sign of a
hidden value. Now what a student sees (score, check messages, diagnoses, every report format,
its size) is the same for both; what the hidden calls show is kept for the instructor
(ExerciseResult.hidden_diagnoses, the stored result, the class report), and `grade validate`
accepts a hidden_evidence mistake named there (tests/course/test_validate.py, grade validate).
Each test here failed before: the student's diagnoses came from the hidden calls too.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from conftest import copy_reference
from grader.classroom.class_page import render_html
from grader.classroom.class_report import collect
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.classroom.gradebook import Gradebook
from grader.report import FORMATS, render
from grader.report.results import SubmissionResult
from grader.submission.load import load_submission

# The student's rnn_step: correct on every visible call; on the hidden check's huge pre-activations,
# the overflowing hand-written tanh when x_t's first entry has the chosen sign, else NaN everywhere
# (wrong as well, and not that mistake: the same hidden check fails either way).
SIGN_ATTACK = '''
import numpy as _np

_SIGN = __SIGN__


def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    if _np.abs(z).max() > 1000:
        if (float(x_t.flat[0]) > 0) == _SIGN:
            with _np.errstate(over="ignore", invalid="ignore"):
                e = _np.exp(2.0 * z)
                return (e - 1.0) / (e + 1.0)
        return _np.full_like(z, _np.nan)
    return _np.tanh(z)
'''

SECRETS = ("issue-31-hidden-diagnosis-secret-one-0123456789",
           "issue-31-hidden-diagnosis-secret-two-0123456789",
           "issue-31-hidden-diagnosis-secret-three-012345678",
           "issue-31-hidden-diagnosis-secret-four-0123456789")


def _submission(tmp_path: Path, sign: bool) -> Path:
    """The reference with the attacking rnn_step; the folder's name is the same for both signs."""
    folder = copy_reference(tmp_path / f"sign-{sign}-{uuid.uuid4().hex[:6]}" / "student")
    path = folder / "rnn_step.py"
    path.write_text(path.read_text() + "\n" + SIGN_ATTACK.replace("__SIGN__", repr(sign)))
    return folder


def _grade(grader: Grader, folder: Path, tmp_path: Path) -> SubmissionResult:
    result = grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), ["step"])
    result.source = "student"   # the path differs between the two; nothing else may
    result.elapsed = 0.0
    for exercise in result.exercises:
        exercise.elapsed = 0.0
    return result


def _student_sees(result: SubmissionResult) -> dict:
    """Every report a student can be given, in both languages (what they render, and its size)."""
    messages = load_course(bundled_course_root()).messages   # the course's own messages too
    return {(fmt, lang): render(result, fmt, lang, messages=messages) for fmt in FORMATS for lang in ("en", "zh")}


def _verdicts(result: SubmissionResult) -> list:
    return [(e.id, c.name, c.passed, c.score) for e in result.exercises for c in e.checks]


@pytest.fixture
def graded_pair(grader, tmp_path):
    plus = _grade(grader, _submission(tmp_path, True), tmp_path)
    minus = _grade(grader, _submission(tmp_path, False), tmp_path)
    return plus, minus


def test_two_students_differing_only_in_a_hidden_values_sign_see_the_same_report(graded_pair):
    plus, minus = graded_pair
    # the same checks pass and fail: the hidden check that takes huge pre-activations fails for both
    assert _verdicts(plus) == _verdicts(minus)
    failed = [(name, passed) for _, name, passed, _ in _verdicts(plus) if not passed]
    assert failed == [("tanh_bounds", False)], failed
    # ... and the hidden calls did tell them apart: the instructor sees the mistake for exactly one
    named = {tuple(e.hidden_diagnoses) for r in (plus, minus) for e in r.exercises}
    assert named == {(), ("step.manual_tanh_overflow",)}, named
    # what the students see is identical, byte for byte, in every format and language
    seen_plus, seen_minus = _student_sees(plus), _student_sees(minus)
    different = [key for key in seen_plus if seen_plus[key] != seen_minus[key]]
    assert not different, different
    for result in (plus, minus):
        assert [d.id for e in result.exercises for d in e.diagnoses] == []
        assert "manual_tanh_overflow" not in "".join(_student_sees(result).values())


def test_the_same_student_sees_the_same_report_whatever_the_hidden_inputs(monkeypatch, tmp_path):
    """One submission graded under several course secrets (other hidden inputs, other signs):
    its report is the same under each, while the instructor's diagnosis follows the inputs."""
    course = load_course(bundled_course_root())
    folder = _submission(tmp_path, True)
    seen, instructor = [], set()
    for secret in SECRETS:
        monkeypatch.setenv("GRADER_SECRET", secret)
        with Grader(course, counterexamples=False) as grader:
            result = _grade(grader, folder, tmp_path)
        seen.append((_verdicts(result), _student_sees(result)))
        instructor |= {tuple(e.hidden_diagnoses) for e in result.exercises}
    assert instructor == {(), ("step.manual_tanh_overflow",)}, "the secrets chosen must give both signs"
    assert all(s == seen[0] for s in seen[1:])


def test_the_instructor_keeps_what_the_hidden_calls_show(graded_pair, tmp_path, course):
    """The stored result (the gradebook's) keeps hidden_diagnoses; the class report names them,
    marked as shown by a hidden check only; a student's report rendered from the stored result
    still does not."""
    plus, minus = graded_pair
    shown = plus if plus.exercises[0].hidden_diagnoses else minus
    again = SubmissionResult.from_data(shown.to_data())
    assert again.exercises[0].hidden_diagnoses == ["step.manual_tanh_overflow"]
    assert "manual_tanh_overflow" not in "".join(_student_sees(again).values())
    with Gradebook(tmp_path / "class.gradebook.sqlite") as book:
        run_id = book.start_run(str(tmp_path), "fp")
        book.record(run_id, "plus", "hash-plus", plus)
        book.record(run_id, "minus", "hash-minus", minus)
        book.finish_run(run_id)
        stats = collect(book, "en", course)
        page = render_html(stats, "en")
        stored = {a.student: a.result for a in book.latest_all()}
    rows = [m for m in stats.mistakes if m.id == "step.manual_tanh_overflow"]
    assert len(rows) == 1 and rows[0].hidden and len(rows[0].students) == 1, rows
    assert "only a hidden check showed it" in page
    for result in stored.values():
        assert "manual_tanh_overflow" not in "".join(_student_sees(result).values())


def test_a_mistake_visible_calls_show_is_still_named_to_the_student(grade, tmp_path):
    """Only what hidden calls alone show moved to the instructor: a mistake the visible checks
    show is named as before (and a flagged one the visible calls reveal is too)."""
    folder = copy_reference(tmp_path / "bias")
    path = folder / "rnn_step.py"
    path.write_text(path.read_text() + "\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n"
                    "    import numpy as np\n    return np.tanh(x_t @ W_x + h_prev @ W_h)\n")
    result = grade(folder, ["step"])
    assert [d.id for d in result.exercises[0].diagnoses] == ["step.missing_bias"]
