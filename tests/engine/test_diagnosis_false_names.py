"""No name without evidence: functions wrong in a way no catalogued mistake is, named with nothing.

The two-mistake rule names a pair only when each of the student's wrong values (and each argument
left changed) is one of the two mistakes' own, part by part. A softmax that returns the right values
but changes its argument another way than readout.softmax_in_place was once named as
readout.wrong_axis + readout.wrong_default_axis: a whole call counted as explained by any mistake
whose value differed from the student's. Also here: the rules a named mistake rests on (a dict's key
order is no difference, an overflowed scalar is matched by any wrong value, as an array position is).
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import copy_reference, exercise_report as report
from grader.course.loader import bundled_course_root, load_course
from grader.grading.diagnose import shares_the_mistake, signature

COURSE = load_course(bundled_course_root())

RIGHT_VALUES_ARGUMENT_CHANGED = {
    # readout.softmax_in_place leaves the probabilities in z; these leave something else there
    "shift_in_place": ("readout", """
def softmax(z, axis=-1):
    np.subtract(z, z.max(axis=axis, keepdims=True), out=z)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
"""),
    "zeroes_z": ("readout", """
def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    z[...] = 0.0
    return e / np.sum(e, axis=axis, keepdims=True)
"""),
    "sorts_z": ("readout", """
def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    out = e / np.sum(e, axis=axis, keepdims=True)
    z.sort(axis=axis)
    return out
"""),
    "probs_zero_X": ("readout", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    X[...] = 0.0
    return softmax(h_last @ W_o + b_o, axis=-1)
"""),
    "bptt_zeroes_dHs": ("bptt", """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    out = _backward(X, W_x, W_h, b, dHs, h0, k=max(X.shape[1], 1))
    dHs[...] = 0.0
    return out
"""),
    "truncation_zeroes_dHs_other_key_order": ("truncation", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    g = _backward(X, W_x, W_h, b, dHs, h0, k=int(k))
    dHs[...] = 0.0
    return {"dX": g["dX"], "dW_x": g["dW_x"], "dW_h": g["dW_h"], "db": g["db"], "dh0": g["dh0"]}
"""),
    "clipping_zeroes_grads": ("clipping", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(np.square(g)) for g in grads.values())))
    s = max_norm / total if total > max_norm else 1.0
    out = {k: np.asarray(g, dtype=float) * s for k, g in grads.items()}
    for g in grads.values():
        g[...] = 0.0
    return out, total
"""),
}


def _graded(grade, tmp_path, exercise, source):
    folder = copy_reference(tmp_path / "student")
    target = folder / COURSE.exercises[exercise].file
    target.write_text(target.read_text() + "\n\nimport numpy as np\n\n" + source)
    (ex,) = grade(folder, [exercise]).exercises
    return ex


@pytest.mark.parametrize("name", sorted(RIGHT_VALUES_ARGUMENT_CHANGED))
def test_right_values_with_an_argument_changed_another_way_are_named_with_nothing(grade, tmp_path, name):
    exercise, source = RIGHT_VALUES_ARGUMENT_CHANGED[name]
    ex = _graded(grade, tmp_path, exercise, source)
    assert ex.problem is None, report(ex)
    assert [c.name for c in ex.checks if not c.passed] == ["inputs_unchanged"], report(ex)
    assert [d.id for d in ex.diagnoses] == [] and list(ex.hidden_diagnoses) == [], report(ex)


def test_correct_code_returning_its_dict_in_another_key_order_keeps_full_marks_and_no_name(grade, tmp_path):
    ex = _graded(grade, tmp_path, "truncation", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    g = _backward(X, W_x, W_h, b, dHs, h0, k=int(k))
    return {"db": g["db"], "dh0": g["dh0"], "dX": g["dX"], "dW_h": g["dW_h"], "dW_x": g["dW_x"]}
""")
    assert ex.score == ex.max_score and [d.id for d in ex.diagnoses] == [], report(ex)


def test_a_dicts_key_order_is_no_difference_of_type():
    a = {"dX": np.zeros(2), "dh0": np.zeros(1), "n": 1.0}
    b = {"n": 2.0, "dh0": np.ones(1), "dX": np.ones(2)}
    assert signature(a) == signature(b)
    assert signature(a) != signature({**a, "n": np.float32(1.0)})


@pytest.mark.parametrize("wrong", [float("nan"), float("inf"), np.float64("-inf")])
def test_an_overflowed_scalar_is_matched_by_any_wrong_value_as_an_array_position_is(wrong):
    # the student's wrong value, finite or not, agrees with the mistake's overflow; a right one never
    for student in (float("inf"), float("nan"), 1e308, 7.0):
        assert shares_the_mistake(student, wrong, 2.0, 1e-9, 0.0) == (True, True), student
        assert shares_the_mistake(np.array([student]), np.array([wrong]), np.array([2.0]), 1e-9, 0.0) == (True, True)
    assert shares_the_mistake(2.0, wrong, 2.0, 1e-9, 0.0) == (False, False)
    assert shares_the_mistake(np.array([2.0]), np.array([wrong]), np.array([2.0]), 1e-9, 0.0) == (False, False)
    # a finite mistaken value is still matched only by itself
    assert shares_the_mistake(7.0, 3.0, 2.0, 1e-9, 0.0) == (False, False)
    assert shares_the_mistake(3.0, 3.0, 2.0, 1e-9, 0.0) == (True, True)


def test_a_float32_result_is_the_float32_mistakes_to_float32_rounding_and_never_a_float64_ones():
    rng = np.random.default_rng(0)
    reference = np.tanh(rng.normal(size=(3, 4)))
    mistake = (reference.astype(np.float32) * np.float32(1.0000001)).astype(np.float32)   # float32 arithmetic
    student = reference.astype(np.float32)                                               # rounded once
    assert shares_the_mistake(student, mistake, reference, 1e-9, 0.0) == (True, True)
    # the rounding is no excuse where float64 is what the mistake gives, nor for values further off
    assert shares_the_mistake(student, mistake.astype(np.float64), reference, 1e-9, 0.0)[1] is False
    assert shares_the_mistake(student * np.float32(1.001), mistake, reference, 1e-9, 0.0)[1] is False
    # nor where the reference itself is float32: correct float32 code is right there, never the mistake's
    assert shares_the_mistake(student, mistake, student, 1e-9, 0.0) == (False, False)
