"""The trusted side of the worker boundary.

:class:`Worker` owns one warm worker process (``grader/worker/zygote.py``) and
restarts it if it dies. :class:`StudentModule` is one exercise's handle on a
student module: it opens a fresh child, calls functions in it, and reopens the
child after a crash or a timeout so that one bad call costs only its check.
Only inputs are sent; only plain data (see ``grader/worker/wire.py``) come back.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.worker import wire

WORKER_SCRIPT = Path(__file__).parent / "worker" / "zygote.py"
DEFAULT_MEMORY = 2 << 30          # address-space limit of a child, bytes
REPLY_SLACK = 2.0                 # the zygote's own margin beyond a call's timeout
MAX_FAILURES = 3                  # crashes or timeouts before an exercise stops calling

# The worker gets a clean environment: no secrets, one BLAS thread.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SYSTEMROOT")


def worker_env() -> dict:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", HOME="/tmp")
    env.setdefault("LANG", "C.UTF-8")
    return env


class StudentError(Exception):
    """A call into student code did not return a value."""

    def __init__(self, error: dict):
        super().__init__(error.get("kind", "error"))
        self.error = error

    @property
    def kind(self) -> str:
        return self.error.get("kind", "error")


@dataclass
class CallResult:
    value: object
    type_name: str = ""
    args_after: list = field(default_factory=list)
    kwargs_after: dict = field(default_factory=dict)
    output: str = ""
    elapsed: float = 0.0


class Worker:
    """One warm worker process, started lazily and restarted when it dies."""

    def __init__(self, memory: int = DEFAULT_MEMORY, command_prefix: list[str] | None = None):
        self.memory = memory
        self.command_prefix = command_prefix or []
        self._proc: subprocess.Popen | None = None
        self.restarts = 0

    def command(self) -> list[str]:
        return [*self.command_prefix, sys.executable, "-I", "-B", str(WORKER_SCRIPT)]

    def _start(self):
        debug = os.environ.get("GRADER_DEBUG_WORKER")
        self._proc = subprocess.Popen(
            self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None if debug else subprocess.DEVNULL, env=worker_env(),
            cwd="/", close_fds=True, start_new_session=True)

    def request(self, message: dict, timeout: float) -> dict:
        """Send one request and wait for its reply; a dead or stuck worker is replaced."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        proc = self._proc
        try:
            wire.send(proc.stdin.fileno(), message)
            return wire.recv(proc.stdout.fileno(), time.monotonic() + timeout + REPLY_SLACK)
        except (wire.Timeout, wire.Closed, wire.WireError, OSError) as exc:
            self._kill()
            self.restarts += 1
            kind = "timeout" if isinstance(exc, wire.Timeout) else "crash"
            return {"ok": False, "error": {"kind": kind, "seconds": timeout, "message": "worker lost"}}

    def _kill(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, 9)
        except OSError:
            pass
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def stop(self):
        if self._proc is not None and self._proc.poll() is None:
            try:
                wire.send(self._proc.stdin.fileno(), {"op": "exit"})
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class StudentModule:
    """One exercise's calls into one student module, in a child of its own."""

    def __init__(self, worker: Worker, root: Path, module: str, timeout: float):
        self.worker, self.root, self.module, self.timeout = worker, str(root), module, timeout
        self.import_error: dict | None = None
        self.failures = 0
        self._open = False
        self.output: list[str] = []   # what the student code printed, in order

    def open(self) -> dict | None:
        """Import the module in a fresh child; return the import error, if any."""
        reply = self.worker.request({"op": "open", "root": self.root, "modules": [self.module],
                                     "timeout": self.timeout, "memory": self.worker.memory},
                                    self.timeout)
        self._note_output(reply)
        if not reply.get("ok"):
            self.import_error = reply.get("error", {"kind": "crash"})
        else:
            self.import_error = reply["imports"].get(self.module)
        self._open = self.import_error is None
        return self.import_error

    def _note_output(self, reply: dict):
        text = reply.get("output") or (reply.get("error") or {}).get("output") or ""
        if text and isinstance(text, str):
            self.output.append(text)

    def call(self, func: str, *args, return_args: bool = False, **kwargs) -> CallResult:
        return self._request({"op": "call", "func": func, "args": list(args), "kwargs": kwargs,
                              "return_args": return_args})

    def getattr(self, name: str) -> CallResult:
        return self._request({"op": "getattr", "name": name})

    def _request(self, message: dict) -> CallResult:
        if self.import_error is not None:
            raise StudentError({"kind": "import", "cause": self.import_error})
        if self.failures >= MAX_FAILURES:
            raise StudentError({"kind": "gave_up", "failures": self.failures})
        if not self._open and self.open() is not None:
            raise StudentError({"kind": "import", "cause": self.import_error})
        message.update(module=self.module, timeout=self.timeout)
        reply = self.worker.request(message, self.timeout)
        self._note_output(reply)
        if reply.get("ok"):
            return CallResult(value=reply.get("value"), type_name=reply.get("type", ""),
                              args_after=reply.get("args_after", []),
                              kwargs_after=reply.get("kwargs_after", {}),
                              output=reply.get("output", ""), elapsed=reply.get("elapsed", 0.0))
        error = reply.get("error") or {"kind": "crash"}
        if error.get("kind") in ("crash", "timeout", "protocol", "bad_return_fatal"):
            self.failures += 1
            self._open = False   # the child is gone; the next call starts a new one
        raise StudentError(error)

    def close(self):
        if self._open:
            self.worker.request({"op": "close"}, 5)
            self._open = False
