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
(in [0, scale)), ``extreme`` (magnitudes up to 1e3 * scale, both signs); ``fill: 0`` (or any
number) instead: every entry that number. A shape entry is a whole number, a size symbol or a
small integer expression over symbols (``4*H``, ``H+1``, ``2*d``, ``H//2``), read with
:mod:`ast` (no ``eval``), so packed weights ``(d, 4*H)`` are drawn from the same H as the
arguments of shape ``(B, H)``. Without ``sizes``,
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

import ast
import functools
import itertools
import operator
from dataclasses import dataclass
from typing import Callable

import numpy as np

from grader.checks.api import Case, Fail, describe_case, result_name
from grader.checks.choices import Builder, integers, lists, sampled_from
from grader.checks.compare import compare
from grader.course.declared_gradient import KEYS as GRADIENT_KEYS, gradient_spec, run_gradient
from grader.base.errors import CourseError

VALUES = ("normal", "uniform", "positive", "integers", "extreme")
# Every key a declared check entry accepts (the gradient kind's own: grader/course/declared_gradient.py KEYS).
ENTRY_KEYS = ("id", "kind", "points", "hidden", "guards", "title", "hint", "function", "args", "kwargs", "sizes")
SPEC_KEYS = ("name", "shape", "values", "scale", "offset", "fill", "value")
DEFAULT_SIZES = (2, 3, 5)   # after all ones: sizes mixed across the symbols


@dataclass(frozen=True)
class DeclaredKind:
    """What a ``kind:`` runs: ``run(ctx, func, tag, build, names=...)``, or, for a kind with a
    ``prepare(entry, specs, kwspecs, fail, names)`` read from its entry when the course loads,
    ``run(prepared, ctx, func, tag, build)``. ``keys``: the entry keys of the kind's own;
    ``min_cases``: the fewest cases (``sizes``) it runs on."""

    run: Callable
    keys: tuple = ()
    prepare: Callable | None = None
    min_cases: int = 1


# Every declared kind by name, in the order of declaration (a course error lists them so).
KINDS: dict[str, DeclaredKind] = {}


def declared_kind(name: str, *, keys: tuple = (), prepare: Callable | None = None, min_cases: int = 1):
    """Register the decorated function as what declared checks of kind ``name`` run."""
    def register(run):
        KINDS[name] = DeclaredKind(run, tuple(keys), prepare, min_cases)
        return run
    return register



def declared_check(exercise_id: str, functions: list[str], entry: dict, fail, returns: dict | None = None) -> callable:
    """The check an entry declares; ``fail(problem, line=None)`` raises the course error at its
    line (the entry's, or ``line``: an argument spec's). ``returns``: the names of each
    function's results (the exercise's ``returns:``), which its messages use."""
    kind = entry.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        fail(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    declared = KINDS[kind]
    unknown = sorted(set(map(str, entry)) - set(ENTRY_KEYS) - set(declared.keys))
    if unknown:
        fail(f"unknown key {unknown[0]!r} (a declared check takes {', '.join(ENTRY_KEYS)}"
             + (f", {', '.join(declared.keys)}" if declared.keys else "") + ")")
    func = entry.get("function", functions[0] if functions else None)
    if not isinstance(func, str) or (functions and func not in functions):
        fail(f"function {func!r} is not one of the exercise's functions ({', '.join(functions) or 'none'})")
    args = entry.get("args", [])
    kwargs = entry.get("kwargs", {})
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        fail("args must be a list and kwargs a mapping of argument specs")
    specs = [_arg_spec(a, f"argument {a.get('name') if isinstance(a, dict) and a.get('name') else i + 1}", fail)
             for i, a in enumerate(args)]
    kwspecs = {str(k): _arg_spec(v, f"argument {k!r}", fail) for k, v in kwargs.items()}
    every = [*specs, *kwspecs.values()]
    symbols = sorted({s for spec in every for dim in spec.get("shape", ()) for s in _symbols(dim)})
    sizes = entry.get("sizes")
    if sizes is None:
        sizes = _default_sizes(symbols)
    elif not isinstance(sizes, list) or not sizes or not all(
            isinstance(s, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in s.values())
            for s in sizes):
        fail(f"sizes must be a list of mappings giving each of {', '.join(symbols) or 'no symbol'} a whole number")
    else:
        for case in sizes:
            given = set(map(str, case))
            for spec in every:
                for dim in spec.get("shape", ()):
                    missing = sorted(_symbols(dim) - given)
                    if missing:
                        fail(f"sizes must give the size symbol {missing[0]!r}, which shape entry {_text(dim)!r} uses: "
                             f"it is an unknown symbol (sizes give {', '.join(sorted(given)) or 'nothing'})",
                             _line(spec))
            if given != set(symbols):
                fail(f"sizes must give only the symbols the shapes use: {', '.join(sorted(given - set(symbols)))} is "
                     f"in no shape "
                     f"(the shapes use {', '.join(symbols) or 'no symbol'})", getattr(case, "line", None))
    for case in sizes:
        for spec in every:
            for dim in spec.get("shape", ()):
                if _dim(dim, case) < 0:
                    fail(f"shape entry {_text(dim)!r} is {_dim(dim, case)} for "
                         f"{', '.join(f'{k}={v}' for k, v in case.items())}: a size cannot be negative", _line(spec))
    _check_search_sizes(every, symbols, fail)
    if len(sizes) < declared.min_cases:
        fail(f"a {kind} check needs two cases or more (sizes)")
    check_id = entry.get("id")
    build = functools.partial(_cases, specs, kwspecs, [dict(s) for s in sizes])
    tag = f"declared {check_id}"
    names = (returns or {}).get(func)
    prepared = declared.prepare(entry, specs, kwspecs, fail, names) if declared.prepare is not None else None
    if declared.prepare is not None:
        run = functools.partial(declared.run, prepared)
    else:
        run = functools.partial(declared.run, names=names)

    def check(ctx):
        with ctx.checking(check_id):
            return run(ctx, func, tag, build)

    # What the counterexample search draws this function's inputs from (grader/course/loader.py
    # combines the builders of every reference check of a function: combined_builder).
    check.kind, check.func, check.gradient, check.check_id = kind, func, prepared, check_id
    check.builder = Builder(_search_case, (tuple(specs), tuple(kwspecs.items()), tuple(symbols)))
    check.arg_names = tuple(spec.get("name") or f"arg{i + 1}" for i, spec in enumerate(specs))
    return check


def combined_builder(checks: list) -> Builder:
    """The counterexample search's builder for a function with several declared reference checks:
    its first choice is the check (the first one is the simplest option), then that check's
    arguments are drawn as it declares them. So a mistake seen only with an argument that only a
    later check passes (``kwargs: {axis: {value: 1}}``) still gets a counterexample."""
    if len(checks) == 1:
        return checks[0].builder
    return Builder(_one_of, (tuple(c.builder for c in checks),))


def _one_of(draw, builders):
    return draw(builders[draw(integers(0, len(builders) - 1))])


# ---------------------------------------------------------------- shapes: sizes and expressions

_SIZE_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}
_OP_TEXT = {ast.Div: "/", ast.Pow: "**", ast.Mod: "%", ast.MatMult: "@", ast.BitXor: "^"}


@dataclass(frozen=True)
class SizeExpression:
    """A shape entry computed from size symbols, such as ``4*H`` (read with ast, never eval)."""

    text: str
    tree: object
    names: frozenset

    def value(self, sizes: dict) -> int:
        return _evaluate(self.tree, sizes)


def _evaluate(node, sizes):
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, sizes)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return int(sizes[node.id])
    if isinstance(node, ast.UnaryOp):
        return -_evaluate(node.operand, sizes)
    return _SIZE_OPS[type(node.op)](_evaluate(node.left, sizes), _evaluate(node.right, sizes))


def _size_entry(entry, where: str, fail, line):
    """A shape entry as the check uses it: an int, a symbol (str) or a SizeExpression."""
    if isinstance(entry, int) and not isinstance(entry, bool):
        if entry < 0:
            fail(f"{where}: shape entry {entry} is negative", line)
        return entry
    if not isinstance(entry, str) or not entry.strip():
        fail(f"{where}: shape entry {entry!r} is no whole number, size symbol or expression such as 4*H", line)
    text = entry.strip()
    if text.isidentifier():
        return text
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        fail(f"{where}: shape entry {text!r} is no size expression (write products with *, e.g. 4*H)", line)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) not in _SIZE_OPS:
            op = _OP_TEXT.get(type(node.op), type(node.op).__name__)
            fail(f"{where}: shape entry {text!r} is not an integer expression ({op} is not allowed; "
                 "sizes take +, -, * and //)", line)
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, int)):
            fail(f"{where}: shape entry {text!r} is not an integer expression ({node.value!r} is no whole number)",
                 line)
        if not isinstance(node, (ast.Expression, ast.BinOp, ast.Constant, ast.Name, ast.Load, ast.UnaryOp,
                                 ast.USub, *_SIZE_OPS)):
            fail(f"{where}: shape entry {text!r} is not an integer expression of size symbols "
                 "(whole numbers, symbols, +, -, *, // and parentheses)", line)
    names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return SizeExpression(text, tree, names)


def _symbols(dim) -> set:
    if isinstance(dim, str):
        return {dim}
    if isinstance(dim, SizeExpression):
        return set(dim.names)
    return set()


def _text(dim) -> str:
    return dim.text if isinstance(dim, SizeExpression) else str(dim)


def _dim(dim, sizes: dict) -> int:
    if isinstance(dim, str):
        return int(sizes[dim])
    if isinstance(dim, SizeExpression):
        return dim.value(sizes)
    return dim


def _line(spec) -> int | None:
    return spec.get("line")


def _check_search_sizes(specs, symbols, fail):
    """Every shape is a size for every size the counterexample search may draw (SEARCH_SIZES)."""
    if not any(isinstance(d, SizeExpression) for spec in specs for d in spec.get("shape", ())):
        return
    values = range(SEARCH_SIZES[0], SEARCH_SIZES[1] + 1)
    for combination in itertools.islice(itertools.product(values, repeat=len(symbols)), 4096):
        sizes = dict(zip(symbols, combination))
        for spec in specs:
            for dim in spec.get("shape", ()):
                if _dim(dim, sizes) < 0:
                    fail(f"shape entry {_text(dim)!r} is negative for "
                         f"{', '.join(f'{k}={v}' for k, v in sizes.items())}, sizes the counterexample search "
                         f"draws ({SEARCH_SIZES[0]} to {SEARCH_SIZES[1]} for each symbol)", _line(spec))


def _arg_spec(spec, where: str, fail) -> dict:
    if not isinstance(spec, dict):
        fail(f"{where} must be a mapping (shape and values, or value)")
    line = getattr(spec, "line", None)
    name = spec.get("name")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        fail(f"{where}: name {name!r} is not a Python name", line)
    if "value" in spec:
        if set(spec) - {"name"} != {"value"}:
            fail(f"{where}: a fixed value takes nothing else (but a name)", line)
        return dict(spec)
    shape = spec.get("shape", [])
    if not isinstance(shape, list):
        fail(f"{where}: shape must be a list of whole numbers, size symbols and expressions such as 4*H", line)
    shape = [_size_entry(entry, where, fail, line) for entry in shape]
    unknown = set(spec) - set(SPEC_KEYS)
    if unknown:
        fail(f"{where}: unknown key {sorted(map(str, unknown))[0]!r} (an argument takes {', '.join(SPEC_KEYS)})",
             line)
    if "fill" in spec:
        fill = spec["fill"]
        if isinstance(fill, bool) or not isinstance(fill, (int, float)) or not np.isfinite(fill):
            fail(f"{where}: fill must be a finite number (every entry of the array)", line)
        if set(spec) - {"name", "shape", "fill"}:
            fail(f"{where}: a filled array takes shape, fill and name only "
                 f"(not {sorted(set(spec) - {'name', 'shape', 'fill'})[0]!r})", line)
        return {"shape": shape, "fill": float(fill), "line": line, **({"name": name} if name else {})}
    values = spec.get("values", "normal")
    if values not in VALUES:
        fail(f"{where}: values {values!r} is not one of {', '.join(VALUES)} (or fill: a number)", line)
    scale = spec.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        fail(f"{where}: scale must be a positive number (for zeros or a constant: fill: 0)", line)
    offset = spec.get("offset", 0.0)
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or (offset and values == "integers"):
        fail(f"{where}: offset must be a number (added to float values: data far from zero)", line)
    return {"shape": shape, "values": values, "scale": float(scale), "offset": float(offset), "line": line,
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
    shape = tuple(_dim(d, sizes) for d in spec["shape"])
    if "fill" in spec:
        return np.full(shape, spec["fill"], dtype=np.float64)
    if spec["offset"]:
        return spec["offset"] + _value(rng, {**spec, "offset": 0.0}, sizes)
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
    """A case of the declared spec as the counterexample search draws it (grader/checks/choices.py):
    small sizes and friendly values, each choice simplest first."""
    size = {s: draw(integers(*SEARCH_SIZES)) for s in symbols}

    def value(spec):
        if "value" in spec:
            return spec["value"]
        shape = tuple(_dim(d, size) for d in spec["shape"])
        if "fill" in spec:
            return np.full(shape, spec["fill"], dtype=np.float64)
        n = int(np.prod(shape)) if shape else 1
        if spec["values"] == "integers":
            choice = integers(0, max(0, min(int(spec["scale"]) - 1, 5)))
            return np.array(draw(lists(choice, min_size=n, max_size=n)), dtype=np.int64).reshape(shape)
        choice = sampled_from(tuple(spec["offset"] + v * spec["scale"] for v in SEARCH_VALUES[spec["values"]]))
        return np.array(draw(lists(choice, min_size=n, max_size=n)), dtype=np.float64).reshape(shape)

    return Case(tuple(value(s) for s in specs), {k: value(s) for k, s in kwspecs},
                label=", ".join(f"{k}={v}" for k, v in size.items()))


# ---------------------------------------------------------------- the kinds

@declared_kind("reference")
def _reference(ctx, func, tag, build, names=None):
    for _, expected in ctx.cases_with_expected(tag, func, build)[:1]:
        _check_returns(ctx, func, names, expected)
    ctx.check_reference(tag, func, build, names=names)


def _check_returns(ctx, func, names, expected) -> None:
    """``returns:`` names as many parts as the reference's result has, else a course error."""
    if not isinstance(names, tuple):
        return
    if isinstance(expected, (tuple, list)) and len(expected) == len(names):
        return
    got = f"a {type(expected).__name__} of {len(expected)}" if isinstance(expected, (tuple, list)) else \
        type(expected).__name__
    raise CourseError(f"{ctx.exercise.path or ctx.exercise.id}: returns names {len(names)} results of {func}() "
                      f"({', '.join(names)}), but the reference returns {got}")


@declared_kind("shape_dtype")
def _shape_dtype(ctx, func, tag, build, names=None):
    for case in ctx.cached(tag, build):
        got = ctx.call(func, case)
        expected = ctx.expected_for(func, case)
        _check_returns(ctx, func, names, expected)
        problem = structure_mismatch(got, expected, "")
        if problem is not None:
            key, params = problem
            raise Fail(key, **{**params, "where": result_name(names, params["where"])}, case=describe_case(case))


@declared_kind("inputs_unchanged")
def _inputs_unchanged(ctx, func, tag, build, names=None):
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


@declared_kind("no_state", min_cases=2)
def _no_state(ctx, func, tag, build, names=None):
    """A, B, A (grader/checks/api.py, Context.check_no_state): fails only where a result shows an
    earlier call, not where the function is merely wrong."""
    cases = ctx.cached(tag, build)
    ctx.check_no_state(func, cases[0], cases[1])


# The gradient kind's own module (grader/course/declared_gradient.py) reads its keys when the
# course loads and runs it; declared here, last, as the kinds above are.
declared_kind("gradient", keys=GRADIENT_KEYS, prepare=gradient_spec)(run_gradient)


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
