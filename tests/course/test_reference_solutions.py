"""Independent tests of the reference solutions in solutions/reference.

Every reference function is compared with a plain loop implementation
written here (scalar loops with math.tanh, no helper from the reference),
and the gradients are checked with centred finite differences.
"""
import ast
import importlib
import inspect
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).parents[2]
REF_DIR = ROOT / "solutions" / "reference"
STUB_DIR = ROOT / "exercises" / "stubs"
MODULES = ["rnn_step", "rnn_forward", "param_count", "masking", "readout",
           "bptt", "gradient_flow", "birnn", "tiny_rnn"]

# The reference files import each other by plain name (like a student
# folder), so drop same-named modules another test may have cached.
sys.path.insert(0, str(REF_DIR))
for _name in MODULES:
    sys.modules.pop(_name, None)
ref = {name: importlib.import_module(name) for name in MODULES}
for _name in MODULES:
    assert Path(ref[_name].__file__).resolve().parent == REF_DIR.resolve()

rnn_step = ref["rnn_step"].rnn_step
scalar_rnn = ref["rnn_step"].scalar_rnn
rnn_forward = ref["rnn_forward"].rnn_forward
count_rnn_params = ref["param_count"].count_rnn_params
sequence_mask = ref["masking"].sequence_mask
rnn_forward_masked = ref["masking"].rnn_forward_masked
last_valid_state = ref["masking"].last_valid_state
masked_mean_pool = ref["masking"].masked_mean_pool
masked_cross_entropy = ref["masking"].masked_cross_entropy
softmax = ref["readout"].softmax
many_to_one_probs = ref["readout"].many_to_one_probs
rnn_backward = ref["bptt"].rnn_backward
clip_by_global_norm = ref["bptt"].clip_by_global_norm
truncated_rnn_backward = ref["bptt"].truncated_rnn_backward
spectral_radius = ref["gradient_flow"].spectral_radius
hidden_grad_norms = ref["gradient_flow"].hidden_grad_norms
birnn_forward = ref["birnn"].birnn_forward

CONTRACT_FUNCTIONS = {
    "rnn_step": ["rnn_step", "scalar_rnn"],
    "rnn_forward": ["rnn_forward"],
    "param_count": ["count_rnn_params"],
    "masking": ["sequence_mask", "rnn_forward_masked", "last_valid_state",
                "masked_mean_pool", "masked_cross_entropy"],
    "readout": ["softmax", "many_to_one_probs"],
    "bptt": ["rnn_backward", "clip_by_global_norm", "truncated_rnn_backward"],
    "gradient_flow": ["spectral_radius", "hidden_grad_norms"],
    "birnn": ["birnn_forward"],
    "tiny_rnn": ["embed", "tiny_rnn_forward", "tiny_rnn_loss", "sgd_step", "sample"],
}
QUIZ_KEYS = [
    "step_equation", "shared_parameters", "params_rnn", "params_rnn_head",
    "params_double_bias", "params_length_1000", "scalar_last_state",
    "scalar_reverse_last_state", "decay_steps", "long_range_cause",
    "many_to_one_readout", "padding_pitfall", "match_outputs",
    "tf_params_per_step", "tf_lossless_state", "tf_state_is_chat_history",
    "tf_reset_between_sequences", "tf_longer_more_params", "tf_no_parallelism",
    "tf_clipping_restores", "tf_truncation_cuts", "tf_bidirectional_online",
    "tf_rnn_useless", "tf_grads_accumulate", "tf_order_matters",
    "tinyrnn_params", "tinyrnn_forgets",
]


# ---------------------------------------------------------------- helpers

def make_params(d, H, seed, scale=0.6):
    rng = np.random.default_rng(seed)
    return (rng.normal(scale=scale, size=(d, H)),
            rng.normal(scale=scale, size=(H, H)),
            rng.normal(scale=0.3, size=H))


def loop_step(x, h, W_x, W_h, b):
    """One RNN step for a single sample, element by element."""
    d, H = W_x.shape
    out = np.zeros(H)
    for j in range(H):
        a = b[j]
        for i in range(d):
            a += x[i] * W_x[i, j]
        for i in range(H):
            a += h[i] * W_h[i, j]
        out[j] = math.tanh(a)
    return out


def loop_run(xs, h, W_x, W_h, b):
    """States of one sample over the rows of xs (T', d), starting at h (H,)."""
    states = []
    for x in xs:
        h = loop_step(x, h, W_x, W_h, b)
        states.append(h)
    return states


def loop_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    for i in range(B):
        start = np.zeros(H) if h0 is None else h0[i]
        for t, h in enumerate(loop_run(X[i], start, W_x, W_h, b)):
            Hs[i, t] = h
    return Hs


def loop_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else h0[i].copy()
        for t in range(lengths[i]):
            h = loop_step(X[i, t], h, W_x, W_h, b)
            Hs[i, t] = h
        last[i] = h
    return Hs, last


def loop_log_softmax(row):
    m = max(row)
    log_sum = math.log(sum(math.exp(v - m) for v in row))
    return [v - m - log_sum for v in row]


def padded_batch(B, T, d, lengths, seed, pad=np.nan):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(B, T, d))
    for i, n in enumerate(lengths):
        X[i, n:] = pad
    return X


def rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    denom = max(np.linalg.norm(a) + np.linalg.norm(b), 1e-12)
    return np.linalg.norm(a - b) / denom


def numeric_grad(f, x, eps=1e-6):
    """Centred differences of the scalar f() w.r.t. every entry of x (in place)."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        plus = f()
        x[idx] = old - eps
        minus = f()
        x[idx] = old
        g[idx] = (plus - minus) / (2 * eps)
    return g


def snapshot(*arrays):
    return [np.array(a, copy=True) for a in arrays]


def assert_unchanged(before, after):
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)  # treats NaN == NaN


# ------------------------------------------------------------------- step

def test_rnn_step_matches_loop():
    rng = np.random.default_rng(0)
    W_x, W_h, b = make_params(3, 4, 1)
    x, h = rng.normal(size=(5, 3)), rng.normal(size=(5, 4))
    before = snapshot(x, h, W_x, W_h, b)
    out = rnn_step(x, h, W_x, W_h, b)
    assert out.shape == (5, 4) and out.dtype == np.float64
    expected = np.array([loop_step(x[i], h[i], W_x, W_h, b) for i in range(5)])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert_unchanged(before, [x, h, W_x, W_h, b])


def test_rnn_step_distinguishes_transposed_recurrent_weights():
    W_x, W_h, b = make_params(4, 4, 2)
    rng = np.random.default_rng(3)
    x, h = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    wrong = np.tanh(x @ W_x + h @ W_h.T + b)
    assert not np.allclose(rnn_step(x, h, W_x, W_h, b), wrong)


def test_scalar_rnn_matches_seed_code():
    def run(sequence):  # seed 000, section 3, verbatim logic
        state, states = 0.0, []
        for value in sequence:
            state = math.tanh(value + 0.5 * state)
            states.append(state)
        return states

    for seq in ([1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [0.3, 2.0, -0.7, 1.1], []):
        got = scalar_rnn(seq)
        assert isinstance(got, list) and len(got) == len(seq)
        assert all(isinstance(v, float) for v in got)
        assert got == pytest.approx(run(seq), abs=1e-15)


def test_scalar_rnn_uses_its_weights():
    seq = [0.5, -1.0, 2.0]
    state, expected = 0.0, []
    for v in seq:
        state = math.tanh(2.0 * v + -0.3 * state + 0.1)
        expected.append(state)
    assert scalar_rnn(seq, w_x=2.0, w_h=-0.3, b=0.1) == pytest.approx(expected, abs=1e-15)


# ---------------------------------------------------------------- forward

@pytest.mark.parametrize("with_h0", [False, True])
def test_rnn_forward_matches_loop(with_h0):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(3, 6, 2))
    W_x, W_h, b = make_params(2, 5, 5)
    h0 = rng.normal(size=(3, 5)) if with_h0 else None
    before = snapshot(X, W_x, W_h, b, *([h0] if with_h0 else []))
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    assert Hs.shape == (3, 6, 5)
    np.testing.assert_allclose(Hs, loop_forward(X, W_x, W_h, b, h0), rtol=1e-12, atol=1e-12)
    assert_unchanged(before, [X, W_x, W_h, b, *([h0] if with_h0 else [])])


def test_rnn_forward_none_equals_zero_h0_and_is_stateless():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2, 4, 3))
    W_x, W_h, b = make_params(3, 4, 7)
    first = rnn_forward(X, W_x, W_h, b)
    np.testing.assert_allclose(first, rnn_forward(X, W_x, W_h, b, np.zeros((2, 4))))
    np.testing.assert_allclose(rnn_forward(X, W_x, W_h, b), first)


# ----------------------------------------------------------------- params

@pytest.mark.parametrize("kwargs, expected", [
    # seed 000: 3*4 + 4*4 + 4 = 32
    (dict(input_size=3, hidden_size=4), 32),
    # plus a head 4 -> 2: 4*2 + 2 = 10, so 42
    (dict(input_size=3, hidden_size=4, output_size=2), 42),
    # two bias vectors: 12 + 16 + 4 + 4 = 36
    (dict(input_size=3, hidden_size=4, double_bias=True), 36),
    # bidirectional: 2 * 32 = 64
    (dict(input_size=3, hidden_size=4, bidirectional=True), 64),
    # bidirectional + head from 8 features: 64 + 8*2 + 2 = 82
    (dict(input_size=3, hidden_size=4, output_size=2, bidirectional=True), 82),
    # two layers: 32 + (4*4 + 4*4 + 4 = 36) = 68
    (dict(input_size=3, hidden_size=4, num_layers=2), 68),
    # two bidirectional layers: 2*32 + 2*(8*4 + 16 + 4 = 52) = 64 + 104 = 168
    (dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True), 168),
    # same with double bias: 2*(12+16+8) + 2*(32+16+8) = 72 + 112 = 184
    (dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True,
          double_bias=True), 184),
    # three layers, input 10, H 8, head 5: (80+64+8) + 2*(64+64+8) + (40+5)
    # = 152 + 272 + 45 = 469
    (dict(input_size=10, hidden_size=8, output_size=5, num_layers=3), 469),
])
def test_count_rnn_params(kwargs, expected):
    got = count_rnn_params(**kwargs)
    assert type(got) is int
    assert got == expected


def test_count_rnn_params_positional_order():
    # (input_size, hidden_size, output_size, num_layers, bidirectional, double_bias)
    assert count_rnn_params(3, 4, 2, 2, True, True) == 184 + 8 * 2 + 2


# ---------------------------------------------------------------- masking

LENGTHS = np.array([5, 3, 0, 1])


def test_sequence_mask():
    m = sequence_mask(LENGTHS, 5)
    assert m.dtype == bool and m.shape == (4, 5)
    expected = [[t < n for t in range(5)] for n in LENGTHS]
    np.testing.assert_array_equal(m, expected)
    assert m[1, 2] and not m[1, 3]  # t == length is padding


@pytest.mark.parametrize("with_h0", [False, True])
def test_rnn_forward_masked_matches_loop_and_ignores_nan_padding(with_h0):
    X = padded_batch(4, 5, 3, LENGTHS, seed=8)
    W_x, W_h, b = make_params(3, 4, 9)
    h0 = np.random.default_rng(10).normal(size=(4, 4)) if with_h0 else None
    before = snapshot(X, LENGTHS, *([h0] if with_h0 else []))
    Hs, last = rnn_forward_masked(X, LENGTHS, W_x, W_h, b, h0)
    exp_Hs, exp_last = loop_masked(X, LENGTHS, W_x, W_h, b, h0)
    assert Hs.shape == (4, 5, 4) and last.shape == (4, 4)
    assert np.isfinite(Hs).all() and np.isfinite(last).all()
    np.testing.assert_allclose(Hs, exp_Hs, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(last, exp_last, rtol=1e-12, atol=1e-12)
    assert np.all(Hs[1, 3:] == 0) and np.all(Hs[2] == 0)
    # length 0: h_last is h0 (zeros without h0)
    np.testing.assert_allclose(last[2], h0[2] if with_h0 else np.zeros(4))
    assert_unchanged(before, [X, LENGTHS, *([h0] if with_h0 else [])])


def test_rnn_forward_masked_h_last_is_a_new_array():
    X = padded_batch(2, 3, 2, [0, 0], seed=11)
    W_x, W_h, b = make_params(2, 3, 12)
    h0 = np.ones((2, 3))
    _, last = rnn_forward_masked(X, np.array([0, 0]), W_x, W_h, b, h0)
    last += 5.0
    np.testing.assert_array_equal(h0, np.ones((2, 3)))


def test_rnn_forward_masked_full_lengths_equals_forward():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(3, 4, 2))
    W_x, W_h, b = make_params(2, 3, 14)
    Hs, last = rnn_forward_masked(X, np.array([4, 4, 4]), W_x, W_h, b)
    full = loop_forward(X, W_x, W_h, b)
    np.testing.assert_allclose(Hs, full, atol=1e-12)
    np.testing.assert_allclose(last, full[:, -1], atol=1e-12)


def test_last_valid_state_and_mean_pool_with_nan_padding():
    rng = np.random.default_rng(15)
    Hs = rng.normal(size=(4, 5, 3))
    for i, n in enumerate(LENGTHS):
        Hs[i, n:] = np.nan
    before = snapshot(Hs)
    last = last_valid_state(Hs, LENGTHS)
    pool = masked_mean_pool(Hs, LENGTHS)
    for i, n in enumerate(LENGTHS):
        exp_last = Hs[i, n - 1] if n > 0 else np.zeros(3)
        exp_pool = np.zeros(3)
        for t in range(n):
            exp_pool = exp_pool + Hs[i, t] / n
        np.testing.assert_allclose(last[i], exp_last, atol=1e-12)
        np.testing.assert_allclose(pool[i], exp_pool, atol=1e-12)
    assert np.isfinite(last).all() and np.isfinite(pool).all()
    assert_unchanged(before, [Hs])


def test_masked_cross_entropy_matches_loop():
    rng = np.random.default_rng(16)
    B, T, V = 4, 5, 6
    logits = rng.normal(scale=3.0, size=(B, T, V))
    targets = rng.integers(0, V, size=(B, T))
    for i, n in enumerate(LENGTHS):
        logits[i, n:] = np.nan
        targets[i, n:] = -1
    before = snapshot(logits, targets)
    total, count = 0.0, 0
    for i in range(B):
        for t in range(LENGTHS[i]):
            total -= loop_log_softmax(list(logits[i, t]))[targets[i, t]]
            count += 1
    got = masked_cross_entropy(logits, targets, LENGTHS)
    assert type(got) is float
    assert got == pytest.approx(total / count, rel=1e-12)
    assert_unchanged(before, [logits, targets])


def test_masked_cross_entropy_is_token_level_not_per_sequence():
    # two sequences of lengths 1 and 3 with different per-token losses
    logits = np.zeros((2, 3, 2))
    logits[0, 0] = [2.0, 0.0]
    targets = np.array([[1, 0, 0], [0, 0, 0]])
    lengths = np.array([1, 3])
    l0 = -loop_log_softmax([2.0, 0.0])[1]
    l1 = math.log(2.0)
    token_mean = (l0 + 3 * l1) / 4
    seq_mean = (l0 + l1) / 2
    got = masked_cross_entropy(logits, targets, lengths)
    assert got == pytest.approx(token_mean, rel=1e-12)
    assert got != pytest.approx(seq_mean, rel=1e-6)


def test_masked_cross_entropy_stable_for_large_logits():
    logits = np.array([[[1000.0, 0.0, -1000.0], [0.0, 1000.0, 999.0]]])
    targets = np.array([[0, 2]])
    got = masked_cross_entropy(logits, targets, np.array([2]))
    # position 0: -log(1/(1+e^-1000+...)) ~ 0; position 1: 1000 - 999 + log(1+e^-1)
    expected = (0.0 + (1.0 + math.log1p(math.exp(-1.0)))) / 2
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-12)


def test_masked_cross_entropy_no_valid_position():
    logits = np.full((2, 3, 4), np.nan)
    targets = np.full((2, 3), -1)
    got = masked_cross_entropy(logits, targets, np.array([0, 0]))
    assert type(got) is float and got == 0.0


# ---------------------------------------------------------------- readout

def test_softmax_matches_loop_on_each_axis():
    rng = np.random.default_rng(17)
    z = rng.normal(scale=5.0, size=(3, 4, 5))
    for axis in (0, 1, -1):
        got = softmax(z, axis=axis)
        moved = np.moveaxis(z, axis, -1)
        expected = np.zeros_like(moved)
        for idx in np.ndindex(moved.shape[:-1]):
            row = list(moved[idx])
            expected[idx] = [math.exp(v) for v in loop_log_softmax(row)]
        np.testing.assert_allclose(got, np.moveaxis(expected, -1, axis), rtol=1e-12)
    # default axis is the last one
    np.testing.assert_allclose(softmax(z), softmax(z, axis=-1))


def test_softmax_stable_for_large_logits():
    z = np.array([[1000.0, 999.0, -1000.0], [-1000.0, -1000.0, -1000.0]])
    p = softmax(z)
    assert np.isfinite(p).all()
    e = math.exp(-1.0)
    np.testing.assert_allclose(p[0], [1 / (1 + e), e / (1 + e), 0.0], atol=1e-15)
    np.testing.assert_allclose(p[1], [1 / 3] * 3, rtol=1e-12)


def test_many_to_one_probs_matches_loop():
    X = padded_batch(4, 5, 3, LENGTHS, seed=18)
    W_x, W_h, b = make_params(3, 4, 19)
    rng = np.random.default_rng(20)
    W_o, b_o = rng.normal(size=(4, 3)), rng.normal(size=3)
    probs = many_to_one_probs(X, LENGTHS, W_x, W_h, b, W_o, b_o)
    assert probs.shape == (4, 3)
    _, last = loop_masked(X, LENGTHS, W_x, W_h, b)
    for i in range(4):
        scores = [b_o[c] + sum(last[i, j] * W_o[j, c] for j in range(4)) for c in range(3)]
        expected = [math.exp(v) for v in loop_log_softmax(scores)]
        np.testing.assert_allclose(probs[i], expected, rtol=1e-12)


# ------------------------------------------------------------------- BPTT

def loop_loss(X, W_x, W_h, b, dHs, h0):
    return float(np.sum(loop_forward(X, W_x, W_h, b, h0) * dHs))


def bptt_problem(B=2, T=5, d=3, H=4, seed=21):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(B, T, d))
    W_x, W_h, b = make_params(d, H, seed + 1, scale=0.7)
    dHs = rng.normal(size=(B, T, H))
    h0 = rng.normal(scale=0.5, size=(B, H))
    return X, W_x, W_h, b, dHs, h0


def test_rnn_backward_finite_differences():
    X, W_x, W_h, b, dHs, h0 = bptt_problem()
    before = snapshot(X, W_x, W_h, b, dHs, h0)
    grads = rnn_backward(X, W_x, W_h, b, dHs, h0)
    assert_unchanged(before, [X, W_x, W_h, b, dHs, h0])
    assert set(grads) == {"dX", "dh0", "dW_x", "dW_h", "db"}
    X, W_x, W_h, b, h0 = snapshot(X, W_x, W_h, b, h0)  # perturbed below

    def f():
        return loop_loss(X, W_x, W_h, b, dHs, h0)
    for key, arr in [("dX", X), ("dh0", h0), ("dW_x", W_x), ("dW_h", W_h), ("db", b)]:
        assert grads[key].shape == arr.shape, key
        assert rel_err(grads[key], numeric_grad(f, arr)) <= 1e-6, key


def test_rnn_backward_h0_none_means_zeros():
    X, W_x, W_h, b, dHs, _ = bptt_problem(seed=23)
    g_none = rnn_backward(X, W_x, W_h, b, dHs)
    g_zero = rnn_backward(X, W_x, W_h, b, dHs, np.zeros((2, 4)))
    for key in g_none:
        np.testing.assert_allclose(g_none[key], g_zero[key], atol=1e-14)
    Wh = W_h.copy()

    def loss_of_Wh():
        return loop_loss(X, W_x, Wh, b, dHs, None)
    assert rel_err(g_none["dW_h"], numeric_grad(loss_of_Wh, Wh)) <= 1e-6
    h0 = np.zeros((2, 4))

    def loss_of_h0():
        return loop_loss(X, W_x, W_h, b, dHs, h0)
    assert rel_err(g_none["dh0"], numeric_grad(loss_of_h0, h0)) <= 1e-6


def chunked_loss(X, W_x, W_h, b, dHs, h0, k, boundary_states):
    """sum(Hs * dHs) where every chunk after the first starts from a constant."""
    B, T, _ = X.shape
    total = 0.0
    for i in range(B):
        for start in range(0, T, k):
            h = h0[i] if start == 0 else boundary_states[i, start - 1]
            for t, state in enumerate(loop_run(X[i, start:start + k], h, W_x, W_h, b)):
                total += float(np.dot(state, dHs[i, start + t]))
    return total


@pytest.mark.parametrize("k", [1, 2, 3])
def test_truncated_backward_finite_differences(k):
    X, W_x, W_h, b, dHs, h0 = bptt_problem(T=7, seed=25)
    before = snapshot(X, W_x, W_h, b, dHs, h0)
    grads = truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0)
    assert_unchanged(before, [X, W_x, W_h, b, dHs, h0])
    consts = loop_forward(X, W_x, W_h, b, h0)  # entering states, held fixed
    X, W_x, W_h, b, h0 = snapshot(X, W_x, W_h, b, h0)

    def f():
        return chunked_loss(X, W_x, W_h, b, dHs, h0, k, consts)
    for key, arr in [("dX", X), ("dh0", h0), ("dW_x", W_x), ("dW_h", W_h), ("db", b)]:
        assert grads[key].shape == arr.shape, key
        assert rel_err(grads[key], numeric_grad(f, arr)) <= 1e-6, key


def test_truncated_backward_differs_from_full_when_cut():
    X, W_x, W_h, b, dHs, h0 = bptt_problem(T=6, seed=27)
    full = rnn_backward(X, W_x, W_h, b, dHs, h0)
    cut = truncated_rnn_backward(X, W_x, W_h, b, dHs, 2, h0)
    assert rel_err(full["dW_h"], cut["dW_h"]) > 1e-3
    # dh0 only sees the first chunk: it depends on dHs[:, :2] alone
    dHs2 = dHs.copy()
    dHs2[:, 2:] *= -3.0
    cut2 = truncated_rnn_backward(X, W_x, W_h, b, dHs2, 2, h0)
    np.testing.assert_allclose(cut2["dh0"], cut["dh0"], atol=1e-14)
    assert rel_err(rnn_backward(X, W_x, W_h, b, dHs2, h0)["dh0"], full["dh0"]) > 1e-3


@pytest.mark.parametrize("k", [6, 7, 100])
def test_truncated_backward_with_large_k_equals_full(k):
    X, W_x, W_h, b, dHs, h0 = bptt_problem(T=6, seed=29)
    full = rnn_backward(X, W_x, W_h, b, dHs, h0)
    trunc = truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0)
    for key in full:
        np.testing.assert_allclose(trunc[key], full[key], rtol=1e-12, atol=1e-14)


def test_truncated_backward_k1_closed_form():
    # with k = 1 every step is its own chunk: a_t only gets dHs[:, t]
    X, W_x, W_h, b, dHs, h0 = bptt_problem(T=4, seed=31)
    Hs = loop_forward(X, W_x, W_h, b, h0)
    prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = dHs * (1 - Hs ** 2)
    dW_h = sum(prev[:, t].T @ dA[:, t] for t in range(4))
    g = truncated_rnn_backward(X, W_x, W_h, b, dHs, 1, h0)
    np.testing.assert_allclose(g["dW_h"], dW_h, rtol=1e-12)
    np.testing.assert_allclose(g["dh0"], dA[:, 0] @ W_h.T, rtol=1e-12)


# --------------------------------------------------------------- clipping

def test_clip_by_global_norm_scales_all_together():
    grads = {"a": np.array([3.0, 0.0]), "b": np.array([[0.0], [4.0]])}
    before = snapshot(grads["a"], grads["b"])
    clipped, total = clip_by_global_norm(grads, 1.0)
    assert type(total) is float and total == pytest.approx(5.0, rel=1e-15)
    np.testing.assert_allclose(clipped["a"], [0.6, 0.0])
    np.testing.assert_allclose(clipped["b"], [[0.0], [0.8]])
    assert clipped is not grads and set(clipped) == {"a", "b"}
    assert_unchanged(before, [grads["a"], grads["b"]])


def test_clip_by_global_norm_not_per_tensor():
    # "a" alone (norm 0.5) is under max_norm, but the global norm is over it
    rng = np.random.default_rng(33)
    grads = {"a": np.array([0.3, 0.4]), "W": rng.normal(size=(3, 3)) * 5}
    total = math.sqrt(sum(float(v) ** 2 for g in grads.values() for v in g.ravel()))
    clipped, got_total = clip_by_global_norm(grads, 2.0)
    assert got_total == pytest.approx(total, rel=1e-12)
    for key in grads:
        np.testing.assert_allclose(clipped[key], grads[key] * 2.0 / total, rtol=1e-12)


def test_clip_by_global_norm_below_threshold_unchanged():
    grads = {"a": np.array([0.1, -0.2]), "b": np.array([0.05])}
    clipped, total = clip_by_global_norm(grads, 10.0)
    assert total == pytest.approx(math.sqrt(0.01 + 0.04 + 0.0025), rel=1e-12)
    for key in grads:
        np.testing.assert_array_equal(clipped[key], grads[key])
        assert clipped[key] is not grads[key]
    clipped["a"][0] = 99.0
    assert grads["a"][0] == 0.1


# ---------------------------------------------------------- gradient flow

def test_spectral_radius_rotation_and_non_normal():
    th = 0.7
    rot = 0.9 * np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    r = spectral_radius(rot)
    assert type(r) is float and r == pytest.approx(0.9, rel=1e-12)
    quarter = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i: real part 0
    assert spectral_radius(quarter) == pytest.approx(1.0, rel=1e-12)
    shear = np.array([[0.5, 10.0], [0.0, 0.5]])  # largest singular value ~10
    assert spectral_radius(shear) == pytest.approx(0.5, rel=1e-6)
    neg = np.diag([-2.0, 1.0])
    assert spectral_radius(neg) == pytest.approx(2.0, rel=1e-12)


def test_hidden_grad_norms_by_finite_differences():
    rng = np.random.default_rng(35)
    B, T, d, H = 2, 5, 3, 3
    X = rng.normal(size=(B, T, d))
    W_x, W_h, b = make_params(d, H, 36, scale=0.8)
    h0 = rng.normal(scale=0.5, size=(B, H))
    before = snapshot(X, W_x, W_h, b, h0)
    norms = hidden_grad_norms(X, W_x, W_h, b, h0)
    assert_unchanged(before, [X, W_x, W_h, b, h0])
    assert norms.shape == (T,)
    assert norms[-1] == pytest.approx(math.sqrt(B * H), rel=1e-12)
    Hs = loop_forward(X, W_x, W_h, b, h0)
    eps = 1e-6
    for t in range(T):
        grad = np.zeros((B, H))
        for i in range(B):
            for j in range(H):
                vals = []
                for sign in (1, -1):
                    h = Hs[i, t].copy()
                    h[j] += sign * eps
                    states = loop_run(X[i, t + 1:], h, W_x, W_h, b)
                    vals.append(float(np.sum(states[-1] if states else h)))
                grad[i, j] = (vals[0] - vals[1]) / (2 * eps)
        assert norms[t] == pytest.approx(np.linalg.norm(grad), rel=1e-6)


def test_hidden_grad_norms_decay_with_small_recurrent_weights():
    rng = np.random.default_rng(37)
    X = rng.normal(size=(3, 30, 2))
    W_x, _, b = make_params(2, 4, 38)
    W_h = 0.3 * np.eye(4)
    norms = hidden_grad_norms(X, W_x, W_h, b)
    assert norms[-1] == pytest.approx(math.sqrt(12))
    assert norms[0] < 1e-12 and np.all(np.diff(norms) > 0)


# ------------------------------------------------------------------ BiRNN

@pytest.mark.parametrize("with_h0", [False, True])
def test_birnn_halves_match_separate_passes(with_h0):
    B, T, d, H = 4, 5, 3, 2
    X = padded_batch(B, T, d, LENGTHS, seed=39)
    fwd, bwd = make_params(d, H, 40), make_params(d, H, 41)
    h0 = np.random.default_rng(42).normal(size=(B, H)) if with_h0 else None
    before = snapshot(X, *fwd, *bwd, *([h0] if with_h0 else []))
    out = birnn_forward(X, LENGTHS, fwd, bwd, h0)
    assert out.shape == (B, T, 2 * H) and np.isfinite(out).all()
    assert_unchanged(before, [X, *fwd, *bwd, *([h0] if with_h0 else [])])
    exp_fwd, _ = loop_masked(X, LENGTHS, *fwd, h0)
    np.testing.assert_allclose(out[..., :H], exp_fwd, atol=1e-12)
    for i, n in enumerate(LENGTHS):
        start = np.zeros(H) if h0 is None else h0[i]
        rev_states = loop_run(X[i, :n][::-1], start, *bwd)
        for t in range(T):
            expected = rev_states[n - 1 - t] if t < n else np.zeros(H)
            np.testing.assert_allclose(out[i, t, H:], expected, atol=1e-12)


def test_birnn_backward_half_starts_at_last_valid_step():
    # the backward state at the last valid step has read only that input
    X = padded_batch(2, 4, 2, [2, 4], seed=43)
    fwd, bwd = make_params(2, 3, 44), make_params(2, 3, 45)
    out = birnn_forward(X, np.array([2, 4]), fwd, bwd)
    np.testing.assert_allclose(out[0, 1, 3:], loop_step(X[0, 1], np.zeros(3), *bwd), atol=1e-12)
    np.testing.assert_allclose(out[1, 3, 3:], loop_step(X[1, 3], np.zeros(3), *bwd), atol=1e-12)
    np.testing.assert_array_equal(out[0, 2:], 0.0)


# ------------------------------------------------------------ answer key

@pytest.fixture(scope="module")
def answers():
    with open(REF_DIR / "answers.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_answer_key_has_exactly_the_quiz_keys(answers):
    assert list(answers) == QUIZ_KEYS
    assert set(answers["match_outputs"]) == {"classification", "tagging", "next_step", "seq2seq"}
    assert all(v is not None for v in answers.values())


def test_answer_key_numbers_match_reference(answers):
    assert answers["scalar_last_state"] == pytest.approx(scalar_rnn([1.0, 0.0, -1.0])[-1], abs=1e-15)
    assert answers["scalar_reverse_last_state"] == pytest.approx(
        scalar_rnn([-1.0, 0.0, 1.0])[-1], abs=1e-15)
    assert answers["params_rnn"] == count_rnn_params(3, 4) == 32
    assert answers["params_rnn_head"] == count_rnn_params(3, 4, output_size=2) == 42
    assert answers["params_double_bias"] == count_rnn_params(3, 4, double_bias=True) == 36
    assert answers["params_length_1000"] == count_rnn_params(3, 4)


def test_answer_key_decay_steps_exact(answers):
    k = answers["decay_steps"]
    assert type(k) is int
    assert Fraction(4, 5) ** k >= Fraction(1, 10 ** 5) > Fraction(4, 5) ** (k + 1)


def test_answer_key_step_equation_evaluates_to_rnn_step(answers):
    eq = answers["step_equation"]
    rhs = eq.split("=", 1)[1].replace("h_{t-1}", "h_prev")
    rng = np.random.default_rng(46)
    W_x, W_h, b = make_params(3, 4, 47)
    x_t, h_prev = rng.normal(size=(2, 3)), rng.normal(size=(2, 4))
    env = {"tanh": np.tanh, "x_t": x_t, "h_prev": h_prev, "W_x": W_x, "W_h": W_h, "b": b}
    value = eval(compile(ast.parse(rhs.strip(), mode="eval"), "<eq>", "eval"), {"__builtins__": {}}, env)
    np.testing.assert_allclose(value, rnn_step(x_t, h_prev, W_x, W_h, b), rtol=1e-12)


def test_answer_key_choices_and_booleans(answers):
    assert answers["shared_parameters"] == ["W_x", "W_h", "b"]
    assert (answers["long_range_cause"], answers["many_to_one_readout"],
            answers["padding_pitfall"]) == ("B", "A", "B")
    assert answers["match_outputs"] == {"classification": "A", "tagging": "B",
                                        "next_step": "C", "seq2seq": "D"}
    true_keys = {"tf_reset_between_sequences", "tf_truncation_cuts",
                 "tf_grads_accumulate", "tf_order_matters"}
    for key in QUIZ_KEYS:
        if key.startswith("tf_"):
            assert answers[key] is (key in true_keys), key


def test_order_matters_claim_holds_for_reference():
    assert scalar_rnn([1.0, 0.0, -1.0])[-1] != pytest.approx(scalar_rnn([-1.0, 0.0, 1.0])[-1])


# ------------------------------------------------------------------ stubs

def test_stub_signatures_match_reference():
    for module, names in CONTRACT_FUNCTIONS.items():
        tree = ast.parse((STUB_DIR / f"{module}.py").read_text(encoding="utf-8"))
        stub_funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert set(stub_funcs) == set(names), module
        for name in names:
            node = stub_funcs[name]
            stub_sig = ast.unparse(node.args)
            ref_sig = str(inspect.signature(getattr(ref[module], name)))[1:-1]
            assert stub_sig == ref_sig, (module, name)
            body = [s for s in node.body if not (isinstance(s, ast.Expr)
                                                 and isinstance(s.value, ast.Constant))]
            assert len(body) == 1 and isinstance(body[0], ast.Raise), (module, name)
            assert ast.get_docstring(node), (module, name)


def test_stub_answers_template_is_empty():
    with open(STUB_DIR / "answers.yaml", encoding="utf-8") as fh:
        stub = yaml.safe_load(fh)
    assert list(stub) == QUIZ_KEYS
    for key, value in stub.items():
        if key == "match_outputs":
            assert value == {"classification": None, "tagging": None,
                             "next_step": None, "seq2seq": None}
        else:
            # the equation's template is '' so that single quotes are already there (answers.yaml)
            assert value == ("" if key == "step_equation" else None), key
