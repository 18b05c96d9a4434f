"""Checks of ``clip_by_global_norm``."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case

F = "clip_by_global_norm"


def grads_case(rng, target_norm, max_norm, shapes=None):
    shapes = shapes or {"dW_x": (3, 4), "dW_h": (4, 4), "db": (4,)}
    grads = {k: rng.normal(0, 1, size=s) for k, s in shapes.items()}
    total = np.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    grads = {k: g * (target_norm / total) for k, g in grads.items()}
    return Case((grads, max_norm), label=f"global norm {target_norm:g}, max_norm={max_norm:g}")


def expect_result(got, case):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Fail("cmp.type", where="(clipped, total_norm)", expected="tuple of 2", got=type(got).__name__,
                   case=describe_case(case))
    clipped, total = got
    if not isinstance(clipped, dict):
        raise Fail("cmp.type", where="clipped", expected="dict", got=type(clipped).__name__, case=describe_case(case))
    return clipped, total


def global_norm(grads):
    return float(np.sqrt(sum(float(np.sum(np.asarray(g, dtype=np.float64) ** 2)) for g in grads.values())))


def OVER(rng):
    case = grads_case(rng, 3.0, 0.5)
    by_keyword = Case(case.args[:1], {"max_norm": case.args[1]}, label=case.label + " (max_norm by keyword)")
    return [grads_case(rng, 12.0, 5.0), by_keyword]
def UNDER(rng):
    # 3 under 5 tells the norm from the sum of squares (9 > 5); zeros must not divide by zero.
    zeros = Case(({"dW_x": np.zeros((3, 4)), "dW_h": np.zeros((4, 4)), "db": np.zeros(4)}, 1.0),
                 label="all-zero gradients, max_norm=1")
    return [grads_case(rng, 2.0, 5.0), grads_case(rng, 5.0, 5.0), grads_case(rng, 3.0, 5.0), zeros]


@check("clipping", "total_norm")
def total_norm(ctx):
    for case, expected in ctx.cases_with_expected("over", F, OVER) + ctx.cases_with_expected("under", F, UNDER):
        _, total = expect_result(ctx.call(F, case), case)
        ctx.assert_close(total, expected[1], case, "total_norm")


@check("clipping", "clips_over_limit")
def clips_over_limit(ctx):
    for case, expected in ctx.cases_with_expected("over", F, OVER):
        clipped, _ = expect_result(ctx.call(F, case), case)
        ctx.assert_close(clipped, expected[0], case, "clipped")


@check("clipping", "keeps_under_limit")
def keeps_under_limit(ctx):
    for case, expected in ctx.cases_with_expected("under", F, UNDER):
        clipped, _ = expect_result(ctx.call(F, case), case)
        if any(where == "result[0]" for where, _ in ctx.last.aliases):
            raise Fail("prop.same_dict", name=F, case=describe_case(case))
        ctx.assert_close(clipped, expected[0], case, "clipped")


@check("clipping", "direction_kept")
def direction_kept(ctx):
    for case in ctx.cached("direction", lambda rng: [grads_case(rng, 40.0, 1.0), grads_case(rng, 7.0, 2.0)]):
        clipped, _ = expect_result(ctx.call(F, case), case)
        grads = case.args[0]
        ratios = []
        for key, g in grads.items():
            c = np.asarray(clipped.get(key), dtype=np.float64) if key in clipped else None
            if c is None or c.shape != g.shape:
                raise Fail("cmp.keys", where="clipped", missing=key, extra="-", case=describe_case(case))
            ratios.append(np.sum(c * g) / np.sum(g * g))
            if not np.allclose(c, ratios[-1] * g, rtol=1e-9, atol=1e-12) or ratios[-1] <= 0:
                raise Fail("prop.direction_changed", key=key, case=describe_case(case))
        if not np.allclose(ratios, ratios[0], rtol=1e-9):
            raise Fail("prop.factors_differ", case=describe_case(case))


@check("clipping", "norm_bounded")
def norm_bounded(ctx):
    for case in ctx.cached("bounded", lambda rng: [grads_case(rng, 100.0, 3.0), grads_case(rng, 1.5, 1.0)]):
        clipped, _ = expect_result(ctx.call(F, case), case)
        norm = global_norm(clipped)
        if not norm <= case.args[1] * (1 + 1e-9):
            raise Fail("prop.norm_exceeds", norm=f"{norm:.6g}", max_norm=case.args[1], case=describe_case(case))
        ctx.assert_close(clipped, ctx.expected(F, case)[0], case, "clipped")


@check("clipping", "inputs_unchanged")
def inputs_unchanged(ctx):
    ctx.check_unchanged(F, ctx.cached("unchanged", lambda rng: grads_case(rng, 10.0, 1.0)))


@check("clipping", "same_keys")
def same_keys(ctx):
    def build(rng):
        grads = {"a": rng.normal(size=(2, 3)), "b": rng.normal(size=5), "W": rng.normal(size=(1, 1))}
        return Case((grads, 0.1), label="keys a, b, W; max_norm=0.1")
    case = ctx.cached("keys", build)
    clipped, _ = expect_result(ctx.call(F, case), case)
    ctx.assert_close(clipped, ctx.expected(F, case)[0], case, "clipped")


@check("clipping", "no_state")
def no_state(ctx):
    # shapes no other check uses: a cache keyed on shapes starts empty here, so its first call is right
    shapes = {"dW_x": (2, 3), "dW_h": (3, 3), "db": (3,)}
    a, b = ctx.cached("state", lambda rng: (grads_case(rng, 9.0, 2.0, shapes), grads_case(rng, 4.0, 2.0, shapes)))
    ctx.check_no_state(F, a, b, "(clipped, total_norm)")
