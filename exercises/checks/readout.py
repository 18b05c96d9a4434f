"""Checks of softmax and the many-to-one readout."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D
from .masking import forward_case

SM = "softmax"
PR = "many_to_one_probs"


def logits_case(rng, shape, scale=2.0, axis=None):
    z = rng.normal(0, scale, size=shape)
    label = f"z shape={shape}, scale={scale:g}" + (f", axis={axis}" if axis is not None else "")
    return Case((z,), {} if axis is None else {"axis": axis}, label=label)


def probs_case(rng, B, T, d, H, C, fill=0.0, lens=None, include_zero=False):
    base = forward_case(rng, B, T, d, H, fill=fill, lens=lens, include_zero=include_zero)
    W_o = rng.normal(0, 1.5, size=(H, C))
    b_o = rng.normal(0, 1.0, size=C)
    return Case((*base.args, W_o, b_o), label=base.label + f", C={C}")


@check("readout", "softmax_reference")
def softmax_reference(ctx):
    ctx.check_reference("sm", SM, lambda rng: [logits_case(rng, (4, 5)), logits_case(rng, (1, 3))], "probabilities")


@check("readout", "softmax_axis")
def softmax_axis(ctx):
    ctx.check_reference("sm_axis", SM, lambda rng: [logits_case(rng, (4, 3), axis=0), logits_case(rng, (3, 5), axis=1),
                                                    logits_case(rng, (2, 4, 3), axis=1),
                                                    logits_case(rng, (3, 2, 4), axis=0),
                                                    logits_case(rng, (2, 3, 4), axis=-2)], "probabilities")


def huge_logits_case(rng, shape, scale, axis=None):
    """Logits of magnitude ``scale``, and whatever the draw: along the axis, one slice with two logits
    beyond exp's range but far apart (clipping them would make them equal), and one slice lying
    wholly 1500 below the largest logit (a shift by the global maximum underflows there to 0 / 0)."""
    case = logits_case(rng, shape, scale=scale, axis=axis)
    slices = np.moveaxis(case.args[0], -1 if axis is None else axis, -1)   # a view: writes go to z
    slices[0, :2] = rng.uniform(600.0, 900.0), rng.uniform(1200.0, 1500.0)
    slices[1] += slices[0].max() - 1500.0 - rng.uniform(0.0, 500.0) - slices[1].max()
    return case


@check("readout", "softmax_stable")
def softmax_stable(ctx):
    ctx.check_reference("sm_stable", SM, lambda rng: [huge_logits_case(rng, (3, 4), scale=1e3),
                                                      huge_logits_case(rng, (4, 2), scale=2e3, axis=0)],
                        "probabilities")


@check("readout", "softmax_sums_to_one")
def softmax_sums_to_one(ctx):
    def build(rng):
        # Shapes and values are drawn; the axes are such that normalising over the first axis, the
        # last or all entries instead fails whatever the seed (every size of a 2-D or 3-D case >= 2).
        def shape(ndim):
            return tuple(int(n) for n in rng.integers(2, 6, size=ndim))
        return [logits_case(rng, (int(rng.integers(1, 6)),), scale=5.0, axis=int(rng.choice([0, -1]))),
                logits_case(rng, shape(2), scale=5.0, axis=int(rng.choice([0, -2]))),
                logits_case(rng, shape(3), scale=5.0, axis=int(rng.choice([1, -2]))),
                logits_case(rng, shape(3), scale=5.0, axis=int(rng.choice([2, -1])))]
    for case, expected in ctx.cases_with_expected("sm_sum", SM, build):
        got = ctx.call(SM, case)
        D.expect_array(got, expected.shape, case, what="probabilities")
        axis = case.kwargs.get("axis", -1)
        if not ((got >= 0).all() and np.allclose(got.sum(axis=axis), 1.0, rtol=1e-9, atol=1e-9)):
            raise Fail("prop.not_distribution", axis=axis, case=describe_case(case))
        ctx.assert_close(got, expected, case, "probabilities")


@check("readout", "probs_reference")
def probs_reference(ctx):
    # The last batch has the first one's shape and lengths, and padding holding ordinary numbers
    # (-1): a result kept from an earlier call, or an X cleaned in place, shows on these inputs.
    ctx.check_reference("probs", PR, lambda rng: [probs_case(rng, 3, 5, 2, 4, 3, lens=[5, 2, 4]),
                                                  probs_case(rng, 2, 3, 3, 3, 2, lens=[3, 3]),
                                                  probs_case(rng, 1, 3, 2, 2, 3, lens=[2]),
                                                  probs_case(rng, 2, 3, 2, 2, 1, lens=[3, 1]),
                                                  probs_case(rng, 3, 5, 2, 4, 3, fill=-1.0, lens=[5, 2, 4])],
                        "probabilities")


@check("readout", "probs_last_valid_step")
def probs_last_valid_step(ctx):
    ctx.check_reference("probs_last", PR, lambda rng: [probs_case(rng, 4, 6, 2, 3, 4, lens=[1, 6, 3, 2]),
                                                       probs_case(rng, 3, 4, 3, 2, 3, lens=[2, 0, 4])], "probabilities")


@check("readout", "probs_padding_ignored")
def probs_padding_ignored(ctx):
    ctx.check_reference("probs_nan", PR, lambda rng: [probs_case(rng, 3, 5, 2, 3, 3, fill=np.nan, lens=[5, 1, 3]),
                                                      probs_case(rng, 2, 4, 2, 2, 2, fill=1e6, lens=[2, 4]),
                                                      probs_case(rng, 2, 4, 2, 2, 2, fill=-np.inf, lens=[2, 3])],
                        "probabilities")


@check("readout", "inputs_unchanged")
def inputs_unchanged(ctx):
    cases = ctx.cached("unchanged", lambda rng: [(SM, logits_case(rng, (3, 4), axis=0)),
                                                 (PR, probs_case(rng, 3, 4, 2, 3, 3, fill=np.nan, lens=[4, 2, 1]))])
    for func, case in cases:
        ctx.check_unchanged(func, case)


@check("readout", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (probs_case(rng, 3, 4, 2, 3, 3, lens=[4, 2, 3]),
                                            probs_case(rng, 3, 4, 2, 3, 3, lens=[4, 2, 3])))
    ctx.check_no_state(PR, a, b, "probabilities")
