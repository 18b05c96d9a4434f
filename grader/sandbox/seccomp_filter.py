"""The system calls student code may not make, compiled into a seccomp filter.

Grading runs NumPy on arrays; it never needs to look into another process, keep a
kernel object that outlives the process (System V or POSIX IPC, keyrings), mount
or enter namespaces, or talk to the kernel's tracing and module interfaces. Each of
those is how one submission could reach another or the instructor (shared memory
left for the next student, a keyring that outlives the run, an implant ptraced into
a long-lived process). The filter refuses them with EPERM, so student code sees an
ordinary ``PermissionError``; everything else is allowed. Calls that change a process's
limits, priority, CPU affinity, scheduling or I/O priority are allowed on the calling
process only (``OWN_PROCESS_ONLY``): the sandbox's pid 1 outlives every submission.

libseccomp (through pyseccomp, a ctypes binding) compiles the rules into BPF on the
trusted side; the worker only loads the bytes (``grader/sandbox/worker/confine.py``), so the
sandbox needs neither libseccomp's Python binding nor anything else of the grader.
"""

from __future__ import annotations

import errno
import os
import tempfile
from functools import lru_cache
from pathlib import Path

FILTER_NAME = ".seccomp.bpf"

DENIED = (
    # another process's memory, file descriptors or state
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "kcmp",
    # kernel keyrings: the grader's session keyring, the uid's user keyring (outlives every run)
    "keyctl", "add_key", "request_key",
    # System V and POSIX IPC: objects shared by uid that outlive the process
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # memory outside the address-space limit; kernel interfaces grading never uses
    "memfd_create", "memfd_secret", "userfaultfd", "perf_event_open", "bpf",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init",
    # sockets: grading never needs one (the worker's own channels exist before the filter).
    # Without bubblewrap the machine's network is there: UDP and raw sockets get past
    # Landlock's TCP rule, and a socket file such as docker.sock is reachable by path.
    "socket", "socketpair",
    # mounts, namespaces, the root
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "name_to_handle_at", "open_by_handle_at",
    # the machine
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "iopl", "ioperm", "lookup_dcookie", "vhangup",
)

# clone(2) may not make namespaces. clone3(2) passes its flags in memory a filter cannot read:
# it answers ENOSYS, and the C library falls back to clone(2), whose flags are checked.
CLONE_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
# ioctls that push input into a terminal (none is open in the worker, but no terminal is ours to type into)
TTY_INJECTION = (0x5412, 0x541C)   # TIOCSTI, TIOCLINUX

# Process controls: a process may change its own limits, priority, CPU affinity, scheduling and
# I/O priority, never another's. Under bubblewrap the sandbox's pid 1 (the zygote, which outlives
# every submission) has the children's uid, and without bubblewrap in the "landlock" mode the
# child has the grader's: the kernel lets a process of the same uid lower pid 1's hard limits, nice
# it, pin it to one CPU or make it SCHED_IDLE, and every later child inherits that for good (hard
# limits and nice values cannot be raised back without a capability). So the call is refused
# (EPERM) unless it names the calling process as 0, the C library's and Python's own spelling
# (os.nice, resource.setrlimit, os.sched_setaffinity(0, ...), os.setpriority(os.PRIO_PROCESS, 0,
# n)). A filter cannot know the caller's pid, so naming itself by os.getpid() is refused as well.
# Each entry: the call, the argument that names the target, and for calls whose first argument
# says what kind of target that is, the one kind allowed (which=PRIO_PROCESS, IOPRIO_WHO_PROCESS).
# An argument the kernel reads as 32 bits is compared here as 64: a target hidden in the low half
# under a non-zero high half is refused, never let through.
OWN_PROCESS_ONLY = (
    ("setpriority", 1, 0),          # (which, who, prio): PRIO_PROCESS 0 only; PRIO_PGRP and PRIO_USER reach others
    ("ioprio_set", 1, 1),           # (which, who, ioprio): IOPRIO_WHO_PROCESS 0 only; PGRP and USER reach others
    ("sched_setaffinity", 0, None),
    ("sched_setscheduler", 0, None),
    ("sched_setparam", 0, None),
    ("sched_setattr", 0, None),
    ("migrate_pages", 0, None),
    ("move_pages", 0, None),        # (it also only reports where pages are: of another process, refused too)
)
# prlimit64(pid, resource, new, old): reading another's limits (new is NULL) stays allowed
PRLIMIT_TARGET, PRLIMIT_NEW = 0, 2


class SeccompUnavailable(Exception):
    """libseccomp (or its binding) is missing here; the sandbox then is not used."""


MAX_INSTRUCTIONS = 4096   # the kernel's BPF_MAXINSNS: a kept program longer than this is compiled again


def _kept_key() -> str | None:
    """What the compiled filter and keyctl's number depend on: this module's rules, the machine's
    architecture, and the binding and libseccomp found here (by path, size and modification time)."""
    import hashlib
    import importlib.util

    digest = hashlib.sha256(b"seccomp-1\0" + Path(__file__).read_bytes() + os.uname().machine.encode())
    spec = importlib.util.find_spec("pyseccomp")
    if spec is None or not spec.origin:
        return None
    for name in [spec.origin, *_libseccomp_files()]:
        try:
            info = Path(name).stat()
        except OSError:
            continue
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _libseccomp_files() -> list[str]:
    """libseccomp.so* in the loader's usual folders and their multiarch subfolders
    (x86_64-linux-gnu), listed with scandir: not every folder under /usr/lib, and not glob,
    whose pattern matching over them took 16 ms of each run's start."""
    folders = ["/usr/lib", "/lib", "/usr/lib64", "/lib64", "/usr/local/lib"]
    for top in ("/usr/lib", "/lib"):
        try:
            folders += [entry.path for entry in os.scandir(top) if "-linux-" in entry.name and entry.is_dir()]
        except OSError:
            pass
    found = set()
    for folder in folders:
        try:
            found.update(entry.path for entry in os.scandir(folder) if entry.name.startswith("libseccomp.so"))
        except OSError:
            pass
    return sorted(found)


def _kept() -> tuple[Path | None, dict | None]:
    """The compiled filter kept by an earlier run in the cache folder (grader/base/cache_folder.py: the
    grader user's alone, 0700), checked to be whole BPF instructions; None when there is none."""
    import json

    from grader.base.cache_folder import cache_dir

    folder = cache_dir()
    try:
        key = _kept_key() if folder is not None else None
    except OSError:
        key = None
    if key is None:
        return None, None
    path = folder / f"seccomp-{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        bpf = bytes.fromhex(data["bpf"])
        keyctl = data["keyctl"]
        if (type(data) is dict and bpf and len(bpf) % 8 == 0 and len(bpf) // 8 <= MAX_INSTRUCTIONS
                and (keyctl is None or (type(keyctl) is int and 0 <= keyctl < 4096))):
            return path, {"bpf": bpf, "keyctl": keyctl}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return path, None


def _keep(path: Path, bpf: bytes, keyctl: int | None) -> None:
    from grader.base.cache_folder import store_json

    store_json(path, {"bpf": bpf.hex(), "keyctl": keyctl})   # a read-only home: the next run compiles again


@lru_cache(maxsize=1)
def _compiled() -> dict:
    """The filter and keyctl's number, from the cache folder when an earlier run kept them (a run
    then never imports libseccomp's binding), else compiled here and kept."""
    path, kept = _kept()
    if kept is not None:
        return kept
    kept = {"bpf": _compile(), "keyctl": _resolve_keyctl()}
    if path is not None:
        _keep(path, kept["bpf"], kept["keyctl"])
    return kept


def program() -> bytes:
    """The filter as BPF bytes for this machine's architecture."""
    return _compiled()["bpf"]


def _compile() -> bytes:
    try:
        import pyseccomp as sc
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
    except (ImportError, OSError, RuntimeError) as exc:
        raise SeccompUnavailable(f"libseccomp: {exc}") from exc
    denied = sc.ERRNO(errno.EPERM)
    for name in DENIED:
        try:
            rules.add_rule(denied, name)
        except (ValueError, OSError, RuntimeError):
            pass   # not a system call on this architecture
    for flag in CLONE_NAMESPACES:
        rules.add_rule(denied, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for request in TTY_INJECTION:
        rules.add_rule(denied, "ioctl", sc.Arg(1, sc.EQ, request))
    for name, target, kind in OWN_PROCESS_ONLY:
        try:
            rules.add_rule(denied, name, sc.Arg(target, sc.NE, 0))
            if kind is not None:
                rules.add_rule(denied, name, sc.Arg(0, sc.NE, kind))
        except (ValueError, OSError, RuntimeError):
            pass   # not a system call on this architecture
    rules.add_rule(denied, "prlimit64", sc.Arg(PRLIMIT_TARGET, sc.NE, 0), sc.Arg(PRLIMIT_NEW, sc.NE, 0))
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def write_into(folder: Path) -> Path:
    """Put the filter where the worker can read it (the exchange folder, read-only inside)."""
    path = Path(folder) / FILTER_NAME
    data = program()
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
        path.chmod(0o644)
    return path


def _keyctl_number() -> int | None:
    try:
        return _compiled()["keyctl"]
    except SeccompUnavailable:
        return _resolve_keyctl()


@lru_cache(maxsize=1)
def _resolve_keyctl() -> int | None:
    try:
        import pyseccomp as sc
        return sc.resolve_syscall(sc.Arch.NATIVE, "keyctl")
    except (ImportError, OSError, RuntimeError, ValueError):
        return None


def fresh_session_keyring():
    """A callable for between fork and exec: the worker (and bubblewrap) join a new, empty
    session keyring instead of inheriting the grader's, where an instructor may keep tokens.
    Looked up here, in the parent: the callable itself only makes one system call."""
    import ctypes

    number = _keyctl_number()
    if number is None:
        return lambda: None
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    join_session_keyring = 1   # KEYCTL_JOIN_SESSION_KEYRING, with no name: a new anonymous keyring

    def join():
        syscall(number, join_session_keyring, None)

    return join
