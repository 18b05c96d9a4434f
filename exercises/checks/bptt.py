"""Checks of ``rnn_backward``: gradients of L = sum(Hs * dHs)."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

F = "rnn_backward"
KEYS = ("dX", "dh0", "dW_x", "dW_h", "db")


def backward_case(rng, B, T, d, H, with_h0=False, upstream="dense"):
    X = D.sequences(rng, B, T, d)
    dHs = rng.normal(0, 1, size=(B, T, H))
    if upstream == "last":
        dHs[:, :-1] = 0.0
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    label = D.rnn_label(B, T, d, H, **({"h0": "given"} if with_h0 else {}),
                        **({"dHs": "last step only"} if upstream == "last" else {}))
    return Case((X, *D.weights(rng, d, H), dHs), kwargs, label=label)


def expected_shapes(case: Case) -> dict:
    X, W_x, W_h, b = case.args[:4]
    B, T, d = X.shape
    H = W_h.shape[0]
    return {"dX": (B, T, d), "dh0": (B, H), "dW_x": (d, H), "dW_h": (H, H), "db": (H,)}


def expect_grads(got, case: Case, keys=KEYS):
    if not isinstance(got, dict):
        raise Fail("cmp.type", where="gradients", expected="dict", got=type(got).__name__, case=describe_case(case))
    missing = [k for k in keys if k not in got]
    if missing:
        raise Fail("cmp.keys", where="gradients", missing=", ".join(missing),
                   extra=", ".join(str(k) for k in got if k not in keys) or "-", case=describe_case(case))
    for key, shape in expected_shapes(case).items():
        D.expect_array(got[key], shape, case, what=key)


def values_only(got, expected):
    """Gradients as the value checks see them: an array with the right entries but extra or missing
    axes of size 1 (``db`` kept at (1, H)) is compared as the expected shape; keys_and_shapes alone
    judges the shapes."""
    if not isinstance(got, dict) or not isinstance(expected, dict):
        return got
    out = dict(got)
    for key, want in expected.items():
        have = got.get(key)
        if (isinstance(have, np.ndarray) and isinstance(want, np.ndarray) and have.shape != want.shape
                and have.size == want.size
                and tuple(n for n in have.shape if n != 1) == tuple(n for n in want.shape if n != 1)):
            out[key] = have.reshape(want.shape)
    return out


def forward_loss(X, W_x, W_h, b, dHs, h0):
    h = np.zeros((X.shape[0], W_h.shape[0])) if h0 is None else h0
    total = 0.0
    for t in range(X.shape[1]):
        h = np.tanh(X[:, t] @ W_x + h @ W_h + b)
        total += float(np.sum(h * dHs[:, t]))
    return total


def finite_differences(case: Case, eps=1e-6) -> dict:
    """Centred differences of L = sum(Hs * dHs) for every input of the loss."""
    X, W_x, W_h, b, dHs = (np.array(a, dtype=np.float64) for a in case.args)
    h0 = np.array(case.kwargs.get("h0", np.zeros((X.shape[0], W_h.shape[0]))), dtype=np.float64)
    named = {"dX": X, "dh0": h0, "dW_x": W_x, "dW_h": W_h, "db": b}
    grads = {}
    for key, array in named.items():
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            keep = array[index]
            array[index] = keep + eps
            plus = forward_loss(X, W_x, W_h, b, dHs, h0)
            array[index] = keep - eps
            minus = forward_loss(X, W_x, W_h, b, dHs, h0)
            array[index] = keep
            grad[index] = (plus - minus) / (2 * eps)
        grads[key] = grad
    return grads


def relative_error(got, expected) -> float:
    return float(np.linalg.norm(got - expected) / max(np.linalg.norm(got) + np.linalg.norm(expected), 1e-12))


@check("bptt", "keys_and_shapes")
def keys_and_shapes(ctx):
    # sizes of 1 too: the value checks forgive an axis of size 1 added or squeezed away, this one does not
    cases = ctx.cached("shapes", lambda rng: [backward_case(rng, 2, 4, 3, 5, with_h0=True),
                                              backward_case(rng, 1, 3, 2, 4),
                                              backward_case(rng, 2, 3, 2, 1, with_h0=True),
                                              backward_case(rng, 1, 1, 1, 1)])
    for case in cases:
        expect_grads(ctx.call(F, case), case)


@check("bptt", "finite_differences")
def finite_differences_check(ctx):
    case, numeric = ctx.cached("fd", lambda rng: _with_fd(backward_case(rng, 2, 4, 3, 3, with_h0=True)))
    got = values_only(ctx.call(F, case), numeric)
    expect_grads(got, case)
    for key in KEYS:
        error = relative_error(got[key], numeric[key])
        if not error <= 1e-6:
            raise Fail("prop.finite_differences", key=key, error=f"{error:.2e}", case=describe_case(case))


def _with_fd(case):
    return case, finite_differences(case)


@check("bptt", "matches_reference")
def matches_reference(ctx):
    def build(rng):
        first, second = backward_case(rng, 2, 5, 3, 4), backward_case(rng, 3, 3, 2, 2)
        # right after the first, an input with its shapes: gradients kept from that call show
        # T == 1, visible
        return [first, backward_case(rng, 2, 5, 3, 4), second, backward_case(rng, 2, 1, 3, 2, with_h0=True)]
    ctx.check_reference("reference", F, build, "gradients", values_only)


@check("bptt", "initial_state")
def initial_state(ctx):
    def build(rng):
        second = backward_case(rng, 1, 2, 2, 3, with_h0=True)
        X, W_x, W_h, b, dHs = second.args
        by_keyword = Case((X, W_x, W_h, b), {"dHs": dHs, **second.kwargs}, label=second.label + " (dHs by keyword)")
        return [backward_case(rng, 2, 4, 3, 4, with_h0=True), by_keyword]
    ctx.check_reference("h0", F, build, "gradients", values_only)


@check("bptt", "random_shapes")
def random_shapes(ctx):
    def build(rng):
        cases = [backward_case(rng, *rng.integers(1, 6, size=4), with_h0=bool(i % 2)) for i in range(5)]
        return cases + [backward_case(rng, 2, 3, 2, 1, with_h0=True), backward_case(rng, 1, 1, 1, 1)]
    ctx.check_reference("random", F, build, "gradients", values_only)


@check("bptt", "extreme_values")
def extreme_values(ctx):
    def build(rng):
        case = backward_case(rng, 3, 3, 3, 4, with_h0=True)
        D.saturate(case.args[0], case.args[1], rng)
        return [case]
    ctx.check_reference("extreme", F, build, "gradients", values_only)


@check("bptt", "sparse_upstream")
def sparse_upstream(ctx):
    ctx.check_reference("sparse", F, lambda rng: [backward_case(rng, 2, 6, 3, 3, upstream="last"),
                                                  backward_case(rng, 1, 4, 2, 4, with_h0=True, upstream="last")],
                        "gradients", values_only)


@check("bptt", "inputs_unchanged")
def inputs_unchanged(ctx):
    ctx.check_unchanged(F, ctx.cached("unchanged", lambda rng: backward_case(rng, 2, 4, 3, 3, with_h0=True)))


@check("bptt", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (backward_case(rng, 2, 3, 2, 3), backward_case(rng, 2, 3, 2, 3)))
    ctx.check_no_state(F, a, b, "gradients")
