"""What the worker does to itself before any student code can run.

- ``no_new_privs`` and the system-call filter the grader compiled
  (``grader/seccomp_filter.py``): loaded with prctl, which binds the calling thread
  and every process and thread it starts, so it runs before numpy (and its BLAS
  threads) is imported. Filters are inherited and cannot be removed.
- not dumpable: nobody else of the same uid may ptrace us or open our
  ``/proc/<pid>/mem``, ``fd`` or ``environ``; the zygote's children inherit it.
- without bubblewrap (``confine_child``, in each child before the student's code): as
  root, an unprivileged uid of the submission's own; and, where the kernel has Landlock,
  a file system that is only the Python runtime, numpy, the submission and a private
  /tmp, no TCP, and no signal or abstract socket beyond the child's own processes.

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


# ---------------------------------------------------------------- Landlock (linux/landlock.h)

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446   # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_MAKE_CHAR, _FS_MAKE_BLOCK = 1 << 6, 1 << 11
_FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 14, 1 << 15
_NET_ALL = (1 << 0) | (1 << 1)                  # bind and connect TCP (ABI 4)
_SCOPE_ALL = (1 << 0) | (1 << 1)                # abstract unix sockets, signals (ABI 6)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _syscall(*args) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall(*args)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none (or a filter refuses it)."""
    if sys.platform != "linux":
        return 0
    version = _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1                   # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= 1 << 13                    # refer
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


def restrict_paths(read: list[str], write: list[str], devices: list[str], abi: int, listed: list[str] = ()):
    """Landlock this process and all it starts: ``read`` (folders or files) read-only,
    ``write`` folders fully, ``devices`` read and write, ``listed`` folders listed but no
    file in them read (a standard library holding site-packages, whose entries are in
    ``read``); no TCP, no signals or abstract unix sockets beyond its own domain, where the
    kernel can refuse them."""
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled, _NET_ALL if abi >= 4 else 0, _SCOPE_ALL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise ConfinementError(f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    file_read = _FS_EXECUTE | _FS_READ_FILE
    file_write = _FS_WRITE_FILE | (handled & _FS_TRUNCATE)
    try:
        # No device node made or driven in the writable folder (a block device is the raw disk).
        no_devices = handled & ~(_FS_MAKE_CHAR | _FS_MAKE_BLOCK | _FS_IOCTL_DEV)
        for paths, folder_rights, file_rights in ((read, file_read | _FS_READ_DIR, file_read),
                                                  (write, no_devices, file_read | file_write),
                                                  (devices, _FS_READ_FILE | file_write, _FS_READ_FILE | file_write),
                                                  (listed, _FS_READ_DIR, 0)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue     # a folder this machine does not have
                try:
                    rights = folder_rights if os.path.isdir(path) else file_rights
                    if not rights:
                        continue
                    rule = _PathBeneath(rights, fd)
                    if _syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                        raise ConfinementError(f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
                finally:
                    os.close(fd)
        _prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0)
        if _syscall(_SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) < 0:
            raise ConfinementError(f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)


PR_SET_KEEPCAPS = 8
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 47, 2
CAP_DAC_READ_SEARCH = 2
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 63


def drop_to(uid: int, keep_read_search: bool = False):
    """Become ``uid`` (and group ``uid``, no other group) for good: real, effective and saved,
    with no capability; or, with ``keep_read_search`` (under Landlock only, which then decides
    what it may read), CAP_DAC_READ_SEARCH alone, so that a Python in a private folder (pyenv
    under /root) still loads, in this process and in the processes it starts."""
    if keep_read_search:
        for cap in range(_last_capability() + 1):   # nothing else can ever come back, not even by exec
            if cap != CAP_DAC_READ_SEARCH:
                _prctl(PR_CAPBSET_DROP, cap, None, 0, 0)
        _prctl(PR_SET_KEEPCAPS, 1, None, 0, 0)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid or os.getresgid() != (uid, uid, uid):
        raise ConfinementError("the uid did not change")
    if keep_read_search:
        libc = ctypes.CDLL(None, use_errno=True)
        bit = 1 << CAP_DAC_READ_SEARCH
        data = (_CapData * 2)(_CapData(bit, bit, bit), _CapData(0, 0, 0))
        if libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), data) != 0:
            raise ConfinementError(f"capset: {os.strerror(ctypes.get_errno())}")
        _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, ctypes.c_void_p(CAP_DAC_READ_SEARCH), 0, 0)
        _prctl(PR_SET_KEEPCAPS, 0, None, 0, 0)
    if _capabilities() & ~(1 << CAP_DAC_READ_SEARCH if keep_read_search else 0):
        raise ConfinementError("a capability is left")


def _capabilities() -> int:
    """This process's effective and permitted capabilities, OR-ed (from /proc/self/status)."""
    with open("/proc/self/status") as fh:
        fields = dict(line.split(":", 1) for line in fh if ":" in line)
    return int(fields["CapEff"], 16) | int(fields["CapPrm"], 16) | int(fields.get("CapAmb", "0"), 16)


def confine_child(spec: dict):
    """What the grader asked for this submission's child, before any of its code runs:
    {"uid": int or None, "landlock": ABI or 0, "read": [...], "write": [...], "devices": [...],
    "tmp": the private /tmp}. Not dumpable again afterwards (a uid change resets it)."""
    uid = spec.get("uid")
    if uid is not None:
        drop_to(int(uid), keep_read_search=bool(spec.get("landlock")) and bool(spec.get("read_search")))
    if spec.get("landlock"):
        read = [*spec.get("read", ()), "/proc/self/"]
        restrict_paths([os.path.realpath(p) for p in read], list(spec.get("write", ())),
                       list(spec.get("devices", ())), int(spec["landlock"]), list(spec.get("listed", ())))
    tmp = spec.get("tmp")
    if tmp:
        os.environ["TMPDIR"] = os.environ["HOME"] = tmp
        import tempfile
        tempfile.tempdir = tmp
    not_dumpable()


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
