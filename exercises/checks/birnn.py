"""Checks of ``birnn_forward``: a masked forward pass and a per-row reversed pass."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

F = "birnn_forward"


def birnn_case(rng, B, T, d, H, lens=None, fill=0.0, with_h0=False):
    lens = D.lengths(rng, B, T) if lens is None else np.array(lens, dtype=np.int64)
    X = D.pad(D.sequences(rng, B, T, d), lens, fill)
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    label = D.rnn_label(B, T, d, H, lengths=lens.tolist(), padding=f"{fill:g}",
                        **({"h0": "given"} if with_h0 else {}))
    fwd, bwd = D.weights_for_padding(rng, d, H, fill), D.weights_for_padding(rng, d, H, fill)
    return Case((X, lens, fwd, bwd), kwargs, label=label)


def half_check(ctx, tag, part):
    cases = ctx.cases_with_expected(tag, F, lambda rng: [birnn_case(rng, 3, 5, 2, 3, lens=[5, 3, 1]),
                                                         birnn_case(rng, 2, 4, 3, 2, lens=[2, 4])])
    for case, expected in cases:
        got = ctx.call(F, case)
        D.expect_array(got, expected.shape, case, what="output")
        H = expected.shape[-1] // 2
        half = slice(0, H) if part == "forward" else slice(H, 2 * H)
        name = "output[..., :H]" if part == "forward" else "output[..., H:]"
        ctx.assert_close(got[..., half], expected[..., half], case, name)


@check("birnn", "shape")
def shape(ctx):
    case = ctx.cached("shape", lambda rng: birnn_case(rng, 2, 4, 3, 5, lens=[4, 2]))
    got = ctx.call(F, case)
    D.expect_array(got, (2, 4, 10), case, what="output")


@check("birnn", "forward_half")
def forward_half(ctx):
    half_check(ctx, "halves", "forward")


@check("birnn", "backward_half")
def backward_half(ctx):
    half_check(ctx, "halves", "backward")


@check("birnn", "matches_reference")
def matches_reference(ctx):
    # The last batch has the first one's shape and lengths, and padding holding ordinary numbers
    # (-1): a result kept from an earlier call, or an X cleaned in place, shows on these inputs.
    ctx.check_reference("reference", F, lambda rng: [birnn_case(rng, 4, 6, 3, 3, lens=[6, 4, 1, 5]),
                                                     birnn_case(rng, 2, 3, 2, 4, lens=[3, 2]),
                                                     birnn_case(rng, 2, 1, 2, 3, lens=[1, 1]),   # T == 1
                                                     birnn_case(rng, 4, 6, 3, 3, lens=[6, 4, 1, 5], fill=-1.0)],
                        "output")


@check("birnn", "padding_zero")
def padding_zero(ctx):
    for case, expected in ctx.cases_with_expected("zero", F, lambda rng: [birnn_case(rng, 3, 5, 2, 2, lens=[2, 5, 3])]):
        got = ctx.call(F, case)
        D.expect_array(got, expected.shape, case, what="output")
        for i, n in enumerate(case.args[1]):
            if np.any(got[i, n:] != 0.0):
                raise Fail("prop.padding_not_zero", row=i, t=int(n), case=describe_case(case))
        ctx.assert_close(got, expected, case, "output")


@check("birnn", "length_zero")
def length_zero(ctx):
    ctx.check_reference("empty", F, lambda rng: [birnn_case(rng, 3, 4, 2, 3, lens=[0, 4, 2]),
                                                 birnn_case(rng, 1, 2, 2, 2, lens=[0])], "output")


@check("birnn", "initial_state")
def initial_state(ctx):
    ctx.check_reference("h0", F, lambda rng: [birnn_case(rng, 3, 5, 2, 3, lens=[5, 2, 4], with_h0=True)], "output")


@check("birnn", "padding_values_ignored")
def padding_values_ignored(ctx):
    ctx.check_reference("nan", F, lambda rng: [birnn_case(rng, 3, 5, 2, 3, lens=[5, 2, 1], fill=np.nan),
                                               birnn_case(rng, 2, 4, 3, 2, lens=[1, 3], fill=1e6, with_h0=True),
                                               birnn_case(rng, 2, 4, 2, 2, lens=[2, 4], fill=np.inf)],
                        "output")


@check("birnn", "inputs_unchanged")
def inputs_unchanged(ctx):
    # Padding of NaN, then of a finite value: X *= mask leaves a NaN padding as it was (0 * NaN),
    # and only a finite one shows that it wrote into the caller's X.
    cases = ctx.cached("unchanged", lambda rng: (
        birnn_case(rng, 3, 4, 2, 3, lens=[4, 1, 0], fill=np.nan, with_h0=True),
        birnn_case(rng, 3, 4, 2, 3, lens=[4, 2, 1], fill=2.5, with_h0=True)))
    for case in cases:
        ctx.check_unchanged(F, case)


@check("birnn", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (birnn_case(rng, 3, 4, 2, 2, lens=[4, 2, 3]),
                                            birnn_case(rng, 3, 4, 2, 2, lens=[4, 2, 3])))
    ctx.check_no_state(F, a, b, "output")


@check("birnn", "extreme_values")
def extreme_values(ctx):
    # Pre-activations beyond +-1000 of both signs in both directions: a tanh written by hand
    # in the student's own loops overflows to NaN (one that calls rnn_forward_masked is graded
    # with a correct one where masking lost points).
    def build(rng):
        case = birnn_case(rng, 3, 4, 3, 4, lens=[4, 2, 3])
        X, _, fwd, bwd = case.args
        D.saturate(X, fwd[0], rng)
        return [case]
    ctx.check_reference("extreme", F, build, "output")
