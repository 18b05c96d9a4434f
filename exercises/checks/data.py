"""Random inputs for the RNN checks, and small shared assertions."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, describe_case


def weights(rng, d, H, recurrent_scale=0.9):
    W_x = rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, H))
    W_h = rng.normal(0.0, recurrent_scale / np.sqrt(H), size=(H, H))
    b = rng.normal(0.0, 0.5, size=H)
    return W_x, W_h, b


def weights_for_padding(rng, d, H, fill):
    """``weights``, and with infinite padding a first column of W_x with both signs (d >= 2): x_t W_x
    at a padded step is then inf - inf = NaN whatever the draw, so padding multiplied by a 0 mask
    (0 * NaN = NaN) instead of left out shows in every run."""
    W_x, W_h, b = weights(rng, d, H)
    if np.isinf(fill) and d >= 2 and (W_x[0, 0] > 0) == (W_x[1, 0] > 0):
        W_x[1, 0] = -W_x[1, 0]
    return W_x, W_h, b


def saturate(X, W_x, rng):
    """Pre-activations in the hundreds, and (B >= 2) one beyond +1000 and one beyond -1000 at every
    step whatever the seed: where a tanh written with exp(2z) or exp(-2z) overflows (to NaN)."""
    X *= 200.0
    column = W_x[:, int(rng.integers(W_x.shape[1]))]
    X[0, ...] = 1500.0 * column / float(column @ column)
    X[1, ...] = -X[0, ...]
    return X


def sequences(rng, B, T, d):
    return rng.normal(0.0, 1.0, size=(B, T, d))


def lengths(rng, B, T, include_zero=False, include_full=True):
    low = 0 if include_zero else 1
    out = rng.integers(low, T + 1, size=B)
    if include_full and B > 1:
        out[0] = T
    if include_zero and B > 2:
        out[-1] = 0
    return out.astype(np.int64)


def pad(X, lens, fill):
    """X with every padded position set to ``fill`` (NaN, garbage...)."""
    X = X.copy()
    for i, n in enumerate(lens):
        X[i, int(n):] = fill
    return X


def rnn_label(B, T=None, d=None, H=None, **extra):
    parts = [f"B={B}"] + [f"{k}={v}" for k, v in (("T", T), ("d", d), ("H", H)) if v is not None]
    parts += [f"{k}={v}" for k, v in extra.items()]
    return ", ".join(parts)


def expect_array(got, shape, case: Case, dtype_kind="f", what=""):
    """``got`` must be an ndarray of ``shape`` with a float (or bool: 'b') dtype."""
    if not isinstance(got, np.ndarray):
        raise Fail("prop.not_array", what=what, got=type(got).__name__, case=describe_case(case))
    if got.shape != tuple(shape):
        raise Fail("cmp.shape", where=what, expected=tuple(shape), got=got.shape, case=describe_case(case))
    if got.dtype.kind != dtype_kind or (dtype_kind == "f" and got.dtype != np.float64):
        expected = "bool" if dtype_kind == "b" else "float64"
        raise Fail("cmp.dtype", where=what, expected=expected, got=str(got.dtype), case=describe_case(case))


def expect_pair(got, case: Case, what: str):
    """``got`` must be a pair such as (Hs, h_last)."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Fail("cmp.type", where=what, expected="tuple of 2", got=type(got).__name__, case=describe_case(case))
    return got
