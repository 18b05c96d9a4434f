"""Checks of the spectral radius and of how far gradients travel back in time."""

from __future__ import annotations

import numpy as np

from grader.checks import Case, Fail, check, describe_case
from . import data as D

SR = "spectral_radius"
GN = "hidden_grad_norms"


def rotation(theta, scale):
    c, s = np.cos(theta), np.sin(theta)
    return scale * np.array([[c, -s], [s, c]])


def matrix_case(W, label):
    return Case((np.array(W, dtype=np.float64),), label=label)


def norms_case(rng, B, T, d, H, scale=0.9, with_h0=False):
    X = D.sequences(rng, B, T, d)
    args = (X, *D.weights(rng, d, H, recurrent_scale=scale))
    kwargs = {"h0": rng.uniform(-1, 1, size=(B, H))} if with_h0 else {}
    return Case(args, kwargs, label=D.rnn_label(B, T, d, H, **({"h0": "given"} if with_h0 else {})))


@check("gradient_flow", "radius_reference")
def radius_reference(ctx):
    def build(rng):
        A = rng.normal(size=(4, 4))
        return [matrix_case(A + A.T, "symmetric 4x4"), matrix_case(rng.normal(size=(5, 5)) * 0.7, "general 5x5"),
                matrix_case(np.diag([0.5, -2.0, 1.5]), "diagonal with a negative eigenvalue -2"),
                matrix_case([[3.0]], "1x1")]
    ctx.check_reference("radius", SR, build, "radius")


@check("gradient_flow", "radius_complex")
def radius_complex(ctx):
    def build(rng):
        block = np.zeros((4, 4))
        block[:2, :2] = rotation(1.1, 1.3)
        block[2:, 2:] = np.diag([0.9, -0.4])
        Q = np.linalg.qr(rng.normal(size=(4, 4)))[0]
        return [matrix_case(rotation(0.7, 0.8), "rotation by 0.7 rad scaled by 0.8"),
                matrix_case(Q @ block @ Q.T, "4x4 with complex eigenvalues"),
                matrix_case([[0.0, -2.0], [0.5, 0.0]], "[[0, -2], [0.5, 0]]")]
    ctx.check_reference("complex", SR, build, "radius")


@check("gradient_flow", "radius_float")
def radius_float(ctx):
    case = matrix_case(rotation(0.3, 0.9), "rotation by 0.3 rad scaled by 0.9")
    got = ctx.call(SR, case)
    if not isinstance(got, float):   # np.float64 is a float; np.float32, complex and arrays are not
        raise Fail("prop.not_float", name=SR, got=ctx.last_type, case=describe_case(case))
    ctx.assert_close(got, 0.9, case, "radius")


@check("gradient_flow", "grad_norms_reference")
def grad_norms_reference(ctx):
    # Then a given h0 (an ordinary argument, as in rnn_forward), and the second input's shapes
    # again: an h0 ignored or written into, a result kept from an earlier call, shows.
    ctx.check_reference("norms", GN, lambda rng: [norms_case(rng, 2, 6, 3, 4), norms_case(rng, 3, 4, 2, 2, scale=2.5),
                                                  norms_case(rng, 2, 6, 3, 4, with_h0=True),
                                                  norms_case(rng, 3, 4, 2, 2)],
                        "norms")


@check("gradient_flow", "grad_norms_last_entry")
def grad_norms_last_entry(ctx):
    case = ctx.cached("last", lambda rng: norms_case(rng, 3, 5, 2, 4))
    got = ctx.call(GN, case)
    D.expect_array(got, (5,), case, what="norms")
    ctx.assert_close(float(got[-1]), float(np.sqrt(3 * 4)), case, "norms[T-1]")
    ctx.assert_close(got, ctx.expected_for(GN, case), case, "norms")


@check("gradient_flow", "grad_norms_random")
def grad_norms_random(ctx):
    def build(rng):
        cases = []
        for i in range(5):
            B, d, H = (int(n) for n in rng.integers(1, 6, size=3))
            # T = 1 comes up (a single step), and h0 is given only where it changes the norms (T >= 2)
            T = 1 if i == 0 else int(rng.integers(2 if i % 2 else 1, 6))
            cases.append(norms_case(rng, B, T, d, H, scale=float(rng.uniform(0.3, 3.0)), with_h0=bool(i % 2)))
        return cases
    ctx.check_reference("norms_random", GN, build, "norms")


@check("gradient_flow", "inputs_unchanged")
def inputs_unchanged(ctx):
    cases = ctx.cached("unchanged", lambda rng: [(SR, matrix_case(rng.normal(size=(3, 3)), "3x3")),
                                                 (GN, norms_case(rng, 2, 4, 3, 3, with_h0=True))])
    for func, case in cases:
        ctx.check_unchanged(func, case)


@check("gradient_flow", "no_state")
def no_state(ctx):
    a, b = ctx.cached("state", lambda rng: (norms_case(rng, 2, 4, 3, 3), norms_case(rng, 2, 4, 3, 3)))
    ctx.check_no_state(GN, a, b, "norms")


@check("gradient_flow", "grad_norms_extreme")
def grad_norms_extreme(ctx):
    # Saturated states (pre-activations beyond +-1000 of both signs): 1 - h^2 is 0 there, so the
    # norms vanish; a hand-written tanh in the student's own forward loop gives NaN.
    def build(rng):
        case = norms_case(rng, 3, 4, 3, 4)
        D.saturate(case.args[0], case.args[1], rng)
        return [case]
    ctx.check_reference("norms_extreme", GN, build, "norms")
