"""Every known mistake of CONTRACT section 3 is named however it is written (issue 12).

For each of the 22 mistakes of the contract's table, at least two variants written here,
independently of solutions/mistakes/<exercise>/<name>.py: the mistake made in one function of a
file whose other functions are right; explicit loops, einsum, np.dot, in-place updates or other
intermediates; values that differ from the catalogued implementation where the mistake is not
about them; another exception where the catalogued one raises; the mistake only in a default
argument. Each is appended to (so overrides functions of) a copy of solutions/reference/, graded
on its one exercise, must lose points there and be named with exactly that mistake's id.

Correct code written in other ways (loops, einsum, equivalent formulas, keepdims shapes, long
double intermediates; float32 ones are beyond every exercise's tolerance of about 1e-9) gets full
marks and no diagnosis.

Variants that also match another catalogued mistake on part of their results (normalising over
axis 0 always also matches "the default axis is wrong" on the default-axis calls) are named alone:
the other mistake's evidence is a strict part of theirs (Diagnoser._prune). A variant the
diagnosis cannot name would be kept with ``not_named``, the reason: an xfail(strict=True) that only
that failure (NotNamed) satisfies; there is none today.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import REFERENCE, ROOT, copy_reference, exercise_report as report, top_level_functions as functions

EXERCISE_FILE = {"step": "rnn_step.py", "forward": "rnn_forward.py", "masking": "masking.py",
                 "readout": "readout.py", "bptt": "bptt.py", "clipping": "bptt.py",
                 "gradient_flow": "gradient_flow.py", "birnn": "birnn.py"}


# ============================================================== the mistakes
#
# name -> (exercise, mistake id, code appended to the exercise's file in the reference copy).
# rnn_step.py has `math` and `np`; rnn_forward.py and masking.py `rnn_step`; bptt.py and
# gradient_flow.py `rnn_forward`; readout.py and birnn.py `rnn_forward_masked` (birnn.py also
# its `reverse_valid`), as the reference imports or defines them.

MISTAKES = {}


class NotNamed(AssertionError):
    """The variant loses points but its mistake is not named."""


def mistake(name, exercise, mistake_id, code, not_named=None):
    """``not_named``: why the diagnosis misses it, which makes the case an xfail(strict=True)
    that only that failure satisfies."""
    assert name not in MISTAKES, name
    MISTAKES[name] = (exercise, mistake_id, textwrap.dedent(code), not_named)


# ------------------------------------------------------------------ step.swapped_weights
# The catalogued x_t @ W_h raises numpy's ValueError whenever d != H; only the square cases
# show values.

mistake("swapped_weights_loops_index_error", "step", "step.swapped_weights", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # explicit loops: where d != H an index runs off W_x or W_h, an IndexError
    B, H = h_prev.shape
    d = x_t.shape[1]
    h_t = np.empty((B, H))
    for i in range(B):
        for j in range(H):
            total = b[j]
            for k in range(d):
                total += x_t[i, k] * W_h[k, j]
            for k in range(H):
                total += h_prev[i, k] * W_x[k, j]
            h_t[i, j] = math.tanh(total)
    return h_t
''')

mistake("swapped_weights_einsum_assertion", "step", "step.swapped_weights", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # an AssertionError of its own when d != H, then einsum with the weights swapped
    assert x_t.shape[1] == h_prev.shape[1], "rnn_step: this code needs d == H"
    pre = np.einsum("bd,dh->bh", x_t, W_h) + np.einsum("bk,kh->bh", h_prev, W_x)
    return np.tanh(pre + b)
''')

mistake("swapped_weights_dot_in_place", "step", "step.swapped_weights", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # np.dot (its own ValueError when d != H) and in-place updates of a new array
    a = np.dot(h_prev, W_x)
    a += np.dot(x_t, W_h)
    a += b
    np.tanh(a, out=a)
    return a


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    # the file's other function, rewritten and right
    states, state = [], 0.0
    for value in sequence:
        state = float(np.tanh(w_x * value + w_h * state + b))
        states.append(state)
    return states
''')

# ------------------------------------------------------------------ step.missing_bias

mistake("missing_bias_einsum", "step", "step.missing_bias", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h))
''')

mistake("missing_bias_row_loop", "step", "step.missing_bias", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    rows = []
    for x_row, h_row in zip(x_t, h_prev):
        pre = np.dot(x_row, W_x) + np.dot(h_row, W_h)
        rows.append(np.tanh(pre))
    return np.array(rows)
''')

mistake("missing_bias_default_flag", "step", "step.missing_bias", '''
def rnn_step(x_t, h_prev, W_x, W_h, b, use_bias=False):
    # the mistake only in a default argument: the grader's calls leave use_bias out
    z = x_t @ W_x + h_prev @ W_h
    if use_bias:
        z = z + b
    return np.tanh(z)
''')

# ------------------------------------------------------------------ step.wrong_activation

mistake("wrong_activation_sigmoid_via_tanh", "step", "step.wrong_activation", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.dot(x_t, W_x) + np.dot(h_prev, W_h) + b
    return 0.5 * (1.0 + np.tanh(0.5 * z))     # the logistic sigmoid, written with tanh
''')

mistake("wrong_activation_relu_by_mask", "step", "step.wrong_activation", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    z = np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b
    return z * (z > 0)
''')

mistake("wrong_activation_identity_in_place", "step", "step.wrong_activation", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    out = x_t.dot(W_x)
    out += h_prev.dot(W_h)
    out += b
    return out
''')

mistake("wrong_activation_default_argument", "step", "step.wrong_activation", '''
def rnn_step(x_t, h_prev, W_x, W_h, b, activation=lambda z: np.maximum(z, 0.0)):
    # the mistake only in a default argument: ReLU unless another activation is passed
    return activation(x_t @ W_x + h_prev @ W_h + b)
''')

# ------------------------------------------------------------------ step.transposed_recurrent

mistake("transposed_recurrent_einsum", "step", "step.transposed_recurrent", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,hk->bh", h_prev, W_h) + b)
''')

mistake("transposed_recurrent_column_form", "step", "step.transposed_recurrent", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # the column form W_h h_(t-1) of the second chapter, turned back into rows
    recurrent = (W_h @ h_prev.T).T
    return np.tanh(x_t @ W_x + recurrent + b)
''')

mistake("transposed_recurrent_loops", "step", "step.transposed_recurrent", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    B, H = h_prev.shape
    out = np.zeros((B, H))
    for i in range(B):
        for j in range(H):
            out[i, j] = np.dot(x_t[i], W_x[:, j]) + np.dot(h_prev[i], W_h[j, :]) + b[j]
    return np.tanh(out)
''')

# ------------------------------------------------------------------ forward.state_not_carried

mistake("state_not_carried_vectorised", "forward", "forward.state_not_carried", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    # every step from the same start: one broadcast, no loop
    return np.tanh(np.einsum("btd,dh->bth", X, W_x) + (start @ W_h)[:, None, :] + b)
''')

mistake("state_not_carried_step_list", "forward", "forward.state_not_carried", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    states = []
    for t in range(X.shape[1]):
        h_t = rnn_step(X[:, t], h, W_x, W_h, b)     # h is never updated
        states.append(h_t)
    return np.stack(states, axis=1)
''')

mistake("state_not_carried_loops", "forward", "forward.state_not_carried", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    for i in range(B):
        start = np.zeros(H) if h0 is None else h0[i]
        for t in range(T):
            Hs[i, t] = np.tanh(np.dot(X[i, t], W_x) + np.dot(start, W_h) + b)
    return Hs
''')

# ------------------------------------------------------------------ forward.ignores_h0

mistake("ignores_h0_zeros_like", "forward", "forward.ignores_h0", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    H = W_h.shape[0]
    # "start like h0": zeros of h0's shape, so a given h0's values are dropped
    h = np.zeros((B, H)) if h0 is None else np.zeros_like(h0)
    Hs = np.empty((B, T, H))
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t, :] = h
    return Hs
''')

mistake("ignores_h0_time_major_list", "forward", "forward.ignores_h0", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    h = np.zeros((X.shape[0], W_h.shape[0]))
    states = []
    for x_t in np.swapaxes(X, 0, 1):
        h = np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h, W_h) + b)
        states.append(h)
    return np.array(states).transpose(1, 0, 2)
''')

mistake("ignores_h0_default_reset", "forward", "forward.ignores_h0", '''
def rnn_forward(X, W_x, W_h, b, h0=None, reset=True):
    # the mistake only in a default argument: the state is reset unless reset=False
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if (reset or h0 is None) else h0
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        Hs[:, t] = h
    return Hs
''')

# ------------------------------------------------------------------ masking.padding_state

mistake("padding_state_only_last_valid_state", "masking", "masking.padding_state", '''
def last_valid_state(Hs, lengths):
    # the only wrong function of masking.py: the state at array position T-1 for every row
    return np.take(Hs, Hs.shape[1] - 1, axis=1)
''')

mistake("padding_state_row_loops_over_padding", "masking", "masking.padding_state", '''
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # per row and step; the recurrence runs on over the padding, h_last after all T steps
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h_last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            if t < lengths[i]:
                Hs[i, t] = h
        h_last[i] = h
    return Hs, h_last
''')

mistake("padding_state_zeroed_inputs_still_stepped", "masking", "masking.padding_state", '''
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # padding cleaned to zeros (np.where) but still stepped through; input terms by einsum
    B, T, _ = X.shape
    H = W_h.shape[0]
    valid = np.arange(T) < np.asarray(lengths)[:, None]
    inputs = np.einsum("btd,dh->bth", np.where(valid[..., None], X, 0.0), W_x)
    h = np.zeros((B, H)) if h0 is None else np.asarray(h0, dtype=float)
    Hs = np.zeros((B, T, H))
    for t in range(T):
        h = np.tanh(inputs[:, t] + h @ W_h + b)
        Hs[:, t] = np.where(valid[:, t, None], h, 0.0)
    return Hs, h
''')

_MASKED_HS_LAST_COLUMN = '''
def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # Hs right (frozen state, zeros at padding), but h_last read at array position T-1
    B, T, _ = X.shape
    mask = sequence_mask(lengths, T)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        keep = mask[:, t, None]
        h = np.where(keep, rnn_step(np.where(keep, X[:, t], 0.0), h, W_x, W_h, b), h)
        Hs[:, t] = np.where(keep, h, 0.0)
    return Hs, Hs[:, -1].copy()
'''

mistake("padding_state_h_last_from_zeroed_hs", "masking", "masking.padding_state", _MASKED_HS_LAST_COLUMN)

mistake("padding_state_h_last_and_last_valid_state", "masking", "masking.padding_state",
        _MASKED_HS_LAST_COLUMN + '''

def last_valid_state(Hs, lengths):
    T = Hs.shape[1]
    return np.array([row[T - 1] for row in Hs])
''')

# ------------------------------------------------------------------ masking.mean_over_padding

mistake("mean_over_padding_valid_sum_over_T", "masking", "masking.mean_over_padding", '''
def masked_mean_pool(Hs, lengths):
    # the only wrong function: valid states summed (own mask), divided by T
    B, T, H = Hs.shape
    keep = (np.arange(T)[None, :] < np.asarray(lengths)[:, None])[:, :, None]
    return np.where(keep, Hs, 0.0).sum(axis=1) / T
''')

mistake("mean_over_padding_einsum", "masking", "masking.mean_over_padding", '''
def masked_mean_pool(Hs, lengths):
    return np.einsum("bth->bh", Hs) / Hs.shape[1]
''')

mistake("mean_over_padding_nanmean", "masking", "masking.mean_over_padding", '''
def masked_mean_pool(Hs, lengths):
    # "NaN is padding": right for NaN padding, but any other padded value is averaged in
    return np.nanmean(Hs, axis=1)
''')

mistake("mean_over_padding_keepdims_loop", "masking", "masking.mean_over_padding", '''
def masked_mean_pool(Hs, lengths):
    out = []
    for row in Hs:
        out.append(row.mean(axis=0, keepdims=True)[0])
    return np.stack(out)
''')

# ------------------------------------------------------------------ masking.padding_in_loss

mistake("padding_in_loss_loops_all_positions", "masking", "masking.padding_in_loss", '''
def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    total = 0.0
    for i in range(B):
        for t in range(T):
            z = logits[i, t]
            m = z.max()
            total += m + np.log(np.exp(z - m).sum()) - z[targets[i, t]]
    return float(total / (B * T))
''')

mistake("padding_in_loss_masked_sum_over_size", "masking", "masking.padding_in_loss", '''
def masked_cross_entropy(logits, targets, lengths):
    B, T, V = logits.shape
    mask = sequence_mask(lengths, T)
    tgt = np.where(mask, targets, 0)
    lse = np.logaddexp.reduce(logits, axis=-1)
    picked = logits[np.arange(B)[:, None], np.arange(T)[None, :], tgt]
    nll = np.where(mask, lse - picked, 0.0)
    return float(nll.sum() / mask.size)      # every position in the count
''')

mistake("padding_in_loss_fancy_index_mean", "masking", "masking.padding_in_loss", '''
def masked_cross_entropy(logits, targets, lengths):
    B, T, _ = logits.shape
    logp = log_softmax(logits, axis=-1)
    nll = -logp[np.arange(B)[:, None], np.arange(T)[None, :], np.asarray(targets)]
    return float(np.mean(nll))
''')

mistake("padding_in_loss_valid_terms_over_all_positions", "masking", "masking.padding_in_loss", '''
def masked_cross_entropy(logits, targets, lengths):
    # only the valid terms summed, but the count is every position of the batch
    B, T, V = logits.shape
    total = 0.0
    for i in range(B):
        for t in range(int(lengths[i])):
            z = logits[i, t]
            top = z.max()
            total += top + np.log(np.sum(np.exp(z - top))) - z[targets[i, t]]
    return float(total) / (B * T)
''')

# ------------------------------------------------------------------ masking.inclusive_mask

mistake("inclusive_mask_not_greater", "masking", "masking.inclusive_mask", '''
def sequence_mask(lengths, T):
    return ~(np.arange(T)[None, :] > np.asarray(lengths)[:, None])
''')

mistake("inclusive_mask_only_in_sequence_mask", "masking", "masking.inclusive_mask", '''
def _real(lengths, T):
    return np.arange(T)[None, :] < np.asarray(lengths, dtype=int)[:, None]


def sequence_mask(lengths, T):
    # the only wrong function: one position too many per row (the others use _real)
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for i, n in enumerate(lengths):
        mask[i, :n + 1] = True
    return mask


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    valid = _real(lengths, T)
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    Hs = np.zeros((B, T, W_h.shape[0]))
    for t in range(T):
        v = valid[:, t, None]
        h = np.where(v, np.tanh(np.where(v, X[:, t], 0.0) @ W_x + h @ W_h + b), h)
        Hs[:, t] = np.where(v, h, 0.0)
    return Hs, h


def masked_mean_pool(Hs, lengths):
    valid = _real(lengths, Hs.shape[1])
    total = np.where(valid[..., None], Hs, 0.0).sum(axis=1)
    return total / np.maximum(valid.sum(axis=1), 1)[:, None]


def masked_cross_entropy(logits, targets, lengths):
    valid = _real(lengths, logits.shape[1])
    if not valid.any():
        return 0.0
    z = logits[valid]
    t = np.asarray(targets)[valid].astype(int)
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(t)), t]))
''')

mistake("inclusive_mask_outer_own_loss", "masking", "masking.inclusive_mask", '''
def sequence_mask(lengths, T):
    return np.less_equal.outer(np.arange(T), np.asarray(lengths)).T


def masked_cross_entropy(logits, targets, lengths):
    # the loss counts its own (right) positions; the forward pass and the pooling use sequence_mask
    B, T, V = logits.shape
    total, count = 0.0, 0
    for i in range(B):
        for t in range(min(int(lengths[i]), T)):
            z = logits[i, t]
            total += np.logaddexp.reduce(z) - z[int(targets[i, t])]
            count += 1
    return float(total / count) if count else 0.0
''')

mistake("inclusive_mask_default_comparison", "masking", "masking.inclusive_mask", '''
def sequence_mask(lengths, T, compare=np.less_equal):
    # the mistake only in a default argument
    return compare(np.arange(T)[None, :], np.asarray(lengths)[:, None])
''')

# ------------------------------------------------------------------ readout.unstable_softmax
# hidden_evidence: only the hidden softmax_stable (logits of 1e3) shows it.

mistake("unstable_softmax_expand_dims", "readout", "readout.unstable_softmax", '''
def softmax(z, axis=-1):
    num = np.exp(z)
    den = np.expand_dims(np.sum(num, axis=axis), axis)
    return num / den
''')

mistake("unstable_softmax_apply_along_axis", "readout", "readout.unstable_softmax", '''
def softmax(z, axis=-1):
    def one(v):
        e = np.exp(v)
        return e / e.sum()
    return np.apply_along_axis(one, axis, z)
''')

mistake("unstable_softmax_uniform_fallback", "readout", "readout.unstable_softmax", '''
def softmax(z, axis=-1):
    # no shift; a non-finite result replaced by uniform probabilities: finite garbage where the
    # catalogued one gives NaN
    e = np.exp(z)
    p = e / np.sum(e, axis=axis, keepdims=True)
    return np.where(np.isfinite(p), p, 1.0 / z.shape[axis])
''')

mistake("unstable_softmax_shift_by_mean", "readout", "readout.unstable_softmax", '''
def softmax(z, axis=-1):
    # shifted by the mean, not the maximum: still overflows for logits far apart
    e = np.exp(z - z.mean(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
''')

# ------------------------------------------------------------------ readout.wrong_axis

mistake("wrong_axis_ignores_axis", "readout", "readout.wrong_axis", '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=-1)[..., None])
    return e / e.sum(axis=-1)[..., None]
''')

mistake("wrong_axis_batch_axis", "readout", "readout.wrong_axis", '''
def softmax(z, axis=-1):
    # normalises over axis 0, whatever axis says (broadcasting aligns the trailing axes)
    e = np.exp(z - np.amax(z, axis=0))
    return e / np.add.reduce(e, axis=0)
''')

mistake("wrong_axis_whole_array", "readout", "readout.wrong_axis", '''
def softmax(z, axis=-1):
    flat = np.ravel(z)
    e = np.exp(z - flat.max())
    return e / np.sum(e)
''')

mistake("wrong_axis_hardcoded_axis_1", "readout", "readout.wrong_axis", '''
def softmax(z, axis=-1):
    # always axis 1, the class axis of (B, C) logits
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''')

# ------------------------------------------------------------------ bptt.no_tanh_derivative

mistake("no_tanh_derivative_einsum", "bptt", "bptt.no_tanh_derivative", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    dA = np.empty_like(dHs)
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = dHs[:, t] + carry          # passed on as it is: no (1 - h**2)
        carry = dA[:, t] @ W_h.T
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": carry,
            "dW_x": np.einsum("btd,bth->dh", X, dA), "dW_h": np.einsum("bti,bth->ih", prev, dA),
            "db": dA.sum(axis=(0, 1))}
''')

mistake("no_tanh_derivative_outer_products", "bptt", "bptt.no_tanh_derivative", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # one example at a time, outer products accumulated in place
    B, T, d = X.shape
    H = W_h.shape[0]
    grads = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
             "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        states = [h]
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            states.append(h)
        g = np.zeros(H)
        for t in reversed(range(T)):
            g = g + dHs[i, t]
            grads["dW_x"] += np.outer(X[i, t], g)
            grads["dW_h"] += np.outer(states[t], g)
            grads["db"] += g
            grads["dX"][i, t] = W_x @ g
            g = W_h @ g
        grads["dh0"][i] = g
    return grads
''')

# ------------------------------------------------------------------ bptt.no_recurrent_grad

mistake("no_recurrent_grad_truncated_k1", "bptt", "bptt.no_recurrent_grad", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # the file's own (right) truncated BPTT with chunks of one step
    return truncated_rnn_backward(X, W_x, W_h, b, dHs, 1, h0=h0)
''')

mistake("no_recurrent_grad_carry_never_added", "bptt", "bptt.no_recurrent_grad", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dX = np.zeros_like(X)
    dW_x = np.zeros((d, H))
    dW_h = np.zeros((H, H))
    db = np.zeros(H)
    carry = np.zeros((B, H))
    for t in reversed(range(T)):
        dh = dHs[:, t].copy()                 # the carry below is computed, never added in
        da = dh * (1.0 - Hs[:, t] ** 2)
        h_prev = Hs[:, t - 1] if t else h0
        dW_x += np.dot(X[:, t].T, da)
        dW_h += np.dot(h_prev.T, da)
        db += np.sum(da, axis=0)
        dX[:, t] = np.dot(da, W_x.T)
        carry = np.dot(da, W_h.T)
    return {"dX": dX, "dh0": carry, "dW_x": dW_x, "dW_h": dW_h, "db": db}
''')

mistake("no_recurrent_grad_loops_zero_dh0", "bptt", "bptt.no_recurrent_grad", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    # per example; dh0 left at zero (the catalogue's keeps step 0's direct term)
    B, T, d = X.shape
    H = W_h.shape[0]
    out = {"dX": np.zeros((B, T, d)), "dh0": np.zeros_like(dHs[:, 0]), "dW_x": np.zeros((d, H)),
           "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for i in range(B):
        prev = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + prev @ W_h + b)
            da = dHs[i, t] * (1.0 - h * h)
            out["dW_x"] += np.outer(X[i, t], da)
            out["dW_h"] += np.outer(prev, da)
            out["db"] += da
            out["dX"][i, t] = W_x @ da
            prev = h
    return out
''')

# ------------------------------------------------------------------ bptt.last_step_only

mistake("last_step_only_vectorised", "bptt", "bptt.last_step_only", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)
    prev = np.concatenate([start[:, None], Hs[:, :-1]], axis=1)
    dA = np.zeros_like(Hs)
    back = np.zeros((B, H))
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + back) * (1.0 - Hs[:, t] ** 2)
        back = dA[:, t] @ W_h.T
    # the parameter gradients of the last step only
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": back,
            "dW_x": X[:, -1].T @ dA[:, -1], "dW_h": prev[:, -1].T @ dA[:, -1], "db": dA[:, -1].sum(axis=0)}
''')

mistake("last_step_only_forward_loop_overwrite", "bptt", "bptt.last_step_only", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    start = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, start)
    dA = np.zeros((B, T, H))
    g = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + g) * (1.0 - np.square(Hs[:, t]))
        g = np.einsum("bh,kh->bk", dA[:, t], W_h)
    for t in range(T):                        # = instead of +=: step T-1 is what is left
        h_prev = start if t == 0 else Hs[:, t - 1]
        dW_x = np.einsum("bd,bh->dh", X[:, t], dA[:, t])
        dW_h = np.einsum("bi,bh->ih", h_prev, dA[:, t])
        db = np.einsum("bh->h", dA[:, t])
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": g, "dW_x": dW_x, "dW_h": dW_h, "db": db}
''')

mistake("last_step_only_reverse_overwrite", "bptt", "bptt.last_step_only", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    h0 = np.zeros((B, H)) if h0 is None else h0
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    grads = {"dX": np.zeros_like(X)}
    upstream = np.zeros((B, H))
    for t in reversed(range(T)):
        pre_grad = (dHs[:, t] + upstream) * (1.0 - Hs[:, t] * Hs[:, t])
        before = Hs[:, t - 1] if t > 0 else h0
        grads["dW_x"] = np.dot(X[:, t].T, pre_grad)      # overwritten: step 0's is kept
        grads["dW_h"] = np.dot(before.T, pre_grad)
        grads["db"] = pre_grad.sum(axis=0)
        grads["dX"][:, t] = np.dot(pre_grad, W_x.T)
        upstream = np.dot(pre_grad, W_h.T)
    grads["dh0"] = upstream
    return grads
''')

# ------------------------------------------------------------------ bptt.uses_current_state

mistake("uses_current_state_einsum", "bptt", "bptt.uses_current_state", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros_like(Hs)
    nxt = np.zeros((B, H))
    for t in reversed(range(T)):
        dA[:, t] = (dHs[:, t] + nxt) * (1.0 - Hs[:, t] ** 2)
        nxt = dA[:, t] @ W_h.T
    return {"dX": np.einsum("bth,dh->btd", dA, W_x), "dh0": nxt, "dW_x": np.einsum("btd,bth->dh", X, dA),
            "dW_h": np.einsum("bti,bth->ih", Hs, dA), "db": np.einsum("bth->h", dA)}
''')

mistake("uses_current_state_outer_products", "bptt", "bptt.uses_current_state", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    dX = np.zeros((B, T, d))
    dh0 = np.zeros((B, H))
    dW_x, dW_h, db = np.zeros((d, H)), np.zeros((H, H)), np.zeros(H)
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        hs = []
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            hs.append(h)
        g = np.zeros(H)
        for t in reversed(range(T)):
            da = (dHs[i, t] + g) * (1.0 - hs[t] ** 2)
            dW_x += np.outer(X[i, t], da)
            dW_h += np.outer(hs[t], da)              # h_t, not h_(t-1)
            db += da
            dX[i, t] = W_x @ da
            g = W_h @ da
        dh0[i] = g
    return {"dX": dX, "dh0": dh0, "dW_x": dW_x, "dW_h": dW_h, "db": db}
''')

mistake("uses_current_state_reshaped", "bptt", "bptt.uses_current_state", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    dA = np.zeros((B, T, H))
    carry = np.zeros((B, H))
    for t in range(T - 1, -1, -1):
        dA[:, t] = (dHs[:, t] + carry) * (1.0 - Hs[:, t] ** 2)
        carry = dA[:, t] @ W_h.T
    flat_dA = dA.reshape(B * T, H)
    return {"dX": dA @ W_x.T, "dh0": carry, "dW_x": X.reshape(B * T, d).T @ flat_dA,
            "dW_h": Hs.reshape(B * T, H).T @ flat_dA, "db": flat_dA.sum(axis=0)}
''')

# ------------------------------------------------------------------ clipping.per_tensor

mistake("per_tensor_loop", "clipping", "clipping.per_tensor", '''
def clip_by_global_norm(grads, max_norm):
    squares = 0.0
    clipped = {}
    for key in grads:
        g = np.asarray(grads[key], dtype=float)
        n = float(np.sqrt(np.sum(g * g)))
        squares += n * n
        clipped[key] = g * (max_norm / n) if n > max_norm else g.copy()
    return clipped, float(np.sqrt(squares))
''')

mistake("per_tensor_factor_min", "clipping", "clipping.per_tensor", '''
def clip_by_global_norm(grads, max_norm):
    norms = {k: np.linalg.norm(np.ravel(g)) for k, g in grads.items()}
    total = float(np.linalg.norm(np.array(list(norms.values()))))
    clipped = {k: g * min(1.0, max_norm / max(norms[k], 1e-300)) for k, g in grads.items()}
    return clipped, total
''')

mistake("per_tensor_default_argument", "clipping", "clipping.per_tensor", '''
def clip_by_global_norm(grads, max_norm, per_array=True):
    # the mistake only in a default argument
    total = float(np.sqrt(sum(np.vdot(g, g) for g in grads.values())))
    out = {}
    for k, g in grads.items():
        n = float(np.sqrt(np.vdot(g, g))) if per_array else total
        out[k] = g * (max_norm / n) if n > max_norm else np.array(g, dtype=float)
    return out, total
''')

# ------------------------------------------------------------------ clipping.elementwise

mistake("elementwise_min_max", "clipping", "clipping.elementwise", '''
def clip_by_global_norm(grads, max_norm):
    total = np.sqrt(np.sum([np.sum(np.square(g)) for g in grads.values()]))
    out = {k: np.minimum(np.maximum(g, -max_norm), max_norm) for k, g in grads.items()}
    return out, float(total)
''')

mistake("elementwise_masks_on_a_copy", "clipping", "clipping.elementwise", '''
def clip_by_global_norm(grads, max_norm):
    total = float(np.sqrt(sum(float((g ** 2).sum()) for g in grads.values())))
    clipped = {}
    for name, g in grads.items():
        c = np.array(g, dtype=float)
        if total > max_norm:                  # only over the limit, then entry by entry
            c[c > max_norm] = max_norm
            c[c < -max_norm] = -max_norm
        clipped[name] = c
    return clipped, total
''')

mistake("elementwise_sign_abs", "clipping", "clipping.elementwise", '''
def clip_by_global_norm(grads, max_norm):
    total = np.linalg.norm(np.concatenate([np.ravel(g) for g in grads.values()]))
    return {k: np.sign(g) * np.minimum(np.abs(g), max_norm) for k, g in grads.items()}, float(total)
''')

# ------------------------------------------------------------------ gradient_flow.spectral_norm

mistake("spectral_norm_gram_eigvalsh", "gradient_flow", "gradient_flow.spectral_norm", '''
def spectral_radius(W):
    # the square root of the largest eigenvalue of W^T W: the largest singular value
    return float(np.sqrt(np.max(np.linalg.eigvalsh(W.T @ W))))
''')

mistake("spectral_norm_default_ord", "gradient_flow", "gradient_flow.spectral_norm", '''
def spectral_radius(W, ord=2):
    # the mistake only in a default argument: the matrix 2-norm
    return float(np.linalg.norm(W, ord=ord))
''')

mistake("spectral_norm_power_iteration", "gradient_flow", "gradient_flow.spectral_norm", '''
def spectral_radius(W):
    # power iteration on W^T W
    v = np.ones(W.shape[1]) / np.sqrt(W.shape[1])
    sigma = 0.0
    for _ in range(20000):
        w = W.T @ (W @ v)
        v = w / np.linalg.norm(w)
        new = float(np.linalg.norm(W @ v))
        if abs(new - sigma) <= 1e-15 * new:
            break
        sigma = new
    return float(np.linalg.norm(W @ v))
''')

# ------------------------------------------------------------------ gradient_flow.real_part

mistake("real_part_generator", "gradient_flow", "gradient_flow.real_part", '''
def spectral_radius(W):
    return float(max(lam.real for lam in np.linalg.eigvals(W)))
''')

mistake("real_part_sorted", "gradient_flow", "gradient_flow.real_part", '''
def spectral_radius(W):
    return float(np.sort(np.real(np.linalg.eig(W)[0]))[-1])
''')

mistake("real_part_abs_loop", "gradient_flow", "gradient_flow.real_part", '''
def spectral_radius(W):
    best = 0.0
    for lam in np.linalg.eigvals(W):
        best = max(best, abs(lam.real))       # the size of the real part only
    return float(best)
''')

# ------------------------------------------------------------------ birnn.reversed_padding

mistake("reversed_padding_flip_masked", "birnn", "birnn.reversed_padding", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    forward_states, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    backward_states, _ = rnn_forward_masked(np.flip(X, axis=1), lengths, *bwd, h0=h0)
    return np.concatenate((forward_states, np.flip(backward_states, axis=1)), axis=2)
''')

mistake("reversed_padding_row_loops", "birnn", "birnn.reversed_padding", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else h0[i]
        for t in range(T - 1, -1, -1):        # from the end of the padded row
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            if t < lengths[i]:
                H_b[i, t] = h
    return np.concatenate([H_f, H_b], axis=-1)
''')

mistake("reversed_padding_cleaned_first", "birnn", "birnn.reversed_padding", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    # padding cleaned to zeros, then the whole row run backwards: the catalogue's feeds the
    # padding's own values in, so where it holds -1 the two differ (both wrong)
    B, T, _ = X.shape
    valid = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    X_clean = np.where(valid[..., None], X, 0.0)
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    W_x, W_h, b = bwd
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    H_b = np.zeros((B, T, W_h.shape[0]))
    for t in reversed(range(T)):
        h = np.tanh(X_clean[:, t] @ W_x + h @ W_h + b)
        H_b[:, t] = np.where(valid[:, t, None], h, 0.0)
    return np.concatenate([H_f, H_b], axis=-1)
''')

# ------------------------------------------------------------------ birnn.unaligned_backward

mistake("unaligned_backward_with_reverse_valid", "birnn", "birnn.unaligned_backward", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    # the file's (right) reverse_valid for the inputs, but the states are never put back
    H_fwd, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    H_rev, _ = rnn_forward_masked(reverse_valid(X, lengths), lengths, *bwd, h0=h0)
    return np.concatenate([H_fwd, H_rev], axis=-1)
''')

mistake("unaligned_backward_row_loops", "birnn", "birnn.unaligned_backward", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    W_x, W_h, b = bwd
    H = W_h.shape[0]
    out_b = np.zeros((B, T, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.asarray(h0[i], dtype=float)
        L = int(lengths[i])
        for k, t in enumerate(range(L - 1, -1, -1)):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            out_b[i, k] = h                   # stored in the order computed
    H_f, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    return np.dstack([H_f, out_b])
''')

mistake("unaligned_backward_gathered_einsum", "birnn", "birnn.unaligned_backward", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    lengths = np.asarray(lengths)
    W_x, W_h, b = bwd
    t = np.arange(T)
    valid = t[None, :] < lengths[:, None]
    src = np.where(valid, lengths[:, None] - 1 - t[None, :], 0)
    X_rev = np.where(valid[..., None], X[np.arange(B)[:, None], src], 0.0)
    A = np.einsum("btd,dh->bth", X_rev, W_x) + b
    h = np.zeros((B, W_h.shape[0])) if h0 is None else np.array(h0, dtype=float)
    back = np.zeros((B, T, W_h.shape[0]))
    for k in range(T):
        h = np.where(valid[:, k, None], np.tanh(A[:, k] + h @ W_h), h)
        back[:, k] = np.where(valid[:, k, None], h, 0.0)     # step k of the reversed pass, at k
    front, _ = rnn_forward_masked(X, lengths, *fwd, h0=h0)
    return np.concatenate([front, back], axis=-1)
''')


# ============================================================== correct code
#
# name -> (exercise, code appended to the exercise's file).

CORRECT = {}


def correct(name, exercise, code):
    assert name not in CORRECT, name
    CORRECT[name] = (exercise, textwrap.dedent(code))


correct("step_einsum_and_scalar_loop", "step", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(np.einsum("bd,dh->bh", x_t, W_x) + np.einsum("bk,kh->bh", h_prev, W_h) + b[None, :])


def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
    out = []
    state = 0.0
    for v in sequence:
        state = float(np.tanh(w_x * v + w_h * state + b))
        out.append(state)
    return out
''')

correct("step_column_form_done_right", "step", '''
def rnn_step(x_t, h_prev, W_x, W_h, b):
    # the column form of the second chapter, with the weights transposed for columns
    columns = W_x.T @ x_t.T + W_h.T @ h_prev.T + b.reshape(-1, 1)
    return np.tanh(columns).T.copy()
''')

correct("forward_longdouble_precomputed_inputs", "forward", '''
def rnn_forward(X, W_x, W_h, b, h0=None):
    # the input terms of every step at once, the recurrence in long double, float64 out
    B, T, _ = X.shape
    H = W_h.shape[0]
    inputs = np.einsum("btd,dh->bth", X, W_x).astype(np.longdouble) + b
    W = W_h.astype(np.longdouble)
    h = np.zeros((B, H), dtype=np.longdouble) if h0 is None else np.array(h0, dtype=np.longdouble)
    out = np.empty((B, T, H), dtype=np.longdouble)
    for t in range(T):
        h = np.tanh(inputs[:, t] + h @ W)
        out[:, t] = h
    return out.astype(np.float64)
''')

correct("masking_every_function_rewritten", "masking", '''
def sequence_mask(lengths, T):
    return np.greater.outer(np.asarray(lengths, dtype=np.int64), np.arange(T))


def rnn_forward_masked(X, lengths, W_x, W_h, b, h0=None):
    # each row run alone over its valid steps only
    B, T, _ = X.shape
    H = W_h.shape[0]
    Hs = np.zeros((B, T, H))
    h_last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        for t in range(int(lengths[i])):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            Hs[i, t] = h
        h_last[i] = h
    return Hs, h_last


def last_valid_state(Hs, lengths):
    lengths = np.asarray(lengths)
    B, T, H = Hs.shape
    if T == 0:
        return np.zeros((B, H))
    index = np.clip(lengths - 1, 0, T - 1)[:, None, None]
    picked = np.take_along_axis(Hs, index, axis=1)[:, 0]       # (B, 1, H) -> (B, H)
    return np.where(lengths[:, None] > 0, picked, 0.0)


def masked_mean_pool(Hs, lengths):
    B, T, H = Hs.shape
    out = np.zeros((B, H))
    for i in range(B):
        n = int(lengths[i])
        if n > 0:
            out[i] = Hs[i, :n].mean(axis=0)
    return out


def masked_cross_entropy(logits, targets, lengths):
    valid = sequence_mask(lengths, logits.shape[1])
    count = int(valid.sum())
    if count == 0:
        return 0.0
    z = logits[valid]
    t = np.asarray(targets)[valid].astype(np.int64)
    lse = np.logaddexp.reduce(z, axis=1)
    return float((lse - z[np.arange(count), t]).sum() / count)
''')

correct("readout_logsumexp_and_row_loop", "readout", '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    m = np.max(z, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return np.exp(z - lse)


def many_to_one_probs(X, lengths, W_x, W_h, b, W_o, b_o):
    B = X.shape[0]
    H = W_h.shape[0]
    last = np.zeros((B, H))
    for i in range(B):
        h = np.zeros(H)
        for t in range(int(lengths[i])):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
        last[i] = h
    return softmax(last @ W_o + b_o)
''')

correct("bptt_outer_products_per_example", "bptt", '''
def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    B, T, d = X.shape
    H = W_h.shape[0]
    grads = {"dX": np.zeros((B, T, d)), "dh0": np.zeros((B, H)), "dW_x": np.zeros((d, H)),
             "dW_h": np.zeros((H, H)), "db": np.zeros(H)}
    for i in range(B):
        h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
        states = [h]
        for t in range(T):
            h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
            states.append(h)
        g = np.zeros(H)
        for t in reversed(range(T)):
            da = (g + dHs[i, t]) * (1.0 - states[t + 1] ** 2)
            grads["dW_x"] += np.outer(X[i, t], da)
            grads["dW_h"] += np.outer(states[t], da)
            grads["db"] += da
            grads["dX"][i, t] = W_x @ da
            g = W_h @ da
        grads["dh0"][i] = g
    return grads
''')

correct("clipping_concatenated_norm", "clipping", '''
def clip_by_global_norm(grads, max_norm):
    flat = np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in grads.values()])
    total = float(np.linalg.norm(flat))
    factor = max_norm / total if total > max_norm else 1.0
    return {name: np.multiply(g, factor) for name, g in grads.items()}, total
''')

correct("gradient_flow_moduli_and_jacobians", "gradient_flow", '''
def spectral_radius(W):
    return max(abs(complex(lam)) for lam in np.linalg.eigvals(W))


def hidden_grad_norms(X, W_x, W_h, b, h0=None):
    # the chain of Jacobians written out per example
    Hs = rnn_forward(X, W_x, W_h, b, h0)
    B, T, H = Hs.shape
    grads = np.zeros((B, T, H))
    grads[:, T - 1] = 1.0
    for t in range(T - 1, 0, -1):
        for i in range(B):
            J = np.diag(1.0 - Hs[i, t] ** 2) @ W_h.T       # d h_t / d h_(t-1), rows h_t
            grads[i, t - 1] = grads[i, t] @ J
    return np.sqrt(np.einsum("bth,bth->t", grads, grads))
''')

correct("birnn_row_loops", "birnn", '''
def birnn_forward(X, lengths, fwd, bwd, h0=None):
    B, T, _ = X.shape
    H = fwd[1].shape[0]
    out = np.zeros((B, T, 2 * H))
    for i in range(B):
        L = int(lengths[i])
        for half, (W_x, W_h, b), steps in ((0, fwd, range(L)), (1, bwd, range(L - 1, -1, -1))):
            h = np.zeros(H) if h0 is None else np.array(h0[i], dtype=float)
            for t in steps:
                h = np.tanh(X[i, t] @ W_x + h @ W_h + b)
                out[i, t, half * H:(half + 1) * H] = h
    return out
''')


# ============================================================== grading

def graded(grade, tmp_path, exercise, code):
    folder = copy_reference(tmp_path / "student")
    with open(folder / EXERCISE_FILE[exercise], "a", encoding="utf-8") as fh:
        fh.write("\n\n" + code)
    (result,) = grade(folder, [exercise]).exercises
    return result


SECTION_3 = ["step.swapped_weights", "step.missing_bias", "step.wrong_activation", "step.transposed_recurrent",
             "forward.state_not_carried", "forward.ignores_h0", "masking.padding_state",
             "masking.mean_over_padding", "masking.padding_in_loss", "masking.inclusive_mask",
             "readout.unstable_softmax", "readout.wrong_axis", "bptt.no_tanh_derivative",
             "bptt.no_recurrent_grad", "bptt.last_step_only", "bptt.uses_current_state", "clipping.per_tensor",
             "clipping.elementwise", "gradient_flow.spectral_norm", "gradient_flow.real_part",
             "birnn.reversed_padding", "birnn.unaligned_backward"]




def test_every_section_3_mistake_has_at_least_two_variants():
    variants, alone = {}, {}
    for exercise, mistake_id, _, not_named in MISTAKES.values():
        assert mistake_id.split(".")[0] == exercise
        variants[mistake_id] = variants.get(mistake_id, 0) + 1
        if not not_named:
            alone[mistake_id] = alone.get(mistake_id, 0) + 1
    assert sorted(variants) == sorted(SECTION_3)
    assert all(n >= 2 for n in variants.values()), variants
    assert {m for m in SECTION_3 if alone.get(m, 0) < 2} == set(), alone      # each named alone twice
    assert len(CORRECT) >= 5


def test_the_sources_are_not_the_reference_nor_the_mistake_files():
    for exercise, code in [(e, c) for e, _, c, _ in MISTAKES.values()] + list(CORRECT.values()):
        given = [REFERENCE / EXERCISE_FILE[exercise], *sorted((ROOT / "solutions/mistakes" / exercise).glob("*.py"))]
        known = {text for path in given for text in functions(path.read_text(encoding="utf-8")).values()}
        compile(code, EXERCISE_FILE[exercise], "exec")
        assert not known & set(functions(code).values()), code


def _mistake_params():
    for name, (exercise, mistake_id, code, not_named) in MISTAKES.items():
        marks = [pytest.mark.xfail(strict=True, raises=NotNamed, reason=not_named)] if not_named else []
        yield pytest.param(exercise, mistake_id, code, id=name, marks=marks)


@pytest.mark.parametrize("exercise, mistake_id, code", list(_mistake_params()))
def test_a_section_3_mistake_written_another_way_is_named(grade, tmp_path, exercise, mistake_id, code):
    ex = graded(grade, tmp_path, exercise, code)
    assert ex.problem is None, report(ex)
    assert ex.score < ex.max_score, report(ex)
    ids = [d.id for d in ex.diagnoses]
    if ids == []:
        raise NotNamed(report(ex))
    assert ids == [mistake_id], report(ex)


@pytest.mark.parametrize("exercise, code", list(CORRECT.values()), ids=list(CORRECT))
def test_correct_code_written_another_way_gets_full_marks_and_no_diagnosis(grade, tmp_path, exercise, code):
    ex = graded(grade, tmp_path, exercise, code)
    assert ex.problem is None, report(ex)
    assert [c.name for c in ex.checks if not c.passed] == [], report(ex)
    assert ex.score == ex.max_score, report(ex)
    assert [d.id for d in ex.diagnoses] == [], report(ex)
