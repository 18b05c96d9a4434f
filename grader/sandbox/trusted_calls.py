"""Course code run on arguments a student chose: in a helper process, within hard limits.

A stand-in call (grader/grading/stand_ins.py) runs the course's reference on the arguments a student's
code passed, and a diagnosis replays the reference and the known mistakes on calls a check built
from a student's results (grader/grading/diagnose.py). A course's code is arbitrary instructor code: given
a size of 3e8 it may allocate 2.4 GB, given a loop count of 1e12 it may never return. So such
calls never run in the grading process. They go to a *helper*: a fork of the grading process,
made on the first such call, so it has the course's code loaded (it is as trusted as the grader,
and not sandboxed), with limits the grader does not trust it to keep by itself:

* memory: an address-space ceiling of its own (RLIMIT_AS: what it inherited plus ``MEMORY``),
  never the grader's; a call that needs more gets MemoryError there;
* time: the grader waits at most the call's seconds for the reply and kills the helper (its
  whole process group) past them; RLIMIT_CPU, set before each call, stops a call that spends
  its CPU seconds faster than the wall clock (threads);
* the reply: no larger than the call's limit, refused by the helper and, were it to send one
  anyway, by the grader before reading it.

A helper killed or broken is replaced on the next call; the grading process never waits longer
than a call's seconds. Only plain data crosses its pipes, in the worker's wire format
(grader/sandbox/worker/wire.py): never pickle. Each reply is one status byte and one wire frame; a
stand-in's frame is forwarded to the student's child as it came (the grader does not decode it).

No answer is kept from one call to the next: a cache shared by the run's submissions would make one
student's calls change how fast another's are answered (and show, by that speed, what an earlier
student's code asked). The round trip costs about 0.05 ms of CPU a call on an idle machine.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import select
import signal
import struct
import time
import warnings
import weakref

import numpy as np

from grader.checks.outcomes import Overrun
from grader.sandbox.worker import wire

CALL_SECONDS = 2.0          # wall clock (and CPU) of one call; the bundled course's slowest: ~1 ms
MEMORY = 512 << 20          # address space one call may add to the helper's; the bundled course's: < 1 MiB
REPLY_BYTES = 2 << 20       # a stand-in's answer, as large as the arguments it may be sent
OUTCOME_BYTES = 16 << 20    # a replayed call's outcome: its value and its arguments after the call
REPLAY_SECONDS = 5.0        # replays a submission's diagnoses may run here (the bundled course's: < 0.1 s)
FRAME_SLACK = 4096          # the frame's own bytes beyond the value's
EXIT_WAIT = 0.2             # seconds for a helper whose pipe closed to finish exiting

_OK, _MEMORY, _TOO_LARGE = b"=", b"M", b"L"
_PREFIX = struct.Struct(">II")   # the wire's frame prefix: header and arrays' lengths


class _Died(Exception):
    """The helper died during a call (``sig``: the signal that ended it, or None)."""

    def __init__(self, sig):
        super().__init__(sig)
        self.sig = sig


_HELPERS: weakref.WeakSet = weakref.WeakSet()


def _forget_in_child():
    """A process forked from one with helpers (a pool of grading processes, a helper itself):
    those helpers are its parent's. It closes its copies of their pipes and starts its own."""
    for calls in list(_HELPERS):
        calls._forget()


os.register_at_fork(after_in_child=_forget_in_child)


class TrustedCalls:
    """The grading process's helper for one course runtime (started on the first call)."""

    def __init__(self, runtime, memory: int = MEMORY):
        self.runtime, self.memory = runtime, memory
        self._pid: int | None = None
        self._to = self._from = None
        self._buffer = bytearray()
        self.started = 0      # helpers forked so far
        self.replay_left = REPLAY_SECONDS   # of the submission being graded (new_submission)
        self._finalizer = None
        _HELPERS.add(self)

    # ------------------------------------------------------------ the calls

    def stand_in(self, file: str, func: str, args: list, kwargs: dict, seconds: float = CALL_SECONDS,
                 limit: int = REPLY_BYTES) -> bytes:
        """The frame that answers a stand-in call of the reference's ``func`` (in ``file``):
        {"stand_in": True, "value": ...} or {"stand_in": True, "error": [type, message]}.
        Raises Overrun."""
        frame, _ = self._call({"op": "stand_in", "where": ["reference", file], "func": func, "args": args,
                               "kwargs": kwargs}, seconds, limit)
        return frame

    def outcome(self, where: list, func: str, args: list, kwargs: dict, seconds: float = CALL_SECONDS,
                limit: int = OUTCOME_BYTES) -> tuple:
        """grader/diagnose.run_outcome's ("ok", value, args after, kwargs after) or ("error", type)
        for ``func`` of ``where``: ["reference", file] or ["variant", exercise id, variant path].
        Raises Overrun."""
        frame, header = self._call({"op": "outcome", "where": list(where), "func": func, "args": list(args),
                                    "kwargs": kwargs}, seconds, limit)
        try:
            body = wire.unpack(frame[_PREFIX.size:_PREFIX.size + header], frame[_PREFIX.size + header:])
        except wire.WireError:   # more values than one frame may hold (wire.MAX_NODES)
            raise Overrun("reply", limit) from None
        if body.get("outcome") == "ok":
            return ("ok", body.get("value"), body.get("args"), body.get("kwargs"))
        return ("error", str(body.get("type")))

    def new_submission(self):
        """The next submission's replays get their own budget."""
        self.replay_left = REPLAY_SECONDS

    def replay(self, where: list, func: str, args: list, kwargs: dict) -> tuple:
        """outcome() of a call a diagnosis replays, within CALL_SECONDS and what is left of the
        submission's REPLAY_SECONDS (past them every replay is an Overrun at once)."""
        start = time.monotonic()
        try:
            return self.outcome(where, func, args, kwargs, min(CALL_SECONDS, self.replay_left))
        finally:
            self.replay_left -= time.monotonic() - start

    def _call(self, message: dict, seconds: float, limit: int) -> tuple[bytes, int]:
        seconds = max(float(seconds), 0.0)
        if seconds <= 0:
            raise Overrun("time", 0)
        request = wire.pack({**message, "cpu": math.ceil(seconds), "limit": limit})
        deadline = time.monotonic() + seconds
        # A helper that dies during a call is replaced and the call made once more, within the same
        # deadline: one killed from outside (or dying) as the call began is not the call's doing. A
        # second death is (the course's code crashed on these arguments).
        for retry in (True, False):
            if self._pid is not None and self._gone():
                self.stop()   # ended between calls: not this call's doing
            if self._pid is None:
                self._start()
            try:
                return self._attempt(request, deadline, seconds, limit)
            except _Died as died:
                if not retry or died.sig == signal.SIGXCPU:
                    raise (Overrun("time", seconds) if died.sig == signal.SIGXCPU
                           else Overrun("died", _how(died.sig))) from None

    def _attempt(self, request: bytes, deadline: float, seconds: float, limit: int) -> tuple[bytes, int]:
        try:
            wire.write_frame(self._to, request, deadline)
            status = self._read(1, deadline)
            prefix = self._read(_PREFIX.size, deadline)
            header, payload = _PREFIX.unpack(prefix)
            if header + payload > limit + FRAME_SLACK:   # the helper refuses these itself: it misbehaves
                self.stop()
                raise Overrun("reply", limit)
            frame = prefix + self._read(header + payload, deadline)
        except wire.Timeout:
            self.stop()
            raise Overrun("time", seconds) from None
        except (wire.Closed, OSError):
            sig = self._death()
            self.stop()
            raise _Died(sig) from None
        if status == _OK:
            return frame, header
        if status == _MEMORY:
            self.stop()   # a fresh helper for the next call: nothing of this one's memory stays
            raise Overrun("memory", self.memory)
        if status == _TOO_LARGE:
            raise Overrun("reply", limit)
        self.stop()
        raise Overrun("died", "protocol")

    def _read(self, count: int, deadline: float) -> bytes:
        buffer = self._buffer
        while len(buffer) < count:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from], [], [], left)[0]:
                raise wire.Timeout()
            chunk = os.read(self._from, min(max(count - len(buffer), 1 << 16), 1 << 20))
            if not chunk:
                raise wire.Closed()
            buffer += chunk
        data = bytes(buffer[:count])
        del buffer[:count]
        return data

    # ------------------------------------------------------------ the helper process

    def _start(self):
        requests, to_helper = os.pipe()
        from_helper, replies = os.pipe()
        pid = os.fork()
        if pid == 0:   # the helper: it never returns from here
            try:
                _serve(self.runtime, requests, replies, self.memory)
            finally:
                os._exit(0)
        os.close(requests)
        os.close(replies)
        os.set_blocking(to_helper, False)   # write_frame's deadline holds against a helper that stops reading
        self._pid, self._to, self._from = pid, to_helper, from_helper
        self._buffer.clear()
        self.started += 1
        if self._finalizer is None or not self._finalizer.alive:
            self._finalizer = weakref.finalize(self, TrustedCalls._stop_helper, self._state())

    def _state(self) -> list:
        return [self._pid, self._to, self._from, os.getpid()]

    def _gone(self) -> bool:
        try:
            pid, _ = os.waitpid(self._pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid:
            self._pid = None   # reaped
        return bool(pid)

    def _death(self):
        """The signal that ended a helper whose pipe closed (None: it exited, or is not done yet)."""
        if self._pid is None:
            return None
        end = time.monotonic() + EXIT_WAIT
        while True:
            try:
                pid, status = os.waitpid(self._pid, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid:
                self._pid = None   # reaped
                return os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            if time.monotonic() > end:
                return None
            time.sleep(0.005)

    def stop(self):
        """Kill the helper (if any); the next call starts another."""
        state = self._state()
        self._pid = self._to = self._from = None
        self._buffer.clear()
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        TrustedCalls._stop_helper(state)

    close = stop

    @staticmethod
    def _stop_helper(state: list):
        pid, to_helper, from_helper, owner = state
        for fd in (to_helper, from_helper):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if pid is None or owner != os.getpid():
            return
        for kill in (os.killpg, os.kill):   # its group: anything it started goes too
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass

    def _forget(self):
        """In a forked child: this process does not own the helper; close its pipes only."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        for fd in (self._to, self._from):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._pid = self._to = self._from = None
        self._buffer.clear()


def _how(sig) -> str:
    if sig is None:
        return "exited"
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


# ---------------------------------------------------------------- the helper's side

def _serve(runtime, requests: int, replies: int, memory: int):
    """The helper's loop: one request, one reply, until the grader closes its pipe."""
    os.setpgid(0, 0)
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # the grader handles ^C, and kills it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):                               # the course's prints go nowhere
        os.dup2(null, fd)
    keep = sorted((requests, replies))
    os.closerange(3, keep[0])                          # the grader's files, sockets, the worker's pipes
    os.closerange(keep[0] + 1, keep[1])
    os.closerange(keep[1] + 1, _max_fd())
    _one_blas_thread()
    warnings.simplefilter("ignore")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # a call stopped by RLIMIT_CPU leaves no core file
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = _address_space() + memory
    resource.setrlimit(resource.RLIMIT_AS, (ceiling if hard == resource.RLIM_INFINITY else min(ceiling, hard), hard))
    reader = wire.Reader(requests)
    while True:
        try:
            message = reader.recv()
        except (wire.Closed, wire.WireError, OSError):
            return
        try:
            reply = _answer(runtime, message)
        except MemoryError:
            reply = _MEMORY + wire.pack({})
        view = memoryview(reply)
        while view:
            view = view[os.write(replies, view):]


def _answer(runtime, message: dict) -> bytes:
    op, limit = message.get("op"), message.get("limit")
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    soft = int(used) + int(message.get("cpu")) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    args, kwargs = message.get("args"), message.get("kwargs")
    stand_in = op == "stand_in"
    try:
        function = _function(runtime, message.get("where"), message.get("func"))
        with np.errstate(all="ignore"):
            value = function(*args, **kwargs)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 -- the student's arguments may be anything
        body = ({"stand_in": True, "error": [type(exc).__name__, str(exc)[:200]]} if stand_in
                else {"outcome": "error", "type": type(exc).__name__})
    else:
        body = ({"stand_in": True, "value": value} if stand_in
                else {"outcome": "ok", "value": value, "args": args, "kwargs": kwargs})
    try:
        frame = wire.pack(body)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 -- a value the wire cannot carry
        frame = wire.pack({"stand_in": True, "error": ["RuntimeError", "no answer"]} if stand_in
                          else {"outcome": "error", "type": "unencodable"})
    if len(frame) > limit:
        return _TOO_LARGE + wire.pack({"size": len(frame)})
    return _OK + frame


def _function(runtime, where, func: str):
    if type(where) is list and len(where) == 2 and where[0] == "reference":
        return runtime.reference_function(where[1], func)
    if type(where) is list and len(where) == 3 and where[0] == "variant":
        function = runtime.variant_function(runtime.course.exercises[where[1]], where[2], func)
        if function is None:
            raise AttributeError(func)
        return function
    raise ValueError("unknown function")


def _address_space() -> int:
    """The helper's address space now (what it inherited), bytes."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 1 << 30


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


def die_with_parent() -> bool:
    """This process is killed with its parent, however the parent dies, even in the middle of a
    call (PR_SET_PDEATHSIG); whether that could be set (Linux only)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        return False
    return True


def _one_blas_thread():
    """One BLAS thread: a call uses one core (the others grade other students), and a machine
    with many cores does not spend the helper's address space on thread buffers."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            libraries = {path for path in (line.split()[-1] for line in fh if line.strip())
                         if "openblas" in path.lower() and ".so" in path}
    except OSError:
        return
    for path in libraries:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads"):
            setter = getattr(library, name, None)
            if setter is not None:
                setter(1)
                break
