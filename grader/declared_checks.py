"""Checks declared in an exercise's YAML, for the common cases (no Python needed).

A check entry with a ``kind`` is declared::

    - id: matches_reference
      kind: reference           # reference | shape_dtype | inputs_unchanged | no_state
      points: 2
      function: relu            # default: the exercise's first function
      args:                     # the positional arguments, in order
        - {shape: [B, d], values: normal, scale: 3}
        - {value: 0.5}          # a fixed value, not generated
      kwargs: {axis: {value: 0}}
      sizes:                    # the size symbols' values, one case each
        - {B: 1, d: 1}
        - {B: 5, d: 7}

``values``: ``normal`` (default), ``uniform`` (in [-scale, scale]), ``positive``, ``integers``
(in [0, scale)), ``extreme`` (magnitudes up to 1e3 * scale, both signs). Without ``sizes``,
every symbol is 1 first (where real student code breaks: ``np.squeeze``, ``keepdims``), then
a few mixed sizes. What each kind checks:

* ``reference``: every case against the reference;
* ``shape_dtype``: the result's types, lengths, shapes and dtypes against the reference's
  where those are right but the values are not, it still fails, saying that the shapes and
  dtypes are right and the values are not (as the Python checks' shape checks do);
* ``inputs_unchanged``: no argument is modified (whatever the result);
* ``no_state``: A, B, A: B's result is not A's where the reference's differ, and A gives
  the same result both times (two or more cases; whatever the values).

Inputs are drawn through ``ctx.cached``, so a hidden declared check draws them from the
course secret as Python checks do.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from grader.checks import Case, Fail, describe_case
from grader.choices import Builder, integers, lists, sampled_from
from grader.compare import compare
from grader.declared_gradient import gradient_spec, run_gradient

KINDS = ("reference", "shape_dtype", "inputs_unchanged", "no_state", "gradient")
VALUES = ("normal", "uniform", "positive", "integers", "extreme")
DEFAULT_SIZES = (2, 3, 5)   # after all ones: sizes mixed across the symbols


def declared_check(exercise_id: str, functions: list[str], entry: dict, fail) -> callable:
    """The check an entry declares; ``fail(problem)`` raises the course error at its line."""
    kind = entry.get("kind")
    if kind not in KINDS:
        fail(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    func = entry.get("function", functions[0] if functions else None)
    if not isinstance(func, str) or (functions and func not in functions):
        fail(f"function {func!r} is not one of the exercise's functions ({', '.join(functions) or 'none'})")
    args = entry.get("args", [])
    kwargs = entry.get("kwargs", {})
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        fail("args must be a list and kwargs a mapping of argument specs")
    specs = [_arg_spec(a, f"argument {i + 1}", fail) for i, a in enumerate(args)]
    kwspecs = {str(k): _arg_spec(v, f"argument {k!r}", fail) for k, v in kwargs.items()}
    symbols = sorted({s for spec in [*specs, *kwspecs.values()] for s in spec.get("shape", ()) if isinstance(s, str)})
    sizes = entry.get("sizes")
    if sizes is None:
        sizes = _default_sizes(symbols)
    elif not isinstance(sizes, list) or not sizes or not all(
            isinstance(s, dict) and set(s) == set(symbols) and all(isinstance(v, int) and v >= 0 for v in s.values())
            for s in sizes):
        fail(f"sizes must be a list of mappings giving each of {', '.join(symbols) or 'no symbol'} a whole number")
    if kind == "no_state" and len(sizes) < 2:
        fail("a no_state check needs two cases or more (sizes)")
    check_id = entry.get("id")
    build = functools.partial(_cases, specs, kwspecs, [dict(s) for s in sizes])
    tag = f"declared {check_id}"
    gradient = gradient_spec(entry, specs, kwspecs, fail) if kind == "gradient" else None
    if gradient is not None:   # grader/declared_gradient.py
        run = functools.partial(run_gradient, gradient)
    else:
        run = {"reference": _reference, "shape_dtype": _shape_dtype,
               "inputs_unchanged": _inputs_unchanged, "no_state": _no_state}[kind]

    def check(ctx):
        with ctx.checking(check_id):
            return run(ctx, func, tag, build)

    # What the counterexample search draws this function's inputs from (grader/course.py
    # registers it for a reference check where the course's Python gives no builder).
    check.kind, check.func, check.gradient = kind, func, gradient
    check.builder = Builder(_search_case, (tuple(specs), tuple(kwspecs.items()), tuple(symbols)))
    check.arg_names = tuple(spec.get("name") or f"arg{i + 1}" for i, spec in enumerate(specs))
    return check


def _arg_spec(spec, where: str, fail) -> dict:
    if not isinstance(spec, dict):
        fail(f"{where} must be a mapping (shape and values, or value)")
    name = spec.get("name")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        fail(f"{where}: name {name!r} is not a Python name")
    if "value" in spec:
        if set(spec) - {"name"} != {"value"}:
            fail(f"{where}: a fixed value takes nothing else (but a name)")
        return dict(spec)
    shape = spec.get("shape", [])
    if not isinstance(shape, list) or not all(isinstance(s, str) or (isinstance(s, int) and s >= 0) for s in shape):
        fail(f"{where}: shape must be a list of size symbols and whole numbers")
    values = spec.get("values", "normal")
    if values not in VALUES:
        fail(f"{where}: values {values!r} is not one of {', '.join(VALUES)}")
    scale = spec.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        fail(f"{where}: scale must be a positive number")
    offset = spec.get("offset", 0.0)
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or (offset and values == "integers"):
        fail(f"{where}: offset must be a number (added to float values: data far from zero)")
    unknown = set(spec) - {"shape", "values", "scale", "offset", "name"}
    if unknown:
        fail(f"{where}: unknown key {sorted(unknown)[0]!r}")
    return {"shape": shape, "values": values, "scale": float(scale), "offset": float(offset),
            **({"name": name} if name else {})}


def _default_sizes(symbols: list[str]) -> list[dict]:
    if not symbols:
        return [{}]
    mixed = [dict(zip(symbols, itertools.islice(itertools.cycle(DEFAULT_SIZES), k, k + len(symbols))))
             for k in range(len(DEFAULT_SIZES))]
    return [{s: 1 for s in symbols}, *mixed]


def _value(rng, spec: dict, sizes: dict):
    if "value" in spec:
        return spec["value"]
    if spec["offset"]:
        return spec["offset"] + _value(rng, {**spec, "offset": 0.0}, sizes)
    shape = tuple(sizes[s] if isinstance(s, str) else s for s in spec["shape"])
    scale, values = spec["scale"], spec["values"]
    if values == "uniform":
        return rng.uniform(-scale, scale, size=shape)
    if values == "positive":
        return np.abs(rng.normal(0.0, scale, size=shape)) + 1e-3
    if values == "integers":
        return rng.integers(0, max(1, int(scale)), size=shape)
    if values == "extreme":
        return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(1.0, 1e3, size=shape) * scale
    return rng.normal(0.0, scale, size=shape)


def _cases(specs, kwspecs, sizes, rng) -> list[Case]:
    cases = []
    for size in sizes:
        label = ", ".join(f"{k}={v}" for k, v in size.items())
        cases.append(Case(tuple(_value(rng, s, size) for s in specs),
                          {k: _value(rng, s, size) for k, s in kwspecs.items()}, label=label))
    return cases


# Friendly values for the counterexample search (shrinking towards 0, reading well), per kind.
SEARCH_VALUES = {"normal": (0.0, 1.0, -1.0, 0.5, -0.5, 2.0), "uniform": (0.0, 1.0, -1.0, 0.5, -0.5),
                 "positive": (1.0, 0.5, 2.0, 0.001), "extreme": (1000.0, -1000.0, 1.0, -1.0)}
SEARCH_SIZES = (1, 3)   # each size symbol's range in the search


def _search_case(draw, specs, kwspecs, symbols) -> Case:
    """A case of the declared spec as the counterexample search draws it (grader/choices.py):
    small sizes and friendly values, each choice simplest first."""
    size = {s: draw(integers(*SEARCH_SIZES)) for s in symbols}

    def value(spec):
        if "value" in spec:
            return spec["value"]
        shape = tuple(size[s] if isinstance(s, str) else s for s in spec["shape"])
        n = int(np.prod(shape)) if shape else 1
        if spec["values"] == "integers":
            choice = integers(0, max(0, min(int(spec["scale"]) - 1, 5)))
            return np.array(draw(lists(choice, min_size=n, max_size=n)), dtype=np.int64).reshape(shape)
        choice = sampled_from(tuple(spec["offset"] + v * spec["scale"] for v in SEARCH_VALUES[spec["values"]]))
        return np.array(draw(lists(choice, min_size=n, max_size=n)), dtype=np.float64).reshape(shape)

    return Case(tuple(value(s) for s in specs), {k: value(s) for k, s in kwspecs},
                label=", ".join(f"{k}={v}" for k, v in size.items()))


# ---------------------------------------------------------------- the kinds

def _reference(ctx, func, tag, build):
    ctx.check_reference(tag, func, build)


def _shape_dtype(ctx, func, tag, build):
    for case in ctx.cached(tag, build):
        got = ctx.call(func, case)
        expected = ctx.expected_for(func, case)
        problem = structure_mismatch(got, expected, "result")
        if problem is not None:
            key, params = problem
            raise Fail(key, **params, case=describe_case(case))


def _inputs_unchanged(ctx, func, tag, build):
    """Fails only where an argument was modified: wrong values are other checks' business."""
    for case in ctx.cached(tag, build):
        ctx.call(func, case)
        after = ctx.last
        changed = [str(i + 1) for i, (before, now) in enumerate(zip(case.args, after.args_after))
                   if compare(now, before, 0.0, 0.0) is not None]
        changed += [k for k, before in case.kwargs.items()
                    if compare(after.kwargs_after.get(k), before, 0.0, 0.0) is not None]
        if changed:
            raise Fail("prop.input_modified", name=func, position=", ".join(changed), case=describe_case(case))


def _no_state(ctx, func, tag, build):
    """A, B, A (grader/checks.py, Context.check_no_state): fails only where a result shows an
    earlier call, not where the function is merely wrong."""
    cases = ctx.cached(tag, build)
    ctx.check_no_state(func, cases[0], cases[1])


def structure_mismatch(got, expected, where: str):
    """(message key, params) of the first difference in types, lengths, shapes or dtypes, or None."""
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray):
            return "cmp.not_array", {"where": where, "got": type(got).__name__, "shape": tuple(expected.shape)}
        if got.shape != expected.shape:
            return "cmp.shape", {"where": where, "expected": tuple(expected.shape), "got": tuple(got.shape)}
        if got.dtype.kind != expected.dtype.kind or (expected.dtype.kind == "f" and got.dtype != expected.dtype):
            return "cmp.dtype", {"where": where, "expected": str(expected.dtype), "got": str(got.dtype)}
        return None
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)):
            return "cmp.type", {"where": where, "expected": type(expected).__name__, "got": type(got).__name__}
        if len(got) != len(expected):
            return "cmp.length", {"where": where, "expected": len(expected), "got": len(got)}
        for i, (g, e) in enumerate(zip(got, expected)):
            problem = structure_mismatch(g, e, f"{where}[{i}]")
            if problem is not None:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return "cmp.type", {"where": where, "expected": "dict", "got": type(got).__name__}
        if set(got) != set(expected):
            return "cmp.keys", {"where": where, "missing": ", ".join(map(str, set(expected) - set(got))) or "-",
                                "extra": ", ".join(map(str, set(got) - set(expected))) or "-"}
        for k in expected:
            problem = structure_mismatch(got[k], expected[k], f"{where}[{k!r}]")
            if problem is not None:
                return problem
    return None
