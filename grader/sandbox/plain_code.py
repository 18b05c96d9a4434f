"""Whether a submission's code is "plain": it cannot leave state outside its own modules.

Every exercise re-imports the student's modules, so what student code keeps in its own
module globals is recreated for the next exercise anyway. What could carry over is state
outside them: library modules and the objects they hand out, builtins, raw memory, files,
and code that runs later (finalisers, suspended generators). A submission whose every file
passes this test may grade its exercises in one worker child (issue 10); any other keeps a
fresh child per exercise.

The test is an allowlist over the syntax tree, sound first and conservative where unsure:
  * imports only of numpy (and numpy.linalg / fft / random / typing), math, cmath,
    itertools, typing, __future__ and the submission's own modules;
  * a library module only ever as the root of an attribute (``np.zeros``), never as a
    value, and its members only from the lists below, each used where it cannot be changed:
    immutable types and constants anywhere, functions and ufuncs only where they are called
    (numpy lets one set attributes on them, even shadow ``np.add.reduce``; their methods
    reduce, accumulate, outer, reduceat and at only called), index tricks only
    subscripted, ``errstate`` only in a ``with`` or as a decorator, ``finfo(...)`` only read;
  * no store or ``del`` into a library object or a builtin, no reflection (getattr, vars,
    dunder attributes, frames), no dynamic code, no files, no ``type(x)`` beyond comparing
    or printing it, ``super()`` only as ``super().method(...)``;
  * no code that outlives its exercise (``__del__``, a ``yield`` inside try/with, async) and
    no hook by which numpy or a shared cache calls back into student code (``__eq__``,
    ``__hash__``, ``__getattr__``, ``__array_interface__``..., metaclasses).
The reasons are English, for the instructor; students never see them.

Why one file of this size: the test is one allowlist, and its soundness depends on every
rule being read together (a name allowed in one rule must not be reachable through another);
split, a reader could no longer check it as a whole.
"""

from __future__ import annotations

import ast
import builtins
import cmath
import importlib.machinery
import importlib.util
import itertools
import math
import re
import string
import sys
from pathlib import Path

# ---------------------------------------------------------------------------- what is allowed

# Kinds of library member, by where they may appear:
#   value      anywhere (immutable: a new attribute cannot be set on it, nor on what it exposes)
#   call       only called (also as a decorator): numpy's functions and ufuncs take attributes
#   ufunc      like call, plus np.<ufunc>.reduce/accumulate/outer/reduceat/at(...)
#   exception  called, raised or caught
#   context    errstate: only called in a with item or as a decorator
#   info       finfo/iinfo: only np.finfo(...).<attribute> (finfo instances are cached and shared)
#   subscript  r_, c_, s_...: only subscripted (their attributes can be set)
#   module     only as the root of an attribute
#   annotation typing names: only inside annotations (typing objects are cached and mutable)

NUMPY_VALUES = frozenset("""
    ndarray dtype generic number integer signedinteger unsignedinteger inexact floating
    complexfloating bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp
    float16 float32 float64 longdouble complex64 complex128 clongdouble double single half
    int_ intc uintc longlong ulonglong short ushort byte ubyte cdouble csingle object_ str_ bytes_
    pi e inf nan newaxis euler_gamma __version__
""".split())

NUMPY_UFUNCS = frozenset("""
    absolute add subtract multiply divide true_divide floor_divide negative positive power
    float_power remainder mod fmod divmod exp exp2 expm1 log log2 log10 log1p logaddexp logaddexp2
    sqrt cbrt square reciprocal sign tanh sinh cosh arctanh arcsinh arccosh sin cos tan arcsin
    arccos arctan arctan2 hypot deg2rad rad2deg degrees radians maximum minimum fmax fmin floor
    ceil trunc rint isnan isinf isfinite signbit copysign greater greater_equal less less_equal
    equal not_equal logical_and logical_or logical_not logical_xor bitwise_and bitwise_or
    bitwise_xor invert left_shift right_shift matmul conjugate conj heaviside nextafter spacing
    ldexp frexp modf gcd lcm abs
""".split())

NUMPY_CALLS = frozenset("""
    array asarray asanyarray ascontiguousarray asfortranarray copy zeros ones empty full
    zeros_like ones_like empty_like full_like eye identity arange linspace logspace geomspace
    meshgrid diag diagonal diagflat tri tril triu vander fromfunction fromiter indices
    sum prod mean std var median average percentile quantile nanmean nansum nanmax nanmin
    nanstd nanvar nanargmax nanargmin nanmedian nanprod nanpercentile nanquantile cumsum cumprod
    nancumsum nancumprod max min amax amin argmax argmin ptp all any count_nonzero nonzero
    flatnonzero where argwhere select choose take take_along_axis put_along_axis put place
    putmask compress extract searchsorted sort argsort lexsort partition argpartition unique
    isin intersect1d union1d setdiff1d setxor1d reshape ravel transpose swapaxes moveaxis
    rollaxis expand_dims squeeze atleast_1d atleast_2d atleast_3d broadcast_to broadcast_arrays
    broadcast_shapes concatenate stack vstack hstack dstack column_stack block split
    array_split hsplit vsplit dsplit tile repeat pad flip fliplr flipud roll rot90 append insert
    delete resize trim_zeros dot vdot inner outer tensordot einsum einsum_path kron cross trace
    allclose isclose array_equal array_equiv isscalar ndim shape size result_type promote_types
    can_cast min_scalar_type iscomplexobj isrealobj iscomplex isreal real imag angle round
    around fix nan_to_num interp diff ediff1d gradient convolve correlate histogram
    histogram_bin_edges histogram2d bincount digitize cov corrcoef clip vectorize
    apply_along_axis apply_over_axes piecewise ndindex ndenumerate unravel_index
    ravel_multi_index diag_indices tril_indices triu_indices copyto shares_memory
    may_share_memory array_repr array_str array2string format_float_positional
    format_float_scientific unwrap sinc i0 polyfit polyval roots frompyfunc require
    real_if_close sort_complex
""".split())

NUMPY_SUBSCRIPTED = frozenset("r_ c_ s_ index_exp mgrid ogrid".split())

LINALG_CALLS = frozenset("""
    norm inv pinv solve lstsq det slogdet eig eigh eigvals eigvalsh svd qr cholesky
    matrix_rank matrix_power multi_dot cond tensorsolve tensorinv
""".split())

FFT_CALLS = frozenset("""
    fft ifft rfft irfft fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn hfft ihfft fftfreq
    rfftfreq fftshift ifftshift
""".split())

RANDOM_CALLS = frozenset("default_rng Generator SeedSequence PCG64".split())   # never the global RNG

TYPING_NAMES = frozenset("""
    Any Optional Union List Dict Tuple Set FrozenSet Sequence Iterable Iterator Mapping
    Callable Type Generator Literal Final ClassVar
""".split())

INFO_ATTRIBUTES = frozenset("""
    bits dtype eps epsneg iexp machep max maxexp min minexp negep nexp nmant precision
    resolution smallest_normal smallest_subnormal tiny
""".split())

# at writes into its first argument, which can only be the student's own array (a library object is
# never a value here), as ``a[i] += v`` does
UFUNC_METHODS = frozenset({"reduce", "accumulate", "outer", "reduceat", "at"})


def _kinds(kind: str, names) -> dict[str, str]:
    return {name: kind for name in names}


LIBRARY_MEMBERS: dict[tuple[str, ...], dict[str, str]] = {
    ("numpy",): {**_kinds("value", NUMPY_VALUES), **_kinds("ufunc", NUMPY_UFUNCS),
                 **_kinds("call", NUMPY_CALLS), **_kinds("subscript", NUMPY_SUBSCRIPTED),
                 "errstate": "context", "finfo": "info", "iinfo": "info",
                 **_kinds("module", ("linalg", "fft", "random", "typing"))},
    ("numpy", "linalg"): {**_kinds("call", LINALG_CALLS), "LinAlgError": "exception"},
    ("numpy", "fft"): _kinds("call", FFT_CALLS),
    ("numpy", "random"): _kinds("call", RANDOM_CALLS),
    ("numpy", "typing"): _kinds("annotation", ("NDArray", "ArrayLike", "DTypeLike")),
    # math, cmath and itertools hold builtin functions, builtin types and floats only: immutable
    ("math",): _kinds("value", (name for name in dir(math) if not name.startswith("_"))),
    ("cmath",): _kinds("value", (name for name in dir(cmath) if not name.startswith("_"))),
    ("itertools",): _kinds("value", (name for name in dir(itertools) if not name.startswith("_"))),
    ("typing",): {**_kinds("annotation", TYPING_NAMES), "TYPE_CHECKING": "value"},
}
STAR_IMPORTABLE = frozenset({("math",), ("cmath",), ("itertools",)})

_IMMUTABLE_TYPE = 1 << 8        # Py_TPFLAGS_IMMUTABLETYPE: no attribute of the type can be set

# Builtins usable anywhere: immutable functions and types (tests/sandbox/test_plain_code.py checks).
# type and super have their own rules; getattr, vars, open, exec, the site helpers... are risks.
SAFE_BUILTINS = frozenset("""
    abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict dir divmod
    enumerate filter float format frozenset hasattr hash hex int isinstance issubclass iter len
    list map max min next object oct ord pow print property range repr reversed round set slice
    sorted staticmethod str sum tuple zip Ellipsis NotImplemented
""".split()) | frozenset(name for name, value in vars(builtins).items()
                         if isinstance(value, type) and issubclass(value, BaseException)
                         and value.__flags__ & _IMMUTABLE_TYPE)   # not ExceptionGroup: it takes attributes
# site's helpers (help, exit, license...) are mutable Python objects; named here as well, since
# a grader started with -S would not see them among its builtins while a worker could.
SITE_BUILTINS = frozenset({"help", "exit", "quit", "copyright", "credits", "license"})
_BUILTIN_NAMES = frozenset(dir(builtins)) | SITE_BUILTINS

# Dunder methods a class may define: none that numpy or a shared cache would call on the
# object in a later exercise (__eq__, __hash__), that makes numpy read raw memory
# (__array_interface__, __getattr__), that runs code later (__del__), or that Python or numpy
# calls with one of their own objects (__exit__ gets the exception's class, __array_ufunc__
# the ufunc, __array_function__ the function, __array_wrap__ a context with the ufunc,
# __class_getitem__ the cached typing object of an annotation such as K[List[int]]).
DEFINABLE_DUNDERS = frozenset("""
    __init__ __new__ __repr__ __str__ __format__ __len__ __iter__ __next__ __reversed__
    __contains__ __getitem__ __setitem__ __delitem__ __missing__ __call__
    __bool__ __int__ __float__ __complex__ __index__ __round__ __trunc__ __floor__ __ceil__
    __abs__ __neg__ __pos__ __invert__ __lt__ __le__ __gt__ __ge__ __ne__
    __add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__
    __matmul__ __rmatmul__ __imatmul__ __truediv__ __rtruediv__ __itruediv__
    __floordiv__ __rfloordiv__ __ifloordiv__ __mod__ __rmod__ __imod__ __divmod__ __rdivmod__
    __pow__ __rpow__ __ipow__ __and__ __rand__ __iand__ __or__ __ror__ __ior__
    __xor__ __rxor__ __ixor__ __lshift__ __rlshift__ __ilshift__ __rshift__ __rrshift__ __irshift__
    __array__ __array_finalize__ __setattr__ __delattr__ __init_subclass__ __set_name__ __copy__ __deepcopy__
""".split())
DUNDER_BINDINGS = DEFINABLE_DUNDERS | {"__slots__", "__all__", "__doc__", "__version__",
                                       "__author__", "__array_priority__", "__match_args__"}
DUNDER_NAME_LOADS = frozenset({"__name__", "__doc__", "__file__"})
DUNDER_ATTRIBUTE_LOADS = frozenset({"__name__", "__qualname__", "__doc__", "__version__"})
# super().<dunder>(...) for these only: super().__setattr__ could plant __array_interface__
SUPER_DUNDERS = frozenset({"__init__", "__new__", "__init_subclass__", "__array_finalize__",
                           "__getitem__", "__setitem__", "__repr__", "__str__"})
# Where type(x) may appear: printed or formatted (str of a class runs no student code), named,
# or compared by identity, or by equality with a constant, a builtin type or a numpy type
# (`type(x) == obj` would hand the class to obj's __eq__ or __array_ufunc__).
TYPE_PRINTERS = frozenset({"print", "str", "repr"})

# Attributes that write files, expose raw memory or reach frames, on any object; and those by
# which an exception hands back a library object: numpy's ufunc errors carry the ufunc (in
# .ufunc and .args), an AttributeError the object it was raised on (.obj).
FORBIDDEN_ATTRIBUTES = frozenset("""
    tofile dump dumps ctypes cffi capsule setflags obj args ufunc
    f_back f_globals f_locals f_builtins f_code f_trace f_trace_lines f_trace_opcodes
""".split())
FORBIDDEN_ATTRIBUTE_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "co_")   # generator, coroutine, traceback, code

_STUDENT = "<student>"          # first element of the path of a student module
CONFLICT = ("<two imports>",)   # the path of a name imported as two different things
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_ANNOTATION_NODES = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Constant, ast.BinOp})
_GUARDS = frozenset({ast.Try, ast.With, getattr(ast, "TryStar", ast.Try)})   # a yield inside runs code when closed
_SPECIAL_CHILDREN = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.AnnAssign,
                               *_COMPREHENSIONS})


class Risk(Exception):
    """Raised inside the check with the reason; never leaves this module."""


# ---------------------------------------------------------------------------- public API

def state_risk(source: str, student_modules: frozenset[str] = frozenset()) -> str | None:
    """None when the source is plain: it cannot leave state outside the student's own modules.
    Otherwise a short English reason for the instructor's debugging (not shown to students).

    Names imported from a sibling are taken as the sibling's own objects; whether a sibling
    re-exports a library object (``from layers import np``) only submission_risk can see."""
    tree, reason = _parse(source)
    if reason:
        return reason
    return _Checker(tree, _students(student_modules), lambda module: None).risk()


def submission_risk(files: dict[str, str]) -> str | None:
    """files: module name -> source for every .py of the submission (module names are the
    student modules: sibling imports between them are allowed). None if all are plain, else
    "<module>: <reason>" of the first risky one (sorted by module name). A function of the
    files alone, so the answer for the same files is kept (a class holds many alike)."""
    if sum(map(len, files.values())) > _MEMO_SUBMISSION_CHARS:
        return _submission_risk(files)
    key = tuple(sorted(files.items()))
    if key not in _RISKS:
        if len(_RISKS) >= _MEMO_ENTRIES:
            _RISKS.clear()
        _RISKS[key] = _submission_risk(files)
    return _RISKS[key]


# What submission_risk and _parse found, per process: pure functions of their sources, asked again
# for every submission of a class (many files of a class are alike: a stub left as handed out, a
# file the student did not change; a synthetic class holds the reference's again and again).
# Bounded in entries and in the size of what is kept (a tree takes about 30 bytes per character
# of a pathological source): a full memo starts again; larger sources are not kept.
_MEMO_ENTRIES = 128
_MEMO_SOURCE_CHARS = 16 << 10
_MEMO_SUBMISSION_CHARS = 128 << 10
_RISKS: dict[tuple, str | None] = {}
_PARSED: dict[str, tuple] = {}


def _submission_risk(files: dict[str, str]) -> str | None:
    students = _students(frozenset(files))
    parsed = {name: _parse(source) for name, source in files.items()}
    exports = _exports({name: tree for name, (tree, _) in parsed.items() if tree is not None}, students)
    for name in sorted(files):
        tree, reason = parsed[name]
        reason = reason or _Checker(tree, students, exports.get).risk()
        if reason:
            return f"{name}: {reason}"
    return None


def shares_one_child(submission) -> bool:
    """Whether a submission's exercises may share one worker child: every file the worker
    could import from its root is Python source, and submission_risk finds all of it plain."""
    return root_risk(Path(submission.root)) is None


def root_risk(root: Path) -> str | None:
    """submission_risk of every .py under root (module names by path, as the worker imports
    them), read as Python reads them (coding cookie, BOM); or why a file there keeps the
    exercises apart: compiled code (a .pyc, even in __pycache__, or an extension module,
    which run instead of or beside the source), a symbolic link, a source that does not decode."""
    files: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            return f"{rel}: a symbolic link"
        if not path.is_file():
            continue
        if path.name.endswith(_COMPILED_SUFFIXES):
            return f"{rel}: compiled code"
        if path.suffix == ".py":
            try:
                source = importlib.util.decode_source(path.read_bytes())
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError, ValueError) as exc:
                return f"{rel}: cannot be read ({type(exc).__name__})"
            files[_module_name(path.relative_to(root))] = source
    return submission_risk(files)


_COMPILED_SUFFIXES = tuple(importlib.machinery.BYTECODE_SUFFIXES + importlib.machinery.EXTENSION_SUFFIXES)


def _module_name(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:   # pkg/__init__.py is pkg
        parts.pop()
    return ".".join(parts)


# ---------------------------------------------------------------------------- parsing and modules

def _parse(source: str) -> tuple[ast.Module | None, str | None]:
    """The source's tree, or why it has none; kept per source (the checks only read a tree)."""
    if len(source) > _MEMO_SOURCE_CHARS:
        return _parse_once(source)
    found = _PARSED.get(source)
    if found is None:
        if len(_PARSED) >= _MEMO_ENTRIES:
            _PARSED.clear()
        found = _PARSED[source] = _parse_once(source)
    return found


def _parse_once(source: str) -> tuple[ast.Module | None, str | None]:
    try:
        return ast.parse(source), None
    except SyntaxError as exc:
        return None, f"cannot parse: syntax error: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError, OverflowError, TypeError) as exc:
        return None, f"cannot parse: {type(exc).__name__}"


# Top-level names a worker child imports as something other than the student's file of that
# name: the student's folder comes first on its sys.path, so only what is already imported
# (the standard library, numpy, Cython's runtime, the worker's own _grader_* helpers) or built
# in wins. Private names are all taken as library names; grader in case of an editable install.
WORKER_LIBRARY_TOPS = frozenset({"numpy", "cython_runtime", "grader"})


def _students(names: frozenset[str]) -> frozenset[str]:
    """The submission's modules (and the packages holding them) that its imports really reach:
    a file named like a library (os.py, numpy.py) does not make `import os` the student's own."""
    found = set()
    for name in names:
        parts = name.split(".")
        if not _is_library(parts[0]):
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(found)


def _is_library(top: str) -> bool:
    return (top in sys.stdlib_module_names or top in sys.builtin_module_names
            or top in WORKER_LIBRARY_TOPS or top.startswith("_"))


def _import_bindings(tree: ast.Module, students: frozenset[str], exports_of) -> dict[str, tuple]:
    """Names bound by the file's imports (in any scope) -> the path of what they name:
    ("numpy", "linalg"), ("numpy", "tanh"), ("<student>", "layers")... A name imported as
    two different things gets CONFLICT. Invalid imports bind nothing here; the checker
    reports them."""
    bound: dict[str, tuple] = {}
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            found = {}
            for alias in node.names:
                path = _imported_module(alias.name, students)
                if path is not None and alias.asname:
                    found[alias.asname] = path
                elif path is not None:
                    top = alias.name.split(".")[0]
                    found[top] = (_STUDENT, top) if path[0] == _STUDENT else (top,)
        else:
            found = _from_bindings(node, students, exports_of)
        for name, path in found.items():
            bound[name] = path if bound.get(name, path) == path else CONFLICT
    return bound


def _import_statements(tree: ast.Module):
    """Every import statement, in any block: only statements are walked (imports are never
    inside an expression), a tenth of the tree."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    yield child
                elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    stack.append(child)


def _imported_module(dotted: str, students: frozenset[str]) -> tuple | None:
    if dotted.split(".")[0] in students:
        return (_STUDENT, dotted)
    path = tuple(dotted.split("."))
    return path if path in LIBRARY_MEMBERS else None


def _from_bindings(node: ast.ImportFrom, students, exports_of) -> dict[str, tuple]:
    if node.module == "__future__":
        return {}
    bound: dict[str, tuple] = {}
    if node.module is None:   # from . import sibling
        for alias in node.names:
            if alias.name in students:
                bound[alias.asname or alias.name] = (_STUDENT, alias.name)
        return bound
    source = _imported_module(node.module, students)
    if source is None:
        return {}
    if source[0] == _STUDENT:
        exported = exports_of(source[1]) or {}
        for alias in node.names:
            if alias.name == "*":
                bound.update({k: v for k, v in exported.items() if not k.startswith("_")})
            elif alias.name in exported:
                bound[alias.asname or alias.name] = exported[alias.name]
        return bound
    members = LIBRARY_MEMBERS[source]
    for alias in node.names:
        if alias.name == "*" and source in STAR_IMPORTABLE:
            bound.update({name: source + (name,) for name in members})
        elif alias.name in members:
            bound[alias.asname or alias.name] = source + (alias.name,)
    return bound


def _exports(trees: dict[str, ast.Module], students: frozenset[str]) -> dict[str, dict[str, tuple]]:
    """What each student module's imports bind, as seen by a sibling that imports from it:
    `from layers import np` names numpy, however many modules it went through. Computed to
    a fixed point, so import cycles resolve too (each name changes at most twice: unknown,
    a path, CONFLICT)."""
    exports: dict[str, dict[str, tuple]] = {name: {} for name in trees}
    changed = True
    while changed:
        changed = False
        for name, tree in trees.items():
            bound = _import_bindings(tree, students, exports.get)
            if bound != exports[name]:
                exports[name], changed = bound, True
    return exports


# ---------------------------------------------------------------------------- the check

# Fields that never hold a node worth visiting: names, flags, contexts, operators, and an
# import's aliases (judged with the import). A constant is a leaf.
_SCALAR_FIELDS = frozenset("ctx op ops id attr arg name names asname module level kind is_async "
                           "conversion simple rest kwd_attrs type_comment tag".split())


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    """The fields of a kind of node that may hold child nodes (cached)."""
    leaf = kind in (ast.Constant, ast.MatchSingleton)
    _FIELDS[kind] = () if leaf else tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
    return _FIELDS[kind]


def _bind_name(scope, name) -> None:
    if name:
        scope.bound.add(name)


class _Scope:
    __slots__ = ("kind", "parent", "bound", "declared_global")

    def __init__(self, kind: str, parent: _Scope | None):
        self.kind, self.parent = kind, parent
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()

    def function_like(self) -> _Scope | None:
        """The scope a walrus binds in: the nearest that is not a comprehension."""
        scope = self
        while scope.kind == "comprehension":
            scope = scope.parent
        return scope


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _dotted(path: tuple) -> str:
    return ".".join(path[1:] if path[0] == _STUDENT else path)


class _Checker:
    """One pass over the tree, iterative (a deep tree cannot exhaust the stack). Builtin
    names are judged at the end, once every scope's local names are known: a parameter
    called `input` is not the builtin."""

    def __init__(self, tree: ast.Module, students: frozenset[str], exports_of):
        self.tree, self.students, self.exports_of = tree, students, exports_of
        self.aliases = _import_bindings(tree, students, exports_of)
        self.parents: dict[ast.AST, ast.AST] = {}
        self.builtin_uses: list[tuple[str, _Scope, str]] = []
        self.scopes: list[_Scope] = []
        self.relied_on: dict[str, int] = {}   # builtin name a rule took for the builtin -> a line

    def _scope(self, kind: str, parent: _Scope | None) -> _Scope:
        scope = _Scope(kind, parent)
        self.scopes.append(scope)
        return scope

    def risk(self) -> str | None:
        try:
            self._walk()
        except Risk as risk:
            return self._builtin_risk() or str(risk)   # the earlier of the two
        except RecursionError:
            return "too deeply nested to check"
        return self._builtin_risk() or self._rebound_risk()

    def _rebound_risk(self) -> str | None:
        """print(type(x)) is plain only if print is the builtin: bound anywhere in the file
        (a parameter, a def, an assignment), it may be the student's."""
        bound = set().union(*(scope.bound | scope.declared_global for scope in self.scopes))
        for name, line in self.relied_on.items():
            if name in bound:
                return f"rebinds {name}, which the check takes for the builtin (line {line})"
        return None

    def _builtin_risk(self) -> str | None:
        for name, scope, reason in self.builtin_uses:
            if not _is_local(name, scope):
                return reason
        return None

    # -- traversal

    def _walk(self) -> None:
        parents, visitors = self.parents, self._visitors()
        stack = [(self.tree, self._scope("module", None), False, False)]
        pop, push = stack.pop, stack.append
        while stack:
            node, scope, annotation, guarded = pop()
            kind = type(node)
            if annotation:
                self._annotation(node)
            visitor = visitors.get(kind)
            if visitor is not None:
                visitor(node, scope, guarded, annotation)
            if kind in _SPECIAL_CHILDREN:
                for context in reversed(list(self._children(node, scope, annotation, guarded))):
                    parents[context[0]] = node
                    push(context)
                continue
            inside = guarded or kind in _GUARDS
            fields = _FIELDS.get(kind)
            for field in reversed(fields if fields is not None else _fields(kind)):   # popped in source order
                value = getattr(node, field, None)
                if isinstance(value, list):
                    for child in reversed(value):
                        if isinstance(child, ast.AST):
                            parents[child] = node
                            push((child, scope, annotation, inside))
                elif isinstance(value, ast.AST):
                    parents[value] = node
                    push((value, scope, annotation, inside))

    def _children(self, node, scope, annotation, guarded):
        """The children of a node that opens a scope or an annotation, each with its (scope,
        in an annotation, inside try/with of this function)."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner = self._scope("function", scope)
            if not isinstance(node, ast.Lambda):
                scope.bound.add(node.name)
                for decorator in node.decorator_list:
                    yield decorator, scope, annotation, guarded
                if node.returns is not None:
                    yield node.returns, scope, True, guarded
            arguments = node.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                        arguments.vararg, arguments.kwarg):
                if arg is not None:
                    inner.bound.add(arg.arg)
                    if arg.annotation is not None:
                        yield arg.annotation, scope, True, guarded
            for default in (*arguments.defaults, *arguments.kw_defaults):
                if default is not None:
                    yield default, scope, annotation, guarded
            for statement in (node.body if isinstance(node.body, list) else [node.body]):
                yield statement, inner, False, False
        elif isinstance(node, ast.ClassDef):
            scope.bound.add(node.name)
            for child in (*node.decorator_list, *node.bases, *node.keywords):
                yield child, scope, annotation, guarded
            inner = self._scope("class", scope)
            for statement in node.body:
                yield statement, inner, False, False
        elif isinstance(node, _COMPREHENSIONS):
            inner = self._scope("comprehension", scope)
            first, *rest = node.generators
            yield first.iter, scope, annotation, guarded          # evaluated outside the comprehension
            yield first.target, inner, annotation, guarded
            for condition in first.ifs:
                yield condition, inner, annotation, guarded
            for generator in rest:
                yield generator, inner, annotation, guarded
            for element in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                yield element, inner, annotation, guarded
        elif isinstance(node, ast.AnnAssign):
            yield node.target, scope, annotation, guarded
            yield node.annotation, scope, True, guarded
            if node.value is not None:
                yield node.value, scope, annotation, guarded

    # -- one node

    def _visitors(self) -> dict:
        """What to check (or record) at each kind of node, as f(node, scope, guarded, annotation)."""
        bind = _bind_name
        visitors = {
            ast.Name: lambda node, scope, guarded, annotation: self._name(node, scope, annotation),
            ast.Attribute: lambda node, scope, guarded, annotation: self._attribute(node, scope, annotation),
            ast.Subscript: lambda node, scope, guarded, annotation:
                None if isinstance(node.ctx, ast.Load) else self._store(node, scope),
            ast.Import: lambda node, scope, *_: self._import(node, scope),
            ast.ImportFrom: lambda node, scope, *_: self._import(node, scope),
            ast.FunctionDef: lambda node, *_: self._definition(node),
            ast.ClassDef: lambda node, *_: self._definition(node),
            ast.Yield: self._yield,
            ast.YieldFrom: self._yield,
            ast.Global: lambda node, scope, *_: scope.declared_global.update(node.names),
            ast.ExceptHandler: lambda node, scope, *_: bind(scope, node.name),
            ast.MatchAs: lambda node, scope, *_: bind(scope, node.name),
            ast.MatchStar: lambda node, scope, *_: bind(scope, node.name),
            ast.MatchMapping: lambda node, scope, *_: bind(scope, node.rest),
            ast.NamedExpr: lambda node, scope, *_: bind(scope.function_like(), node.target.id),
            ast.MatchClass: lambda node, *_: self._pattern_attributes(node),
        }
        for name in ("AsyncFunctionDef", "Await", "AsyncFor", "AsyncWith"):
            visitors[getattr(ast, name)] = lambda node, *_: self._fail(node, "uses async code")
        for name in ("TypeAlias", "TypeVar", "ParamSpec", "TypeVarTuple"):   # Python 3.12
            if hasattr(ast, name):
                visitors[getattr(ast, name)] = lambda node, *_: self._fail(node, "uses a type alias or parameter")
        return visitors

    def _annotation(self, node) -> None:
        """Annotations are names, attributes, subscripts, tuples, lists, constants and X | Y:
        nothing that could bind a typing object to a name (a walrus) or call anything. What
        is subscripted or or-ed is a library or builtin type: K[List[int]] or k | List[int]
        would hand the (cached, shared) typing object to the student's K or k."""
        if type(node) not in _ANNOTATION_NODES or (isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr)):
            self._fail(node, "uses an unusual annotation")
        if isinstance(node, ast.Subscript) and not self._library_type(node.value):
            self._fail(node, "subscripts a student object in an annotation")
        if isinstance(node, ast.BinOp) and not all(isinstance(side, (ast.Constant, ast.Subscript, ast.BinOp))
                                                   or self._library_type(side) for side in (node.left, node.right)):
            self._fail(node, "or-s a student object in an annotation")

    def _library_type(self, node) -> bool:
        path = self._resolve(node)
        if path is not None:
            return path[0] != _STUDENT and self._kind(path) in ("value", "annotation")
        if (isinstance(node, ast.Name) and node.id in SAFE_BUILTINS
                and isinstance(getattr(builtins, node.id, None), type)):
            self._rely_on(node)
            return True
        return False

    def _pattern_attributes(self, node: ast.MatchClass) -> None:
        """case K(name=x) reads x = subject.name: the same rules as an attribute."""
        for attr in node.kwd_attrs:
            if _is_dunder(attr) or attr in FORBIDDEN_ATTRIBUTES or attr.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
                self._fail(node, f"matches .{attr}")

    def _yield(self, node, scope, guarded, annotation) -> None:
        if guarded:
            self._fail(node, "yields inside try/with (a generator closed later runs that code)")

    def _fail(self, node, reason: str):
        line = getattr(node, "lineno", None)
        raise Risk(f"{reason} (line {line})" if line else reason)

    def _name(self, node: ast.Name, scope: _Scope, annotation: bool) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            if _is_dunder(name) and name not in DUNDER_BINDINGS:
                self._fail(node, f"binds {name}")
            if not isinstance(self.parents.get(node), ast.NamedExpr):
                scope.bound.add(name)
            return
        if name in self.aliases:
            if self.aliases[name] == CONFLICT:
                self._fail(node, f"imports {name} as two different things")
            self._use(node, self.aliases[name], annotation)
        elif _is_dunder(name):
            if name not in DUNDER_NAME_LOADS:
                self._fail(node, f"uses {name}")
        elif name in _BUILTIN_NAMES:
            reason = self._builtin_reason(node)
            if reason:
                line = f" (line {node.lineno})"
                self.builtin_uses.append((name, scope, reason + line))

    def _builtin_reason(self, node: ast.Name) -> str | None:
        name, parent = node.id, self.parents.get(node)
        called = isinstance(parent, ast.Call) and parent.func is node
        if name == "super":
            return None if self._plain_super(node) else "uses super other than super().method(...)"
        if name == "type":
            return None if self._plain_type(node) else "uses type() beyond comparing or printing it"
        if name in SAFE_BUILTINS:
            return None
        return f"calls {name}" if called else f"uses {name}"

    def _plain_super(self, node) -> bool:
        call = self.parents.get(node)
        if not (isinstance(call, ast.Call) and call.func is node and not call.args and not call.keywords):
            return False
        attribute = self.parents.get(call)
        if not (isinstance(attribute, ast.Attribute) and isinstance(attribute.ctx, ast.Load)):
            return False
        if _is_dunder(attribute.attr) and attribute.attr not in SUPER_DUNDERS:
            return False
        method_call = self.parents.get(attribute)
        return isinstance(method_call, ast.Call) and method_call.func is attribute

    def _plain_type(self, node) -> bool:
        """type(x) printed, formatted, named or compared (TYPE_PRINTERS), never kept: the
        class of a numpy exception or of errstate is a mutable library class."""
        call = self.parents.get(node)
        if not (isinstance(call, ast.Call) and call.func is node and len(call.args) == 1
                and not call.keywords and not isinstance(call.args[0], ast.Starred)):
            return False
        user = self.parents.get(call)
        if isinstance(user, ast.FormattedValue):
            return True
        if isinstance(user, ast.Compare):
            return self._plain_comparison(user, call)
        if isinstance(user, ast.Attribute):
            return user.attr in DUNDER_ATTRIBUTE_LOADS and isinstance(user.ctx, ast.Load)
        if (isinstance(user, ast.Call) and any(arg is call for arg in user.args)
                and isinstance(user.func, ast.Name) and user.func.id in TYPE_PRINTERS):
            self._rely_on(user.func)
            return True
        return False

    def _plain_comparison(self, compare: ast.Compare, operand) -> bool:
        operands = [compare.left, *compare.comparators]
        index = next(i for i, item in enumerate(operands) if item is operand)
        neighbours = []
        if index > 0:
            neighbours.append((compare.ops[index - 1], operands[index - 1], False))
        if index < len(compare.ops):
            neighbours.append((compare.ops[index], operands[index + 1], True))
        for op, other, on_the_right in neighbours:
            if isinstance(op, (ast.Is, ast.IsNot)):
                continue
            if isinstance(op, (ast.Eq, ast.NotEq)) and self._inert(other):
                continue
            if isinstance(op, (ast.In, ast.NotIn)) and on_the_right \
                    and isinstance(other, (ast.Tuple, ast.List, ast.Set)) \
                    and all(self._inert(item) for item in other.elts):
                continue
            return False
        return True

    def _inert(self, node) -> bool:
        """An operand whose == runs no student code: a constant, a builtin type, a numpy or
        math value, another type(...) (judged at its own node)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type":
            return True
        path = self._resolve(node)
        if path is not None:
            return path[0] != _STUDENT and self._kind(path) == "value"
        return self._library_type(node)

    def _rely_on(self, name: ast.Name) -> None:
        self.relied_on.setdefault(name.id, name.lineno)

    def _attribute(self, node: ast.Attribute, scope: _Scope, annotation: bool) -> None:
        attr = node.attr
        if _is_dunder(attr) and not self._allowed_dunder_attribute(node):
            self._fail(node, f"uses .{attr}")
        if attr in FORBIDDEN_ATTRIBUTES or attr.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
            self._fail(node, f"uses .{attr}")
        if not isinstance(node.ctx, ast.Load):
            self._store(node, scope)
            return
        if attr in ("format", "format_map"):
            self._format_template(node)
        base = self._resolve(node.value)
        if base is None:
            return
        if base[0] == _STUDENT or base in LIBRARY_MEMBERS:   # sib.X or np.X
            path = self._resolve(node)
            if path is not None:                 # None: the sibling's own object
                self._use(node, path, annotation)
            return
        parent = self.parents.get(node)          # np.X.Y: only a ufunc's reduce/accumulate/outer, called
        if not (self._kind(base) == "ufunc" and attr in UFUNC_METHODS
                and isinstance(parent, ast.Call) and parent.func is node):
            self._fail(node, f"uses {_dotted(base + (attr,))}")

    def _format_template(self, node: ast.Attribute) -> None:
        """str.format reads attributes named in its template ("{0.__class__}"): the template
        must be a constant whose fields name only what an attribute in the code could."""
        template = node.value
        if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
            self._fail(node, f"calls .{node.attr} on a template that is not a string constant")
        try:
            fields = list(_template_fields(template.value))
        except ValueError:
            self._fail(node, "formats with a malformed template")
        for field in fields:
            for attr in re.findall(r"\.([^.\[]*)", re.sub(r"\[[^\]]*\]", "", field)):
                if _is_dunder(attr) or attr in FORBIDDEN_ATTRIBUTES or attr.startswith(FORBIDDEN_ATTRIBUTE_PREFIXES):
                    self._fail(node, f"formats .{attr}")

    def _allowed_dunder_attribute(self, node: ast.Attribute) -> bool:
        if not isinstance(node.ctx, ast.Load):
            return False
        if node.attr in DUNDER_ATTRIBUTE_LOADS:
            return True
        value = node.value   # super().__init__(...) and friends: judged with super
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"
                and node.attr in SUPER_DUNDERS)

    def _store(self, node, scope: _Scope) -> None:
        """A store, augmented store or del into node (an attribute or subscript): never into
        a library object or a builtin, nor into an array's flags."""
        verb = "deletes" if isinstance(node.ctx, ast.Del) else "stores into"
        value = node
        while isinstance(value, (ast.Attribute, ast.Subscript)):
            if isinstance(value, ast.Attribute) and value.attr == "flags":
                self._fail(node, f"{verb} an array's flags")
            target = self._resolve(value.value)
            if target is not None and target[0] != _STUDENT:
                step = f".{value.attr}" if isinstance(value, ast.Attribute) else "[...]"
                self._fail(node, f"{verb} {_dotted(target)}{step}" + ("..." if value is not node else ""))
            value = value.value
        if isinstance(value, ast.Name) and value.id in _BUILTIN_NAMES and value.id not in self.aliases:
            self.builtin_uses.append((value.id, scope, f"{verb} {value.id} (line {node.lineno})"))

    def _import(self, node, scope: _Scope) -> None:
        if scope.kind == "class":
            self._fail(node, "imports in a class body (the module becomes a class attribute)")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _imported_module(alias.name, self.students) is None:
                    self._fail(node, f"imports {alias.name}")
                scope.bound.add(alias.asname or alias.name.split(".")[0])
            return
        if node.module == "__future__":
            return
        names = [alias.name for alias in node.names]
        if node.module is None:
            for name in names:
                if name not in self.students:
                    self._fail(node, f"imports {name}")
        else:
            source = _imported_module(node.module, self.students)
            if source is None:
                self._fail(node, f"imports {node.module}")
            if source[0] != _STUDENT:
                members = LIBRARY_MEMBERS[source]
                for name in names:
                    if name == "*" and source not in STAR_IMPORTABLE:
                        self._fail(node, f"imports * from {node.module}")
                    if name != "*" and (name not in members or name.startswith("_")):
                        self._fail(node, f"imports {name} from {node.module}")
        scope.bound.update(alias.asname or alias.name for alias in node.names if alias.name != "*")

    def _definition(self, node) -> None:
        if _is_dunder(node.name) and node.name not in DEFINABLE_DUNDERS:
            self._fail(node, f"defines {node.name}")
        if getattr(node, "type_params", None):
            self._fail(node, "uses a type parameter")
        if isinstance(node, ast.ClassDef) and node.keywords:
            self._fail(node, f"passes {node.keywords[0].arg or '**'} to a class (metaclass)")

    # -- library paths

    def _resolve(self, node) -> tuple | None:
        """The library or student-module path an expression names (np.linalg -> ("numpy",
        "linalg")), or None for anything else. Iterative: chains may be long."""
        attributes = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        path = self.aliases[node.id]
        for attr in reversed(attributes):
            if path[0] == _STUDENT:
                exported = self.exports_of(path[1]) or {}
                if attr not in exported:
                    return None                  # the sibling's own object
                path = exported[attr]
            else:
                path = path + (attr,)
        return path

    def _kind(self, path: tuple) -> str | None:
        if path[0] == _STUDENT:
            return "module"
        if path in LIBRARY_MEMBERS:
            return "module"
        return LIBRARY_MEMBERS.get(path[:-1], {}).get(path[-1])

    def _use(self, node, path: tuple, annotation: bool) -> None:
        """A library member (or module) named at node: is it used where it cannot be changed?"""
        kind = self._kind(path)
        parent = self.parents.get(node)
        if kind is None:
            self._fail(node, f"uses {_dotted(path)}")
        if kind == "value":
            return
        if kind == "module":
            if isinstance(parent, ast.Attribute) and parent.value is node:
                return
            self._fail(node, f"uses module {_dotted(path)} as a value")
        if kind == "annotation":
            if annotation:
                return
            self._fail(node, f"uses {_dotted(path)} outside an annotation")
        if kind == "subscript":
            if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
                return
            self._fail(node, f"uses {_dotted(path)} other than subscripted")
        called = isinstance(parent, ast.Call) and parent.func is node
        decorator = isinstance(parent, (ast.FunctionDef, ast.ClassDef)) and node in parent.decorator_list
        if kind in ("call", "ufunc", "exception") and (called or decorator):
            return
        if kind == "ufunc" and isinstance(parent, ast.Attribute) and parent.attr in UFUNC_METHODS:
            return                               # the method itself is judged at its own node
        if kind == "exception" and self._caught_or_raised(node):
            return
        if kind in ("call", "exception") and self._class_checked(node):
            return
        if kind == "context" and (decorator or (called and self._with_or_decorator(parent))):
            return
        if kind == "info" and called:
            reader = self.parents.get(parent)
            if not isinstance(reader, ast.Attribute):
                self._fail(node, f"keeps {_dotted(path)}(...) (a cached, shared object)")
            if reader.attr not in INFO_ATTRIBUTES or not isinstance(reader.ctx, ast.Load):
                self._fail(node, f"uses {_dotted(path)}(...).{reader.attr}")
            return
        self._fail(node, f"uses {_dotted(path)} as a value")

    def _caught_or_raised(self, node) -> bool:
        parent = self.parents.get(node)
        if isinstance(parent, ast.Tuple):
            handler = self.parents.get(parent)
            return isinstance(handler, ast.ExceptHandler) and handler.type is parent
        return (isinstance(parent, ast.ExceptHandler) and parent.type is node) or \
            (isinstance(parent, ast.Raise) and parent.exc is node)

    def _class_checked(self, node) -> bool:
        """The class argument of isinstance/issubclass (alone or in a tuple): it is only compared."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Tuple):
            node, parent = parent, self.parents.get(parent)
        if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and len(parent.args) == 2
                and parent.args[1] is node and parent.func.id in ("isinstance", "issubclass")):
            return False
        self._rely_on(parent.func)
        return True

    def _with_or_decorator(self, call) -> bool:
        user = self.parents.get(call)
        if isinstance(user, ast.withitem):
            return user.context_expr is call
        return isinstance(user, (ast.FunctionDef, ast.ClassDef)) and call in user.decorator_list


def _template_fields(template: str):
    """The field names of a str.format template, those nested in format specs included."""
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is not None:
            yield field
        if spec and "{" in spec:
            yield from _template_fields(spec)


def _is_local(name: str, scope: _Scope) -> bool:
    """Whether a load of name in scope can only mean a function's local (never a builtin):
    bound in an enclosing function or comprehension (class bodies are not enclosing scopes
    for closures, and module and class bodies fall back to builtins at run time: a name a
    class body binds is looked up there, then in globals and builtins, never outside)."""
    if scope.kind == "class" and (name in scope.bound or name in scope.declared_global):
        return False
    while scope is not None:
        if scope.kind in ("function", "comprehension"):
            if name in scope.declared_global:
                return False
            if name in scope.bound:
                return True
        scope = scope.parent
    return False
