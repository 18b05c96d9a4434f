"""The student kit's grading data: what the course's own code returns on the visible checks' inputs.

The student wheel holds no reference solution, no known-mistake implementation
and no answer key. Instead, ``grade release`` runs the visible checks on the
reference and on every known mistake in the instructor's install, and records
every result the checks and the diagnosis asked of the course's code, keyed by
a digest of the call (the function and its inputs). In the kit those records
answer in place of the code (:class:`RecordedModules`): a check gets the same
expected values, a mistake is named from the same results. A call nobody
recorded raises :class:`NotInKit`; what depends on it is left to the
instructor's grading. Hidden checks never run at release: their inputs come
from the instructor's secret, and nothing of them is in the kit.

Records are wire frames (``grader/worker/wire.py``): plain data, never pickle.
"""

from __future__ import annotations

import copy
import hashlib
import struct
from pathlib import Path

import numpy as np

from grader.compare import identical
from grader.worker import wire

FORMAT = 1
REFERENCE = "reference"


class NotInKit(BaseException):
    """The kit has no record of this call: only the instructor's install can answer it.
    Not an Exception: code that turns a wrong implementation's exceptions into outcomes
    (grader/diagnose.py) must not take it for one."""


def call_digest(func: str, args, kwargs) -> str:
    """Names a call by its function and inputs (arrays by dtype, shape and bytes)."""
    blobs: list = []
    header = repr(wire.encode([func, list(args), dict(kwargs)], blobs)).encode()
    digest = hashlib.blake2b(header, digest_size=16)
    for blob in blobs:
        digest.update(blob)
    return digest.hexdigest()


# ------------------------------------------------------------------ recording (instructor side)

class Recording:
    """Every call made through :meth:`wrap`, per source."""

    def __init__(self):
        self.outcomes: dict[str, dict[str, list]] = {}

    def wrap(self, source: str, name: str, function):
        store = self.outcomes.setdefault(source, {})

        def recorded(*args, **kwargs):
            key = call_digest(name, args, kwargs)
            before = copy.deepcopy((list(args), dict(kwargs)))
            try:
                value = function(*args, **kwargs)
            except Exception as exc:   # noqa: BLE001 -- replayed as the same kind of exception
                store.setdefault(key, ["error", type(exc).__name__, str(exc)[:200]])
                raise
            changed = {str(i): a for i, (a, b) in enumerate(zip(args, before[0])) if not identical(a, b)}
            kw_changed = {k: v for k, v in kwargs.items() if not identical(v, before[1].get(k))}
            store.setdefault(key, ["ok", copy.deepcopy(value), copy.deepcopy(changed), copy.deepcopy(kw_changed)])
            return value

        return recorded

    def expect(self, source: str):
        """A source that must have a file in the kit even if nothing called it."""
        self.outcomes.setdefault(source, {})

    def write(self, folder: Path) -> list[Path]:
        """One frame per source: ``reference.rec``, ``mistakes/<exercise>/<variant>.rec``."""
        written = []
        for source, calls in sorted(self.outcomes.items()):
            path = Path(folder) / f"{source}.rec"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(wire.pack({"format": FORMAT, "source": source, "calls": calls}))
            written.append(path)
        return written


class RecordingModules:
    """A ModuleSet whose functions record what they return (``grade release``)."""

    def __init__(self, modules, recording: Recording, source: str):
        self.modules, self.recording, self.source = modules, recording, source

    def function(self, module: str, name: str):
        return self.recording.wrap(self.source, name, self.modules.function(module, name))


# ------------------------------------------------------------------ replaying (student side)

def read_frame(path: Path) -> dict:
    data = Path(path).read_bytes()
    header_size, payload_size = struct.unpack_from(">II", data)   # the wire's frame prefix
    header = data[8:8 + header_size]
    payload = data[8 + header_size:8 + header_size + payload_size]
    return wire.unpack(header, payload)


class RecordedModules:
    """A ModuleSet's interface over the records of one source (one ``.rec`` file)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._calls: dict | None = None

    def calls(self) -> dict:
        if self._calls is None:
            try:
                frame = read_frame(self.path)
            except (OSError, wire.WireError, struct.error) as exc:
                raise NotInKit(f"no kit data in {self.path.name} ({exc})") from None
            if frame.get("format") != FORMAT:
                raise NotInKit(f"kit data of another format in {self.path.name}")
            self._calls = dict(frame["calls"])
        return self._calls

    def function(self, module: str, name: str):
        return RecordedFunction(self, name)


class RecordedFunction:
    def __init__(self, modules: RecordedModules, name: str):
        self.modules, self.name = modules, name
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        outcome = self.modules.calls().get(call_digest(self.name, args, kwargs))
        if outcome is None:
            raise NotInKit(f"{self.modules.path.stem}: {self.name} on inputs the release did not record")
        if outcome[0] == "error":
            raise _exception_named(outcome[1])(outcome[2])
        _, value, changed, kw_changed = outcome
        for i, after in changed.items():
            if int(i) < len(args):
                _refill(args[int(i)], after)
        for key, after in kw_changed.items():
            if key in kwargs:
                _refill(kwargs[key], after)
        return copy.deepcopy(value)


def _refill(target, after):
    """A recorded call changed this argument in place: change the caller's object alike."""
    if type(target) is np.ndarray and type(after) is np.ndarray and target.shape == after.shape:
        np.copyto(target, after, casting="unsafe")
    elif type(target) is dict and type(after) is dict:
        for key in list(target):
            if key not in after:
                del target[key]
        for key, value in after.items():
            if key in target and type(target[key]) is np.ndarray:
                _refill(target[key], value)
            else:
                target[key] = copy.deepcopy(value)
    elif type(target) is list and type(after) is list:
        target[:] = copy.deepcopy(after)


_EXCEPTIONS: dict[str, type] = {}


def _exception_named(name: str) -> type:
    """An exception class of the recorded name (diagnosis compares exception types by name)."""
    builtin = __builtins__.get(name) if isinstance(__builtins__, dict) else getattr(__builtins__, name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        return builtin
    if name not in _EXCEPTIONS:
        _EXCEPTIONS[name] = type(name, (Exception,), {})
    return _EXCEPTIONS[name]


# ------------------------------------------------------------------ the release

def write_kit_data(course, folder: Path) -> None:
    """Record, in the instructor's install, what the kit needs to grade the visible checks:
    the reference's results on every visible input, and each known mistake's results on the
    calls its diagnosis replays. Every submission ``grade validate`` grades is graded here,
    visible checks only (hidden checks and the quiz never run: nothing of them is recorded),
    so every call a visible check or a diagnosis makes is in the records."""
    import shutil
    import tempfile

    from grader.engine import Grader
    from grader.runtime import CourseRuntime
    from grader.submission import load_submission
    from grader.validate import mistake_folder, reference_folder

    folder = Path(folder)
    recording = Recording()
    recording.expect(REFERENCE)
    code_exercises = [e.id for e in course.exercises.values() if not e.is_quiz]
    runtime = CourseRuntime(course, recording=recording)
    with tempfile.TemporaryDirectory(prefix="grade-kit-") as tmp, \
            Grader(course, runtime=runtime, counterexamples=False, hidden=False) as grader:
        tmp = Path(tmp)
        grader.grade(load_submission(reference_folder(course, tmp / "reference"), tmp / "w-ref"), code_exercises)
        grader.grade(load_submission(course.stubs_dir, tmp / "w-stubs"), code_exercises)
        count = 0
        for exercise in course.exercises.values():
            for mistake in exercise.mistakes:
                for variant in mistake.variants:
                    recording.expect(f"mistakes/{exercise.id}/{variant.stem}")
                    count += 1
                    wrong = mistake_folder(course, mistake, variant, tmp / f"m{count}")
                    grader.grade(load_submission(wrong, tmp / f"w-m{count}"), [exercise.id])
    recording.write(folder)
    for exercise in course.exercises.values():   # the catalogues' texts name the mistakes in the kit
        catalogue = course.root / "solutions" / "mistakes" / exercise.id / "catalogue.yaml"
        if catalogue.is_file():
            target = folder / "mistakes" / exercise.id / "catalogue.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(catalogue, target)
