"""Comparing a student's result with an expected one, with tolerances.

:func:`compare` returns ``None`` when the two agree and otherwise a
:class:`Mismatch` saying what differs first (type, shape, dtype, NaN, values)
and where. The same function decides whether a student's outcome matches a
known mistake's, so checks and diagnoses agree on what "the same" means.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Mismatch:
    key: str                       # a message key under "cmp."
    params: dict = field(default_factory=dict)


def type_label(value) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray {value.dtype} {tuple(value.shape)}"
    if isinstance(value, np.generic):
        return f"numpy.{type(value).__name__}"
    return type(value).__name__


def _is_real(value) -> bool:
    return isinstance(value, (numbers.Real, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 10 ** 30:
        return f"an integer of {len(str(abs(x))) if abs(x) < 10 ** 4000 else 'over 4000'} digits"
    text = repr(x)
    return text if len(text) <= 200 else text[:200] + "..."


def compare(got, expected, rtol: float, atol: float, where: str = "") -> Mismatch | None:
    if isinstance(expected, np.ndarray):
        return _compare_array(got, expected, rtol, atol, where)
    return _compare_other(got, expected, rtol, atol, where, compare)


def same(got, expected, rtol: float, atol: float) -> bool:
    """``compare(...) is None``, without working out where and how they differ."""
    if got is expected:   # an argument the call left alone, on both sides
        return True
    if isinstance(expected, np.ndarray):
        return _compare_array(got, expected, rtol, atol, "", brief=True) is None
    return _compare_other(got, expected, rtol, atol, "", _brief) is None


def _brief(got, expected, rtol, atol, where):
    return None if same(got, expected, rtol, atol) else _DIFFERENT


_DIFFERENT = Mismatch("cmp.values")


def _compare_other(got, expected, rtol, atol, where, compare_item) -> Mismatch | None:
    if isinstance(expected, (bool, np.bool_)):
        if not isinstance(got, (bool, np.bool_)):
            return Mismatch("cmp.type", {"where": where, "expected": "bool", "got": type_label(got)})
        return None if bool(got) == bool(expected) else Mismatch(
            "cmp.value", {"where": where, "expected": fmt(bool(expected)), "got": fmt(bool(got))})
    if _is_real(expected):
        if not _is_real(got):  # a 0-d array is not the number the statement asks for
            return Mismatch("cmp.type", {"where": where, "expected": "number", "got": type_label(got)})
        try:
            e, g = float(expected), float(got)
        except OverflowError:   # an integer too large for a float is no match for a real result
            return None if got == expected else Mismatch("cmp.value", {"where": where, "expected": fmt(expected),
                                                                        "got": "a huge integer"})
        if (np.isnan(e) and np.isnan(g)) or g == e:   # equal infinities are equal too, as in arrays
            return None
        if not np.isfinite(g) and np.isfinite(e):
            return Mismatch("cmp.not_finite", {"where": where, "expected": fmt(e), "got": fmt(g)})
        if not np.isinf(e) and abs(g - e) <= atol + rtol * abs(e):   # an infinity must be matched exactly
            return None
        return Mismatch("cmp.value", {"where": where, "expected": fmt(e), "got": fmt(g)})
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return Mismatch("cmp.type", {"where": where, "expected": type(expected).__name__, "got": type_label(got)})
        if len(got) != len(expected):
            return Mismatch("cmp.length", {"where": where, "expected": len(expected), "got": len(got)})
        for i, (g, e) in enumerate(zip(got, expected)):
            found = compare_item(g, e, rtol, atol, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return Mismatch("cmp.type", {"where": where, "expected": "dict", "got": type_label(got)})
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        if missing or extra:
            return Mismatch("cmp.keys", {"where": where, "missing": ", ".join(map(str, missing)) or "-",
                                         "extra": ", ".join(map(str, extra[:5])) or "-"})
        for k in expected:
            found = compare_item(got[k], expected[k], rtol, atol, f"{where}[{k!r}]")
            if found:
                return found
        return None
    if expected is None:
        return None if got is None else Mismatch("cmp.type",
                                                 {"where": where, "expected": "None", "got": type_label(got)})
    return None if got == expected else Mismatch("cmp.value",
                                                 {"where": where, "expected": fmt(expected), "got": fmt(got)})


def _compare_array(got, expected: np.ndarray, rtol, atol, where, brief=False) -> Mismatch | None:
    if not isinstance(got, np.ndarray):
        return Mismatch("cmp.not_array", {"where": where, "got": type_label(got),
                                          "shape": tuple(expected.shape)})
    if got.shape != expected.shape:
        return Mismatch("cmp.shape", {"where": where, "expected": tuple(expected.shape), "got": tuple(got.shape)})
    if got.dtype == expected.dtype and got.tobytes() == expected.tobytes():
        return None   # identical (the usual case for arguments that were left alone)
    if expected.dtype == np.bool_:
        if got.dtype != np.bool_:
            return Mismatch("cmp.dtype", {"where": where, "expected": "bool", "got": str(got.dtype)})
        wrong = np.argwhere(got != expected)
        if len(wrong):
            index = tuple(int(i) for i in wrong[0])
            return Mismatch("cmp.bool_values", {"where": where, "count": len(wrong), "size": expected.size,
                                                "index": index, "expected": bool(expected[index]),
                                                "got": bool(got[index])})
        return None
    if got.dtype.kind not in "iuf":
        return Mismatch("cmp.dtype", {"where": where, "expected": str(expected.dtype), "got": str(got.dtype)})
    g = got.astype(np.float64, copy=False)
    e = expected.astype(np.float64, copy=False)
    if _all_close_finite(g, e, rtol, atol):   # the common case first: everything within tolerance
        return None
    both_nan = (np.isnan(g) & np.isnan(e)) | (g == e)   # equal infinities are equal too
    bad_nan = ~np.isfinite(g) & np.isfinite(e)
    if brief and bad_nan.any():
        return _DIFFERENT
    if bad_nan.any():
        index = tuple(int(i) for i in np.argwhere(bad_nan)[0])
        return Mismatch("cmp.array_not_finite", {"where": where, "count": int(bad_nan.sum()),
                                                 "size": e.size, "index": index, "got": fmt(g[index])})
    with np.errstate(all="ignore"):
        err = np.asarray(np.abs(g - e))   # 0-d inputs give a scalar: make it an array to mask
        err[both_nan] = 0.0
        bad = ~(err <= atol + rtol * np.abs(e))
    bad |= np.isinf(e) & (g != e)        # an infinity must be matched exactly
    bad &= ~both_nan
    if not bad.any():
        return None
    if brief:
        return _DIFFERENT
    worst = np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1.0))
    index = tuple(int(i) for i in np.unravel_index(worst, e.shape))
    with np.errstate(all="ignore"):
        rel = fmt(err[index] / abs(e[index])) if abs(e[index]) > 1e-12 else "-"
    return Mismatch("cmp.values", {"where": where, "count": int(bad.sum()), "size": e.size,
                                   "index": index, "expected": fmt(e[index]), "got": fmt(g[index]),
                                   "abs_err": fmt(err[index]), "rel_err": rel})


def _all_close_finite(g: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> bool:
    """Every value finite and within tolerance: what np.isclose(...).all() says for finite
    values, in a third of its time (this runs for every value a student returns). NaN and
    infinities fall through to the full comparison, which knows what they mean."""
    with np.errstate(all="ignore"):
        tol = np.abs(e) * rtol + atol     # (0-d arrays give numpy scalars: no in-place operations)
        diff = np.abs(np.subtract(g, e))
        # A NaN in diff fails <=; an infinite e makes tol infinite (rtol > 0) or diff
        # infinite or NaN (rtol == 0): either way, not "all close" here.
        return bool(np.less_equal(diff, tol).all()) and bool(np.isfinite(tol).all())


def identical(after, before) -> bool:
    """Exactly what it was: same type, and for arrays the same dtype, shape and bytes (whether
    a call changed an argument; no tolerance)."""
    if type(after) is not type(before):
        return False
    if type(after) is np.ndarray:
        return after.dtype == before.dtype and after.shape == before.shape and after.tobytes() == before.tobytes()
    if type(after) is dict:
        return after.keys() == before.keys() and all(identical(after[k], before[k]) for k in after)
    if type(after) in (list, tuple):
        return len(after) == len(before) and all(identical(a, b) for a, b in zip(after, before))
    return type(after) in (int, float, bool, str, type(None)) and after == before
