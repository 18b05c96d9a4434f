"""A course's test vectors, reference results and plans, kept between runs.

Every run builds the same things before it grades a student: each check's cases (drawn from the
public seed, or from the course secret for hidden checks), the reference's result on each, and the
plan of each exercise's calls (grader/grading/plan.py, which runs every check on the reference).
They depend only on the course, the grader and the numerical libraries, and they are a third of a
lone `grade check`. So the run's memo of them (grader/course/runtime.py ``memo``) is kept in the
cache folder (grader/base/cache_folder.py) under a digest of all it depends on, and the next run
starts from it:

* the course's files: every file of its exercises folder (checks, builders, data) and of its
  reference, and its seed; the secret's fingerprint (hidden cases come from it) and whether hidden
  checks run at all;
* the grader's version and the code that builds and records these (its checks, course, grading
  and quiz wings, and the wire format), numpy's and Python's versions;
* the checks as loaded: each exercise's check ids, which are hidden, and each check function's
  code (a test that swaps a check in memory gets a memo of its own).

What is kept is plain data, never pickle: JSON and raw numeric arrays of the wire format's dtypes
(numbers, strings, arrays, lists, tuples, dicts), the checks' :class:`~grader.checks.api.Case` objects,
each kept once, so the plans still name the very cases the checks use, and the counterexample
search's ladders (their rungs, with the reference's results). An entry holding anything else (a
random generator, an object of the course's own) is not kept and is built again each run; so is a
plan whose cases were not all kept. An array that appears twice is one object again when read;
a case whose arguments are distinct arrays sharing memory is not kept.

Trust: a kept reference result decides marks, as the reference itself does. The file is its
owner's alone (``mkstemp`` in a 0700 folder), so only someone who can change the instructor's
files can change it, and student code never sees the folder (the sandbox shows it no home folder;
the confined fallback runs it as another uid). A file that does not read back whole and well
formed is ignored and the memo built again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

import grader
from grader.base.cache_folder import cache_dir, store_bytes
from grader.base.code_digest import put
from grader.checks.api import Case
from grader.checks.choices import Rung
from grader.course.runtime import CourseRuntime
from grader.grading.counterexample import Tier
from grader.grading.plan import Plan, PlannedCall
from grader.sandbox.worker import wire

VERSION = b"kept-memo-2"
MAX_BYTES = 256 << 20     # a kept memo larger than this is not read (the bundled course's: ~1 MiB)
MAX_NODES = 5_000_000     # values decoded from one file
MAX_DEPTH = 40            # nesting of a kept value
ALIGN = 8                 # every array's bytes start at a multiple of this
CODE = ("checks", "course", "grading", "quiz")   # the wings whose code builds what is kept
WIRE = "sandbox/worker/wire.py"
# Hypothesis's draws are kept as choices by grader/grading/tier_cache.py and replayed each run (a new
# hypothesis may draw others); a counterexample search's ladder (the builder's own, no hypothesis)
# is kept here with its reference results.
SKIPPED = ("counterexample drawn", "tier cache digest")


class _NotKept(Exception):
    """A value the kept memo cannot hold."""


# ---------------------------------------------------------------- where

class KeptMemo:
    """A runtime's memo kept between runs, one file per exercise (a run of one exercise reads its
    own): read for the exercises a run grades, written where the run added to it."""

    def __init__(self, runtime, checks: dict, hidden: bool):
        self.runtime = runtime
        self.prefix = memo_prefix(runtime, checks, hidden)
        self.loaded: set[str] = set()
        self.known: set = set()      # keys read back, or refused by a kept file, or kept since
        self.pid = os.getpid()       # the process that read it writes it (not a forked one)

    def load(self, exercise_ids) -> None:
        """The kept entries of these exercises, for each that has built nothing yet in this run:
        all of an exercise's entries come from one place, so a plan names the cases its checks use."""
        if self.prefix is None:
            return
        exercise_ids = [e for e in exercise_ids if e not in self.loaded]
        if not exercise_ids:
            return
        built = {exercise_of(key) for key in self.runtime.memo_entries()}
        for exercise_id in exercise_ids:
            self.loaded.add(exercise_id)
            if exercise_id in built:
                continue
            entries, refused = read(self._path(exercise_id))
            self.runtime.start_memo(entries)
            self.known |= {*entries, *refused}

    def keep(self) -> None:
        if self.prefix is None or os.getpid() != self.pid:
            return
        groups: dict[str, dict] = {}
        for key, value in self.runtime.memo_entries().items():
            exercise_id = exercise_of(key)
            if exercise_id in self.loaded:
                groups.setdefault(exercise_id, {})[key] = value
        for exercise_id, entries in groups.items():
            if new_keys(entries, self.known):
                keep(self._path(exercise_id), entries)
                self.known |= set(entries)

    def _path(self, exercise_id: str) -> Path:
        return Path(f"{self.prefix}-{hashlib.sha256(exercise_id.encode()).hexdigest()[:16]}.bin")


def exercise_of(key) -> str | None:
    """The exercise a memo entry belongs to: (exercise, tag...), (exercise, "expected", ...),
    ("plan", exercise), ("counterexample ladder", exercise, function)."""
    if type(key) is not tuple or len(key) < 2 or type(key[0]) is not str or type(key[1]) is not str:
        return None
    return key[1] if key[0] == "plan" or key[0].startswith("counterexample ") else key[0]


def memo_prefix(runtime, checks: dict, hidden: bool) -> str | None:
    """Where this course run's kept memo lives (its files' common start), or None where nothing
    is kept (no cache folder, or a runtime whose reference is recorded or stood in for: a kit,
    ``grade release``)."""
    folder = cache_dir()
    if folder is None or type(runtime) is not CourseRuntime or runtime.recording is not None:
        return None
    try:
        return str(folder / f"memo-{_digest(runtime, checks, hidden)}")
    except OSError:
        return None


def _digest(runtime, checks: dict, hidden: bool) -> str:
    course = runtime.course
    digest = hashlib.sha256(VERSION)
    for part in (grader.__version__, np.__version__, sys.version, str(runtime.seed), runtime.secret_fingerprint,
                 str(bool(hidden))):
        put(digest, part.encode())
    # The grader's code these depend on (hashing all of it, locales included, takes 25 ms).
    package = Path(grader.__file__).parent
    for file in [*(f for wing in CODE for f in sorted((package / wing).glob("*.py"))), package / WIRE]:
        put(digest, file.read_bytes())
    for folder in (Path(course.exercises_dir), Path(course.reference_dir)):
        put(digest, str(folder.name).encode())
        for file in sorted(folder.rglob("*")):
            relative = file.relative_to(folder)
            if file.is_file() and "__pycache__" not in relative.parts:
                put(digest, relative.as_posix().encode("utf-8", "surrogateescape"))
                put(digest, file.read_bytes())
    for exercise in course.exercises.values():
        put(digest, exercise.id.encode())
        for spec in exercise.checks:
            put(digest, f"{spec.id}:{spec.hidden}".encode())
            _function_into(digest, checks.get(exercise.id, {}).get(spec.id))
    return digest.hexdigest()


def _function_into(digest, function, depth: int = 0) -> None:
    """A check function as loaded: its code (nested code too) and what its closure holds (the
    parameters a YAML-declared check was made with, the functions it calls), never an address."""
    code = getattr(function, "__code__", None)
    if code is None or depth > 3:
        put(digest, type(function).__name__.encode())
        return
    _code_into(digest, code)
    for cell in function.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:   # an empty cell
            put(digest, b"<empty>")
            continue
        if callable(value) and hasattr(value, "__code__"):
            _function_into(digest, value, depth + 1)
        else:
            put(digest, _plain_repr(value).encode("utf-8", "surrogateescape"))


def _code_into(digest, code) -> None:
    put(digest, code.co_code)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            _code_into(digest, const)
        else:
            put(digest, _plain_repr(const).encode("utf-8", "surrogateescape"))


def _plain_repr(value, depth: int = 0) -> str:
    """repr() of plain values; the type's name for anything else (whose repr may hold an address)."""
    if value is None or type(value) in (bool, int, float, complex, str, bytes):
        return repr(value)
    if depth < 4 and type(value) in (tuple, list, frozenset, set):
        parts = [_plain_repr(v, depth + 1) for v in value]
        return type(value).__name__ + "(" + ",".join(sorted(parts) if type(value) in (set, frozenset) else parts) + ")"
    if depth < 4 and type(value) is dict:
        parts = [f"{_plain_repr(k, depth + 1)}:{_plain_repr(v, depth + 1)}" for k, v in value.items()]
        return "{" + ",".join(parts) + "}"
    return "<" + type(value).__name__ + ">"


# ---------------------------------------------------------------- keeping

def _little_endian(dtype: np.dtype) -> np.dtype:
    return dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype


class _Encoder:
    """The memo as one tagged JSON tree: ["v", x] a JSON scalar, ["f", repr] a float JSON cannot
    hold, ["j", re, im] a complex, ["a", i] an array of the array table (one object however often
    it appears), ["c", i] a case of the case table, ["t"|"l", items] a tuple or list (["tv"|"lv",
    items] when every item is a JSON scalar), ["d", [[key, value]...]], ["r", case, choices] a
    ladder's rung, ["T", rungs, digests] a ladder. The objects indexed by id() stay alive in the
    memo being encoded."""

    def __init__(self):
        self.cases: list = []
        self.case_index: dict[int, int] = {}
        self.arrays: list = []
        self.array_index: dict[int, int] = {}

    def value(self, value, depth: int = 0):
        if depth > MAX_DEPTH:
            raise _NotKept("too deep")
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return ["v", value]
        if kind is float:
            return ["v", value] if math.isfinite(value) else ["f", repr(value)]
        if kind is complex:
            return ["j", repr(value.real), repr(value.imag)]
        if kind is np.ndarray or isinstance(value, np.generic):
            return self.array(value)
        if kind is tuple or kind is list:
            if all(v is None or type(v) in _JSON_SCALARS for v in value) and \
                    not any(type(v) is float and not math.isfinite(v) for v in value):
                return ["tv" if kind is tuple else "lv", list(value)]   # plain items: read back in one step
            return ["t" if kind is tuple else "l", [self.value(v, depth + 1) for v in value]]
        if kind is dict:
            items = []
            for k, v in value.items():
                if not (k is None or type(k) in (str, int, bool) or (type(k) is float and math.isfinite(k))):
                    raise _NotKept("dict key")
                items.append([k, self.value(v, depth + 1)])
            return ["d", items]
        if kind is Case:
            return self.case(value, depth)
        if kind is Rung:
            return ["r", self.value(value.case, depth + 1), self.value(value.choices, depth + 1)]
        if kind is Tier:
            if not all(type(d) is str for d in value.digests):
                raise _NotKept("digests")
            return ["T", self.value(value.rungs, depth + 1), sorted(value.digests)]
        raise _NotKept(kind.__name__)

    def array(self, value):
        if id(value) not in self.array_index:
            if _little_endian(value.dtype).str not in wire.ALLOWED_DTYPES:
                raise _NotKept("dtype")
            self.array_index[id(value)] = len(self.arrays)
            self.arrays.append(value)
        return ["a", self.array_index[id(value)]]

    def case(self, case: Case, depth: int):
        if id(case) not in self.case_index:
            inputs = [v for v in (*case.args, *case.kwargs.values()) if type(v) is np.ndarray]
            for i, a in enumerate(inputs):
                if any(b is not a and np.may_share_memory(a, b) for b in inputs[i + 1:]):
                    raise _NotKept("arguments sharing memory")
            # Encoded whole before it joins the table: a case that cannot be kept leaves no trace.
            row = [self.value(case.args, depth + 1), self.value(case.kwargs, depth + 1), case.label,
                   bool(case.shared)]
            self.case_index[id(case)] = len(self.cases)
            self.cases.append(row)
        return ["c", self.case_index[id(case)]]


def _entry(encoder: _Encoder, key, value):
    """One memo entry, tagged, or _NotKept. An expected result's key names its case by id():
    kept as the case itself."""
    if type(key) is not tuple or not all(type(k) is str for k in key[:3]):
        raise _NotKept("key")
    if len(key) == 4 and key[1] == "expected" and type(key[3]) is int:
        if not (type(value) is tuple and len(value) == 2 and type(value[0]) is Case and id(value[0]) == key[3]):
            raise _NotKept("expected")
        return ["x", [key[0], key[2]], encoder.value(value)]
    if not all(type(k) is str for k in key):
        raise _NotKept("key")
    if type(value) is Plan:
        return ["p", list(key), [[_planned(encoder, p) for p in part] for part in (value.visible, value.hidden)]]
    return ["k", list(key), encoder.value(value)]


def _planned(encoder: _Encoder, planned: PlannedCall):
    if id(planned.case) not in encoder.case_index:
        raise _NotKept("a plan's case that is not kept")   # its check builds it anew: the plan would miss
    return [planned.func, encoder.case_index[id(planned.case)], bool(planned.reuse_args)]


def _named(key) -> bool:
    """A key that names the same entry in every run (an expected result's names its case by id():
    it comes and goes with its case's entry)."""
    return (type(key) is tuple and bool(key) and all(type(k) is str for k in key)
            and not key[0].startswith(SKIPPED))


def new_keys(memo: dict, known: set) -> bool:
    """Whether the memo holds an entry neither read from the kept file nor refused by it."""
    return any(_named(key) and key not in known for key in memo)


def keep(path: Path, memo: dict) -> None:
    """The memo's entries that can be kept, written whole or not at all (plans last: a plan is
    kept only where every case it names is). The keys of entries that cannot be are written too,
    so that the next run does not try again."""
    encoder = _Encoder()
    entries, refused = [], []
    ordered = sorted(memo.items(), key=lambda item: type(item[1]) is Plan)
    for key, value in ordered:
        if not _named(key) and not (type(key) is tuple and len(key) == 4 and key[1:2] == ("expected",)):
            continue
        saved = (len(encoder.cases), len(encoder.arrays))
        try:
            entries.append(_entry(encoder, key, value))
        except (_NotKept, TypeError, ValueError, RecursionError):
            _forget_after(encoder, *saved)
            if _named(key):
                refused.append(list(key))
    try:
        frame = _pack({"entries": entries, "cases": encoder.cases, "refused": refused}, encoder.arrays)
    except (TypeError, ValueError, RecursionError):
        return
    store_bytes(path, frame)


def _forget_after(encoder: _Encoder, cases: int, arrays: int) -> None:
    """Undo what a refused entry added to the tables."""
    encoder.case_index = {k: i for k, i in encoder.case_index.items() if i < cases}
    encoder.array_index = {k: i for k, i in encoder.array_index.items() if i < arrays}
    del encoder.cases[cases:]
    del encoder.arrays[arrays:]


def _pack(tree: dict, arrays: list) -> bytes:
    """A JSON header (the tree and the array table) and the arrays' bytes, each at a multiple of 8
    (read back as views of one buffer, aligned)."""
    table, blobs, offset = [], [], 0
    for value in arrays:
        dtype = _little_endian(value.dtype)
        data = np.ascontiguousarray(value, dtype=dtype).tobytes()
        table.append([dtype.str, list(np.shape(value)), isinstance(value, np.generic), offset])
        padding = -len(data) % ALIGN
        blobs += [data, bytes(padding)]
        offset += len(data) + padding
    header = json.dumps({**tree, "arrays": table, "payload": offset}, allow_nan=False).encode("utf-8")
    header += b" " * (-(len(header) + 8) % ALIGN)   # JSON ends in whitespace
    return b"".join([len(header).to_bytes(8, "big"), header, *blobs])


# ---------------------------------------------------------------- reading back

def read(path: Path) -> tuple[dict, set]:
    """The kept memo at ``path`` and the keys it could not keep: ({}, set()) where there is none,
    or it does not read back well formed."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_BYTES:
                return {}, set()
            data = bytearray(size)     # one writable buffer: the arrays are views of it
            if fh.readinto(data) != size:
                return {}, set()
    except OSError:
        return {}, set()
    try:
        return _unpack(data)
    except (_NotKept, KeyError, IndexError, TypeError, ValueError, RecursionError, UnicodeDecodeError,
            OverflowError, MemoryError):
        return {}, set()


def _unpack(data: bytearray) -> tuple[dict, set]:
    size = int.from_bytes(data[:8], "big")
    body = json.loads(bytes(data[8:8 + size]).decode("utf-8"))
    start = 8 + size
    if type(body) is not dict or body.get("payload") != len(data) - start:
        raise _NotKept("payload")
    decoder = _Decoder([_array(data, start, row) for row in _list(body["arrays"])])
    decoder.cases = [decoder.case(row) for row in _list(body["cases"])]
    memo = {}
    for entry in _list(body["entries"]):
        kind = entry[0]
        if kind == "x":
            exercise, func = entry[1]
            value = decoder.value(entry[2])
            if type(value) is not tuple or len(value) != 2 or type(value[0]) is not Case:
                raise _NotKept("expected")
            memo[(str(exercise), "expected", str(func), id(value[0]))] = value
        elif kind == "p":
            visible, hidden = ([PlannedCall(str(f), decoder.cases[i], bool(r)) for f, i, r in _list(part)]
                               for part in _list(entry[2]))
            memo[tuple(map(str, _list(entry[1])))] = Plan(visible=tuple(visible), hidden=tuple(hidden))
        elif kind == "k":
            memo[tuple(map(str, _list(entry[1])))] = decoder.value(entry[2])
        else:
            raise _NotKept("entry")
    return memo, {tuple(map(str, _list(key))) for key in _list(body["refused"])}


def _array(data: bytearray, start: int, row):
    dtype, shape, scalar, offset = row
    dtype = wire.DTYPES[dtype]
    count = 1
    for n in shape:
        if type(n) is not int or n < 0:
            raise _NotKept("shape")
        count *= n
    if type(offset) is not int or offset < 0 or start + offset + count * dtype.itemsize > len(data):
        raise _NotKept("array data")
    array = np.frombuffer(data, dtype=dtype, count=count, offset=start + offset)
    if scalar:
        return array.reshape(())[()]
    return array.reshape(shape)


def _list(value) -> list:
    if type(value) is not list:
        raise _NotKept("not a list")
    return value


class _Decoder:
    def __init__(self, arrays: list):
        self.arrays = arrays
        self.cases: list = []

    def value(self, node, depth: int = 0):
        if depth > MAX_DEPTH or type(node) is not list or not node:
            raise _NotKept("node")
        tag = node[0]
        if tag == "lv" or tag == "tv":
            items = _list(node[1])
            if not all(v is None or type(v) in _JSON_SCALARS for v in items):
                raise _NotKept("scalar")
            return items if tag == "lv" else tuple(items)
        if tag == "v":
            if type(node[1]) not in _SCALARS:
                raise _NotKept("scalar")
            return node[1]
        if tag == "a":
            return self.arrays[node[1]]
        if tag == "c":
            return self.cases[node[1]]
        if tag == "t":
            return tuple(self.value(v, depth + 1) for v in _list(node[1]))
        if tag == "l":
            return [self.value(v, depth + 1) for v in _list(node[1])]
        if tag == "d":
            return {k: self.value(v, depth + 1) for k, v in _list(node[1])}
        if tag == "f":
            return float(str(node[1]))
        if tag == "j":
            return complex(float(str(node[1])), float(str(node[2])))
        if tag == "r":
            choices = self.value(node[2], depth + 1)
            if type(choices) is not tuple:
                raise _NotKept("rung")
            return Rung(self.value(node[1], depth + 1), choices)
        if tag == "T":
            rungs = self.value(node[1], depth + 1)
            if type(rungs) is not list or not all(type(r) is tuple and len(r) == 2 and type(r[0]) is Rung
                                                  for r in rungs):
                raise _NotKept("tier")
            return Tier(rungs, frozenset(str(d) for d in _list(node[2])))
        raise _NotKept("tag")

    def case(self, row) -> Case:
        args, kwargs, label, shared = _list(row)
        args, kwargs = self.value(args), self.value(kwargs)
        if type(args) not in (tuple, list) or type(kwargs) is not dict:
            raise _NotKept("case")
        return Case(args, kwargs, str(label), shared=bool(shared))


_SCALARS = (type(None), bool, int, float, str)
_JSON_SCALARS = (bool, int, float, str)
