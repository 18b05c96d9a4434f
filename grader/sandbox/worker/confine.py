"""What the worker does to itself before any student code can run.

- ``no_new_privs`` and the system-call filter the grader compiled
  (``grader/sandbox/seccomp_filter.py``): loaded with prctl, which binds the calling thread
  and every process and thread it starts, so it runs before numpy (and its BLAS
  threads) is imported. Filters are inherited and cannot be removed.
- not dumpable: nobody else of the same uid may ptrace us or open our
  ``/proc/<pid>/mem``, ``fd`` or ``environ``; the zygote's children inherit it.
- without bubblewrap (``confine_child``, in each child before the student's code): as
  root, an unprivileged uid of the submission's own; and, where the kernel has Landlock,
  a file system that is only the Python runtime, numpy, the submission and a private
  /tmp, no TCP, and no signal or abstract socket beyond the child's own processes.
- without bubblewrap or Landlock, as root (``private_mounts``, at the zygote's start, before
  the filter, which refuses mount and unshare): a mount namespace of the worker's own where
  every folder others may write is an empty root-owned tmpfs and every other mount but the
  exchange folder is read-only, so no submission leaves anything for another.

Standard library only: this runs inside the sandbox. Run as a script
(``python -I confine.py FILTER``), it is the sandbox probe: it confines itself,
imports numpy and checks that a refused call is refused.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
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
    """The zygote's start: ``--private-mounts=JSON`` first gives the worker its own mount
    namespace (:func:`private_mounts`; the filter refuses mount and unshare afterwards), then
    ``--seccomp=PATH`` loads the filter. Either failing ends the worker, so student code never
    runs less confined than the grader chose."""
    for arg in argv:
        if arg.startswith("--private-mounts="):
            try:
                private_mounts(json.loads(arg.split("=", 1)[1]))
            except (OSError, ValueError, ConfinementError) as exc:
                sys.stderr.write(f"worker: cannot make its private mounts: {exc}\n")
                os._exit(78)
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


# ---------------------------------------------------------------- a private mount namespace (uid mode, no Landlock)

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE = 1 << 10, 1 << 11, 1 << 12, 1 << 14, 1 << 18
MS_RELATIME, MS_STRICTATIME = 1 << 21, 1 << 24
_KEPT_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
               "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME, "strictatime": MS_STRICTATIME}
_PSEUDO = ("/proc",)     # left as they are: per-process files, each process's own


def _mount(source, target: str, fstype, flags: int, data=None):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

    def raw(value):
        return None if value is None else os.fsencode(value)

    if libc.mount(raw(source), raw(target), raw(fstype), flags, raw(data)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _mount_table() -> list[tuple[str, int]]:
    """Every mount point of this namespace (unescaped) and the per-mount flags to keep."""
    table = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) < 6:
                continue
            target = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])   # \040 is a space
            flags = 0
            for option in fields[5].split(","):
                flags |= _KEPT_FLAGS.get(option, 0)
            table.append((target, flags))
    return table


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _make_folders(path: str):
    """``path``'s folders, each 0755 whatever the umask (the way to the exchange is walked by
    the submission's uid), where a tmpfs just made them vanish."""
    if os.path.isdir(path):
        return
    _make_folders(os.path.dirname(path))
    os.mkdir(path)
    os.chmod(path, 0o755)


def private_mounts(spec: dict):
    """Run as root in the zygote, before the filter: a mount namespace of the worker's own
    (the zygote and every child it forks), propagation private, where

    * every folder in ``spec["cover"]`` (each folder other users may write, found by the
      grader at start-up, and always /tmp) is an empty tmpfs owned by root, mode 0755;
    * the folders of ``spec["keep"]`` found beneath one of them (the worker's exchange folder,
      a Python or the worker living under /tmp) are bound back at their own path;
    * every other mount is read-only, except /proc, /tmp's tmpfs (the zygote's capture files,
      root's alone) and the folders of ``spec["writable"]`` (the exchange, whose per-submission
      /tmp belongs to the submission's uid).

    A student uid then writes nothing that outlives its submission: no folder it could leave
    a file in for another student exists (not even one the start-up walk did not find), and
    nothing left on the machine before shows through the covered folders."""
    keep = [os.path.abspath(p) for p in spec.get("keep", ())]
    writable = [os.path.abspath(p) for p in spec.get("writable", ())]
    cover = sorted({os.path.abspath(p) for p in spec.get("cover", ())} | {"/tmp"})
    cover = [c for c in cover if not any(o != c and _within(c, o) for o in cover)]   # the top-most only
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        raise ConfinementError(f"unshare: {os.strerror(ctypes.get_errno())}")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    handles = {}   # opened in the new namespace: a bind's source must be one of its own mounts
    try:
        for path in dict.fromkeys(keep + writable):
            if any(_within(path, c) for c in cover) or path in writable:
                handles[path] = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        for folder in cover:
            if not os.path.isdir(folder) or os.path.islink(folder):
                continue
            size = spec.get("tmp_size", 64 << 20) if folder == "/tmp" else 1 << 16
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, f"mode=0755,size={size}")
        for path in sorted(handles, key=len):
            _make_folders(path)
            _mount(f"/proc/self/fd/{handles[path]}", path, None, MS_BIND | MS_REC)
    finally:
        for fd in handles.values():
            os.close(fd)
    for target, flags in _mount_table():
        if target == "/tmp" or target in writable or any(_within(target, p) for p in _PSEUDO):
            continue
        try:
            _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except OSError as exc:
            if exc.errno not in (2, 20):     # ENOENT, ENOTDIR: a mount now under a covered folder
                raise
    os.chdir("/")


def sandbox_problem() -> str:
    """What is wrong with this process as the sandbox's worker ('' when nothing): the filter must
    refuse a call it refuses (shmget: EPERM) and we must be our PID namespace's pid 1. Checked by
    the probe and, before it says hello, by the sandboxed zygote (grader/sandbox/launch.py)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0, 4096, 0o1600) != -1 or ctypes.get_errno() != 1:   # IPC_PRIVATE; EPERM expected
        return "the system-call filter does not refuse shmget"
    if os.getpid() != 1:
        return "the worker is not its namespace's pid 1"
    return ""


def _probe(path: str) -> int:
    load_filter(path)
    not_dumpable()
    import numpy  # noqa: F401 -- the worker's one dependency must load under the filter

    problem = sandbox_problem()
    if problem:
        sys.stderr.write(problem + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_probe(sys.argv[1]))
