"""What the worker does to itself before any student code can run.

- ``no_new_privs`` and the system-call filter the grader compiled
  (``grader/seccomp_filter.py``): loaded with prctl, which binds the calling thread
  and every process and thread it starts, so it runs before numpy (and its BLAS
  threads) is imported. Filters are inherited and cannot be removed.
- not dumpable: nobody else of the same uid may ptrace us or open our
  ``/proc/<pid>/mem``, ``fd`` or ``environ``; the zygote's children inherit it.

Standard library only: this runs inside the sandbox. Run as a script
(``python -I confine.py FILTER``), it is the sandbox probe: it confines itself,
imports numpy and checks that a refused call is refused.
"""

from __future__ import annotations

import ctypes
import os
import sys

PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
MAX_FILTER = 4096 * 8          # BPF_MAXINSNS instructions of 8 bytes


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


class ConfinementError(Exception):
    pass


def _prctl(*args):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(*args) != 0:
        raise ConfinementError(os.strerror(ctypes.get_errno()))


def load_filter(path: str):
    """Install the BPF program at ``path`` for this process and all it starts."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_FILTER + 1)
    if not data or len(data) % 8 or len(data) > MAX_FILTER:
        raise ConfinementError(f"not a filter: {path}")
    count = len(data) // 8
    instructions = (_Instruction * count).from_buffer_copy(data)
    program = _Program(count, instructions)
    _prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0)
    _prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.cast(ctypes.pointer(program), ctypes.c_void_p), 0, 0)


def not_dumpable():
    _prctl(PR_SET_DUMPABLE, 0, None, 0, 0)


def from_arguments(argv: list[str]):
    """The zygote's start: ``--seccomp=PATH`` loads the filter (a filter that does not load
    ends the worker, so student code never runs unfiltered when a filter was asked for)."""
    for arg in argv:
        if arg.startswith("--seccomp="):
            try:
                load_filter(arg.split("=", 1)[1])
            except (OSError, ConfinementError) as exc:
                sys.stderr.write(f"worker: cannot load the system-call filter: {exc}\n")
                os._exit(78)
    try:
        not_dumpable()
    except ConfinementError:
        pass


def _probe(path: str) -> int:
    load_filter(path)
    not_dumpable()
    import numpy  # noqa: F401 -- the worker's one dependency must load under the filter

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0, 4096, 0o1600) != -1 or ctypes.get_errno() != 1:   # IPC_PRIVATE; EPERM expected
        sys.stderr.write("the system-call filter does not refuse shmget\n")
        return 1
    if os.getpid() != 1:
        sys.stderr.write("the worker is not its namespace's pid 1\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_probe(sys.argv[1]))
