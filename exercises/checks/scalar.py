"""Checks of ``scalar_rnn``: chapter 14's one-number RNN, state after each element."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case

F = "scalar_rnn"


def as_list(got):
    """Values are judged on their own; ``returns_floats`` judges the type."""
    if isinstance(got, np.ndarray) and got.ndim == 1:
        return [float(v) for v in got]
    if isinstance(got, tuple):
        return list(got)
    return got


def compare_cases(ctx, tag, build):
    for case, expected in ctx.cases_with_expected(tag, F, build):
        ctx.assert_close(as_list(ctx.call(F, case)), expected, case, "states")


@check("scalar", "chapter_example")
def chapter_example(ctx):
    compare_cases(ctx, "seed", lambda rng: [Case(([1.0, 0.0, -1.0],), label="sequence=[1.0, 0.0, -1.0]")])


@check("scalar", "reverse_order")
def reverse_order(ctx):
    compare_cases(ctx, "reverse", lambda rng: [Case(([-1.0, 0.0, 1.0],), label="sequence=[-1.0, 0.0, 1.0]")])


@check("scalar", "returns_floats")
def returns_floats(ctx):
    case = ctx.cached("floats", lambda rng: Case(([0.5, -0.25, 2.0, 1.0],), label="sequence=[0.5, -0.25, 2.0, 1.0]"))
    got = ctx.call(F, case)
    if not isinstance(got, list):
        raise Fail("prop.not_list", name=F, got=ctx.last_type or type(got).__name__, case=describe_case(case))
    if len(got) != 4:
        raise Fail("cmp.length", where="states", expected=4, got=len(got), case=describe_case(case))
    bad = [v for v in got if not isinstance(v, float)]   # np.float64 is a float; np.float32 and ints are not
    if bad:
        raise Fail("prop.not_float_items", name=F, got=type(bad[0]).__name__, case=describe_case(case))


@check("scalar", "custom_parameters")
def custom_parameters(ctx):
    def build(rng):
        seq = [0.3, -1.2, 0.8, 0.0, 2.0]
        return [Case((seq,), {"w_x": 0.7, "w_h": -1.3, "b": 0.25}, label="w_x=0.7, w_h=-1.3, b=0.25 (keywords)"),
                Case((seq, 2.0, 0.9, -0.5), label="w_x=2.0, w_h=0.9, b=-0.5 (positional)"),
                Case((seq,), {"w_h": 0.0}, label="w_h=0.0 (keyword)"),
                Case((seq,), {"w_x": 0.0, "b": 0.5}, label="w_x=0.0, b=0.5 (keywords)")]
    compare_cases(ctx, "params", build)


@check("scalar", "empty_sequence")
def empty_sequence(ctx):
    def build(rng):
        w_x, w_h, b = (round(float(v), 3) for v in rng.normal(0, 1, size=3))
        return [Case(([],), {"w_x": w_x, "w_h": w_h, "b": b}, label=f"sequence=[], w_x={w_x}, w_h={w_h}, b={b}")]
    compare_cases(ctx, "empty", build)


@check("scalar", "random_sequences")
def random_sequences(ctx):
    def build(rng):
        out = []
        for n in (1, 2, 7, 12):
            seq = [float(v) for v in rng.normal(0, 1.5, size=n)]
            w_x, w_h, b = (float(v) for v in rng.normal(0, 1, size=3))
            if n == 7:   # any sequence will do, not only a list
                seq = tuple(seq)
            kind = type(seq).__name__
            out.append(Case((seq,), {"w_x": w_x, "w_h": w_h, "b": b}, label=f"a {kind} of {n}, random w_x, w_h, b"))
        return out
    compare_cases(ctx, "random", build)
