"""The declared ``gradient`` kind: a function returning gradients, against finite differences.

::

    - id: gradient
      kind: gradient
      function: sq_dists_grad
      args: [{name: A, shape: [n, d]}, {name: B, shape: [m, d]}, {name: G, shape: [n, m]}]
      loss: "sum(pairwise_sq_dists(A, B) * G)"   # or {function: a_course_function}
      wrt: [A, B]          # the result is (dL/dA, dL/dB); a name alone: the result is one
                           # gradient; a mapping {dA: A, ...}: the result is a dict

The loss is a scalar function of the arguments (named with ``name``, or the kwargs' keys):
an expression over them, NumPy functions and the course's own functions (the reference
file of the exercise), or ``{function: name}``, a course function taking the same arguments.
So "the gradient of loss(f(x)) with respect to x" is ``loss: "sum(f(x) * G)"`` with G an
argument. Each returned gradient must have its input's shape and agree with centred finite
differences of the loss (step ``eps``) within ``max_error``, relative to their norms.
Expressions are read with :mod:`ast`; only arithmetic, calls of plain names, numbers,
indexing and keywords are accepted, so the YAML reaches no attribute, builtin or import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from grader.checks.api import Fail, describe_case, quiet_numpy, result_name
from grader.checks.compare import type_label

KEYS = ("loss", "wrt", "eps", "max_error")
NUMPY_FUNCTIONS = ("sum", "mean", "exp", "log", "log1p", "expm1", "tanh", "sqrt", "abs", "square", "dot",
                   "matmul", "maximum", "minimum", "prod", "sin", "cos", "einsum", "max", "min", "trace",
                   "outer", "transpose", "where", "logaddexp", "clip")
ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Load, ast.Constant, ast.keyword,
           ast.Subscript, ast.Slice, ast.Tuple, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult,
           ast.Mod, ast.FloorDiv, ast.USub, ast.UAdd)


@dataclass(frozen=True)
class Gradient:
    names: tuple          # the positional arguments' names (None where unnamed)
    loss_text: str        # as messages show it
    expression: object    # compiled, or None for a course function
    loss_function: str | None
    course_functions: tuple
    wrt: tuple            # ((label, result key or index or None, input name), ...)
    form: str             # "single", "sequence" or "mapping"
    eps: float
    max_error: float

    def loss(self, reference, args: tuple, kwargs: dict) -> float:
        """L at these arguments; ``reference(name)`` gives a course function."""
        with quiet_numpy():
            if self.loss_function is not None:
                result = reference(self.loss_function)(*args, **kwargs)
            else:
                scope = {name: getattr(np, name) for name in NUMPY_FUNCTIONS}
                scope.update((name, reference(name)) for name in self.course_functions)
                scope.update((n, v) for n, v in zip(self.names, args) if n)
                scope.update(kwargs)
                result = eval(self.expression, {"__builtins__": {}}, scope)  # noqa: S307 -- a checked tree
        result = np.asarray(result)
        if result.size != 1 or result.dtype.kind not in "iuf":
            raise ValueError(f"the loss {self.loss_text} gave {result.dtype} of shape {result.shape}, not a number")
        return float(result.reshape(()))


def gradient_spec(entry: dict, specs: list, kwspecs: dict, fail, result_names=None) -> Gradient:
    """The gradient part of a declared check (``fail(problem)`` raises the course error);
    ``result_names``: the exercise's ``returns:`` names for the function, which messages use."""
    names = tuple(s.get("name") for s in specs)
    inputs = {n: s for n, s in zip(names, specs) if n} | kwspecs
    loss = entry.get("loss")
    if isinstance(loss, dict):
        function = loss.get("function")
        if set(loss) != {"function"} or not isinstance(function, str) or not function.isidentifier():
            fail("loss {function: name} takes one key, function, naming a course function")
        text, expression, course = f"{function}({', '.join(n or '_' for n in names)})", None, ()
    elif isinstance(loss, str) and loss.strip():
        function, text = None, loss.strip()
        expression, course = _expression(text, tuple(inputs), fail)
    else:
        fail("a gradient check needs loss: an expression such as sum(f(X) * G), or {function: name}")
    wrt = entry.get("wrt")
    if isinstance(wrt, str):
        form, pairs = "single", [(result_name(result_names, ""), None, wrt)]
    elif isinstance(wrt, list) and wrt:
        form, pairs = "sequence", [(result_name(result_names, f"[{i}]"), i, name) for i, name in enumerate(wrt)]
    elif isinstance(wrt, dict) and wrt:
        form, pairs = "mapping", [(str(key), key, name) for key, name in wrt.items()]
    else:
        fail("wrt must name the input the result differentiates, list them (a tuple result) "
             "or map result keys to them (a dict result)")
    for _, _, name in pairs:
        spec = inputs.get(name) if isinstance(name, str) else None
        if spec is None or "shape" not in spec or spec.get("values") == "integers":
            fail(f"wrt names {name!r}, which is no generated float argument "
                 f"(named ones: {', '.join(inputs) or 'none'}; "
                 "give a positional argument a name: {name: X, shape: [...]})")
    eps, max_error = entry.get("eps", 1e-6), entry.get("max_error", 1e-6)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 for v in (eps, max_error)):
        fail("eps and max_error must be positive numbers")
    return Gradient(names=names, loss_text=text, expression=expression, loss_function=function,
                    course_functions=course, wrt=tuple(pairs), form=form, eps=float(eps), max_error=float(max_error))


def _expression(text: str, inputs: tuple, fail):
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        fail(f"loss {text!r} is not an expression: {exc.msg}")
    calls = set()
    for node in ast.walk(tree):
        if not isinstance(node, ALLOWED):
            fail(f"loss {text!r}: {type(node).__name__} is not allowed (arithmetic, calls, indexing only)")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                fail(f"loss {text!r}: only plain names can be called (sum(...), not np.sum(...))")
            calls.add(node.func.id)
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool)
                                               or not isinstance(node.value, (int, float))):
            fail(f"loss {text!r}: {node.value!r} is not a number")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in calls and node.id not in inputs:
            fail(f"loss {text!r}: {node.id!r} is no named argument (named: {', '.join(inputs) or 'none'})")
    course = tuple(sorted(c for c in calls if c not in NUMPY_FUNCTIONS and c not in inputs))
    return compile(tree, "<loss>", "eval"), course


# ---------------------------------------------------------------- the check

def run_gradient(spec: Gradient, ctx, func: str, tag: str, build):
    def numeric(case):
        try:
            return numeric_gradients(spec, ctx.reference, case)
        except Exception as exc:  # noqa: BLE001 -- the loss is the course's: its failure is a course error
            inputs = "a hidden check's inputs" if ctx.hidden else f"the inputs {describe_case(case)}"
            raise ctx.course_error(exc, f"the loss {spec.loss_text} failed on {inputs}") from None

    items = ctx.cached(tag, lambda rng: [(case, numeric(case)) for case in build(rng)])
    for case, numeric in items:
        got = ctx.call(func, case)
        for label, name, value in _entries(spec, got, case):
            expected = numeric[name]
            if not isinstance(value, np.ndarray):
                raise Fail("cmp.not_array", where=label, got=type_label(value), shape=expected.shape,
                           case=describe_case(case))
            if value.shape != expected.shape:
                raise Fail("cmp.shape", where=label, expected=expected.shape, got=value.shape, case=describe_case(case))
            if value.dtype.kind not in "iuf":
                raise Fail("cmp.dtype", where=label, expected="float64", got=str(value.dtype), case=describe_case(case))
            error = relative_error(value.astype(np.float64), expected)
            if not error <= spec.max_error:
                raise Fail("prop.gradient_fd", key=label, wrt=name, loss=spec.loss_text, error=f"{error:.2e}",
                           max_error=f"{spec.max_error:g}", case=describe_case(case))


def _entries(spec: Gradient, got, case) -> list:
    """(label, input name, value) of every gradient the result must hold."""
    if spec.form == "single":
        return [(label, name, got) for label, _, name in spec.wrt]
    if spec.form == "sequence":
        if not isinstance(got, (tuple, list)):
            raise Fail("cmp.type", where="result", expected=f"tuple of {len(spec.wrt)}", got=type_label(got),
                       case=describe_case(case))
        if len(got) != len(spec.wrt):
            raise Fail("cmp.length", where="result", expected=len(spec.wrt), got=len(got), case=describe_case(case))
        return [(label, name, got[i]) for label, i, name in spec.wrt]
    if not isinstance(got, dict):
        raise Fail("cmp.type", where="result", expected="dict", got=type_label(got), case=describe_case(case))
    missing = [str(key) for _, key, _ in spec.wrt if key not in got]
    if missing:
        raise Fail("cmp.keys", where="result", missing=", ".join(missing), extra="-", case=describe_case(case))
    return [(label, name, got[key]) for label, key, name in spec.wrt]


def numeric_gradients(spec: Gradient, reference, case) -> dict:
    """Centred differences of the loss, in float64, for every input named in ``wrt``."""
    def loss(args, kwargs):
        fresh = lambda v: v.copy() if isinstance(v, np.ndarray) else v  # noqa: E731 -- the loss may not keep them
        return spec.loss(reference, tuple(fresh(a) for a in args), {k: fresh(v) for k, v in kwargs.items()})

    grads = {}
    for _, _, name in spec.wrt:
        if name in grads:
            continue
        args, kwargs = list(case.args), dict(case.kwargs)
        array = np.array(kwargs[name] if name in kwargs else args[spec.names.index(name)], dtype=np.float64)
        if name in kwargs:
            kwargs[name] = array
        else:
            args[spec.names.index(name)] = array
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            keep = array[index]
            array[index] = keep + spec.eps
            plus = loss(args, kwargs)
            array[index] = keep - spec.eps
            minus = loss(args, kwargs)
            array[index] = keep
            grad[index] = (plus - minus) / (2 * spec.eps)
        grads[name] = grad
    return grads


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        return float(np.linalg.norm(got - expected) / max(np.linalg.norm(got) + np.linalg.norm(expected), 1e-12))
