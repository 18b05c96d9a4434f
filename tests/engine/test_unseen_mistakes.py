"""Accuracy against mistakes the catalogue does not list.

Course staff's promise: every wrong implementation of an exercise loses points
on that exercise, and every correct style keeps full marks. Each case below is
a small student function, appended to a copy of the reference file so that it
overrides the reference's definition, then graded on its own exercise only.

- WRONG cases must score below the maximum on their exercise.
- RIGHT cases (correct, in an unusual style) must keep full marks.

None of these is in ``solutions/mistakes/``. A case the grader gets wrong
goes in FINDINGS (marked ``xfail(strict=True)`` with the reason) until the
grader is fixed.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from conftest import copy_reference
from grader.report import check_message

FILES = {"step": "rnn_step.py", "scalar": "rnn_step.py", "forward": "rnn_forward.py", "params": "param_count.py",
         "masking": "masking.py", "readout": "readout.py", "bptt": "bptt.py", "clipping": "bptt.py",
         "truncation": "bptt.py", "gradient_flow": "gradient_flow.py", "birnn": "birnn.py"}

WRONG, RIGHT = "wrong", "right"

# Every snippet is appended after this, so it may use np and math like a student file would.
PRELUDE = "import math\nimport numpy as np\n\n"


@dataclass
class Impl:
    exercise: str
    name: str
    kind: str          # WRONG or RIGHT
    source: str
    finding: str = ""  # non-empty: the grader currently misjudges this case


CASES: list[Impl] = []


def wrong(exercise, name, source):
    CASES.append(Impl(exercise, name, WRONG, source))


def right(exercise, name, source):
    CASES.append(Impl(exercise, name, RIGHT, source))


# =====================================================================================
# step: rnn_step(x_t, h_prev, W_x, W_h, b) = tanh(x_t W_x + h_prev W_h + b)
# =====================================================================================

# wrong: the recurrent product is done in float32 ("to save memory") and mixed back into float64
wrong("step", "float32_recurrent_product", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    rec = h_prev.astype(np.float32) @ W_h.astype(np.float32)
    return np.tanh(x_t @ W_x + rec + b)
""")

# wrong: einsum with the input weights transposed (column-form habit); only shape-valid when d == H
wrong("step", "einsum_transposed_input_weights", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,hd->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b)
""")

# wrong: "tanh(z) = 2 sigmoid(z) - 1" without the factor 2 inside, i.e. tanh(z / 2)
wrong("step", "half_tanh_from_sigmoid", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    return 2.0 / (1.0 + np.exp(-z)) - 1.0
""")

# wrong: memoises on id() of the arguments; ids are reused once earlier arrays are freed
wrong("step", "cache_keyed_by_id", """
_cache = {}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    key = (id(x_t), id(h_prev), id(W_x), id(W_h), id(b))
    if key not in _cache:
        _cache[key] = np.tanh(x_t @ W_x + h_prev @ W_h + b)
    return _cache[key]
""")

# wrong: reshapes the caller's bias in place (assigning to .shape mutates the argument)
wrong("step", "reshapes_bias_in_place", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    b.shape = (1, -1)
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
""")

# wrong: np.squeeze on the result drops the batch axis when B == 1 (and the unit axis when H == 1)
wrong("step", "squeezed_result", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.squeeze(np.tanh(x_t @ W_x + h_prev @ W_h + b))
""")

# wrong: "loads the weights once": keeps the first weights seen for each shape, ignores later ones
wrong("step", "weights_cached_by_shape", """
_weights = {}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    W_x, W_h, b = _weights.setdefault((W_x.shape, W_h.shape), (W_x, W_h, b))
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
""")

# right: einsum for both products
right("step", "einsum", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b)
""")

# right: the chapter's column form, transposed back (returns an F-ordered array)
right("step", "column_form_transposed_back", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(W_h.T @ h_prev.T + W_x.T @ x_t.T + b[:, None]).T
""")

# right: plain Python loops with math.tanh, another summation order
right("step", "python_loops", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, d = x_t.shape
    H = W_h.shape[0]
    out = np.empty((B, H))
    for i in range(B):
        for j in range(H):
            s = float(b[j])
            for k in range(H):
                s += h_prev[i, k] * W_h[k, j]
            for k in range(d):
                s += x_t[i, k] * W_x[k, j]
            out[i, j] = math.tanh(s)
    return out
""")

# right: a hand-written tanh that cannot overflow
right("step", "stable_manual_tanh", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    e = np.exp(-2.0 * np.abs(z))
    return np.sign(z) * (1.0 - e) / (1.0 + e)
""")

# right: in-place arithmetic on its own buffer only
right("step", "in_place_on_own_buffer", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    out = x_t @ W_x
    out += h_prev @ W_h
    out += b
    np.tanh(out, out=out)
    return out
""")


# =====================================================================================
# scalar: scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0) -> list of states
# =====================================================================================

# wrong: rounds every state to 4 decimals "for readability"
wrong("scalar", "rounds_states", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = round(math.tanh(w_x * value + w_h * state + b), 4)
        states.append(state)
    return states
""")

# wrong: a mutable default list collects the states of every call
wrong("scalar", "mutable_default_list", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0, states=[]):
    state = 0.0
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong: the bias is added after tanh
wrong("scalar", "bias_outside_tanh", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state) + b
        states.append(state)
    return states
""")

# wrong: the initial state 0 is reported too (len(sequence) + 1 entries)
wrong("scalar", "includes_initial_state", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = [0.0]
    for value in sequence:
        states.append(math.tanh(w_x * value + w_h * states[-1] + b))
    return states
""")

# wrong: returns a tuple, the contract asks for a list
wrong("scalar", "returns_tuple", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return tuple(states)
""")

# wrong: the items are numpy.float32, not Python floats (and only single precision)
wrong("scalar", "float32_items", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = np.float32(0.0), []
    for value in sequence:
        state = np.tanh(np.float32(w_x * value + w_h * state + b))
        states.append(state)
    return states
""")

# wrong: reuses the input as the output buffer, so only a list works (any iterable is allowed)
wrong("scalar", "list_only_input", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    states = sequence.copy()
    state = 0.0
    for i, value in enumerate(sequence):
        state = math.tanh(w_x * value + w_h * state + b)
        states[i] = state
    return states
""")

# right: itertools.accumulate with an initial state, the initial state dropped
right("scalar", "accumulate", """
import itertools
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    step = lambda s, v: math.tanh(w_x * v + w_h * s + b)
    return list(itertools.accumulate(sequence, step, initial=0.0))[1:]
""")

# right: numpy scalars; np.float64 is a subclass of float
right("scalar", "numpy_float64_items", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = np.float64(0.0), []
    for value in np.asarray(list(sequence), dtype=float):
        state = np.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# right: recursion over the prefix
right("scalar", "recursive", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def go(values, state):
        if not values:
            return []
        new = math.tanh(w_x * values[0] + w_h * state + b)
        return [new] + go(values[1:], new)
    return go(list(sequence), 0.0)
""")


# =====================================================================================
# forward: rnn_forward(X, W_x, W_h, b, h0=None) -> Hs (B, T, H)
# =====================================================================================

# wrong: memoises the result on id(X); a new X that reuses a freed id gets an old answer
wrong("forward", "cache_keyed_by_id", """
_seen = {}
def rnn_forward(X, W_x, W_h, b, h0=None):
    key = id(X)
    if key not in _seen:
        B, T, _ = X.shape
        h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
        Hs = np.zeros((B, T, W_h.shape[0]))
        for t in range(T):
            h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
            Hs[:, t] = h
        _seen[key] = Hs
    return _seen[key].copy()
""")

# wrong: walks time backwards (t = T-1 ... 0) while storing at t
wrong("forward", "reversed_time_loop", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in reversed(range(T)):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: collects (T, B, H) and reshapes to (B, T, H) instead of transposing
wrong("forward", "reshape_not_transpose", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    return np.array(states).reshape(B, T, H)
""")

# wrong only when h0 is given: h0 is added at step 0 instead of going through W_h
wrong("forward", "h0_added_without_W_h", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        if t == 0:
            start = np.zeros((B, H)) if h0 is None else h0
            h = np.tanh(X[:, 0] @ W_x + start + b)
        else:
            h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: "small random initial state" habit when h0 is None
wrong("forward", "random_initial_state", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = 0.01 * np.random.randn(B, H) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: hidden size read from the input (assumes d == H)
wrong("forward", "hidden_size_from_input", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, H = X.shape
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: the running state is rounded to float32 at every step (result dtype stays float64)
wrong("forward", "float32_running_state", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H), dtype=np.float32) if h0 is None else h0.astype(np.float32)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b).astype(np.float32)
        Hs[:, t] = h
    return Hs
""")

# wrong: the input projection X @ W_x for all steps is stored in float32 ("it is big")
wrong("forward", "float32_input_projection", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    A = (X @ W_x).astype(np.float32)
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(A[:, t] + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# right: input projection for all steps at once with einsum, then the recursion
right("forward", "einsum_projection_first", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    A = np.einsum("btd,dh->bth", X, W_x) + b
    h = np.zeros((B, H)) if h0 is None else np.array(h0)
    Hs = np.empty((B, T, H))
    for t in range(T):
        h = np.tanh(A[:, t] + h @ W_h)
        Hs[:, t] = h
    return Hs
""")

# right: T + 1 slots with h0 in slot 0; returns the view Hs[:, 1:] (not contiguous)
right("forward", "returns_view_without_h0", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    S = np.zeros((B, T + 1, H))
    if h0 is not None:
        S[:, 0] = h0
    for t in range(T):
        S[:, t + 1] = np.tanh(np.dot(X[:, t], W_x) + np.dot(S[:, t], W_h) + b)
    return S[:, 1:]
""")

# right: time-major list of rnn_step results, stacked on axis 1
right("forward", "time_major_stack", """
from rnn_step import rnn_step
def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    states = []
    for x_t in np.transpose(X, (1, 0, 2)):
        h = rnn_step(x_t, h, W_x, W_h, b)
        states.append(h)
    return np.stack(states, axis=1)
""")


# =====================================================================================
# params: count_rnn_params(...) -> int
# =====================================================================================

# wrong: the second bias vector only on layer 0
wrong("params", "double_bias_first_layer_only", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs = hidden_size, 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        nb = 2 if (double_bias and layer == 0) else 1
        total += dirs * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
""")

# wrong: double_bias also doubles the head's bias
wrong("params", "double_bias_doubles_head_bias", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = sum(dirs * ((input_size if l == 0 else H * dirs) * H + H * H + nb * H) for l in range(num_layers))
    if output_size > 0:
        total += H * dirs * output_size + nb * output_size
    return total
""")

# wrong: only layer 0 has two directions (later layers still read H * 2 features)
wrong("params", "bidirectional_first_layer_only", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = dirs * (input_size * H + H * H + nb * H)
    for _ in range(1, num_layers):
        total += H * dirs * H + H * H + nb * H
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
""")

# wrong: one head per direction (bias counted twice when bidirectional)
wrong("params", "head_per_direction", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        total += dirs * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += dirs * (H * output_size + output_size)
    return total
""")

# wrong: hard-codes the chapter's numbers for (3, 4), whatever the other options say
wrong("params", "hard_coded_statement_example", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    if input_size == 3 and hidden_size == 4:
        return 42 if output_size == 2 else 32
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        total += dirs * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
""")

# wrong: later layers read input_size * directions instead of H * directions
wrong("params", "later_layers_read_input_times_dirs", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else input_size * dirs
        total += dirs * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
""")

# wrong: with two directions, the second bias is counted once per layer instead of per direction
wrong("params", "second_bias_once_per_layer", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, dirs = hidden_size, 2 if bidirectional else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else H * dirs
        total += dirs * (n_in * H + H * H + H) + (H if double_bias else 0)
    if output_size > 0:
        total += H * dirs * output_size + output_size
    return total
""")

# right: closed form
right("params", "closed_form", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    D = 1 + int(bool(bidirectional))
    nb = 1 + int(bool(double_bias))
    first = D * (input_size * H + H * H + nb * H)
    rest = (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    head = (D * H + 1) * output_size if output_size > 0 else 0
    return first + rest + head
""")

# right: numpy arithmetic over the parameter shapes, converted with int()
right("params", "numpy_then_int", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    D = 2 if bidirectional else 1
    shapes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        for _ in range(D):
            shapes += [(n_in, H), (H, H), (H,)] + ([(H,)] if double_bias else [])
    if output_size > 0:
        shapes += [(D * H, output_size), (output_size,)]
    return int(np.sum([np.prod(s) for s in shapes]))
""")

# right: a dict of named tensors like a library's state_dict, summed with math.prod
right("params", "state_dict_style", """
import math
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H = hidden_size
    sd = {}
    for layer in range(num_layers):
        for suffix in (["", "_reverse"] if bidirectional else [""]):
            n_in = input_size if layer == 0 else H * (2 if bidirectional else 1)
            sd[f"weight_ih_l{layer}{suffix}"] = (H, n_in)
            sd[f"weight_hh_l{layer}{suffix}"] = (H, H)
            sd[f"bias_ih_l{layer}{suffix}"] = (H,)
            if double_bias:
                sd[f"bias_hh_l{layer}{suffix}"] = (H,)
    if output_size:
        sd["fc.weight"] = (output_size, H * (2 if bidirectional else 1))
        sd["fc.bias"] = (output_size,)
    return sum(math.prod(s) for s in sd.values())
""")


# =====================================================================================
# masking: sequence_mask, rnn_forward_masked, last_valid_state, masked_mean_pool,
#          masked_cross_entropy
# =====================================================================================

# wrong: cleans only NaN, then freezes by multiplying: +/-inf padding gives inf - inf = NaN, and NaN * 0 leaks
wrong("masking", "isnan_clean_then_multiply", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)[:, :, None]
    Xc = np.where(np.isnan(X), 0.0, X)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    with np.errstate(all="ignore"):
        for t in range(T):
            h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
            h = m[:, t] * h_new + (1.0 - m[:, t]) * h
            Hs[:, t] = m[:, t] * h_new
    return Hs, h
""")

# wrong: zeroes length-0 rows by multiplying, so a NaN at Hs[i, -1] stays NaN
wrong("masking", "last_valid_nan_times_zero", """
def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    return Hs[np.arange(len(lengths)), lengths - 1] * (lengths > 0)[:, None]
""")

# wrong: pooling by multiplying with the mask: NaN padding gives NaN
wrong("masking", "mean_pool_multiply_mask", """
def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    m = (np.arange(Hs.shape[1])[None, :] < lengths[:, None])[:, :, None]
    return (Hs * m).sum(axis=1) / np.maximum(lengths, 1)[:, None]
""")

# wrong: clears the padding with a negative slice; for lengths[i] == T, "-0:" clears the whole row
wrong("masking", "mask_negative_zero_slice", """
def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.ones((len(lengths), T), dtype=bool)
    for i, L in enumerate(lengths):
        mask[i, -(T - L):] = False
    return mask
""")

# wrong: returns a 0-d ndarray instead of a Python float
wrong("masking", "ce_returns_0d_array", """
def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return np.array(0.0)
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return np.array(-logp[np.arange(len(t)), t].mean())
""")

# wrong: returns the int 0 (not the float 0.0) when no position is valid
wrong("masking", "ce_int_zero_when_empty", """
def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    n = int(mask.sum())
    if n == 0:
        return 0
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return float(-logp[np.arange(n), t].sum() / n)
""")

# wrong: stores the states in a float32 buffer
wrong("masking", "float32_states", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H), dtype=np.float32)
    for t in range(T):
        v = mask[:, t, None]
        h_new = np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h_new, 0.0)
    return Hs, h
""")

# wrong: memoises on (shape, lengths, h0 given?) and returns an old result for new data
wrong("masking", "memo_by_shape_and_lengths", """
_memo = {}
_reference_forward = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    key = (X.shape, W_h.shape, tuple(np.asarray(lengths).tolist()), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_forward(X, lengths, W_x, W_h, b, h0)
    Hs, h = _memo[key]
    return Hs.copy(), h.copy()
""")

# wrong: log(p + 1e-12) instead of a log-softmax: wrong for confident logits (1e3)
wrong("masking", "ce_log_epsilon", """
def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return 0.0
    z = logits[mask]
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    t = np.asarray(targets)[mask]
    return float(-np.log(p[np.arange(len(t)), t] + 1e-12).mean())
""")

# wrong: np.squeeze(lengths) breaks B == 1 (a 0-d lengths array)
wrong("masking", "squeezed_lengths", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.squeeze(np.asarray(lengths))
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        v = (t < lengths)[:, None]
        h_new = np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h_new, 0.0)
    return Hs, h
""")

# right: the mask as rows of a lower-triangular table indexed by the lengths
right("masking", "mask_from_triangle_table", """
def sequence_mask(lengths, T):
    return np.tri(T + 1, T, -1, dtype=bool)[np.asarray(lengths, dtype=int)]
""")

# right: np.less.outer, transposed (an F-ordered bool array)
right("masking", "mask_outer_transposed", """
def sequence_mask(lengths, T):
    return np.less.outer(np.arange(T), np.asarray(lengths)).T
""")

# right: each row run alone over its valid prefix with rnn_forward
right("masking", "forward_row_by_row", """
from rnn_forward import rnn_forward
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    h_last = start.copy()
    for i in range(B):
        L = int(lengths[i])
        if L > 0:
            Hs[i, :L] = rnn_forward(X[i:i + 1, :L], W_x, W_h, b, start[i:i + 1])[0]
            h_last[i] = Hs[i, L - 1]
    return Hs, h_last
""")

# right: returns [Hs, h_last] as a list; padding removed by boolean indexing of the rows still running
right("masking", "forward_list_and_boolean_rows", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    lengths = np.asarray(lengths)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        rows = lengths > t
        h[rows] = np.tanh(X[rows, t] @ W_x + h[rows] @ W_h + b)
        Hs[rows, t] = h[rows]
    return [Hs, h]
""")

# right: divide everything, then np.where picks 0 for empty rows (0/0 warnings silenced)
right("masking", "mean_pool_where_after_divide", """
def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    m = sequence_mask(lengths, Hs.shape[1])[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(m, Hs, 0.0).sum(axis=1) / lengths[:, None]
    return np.where(lengths[:, None] > 0, mean, 0.0)
""")

# right: the loss on the full grid (targets clipped), padding removed by np.where; np.float64 out
right("masking", "ce_full_grid_where", """
def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    z = np.where(mask[..., None], logits, 0.0)
    logp = z - np.max(z, axis=-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=-1, keepdims=True))
    t = np.clip(np.asarray(targets), 0, V - 1)
    nll = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    n = mask.sum()
    return np.where(mask, nll, 0.0).sum() / n if n else 0.0
""")

# right: take_along_axis for the last valid state
right("masking", "last_valid_take_along_axis", """
def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    if Hs.shape[1] == 0:
        return np.zeros((Hs.shape[0], Hs.shape[2]))
    idx = np.clip(lengths - 1, 0, None)[:, None, None]
    picked = np.take_along_axis(Hs, idx, axis=1)[:, 0]
    return np.where((lengths > 0)[:, None], picked, 0.0)
""")


# =====================================================================================
# readout: softmax(z, axis=-1), many_to_one_probs(...)
# =====================================================================================

# wrong: shifts by the global maximum; rows far below it underflow to 0/0 for logits ~1e3
wrong("readout", "softmax_global_shift", """
def softmax(z, axis=-1):
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.exp(z - np.max(z))
        return e / e.sum(axis=axis, keepdims=True)
""")

# wrong: shifts by the maximum of the last axis but normalises along `axis`
wrong("readout", "softmax_shift_on_last_axis", """
def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
""")

# wrong: the denominator loses its axis and is re-expanded at the end
wrong("readout", "softmax_sum_reexpanded_last", """
def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis)[..., None]
""")

# wrong: the probabilities are normalised over the batch
wrong("readout", "probs_softmax_over_batch", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    return softmax(h_last @ W_o + b_o, axis=0)
""")

# wrong: own masked pass that replaces only NaN and freezes by multiplying: inf padding leaks NaN
wrong("readout", "probs_isnan_clean_multiply", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B, T, _ = X.shape
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)
    Xc = np.where(np.isnan(X), 0.0, X)
    h = np.zeros((B, W_h.shape[0]))
    with np.errstate(all="ignore"):
        for t in range(T):
            h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
            h = m[:, t, None] * h_new + (1.0 - m[:, t, None]) * h
    return softmax(h @ W_o + b_o)
""")

# wrong: one sigmoid per class instead of a softmax
wrong("readout", "probs_sigmoid", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    return 1.0 / (1.0 + np.exp(-(h_last @ W_o + b_o)))
""")

# wrong: padding replaced by zeros but still fed in; reads the state at T - 1
wrong("readout", "probs_zero_padding_fed_in", """
from rnn_forward import rnn_forward
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    Hs = rnn_forward(np.where(mask[..., None], X, 0.0), W_x, W_h, b)
    return softmax(Hs[:, -1] @ W_o + b_o)
""")

# wrong: memoises on (shapes, lengths) and returns an old answer for new numbers
wrong("readout", "probs_memo_by_shape_and_lengths", """
_memo = {}
_reference_probs = many_to_one_probs
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    key = (X.shape, W_o.shape, tuple(np.asarray(lengths).tolist()))
    if key not in _memo:
        _memo[key] = _reference_probs(X, lengths, W_x, W_h, b, W_o, b_o)
    return _memo[key].copy()
""")

# wrong: caches softmax results on id(z); a new array that reuses a freed id gets an old answer
wrong("readout", "softmax_cache_keyed_by_id", """
_cache = {}
def softmax(z, axis=-1):
    key = (id(z), axis)
    if key not in _cache:
        e = np.exp(z - np.max(z, axis=axis, keepdims=True))
        _cache[key] = e / e.sum(axis=axis, keepdims=True)
    return _cache[key]
""")

# right: log-sum-exp with np.logaddexp.reduce
right("readout", "softmax_logsumexp", """
def softmax(z, axis=-1):
    return np.exp(z - np.logaddexp.reduce(z, axis=axis, keepdims=True))
""")

# right: move the axis last, work on rows, move it back (returns a non-contiguous view)
right("readout", "softmax_moveaxis", """
def softmax(z, axis=-1):
    w = np.moveaxis(z, axis, -1)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)
""")

# right: p_i = 1 / sum_j exp(z_j - z_i); overflow to inf only where the true value underflows to 0
right("readout", "softmax_pairwise_differences", """
def softmax(z, axis=-1):
    w = np.moveaxis(z, axis, -1)
    with np.errstate(over="ignore"):
        p = 1.0 / np.exp(w[..., None, :] - w[..., :, None]).sum(axis=-1)
    return np.moveaxis(p, -1, axis)
""")

# right: Hs[i, lengths[i] - 1]; for length 0 the index -1 hits padding, which is zero == h0
right("readout", "probs_negative_index_on_zero_padding", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    Hs, _ = rnn_forward_masked(X, lengths, W_x, W_h, b)
    lengths = np.asarray(lengths)
    h_last = Hs[np.arange(len(lengths)), lengths - 1] if Hs.shape[1] else np.zeros((len(lengths), W_h.shape[0]))
    return softmax(np.dot(h_last, W_o) + b_o)
""")

# right: per row, rnn_step over the valid prefix, einsum for the head
right("readout", "probs_row_loops", """
from rnn_step import rnn_step
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B = X.shape[0]
    out = []
    for i in range(B):
        h = np.zeros((1, W_h.shape[0]))
        for t in range(int(lengths[i])):
            h = rnn_step(X[i:i + 1, t], h, W_x, W_h, b)
        out.append(softmax(np.einsum("bh,hc->bc", h, W_o) + b_o)[0])
    return np.array(out)
""")


# =====================================================================================
# bptt: rnn_backward(X, W_x, W_h, b, dHs, h0=None) -> dict
# =====================================================================================

_BPTT_FORWARD = """
def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    h = h0
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return h0, Hs
"""

# wrong: h_prev = Hs[:, t - 1] for every t, so at t = 0 it silently takes the LAST state, not h0
wrong("bptt", "h_prev_negative_index", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    B, T, _ = X.shape
    g = {"dX": np.zeros_like(X), "dW_x": np.zeros_like(W_x), "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        da = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        g["dW_x"] += X[:, t].T @ da
        g["dW_h"] += Hs[:, t - 1].T @ da
        g["db"] += da.sum(0)
        g["dX"][:, t] = da @ W_x.T
        dh = da @ W_h.T
    g["dh0"] = dh
    return g
""")

# wrong: dh0 squeezed, so B == 1 gives shape (H,)
wrong("bptt", "dh0_squeezed", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": np.squeeze(dh), "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: caches the forward states on id(X); a new X that reuses the id gets old states
wrong("bptt", "forward_cached_by_id", """
_states = {}
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    if id(X) not in _states:
        _states[id(X)] = rnn_forward(X, W_x, W_h, b, h0)
    Hs = _states[id(X)]
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: the tanh derivative taken at the previous state h_(t-1) instead of h_t
wrong("bptt", "derivative_of_previous_state", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - H_prev[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: dh0 left out (None) when h0 is None; the contract wants it in every case
wrong("bptt", "dh0_none_without_h0", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    given = h0 is not None
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh if given else None, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: the pre-activation gradients are kept in a float32 buffer (outputs are still float64)
wrong("bptt", "float32_gradient_buffer", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros(Hs.shape, dtype=np.float32)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    dA = dA.astype(np.float64)
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: returns the states too; the contract asks for exactly the five keys
wrong("bptt", "extra_key_Hs", _BPTT_FORWARD + """
_reference_backward = rnn_backward
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    grads = _reference_backward(X, W_x, W_h, b, dHs, h0)
    grads["Hs"] = _fwd(X, W_x, W_h, b, h0)[1]
    return grads
""")

# wrong: dW_h pairs dA[:, 1:] with Hs[:, :-1] only, dropping the h0 term of step 0
wrong("bptt", "dW_h_drops_h0_term", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", Hs[:, :-1], dA[:, 1:]), "db": dA.sum((0, 1))}
""")

# wrong: tanh applied to the state again inside the derivative: 1 - tanh(h_t)^2
wrong("bptt", "derivative_tanh_of_state", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - np.tanh(Hs[:, t]) ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: memoises the gradients on the shapes (ignoring h0 and the values)
wrong("bptt", "memo_by_shape", """
_memo = {}
_reference_backward = rnn_backward
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    key = (X.shape, W_h.shape)
    if key not in _memo:
        _memo[key] = _reference_backward(X, W_x, W_h, b, dHs, h0)
    return {name: g.copy() for name, g in _memo[key].items()}
""")

# right: batch and time flattened into one matrix product per parameter (F-ordered results)
right("bptt", "flattened_matmuls", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    B, T, d = X.shape
    H = W_h.shape[0]
    H_prev = np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros((B, T, H))
    dh = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + dh) * (1.0 - Hs[:, t] * Hs[:, t])
        dh = np.dot(dA[:, t], W_h.T)
    A2 = dA.reshape(B * T, H)
    return {"dX": (W_x @ A2.T).T.reshape(B, T, d), "dh0": dh,
            "dW_x": (A2.T @ X.reshape(B * T, d)).T,
            "dW_h": (A2.T @ H_prev.reshape(B * T, H)).T, "db": A2.sum(axis=0)}
""")

# right: one example and one step at a time, with np.outer
right("bptt", "per_example_outer", _BPTT_FORWARD + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    B, T, d = X.shape
    dX = np.zeros_like(X)
    dh0 = np.zeros_like(h0)
    dW_x, dW_h, db = np.zeros_like(W_x), np.zeros_like(W_h), np.zeros_like(b)
    for i in range(B):
        carry = np.zeros(W_h.shape[0])
        for t in range(T - 1, -1, -1):
            a = (dHs[i, t] + carry) * (1 - Hs[i, t] ** 2)
            prev = Hs[i, t - 1] if t > 0 else h0[i]
            dW_x += np.outer(X[i, t], a)
            dW_h += np.outer(prev, a)
            db += a
            dX[i, t] = W_x @ a
            carry = W_h @ a
        dh0[i] = carry
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
""")

# right: copies dHs first, then accumulates into the copy in place; returns an OrderedDict
right("bptt", "accumulates_into_copy_ordered_dict", _BPTT_FORWARD + """
from collections import OrderedDict
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    g = dHs.copy()
    out = OrderedDict(dX=np.zeros_like(X), dh0=None, dW_x=np.zeros_like(W_x), dW_h=np.zeros_like(W_h),
                      db=np.zeros_like(b))
    for t in range(T - 1, -1, -1):
        g[:, t] *= 1 - Hs[:, t] ** 2
        if t > 0:
            g[:, t - 1] += g[:, t] @ W_h.T
        prev = Hs[:, t - 1] if t > 0 else h0
        out["dW_x"] += X[:, t].T @ g[:, t]
        out["dW_h"] += prev.T @ g[:, t]
        out["db"] += g[:, t].sum(axis=0)
        out["dX"][:, t] = g[:, t] @ W_x.T
    out["dh0"] = g[:, 0] @ W_h.T if T else np.zeros_like(h0)
    return out
""")


# =====================================================================================
# clipping: clip_by_global_norm(grads, max_norm) -> (clipped, total_norm)
# =====================================================================================

# wrong: crashes (ZeroDivisionError) on an all-zero gradient, which must come back unchanged
wrong("clipping", "zero_gradient_division", """
def clip_by_global_norm(grads, max_norm):
    total = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    scale = min(1.0, max_norm / total)
    return {k: g * scale for k, g in grads.items()}, total
""")

# wrong: under the limit it hands back the caller's own dict (the contract wants a new dict)
wrong("clipping", "returns_input_dict_under_limit", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    if total <= max_norm:
        return grads, total
    return {k: g * (max_norm / total) for k, g in grads.items()}, total
""")

# wrong: tests the SUM OF SQUARES against max_norm: for sqrt(max_norm) < norm < max_norm it scales UP
wrong("clipping", "squared_norm_threshold", """
def clip_by_global_norm(grads, max_norm):
    sq = sum(float(np.sum(g * g)) for g in grads.values())
    total = math.sqrt(sq)
    if sq > max_norm:
        return {k: g * (max_norm / total) for k, g in grads.items()}, total
    return {k: g.copy() for k, g in grads.items()}, total
""")

# wrong: a new dict, but the arrays in it are the caller's, scaled in place
wrong("clipping", "shallow_copy_then_in_place", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    clipped = dict(grads)
    if total > max_norm:
        for k in clipped:
            clipped[k] *= max_norm / total
    return clipped, total
""")

# wrong: writes the scaled arrays back into the caller's dict
wrong("clipping", "rebinds_input_dict_entries", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    if total > max_norm:
        for k in list(grads):
            grads[k] = grads[k] * (max_norm / total)
    return dict(grads), total
""")

# wrong: np.linalg.norm(g, 2) is the spectral norm for a matrix, not the L2 norm of its entries
wrong("clipping", "matrix_ord_2_norm", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.linalg.norm(g, 2) ** 2 for g in grads.values())))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
""")

# wrong: only knows the names of rnn_backward's parameter gradients
wrong("clipping", "hard_coded_keys", """
def clip_by_global_norm(grads, max_norm):
    names = [k for k in ("dX", "dh0", "dW_x", "dW_h", "db") if k in grads]
    total = float(np.sqrt(sum(np.sum(grads[k] ** 2) for k in names)))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: grads[k] * scale for k in names}, total
""")

# wrong: remembers the norm of each dict by id(); a new dict that reuses the id gets an old norm
wrong("clipping", "norm_cached_by_id", """
_norms = {}
def clip_by_global_norm(grads, max_norm):
    if id(grads) not in _norms:
        _norms[id(grads)] = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    total = _norms[id(grads)]
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
""")

# right: one flat vector, split back and reshaped
right("clipping", "flatten_and_split_back", """
def clip_by_global_norm(grads, max_norm):
    keys = list(grads)
    flat = np.concatenate([np.ravel(grads[k]) for k in keys])
    total = float(np.linalg.norm(flat))
    if total > max_norm:
        flat = flat * (max_norm / total)
    pieces = np.split(flat, np.cumsum([np.size(grads[k]) for k in keys])[:-1])
    return {k: p.reshape(np.shape(grads[k])) for k, p in zip(keys, pieces)}, total
""")

# right: the factor as min(1, max_norm / total) with a guard for a zero gradient; returns a list
right("clipping", "min_factor_returns_list", """
def clip_by_global_norm(grads, max_norm):
    total = np.linalg.norm([np.linalg.norm(np.ravel(g)) for g in grads.values()])
    factor = min(1.0, max_norm / total) if total > 0 else 1.0
    return [{k: g * factor for k, g in grads.items()}, total]
""")

# right: math.fsum / math.sqrt; under the limit the new dict shares the (unchanged) arrays
right("clipping", "fsum_and_shared_arrays_under_limit", """
def clip_by_global_norm(grads, max_norm):
    total = math.sqrt(math.fsum(float(v) ** 2 for g in grads.values() for v in np.ravel(g)))
    if total > max_norm:
        return {k: np.multiply(g, max_norm / total) for k, g in grads.items()}, total
    return {k: g for k, g in grads.items()}, total
""")


# =====================================================================================
# truncation: truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None)
# =====================================================================================

_TRUNC_FORWARD = """
def _states(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    return h0, Hs, np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)

def _grads(X, W_x, W_h, H_prev, dA, dh0):
    return {"dX": dA @ W_x.T, "dh0": dh0, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
"""

# wrong: a sliding window (every loss term travels back at most k steps) instead of fixed chunks
wrong("truncation", "sliding_window", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh0 = np.zeros_like(h0)
    for s in range(T):
        dh = dHs[:, s]
        for t in range(s, max(s - k, -1), -1):
            da = dh * (1 - Hs[:, t] ** 2)
            dA[:, t] += da
            dh = da @ W_h.T
            if t == 0:
                dh0 += dh
    return _grads(X, W_x, W_h, H_prev, dA, dh0)
""")

# wrong: chunks counted from the end of the sequence ([T-k, T), [T-2k, T-k), ...)
wrong("truncation", "chunks_from_the_end", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh0 = np.zeros_like(h0)
    for stop in range(T, 0, -k):
        start = max(stop - k, 0)
        dh = np.zeros_like(h0)
        for t in range(stop - 1, start - 1, -1):
            dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
            dh = dA[:, t] @ W_h.T
        if start == 0:
            dh0 = dh
    return _grads(X, W_x, W_h, H_prev, dA, dh0)
""")

# wrong: T // k chunks: the last, shorter chunk is dropped (and nothing at all when k > T)
wrong("truncation", "floor_chunk_count", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh0 = np.zeros_like(h0)
    for c in range(T // k):
        dh = np.zeros_like(h0)
        for t in range((c + 1) * k - 1, c * k - 1, -1):
            dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
            dh = dA[:, t] @ W_h.T
        if c == 0:
            dh0 = dh
    return _grads(X, W_x, W_h, H_prev, dA, dh0)
""")

# wrong: "the entering state is a constant" read as "it is zero": dW_h loses each chunk's first term
wrong("truncation", "entering_state_as_zero_in_dW_h", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0)
    H_prev = H_prev.copy()
    H_prev[:, k::k] = 0.0
    return _grads(X, W_x, W_h, H_prev, dA, dh)
""")

# wrong: chunks right, but dh0 taken from the full (untruncated) BPTT
wrong("truncation", "dh0_from_full_bptt", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0)
    grads = _grads(X, W_x, W_h, H_prev, dA, dh)
    grads["dh0"] = rnn_backward(X, W_x, W_h, b, dHs, h0)["dh0"]
    return grads
""")

# wrong: k read as the NUMBER of chunks
wrong("truncation", "k_as_number_of_chunks", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    size = max(1, -(-T // k))
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % size == 0 and t > 0:
            dh = np.zeros_like(h0)
    return _grads(X, W_x, W_h, H_prev, dA, dh)
""")

# wrong: memoises on (shapes, k, h0 given?) and returns old gradients for new numbers
wrong("truncation", "memo_by_shape_and_k", """
_memo = {}
_reference_truncated = truncated_rnn_backward
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    key = (X.shape, W_h.shape, int(k), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_truncated(X, W_x, W_h, b, dHs, k, h0)
    return {name: g.copy() for name, g in _memo[key].items()}
""")

# wrong: caches the forward states on id(X); a new X that reuses the id gets old states
wrong("truncation", "forward_cached_by_id", _TRUNC_FORWARD + """
_cache = {}
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    if id(X) not in _cache:
        _cache[id(X)] = _states(X, W_x, W_h, b, h0)
    h0, Hs, H_prev = _cache[id(X)]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0)
    return _grads(X, W_x, W_h, H_prev, dA, dh)
""")

# wrong: renames the fixed parameter k (a caller passing k=... by keyword gets a TypeError)
wrong("truncation", "renamed_parameter_k", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, chunk, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % chunk == 0 and t > 0:
            dh = np.zeros_like(h0)
    return _grads(X, W_x, W_h, H_prev, dA, dh)
""")

# right: rnn_backward per chunk, the entering state passed as that chunk's (constant) h0
right("truncation", "rnn_backward_per_chunk", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        entering = h0 if start == 0 else Hs[:, start - 1]
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering)
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dW_x", "dW_h", "db"):
            out[name] = out[name] + g[name]
        if start == 0:
            out["dh0"] = g["dh0"]
    return out
""")

# right: the carried gradient is dropped at the TOP of the loop when t is the last step of a chunk
right("truncation", "reset_at_chunk_end", _TRUNC_FORWARD + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _states(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        if (t + 1) % k == 0:
            dh = np.zeros_like(h0)
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return _grads(X, W_x, W_h, H_prev, dA, dh)
""")

# right: chunk ids compared with integer division, plain loops and np.outer-free matmuls
right("truncation", "chunk_id_comparison", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    dh0 = np.zeros((B, H))
    for s in range(T):
        dh = dHs[:, s].copy()
        for t in range(s, -1, -1):
            if t // k != s // k:
                break
            da = dh * (1 - Hs[:, t] ** 2)
            prev = Hs[:, t - 1] if t > 0 else h0
            dX[:, t] += da @ W_x.T
            dW_x += X[:, t].T @ da
            dW_h += prev.T @ da
            db += da.sum(axis=0)
            dh = da @ W_h.T
            if t == 0:
                dh0 += dh
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
""")


# =====================================================================================
# gradient_flow: spectral_radius(W), hidden_grad_norms(X, W_x, W_h, b, h0=None)
# =====================================================================================

# wrong: abs() of the "largest" complex eigenvalue (complex max compares real parts first)
wrong("gradient_flow", "abs_of_complex_max", """
def spectral_radius(W):
    return float(np.abs(np.linalg.eigvals(W).max()))
""")

# wrong: power iteration with the norm ratio; no convergence for complex or +/- pairs
wrong("gradient_flow", "power_iteration", """
def spectral_radius(W):
    v = np.ones(W.shape[0]) / np.sqrt(W.shape[0])
    ratio = 0.0
    for _ in range(500):
        w = W @ v
        ratio = np.linalg.norm(w)
        if ratio == 0:
            return 0.0
        v = w / ratio
    return float(ratio)
""")

# wrong: np.squeeze on the result: T == 1 gives a 0-d array instead of shape (1,)
wrong("gradient_flow", "norms_squeezed", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dh = np.ones(Hs[:, -1].shape)
    norms = []
    for t in range(Hs.shape[1] - 1, -1, -1):
        norms.append(np.linalg.norm(dh))
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return np.squeeze(np.array(norms[::-1]))
""")

# wrong: np.linalg.norm(dh, 2) of a (B, H) matrix is its largest singular value (right only at T-1)
wrong("gradient_flow", "matrix_ord_2_norm", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh, 2)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return out
""")

# wrong: backpropagates through W_h instead of W_h.T
wrong("gradient_flow", "W_h_not_transposed", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h
    return out
""")

# wrong: the norm is taken after step t's own tanh derivative (dL/da_t, not dL/dh_t)
wrong("gradient_flow", "norm_after_tanh_derivative", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H))
    for t in reversed(range(T)):
        da = dh * (1 - Hs[:, t] ** 2)
        out[t] = np.linalg.norm(da)
        dh = da @ W_h.T
    return out
""")

# wrong: returns numpy.float32, not a float (and single precision)
wrong("gradient_flow", "radius_float32", """
def spectral_radius(W):
    return np.abs(np.linalg.eigvals(W)).max().astype(np.float32)
""")

# wrong: memoises the norms on (shapes, h0 given?) and returns old norms for new numbers
wrong("gradient_flow", "norms_memo_by_shape", """
_memo = {}
_reference_norms = hidden_grad_norms
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    key = (X.shape, W_h.shape, h0 is None)
    if key not in _memo:
        _memo[key] = _reference_norms(X, W_x, W_h, b, h0)
    return _memo[key].copy()
""")

# wrong: caches eigenvalues on id(W); a new matrix that reuses the id gets old eigenvalues
wrong("gradient_flow", "eigvals_cached_by_id", """
_eig = {}
def spectral_radius(W):
    if id(W) not in _eig:
        _eig[id(W)] = np.linalg.eigvals(W)
    return float(np.max(np.abs(_eig[id(W)])))
""")

# right: the radius of W @ W is the square of the radius of W
right("gradient_flow", "radius_from_square", """
def spectral_radius(W):
    return float(np.sqrt(np.max(np.abs(np.linalg.eigvals(W @ W)))))
""")

# right: builtin max over Python complex numbers, returns numpy.float64
right("gradient_flow", "radius_builtin_max", """
def spectral_radius(W):
    return max(abs(complex(ev)) for ev in np.linalg.eig(W)[0]) * np.float64(1.0)
""")

# right: dL/dh_t is the dh0 of rnn_backward over the rest of the sequence, started from h_t
right("gradient_flow", "norms_from_rnn_backward_suffixes", """
from bptt import rnn_backward
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.empty(T)
    out[T - 1] = np.sqrt(B * H)
    for t in range(T - 1):
        rest = X[:, t + 1:]
        dHs = np.zeros((B, T - 1 - t, H))
        dHs[:, -1] = 1.0
        out[t] = np.linalg.norm(rnn_backward(rest, W_x, W_h, b, dHs, h0=Hs[:, t])["dh0"])
    return out
""")

# right: norms collected backwards in a list and returned as a reversed view
right("gradient_flow", "norms_reversed_view", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    g = np.ones_like(Hs[:, 0])
    back = []
    for t in range(Hs.shape[1] - 1, -1, -1):
        back.append(math.sqrt(float(np.vdot(g, g))))
        g = np.dot(g * (1 - Hs[:, t] ** 2), W_h.T)
    return np.array(back)[::-1]
""")

# right: per-example Jacobians chained with einsum, norms summed in squares over the batch
right("gradient_flow", "per_example_jacobians", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    G = np.ones((B, H))
    sq = [0.0] * T
    for t in range(T - 1, -1, -1):
        sq[t] = float(np.einsum("bh,bh->", G, G))
        J = np.einsum("ij,bj->bij", W_h, 1 - Hs[:, t] ** 2)   # d h_t / d h_(t-1), row-vector form
        G = np.einsum("bij,bj->bi", J, G)
    return np.sqrt(np.array(sq))
""")


# =====================================================================================
# birnn: birnn_forward(X, lengths, fwd, bwd, h0=None) -> (B, T, 2H)
# =====================================================================================

# wrong: cleans the padding of the caller's X in place (X[~mask] = 0)
wrong("birnn", "cleans_X_in_place", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    X[~mask] = 0.0
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: memoises on (shapes, lengths, h0 given?) and returns an old result for new data
wrong("birnn", "memo_by_shape_and_lengths", """
_memo = {}
_reference_birnn = birnn_forward
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    key = (X.shape, fwd[1].shape, tuple(np.asarray(lengths).tolist()), h0 is None)
    if key not in _memo:
        _memo[key] = _reference_birnn(X, lengths, fwd, bwd, h0)
    return _memo[key].copy()
""")

# wrong: the forward half starts from zeros even when h0 is given
wrong("birnn", "forward_ignores_h0", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: bwd drives the forward half and fwd the backward half
wrong("birnn", "parameters_swapped", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *bwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *fwd, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: stores the backward state from BEFORE it consumes x_t
wrong("birnn", "backward_state_before_update", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    W_x, W_h, b = bwd
    H_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(int(lengths[i]) - 1, -1, -1):
            H_b[i, t] = h
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
    return np.concatenate([H_f, H_b], axis=-1)
""")

# wrong: own passes that replace only NaN and freeze by multiplying: inf padding leaks NaN
wrong("birnn", "isnan_clean_multiply", """
def _masked_pass(X, lengths, W_x, W_h, b, h0):
    B, T, _ = X.shape
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)[:, :, None]
    Xc = np.where(np.isnan(X), 0.0, X)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    with np.errstate(all="ignore"):
        for t in range(T):
            h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
            h = m[:, t] * h_new + (1 - m[:, t]) * h
            Hs[:, t] = m[:, t] * h_new
    return Hs
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f = _masked_pass(X, lengths, *fwd, h0)
    H_r = _masked_pass(reverse_valid(X, lengths), lengths, *bwd, h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# right: one row at a time, explicit loops in both directions
right("birnn", "row_loops", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        start = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        W_x, W_h, b = fwd
        h = start
        for t in range(L):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, :H] = h
        W_x, W_h, b = bwd
        h = start
        for t in range(L - 1, -1, -1):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out[i, t, H:] = h
    return out
""")

# right: np.flip of each valid part into a fresh array, halves written into a preallocated output
right("birnn", "flip_valid_parts", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    X_rev = np.zeros_like(X)
    for i, L in enumerate(np.asarray(lengths)):
        X_rev[i, :L] = np.flip(X[i, :L], axis=0)
    out = np.empty((B, T, 2 * H))
    out[..., :H] = rnn_forward_masked(X, lengths, *fwd, h0=h0)[0]
    H_r = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)[0]
    for i, L in enumerate(np.asarray(lengths)):
        out[i, :, H:] = 0.0
        out[i, :L, H:] = H_r[i, :L][::-1]
    return out
""")

# right: reversal as a gather with take_along_axis
right("birnn", "take_along_axis_reversal", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    T = X.shape[1]
    L = np.asarray(lengths)[:, None]
    t = np.arange(T)[None, :]
    src = np.where(t < L, L - 1 - t, t)[:, :, None]
    gather = lambda A: np.take_along_axis(A, np.broadcast_to(src, src.shape[:2] + A.shape[2:]), axis=1)
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(gather(X), lengths, *bwd, h0=h0)
    return np.concatenate((H_f, gather(H_r)), axis=2)
""")


# =====================================================================================
# second red-team pass: inputs where the mistake only shows sometimes (B, T, H or d of 1,
# lengths == T, h0 given, axis 0 of 3-D arrays, d == H, k == 1, ...), and unusual
# correct styles. None of these is a variation of a case above or of solutions/mistakes/.
# =====================================================================================

_BPTT_STATES_2 = """
def _fwd(X, W_x, W_h, b, h0):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    return h0, Hs, np.concatenate([h0[:, None], Hs[:, :-1]], axis=1)
"""

_TRUNC_HELPERS_2 = _BPTT_STATES_2 + """
def _grads(X, W_x, H_prev, dA, dh0):
    return {"dX": dA @ W_x.T, "dh0": dh0, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
"""

# ---------------------------------------------------------------- step (second pass)

# wrong only when H == 1 and B > 1: squeeze + atleast_2d turns (B, 1) into (1, B)
wrong("step", "squeeze_then_atleast_2d", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # "clean up" stray unit axes, then make sure the result is 2-D again
    return np.atleast_2d(np.squeeze(np.tanh(x_t @ W_x + h_prev @ W_h + b)))
""")

# wrong only when d == H: a square W_x is taken for the column form and transposed
wrong("step", "guesses_column_form_when_square", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # accept both conventions: a (H, d) matrix means the column form W_x x_t
    if W_x.shape[0] == W_x.shape[1] == W_h.shape[0]:
        W_x = W_x.T
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
""")

# wrong only when B == d: x_t is taken for a column-form (d, B) input and transposed
wrong("step", "transposes_x_when_B_equals_d", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # "x_t may come as a column vector (d, B)": transpose when the first axis has d entries
    if x_t.shape[0] == W_x.shape[0]:
        x_t = x_t.T
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
""")

# wrong, right only when B == 1: the batch index is dropped from the einsum output, so rows are summed
wrong("step", "einsum_sums_over_batch", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # the output index 'b' forgotten on the right-hand side: the batch is summed, then broadcast back
    z = np.einsum("bd,dh->h", x_t, W_x) + np.einsum("bk,kh->h", h_prev, W_h) + b
    return np.tanh(np.broadcast_to(z, h_prev.shape)).copy()
""")

# wrong: tanh rebuilt as sqrt(1 - sech^2): |tanh z|, wrong for every negative pre-activation
wrong("step", "tanh_from_cosh_loses_sign", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore"):
        return np.sqrt(1.0 - 1.0 / np.cosh(z) ** 2)      # |tanh z|: the sign is lost
""")

# wrong only for large pre-activations: clipping at +/-10 before a hand-written tanh (tanh(10) = 1 - 4e-9)
wrong("step", "manual_tanh_clipped_at_10", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.clip(x_t @ W_x + h_prev @ W_h + b, -10.0, 10.0)   # "avoid overflow" (tanh(10) = 1 - 4e-9)
    e = np.exp(2.0 * z)
    return (e - 1.0) / (e + 1.0)
""")

# right: [x_t, h_prev] @ vstack([W_x, W_h]): the combined-weight form
right("step", "stacked_weight_matrix", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    W = np.vstack([W_x, W_h])                    # (d + H, H)
    return np.tanh(np.hstack([x_t, h_prev]) @ W + b)
""")

# right: seed 004's column form W^T x per row, a Python list of rows, then np.array
right("step", "rows_as_column_vectors_list", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    rows = []
    for x, h in zip(x_t, h_prev):
        rows.append(np.tanh(W_x.T @ x + W_h.T @ h + b))   # seed 004's column form, one row at a time
    return np.array(rows).reshape(h_prev.shape)
""")

# right: functools.reduce over tensordot terms, tanh from expm1 (clipped at +/-30, harmless)
right("step", "reduce_and_expm1_tanh", """
import functools
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = functools.reduce(np.add, [np.tensordot(x_t, W_x, axes=1), np.tensordot(h_prev, W_h, axes=1), b])
    z = np.clip(z, -30.0, 30.0)
    m = np.expm1(-2.0 * np.abs(z))
    return np.sign(z) * (-m / (2.0 + m))
""")

# right: an extra optional parameter with the right default
right("step", "extra_optional_activation_parameter", """
def rnn_step(x_t, h_prev, W_x, W_h, b, activation=np.tanh):
    return activation(x_t @ W_x + h_prev @ W_h + b)
""")

# right: tanh z = 2 sigmoid(2z) - 1 (overflow warning only where the result is exactly -1)
right("step", "tanh_via_sigmoid_identity", """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = x_t @ W_x + h_prev @ W_h + b
    with np.errstate(over="ignore"):
        return 2.0 / (1.0 + np.exp(-2.0 * z)) - 1.0      # tanh z = 2 sigmoid(2z) - 1
""")

# ---------------------------------------------------------------- scalar (second pass)

# wrong only when w_x == 0: `w_x or 1.0` replaces an explicit 0.0 by the default
wrong("scalar", "w_x_falsy_default", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    w_x = w_x or 1.0            # "None means the default"; 0.0 is replaced too
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong only when w_h == 0: `if not w_h: w_h = 0.5`
wrong("scalar", "w_h_falsy_default", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    if not w_h:
        w_h = 0.5
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong: keyword-only parameters: the positional call scalar_rnn(seq, 2.0, 0.9, -0.5) fails
wrong("scalar", "keyword_only_parameters", """
def scalar_rnn(sequence, *, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong: a 0.0 element is skipped as padding (the state is kept), wrong on the seed's [1, 0, -1]
wrong("scalar", "zero_treated_as_padding", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        if value != 0:                      # "0 is padding": the state is kept as it is
            state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong only for one-element sequences: returns the float instead of a one-item list
wrong("scalar", "unwraps_single_state", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states[0] if len(states) == 1 else states
""")

# wrong only when b != 0: the initial state is b instead of 0
wrong("scalar", "starts_from_bias", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = b, []                   # the initial state taken as b instead of 0
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states
""")

# wrong only for the empty sequence: returns [0.0] instead of []
wrong("scalar", "empty_gives_initial_state", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state, states = 0.0, []
    for value in sequence:
        state = math.tanh(w_x * value + w_h * state + b)
        states.append(state)
    return states or [0.0]
""")

# right: a list comprehension with an assignment expression carrying the state
right("scalar", "walrus_comprehension", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    state = 0.0
    return [state := math.tanh(w_x * v + w_h * state + b) for v in sequence]
""")

# right: functools.reduce that grows the list; float(np.tanh(...)) items
right("scalar", "reduce_into_list", """
import functools
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def step(states, v):
        prev = states[-1] if states else 0.0
        return states + [float(np.tanh(w_x * v + w_h * prev + b))]
    return functools.reduce(step, sequence, [])
""")

# right: a generator over np.float64 arithmetic, .item() to Python floats
right("scalar", "generator_and_item", """
def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    def states():
        s = np.float64(0.0)
        for v in sequence:
            s = np.tanh(np.float64(w_x) * v + np.float64(w_h) * s + b)
            yield s.item()
    return list(states())
""")

# ---------------------------------------------------------------- forward (second pass)

# wrong only when H == 1, B > 1 and h0 is given: np.squeeze(h0) makes it (B,) and the matmul fails
wrong("forward", "squeezed_h0", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.squeeze(np.asarray(h0))   # "accept (H,) or (B, H)"
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong, right only when B == 1: h0[0] is tiled over the batch ("one initial state")
wrong("forward", "h0_first_row_for_batch", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.tile(h0[0], (B, 1))   # "one initial state for the batch"
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: Hs allocated with np.zeros_like(X): (B, T, d), right only when d == H
wrong("forward", "output_buffer_like_X", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    Hs = np.zeros_like(X)                   # (B, T, d), not (B, T, H)
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# wrong: the pre-activation is carried from step to step and tanh is applied only to the output
wrong("forward", "carries_preactivation", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    a = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        a = X[:, t] @ W_x + a @ W_h + b     # the pre-activation is carried, tanh only on the output
        Hs[:, t] = np.tanh(a)
    return Hs
""")

# wrong: X read as time-major (T, B, d)
wrong("forward", "time_major_input", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    T, B, _ = X.shape                       # reads X as (T, B, d)
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    Hs = np.zeros((T, B, H))
    for t in range(T):
        h = np.tanh(X[t] @ W_x + h @ W_h + b)
        Hs[t] = h
    return Hs.transpose(1, 0, 2)
""")

# wrong: np.dstack of the states gives (B, H, T); same shape as (B, T, H) when T == H
wrong("forward", "dstack_without_transpose", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    return np.dstack(states)                # (B, H, T)
""")

# right: np.dstack then transpose (0, 2, 1)
right("forward", "dstack_then_transpose", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        states.append(h)
    return np.transpose(np.dstack(states), (0, 2, 1))
""")

# right: recursion over t instead of a loop
right("forward", "recursive_over_time", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    start = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    def run(t, h):
        if t == T:
            return []
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        return [h] + run(t + 1, h)
    return np.stack(run(0, start), axis=1).reshape(B, T, W_h.shape[0])
""")

# right: h0 None -> one zero row (1, H) that broadcasts over the batch at step 0
right("forward", "zero_row_broadcast_h0", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((1, H)) if h0 is None else h0      # one zero row, broadcast over the batch at step 0
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        Hs[:, t] = h
    return Hs
""")

# right: np.column_stack of the states, reshaped to (B, T, H)
right("forward", "column_stack_reshape", """
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else h0
    cols = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        cols.append(h)
    return np.column_stack(cols).reshape(B, T, H)   # [h_0 | h_1 | ...] row by row
""")

# ---------------------------------------------------------------- params (second pass)

# wrong only for big layers: sizes summed in int32 (the Windows default int of NumPy < 2) overflow past 2**31
wrong("params", "int32_accumulator", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    sizes = []
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        sizes += D * [n_in * H, H * H, nb * H]
    if output_size > 0:
        sizes += [D * H * output_size, output_size]
    return int(np.array(sizes, dtype=np.int32).sum(dtype=np.int32))   # a Windows default int
""")

# wrong: the head's bias counted with H entries instead of output_size
wrong("params", "head_bias_sized_hidden", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = sum(D * ((input_size if l == 0 else D * H) * H + H * H + nb * H) for l in range(num_layers))
    if output_size > 0:
        total += D * H * output_size + H
    return total
""")

# wrong only when output_size == 1: `if output_size > 1`
wrong("params", "output_size_one_means_no_head", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = sum(D * ((input_size if l == 0 else D * H) * H + H * H + nb * H) for l in range(num_layers))
    if output_size > 1:
        total += D * H * output_size + output_size
    return total
""")

# wrong: the bias vector(s) counted once per layer, not per direction
wrong("params", "bias_shared_by_directions", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        total += D * (n_in * H + H * H) + nb * H
    if output_size > 0:
        total += D * H * output_size + output_size
    return total
""")

# wrong: layer 0 read as input_size * directions
wrong("params", "first_layer_input_doubled", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = (input_size if layer == 0 else H) * D
        total += D * (n_in * H + H * H + nb * H)
    if output_size > 0:
        total += D * H * output_size + output_size
    return total
""")

# wrong: the head added inside the layer loop (once per layer)
wrong("params", "head_counted_per_layer", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    H, D, nb = hidden_size, 2 if bidirectional else 1, 2 if double_bias else 1
    total = 0
    for layer in range(num_layers):
        n_in = input_size if layer == 0 else D * H
        total += D * (n_in * H + H * H + nb * H)
        if output_size > 0:
            total += D * H * output_size + output_size
    return total
""")

# right: recursion over the layers, bool arithmetic for the multipliers
right("params", "recursive_layers", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 1 + bool(bidirectional)
    def layers(n, n_in):
        if n == 0:
            return 0
        return D * (n_in * hidden_size + hidden_size ** 2 + (1 + bool(double_bias)) * hidden_size) + layers(n - 1, D * hidden_size)
    head = (D * hidden_size + 1) * output_size if output_size > 0 else 0
    return layers(num_layers, input_size) + head
""")  # noqa: E501 -- a student's code, as written

# right: closed form in floats, round() gives a Python int
right("params", "float_arithmetic_rounded", """
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2.0 if bidirectional else 1.0
    nb = 2.0 if double_bias else 1.0
    H = float(hidden_size)
    total = D * (input_size * H + H * H + nb * H) + (num_layers - 1) * D * (D * H * H + H * H + nb * H)
    if output_size > 0:
        total += D * H * output_size + output_size
    return round(total)                      # round() of a float is a Python int
""")

# right: functools.lru_cache on a pure function, functools.reduce over the layer inputs
right("params", "lru_cached_reduce", """
import functools
@functools.lru_cache(maxsize=None)
def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,
                     bidirectional=False, double_bias=False):
    D = 2 if bidirectional else 1
    ins = [input_size] + [D * hidden_size] * (num_layers - 1)
    per_layer = lambda n_in: D * (n_in * hidden_size + hidden_size * hidden_size + hidden_size * (2 if double_bias else 1))
    total = functools.reduce(lambda acc, n_in: acc + per_layer(n_in), ins, 0)
    return total + (output_size > 0) * (D * hidden_size * output_size + output_size)
""")  # noqa: E501 -- a student's code, as written

# ---------------------------------------------------------------- masking (second pass)

# wrong: pack_padded_sequence style: rows sorted by length, then 'unsorted' with the order itself instead of
# its inverse; right whenever the sort permutation is its own inverse
wrong("masking", "packed_sort_unsorted_with_order", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # like pack_padded_sequence: sort rows by length (longest first), run only the active prefix of
    # rows at each step, then undo the sort -- with the sort order itself instead of its inverse
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    order = np.argsort(-lengths, kind="stable")
    Xs, Ls = X[order], lengths[order]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)[order]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        n = int(np.sum(Ls > t))
        if n == 0:
            break
        h[:n] = np.tanh(Xs[:n, t] @ W_x + h[:n] @ W_h + b)
        Hs[:n, t] = h[:n]
    return Hs[order], h[order]
""")

# wrong only for length 0: row L-1 of np.tril(ones), and row -1 is all True
wrong("masking", "mask_from_tril_rows", """
def sequence_mask(lengths, T):
    # row L-1 of a lower-triangular matrix has L leading ones; for L == 0, row -1 is all ones
    return np.tril(np.ones((T, T), dtype=bool))[np.asarray(lengths) - 1]
""")

# wrong only when every row is padded: the mask is lengths.max() wide, T is ignored
wrong("masking", "mask_width_from_max_length", """
def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(lengths.max())[None, :] < lengths[:, None]     # T ignored
""")

# wrong only for rows with length == T: end marker at min(L, T-1) to dodge the IndexError
wrong("masking", "mask_end_marker_clipped", """
def sequence_mask(lengths, T):
    # mark the first padded position, then cumsum; np.minimum avoids an IndexError for L == T
    lengths = np.asarray(lengths)
    marks = np.zeros((len(lengths), T), dtype=int)
    marks[np.arange(len(lengths)), np.minimum(lengths, T - 1)] = 1
    return np.cumsum(marks, axis=1) == 0
""")

# wrong: PyTorch ignore_index habit: targets >= 0 decide which positions count, lengths unused
wrong("masking", "ce_ignore_index_from_targets", """
def masked_cross_entropy(logits, targets, lengths):
    # PyTorch habit: ignore_index=-1 decides which positions count, lengths are not used
    targets = np.asarray(targets)
    valid = targets >= 0
    if not valid.any():
        return 0.0
    logp = log_softmax(np.where(valid[..., None], logits, 0.0), axis=-1)
    t = np.where(valid, targets, 0)
    nll = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    return float(nll[valid].mean())
""")

# wrong: summed NLL divided by the number of sequences instead of the number of valid tokens
wrong("masking", "ce_divided_by_sequences", """
def masked_cross_entropy(logits, targets, lengths):
    mask = sequence_mask(lengths, logits.shape[1])
    if not mask.any():
        return 0.0
    logp = log_softmax(logits[mask], axis=-1)
    t = np.asarray(targets)[mask]
    return float(-logp[np.arange(len(t)), t].sum() / len(lengths))   # per sequence, not per token
""")

# wrong only for length 0: argmax of the reversed mask gives T-1 for an all-False row
wrong("masking", "last_valid_reversed_argmax_no_guard", """
def last_valid_state(Hs, lengths):
    B, T, H = Hs.shape
    m = sequence_mask(lengths, T)
    idx = T - 1 - np.argmax(m[:, ::-1], axis=1)      # last True per row; a row without True gives T-1
    return Hs[np.arange(B), idx]
""")

# wrong: pooled sum divided with // (floor division)
wrong("masking", "mean_pool_floor_division", """
def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    m = sequence_mask(lengths, Hs.shape[1])
    total = np.where(m[..., None], Hs, 0.0).sum(axis=1)
    return total // np.maximum(lengths, 1)[:, None]      # // out of integer habit
""")

# right: np.nan_to_num(posinf=neginf=0) first, then masking by multiplication is safe
right("masking", "nan_to_num_then_multiplicative_mask", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    m = (np.arange(T)[None, :] < np.asarray(lengths)[:, None]).astype(float)[:, :, None]
    Xc = np.nan_to_num(X, nan=0.0, posinf=0.0, neginf=0.0) * m      # every padded value is 0 before any arithmetic
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h_new = np.tanh(Xc[:, t] @ W_x + h @ W_h + b)
        h = m[:, t] * h_new + (1.0 - m[:, t]) * h
        Hs[:, t] = m[:, t] * h_new
    return Hs, h
""")

# right: pack_padded_sequence style with the correct inverse permutation argsort(order)
right("masking", "packed_sort_with_inverse_permutation", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    order = np.argsort(-lengths, kind="stable")
    inverse = np.argsort(order)
    Xs, Ls = X[order], lengths[order]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)[order]
    Hs = np.zeros((B, T, H))
    for t in range(T):
        n = int(np.sum(Ls > t))
        if n == 0:
            break
        h[:n] = np.tanh(Xs[:n, t] @ W_x + h[:n] @ W_h + b)
        Hs[:n, t] = h[:n]
    return Hs[inverse], h[inverse]
""")

# right: a 1 at position L of a (B, T + 1) array, cumsum == 0, first T columns
right("masking", "mask_end_marker_cumsum", """
def sequence_mask(lengths, T):
    lengths = np.asarray(lengths)
    marks = np.zeros((len(lengths), T + 1), dtype=np.int64)
    marks[np.arange(len(lengths)), lengths] = 1
    return (np.cumsum(marks, axis=1) == 0)[:, :T]
""")

# right: cumsum over time read at L-1 (padding only comes later), guarded for L == 0
right("masking", "mean_pool_cumsum_gather", """
def masked_mean_pool(Hs, lengths):
    lengths = np.asarray(lengths)
    B, T, H = Hs.shape
    if T == 0:
        return np.zeros((B, H))
    with np.errstate(invalid="ignore", over="ignore"):
        csum = np.cumsum(Hs, axis=1)           # position L-1 sums only valid states; padding comes later
    picked = csum[np.arange(B), np.clip(lengths - 1, 0, T - 1)]
    return np.where((lengths > 0)[:, None], picked / np.maximum(lengths, 1)[:, None], 0.0)
""")

# right: np.ma masked mean, filled with 0 for empty rows
right("masking", "mean_pool_numpy_ma", """
def masked_mean_pool(Hs, lengths):
    m = sequence_mask(lengths, Hs.shape[1])
    pooled = np.ma.masked_array(np.where(m[..., None], Hs, 0.0),
                                mask=np.broadcast_to(~m[..., None], Hs.shape)).mean(axis=1)
    return np.ma.filled(pooled, 0.0).astype(np.float64)
""")

# right: the loop stops at lengths.max(): later steps are padding for every row
right("masking", "forward_loop_to_max_length", """
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(int(lengths.max()) if B else 0):   # nothing is valid beyond the longest row
        v = (lengths > t)[:, None]
        h_new = np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(v, h_new, h)
        Hs[:, t] = np.where(v, h_new, 0.0)
    return Hs, h
""")

# right: log-sum-exp per token, per-row sums with np.bincount, divided by lengths.sum()
right("masking", "ce_bincount_token_mean", """
def masked_cross_entropy(logits, targets, lengths):
    lengths = np.asarray(lengths)
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    n = int(lengths.sum())
    if n == 0:
        return 0.0
    z = logits[mask]
    lse = np.logaddexp.reduce(z, axis=-1)
    t = np.asarray(targets)[mask]
    rows = np.bincount(np.repeat(np.arange(B), lengths), weights=lse - z[np.arange(n), t], minlength=B)
    return float(rows.sum() / n)
""")

# right: fast path when no row is padded: h_last returned as the view Hs[:, -1]
right("masking", "h_last_view_when_rows_full", """
_reference_fm = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    lengths = np.asarray(lengths)
    if len(lengths) and X.shape[1] and np.all(lengths == X.shape[1]):
        from rnn_forward import rnn_forward
        Hs = rnn_forward(X, W_x, W_h, b, h0)
        return Hs, Hs[:, -1]                 # a view into Hs
    return _reference_fm(X, lengths, W_x, W_h, b, h0)
""")

# right: fast path when every length is 0: h0 itself returned as h_last (not modified)
right("masking", "returns_h0_itself_when_all_empty", """
_reference_fm = rnn_forward_masked
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    if h0 is not None and not np.any(np.asarray(lengths)):
        return np.zeros((B, T, H)), h0           # nothing to run: the start state is the final state
    return _reference_fm(X, lengths, W_x, W_h, b, h0)
""")

# right: mask built with lengths.max() instead of T, logits cropped to match: right
right("masking", "ce_cropped_to_longest_row", """
def masked_cross_entropy(logits, targets, lengths):
    lengths = np.asarray(lengths)
    L = int(lengths.max()) if lengths.size else 0
    if L == 0:
        return 0.0
    mask = sequence_mask(lengths, L)                  # the columns after the longest row are all padding
    z = logits[:, :L][mask]
    t = np.asarray(targets)[:, :L][mask]
    logp = z - z.max(axis=1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
    return float(-np.mean(logp[np.arange(len(t)), t]))
""")

# right: nested Python lists of bools from int() lengths, then np.array
right("masking", "mask_rows_from_python_ints", """
def sequence_mask(lengths, T):
    rows = [[t < n for t in range(int(T))] for n in map(int, list(lengths))]
    return np.array(rows, dtype=bool).reshape(len(rows), int(T))
""")

# ---------------------------------------------------------------- readout (second pass)

# wrong: axis = abs(axis): right for 2-D, wrong for the last axis of a 3-D array
wrong("readout", "softmax_abs_axis", """
def softmax(z, axis=-1):
    axis = abs(axis)                         # "-1 is the last axis", right only for 2-D arrays
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
""")

# wrong: shift by the mean instead of the max: overflows for spread-out logits
wrong("readout", "softmax_mean_shift", """
def softmax(z, axis=-1):
    e = np.exp(z - z.mean(axis=axis, keepdims=True))     # centred, but still overflows for spread-out logits
    return e / e.sum(axis=axis, keepdims=True)
""")

# wrong: np.clip(z, -500, 500) instead of a shift: different logits become equal
wrong("readout", "softmax_clip_instead_of_shift", """
def softmax(z, axis=-1):
    e = np.exp(np.clip(z, -500.0, 500.0))
    return e / e.sum(axis=axis, keepdims=True)
""")

# wrong: np.moveaxis(axis -> -1) applied twice instead of undone: right for 2-D and the middle axis of 3-D,
# wrong for axis 0 of 3-D
wrong("readout", "softmax_moveaxis_twice", """
def softmax(z, axis=-1):
    w = np.moveaxis(z, axis, -1)
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    return np.moveaxis(e / e.sum(axis=-1, keepdims=True), axis, -1)   # the same move again, not its inverse
""")

# wrong: keepdims only for the last axis: left-broadcasting works for axis 0 and 2-D, not a middle axis
wrong("readout", "softmax_keepdims_only_for_last_axis", """
def softmax(z, axis=-1):
    if axis in (-1, z.ndim - 1):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    e = np.exp(z - z.max(axis=axis))         # broadcasting from the left is right for axis 0 ...
    return e / e.sum(axis=axis)              # ... and for axis -2 of a 2-D array, not for a middle axis
""")

# wrong: causal shortcut over the unmasked pass, but length 0 reads Hs[i, -1]
wrong("readout", "probs_unmasked_forward_no_empty_guard", """
from rnn_forward import rnn_forward
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    lengths = np.asarray(lengths)
    X0 = np.where(np.isfinite(X), X, 0.0)
    Hs = rnn_forward(X0, W_x, W_h, b)        # causal: Hs[i, L-1] never sees the padding
    h_last = Hs[np.arange(len(lengths)), lengths - 1]    # L == 0 reads Hs[i, -1]
    return softmax(h_last @ W_o + b_o)
""")

# wrong only when B == 1 (shape (C,)) or C == 1 (softmax over the batch): np.squeeze on the logits
wrong("readout", "probs_squeezed_logits", """
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    _, h_last = rnn_forward_masked(X, lengths, W_x, W_h, b)
    logits = np.squeeze(h_last @ W_o + b_o)        # "drop the stray axes"
    return softmax(logits, axis=-1)
""")

# right: unmasked rnn_forward (causal: padding only spoils states after L-1) plus a length-0 guard
right("readout", "probs_unmasked_forward_with_guard", """
from rnn_forward import rnn_forward
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    H = W_h.shape[0]
    with np.errstate(all="ignore"):
        Hs = rnn_forward(X, W_x, W_h, b)     # padding (NaN, inf) only spoils states after L-1
    if T == 0:
        h_last = np.zeros((B, H))
    else:
        picked = Hs[np.arange(B), np.clip(lengths - 1, 0, T - 1)]
        h_last = np.where((lengths > 0)[:, None], picked, 0.0)
    return softmax(h_last @ W_o + b_o)
""")

# right: last_valid_state of the masked pass (zeros for length 0 == h0 here)
right("readout", "probs_last_valid_state_of_masked_pass", """
from masking import last_valid_state
def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    Hs, _ = rnn_forward_masked(X, lengths, W_x, W_h, b)
    return softmax(last_valid_state(Hs, lengths) @ W_o + b_o, axis=1)   # zeros for L == 0, which is h0 here
""")

# right: np.apply_along_axis with a 1-D softmax
right("readout", "softmax_apply_along_axis", """
def softmax(z, axis=-1):
    def one(v):
        e = np.exp(v - v.max())
        return e / e.sum()
    return np.apply_along_axis(one, axis, z)
""")

# right: swapaxes to the end and back, sums re-expanded with [..., None]
right("readout", "softmax_swapaxes", """
def softmax(z, axis=-1):
    w = np.swapaxes(z, axis, -1)
    w = w - np.max(w, axis=-1)[..., None]
    p = np.exp(w) / np.exp(w).sum(axis=-1)[..., None]
    return np.swapaxes(p, axis, -1)
""")

# ---------------------------------------------------------------- bptt (second pass)

# wrong only when H == 1: db = sum(...).squeeze() is 0-d instead of (1,)
wrong("bptt", "db_squeezed", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": np.sum(dA, axis=(0, 1)).squeeze()}
""")

# wrong: dW_h built as dA^T h_prev (transposed)
wrong("bptt", "dW_h_transposed", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->hi", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: dX = dA @ W_x, with W_x.T only after a ValueError: wrong whenever d == H
wrong("bptt", "shape_error_fixed_by_try", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    try:
        dX = dA @ W_x            # "fix the shapes until it runs": right only by accident when d != H
    except ValueError:
        dX = dA @ W_x.T
    return {"dX": dX, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: the gradient passed to h_(t-1) skips the tanh derivative (the local one keeps it)
wrong("bptt", "recurrent_path_skips_tanh_derivative", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        total = dHs[:, t] + dh
        dA[:, t] = total * (1 - Hs[:, t] ** 2)
        dh = total @ W_h.T               # passed back before the tanh derivative
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: only dHs[:, -1] is used ("the loss is on the last state"); right only for sparse upstream
wrong("bptt", "upstream_from_last_step_only", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # "the loss sits on the last state": only dHs[:, -1] is used
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = dHs[:, -1].copy() if X.shape[1] else np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = dh * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: range(T - 1, 0, -1): step 0 is never visited
wrong("bptt", "backward_loop_stops_at_one", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in range(T - 1, 0, -1):        # step 0 is never visited
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# wrong: dW_x computed as (H, d) and transposed only when the shapes disagree: wrong only when d == H
wrong("bptt", "dW_x_transposed_fixed_by_shape", _BPTT_STATES_2 + """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
    dW_x = np.einsum("bth,btd->hd", dA, X)         # (H, d): transposed ...
    if dW_x.shape != W_x.shape:                    # ... and "fixed" only when the shapes disagree
        dW_x = dW_x.T
    return {"dX": dA @ W_x.T, "dh0": dh, "dW_x": dW_x,
            "dW_h": np.einsum("bti,bth->ih", H_prev, dA), "db": dA.sum((0, 1))}
""")

# right: h_(t-1) from np.roll with slot 0 set to h0, tensordot for the sums
right("bptt", "rolled_previous_states_tensordot", """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    H_prev = np.roll(Hs, 1, axis=1)
    if T:
        H_prev[:, 0] = h0
    dA = np.zeros((B, T, H))
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1 - Hs[:, t] ** 2)
        carry = np.dot(dA[:, t], W_h.T)
    return {"dX": np.tensordot(dA, W_x, axes=([2], [1])), "dh0": carry,
            "dW_x": np.tensordot(X, dA, axes=([0, 1], [0, 1])),
            "dW_h": np.tensordot(H_prev, dA, axes=([0, 1], [0, 1])), "db": dA.sum(axis=(0, 1))}
""")

# right: recursion over t, parameter gradients as sums of per-step products
right("bptt", "recursive_backward", """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros((B, T, H))
    def back(t, carry):
        if t < 0:
            return carry
        dA[:, t] = (dHs[:, t] + carry) * (1 - Hs[:, t] ** 2)
        return back(t - 1, dA[:, t] @ W_h.T)
    dh0 = back(T - 1, np.zeros((B, H)))
    prev = [h0] + [Hs[:, t] for t in range(T - 1)]
    return {"dX": dA @ W_x.T, "dh0": dh0,
            "dW_x": sum((X[:, t].T @ dA[:, t] for t in range(T)), np.zeros((d, H))),
            "dW_h": sum((prev[t].T @ dA[:, t] for t in range(T)), np.zeros((H, H))),
            "db": dA.reshape(-1, H).sum(axis=0)}
""")

# right: np.add.at scatter-adds into the gradient buffers
right("bptt", "add_at_accumulation", """
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros((B, T, d))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    g = np.zeros((B, H))
    for t in reversed(range(T)):
        da = (dHs[:, t] + g) * (1.0 - np.square(Hs[:, t]))
        prev = Hs[:, t - 1] if t else h0
        np.add.at(dW_x, (slice(None), slice(None)), X[:, t].T @ da)
        np.add.at(dW_h, (slice(None), slice(None)), prev.T @ da)
        np.add.at(db, np.repeat(np.arange(H)[None, :], B, axis=0), da)     # scatter-add over the batch
        dX[:, t] = da @ W_x.T
        g = da @ W_h.T
    return {"dX": dX, "dh0": g, "dW_x": dW_x, "dW_h": dW_h, "db": db}
""")

# ---------------------------------------------------------------- clipping (second pass)

# wrong: torch's max_norm / (total + 1e-6), clamped at 1
wrong("clipping", "torch_epsilon_in_factor", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.sum(g * g) for g in grads.values())))
    coef = min(max_norm / (total + 1e-6), 1.0)            # torch.nn.utils.clip_grad_norm_ habit
    return {k: g * coef for k, g in grads.items()}, total
""")

# wrong: sq = instead of sq += : only the last array enters the norm
wrong("clipping", "norm_overwritten_in_loop", """
def clip_by_global_norm(grads, max_norm):
    sq = 0.0
    for g in grads.values():
        sq = np.sum(g ** 2)                 # = instead of +=: only the last array counts
    total = float(np.sqrt(sq))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
""")

# wrong: 1-D arrays are left out of the norm and not scaled
wrong("clipping", "biases_left_out", """
def clip_by_global_norm(grads, max_norm):
    # "biases are not clipped": 1-D arrays stay out of the norm and are returned as they are
    mats = {k: g for k, g in grads.items() if np.ndim(g) > 1}
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in mats.values())))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: (g * scale if k in mats else g.copy()) for k, g in grads.items()}, total
""")

# wrong: the infinity norm (largest |entry|) instead of the L2 norm
wrong("clipping", "max_abs_norm", """
def clip_by_global_norm(grads, max_norm):
    total = float(max(np.max(np.abs(g)) for g in grads.values()))   # the infinity norm
    scale = max_norm / total if total > max_norm else 1.0
    return {k: g * scale for k, g in grads.items()}, total
""")

# wrong: sorted keys zipped with the arrays in insertion order
wrong("clipping", "sorted_keys_zipped_with_values", """
def clip_by_global_norm(grads, max_norm):
    names = sorted(grads)                   # sorted for a stable order ...
    arrays = list(grads.values())           # ... but the arrays stay in insertion order
    total = float(np.sqrt(sum(np.sum(a ** 2) for a in arrays)))
    scale = max_norm / total if total > max_norm else 1.0
    return {k: a * scale for k, a in zip(names, arrays)}, total
""")

# wrong: matrices and vectors clipped as two separate groups
wrong("clipping", "matrices_and_vectors_clipped_apart", """
def clip_by_global_norm(grads, max_norm):
    out = {}
    for group in ([k for k in grads if np.ndim(grads[k]) > 1], [k for k in grads if np.ndim(grads[k]) <= 1]):
        n = float(np.sqrt(sum(np.sum(grads[k] ** 2) for k in group)))
        for k in group:
            out[k] = grads[k] * (max_norm / n if n > max_norm else 1.0)
    total = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    return out, total
""")

# right: `>=` instead of `>`: at equality the factor is 1, nothing changes
right("clipping", "clips_with_ge", """
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    if total >= max_norm and total > 0:      # at equality the factor is 1: nothing changes
        return {k: g * (max_norm / total) for k, g in grads.items()}, total
    return {k: np.array(g, dtype=float) for k, g in grads.items()}, total
""")

# right: math.hypot of per-array norms, factor max_norm / max(total, max_norm)
right("clipping", "hypot_and_max_denominator", """
def clip_by_global_norm(grads, max_norm):
    total = math.hypot(*(float(np.linalg.norm(np.ravel(g))) for g in grads.values()))
    factor = max_norm / max(total, max_norm)
    return {k: factor * g for k, g in grads.items()}, total
""")

# right: functools.reduce over np.vdot, total returned as np.float64
right("clipping", "reduce_sum_np_float64", """
import functools
def clip_by_global_norm(grads, max_norm):
    total = np.sqrt(functools.reduce(lambda acc, g: acc + np.vdot(g, g), grads.values(), 0.0))
    out = {}
    for k in grads:
        out[k] = grads[k] * (max_norm / total) if total > max_norm else grads[k] + 0.0
    return out, np.float64(total)
""")

# ---------------------------------------------------------------- truncation (second pass)

# wrong: chunks of k - 1 steps ("k steps back" read as k - 1 transitions)
wrong("truncation", "chunks_of_k_minus_1", _TRUNC_HELPERS_2 + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    size = max(k - 1, 1)                     # "k steps back" read as k - 1 transitions per chunk
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % size == 0 and t > 0:
            dh = np.zeros_like(h0)
    return _grads(X, W_x, H_prev, dA, dh)
""")

# wrong: each chunk restarted from Hs[:, start] instead of Hs[:, start - 1]
wrong("truncation", "entering_state_off_by_one", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        entering = h0 if start == 0 else Hs[:, start]          # should be Hs[:, start - 1]
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering)
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dW_x", "dW_h", "db"):
            out[name] += g[name]
        if start == 0:
            out["dh0"] = g["dh0"]
    return out
""")

# wrong: every chunk's entering gradient is added into dh0
wrong("truncation", "dh0_summed_over_chunks", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for start in range(0, T, k):
        stop = min(start + k, T)
        entering = h0 if start == 0 else Hs[:, start - 1]
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering)
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dh0", "dW_x", "dW_h", "db"):              # every chunk's entering gradient added to dh0
            out[name] += g[name]
    return out
""")

# wrong: dX and dh0 truncated, but the parameter gradients taken from the full BPTT
wrong("truncation", "parameter_grads_untruncated", _TRUNC_HELPERS_2 + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0_, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0_)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0_)
    grads = _grads(X, W_x, H_prev, dA, dh)
    full = rnn_backward(X, W_x, W_h, b, dHs, h0)          # "the weights should still see everything"
    grads.update(dW_x=full["dW_x"], dW_h=full["dW_h"], db=full["db"])
    return grads
""")

# wrong only for k == 1: k = max(k, 2)
wrong("truncation", "k_at_least_two", _TRUNC_HELPERS_2 + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    k = max(int(k), 2)                       # "a chunk of one step has no recurrence to learn"
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = dA[:, t] @ W_h.T
        if t % k == 0 and t > 0:
            dh = np.zeros_like(h0)
    return _grads(X, W_x, H_prev, dA, dh)
""")

# wrong: at a chunk's last step the whole gradient is zeroed, dHs[:, t] included
wrong("truncation", "boundary_step_loses_own_loss", _TRUNC_HELPERS_2 + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    dh_next = np.zeros_like(h0)
    for t in reversed(range(X.shape[1])):
        dh = dHs[:, t] + dh_next
        if (t + 1) % k == 0 and t + 1 < X.shape[1]:
            dh = np.zeros_like(h0)           # meant to drop the carried gradient, drops dHs[:, t] too
        dA[:, t] = dh * (1 - Hs[:, t] ** 2)
        dh_next = dA[:, t] @ W_h.T
    return _grads(X, W_x, H_prev, dA, dh_next)
""")

# wrong: np.array_split into T // k pieces instead of pieces of k steps
wrong("truncation", "array_split_by_count", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for steps in np.array_split(np.arange(T), max(T // k, 1)):   # T // k pieces, not pieces of k
        start, stop = int(steps[0]), int(steps[-1]) + 1
        entering = h0 if start == 0 else Hs[:, start - 1]
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering)
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dW_x", "dW_h", "db"):
            out[name] += g[name]
        if start == 0:
            out["dh0"] = g["dh0"]
    return out
""")

# right: a boolean table cut[k::k] marks the chunk starts
right("truncation", "cut_table_from_slicing", _TRUNC_HELPERS_2 + """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    h0, Hs, H_prev = _fwd(X, W_x, W_h, b, h0)
    T = X.shape[1]
    cut = np.zeros(T, dtype=bool)
    cut[k::k] = True                         # steps that start a chunk (after the first)
    dA = np.zeros_like(Hs)
    dh = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + dh) * (1 - Hs[:, t] ** 2)
        dh = np.zeros_like(h0) if cut[t] else dA[:, t] @ W_h.T
    return _grads(X, W_x, H_prev, dA, dh)
""")

# right: recursion over the chunks from the end, rnn_backward per chunk
right("truncation", "recursive_chunks_last_first", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    def chunks(stop):
        if stop <= 0:
            return []
        start = ((stop - 1) // k) * k
        entering = h0 if start == 0 else Hs[:, start - 1]
        return [(start, rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=entering))] + chunks(start)
    parts = chunks(T)
    dX = np.concatenate([g["dX"] for _, g in sorted(parts, key=lambda p: p[0])], axis=1) if parts else np.zeros_like(X)
    first = [g for s, g in parts if s == 0]
    return {"dX": dX, "dh0": first[0]["dh0"] if first else np.zeros((B, H)),
            "dW_x": sum(g["dW_x"] for _, g in parts), "dW_h": sum(g["dW_h"] for _, g in parts),
            "db": sum(g["db"] for _, g in parts)}
""")

# right: k >= T fast path; T // k + 1 chunks, the empty one skipped
right("truncation", "fast_path_and_extra_empty_chunk", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    if k >= T:
        return rnn_backward(X, W_x, W_h, b, dHs, h0)
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": None, "dW_x": 0.0, "dW_h": 0.0, "db": 0.0}
    for c in range(T // k + 1):              # one chunk too many when k divides T: it is empty
        start, stop = c * k, min(c * k + k, T)
        if start >= stop:
            continue
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop],
                         h0=h0 if c == 0 else Hs[:, start - 1])
        out["dX"][:, start:stop] = g["dX"]
        out["dW_x"] = out["dW_x"] + g["dW_x"]
        out["dW_h"] = out["dW_h"] + g["dW_h"]
        out["db"] = out["db"] + g["db"]
        if c == 0:
            out["dh0"] = g["dh0"]
    return out
""")

# right: np.array_split at the indices k, 2k, ...
right("truncation", "array_split_at_multiples", """
def truncated_rnn_backward(X, W_x, W_h, b, dHs, k, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    out = {"dX": np.zeros_like(X), "dh0": np.zeros((B, H)), "dW_x": np.zeros_like(W_x),
           "dW_h": np.zeros_like(W_h), "db": np.zeros_like(b)}
    for steps in np.array_split(np.arange(T), np.arange(k, T, k)):
        if len(steps) == 0:
            continue
        start, stop = int(steps[0]), int(steps[-1]) + 1
        g = rnn_backward(X[:, start:stop], W_x, W_h, b, dHs[:, start:stop], h0=h0 if start == 0 else Hs[:, start - 1])
        out["dX"][:, start:stop] = g["dX"]
        for name in ("dW_x", "dW_h", "db"):
            out[name] += g[name]
        if start == 0:
            out["dh0"] = g["dh0"]
    return out
""")

# ---------------------------------------------------------------- gradient_flow (second pass)

# wrong: Gelfand's formula ||W^k||^(1/k) stopped at k = 60
wrong("gradient_flow", "gelfand_formula", """
def spectral_radius(W):
    k = 60                                   # rho(W) = lim ||W^k||^(1/k), stopped at k = 60
    P = np.linalg.matrix_power(W / np.linalg.norm(W), k)
    return float(np.linalg.norm(P) ** (1.0 / k) * np.linalg.norm(W))
""")

# wrong: |re| + |im| instead of the modulus
wrong("gradient_flow", "radius_l1_modulus", """
def spectral_radius(W):
    ev = np.linalg.eigvals(W)
    return float(np.max(np.abs(ev.real) + np.abs(ev.imag)))
""")

# wrong: eigenvalues of |W| (entrywise) instead of W
wrong("gradient_flow", "radius_of_abs_matrix", """
def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvals(np.abs(W)))))
""")

# wrong: L = sum(Hs) (every state) instead of sum(Hs[:, T-1])
wrong("gradient_flow", "norms_loss_on_all_states", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    carry = np.zeros((B, H))
    for t in reversed(range(T)):
        dh = np.ones((B, H)) + carry          # L = sum(Hs): every state gets its own 1
        out[t] = np.linalg.norm(dh)
        carry = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return out
""")

# wrong: sample 0's gradient norm scaled by sqrt(B) stands for the batch
wrong("gradient_flow", "norms_first_sample_only", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones(H)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh) * np.sqrt(B)     # sample 0 stands for the batch
        dh = (dh * (1 - Hs[0, t] ** 2)) @ W_h.T
    return out
""")

# wrong: eigenvalues of W.astype(float32), returned as a float: about 3e-8 relative error
wrong("gradient_flow", "radius_float32_eig", """
def spectral_radius(W):
    return float(np.max(np.abs(np.linalg.eigvals(W.astype(np.float32)))))
""")

# wrong: the backward recursion in float32
wrong("gradient_flow", "norms_float32_backprop", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0).astype(np.float32)
    Wt = W_h.T.astype(np.float32)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = np.ones((B, H), dtype=np.float32)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ Wt
    return out
""")

# wrong: dL/dh_(T-1) taken as h_(T-1) (L = sum(h^2) / 2) instead of ones
wrong("gradient_flow", "upstream_is_last_state", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    out = np.zeros(T)
    dh = Hs[:, -1].copy()                     # dL/dh_(T-1) taken as h_(T-1) (as for L = sum(h^2) / 2)
    for t in reversed(range(T)):
        out[t] = np.linalg.norm(dh)
        dh = (dh * (1 - Hs[:, t] ** 2)) @ W_h.T
    return out
""")

# right: eigenvalues of W.T (the same), modulus with np.hypot
right("gradient_flow", "radius_eigvals_of_transpose_hypot", """
def spectral_radius(W):
    ev = np.linalg.eigvals(np.transpose(W))          # same eigenvalues
    return float(np.max(np.hypot(ev.real, ev.imag)))
""")

# right: np.linalg.eig, .item() to a Python float
right("gradient_flow", "radius_item_from_eig", """
def spectral_radius(W):
    values, _ = np.linalg.eig(W)
    return np.abs(values).max().item()
""")

# right: recursion that appends the norms in time order
right("gradient_flow", "norms_recursive_prepend", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    def go(t, g):
        if t < 0:
            return []
        return go(t - 1, (g * (1 - Hs[:, t] ** 2)) @ W_h.T) + [float(np.sqrt(np.sum(g * g)))]
    return np.array(go(T - 1, np.ones((B, H))), dtype=float)
""")

# right: list.insert(0, ...) and an einsum for the W_h^T product
right("gradient_flow", "norms_list_insert_front", """
def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    g = np.full((B, H), 1.0)
    out = []
    for t in range(T - 1, -1, -1):
        out.insert(0, np.linalg.norm(g.ravel()))
        g = np.einsum("bj,ij->bi", g * (1 - Hs[:, t] ** 2), W_h)
    return np.asarray(out)
""")

# ---------------------------------------------------------------- birnn (second pass)

# wrong: the backward pass starts from the forward pass's final state
wrong("birnn", "backward_starts_from_forward_final", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, h_last = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h_last)   # chained directions
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: valid parts reversed correctly, but re-aligned by flipping the whole row
wrong("birnn", "valid_reversal_then_whole_row_flip", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    H_b = H_r[:, ::-1]                        # re-aligned by flipping the whole row
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return np.concatenate([H_f, np.where(mask[..., None], H_b, 0.0)], axis=-1)
""")

# wrong: bwd unpacked as (W_h, W_x, b)
wrong("birnn", "bwd_tuple_unpacked_wrong_order", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    W_h, W_x, b = bwd                         # (W_x, W_h, b) read in another order
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, W_x, W_h, b, h0=h0)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: the 'backward' half runs forward in time with the bwd weights
wrong("birnn", "backward_pass_not_reversed", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b, _ = rnn_forward_masked(X, lengths, *bwd, h0=h0)        # same direction, other weights
    return np.concatenate([H_f, H_b], axis=-1)
""")

# wrong only with h0 and B > 1: h0[::-1] (batch axis) starts the backward pass
wrong("birnn", "h0_reversed_along_batch", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    h0_rev = None if h0 is None else h0[::-1]                   # "reverse everything for the backward pass"
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0_rev)
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# wrong: every row reversed over lengths.max() steps
wrong("birnn", "reverses_longest_prefix_for_all_rows", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    L = int(lengths.max())
    X_rev = X.copy()
    X_rev[:, :L] = X[:, :L][:, ::-1]           # one length for the whole batch
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    H_b = H_r.copy()
    H_b[:, :L] = H_r[:, :L][:, ::-1]
    mask = np.arange(X.shape[1])[None, :] < lengths[:, None]
    return np.concatenate([H_f, np.where(mask[..., None], H_b, 0.0)], axis=-1)
""")

# right: X[i, ::-1] rolled by L - T puts the reversed valid part first; undone the same way
right("birnn", "flip_then_roll_rows", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    T = X.shape[1]
    X_rev = np.stack([np.roll(X[i, ::-1], int(L) - T, axis=0) for i, L in enumerate(lengths)]) if len(lengths) else X
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(X_rev, lengths, *bwd, h0=h0)
    rows = []
    for i, L in enumerate(lengths):
        back = np.roll(H_r[i], T - int(L), axis=0)[::-1]      # undo: roll back, flip
        rows.append(np.where((np.arange(T) < L)[:, None], back, 0.0))
    H_b = np.array(rows).reshape(H_f.shape)
    return np.concatenate([H_f, H_b], axis=-1)
""")

# right: one vectorised loop from T-1 down to 0, rows updated only where t < L
right("birnn", "vectorised_reverse_time_loop", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    h = np.zeros((B, H)) if h0 is None else np.array(h0, dtype=float)
    H_b = np.zeros((B, T, H))
    for t in range(T - 1, -1, -1):            # padded steps come first going backwards and are skipped
        valid = (t < lengths)[:, None]
        h_new = np.tanh(np.where(valid, X[:, t], 0.0) @ W_x + h @ W_h + b)
        h = np.where(valid, h_new, h)
        H_b[:, t] = np.where(valid, h, 0.0)
    return np.concatenate([H_f, H_b], axis=2)
""")

# right: rnn_forward on each row's valid part and on its np.flip
right("birnn", "rows_through_rnn_forward", """
from rnn_forward import rnn_forward
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    out = []
    for i in range(B):
        L = int(lengths[i])
        row = np.zeros((T, 2 * H))
        if L:
            x = X[i:i + 1, :L]
            row[:L, :H] = rnn_forward(x, *fwd, h0=start[i:i + 1])[0]
            row[:L, H:] = np.flip(rnn_forward(np.flip(x, axis=1), *bwd, h0=start[i:i + 1])[0], axis=0)
        out.append(row)
    return np.array(out).reshape(B, T, 2 * H)
""")

# right: zeroes X's padding in place but restores it exactly (try/finally) before returning
right("birnn", "cleans_X_in_place_and_restores", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    mask = np.arange(X.shape[1])[None, :] < np.asarray(lengths)[:, None]
    saved = X[~mask].copy()
    X[~mask] = 0.0                            # borrowed for the computation ...
    try:
        H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
        H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    finally:
        X[~mask] = saved                      # ... and put back exactly, NaN included
    return np.concatenate([H_f, reverse_valid(H_r, lengths)], axis=-1)
""")

# right: np.dstack of the two (B, T, H) halves joins the last axis
right("birnn", "dstack_halves", """
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_r, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.dstack([H_f, reverse_valid(H_r, lengths)])      # for 3-D arrays dstack joins the last axis
""")


# =====================================================================================
# findings: cases the grader misjudges (kept as strict xfails until fixed)
# =====================================================================================

# Cases the grader misjudges, with the reason. The 23 found by the first red-team pass
# (float32 shortcuts under a loose tolerance, caches keyed on id() or shapes, +/-inf padding,
# 0-d arrays for floats, the input dict returned as is, a renamed parameter, ...) are all
# caught since the checks were tightened. The second pass (inputs where a mistake only shows
# sometimes) found the ones below; each reason names the input that would catch it.
FINDINGS: dict = {}   # the second pass found 8 (H == 1, B == 1, C == 1, w_x=0.0, int32 counts, a
# self-inverse sort order, float32 eigenvalues); all caught since.

for _case in CASES:
    _case.finding = FINDINGS.get((_case.exercise, _case.name), "")
assert set(FINDINGS) <= {(c.exercise, c.name) for c in CASES}


# =====================================================================================
# the test
# =====================================================================================

def _param(case: Impl):
    marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=case.finding)] if case.finding else []
    return pytest.param(case, id=f"{case.exercise}-{case.kind}-{case.name}", marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_unseen_implementation(grade, tmp_path, case: Impl):
    folder = copy_reference(tmp_path / "student")
    path = folder / FILES[case.exercise]
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + PRELUDE + textwrap.dedent(case.source).lstrip("\n"),
                    encoding="utf-8")
    result = grade(folder, only=(case.exercise,))
    (exercise,) = result.exercises
    failed = [(c.name, check_message(c, "en")) for c in exercise.checks if not c.passed]
    if case.kind == WRONG:
        assert exercise.score < exercise.max_score, f"wrong implementation kept full marks: {case.name}"
    else:
        assert exercise.score == exercise.max_score and not failed, failed


def test_every_exercise_has_enough_cases():
    for exercise in FILES:
        kinds = [c.kind for c in CASES if c.exercise == exercise]
        assert kinds.count(WRONG) >= 4 and kinds.count(RIGHT) >= 2, exercise
