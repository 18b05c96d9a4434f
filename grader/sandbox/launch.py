"""How the worker's process starts: its command, its environment, its first message; and the
*spare*, the sandboxed worker `grade check` starts before it loads the course.

The worker's first message on its control socket is a hello (grader/sandbox/worker/zygote.py),
sent once it is confined and has imported numpy; in the sandbox it first checks what bubblewrap's
probe checks (the filter refuses a refused call, it is its namespace's pid 1), and exits if not.
So a worker that says hello under bubblewrap is the probe's answer too. A lone `grade check`
used to run the probe (one sandboxed interpreter importing numpy), then start the worker
(another), one after the other; now :func:`start_spare` starts the worker as soon as the command
line is read, while this process imports the grader and loads the course, and
:func:`grader.sandbox.isolation.sandbox_unavailable` waits for its hello instead of probing.
The first Worker made with the same settings takes it (:func:`take_spare`); one made with
others (a course's display packages, other limits) gets a worker of its own, and the spare is
killed. A spare that never says hello is killed and bubblewrap probed, to say why.

Never imports numpy: the spare starts before the grading process has.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

from grader.base.temp_folders import make_folder
from grader.sandbox import isolation as isolation_module
from grader.sandbox.cgroup import Cgroup
from grader.sandbox.display_packages import preload_arguments
from grader.sandbox.isolation import Isolation, bwrap_command, bwrap_path, worker_preexec
from grader.sandbox.limits import Limits
from grader.sandbox.seccomp_filter import SeccompUnavailable
from grader.sandbox.seccomp_filter import write_into as write_seccomp_filter

HELLO_TIMEOUT = 15.0    # seconds for a new worker to import numpy and say hello (a loaded machine)
MAX_HELLO = 256         # bytes of the hello datagram
HELLO = {"ok": True, "hello": True}

# The worker gets a clean environment: no secrets, one BLAS thread.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "SYSTEMROOT")


def worker_env() -> dict:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", HOME="/tmp")
    env.setdefault("LANG", "C.UTF-8")
    return env


def worker_command(isolation: Isolation) -> list[str]:
    """The zygote's command line under ``isolation``, but for its control socket."""
    return [*isolation.prefix, sys.executable, "-I", "-B", isolation.worker_script(),
            *isolation.worker_args(), *preload_arguments()]


def launch(command: list[str], cgroup: Cgroup | None) -> tuple[subprocess.Popen, socket.socket]:
    """The worker's process and our end of its control socket. The control channel is an
    extra socket, not stdin/stdout: bubblewrap's pid 1 keeps its stdio, and the sandbox user
    could reach it through /proc/1/fd."""
    debug = os.environ.get("GRADER_DEBUG_WORKER")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        proc = subprocess.Popen(
            [*command, f"--control={theirs.fileno()}"], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=None if debug else subprocess.DEVNULL, env=worker_env(),
            cwd="/", close_fds=True, pass_fds=(theirs.fileno(),), start_new_session=True,
            preexec_fn=worker_preexec(cgroup))
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return proc, ours


def await_hello(control: socket.socket, timeout: float = HELLO_TIMEOUT) -> bool:
    """Whether the worker said hello within ``timeout`` (a worker that exits closes the socket)."""
    try:
        if not select.select([control], [], [], timeout)[0]:
            return False
        data = control.recv(MAX_HELLO)
        return bool(data) and json.loads(data.decode("utf-8")) == HELLO
    except (OSError, ValueError):
        return False


def kill(proc: subprocess.Popen) -> None:
    """The worker and everything in its session (without bubblewrap, its children)."""
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        pass
    proc.kill()
    proc.wait()


def new_exchange() -> Path:
    """The folder submissions are staged in, seen read-only inside the sandbox."""
    exchange = make_folder("exchange")
    os.chmod(exchange, 0o755)   # the sandbox's user must be able to read it
    return exchange


class Spare:
    """A sandboxed worker started ahead of its Worker, with everything a Worker would make
    for it: the exchange folder, the system-call filter, the cgroup."""

    def __init__(self, hidden: list[Path], limits: Limits):
        self.key = _key(hidden, limits)
        self.exchange = new_exchange()
        self.cgroup: Cgroup | None = None
        self.proc = self.control = None
        try:
            seccomp = write_seccomp_filter(self.exchange)
            self.isolation = Isolation("bubblewrap", prefix=bwrap_command(self.exchange, hidden),
                                       exchange=self.exchange, sandboxed=True, seccomp=seccomp)
            self.cgroup = Cgroup(*limits.cgroup())
            self.proc, self.control = launch(worker_command(self.isolation),
                                             self.cgroup if self.cgroup.active else None)
        except BaseException:
            self.discard()
            raise
        self._lock = threading.Lock()
        self._said: bool | None = None

    def hello(self) -> bool:
        """Whether it said hello (waits for it the first time; thread-safe)."""
        with self._lock:
            if self._said is None:
                self._said = (self.control is not None and await_hello(self.control)
                              and self.proc.poll() is None)
                if not self._said:
                    self.discard()
            return self._said

    def discard(self) -> None:
        if self.proc is not None:
            kill(self.proc)
        if self.control is not None:
            self.control.close()
        self.proc = self.control = None
        if self.cgroup is not None:
            self.cgroup.close()
            self.cgroup = None
        shutil.rmtree(self.exchange, ignore_errors=True)


_SPARES: list[Spare] = []


def _key(hidden, limits: Limits) -> tuple:
    return tuple(str(Path(p).resolve()) for p in hidden), limits.cgroup(), tuple(preload_arguments())


def start_spare(hidden: list[Path]) -> None:
    """Start the sandboxed worker of a Worker(hidden=hidden) with the default limits now, and
    let its hello answer whether bubblewrap works here. Nothing happens where bubblewrap is
    missing or a filter cannot be made (the Worker then finds out why, as it always did)."""
    if _SPARES or bwrap_path() is None:
        return
    try:
        spare = Spare(list(hidden), Limits())
    except (OSError, SeccompUnavailable, subprocess.SubprocessError):
        return
    _SPARES.append(spare)
    isolation_module.answer_from(spare.hello)
    atexit.register(discard_spares)


def take_spare(mode: str, hidden: list[Path], limits: Limits) -> Spare | None:
    """The spare, for a Worker of these settings, if bubblewrap is to be used and it said hello;
    None otherwise (and a spare that does not fit is killed: only a first Worker takes it)."""
    if not _SPARES:
        return None
    spare = _SPARES.pop()
    works = mode != "none" and not isolation_module.sandbox_unavailable()   # its hello, or the probe
    if works and spare.key == _key(hidden, limits) and spare.hello():
        return spare
    spare.discard()
    return None


def discard_spares() -> None:
    while _SPARES:
        _SPARES.pop().discard()
