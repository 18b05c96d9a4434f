"""The kit's records: what the course's own code returned, answering in its place.

``grade release`` records (:class:`Recording`, through :class:`RecordingModules`) every
result the visible checks and the diagnosis ask of the reference and of each known
mistake, keyed by a digest of the call (:func:`call_digest`: the function and its
inputs); grader/kit/data.py writes them into the student wheel. In the kit,
:class:`RecordedModules` answers from them in place of the code (the kit's runtime,
grader/course/runtime.py KitRuntime); a call nobody recorded raises :class:`NotInKit`.
grader/course/runtime.py, diagnose.py, plan.py, counterexample.py and engine.py use these,
never the release that writes them.

Records are wire frames (``grader/sandbox/worker/wire.py``): plain data, never pickle.
"""

from __future__ import annotations

import copy
import hashlib
import struct
from pathlib import Path

import numpy as np

from grader.checks.compare import identical
from grader.sandbox.worker import wire

FORMAT = 2      # 2: the wire's array tag became {"__nd__": [blob, dtype, shape]}, and every call digest with it
REFERENCE = "reference"


class NotInKit(BaseException):
    """The kit has no record of this call: only the instructor's install can answer it.
    Not an Exception: code that turns a wrong implementation's exceptions into outcomes
    (grader/grading/diagnose.py) must not take it for one."""


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
