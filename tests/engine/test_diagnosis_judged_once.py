"""The instructor's diagnosis of an exercise (what its hidden checks' calls show) does not judge again,
on the same visible calls, the mistakes the student's diagnosis judged a moment before: it takes
their judgement. The names, to the student and to the instructor, are the same as when every
mistake is judged afresh. And the diagnosis's comparison of arrays is numpy's isclose, faster."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import copy_reference, exercise_report as report, with_mistake
from grader.grading.diagnose import Diagnoser, isclose64

MISTAKES = Path(__file__).resolve().parents[2] / "solutions" / "mistakes" / "step"


def _step(grade, tmp_path, *mistakes):
    folder = copy_reference(tmp_path / "student")
    for name in mistakes:
        with_mistake(folder, "rnn_step.py", MISTAKES / f"{name}.py")
    (ex,) = grade(folder, ["step"]).exercises
    return ex


def _named(ex):
    return [d.id for d in ex.diagnoses], list(ex.hidden_diagnoses)


# A visible mistake, one only the hidden checks show, and both in one file.
@pytest.mark.parametrize("mistakes, visible_fails", [(("missing_bias",), True), (("manual_tanh_overflow",), False),
                                                     (("manual_tanh_overflow", "swapped_weights"), True)])
def test_the_instructors_diagnosis_judges_no_visible_mistake_twice(course, grade, tmp_path, monkeypatch, mistakes,
                                                                   visible_fails):
    judged = []
    original = Diagnoser._matches

    def counting(self, exercise, variant, *args, **kwargs):
        judged.append((self._judging, Path(variant).name, kwargs.get("locate", False)))
        return original(self, exercise, variant, *args, **kwargs)

    original_named = Diagnoser._named

    def named(self, exercise, calls, hidden_calls, evidence=True):
        self._judging = "hidden" if hidden_calls else "visible"
        return original_named(self, exercise, calls, hidden_calls, evidence)

    monkeypatch.setattr(Diagnoser, "_matches", counting)
    monkeypatch.setattr(Diagnoser, "_named", named)
    ex = _step(grade, tmp_path / "memo", *mistakes)
    assert ex.score < ex.max_score, report(ex)
    hidden_only = {Path(v).name for m in course.exercises["step"].mistakes if m.hidden_evidence for v in m.variants}
    visible = [name for when, name, locate in judged if when == "visible" and not locate]
    again = [name for when, name, locate in judged if when == "hidden" and not locate and name not in hidden_only]
    assert bool(visible) == visible_fails, judged   # the student's diagnosis judged the catalogue
    assert again == [], again            # the instructor's took those judgements

    # The same names as when nothing is taken from the student's diagnosis.
    monkeypatch.setattr(Diagnoser, "_judged_on", lambda self, exercise, calls: {})
    afresh = _step(grade, tmp_path / "afresh", *mistakes)
    assert _named(ex) == _named(afresh), (report(ex), report(afresh))
    assert _named(ex) != ([], []), report(ex)



def test_isclose64_is_numpys_isclose():
    """The diagnosis's own isclose gives np.isclose(..., equal_nan=True) on every kind of value."""
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1e-300, -1e300, 1e308, np.inf, -np.inf, np.nan, 1.0, 1.0 + 1e-9])
    for shape in [(), (0,), (1,), (7,), (3, 4), (2, 1, 5)]:
        for _ in range(40):
            x = rng.choice(special, size=shape) * rng.choice([1.0, 1.0 + 1e-8, -1.0], size=shape)
            y = np.where(rng.random(shape) < 0.5, x, rng.choice(special, size=shape))
            for rtol, atol in [(1e-7, 1e-9), (0.0, 0.0), (1e-3, 0.0), (0.0, 1e-6)]:
                with np.errstate(all="ignore"):
                    expected = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
                np.testing.assert_array_equal(isclose64(x, y, rtol, atol), expected)


def test_without_the_instructors_diagnosis_every_report_is_the_same(course, tmp_path):
    """`grade check` skips what only a gradebook reads (hidden_diagnoses): nothing it shows changes."""
    from grader.grading.engine import Grader
    from grader.report import FORMATS, render
    from grader.submission.load import load_submission

    folder = copy_reference(tmp_path / "student")
    with_mistake(folder, "rnn_step.py", MISTAKES / "manual_tanh_overflow.py")   # only hidden calls show it
    results = {}
    for instructor in (True, False):
        with Grader(course, counterexamples=False, instructor_diagnosis=instructor) as grader:
            result = grader.grade(load_submission(folder, tmp_path / f"work-{instructor}"), ["step"])
        result.elapsed = 0.0
        for exercise in result.exercises:
            exercise.elapsed = 0.0
        results[instructor] = result
    assert results[True].exercises[0].hidden_diagnoses == ["step.manual_tanh_overflow"]
    assert results[False].exercises[0].hidden_diagnoses == []
    for fmt in FORMATS:
        for lang in ("en", "zh"):
            assert render(results[True], fmt, lang, messages=course.messages) == \
                render(results[False], fmt, lang, messages=course.messages), (fmt, lang)
