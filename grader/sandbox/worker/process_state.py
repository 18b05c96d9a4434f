"""What in a worker child could reach student code that runs after it.

The exercises of one submission share a child, so that it is forked and its
modules imported once rather than once per exercise. That is only fair while
the child is as the zygote left it: an exercise that installed a signal
handler or a timer, left a thread or a process running, patched numpy,
changed numpy's error state, the streams, the working directory, the limits,
or kept a lot of memory must not reach the next one. :func:`snapshot` records
those points right after the fork; :func:`changes` names the ones that moved,
and the grader then gives the next exercise a fresh child.

Standard library and numpy only: this runs inside the sandbox.
"""

from __future__ import annotations

import _signal
import gc
import os
import resource
import signal
import sys
import threading
import warnings

import numpy

# Modules whose attributes student code might patch (np.tanh = ...): each attribute's identity is kept.
# (os, signal and threading are covered by the points they control: cwd, environment,
# handlers, threads; patching them breaks the worker's own replies, which ends the child.)
WATCHED_MODULES = ("builtins", "math", "numpy", "numpy.linalg", "numpy.random", "numpy.fft", "sys", "time",
                   "random", "functools", "copy", "warnings", "json")
MEMORY_GROWTH = 256 << 20      # bytes of resident memory an exercise may leave behind
CPU_SHARE = 0.1                # past this share of its CPU limit, a child is not reused (the next
                               # exercise starts with at least 90 % of a child's CPU time)

# As plain numbers, read with _signal.getsignal: signal.getsignal makes an enum of every
# default or ignored handler (two thirds of a snapshot's time); the identities compared are the same.
_SIGNALS = [int(s) for s in signal.Signals if s not in (signal.SIGKILL, signal.SIGSTOP)]
_LIMITS = [getattr(resource, name) for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE",
                                                 "RLIMIT_NPROC", "RLIMIT_CORE", "RLIMIT_STACK", "RLIMIT_DATA")
           if hasattr(resource, name)]
_SYS_HOOKS = ("stdin", "stdout", "stderr", "excepthook", "displayhook", "meta_path", "path_hooks",
              "breakpointhook", "unraisablehook")


def _resident() -> int:
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _modules() -> dict:
    found = {}
    for name in WATCHED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            attributes = vars(module)
            found[name] = (id(module), {key: id(value) for key, value in attributes.items()},
                           list(map(id, attributes.values())))
    return found


def _patched(baseline: dict) -> bool:
    """A watched module replaced, or one of its attributes rebound (new attributes, such as a
    submodule imported later, do not count)."""
    for name, (module_id, attributes, values) in baseline.items():
        module = sys.modules.get(name)
        if id(module) != module_id:
            return True
        now = vars(module)
        if len(now) == len(values) and list(map(id, now.values())) == values:
            continue   # the usual case: nothing added, nothing rebound
        if any(id(now.get(key)) != value for key, value in attributes.items()):
            return True
        if name == "builtins" and now.keys() - attributes.keys():   # a new builtin reaches every module
            return True
    return False


def _processes() -> int:
    """Processes in this PID namespace (inside the sandbox: only the worker's)."""
    return sum(1 for name in os.listdir("/proc") if name.isdigit())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def snapshot() -> dict:
    """The points of the process state that can reach later code; the same keys as :func:`current`."""
    return {
        "signal handlers": [id(_signal.getsignal(s)) for s in _SIGNALS],
        "timers": [signal.getitimer(t) for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)],
        "threads": len(os.listdir("/proc/self/task")),
        "python threads": threading.active_count(),
        "open files": _fds(),
        "numpy error state": (sorted(numpy.geterr().items()), id(numpy.geterrcall())),
        "limits": [resource.getrlimit(r) for r in _LIMITS],
        "working directory": os.getcwd(),
        "umask": _umask(),
        "environment": dict(os.environ),
        "sys": ([id(getattr(sys, name, None)) for name in _SYS_HOOKS], list(sys.path), sys.getrecursionlimit(),
                id(sys.gettrace()), id(sys.getprofile()), sys.getswitchinterval()),
        "garbage collector": (gc.isenabled(), gc.get_threshold()),
        "warnings": (id(warnings.filters), list(warnings.filters), id(warnings.showwarning)),
    }


def modules_snapshot() -> dict:
    """The watched modules' attributes; taken once in the zygote, the same in every child it forks."""
    return _modules()


def baseline(sandboxed: bool, modules: dict | None = None) -> dict:
    return {"state": snapshot(), "modules": _modules() if modules is None else modules, "resident": _resident(),
            "processes": _processes() if sandboxed else None, "parent": os.getppid()}


def changes(baseline: dict, cpu_limit: float = 0.0) -> list[str]:
    """What moved since ``baseline`` (empty: the child may serve another exercise)."""
    if os.getppid() != baseline["parent"]:   # the zygote is gone (a student killed it): so is this sandbox, soon
        return ["worker"]
    moved = [key for key, value in snapshot().items() if baseline["state"].get(key) != value]
    if _patched(baseline["modules"]):
        moved.append("patched modules")
    if baseline["processes"] is not None and _processes() != baseline["processes"]:
        moved.append("processes")
    try:   # a child process (even a finished one) of ours
        if os.waitpid(-1, os.WNOHANG) is not None:
            moved.append("child processes")
    except ChildProcessError:
        pass
    remaining = signal.alarm(0)
    if remaining:
        signal.alarm(remaining)
        moved.append("alarm")
    if _resident() > baseline["resident"] + MEMORY_GROWTH:
        moved.append("memory")
    if cpu_limit and _cpu_seconds() > CPU_SHARE * cpu_limit:
        moved.append("cpu time")
    return moved
