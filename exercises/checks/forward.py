"""Checks of ``rnn_forward``: the state sequence Hs (B, T, H)."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

F = "rnn_forward"


def forward_case(rng, B, T, d, H, with_h0=False):
    X = D.sequences(rng, B, T, d)
    args = (X, *D.weights(rng, d, H))
    if with_h0:
        return Case(args, {"h0": rng.uniform(-1, 1, size=(B, H))}, label=D.rnn_label(B, T, d, H, h0="given"))
    return Case(args, label=D.rnn_label(B, T, d, H))


@check("forward", "shape_dtype")
def shape_dtype(ctx):
    case = ctx.cached("shape", lambda rng: forward_case(rng, 2, 5, 3, 4))
    got = ctx.call(F, case)
    D.expect_array(got, (2, 5, 4), case, what="Hs")


@check("forward", "matches_reference")
def matches_reference(ctx):
    # d == 1 with B > 1 (a squeezed time slice loses its batch axis) and T == 1, visible
    ctx.check_reference("reference", F, lambda rng: [forward_case(rng, 2, 5, 3, 4), forward_case(rng, 3, 4, 4, 4),
                                                     forward_case(rng, 3, 4, 1, 2), forward_case(rng, 2, 1, 3, 4)],
                        "Hs")


@check("forward", "initial_state")
def initial_state(ctx):
    ctx.check_reference("h0", F, lambda rng: [forward_case(rng, 2, 4, 3, 5, with_h0=True),
                                              forward_case(rng, 1, 6, 2, 2, with_h0=True),
                                              forward_case(rng, 2, 3, 2, 1, with_h0=True)], "Hs")


@check("forward", "single_step")
def single_step(ctx):
    ctx.check_reference("single", F, lambda rng: [forward_case(rng, 3, 1, 2, 4, with_h0=True),
                                                  forward_case(rng, 1, 1, 1, 1)], "Hs")


@check("forward", "random_shapes")
def random_shapes(ctx):
    def build(rng):
        return [forward_case(rng, *rng.integers(1, 7, size=4), with_h0=bool(i % 2)) for i in range(6)]
    ctx.check_reference("random", F, build, "Hs")


@check("forward", "extreme_values")
def extreme_values(ctx):
    def build(rng):
        case = forward_case(rng, 3, 4, 3, 5)
        D.saturate(case.args[0], case.args[1], rng)
        return [case]
    ctx.check_reference("extreme", F, build, "Hs")


@check("forward", "step_consistency")
def step_consistency(ctx):
    case = ctx.cached("consistency", lambda rng: forward_case(rng, 3, 6, 4, 3, with_h0=True))
    Hs = ctx.call(F, case)
    X, W_x, W_h, b = case.args
    D.expect_array(Hs, (3, 6, 3), case, what="Hs")
    prev = case.kwargs["h0"]
    for t in range(X.shape[1]):
        step = np.tanh(X[:, t] @ W_x + prev @ W_h + b)
        if not np.allclose(Hs[:, t], step, rtol=ctx.rtol, atol=ctx.atol):
            raise Fail("prop.recurrence", t=t, case=describe_case(case))
        prev = Hs[:, t]


@check("forward", "inputs_unchanged")
def inputs_unchanged(ctx):
    case = ctx.cached("unchanged", lambda rng: forward_case(rng, 2, 4, 3, 3, with_h0=True))
    ctx.check_unchanged(F, case)


@check("forward", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (forward_case(rng, 2, 4, 3, 3), forward_case(rng, 2, 4, 3, 3)))
    ctx.check_no_state(F, a, b, "Hs")
