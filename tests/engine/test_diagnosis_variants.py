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


STATEFUL = {
    "module cache": "_cache = {}\ndef f(x):\n    return _cache.setdefault(x.shape, x * 2)\n",
    "global": "_last = None\ndef f(x):\n    global _last\n    _last = x\n    return x\n",
    "decorator": "import functools\n@functools.lru_cache\ndef f(x):\n    return x\n",
    "function attribute": "def f(x):\n    f.calls = getattr(f, 'calls', 0) + 1\n    return x\n",
    "mutable default": "def f(x, seen=[]):\n    seen.append(x)\n    return x\n",
    "module list": "_seen = []\ndef f(x):\n    _seen.append(x)\n    return x\n",
    "module array written": "import numpy as np\n_buf = np.zeros(3)\ndef f(x):\n    _buf[:] = x\n    return _buf\n",
    "class": "class Memo:\n    pass\ndef f(x):\n    return x\n",
}
STATELESS = {
    "plain": '"""doc"""\nimport numpy as np\nEPS = 1e-12\ndef f(x, axis=-1, act=np.tanh):\n    y = np.zeros_like(x)\n'
             '    y[:] = act(x)\n    out = []\n    out.append(y)\n    return out[0]\n',
    "writes its argument": "def f(x):\n    x[0] = 0\n    return x\n",
}


def test_a_mistake_keeps_no_state_only_when_it_can_only_compute():
    """Diagnosis memoises a stateless mistake's outcome per call (grader/grading/diagnose.py): a mistake
    file that can keep anything between calls must be judged stateful, and is replayed in order."""
    from conftest import ROOT
    from grader.grading.diagnose import keeps_no_state

    assert [name for name, code in STATEFUL.items() if keeps_no_state(code)] == []
    assert [name for name, code in STATELESS.items() if not keeps_no_state(code)] == []
    stateful = {p.relative_to(ROOT / "solutions/mistakes").as_posix()
                for p in (ROOT / "solutions/mistakes").rglob("*.py") if not keeps_no_state(p.read_text())}
    # every catalogued mistake about state between calls, and nothing else
    assert stateful == {"birnn/memo_by_shape.py", "bptt/grads_not_reset.py", "clipping/memo_by_shape.py",
                        "forward/state_leaks_between_calls.py", "gradient_flow/memo_by_shape.py",
                        "masking/memo_by_shape.py", "readout/memo_by_shape.py", "scalar/state_not_reset.py",
                        "step/keeps_state.py", "tinyrnn/memo_by_shape.py", "truncation/memo_by_shape.py"}
