"""compare() and same() decide alike: the diagnosis's fast path never disagrees with the checks."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.checks.compare import compare, same

floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
arrays = hnp.arrays(st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
                    hnp.array_shapes(max_dims=2, max_side=3), elements=st.integers(0, 1))
values = st.recursive(st.one_of(floats, st.integers(-5, 5), st.booleans(), st.none(), arrays,
                                hnp.arrays(np.float64, 3, elements=floats)),
                      lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                              st.dictionaries(st.sampled_from("ab"), inner, max_size=2)),
                      max_leaves=6)


@settings(max_examples=400, deadline=None)
@given(values, values, st.sampled_from([0.0, 1e-7, 0.5]))
@example(float("inf"), float("inf"), 0.0)            # equal infinities are equal, as in arrays
@example(([], float("inf")), ([], float("inf")), 0.0)
@example(float("-inf"), float("inf"), 0.5)
def test_same_agrees_with_compare(got, expected, tol):
    assert same(got, expected, tol, tol) == (compare(got, expected, tol, tol) is None)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, 4, elements=floats), hnp.arrays(np.float64, 4, elements=floats))
def test_same_agrees_on_float_arrays(a, b):
    assert same(a, b, 1e-6, 1e-9) == (compare(a, b, 1e-6, 1e-9) is None)
    assert same(a, a.copy(), 0.0, 0.0)


def test_equal_infinities_are_equal_and_opposite_ones_are_not():
    inf = float("inf")
    assert compare(inf, inf, 0.0, 0.0) is None and compare(np.float64(-inf), -inf, 1e-6, 0.0) is None
    assert compare(-inf, inf, 0.5, 0.5) is not None and compare(1e308, inf, 1e-6, 0.0) is not None


def test_zero_dimensional_arrays_take_the_fast_path_and_the_full_one():
    """0-d arrays (a loss kept as np.array(x)) give numpy scalars, not arrays, along the way."""
    assert compare(np.array(1.0), np.array(1.0 + 1e-12), 1e-7, 1e-9) is None
    assert compare(np.array(2.0), np.array(1.0), 1e-7, 1e-9).key == "cmp.values"
    assert compare(np.array(np.inf), np.array(1.0), 1e-7, 1e-9).key == "cmp.array_not_finite"
    assert compare(np.array(1.0), np.array(np.inf), 1e-7, 1e-9) is not None      # an infinity is matched exactly
    assert compare(np.array(np.nan), np.array(np.nan), 1e-7, 1e-9) is None
