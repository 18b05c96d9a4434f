"""Checks of ``truncated_rnn_backward``: BPTT in chunks of k steps."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D
from .bptt import backward_case, expect_grads, values_only

F = "truncated_rnn_backward"


def with_k(case: Case, k: int, upstream_from=None) -> Case:
    X, W_x, W_h, b, dHs = case.args
    if upstream_from is not None:
        dHs = dHs.copy()
        dHs[:, :upstream_from] = 0.0
    label = case.label + f", k={k}" + (f", dHs zero before t={upstream_from}" if upstream_from else "")
    return Case((X, W_x, W_h, b, dHs, k), dict(case.kwargs), label=label)


@check("truncation", "k_ge_T_equals_full")
def k_ge_T_equals_full(ctx):
    def build(rng):
        base = backward_case(rng, 2, 5, 3, 3, with_h0=True)
        return base, [with_k(base, 5), with_k(base, 9)]
    base, cases = ctx.cached("full", build)
    full = ctx.runtime.reference_function(ctx.exercise.file, "rnn_backward")(*base.args, **base.kwargs)
    for case in cases:
        ctx.assert_close(ctx.call(F, case), full, case, "gradients")


@check("truncation", "matches_reference")
def matches_reference(ctx):
    def build(rng):
        second = with_k(backward_case(rng, 3, 7, 2, 3), 3)
        by_keyword = Case(second.args[:5], {"k": 3}, label=second.label + " (k by keyword)")
        first = with_k(backward_case(rng, 2, 6, 3, 4), 2)
        # the last input has the first one's shapes and k: a result kept from an earlier call shows
        return [first, by_keyword, with_k(backward_case(rng, 2, 6, 3, 4), 2)]
    ctx.check_reference("reference", F, build, "gradients")


@check("truncation", "chunk_boundary")
def chunk_boundary(ctx):
    def build(rng):
        return [with_k(backward_case(rng, 2, 6, 3, 3, with_h0=True), 3, upstream_from=3),
                with_k(backward_case(rng, 1, 7, 2, 2), 2, upstream_from=4)]
    for case, expected in ctx.cases_with_expected("boundary", F, build):
        got = ctx.call(F, case)
        expect_grads(got, case)
        k = case.args[5]
        start = (int(np.flatnonzero(case.args[4].any(axis=(0, 2)))[0]) // k) * k
        if np.any(np.abs(got["dX"][:, :start]) > 1e-12) or np.any(np.abs(got["dh0"]) > 1e-12):
            raise Fail("prop.crosses_chunk", t=start, case=describe_case(case))
        ctx.assert_close(got, expected, case, "gradients")


@check("truncation", "k_equals_one")
def k_equals_one(ctx):
    ctx.check_reference("k1", F, lambda rng: [with_k(backward_case(rng, 2, 4, 2, 3, with_h0=True), 1)], "gradients")


@check("truncation", "initial_state")
def initial_state(ctx):
    ctx.check_reference("h0", F, lambda rng: [with_k(backward_case(rng, 2, 6, 3, 3, with_h0=True), 2),
                                              with_k(backward_case(rng, 2, 5, 2, 2, with_h0=True), 3)], "gradients")


@check("truncation", "extreme_values")
def extreme_values(ctx):
    def build(rng):
        case = backward_case(rng, 3, 4, 3, 4, with_h0=True)
        D.saturate(case.args[0], case.args[1], rng)
        return [with_k(case, 2)]
    ctx.check_reference("extreme", F, build, "gradients", values_only)


@check("truncation", "inputs_unchanged")
def inputs_unchanged(ctx):
    ctx.check_unchanged(F, ctx.cached("unchanged", lambda rng: with_k(backward_case(rng, 2, 5, 3, 3, with_h0=True), 2)))


@check("truncation", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (with_k(backward_case(rng, 2, 5, 2, 3), 2),
                                            with_k(backward_case(rng, 2, 5, 2, 3), 2)))
    ctx.check_no_state(F, a, b, "gradients")
