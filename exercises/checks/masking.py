"""Checks of masking: padded positions must never matter."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

GARBAGE = 1e6


def forward_case(rng, B, T, d, H, fill=np.nan, with_h0=False, include_zero=False, lens=None):
    lens = D.lengths(rng, B, T, include_zero=include_zero) if lens is None else np.array(lens, dtype=np.int64)
    X = D.pad(D.sequences(rng, B, T, d), lens, fill)
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    label = D.rnn_label(B, T, d, H, lengths=lens.tolist(), padding=_fill_name(fill),
                        **({"h0": "given"} if with_h0 else {}))
    return Case((X, lens, *D.weights_for_padding(rng, d, H, fill)), kwargs, label=label)


def _fill_name(fill):
    return "NaN" if np.isnan(fill) else ("zeros" if fill == 0 else f"{fill:g}")  # inf prints as inf


def states_case(rng, B, T, H, fill=np.nan, lens=None):
    lens = D.lengths(rng, B, T, include_zero=True) if lens is None else np.array(lens, dtype=np.int64)
    Hs = D.pad(rng.uniform(-1, 1, size=(B, T, H)), lens, fill)
    return Case((Hs, lens), label=D.rnn_label(B, T, H=H, lengths=lens.tolist(), padding=_fill_name(fill)))


def loss_case(rng, B, T, V, lens=None, scale=3.0, pad_target=0, pad_logit=0.0):
    lens = D.lengths(rng, B, T) if lens is None else np.array(lens, dtype=np.int64)
    logits = D.pad(rng.normal(0, scale, size=(B, T, V)), lens, pad_logit)
    targets = rng.integers(0, V, size=(B, T))
    for i, n in enumerate(lens):
        targets[i, n:] = pad_target
    label = D.rnn_label(B, T, V=V, lengths=lens.tolist(), scale=f"{scale:g}", padding_targets=pad_target)
    return Case((logits, targets.astype(np.int64), lens), label=label)


# ------------------------------------------------------------------ sequence_mask

@check("masking", "mask_reference")
def mask_reference(ctx):
    cases = [Case((np.array([3, 1, 5, 2]), 5), label="lengths=[3, 1, 5, 2], T=5"),
             Case((), {"lengths": np.array([2, 4]), "T": 6}, label="lengths=[2, 4], T=6 (by keyword)")]
    ctx.check_reference("mask", "sequence_mask", lambda rng: cases, "mask")


def edge_lengths(rng, B, T):
    """Random lengths in [0, T] with at least one 0 and one T (B >= 2), at random rows."""
    lens = rng.integers(0, T + 1, size=B)
    first, second = rng.choice(B, size=2, replace=False)
    lens[first], lens[second] = 0, T
    return lens.astype(np.int64)


def mask_case(lens, T):
    return Case((lens, T), label=f"lengths={lens.tolist()}, T={T}")


@check("masking", "mask_edges")
def mask_edges(ctx):
    # Hidden: the edges are fixed (a length 0, a length T, T = 1), the rest is drawn.
    def build(rng):
        T = int(rng.integers(2, 8))
        return [mask_case(edge_lengths(rng, int(rng.integers(3, 7)), T), T),
                mask_case(edge_lengths(rng, int(rng.integers(2, 6)), 1), 1),
                mask_case(np.zeros(1, dtype=np.int64), int(rng.integers(1, 7)))]
    ctx.check_reference("mask_edges", "sequence_mask", build, "mask")


# ------------------------------------------------------------------ rnn_forward_masked

FM = "rnn_forward_masked"


@check("masking", "forward_masked_reference")
def forward_masked_reference(ctx):
    # The last batch has the first one's shape and lengths, and padding holding ordinary numbers
    # (-1): a result kept from an earlier call, or an X cleaned in place, shows on these inputs.
    ctx.check_reference("fm", FM, lambda rng: [forward_case(rng, 3, 5, 2, 4, fill=0.0, lens=[5, 2, 3]),
                                               forward_case(rng, 2, 4, 3, 3, fill=0.0, lens=[1, 4]),
                                               forward_case(rng, 3, 3, 2, 2, fill=0.0, lens=[1, 3, 2]),
                                               forward_case(rng, 2, 1, 3, 2, fill=0.0, lens=[1, 1]),   # T == 1
                                               forward_case(rng, 3, 5, 2, 4, fill=-1.0, lens=[5, 2, 3])],
                        "(Hs, h_last)")


@check("masking", "forward_masked_extreme")
def forward_masked_extreme(ctx):
    def build(rng):
        case = forward_case(rng, 3, 4, 3, 4, fill=0.0, lens=[4, 3, 2])
        X, lens, W_x = case.args[0], case.args[1], case.args[2]
        D.saturate(X, W_x, rng)
        return [Case((D.pad(X, lens, 0.0), *case.args[1:]), case.kwargs,
                     label=case.label + ", pre-activations beyond ±1000")]
    ctx.check_reference("extreme", FM, build, "(Hs, h_last)")


@check("masking", "forward_masked_h0")
def forward_masked_h0(ctx):
    ctx.check_reference("fm_h0", FM, lambda rng: [forward_case(rng, 3, 4, 2, 3, with_h0=True, lens=[4, 0, 2]),
                                                  forward_case(rng, 2, 3, 3, 2, with_h0=True, lens=[0, 0])],
                        "(Hs, h_last)")


@check("masking", "padding_values_ignored")
def padding_values_ignored(ctx):
    ctx.check_reference("fm_nan", FM, lambda rng: [forward_case(rng, 4, 6, 3, 3, fill=np.nan, include_zero=True),
                                                   forward_case(rng, 3, 5, 2, 4, fill=GARBAGE, with_h0=True),
                                                   forward_case(rng, 3, 4, 2, 2, fill=np.inf, lens=[4, 1, 2]),
                                                   forward_case(rng, 2, 3, 2, 3, fill=-np.inf, lens=[1, 3])],
                        "(Hs, h_last)")


@check("masking", "extra_padding")
def extra_padding(ctx):
    def build(rng):
        base = forward_case(rng, 3, 4, 2, 3, fill=0.0, lens=[4, 2, 1])
        X, lens, *weights = base.args
        longer = np.concatenate([X, np.full((3, 3, 2), np.nan)], axis=1)
        return base, Case((longer, lens, *weights), label=base.label + ", 3 more padded steps")
    base, longer = ctx.cached("extra", build)
    expected = ctx.expected(FM, base)
    got = ctx.call(FM, base)
    ctx.assert_close(got, expected, base, "(Hs, h_last)")
    Hs_long, h_last_long = D.expect_pair(ctx.call(FM, longer), longer, "(Hs, h_last)")
    D.expect_array(Hs_long, (3, 7, 3), longer, what="Hs")
    ctx.assert_close(Hs_long[:, :4], expected[0], longer, "Hs[:, :T]")
    ctx.assert_close(Hs_long[:, 4:], np.zeros((3, 3, 3)), longer, "Hs[:, T:]")
    ctx.assert_close(h_last_long, expected[1], longer, "h_last")


@check("masking", "equals_unpadded")
def equals_unpadded(ctx):
    base = ctx.cached("unpadded", lambda rng: forward_case(rng, 3, 5, 2, 3, fill=np.nan, lens=[5, 3, 1], with_h0=True))
    X, lens, W_x, W_h, b = base.args
    h0 = base.kwargs["h0"]
    got = ctx.call(FM, base)
    ctx.assert_close(got, ctx.expected(FM, base), base, "(Hs, h_last)")
    alone_cases = ctx.cached("unpadded_alone", lambda rng: [
        Case((X[i:i + 1, :n], np.array([n]), W_x, W_h, b), {"h0": h0[i:i + 1]},
             label=f"row {i} alone, T={n}, no padding")
        for i, n in enumerate(lens)])
    for i, (n, alone) in enumerate(zip(lens, alone_cases)):
        Hs_i, h_last_i = D.expect_pair(ctx.call(FM, alone), alone, "(Hs, h_last)")
        D.expect_array(Hs_i, (1, n, W_x.shape[1]), alone, what="Hs")
        if not (np.allclose(Hs_i, got[0][i:i + 1, :n], rtol=ctx.rtol, atol=ctx.atol)
                and np.allclose(h_last_i, got[1][i:i + 1], rtol=ctx.rtol, atol=ctx.atol)):
            raise Fail("prop.unpadded_differs", row=i, case=describe_case(base))


# ------------------------------------------------------------------ readouts of the states

@check("masking", "last_valid_state")
def last_valid_state(ctx):
    ctx.check_reference("last", "last_valid_state",
                        lambda rng: [states_case(rng, 4, 5, 3, fill=GARBAGE, lens=[5, 2, 1, 3]),
                                     states_case(rng, 3, 3, 2, fill=np.nan, lens=[0, 3, 1])], "h_last")


@check("masking", "mean_pool")
def mean_pool(ctx):
    ctx.check_reference("pool", "masked_mean_pool",
                        lambda rng: [states_case(rng, 3, 5, 4, fill=GARBAGE, lens=[5, 2, 3]),
                                     states_case(rng, 2, 4, 2, fill=GARBAGE, lens=[1, 4])], "pooled")


@check("masking", "mean_pool_empty")
def mean_pool_empty(ctx):
    ctx.check_reference("pool_empty", "masked_mean_pool",
                        lambda rng: [states_case(rng, 3, 4, 3, fill=np.nan, lens=[0, 4, 2]),
                                     all_empty_states(rng),
                                     states_case(rng, 2, 3, 2, fill=np.inf, lens=[1, 0])], "pooled")


def all_empty_states(rng):
    """Every row of length 0 (so every value is padding): a drawn shape, for a hidden check."""
    B, T, H = (int(n) for n in rng.integers(1, 5, size=3))
    return states_case(rng, B, T, H, fill=np.nan, lens=[0] * B)


# ------------------------------------------------------------------ the loss

CE = "masked_cross_entropy"


@check("masking", "cross_entropy_reference")
def cross_entropy_reference(ctx):
    ctx.check_reference("ce", CE, lambda rng: [loss_case(rng, 3, 5, 4, lens=[5, 2, 3]),
                                               loss_case(rng, 2, 3, 6, lens=[1, 3])], "loss")


@check("masking", "cross_entropy_padding_targets")
def cross_entropy_padding_targets(ctx):
    ctx.check_reference("ce_pad", CE,
                        lambda rng: [loss_case(rng, 3, 5, 4, lens=[5, 1, 3], pad_target=-1, pad_logit=np.nan),
                                     loss_case(rng, 2, 4, 3, lens=[2, 4], pad_target=99, pad_logit=GARBAGE)],
                        "loss")


@check("masking", "cross_entropy_stable")
def cross_entropy_stable(ctx):
    ctx.check_reference("ce_stable", CE, lambda rng: [loss_case(rng, 3, 4, 5, lens=[4, 2, 3], scale=1e3),
                                                      loss_case(rng, 2, 3, 4, lens=[3, 1], scale=3e3)], "loss")


@check("masking", "cross_entropy_empty")
def cross_entropy_empty(ctx):
    def build(rng):
        B, T, V = (int(n) for n in rng.integers(1, 6, size=3))
        return [loss_case(rng, B, T, V + 1, lens=[0] * B, pad_target=int(rng.choice([-1, V + 1, 99])),
                          pad_logit=np.nan)]
    for case, expected in ctx.cases_with_expected("ce_empty", CE, build):
        got = ctx.call(CE, case)
        if not isinstance(got, float):   # np.float64 is a float; 0, np.float32 and 0-d arrays are not
            raise Fail("prop.not_float", name=CE, got=ctx.last_type, case=describe_case(case))
        ctx.assert_close(got, expected, case, "loss")


@check("masking", "inputs_unchanged")
def inputs_unchanged(ctx):
    def build(rng):
        T = int(rng.integers(2, 6))
        return [("sequence_mask", mask_case(edge_lengths(rng, 3, T), T)),
                (FM, forward_case(rng, 3, 4, 2, 3, fill=np.nan, with_h0=True, lens=[4, 0, 2])),
                ("last_valid_state", states_case(rng, 3, 4, 2, lens=[4, 0, 2])),
                ("masked_mean_pool", states_case(rng, 3, 4, 2, lens=[4, 0, 2])),
                (CE, loss_case(rng, 2, 4, 3, lens=[4, 2], pad_target=-1, pad_logit=np.nan))]
    for func, case in ctx.cached("unchanged", build):
        ctx.check_unchanged(func, case)


@check("masking", "no_state")
def no_state(ctx):
    # shapes and lengths no other check uses: a cache keyed on them starts empty here
    a, b = ctx.cached("state", lambda rng: (forward_case(rng, 3, 5, 2, 2, lens=[5, 3, 1]),
                                            forward_case(rng, 3, 5, 2, 2, lens=[5, 3, 1])))
    ctx.check_no_state(FM, a, b, "(Hs, h_last)")
