"""grader/sandbox/plain_code.py: the static test that a submission's code cannot leave state behind.

A submission whose every file is "plain" may grade all its exercises in one worker child
(issue 10). So the test must be sound: every attack below, each a way for code to change
something outside the student's own modules (a library module, a builtin, a shared numpy
object, raw memory, a file, code that runs later), is flagged with a reason that names it.
It may be conservative, but the code students really write (the bundled course's reference
and every known mistake, and the snippets below) must pass.
"""

from __future__ import annotations

import builtins
import cmath
import itertools
import math
import textwrap
import time

import numpy as np
import pytest

from conftest import REFERENCE
from grader.sandbox import plain_code
from grader.course.loader import bundled_course_root, load_course
from grader.sandbox.plain_code import state_risk, submission_risk

SIBLINGS = frozenset({"rnn_step", "rnn_forward", "masking", "readout", "bptt", "helpers"})


def risk(source: str, student_modules=SIBLINGS):
    return state_risk(textwrap.dedent(source), student_modules)


def reference_files() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(REFERENCE.glob("*.py"))}


# ---------------------------------------------------------------------------- real student code

def test_the_bundled_reference_is_plain():
    assert submission_risk(reference_files()) is None


def mistake_cases():
    course = load_course(bundled_course_root())
    for exercise in course.exercises.values():
        for mistake in exercise.mistakes:
            for variant in mistake.variants:
                yield pytest.param(exercise.file, variant, id=f"{exercise.id}/{variant.stem}")


@pytest.mark.parametrize(("filename", "variant"), list(mistake_cases()))
def test_every_known_mistake_is_plain(filename, variant):
    files = reference_files()
    module = filename.removesuffix(".py")
    files[module] = files[module] + "\n\n" + variant.read_text(encoding="utf-8")   # as grade validate builds it
    assert submission_risk(files) is None


PLAIN_SNIPPETS = {
    "hand-written tanh": """
        import numpy as np
        def tanh(x):
            e = np.exp(-2.0 * np.abs(x))
            return np.sign(x) * (1 - e) / (1 + e)
    """,
    "classes": """
        import numpy as np
        class Layer:
            def __init__(self, n):
                self.W = np.zeros((n, n))
                self._cache = {}
        class RNN(Layer):
            __slots__ = ()
            def __init__(self, n):
                super().__init__(n)
                self.h = None
            def __call__(self, x):
                self.h = np.tanh(x @ self.W)
                return self.h
            def __repr__(self):
                return f"RNN({self.W.shape})"
            @property
            def size(self):
                return self.W.shape[0]
            @staticmethod
            def zeros(n):
                return np.zeros(n)
    """,
    "main block with prints": """
        import numpy as np
        from rnn_step import rnn_step
        if __name__ == "__main__":
            x = np.ones((2, 3))
            print("shape", rnn_step(x, np.zeros((2, 4)), np.ones((3, 4)), np.eye(4), np.zeros(4)).shape)
            print(type(x), type(x).__name__, __doc__, __file__, "{:.3f} {0.shape}".format(1.0, x))
            assert type(x) == np.ndarray and type(1.0) in (int, float) and type(x) is not float
    """,
    "from numpy import": """
        from numpy import tanh, zeros, float64, newaxis, pi
        def step(x, W):
            return tanh(x @ W) + zeros(1, dtype=float64)[newaxis] * pi
    """,
    "numpy.linalg alias": """
        import numpy as np
        import numpy.linalg as la
        from numpy.linalg import norm
        from numpy import linalg
        def radius(W):
            return float(np.max(np.abs(la.eigvals(W)))) + norm(W) + linalg.det(W) + np.linalg.norm(W, ord=2)
    """,
    "a seeded generator": """
        import numpy as np
        from numpy.random import default_rng
        rng = np.random.default_rng(0)
        W = rng.normal(size=(3, 3)) + default_rng(1).standard_normal(3)
        g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3)))
    """,
    "sibling imports": """
        import rnn_step
        import masking as m
        from rnn_step import rnn_step as step
        from .rnn_forward import rnn_forward
        from . import helpers
        def f(x):
            return step(x) + rnn_step.rnn_step(x) + m.sequence_mask([1], 2) + rnn_forward(x) + helpers.k
        rnn_step.cache = {}
    """,
    "errstate, keepdims, einsum, finfo, ufunc methods": """
        import numpy as np
        def softmax(z, axis=-1):
            with np.errstate(over="ignore", invalid="ignore"):
                shifted = z - np.max(z, axis=axis, keepdims=True)
            e = np.exp(shifted)
            return e / np.sum(e, axis=axis, keepdims=True)
        @np.errstate(divide="ignore")
        def logs(x):
            return np.log(x) + np.logaddexp.reduce(x, axis=-1) + np.finfo(np.float64).eps
        def grads(X, dA):
            return np.einsum("btd,bth->dh", X, dA), np.iinfo(np.int64).max, np.add.outer(X, X)
        def embedding_grads(tokens, dX, V):
            dE = np.zeros((V, dX.shape[-1]))
            np.add.at(dE, tokens, dX)          # into the student's own array
            return dE + np.add.reduceat(dX.ravel(), [0, 1])[0]
    """,
    "exceptions and types": """
        import numpy as np
        def solve(A, b):
            if not isinstance(A, np.ndarray) or A.dtype != np.float64:
                A = np.asarray(A, dtype=np.float64)
            if type(b) is list or type(b) in (tuple, range):
                b = np.array(b)
            try:
                return np.linalg.solve(A, b)
            except (np.linalg.LinAlgError, ValueError) as err:
                assert isinstance(err, (np.linalg.LinAlgError, ValueError))
                raise RuntimeError(f"singular: {err} {type(err)}") from err
            finally:
                pass
    """,
    "annotations": """
        from __future__ import annotations
        import typing
        from typing import Optional, Tuple, List
        import numpy as np
        import numpy.typing as npt
        State = None
        class Cell:
            pass
        def f(x: np.ndarray, h: Optional[np.ndarray] = None, k: int | None = None, c: Cell = None,
              d: list[Cell] | None = None, e: Optional[Cell] = None
              ) -> Tuple[npt.NDArray[np.float64], typing.List[float]]:
            y: List[float] = []
            return x, y
        if typing.TYPE_CHECKING:
            pass
    """,
    "ordinary Python": """
        import math
        import itertools
        from itertools import product
        from math import *
        import cmath
        _memo = {}
        counter = 0
        def scalar(seq, w=0.5):
            global counter
            counter += 1
            states = [math.tanh(w * v) for v in seq if (n := len(seq)) > 0]
            pairs = {k: v for k, v in zip(range(3), "abc")}
            total = sum(abs(s) for s in states) + sqrt(4) + cmath.sqrt(-1).imag
            key = tuple(sorted(pairs))
            if key not in _memo:
                _memo[key] = total
            del _memo[key]
            assert total >= 0, "negative"
            f = lambda a, b=2: a * b
            match states:
                case [first, *rest]:
                    pass
                case _:
                    pass
            return round(max(states, default=0.0), 3), f(2), list(enumerate(states)), n
        def gen(n):
            for i in range(n):
                yield i
            yield from range(2)
        def outer():
            x = 0
            def inner():
                nonlocal x
                x += 1
            return inner
        print(f"{scalar([1.0, 2.0])!r}", end="\\n", sep=" ", flush=True)
    """,
    "parameters named like builtins": """
        def forward(input, id=0, type=None, vars=()):
            return input, id, type, vars
        def later():
            input = 3
            return [input for _ in range(2)]
    """,
    "arrays in place": """
        import numpy as np
        def f(a):
            a[0] = 1
            a[1:] += 2
            a.shape = (a.size,)
            b = np.r_[a, a] + np.c_[a, a].sum() + a[np.s_[::2]].sum()
            v = np.vectorize(lambda t: t + 1)
            return v(a), b, a.T, a.base, a.flags.writeable, a.data.nbytes
    """,
}


@pytest.mark.parametrize("name", sorted(PLAIN_SNIPPETS))
def test_ordinary_student_code_is_plain(name):
    assert risk(PLAIN_SNIPPETS[name]) is None


# ---------------------------------------------------------------------------- attacks

NP = "import numpy as np\n"

ATTACKS = {
    # imports that reach modules with state
    "collections patched": ("import collections\ncollections._x = 1", "collections"),
    "ctypes": ("import ctypes", "ctypes"),
    "os": ("import os", "imports os"),
    "sys": ("import sys", "imports sys"),
    "import in a function": ("def f():\n    import random\n    random.seed(0)", "random"),
    "__import__": ("__import__('os').environ", "__import__"),
    "numpy.lib import": ("from numpy.lib.stride_tricks import as_strided", "numpy.lib"),
    "numpy.lib attribute": (NP + "np.lib.stride_tricks.as_strided(np.zeros(1), (9,), (0,))", "numpy.lib"),
    "from numpy import seterr": ("from numpy import seterr", "seterr"),
    "from numpy import *": ("from numpy import *", "*"),
    "numpy.random module": ("import numpy.random as r\nr.seed(1)", "seed"),
    "from numpy.random import rand": ("from numpy.random import rand", "rand"),
    "scipy": ("import scipy.linalg", "scipy"),
    "a student file named os": ("import os", "os"),   # with "os" among the student modules, below
    # numpy's global state, files and raw memory
    "seterr": (NP + "np.seterr(all='ignore')", "seterr"),
    "global RNG seed": (NP + "np.random.seed(0)", "seed"),
    "global RNG draw": (NP + "np.random.randn(3)", "randn"),
    "save": (NP + "np.save('/tmp/x', np.zeros(2))", "save"),
    "load": (NP + "np.load('/tmp/x.npy')", "load"),
    "tofile": (NP + "a = np.zeros(3)\na.tofile('/tmp/x')", "tofile"),
    "ctypes attribute": (NP + "p = np.zeros(3).ctypes.data", "ctypes"),
    "cffi attribute": (NP + "i = np.random.default_rng(0).bit_generator.cffi", "cffi"),
    "printoptions": (NP + "np.set_printoptions(precision=2)", "set_printoptions"),
    # stores into library objects
    "typecodes item": (NP + "np.typecodes['x'] = 1", "typecodes"),
    "typecodes update": (NP + "np.typecodes.update({})", "typecodes"),
    "ufunc attribute": (NP + "np.tanh.x = 1", "tanh"),
    "math constant": ("import math\nmath.pi = 3", "math.pi"),
    "del ufunc": (NP + "del np.tanh", "tanh"),
    "augmented store": (NP + "np.e += 1", "numpy.e"),
    "builtin attribute": ("print.x = 1", "print"),
    # library objects that escape into names, then get changed there
    "ufunc method replaced": (NP + "np.add.at = print", "numpy.add"),
    "ufunc method as a value": (NP + "scatter = np.add.at\nscatter.x = 1", "numpy.add"),
    "ufunc alias": (NP + "f = np.add\nf.reduce = print", "numpy.add"),
    "function alias": (NP + "mean = np.mean\nmean.cache = {}", "numpy.mean"),
    "ufunc as an argument": (NP + "def act(f):\n    f.reduce = print\nact(np.add)", "numpy.add"),
    "module alias": (NP + "m = np\nm.seterr(all='ignore')", "numpy"),
    "module in an attribute": (NP + "class K:\n    def __init__(self):\n        self.np = np", "numpy"),
    "module printed": (NP + "print(np)", "numpy"),
    "cached finfo": (NP + "info = np.finfo(np.float64)\ninfo.eps = 1.0", "finfo"),
    "finfo cache": (NP + "np.finfo(float)._finfo_cache.clear()", "_finfo_cache"),
    "index trick alias": (NP + "r = np.r_\nr.axis = 1", "r_"),
    "errstate outside with": (NP + "e = np.errstate(all='ignore')", "errstate"),
    "class of an exception": (NP + "try:\n    np.linalg.inv(np.zeros((2, 2)))\n"
                              "except Exception as err:\n    type(err).x = 1", "type"),
    "three-argument type": ("K = type('K', (), {'__eq__': lambda a, b: True})", "type"),
    "ufunc from its error": (NP + "try:\n    np.add(np.array(['a']), 1)\n"
                             "except TypeError as err:\n    err.ufunc.reduce = print", "ufunc"),
    "ufunc from its error's args": (NP + "try:\n    np.add(np.array(['a']), 1)\n"
                                    "except TypeError as err:\n    err.args[0].reduce = print", "args"),
    "attribute read by a pattern": ("def f(err):\n    match err:\n        case TypeError(ufunc=u):\n"
                                    "            u.reduce = print", "ufunc"),
    "dunder read by a pattern": ("match 1:\n    case object(__class__=c):\n        pass", "__class__"),
    "attribute error object": ("try:\n    (1).nope\nexcept AttributeError as err:\n    o = err.obj", "obj"),
    "site builtin": ("license.x = 1", "license"),
    "site builtin alias": ("c = copyright\nc.x = 1", "copyright"),
    "typing object": ("import typing\nT = typing.List[int]\nT._name = 'x'", "typing.List"),
    "typing overload": ("from typing import overload\n@overload\ndef f(x): ...", "overload"),
    "walrus in annotation": ("from typing import List\ndef f(x: (t := List[int])): pass", "annotation"),
    # reflection and dynamic code
    "subclasses": ("().__class__.__base__.__subclasses__()", "__subclasses__"),
    "globals of a function": ("def f():\n    pass\ng = f.__globals__", "__globals__"),
    "builtins name": ("b = __builtins__", "__builtins__"),
    "getattr": (NP + "getattr(np, 'seterr')(all='ignore')", "getattr"),
    "setattr": ("import math\nsetattr(math, 'pi', 3)", "setattr"),
    "vars": (NP + "vars(np)['x'] = 1", "vars"),
    "globals()": ("globals()['x'] = 1", "globals"),
    "locals()": ("def f():\n    return locals()", "locals"),
    "exec": ("exec('import os')", "exec"),
    "eval": ("eval('1 + 1')", "eval"),
    "compile": ("compile('1', 'x', 'eval')", "compile"),
    "open": ("open('/tmp/x', 'w').write('x')", "open"),
    "input": ("input()", "input"),
    "breakpoint": ("breakpoint()", "breakpoint"),
    "help": ("help()", "help"),
    "builtin behind a class body": ("def outer(input):\n    class K:\n        y = input('x')\n"
                                    "        input = 2\n    return K", "input"),   # LOAD_NAME: the builtin
    "super with arguments": ("class K(dict):\n    def f(self):\n        return super(K, self)", "super"),
    "super setattr": ("class K:\n    def __init__(self):\n        "
                      "super().__setattr__('__array_interface__', {})", "__setattr__"),
    "generator frame": ("def g():\n    yield me.gi_frame\nme = g()", "gi_frame"),
    "frame globals": ("def g(frame):\n    return frame.f_back.f_globals", "f_globals"),
    # code that runs later, or makes numpy read raw memory
    "finaliser": ("class K:\n    def __del__(self):\n        print('late')", "__del__"),
    "array interface": ("class K:\n    @property\n    def __array_interface__(self):\n"
                        "        return {'data': (8, False), 'shape': (9,), 'typestr': '|u1'}", "__array_interface__"),
    "array interface in the class body": ("class K:\n    __array_interface__ = {}", "__array_interface__"),
    "array interface on self": ("class K:\n    def __init__(self):\n        self.__array_interface__ = {}",
                                "__array_interface__"),
    "attribute fallback": ("class K:\n    def __getattr__(self, name):\n        return {}", "__getattr__"),
    "module getattr": ("def __getattr__(name):\n    return {}", "__getattr__"),
    "custom equality": ("class K:\n    def __eq__(self, other):\n        return True", "__eq__"),
    "custom hash": ("class K:\n    def __hash__(self):\n        return 0", "__hash__"),
    "metaclass": ("class M(type):\n    pass", "type"),
    "metaclass keyword": ("class K(object, metaclass=abc):\n    pass", "metaclass"),
    "array_ufunc hook": ("class K:\n    def __array_ufunc__(self, ufunc, method, *args, **kw):\n"
                         "        ufunc.reduce = print", "__array_ufunc__"),
    "array_function hook": ("class K:\n    def __array_function__(self, func, types, args, kw):\n"
                            "        func.cache = {}", "__array_function__"),
    "exit gets the exception class": ("class K:\n    def __enter__(self):\n        return self\n"
                                      "    def __exit__(self, kind, exc, tb):\n        kind.x = 1", "__e"),
    "class_getitem gets a typing object": ("from typing import List\nclass K:\n"
                                           "    def __class_getitem__(cls, item):\n        item._name = 'x'\n"
                                           "def f(x: K[List[int]]): pass", "__class_getitem__"),
    "annotation hands typing to a student object": ("from typing import List\n"
                                                    "def f(x: box[List[int]], y: box | List[int]): pass", "annotation"),
    "type compared with a student object": (NP + "try:\n    np.linalg.inv(0)\nexcept Exception as err:\n"
                                            "    same = type(err) == probe", "type"),
    "type looked up in a student container": ("def f(err, box):\n    return type(err) in box", "type"),
    "print rebound": (NP + "def print(c):\n    c.x = 1\ntry:\n    np.linalg.inv(0)\n"
                      "except Exception as err:\n    print(type(err))", "rebinds print"),
    "isinstance rebound": (NP + "def isinstance(a, k):\n    k.x = 1\nisinstance(0, np.linalg.LinAlgError)",
                           "rebinds isinstance"),
    "float rebound": ("float = box\nsame = type(err) == float", "rebinds float"),
    "format template": ("s = '{0.__class__.__base__}'.format(1)", "__class__"),
    "format template in a spec": ("s = '{0:{1.__class__}}'.format(1, 2)", "__class__"),
    "format template in a name": ("t = '{0.gi_frame}'\ns = t.format(g)", "not a string constant"),
    "yield in try": ("def g():\n    try:\n        yield 1\n    finally:\n        print('closed')", "yield"),
    "yield in with": (NP + "def g():\n    with np.errstate(all='ignore'):\n        yield 1", "yield"),
    "async": ("async def f():\n    pass", "async"),
    "import in a class body": ("class K:\n    import numpy as np", "class body"),
    # risky lines anywhere
    "in a function body": (NP + "def f(x):\n    np.seterr(all='ignore')\n    return x", "seterr"),
    "in a class body": (NP + "class K:\n    np.random.seed(1)", "seed"),
    "in a lambda default": (NP + "f = lambda s=np.random.seed: s", "seed"),
    "in a comprehension": (NP + "xs = [np.random.rand() for _ in range(3)]", "rand"),
    # sources that do not parse
    "syntax error": ("def f(:\n    pass", "syntax"),
    "null byte": ("x = 1\0", "parse"),
    "deeply nested": ("a" + "+a" * 100_000, "parse"),
    "deep unary minus": ("-" * 100_000 + "1", "parse"),         # MemoryError in CPython 3.11's parser
    "many parentheses": ("(" * 300 + ")" * 300, "syntax"),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_attack_is_flagged(name):
    source, word = ATTACKS[name]
    modules = SIBLINGS | {"os"} if name == "a student file named os" else SIBLINGS
    reason = state_risk(source, modules)
    assert reason is not None, name
    assert word in reason, (name, reason)


def test_a_reason_says_where():
    assert risk("x = 1\nimport os\n").endswith("(line 2)")


# ---------------------------------------------------------------------------- submissions

def test_submission_risk_names_the_first_risky_module():
    files = {"b_mod": "import os\n", "a_mod": "import numpy as np\nnp.seterr()\n", "c_mod": "x = 1\n"}
    assert submission_risk(files).startswith("a_mod: ")
    assert "seterr" in submission_risk(files)
    assert submission_risk({"c_mod": "x = 1\n"}) is None


def test_sibling_imports_pass_and_foreign_imports_do_not():
    files = {"rnn_step": "import numpy as np\ndef rnn_step(x):\n    return np.tanh(x)\n",
             "rnn_forward": "from rnn_step import rnn_step\nimport rnn_step as rs\n"
                            "def rnn_forward(x):\n    return rnn_step(x) + rs.rnn_step(x)\n"}
    assert submission_risk(files) is None
    files["rnn_forward"] += "import masking\n"        # masking is not part of this submission
    assert submission_risk(files) == "rnn_forward: imports masking (line 5)"


@pytest.mark.parametrize(("importer", "word"), [
    ("from a import np\nnp.random.seed(0)\n", "seed"),
    ("import a\na.np.seterr(all='ignore')\n", "seterr"),
    ("from a import mean\nf = mean\nf.cache = 1\n", "mean"),
    ("from a import *\nnp.seterr()\n", "seterr"),
    ("from b import np\nnp.seterr()\n", "seterr"),            # b re-exports a's np
    ("import a\nm = a\nm.np.seterr()\n", "module a"),
])
def test_library_objects_reexported_by_a_sibling_are_still_library_objects(importer, word):
    files = {"a": "import numpy as np\nfrom numpy import mean\nfrom b import np as again\n",
             "b": "from a import np\n", "c": importer}              # a and b import each other
    reason = submission_risk(files)
    assert reason is not None and reason.startswith("c: ") and word in reason, reason


def test_a_file_that_does_not_parse_is_named():
    assert submission_risk({"ok": "x = 1", "broken": "def (:"}).startswith("broken: ")


# ---------------------------------------------------------------------------- a staged submission

def staged(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    for name, source in reference_files().items():
        (root / f"{name}.py").write_text(source, encoding="utf-8")
    (root / "answers.yaml").write_text("q1: 1\n", encoding="utf-8")
    return root


def test_a_staged_reference_shares_one_child(tmp_path):
    root = staged(tmp_path)
    (root / "notes.txt").write_text("not Python", encoding="utf-8")
    assert plain_code.root_risk(root) is None
    assert plain_code.shares_one_child(type("Staged", (), {"root": root})())


@pytest.mark.parametrize(("extra", "word"), [
    ("__pycache__/rnn_step.cpython-311.pyc", "compiled code"),   # may run instead of rnn_step.py
    ("helper.pyc", "compiled code"),                              # importable without a source
    ("helper.cpython-311-x86_64-linux-gnu.so", "compiled code"),
    ("helper.abi3.so", "compiled code"),
])
def test_compiled_code_beside_the_sources_is_a_risk(tmp_path, extra, word):
    root = staged(tmp_path)
    (root / extra).parent.mkdir(parents=True, exist_ok=True)
    (root / extra).write_bytes(b"\x7fELF or bytecode")
    assert word in plain_code.root_risk(root)


def test_every_python_file_is_read_as_python_reads_it(tmp_path):
    root = staged(tmp_path)
    (root / "helpers.py").write_bytes("# coding: gbk\n# 中文注释\nx = 1\n".encode("gbk"))
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("from pkg import inner\n", encoding="utf-8")
    (root / "pkg" / "inner.py").write_text("import numpy as np\n", encoding="utf-8")
    assert plain_code.root_risk(root) is None
    (root / "pkg" / "inner.py").write_text("import os\n", encoding="utf-8")
    assert plain_code.root_risk(root) == "pkg.inner: imports os (line 1)"
    (root / "pkg" / "inner.py").write_bytes(b"# coding: rot-13\nx = 1\n")
    assert "cannot be read" in plain_code.root_risk(root)


def test_a_symbolic_link_is_a_risk(tmp_path):
    root = staged(tmp_path)
    (root / "linked.py").symlink_to(root / "rnn_step.py")
    assert "symbolic link" in plain_code.root_risk(root)


# ---------------------------------------------------------------------------- the allowlists

def test_every_allowed_numpy_name_exists_with_its_kind():
    for path, members in plain_code.LIBRARY_MEMBERS.items():
        if path[0] != "numpy":
            continue
        module = np
        for part in path[1:]:
            module = getattr(module, part)
        for name, kind in members.items():
            assert hasattr(module, name), (path, name)
            obj = getattr(module, name)
            if kind == "ufunc":
                assert isinstance(obj, np.ufunc), name
            elif kind == "call":
                assert callable(obj), name
            elif kind == "exception":
                assert issubclass(obj, Exception), name
    assert len(plain_code.LIBRARY_MEMBERS[("numpy",)]) >= 200


def _mutable(obj) -> bool:
    """Whether an attribute can be set on obj (the probe is removed again)."""
    try:
        setattr(obj, "_plain_code_probe", 1)
    except (AttributeError, TypeError):
        return False
    delattr(obj, "_plain_code_probe")
    return True


def _values():
    for path, members in plain_code.LIBRARY_MEMBERS.items():
        module = {"numpy": np, "math": math, "cmath": cmath, "itertools": itertools}.get(path[0])
        if module is None:
            continue
        for part in path[1:]:
            module = getattr(module, part)
        for name, kind in members.items():
            if kind == "value":
                yield ".".join(path + (name,)), getattr(module, name)
    for name in plain_code.SAFE_BUILTINS:
        yield name, getattr(builtins, name)


VALUES = sorted(_values(), key=lambda value: value[0])   # one order in every xdist worker


@pytest.mark.parametrize(("name", "obj"), VALUES, ids=[name for name, _ in VALUES])
def test_values_usable_anywhere_cannot_be_changed(name, obj):
    """Values may be bound to names and passed around, so nothing reachable from them by a public
    attribute may take a new attribute (ufuncs and numpy's Python functions can: they are call-only)."""
    assert not _mutable(obj), name
    for attribute in dir(obj):
        if not attribute.startswith("_"):
            value = getattr(obj, attribute, None)
            fresh = value is not getattr(obj, attribute, None)   # a new object each time: nothing shared
            assert fresh or not _mutable(value), (name, attribute)


def test_classes_allowed_as_calls_keep_no_shared_data():
    """An instance of a numpy Python class gives access to its class's attributes: only
    functions and descriptors there, no dict or list every instance shares."""
    for name, kind in plain_code.LIBRARY_MEMBERS[("numpy",)].items():
        obj = getattr(np, name)
        if kind == "call" and isinstance(obj, type) and obj.__module__ != "builtins":
            for klass in obj.__mro__[:-1]:
                for key, value in vars(klass).items():
                    assert not isinstance(value, (dict, list, set)), (name, key)


def test_dtypes_numpy_hands_out_cannot_be_changed():
    for dtype in (np.dtype(float), np.result_type(np.float32, np.int64), np.zeros(1).dtype):
        assert not _mutable(dtype)


# ---------------------------------------------------------------------------- speed

def test_a_ten_kilobyte_file_is_judged_quickly():
    source = "\n\n".join(reference_files().values())
    source = source * (10_000 // len(source) + 1)
    assert state_risk(source, SIBLINGS) is None
    start = time.perf_counter()
    for _ in range(20):
        state_risk(source, SIBLINGS)
    per_file = (time.perf_counter() - start) / 20
    print(f"\nplain_code: {len(source)} characters in {per_file * 1000:.2f} ms")
    assert per_file < 0.05
