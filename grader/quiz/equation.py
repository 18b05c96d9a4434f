"""Check an equation answer for meaning, not spelling.

The question's ``equation:`` mapping (grader/quiz/equation_spec.py) names the
symbols, their roles and sizes, and the functions; the answer key's answer is
the reference expression. The student's text is parsed
(grader/quiz/equation_text.py) and evaluated with NumPy on fixed random values
under each accepted convention:

* ``row``:        vectors are rows ``(B, n)``, a matrix from d to H is ``(d, H)``: ``x W``
* ``column``:     vectors are columns ``(n,)`` or ``(n, 1)``, that matrix is ``(H, d)``: ``W x``
* ``transposed``: rows, with matrices stored ``(H, d)``: ``x W^T`` (PyTorch's documentation)

Sizes are all different in some trials (so that shape errors show up) and all
equal in others (so that swapped symbols give numbers, not errors). The
answer is right when it matches the reference in every trial of one
convention.

When it is wrong, the verdict says why: by inspecting the symbols (the result
on the right, a missing term or bias, an unknown or ambiguous name) or by
"repairing" the tree (swap two symbols of one role, drop transposes, flip the
order of some products, apply the reference's activation once to everything)
and checking whether the repaired expression becomes right.

``check_equation`` never raises; every failure becomes a verdict whose
``message`` is a key of ``grader/base/locales/<lang>/quiz.yaml``.

Why one file of this size: the evaluation under each convention and the repairs that
explain a wrong answer work on the same trials and must agree on what "right" means;
parsing, the symbols' meaning and the callable functions are modules of their own.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from grader.quiz import equation_functions
from grader.quiz.equation_spec import EquationSpec, SpecError, compile_spec
from grader.quiz.equation_text import ParseError, clean, echo, normalise, parse

__all__ = ["EquationVerdict", "check_equation", "reference_problem", "MAX_LENGTH", "MESSAGE_KEYS"]

MAX_LENGTH = 500        # characters of student text we look at
MAX_FLIPS = 6           # products considered by the "mixed conventions" repair
SEED = 20240531

MESSAGE_KEYS = (
    "equation.ok",
    "equation.empty",
    "equation.not_text",
    "equation.too_long",
    "equation.unparsable",
    "equation.unknown_symbol",
    "equation.ambiguous_symbol",
    "equation.unknown_function",
    "equation.wrong_lhs",
    "equation.uses_result",
    "equation.uses_result_not_previous",
    "equation.missing_term",
    "equation.missing_bias",
    "equation.swapped",
    "equation.transposed",
    "equation.mixed_conventions",
    "equation.wrong_activation",
    "equation.no_activation",
    "equation.activation_placement",
    "equation.shape_error",
    "equation.wrong",
    "equation.bad_question",
)


@dataclass(frozen=True)
class EquationVerdict:
    ok: bool
    message: str
    params: dict = field(default_factory=dict)


class _Problem(Exception):
    """An answer that stops before evaluation (a name, a side); carries its verdict."""

    def __init__(self, key: str, params: dict):
        super().__init__(key)
        self.key, self.params = key, params


# --------------------------------------------------------------------------
# trees
# --------------------------------------------------------------------------

def _walk(node):
    yield node
    kind = node[0]
    if kind in ("sum", "prod"):
        for _, child in node[1]:
            yield from _walk(child)
    elif kind in ("neg", "T"):
        yield from _walk(node[1])
    elif kind == "call":
        for arg in node[2]:
            yield from _walk(arg)


def _map(node, fn):
    """Rebuild the tree bottom-up, applying fn to every node."""
    kind = node[0]
    if kind in ("sum", "prod"):
        node = (kind, [(op, _map(child, fn)) for op, child in node[1]])
    elif kind in ("neg", "T"):
        node = (kind, _map(node[1], fn))
    elif kind == "call":
        node = ("call", node[1], [_map(a, fn) for a in node[2]], node[3])
    return fn(node)


def _symbol_of(key: str) -> str:
    return key.split("#")[0]          # "b#0": the first part of the bias b


def _read(spec: EquationSpec, text: str):
    """Text -> (lhs canon or None, rhs tree); raises _Problem."""
    s = normalise(text)
    try:
        lhs, rhs = parse(s, spec.lexicon, spec.functions)
    except (ParseError, RecursionError) as err:
        pos = getattr(err, "pos", 0)
        raise _Problem("equation.unparsable", {"near": echo(s[pos:pos + 20].strip() or s[-20:], 20)})
    if lhs is None:
        return None, rhs
    if lhs[0] != "sym" or lhs[1] not in spec.sides:
        shown = lhs[2] if lhs[0] == "sym" else text.split("=")[0].strip()
        raise _Problem("equation.wrong_lhs", {"lhs": echo(shown), "result": spec.result.name})
    return lhs[1], rhs


def _resolve(spec: EquationSpec, rhs, lhs, allowed: str):
    """Replace spellings by symbol keys (bias parts as ``key#i``); raises _Problem."""
    renames = spec.sides.get(lhs, {}) if lhs else {}
    spellings = {n[1] for n in _walk(rhs) if n[0] == "sym"}
    parts_used: dict[str, set] = {}
    for spelling in spellings:
        if spelling in spec.part_names:
            key, index = spec.part_names[spelling]
            parts_used.setdefault(key, set()).add(index)
    split = {key for key, indices in parts_used.items() if len(indices) > 1}

    for node in _walk(rhs):
        if node[0] == "call" and node[1] == "?":
            raise _Problem("equation.unknown_function", {"name": echo(node[3])})

    def meaning(spelling: str, raw: str) -> str:
        if spelling in renames:
            return renames[spelling]
        if lhs is not None and spelling == lhs:
            return spec.result.key
        if spelling in spec.part_names and spec.part_names[spelling][0] in split:
            key, index = spec.part_names[spelling]
            return f"{key}#{index}"
        if spelling in spec.names:
            return spec.names[spelling]
        if spelling in spec.part_names:
            return spec.part_names[spelling][0]     # one part alone is the whole bias
        key = "equation.ambiguous_symbol" if spelling in spec.ambiguous else "equation.unknown_symbol"
        raise _Problem(key, {"symbol": echo(raw), "allowed": allowed})

    meanings = {}
    for node in _walk(rhs):
        if node[0] == "sym" and node[1] not in meanings:
            meanings[node[1]] = meaning(node[1], node[2])
    return _map(rhs, lambda n: ("sym", meanings[n[1]], n[2]) if n[0] == "sym" else n)


# --------------------------------------------------------------------------
# numeric evaluation
# --------------------------------------------------------------------------

def _eval(node, env):
    kind = node[0]
    if kind == "num":
        return np.asarray(node[1], dtype=float)
    if kind == "sym":
        return env[node[1]]
    if kind == "sum":
        acc = None
        for sign, child in node[1]:
            v = _eval(child, env)
            v = v if sign > 0 else -v
            acc = v if acc is None else acc + v
        return acc
    if kind == "prod":
        acc = None
        for op, child in node[1]:
            v = _eval(child, env)
            if acc is None:
                acc = v
            elif op == "mm":
                acc = equation_functions.call("matmul", [acc, v])
            elif op == "had":
                acc = acc * v
            else:
                acc = acc / v
        return acc
    if kind == "neg":
        return -_eval(node[1], env)
    if kind == "T":
        v = _eval(node[1], env)
        return np.swapaxes(v, -1, -2) if v.ndim >= 2 else v
    if kind == "call":
        return equation_functions.call(node[1], [_eval(a, env) for a in node[2]])
    raise ValueError(kind)


@dataclass(frozen=True)
class _Trial:
    convention: str
    batch: int
    flat: bool          # column convention only: vectors (n,) rather than (n, 1)
    base: dict          # symbol key -> values laid out for row vectors


def _draw(spec: EquationSpec, rng, batch: int, size_of: dict) -> dict:
    base = {}
    for key, s in spec.symbols.items():
        def draw(*shape, s=s):
            return rng.uniform(0.5, 2.0, shape) if s.positive else rng.normal(0.0, 0.6, shape)
        if s.role == "vector":
            base[key] = draw(batch, size_of[s.size])
        elif s.role == "bias":
            if s.parts:
                for index in range(len(s.parts)):
                    base[f"{key}#{index}"] = draw(size_of[s.size])
                base[key] = sum(base[f"{key}#{i}"] for i in range(len(s.parts)))
            else:
                base[key] = draw(size_of[s.size])
        elif s.role == "matrix":
            base[key] = draw(size_of[s.source], size_of[s.target])
        else:
            base[key] = np.asarray(draw())
    return base


def _layout(spec: EquationSpec, base: dict, convention: str, flat: bool) -> dict:
    env = {}
    for key, value in base.items():
        role = spec.symbols[_symbol_of(key)].role
        if role == "matrix" and convention != "row":
            value = value.T
        elif convention == "column" and role == "vector":
            value = value[0] if flat else value.T
        elif convention == "column" and role == "bias":
            value = value if flat else value[:, None]
        env[key] = value
    return env


def _to_row(spec, value, convention, flat):
    if spec.result.role == "scalar" or convention != "column":
        return value
    return value.reshape(1, -1) if flat else value.T


def _from_row(spec, value, convention, flat):
    if spec.result.role == "scalar" or convention != "column":
        return value
    return value[0] if flat else value.T


def _trials(spec: EquationSpec) -> list[_Trial]:
    rng = np.random.default_rng(SEED)
    distinct = {size: 4 + i for i, size in enumerate(spec.sizes)}
    square = {size: 5 for size in spec.sizes}
    plan = {"row": [(3, False, distinct), (3, False, square)],
            "column": [(1, True, distinct), (1, True, square), (1, False, distinct)],
            "transposed": [(3, False, distinct), (3, False, square)]}
    return [_Trial(c, batch, flat, _draw(spec, rng, batch, sizes))
            for c in spec.conventions for batch, flat, sizes in plan[c]]


def _expected_shape(spec, trial, convention, flat):
    if spec.result.role == "scalar":
        return ()
    n = np.shape(trial.base[spec.result.key])[1]
    if convention == "column":
        return (n,) if flat else (n, trial.batch)
    return (trial.batch, n)


@dataclass(frozen=True)
class _Reference:
    spec: EquationSpec
    tree: tuple
    used: tuple                  # symbol keys the reference uses, in order
    activation: str | None       # the function applied to the whole expression, if any
    trials: tuple                # (trial, env, expected value)


def _compile_reference(spec: EquationSpec, text) -> _Reference:
    if not isinstance(text, str) or not clean(text):
        raise SpecError("the answer key gives no equation for this question")
    names = ", ".join(s.name for k, s in spec.symbols.items() if k != spec.result.key)
    try:
        lhs, rhs = _read(spec, clean(text))
        tree = _resolve(spec, rhs, lhs, names)
    except _Problem as problem:
        what = problem.key.split(".")[-1].replace("_", " ")
        detail = next(iter(problem.params.values()), "")
        raise SpecError(f"the answer key's equation: {what} {detail!r}" if detail else
                        f"the answer key's equation: {what}") from None
    used = []
    for node in _walk(tree):
        if node[0] == "sym" and _symbol_of(node[1]) not in used:
            used.append(_symbol_of(node[1]))
    if spec.result.key in used:
        raise SpecError(f"the answer key's equation uses its result {spec.result.name!r} on the right")
    activation = tree[1] if tree[0] == "call" and tree[1] in equation_functions.UNARY else None

    trials = _trials(spec)
    own = None
    for convention in spec.conventions:
        probe = next(t for t in trials if t.convention == convention and not t.flat)
        try:
            with np.errstate(all="ignore"):
                value = np.asarray(_eval(tree, _layout(spec, probe.base, convention, False)), dtype=float)
        except Exception:
            continue
        if value.shape == _expected_shape(spec, probe, convention, False):
            own = convention
            break
    if own is None:
        raise SpecError(f"the answer key's equation {echo(text, 60)!r} fits none of the conventions "
                        f"{', '.join(spec.conventions)} with the declared sizes")
    compiled = []
    with np.errstate(all="ignore"):
        for trial in trials:
            flat = trial.flat if own == "column" else False
            value = np.asarray(_eval(tree, _layout(spec, trial.base, own, flat)), dtype=float)
            expected = _from_row(spec, _to_row(spec, value, own, flat), trial.convention, trial.flat)
            if not np.all(np.isfinite(expected)):
                raise SpecError("the answer key's equation is not finite on the trial values "
                                "(declare positive: true for a symbol under a sqrt, log or division)")
            compiled.append((trial, _layout(spec, trial.base, trial.convention, trial.flat), expected))
    return _Reference(spec, tree, tuple(used), activation, tuple(compiled))


@lru_cache(maxsize=64)
def _cached_reference(mapping_json: str, text: str) -> _Reference:
    return _compile_reference(compile_spec(json.loads(mapping_json)), text)   # cached here already


def _reference(mapping, text) -> _Reference:
    try:
        return _cached_reference(json.dumps(mapping, sort_keys=True, ensure_ascii=False), text)
    except TypeError:   # not JSON-able, or no text: no cache
        return _compile_reference(compile_spec(mapping), text)


def reference_problem(mapping, text) -> str | None:
    """What makes a question's equation mapping or its answer-key answer unusable, or None."""
    try:
        _reference(mapping, text)
    except SpecError as err:
        return str(err)
    return None


def _status(ref: _Reference, tree) -> dict:
    """{convention: 'match' | 'value' | 'shape'} for a resolved tree."""
    result = {}
    with np.errstate(all="ignore"):
        for trial, env, expected in ref.trials:
            if result.get(trial.convention, "match") != "match":
                continue
            try:
                out = np.asarray(_eval(tree, env), dtype=float)
            except Exception:
                result[trial.convention] = "shape"
                continue
            if out.shape != expected.shape:
                result[trial.convention] = "shape"
            elif not (np.all(np.isfinite(out)) and np.allclose(out, expected, rtol=1e-7, atol=1e-9)):
                result[trial.convention] = "value"
            else:
                result.setdefault(trial.convention, "match")
    return result


def _matches(ref, tree) -> str | None:
    for name, status in _status(ref, tree).items():
        if status == "match":
            return name
    return None


# --------------------------------------------------------------------------
# repairs used for the diagnosis: each maps a tree to [(repaired tree, params)]
# --------------------------------------------------------------------------

_ROLE_ORDER = ("matrix", "vector", "bias", "scalar")


def _swaps(ref: _Reference):
    spec = ref.spec
    used = sorted(ref.used, key=lambda k: _ROLE_ORDER.index(spec.symbols[k].role))
    pairs = [(a, b) for a, b in itertools.combinations(used, 2)
             if spec.symbols[a].role == spec.symbols[b].role]

    def repair(tree):
        out = []
        for a, b in pairs:
            swap = {a: b, b: a}
            out.append((_map(tree, lambda n: ("sym", swap.get(n[1], n[1]), n[2]) if n[0] == "sym" else n),
                        {"first": spec.display(a), "second": spec.display(b)}))
        return out
    return repair


def _drop_transposes(tree):
    if not any(n[0] == "T" for n in _walk(tree)):
        return []
    return [(_map(tree, lambda n: n[1] if n[0] == "T" else n), {})]


def _flippable(node):
    return (node[0] == "prod" and all(op == "mm" for op, _ in node[1])
            and not any(child[0] == "num" for _, child in node[1]))


def _flip_variants(tree):
    count = sum(1 for n in _walk(tree) if _flippable(n))
    if count == 0 or count > MAX_FLIPS:
        return []
    variants = []
    for size in range(1, count if count > 1 else 2):   # proper subsets when count > 1
        for chosen in itertools.combinations(range(count), size):
            counter = [0]
            chosen_set = set(chosen)

            def fn(n, chosen_set=chosen_set, counter=counter):
                if _flippable(n):
                    index = counter[0]
                    counter[0] += 1
                    if index in chosen_set:
                        return ("prod", [("mm", child) for _, child in reversed(n[1])])
                return n
            # _map is bottom-up; number products in that same order
            variants.append((_map(tree, fn), {}))
    return variants


def _one_activation(name):
    def repair(tree):
        def strip(n):
            if n[0] == "call" and n[1] in equation_functions.UNARY and len(n[2]) == 1:
                return n[2][0]
            return n
        return [(("call", name, [_map(tree, strip)], name), {"expected": name})]
    return repair


def _activation_key(tree, expected):
    calls = [n[1] for n in _walk(tree) if n[0] == "call" and n[1] in equation_functions.UNARY]
    if not calls:
        return "equation.no_activation"
    if any(c != expected for c in calls):
        return "equation.wrong_activation"
    return "equation.activation_placement"


def _diagnose(ref: _Reference, tree):
    spec = ref.spec
    keys = {_symbol_of(n[1]) for n in _walk(tree) if n[0] == "sym"}
    if spec.result.key in keys:
        if spec.previous:
            return "equation.uses_result_not_previous", {"result": spec.result.name, "previous": spec.previous}
        return "equation.uses_result", {"result": spec.result.name}
    missing = [k for k in ref.used if k not in keys]
    if any(spec.symbols[k].role != "bias" for k in missing):
        return "equation.missing_term", {"missing": ", ".join(spec.display(k) for k in missing
                                                              if spec.symbols[k].role != "bias")}
    if missing:
        return "equation.missing_bias", {"bias": spec.display(missing[0])}

    families = [("equation.swapped", _swaps(ref)),
                ("equation.transposed", _drop_transposes),
                ("equation.mixed_conventions", _flip_variants)]
    if ref.activation:
        families.append((_activation_key(tree, ref.activation), _one_activation(ref.activation)))
    for key, repair in families:
        for variant, params in repair(tree):
            if _matches(ref, variant):
                return key, params
    # two repairs together: report the first (higher-priority) one
    for (key, first), (_, second) in itertools.combinations(families, 2):
        for v1, params in first(tree):
            if any(_matches(ref, v2) for v2, _ in second(v1)):
                return key, params
    if all(s == "shape" for s in _status(ref, tree).values()):
        return "equation.shape_error", {}
    return "equation.wrong", {}


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------

def check_equation(text, question, reference) -> EquationVerdict:
    """Grade ``text`` against the question's ``equation:`` mapping and the answer key's
    ``reference`` equation."""
    try:
        ref = _reference(question, reference)
    except SpecError as err:
        return EquationVerdict(False, "equation.bad_question", {"problem": echo(str(err), 80)})
    except Exception as err:
        return EquationVerdict(False, "equation.bad_question", {"problem": type(err).__name__})
    try:
        return _check(text, ref)
    except Exception:  # never raise: the student's text is hostile by default
        return EquationVerdict(False, "equation.unparsable", {"near": ""})


def _check(text, ref: _Reference) -> EquationVerdict:
    if not isinstance(text, str):
        return EquationVerdict(False, "equation.not_text", {})
    if len(text) > 4 * MAX_LENGTH:
        return EquationVerdict(False, "equation.too_long", {"limit": MAX_LENGTH})
    text = clean(text)
    if not text:
        return EquationVerdict(False, "equation.empty", {})
    if len(text) > MAX_LENGTH:
        return EquationVerdict(False, "equation.too_long", {"limit": MAX_LENGTH})
    spec = ref.spec
    allowed = ", ".join(spec.display(k) for k in ref.used)
    try:
        lhs, rhs = _read(spec, text)
        tree = _resolve(spec, rhs, lhs, allowed)
    except _Problem as problem:
        return EquationVerdict(False, problem.key, problem.params)
    convention = _matches(ref, tree)
    if convention:
        return EquationVerdict(True, "equation.ok", {"convention": convention})
    key, params = _diagnose(ref, tree)
    return EquationVerdict(False, key, params)
