"""Known mistakes are named however they are written (issue 12): per function, per part of
the returned value, with any wrong value where the catalogued one gives NaN, and a mistake
made only in a default argument; and never on correct code."""

from __future__ import annotations

import textwrap

from conftest import copy_reference


def graded(grade, tmp_path, file, code, exercise):
    folder = copy_reference(tmp_path / "student")
    with open(folder / file, "a", encoding="utf-8") as fh:
        fh.write("\n\n" + textwrap.dedent(code))
    (result,) = grade(folder, [exercise]).exercises
    return result


NO_RECURRENT_GRAD_OTHER_DH0 = """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # no gradient flows back through time; and dh0 left at zero (the catalogued one keeps
    # the first step's direct term): a part the mistake is not about, written another way
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = dHs * (1.0 - Hs ** 2)
    return {"dX": dA @ W_x.T, "dh0": np.zeros((B, H)), "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", prev, dA), "db": dA.sum(axis=(0, 1))}
"""


def test_a_variant_that_differs_on_a_part_the_mistake_is_not_about(grade, tmp_path):
    result = graded(grade, tmp_path, "bptt.py", NO_RECURRENT_GRAD_OTHER_DH0, "bptt")
    assert result.score < result.max_score
    assert [d.id for d in result.diagnoses] == ["bptt.no_recurrent_grad"]


def test_a_mistake_only_in_a_default_argument(grade, tmp_path):
    code = """
    def softmax(z, axis=0):
        z = np.asarray(z, dtype=float)
        e = np.exp(z - np.max(z, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)
    """
    result = graded(grade, tmp_path, "readout.py", code, "readout")
    assert "readout.wrong_default_axis" in [d.id for d in result.diagnoses]
    assert "readout.wrong_axis" not in [d.id for d in result.diagnoses]


def test_correct_code_written_the_same_way_is_not_named(grade, tmp_path):
    code = NO_RECURRENT_GRAD_OTHER_DH0.replace(
        'dA = dHs * (1.0 - Hs ** 2)',
        'dA = np.zeros_like(Hs)\n    dh = np.zeros((B, H))\n'
        '    for t in reversed(range(T)):\n        dA[:, t] = (dHs[:, t] + dh) * (1.0 - Hs[:, t] ** 2)\n'
        '        dh = dA[:, t] @ W_h.T').replace('"dh0": np.zeros((B, H))', '"dh0": dh')
    result = graded(grade, tmp_path, "bptt.py", code, "bptt")
    assert result.score == result.max_score and result.diagnoses == []


CLIPPED_EXPONENT = """
def softmax(z, axis=-1):
    # no shift, the exponent clipped instead: finite, but wrong for logits beyond the clip
    e = np.exp(np.clip(z, -700.0, 700.0))
    return e / e.sum(axis=axis, keepdims=True)
"""


def test_a_clipped_exponent_is_its_own_mistake_not_an_overflow(grade, tmp_path):
    # Right where exp(z) / sum overflows to NaN (one huge logit in a row), wrong where several
    # pass the clip: not readout.unstable_softmax, whose values it contradicts.
    result = graded(grade, tmp_path, "readout.py", CLIPPED_EXPONENT, "readout")
    assert result.score < result.max_score
    assert [d.id for d in result.diagnoses] == ["readout.clipped_exponent"]
