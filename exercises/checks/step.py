"""Checks of ``rnn_step``: h_t = tanh(x_t W_x + h_{t-1} W_h + b)."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

F = "rnn_step"


def step_case(rng, B, d, H, x_scale=1.0):
    x = rng.normal(0.0, x_scale, size=(B, d))
    h = rng.uniform(-1.0, 1.0, size=(B, H))
    return Case((x, h, *D.weights(rng, d, H)), label=D.rnn_label(B, d=d, H=H))


@check("step", "shape_dtype")
def shape_dtype(ctx):
    case = ctx.cached("shape", lambda rng: step_case(rng, 3, 4, 5))
    got = ctx.call(F, case)
    D.expect_array(got, (3, 5), case, what="h_t")


@check("step", "matches_reference")
def matches_reference(ctx):
    ctx.check_reference("reference", F, lambda rng: [step_case(rng, 2, 3, 4), step_case(rng, 4, 5, 2),
                                                     step_case(rng, 1, 1, 3), step_case(rng, 3, 2, 1)], "h_t")


@check("step", "square_case")
def square_case(ctx):
    ctx.check_reference("square", F, lambda rng: [step_case(rng, 3, 4, 4), step_case(rng, 2, 2, 2)], "h_t")


@check("step", "random_shapes")
def random_shapes(ctx):
    def build(rng):
        return [step_case(rng, *rng.integers(1, 8, size=3)) for _ in range(6)]
    ctx.check_reference("random", F, build, "h_t")


def huge_case(rng, B, d, H):
    """Pre-activations in the hundreds, and (B >= 2) one beyond +1000 and one beyond -1000 whatever
    the seed: where exp(2z) or exp(-2z) overflows."""
    case = step_case(rng, B, d, H)
    D.saturate(case.args[0], case.args[2], rng)
    return case


@check("step", "tanh_bounds")
def tanh_bounds(ctx):
    cases = ctx.cases_with_expected("bounds", F, lambda rng: [huge_case(rng, 3, 4, 5)])
    for case, expected in cases:
        got = ctx.call(F, case)
        D.expect_array(got, expected.shape, case, what="h_t")
        if not np.isfinite(got).all():   # NaN or inf is not "outside [-1, 1]": the comparison says which
            ctx.assert_close(got, expected, case, "h_t")
        if not (abs(got) <= 1.0).all():
            raise Fail("prop.tanh_bounds", name=F, case=describe_case(case))
        ctx.assert_close(got, expected, case, "h_t")


@check("step", "inputs_unchanged")
def inputs_unchanged(ctx):
    ctx.check_unchanged(F, ctx.cached("unchanged", lambda rng: step_case(rng, 3, 4, 4)))


@check("step", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (step_case(rng, 2, 3, 4), step_case(rng, 2, 3, 4)))
    ctx.check_no_state(F, a, b, "h_t")
