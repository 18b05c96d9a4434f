"""How the worker is isolated: bubblewrap when it works here, else the best this machine has.

Under bubblewrap the worker sees a read-only view of the Python runtime with
only numpy in its site-packages, the worker's own files, and the one
submission being graded; a private /tmp; no network, no other process, no
environment. Nothing of the course (solutions, answer key) or of the grader's
state is mounted. As root, bubblewrap keeps every capability inside unless it
is given ``--unshare-user --uid <unprivileged> --cap-drop ALL``, so it always
is. Where a cgroup hierarchy is writable, the whole sandbox also gets a
process and memory ceiling (RLIMIT_NPROC does not bind processes that are
root outside the namespace).

Without bubblewrap (not installed, or a container that forbids its namespaces, as on
Gradescope) each submission's child is still confined before its code runs
(``grader/sandbox/worker/confine.py``), with what the machine allows, and ``isolation`` says which:

* ``landlock+user`` / ``user``: the grader runs as root, so the child becomes a uid of
  its own, drawn at random for each submission and never root, with no capability (under
  Landlock it may keep CAP_DAC_READ_SEARCH, so that a Python other users cannot read still
  loads; Landlock then decides what it reads). Its staged copy is root's, readable by its
  group only; its private /tmp is its own; processes it leaves behind are killed with it. In
  ``user`` mode (no Landlock) the course's ``exercises/``, ``solutions/`` and ``kit/``
  folders lose their permissions for others (``protect_from_others``), so only their owner
  and root read them; every file the run writes is closed to others as it is made
  (``closed_files``: umask 077); and no folder is shared by submissions: the worker gets a
  mount namespace of its own (``confine.private_mounts``: an empty root-owned tmpfs over
  every folder others may write, found by a walk at start-up, every other mount read-only),
  or where mounts are not allowed, what submission uids left in those folders is swept.
* ``landlock+user`` / ``landlock``: the kernel's Landlock confines the child to the
  Python standard library, numpy, the system libraries, its submission and its /tmp; no
  TCP; no signal or abstract unix socket beyond its own processes (Landlock ABI 6).
* ``process``: nothing of the above is possible (not root, no Landlock) or ``--no-sandbox``
  was asked for; only the system-call filter and resource limits apply.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from grader.sandbox.shared_folders import SUBMISSION_UIDS, sweep_leftovers, writable_by_others, _sweep_at_exit
from grader.sandbox.seccomp_filter import SeccompUnavailable, fresh_session_keyring
from grader.sandbox.seccomp_filter import write_into as write_seccomp_filter

WORKER_DIR = Path(__file__).resolve().parent / "worker"
SANDBOX_WORKER_DIR = "/grader-worker"
SANDBOX_EXCHANGE = "/submission"
SANDBOX_UID = 65534
TMP_SIZE = 64 << 20


@dataclass
class Isolation:
    """A way to launch the worker; ``name`` is what reports state."""

    name: str
    prefix: list[str] = field(default_factory=list)   # the command before the Python interpreter
    exchange: Path | None = None                       # host folder seen as SANDBOX_EXCHANGE inside
    sandboxed: bool = False
    reason: str = ""                                   # why a sandbox was not used

    def inside(self, host_path: Path) -> str:
        """The path under which the worker sees ``host_path``."""
        if self.exchange is None:
            return str(host_path)
        relative = Path(host_path).resolve().relative_to(self.exchange.resolve())
        return str(Path(SANDBOX_EXCHANGE) / relative)

    seccomp: Path | None = None                        # the system-call filter the zygote loads (host path)
    # Without bubblewrap: each submission's child drops to a uid of its own (as root), and is
    # landlocked where the kernel can (its Landlock ABI, 0 for none). See confine_spec().
    own_uid: bool = False
    landlock: int = 0
    read_search: bool = False     # the uid keeps CAP_DAC_READ_SEARCH (under Landlock only)
    # The ``user`` mode (a uid, no Landlock) leaves no folder shared by submissions: the worker's
    # own mount namespace (confine.private_mounts; its spec) where the machine allows mounts, else
    # a sweep of every folder other users may write (``sweeps``, see sweep()).
    mounts: dict | None = None
    sweeps: bool = False
    _handed_out: set = field(default_factory=set)   # the uid of the submission staged last (its child is gone)

    @property
    def confined(self) -> bool:
        """Whether student code is kept from the course and other submissions (any mode but "process")."""
        return self.sandboxed or self.own_uid or self.landlock > 0

    def confine_spec(self, root: Path, tmp: Path, uid: int | None) -> dict | None:
        """What the child of the submission staged at ``root`` does to itself (confine.confine_child)."""
        if self.sandboxed or not (self.own_uid or self.landlock):
            return None
        if self.sweeps:   # before a child of a new uid starts: nothing a finished one left is there
            sweep_leftovers(writable_by_others(with_files=True), finished=self._handed_out)
            self._handed_out = {uid} if uid is not None else set()
        spec = {"uid": uid if self.own_uid else None, "tmp": str(tmp), "landlock": self.landlock,
                "read_search": self.read_search and self.landlock > 0}
        if self.landlock:
            read, listed = landlock_paths()
            spec.update(read=[*map(str, read), str(root)], write=[str(tmp)], listed=list(map(str, listed)),
                        devices=["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"])
        return spec

    def worker_args(self) -> list[str]:
        """The zygote's own arguments (after its script); the control socket is added by the runner."""
        args = ["--sandboxed"] if self.sandboxed else []
        if self.mounts is not None:
            args.append("--private-mounts=" + json.dumps(self.mounts))
        if self.seccomp is not None:
            args.append(f"--seccomp={self.inside(self.seccomp)}")
        return args

    def worker_script(self) -> str:
        if self.sandboxed:
            return f"{SANDBOX_WORKER_DIR}/zygote.py"
        return str(WORKER_DIR / "zygote.py")

    def sweep(self, uid: int | None = None) -> list[str]:
        """In the ``user`` mode without a mount namespace: remove what submissions' uids left in
        every folder other users may write (found at start-up, :func:`writable_by_others`), of
        ``uid`` or of every submission uid with no process left; report (stderr) what could not
        be removed and every file writable by others that changed. Returns those problems."""
        if not self.sweeps:
            return []
        return sweep_leftovers(writable_by_others(with_files=True), uid)


@lru_cache(maxsize=None)
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _site_dirs() -> list[Path]:
    """Every folder packages are installed in: this interpreter's, and in a virtual
    environment also the base interpreter's (its runtime is bound too)."""
    dirs = list(site.getsitepackages())
    user = site.getusersitepackages()
    dirs += [user] if isinstance(user, str) else list(user)
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)):
        paths = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix})
        dirs += [paths["purelib"], paths["platlib"]]
        for lib in (Path(prefix) / "lib").glob("python*"):
            dirs += [str(lib / "site-packages"), str(lib / "dist-packages")]
    return [Path(d) for d in dict.fromkeys(dirs) if Path(d).is_dir()]


def _numpy_dirs() -> list[Path]:
    # found, not imported: the worker starts before the grading process imports numpy (launch.py)
    package = Path(importlib.util.find_spec("numpy").origin).resolve().parent
    libs = package.parent / "numpy.libs"    # the wheel's bundled BLAS
    # and the course's display-only packages (matplotlib) where installed (grader/sandbox/display_packages.py)
    from grader.sandbox.display_packages import bound_dirs
    return [package] + ([libs] if libs.is_dir() else []) + bound_dirs()


def bwrap_command(exchange: Path, hidden: list[Path] = ()) -> list[str]:
    """The bubblewrap prefix that runs the worker; the interpreter path follows it."""
    # --as-pid-1: the zygote is the namespace's pid 1, not bubblewrap's reaper. The kernel then
    # drops every signal from inside that the zygote does not handle (SIGKILL included), and pid 1
    # is a non-dumpable process nobody in the sandbox can trace or open /proc/1/mem of.
    args = [bwrap_path(), "--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL",
            "--die-with-parent", "--new-session", "--clearenv",
            "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
    # System libraries (libc, libm...). /usr/bin and /bin only if the interpreter lives there.
    for system in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/lib32"):
        args += ["--ro-bind-try", system, system]
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    for root in sorted(roots):
        args += ["--ro-bind", str(root), str(root)]
    executable = Path(sys.executable)
    for path in (executable, executable.resolve()):
        if not any(_within(path, r) for r in roots):
            args += ["--ro-bind", str(path), str(path)]
    # Hide every site-packages (the grader and its course may be installed there),
    # then put numpy, and only numpy, back.
    masks = []
    for directory in _site_dirs():
        if any(_within(directory, r) for r in roots) or directory.is_relative_to("/usr"):
            args += ["--tmpfs", str(directory)]
            masks.append(str(directory))
    for directory in _numpy_dirs():
        args += ["--ro-bind", str(directory), str(directory)]
    # Anything of the course that would still be visible through a bound folder is masked.
    for path in hidden:
        path = Path(path).resolve()
        if path.exists() and any(_within(path, r) for r in roots | {Path("/usr"), Path("/lib")}):
            args += ["--tmpfs", str(path)]
            masks.append(str(path))
    args += ["--ro-bind", str(WORKER_DIR), SANDBOX_WORKER_DIR,
             "--ro-bind", str(exchange), SANDBOX_EXCHANGE]
    # Nothing but the private /tmp is writable: no file planted in /, /dev/shm or a masked
    # site-packages can outlive a submission (the worker empties /tmp between exercises and submissions).
    for mask in masks:
        args += ["--remount-ro", mask]
    args += ["--remount-ro", "/dev", "--remount-ro", "/",
             "--chdir", "/tmp",
             "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
             "--setenv", "PATH", "/usr/bin:/bin",
             "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
             "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "PYTHONHASHSEED", "0",
             "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):   # needed for correct BLAS on some CPUs
        if name in os.environ:
            args += ["--setenv", name, os.environ[name]]
    return args


def _within(path: Path, root: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False


def probe_bwrap(exchange: Path) -> str:
    """'' when a sandboxed interpreter starts as pid 1, confines itself with the system-call
    filter and imports numpy here, else why not."""
    if bwrap_path() is None:
        return "bubblewrap is not installed"
    try:
        bpf = write_seccomp_filter(exchange)
    except SeccompUnavailable as exc:
        return f"no system-call filter ({exc})"
    probe = f"{SANDBOX_WORKER_DIR}/confine.py"
    command = bwrap_command(exchange) + [sys.executable, "-I", probe, f"{SANDBOX_EXCHANGE}/{bpf.name}"]
    try:
        proc = subprocess.run(command, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start ({exc})"
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap could not start ({detail[-1] if detail else proc.returncode})"
    return ""


def choose_isolation(exchange: Path, mode: str = "auto", hidden: list[Path] = ()) -> Isolation:
    """``mode``: "none", or "auto"/"sandbox": bubblewrap when it works here, else the
    confinement this machine allows (callers that require one check ``confined``)."""
    try:   # plain processes load the filter too, where there is one
        seccomp = write_seccomp_filter(exchange)
    except SeccompUnavailable:
        seccomp = None
    if mode == "none":
        return Isolation("process", reason="sandbox disabled", seccomp=seccomp)
    reason = sandbox_unavailable()
    if reason:
        return fallback_isolation(reason, seccomp, exchange)
    return Isolation("bubblewrap", prefix=bwrap_command(exchange, hidden), exchange=exchange, sandboxed=True,
                     seccomp=seccomp)


def fallback_isolation(reason: str, seccomp: Path | None, exchange: Path | None = None) -> Isolation:
    """Without bubblewrap: a uid of the submission's own when we are root (and that uid can
    run this Python), Landlock where the kernel has it (see the module's docstring). For a
    worker (``exchange``: its folder) in the ``user`` mode, also a mount namespace of its own
    or, where mounts are not allowed, the sweep."""
    root = os.geteuid() == 0
    abi = landlock_available()
    readable = root and another_uid_can_run_python()
    # Under Landlock a uid may keep CAP_DAC_READ_SEARCH (Landlock still decides what it reads),
    # so a Python other users cannot read (pyenv under /root) does not leave the child root.
    own_uid = readable or (root and bool(abi))
    name = "+".join(["landlock"] * bool(abi) + ["user"] * own_uid) or "process"
    if root and not own_uid:
        reason += "; no uid of its own: this Python is not readable by other users"
    isolation = Isolation(name, reason=reason, seccomp=seccomp, own_uid=own_uid, landlock=abi,
                          read_search=own_uid and not readable)
    if own_uid and not abi and exchange is not None:
        if private_mounts_unavailable():
            isolation.sweeps = True
            isolation.sweep()      # what earlier runs' submissions left (a run killed with kill -9)
            _sweep_at_exit()       # and what the last ones of this run leave
        else:
            isolation.mounts = mount_spec(exchange)
    return isolation




@lru_cache(maxsize=None)
def another_uid_can_run_python() -> bool:
    """Whether a uid with no account starts this interpreter and imports numpy and the standard
    library: not when Python lives in a private folder (pyenv under /root)."""
    uid = SUBMISSION_UIDS - 1
    try:
        proc = subprocess.run([sys.executable, "-I", "-c", "import json, decimal, fractions, numpy, numpy.linalg"],
                              user=uid, group=uid, extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin"},
                              capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        return proc.returncode == 0
    except (OSError, ValueError, subprocess.SubprocessError):
        return False


@lru_cache(maxsize=None)
def landlock_available() -> int:
    """The Landlock ABI a child of the worker can use here (0: none), probed once a process."""
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import confine; "
             "abi = confine.landlock_abi(); abi and confine.restrict_paths([sys.argv[1]], [], [], abi); print(abi)")
    try:
        proc = subprocess.run([sys.executable, "-I", "-c", probe, str(WORKER_DIR)], capture_output=True,
                              timeout=30, stdin=subprocess.DEVNULL, text=True)
        return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0


@lru_cache(maxsize=None)
def landlock_paths() -> tuple[list[Path], list[Path]]:
    """What a landlocked child may read: the standard library (without any site-packages
    inside it), numpy, the system libraries and the interpreter (its shared library, a
    virtual environment's pyvenv.cfg, so that a subprocess of Python starts too); and the
    folders it may only list. Never a file of the grader's package, the course or another
    submission."""
    paths: list[Path] = []
    listed: list[Path] = []
    sites = [d.resolve() for d in _site_dirs()]
    for name in ("stdlib", "platstdlib"):
        stdlib = Path(sysconfig.get_paths()[name]).resolve()
        if any(_within(site_dir, stdlib) for site_dir in sites):
            # Landlock cannot take a folder back: its entries but those, and the folder listed
            # (imports list a folder before they look for a module in it).
            paths += [child for child in sorted(stdlib.iterdir()) if not any(_within(d, child) for d in sites)]
            listed.append(stdlib)
        else:
            paths.append(stdlib)
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir and Path(libdir).is_dir():
        paths += sorted(Path(libdir).glob("libpython*"))
    paths += [Path(sys.prefix) / "pyvenv.cfg"]
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for system in ("/lib64", "/usr/lib64", "/usr/lib32", f"/lib/{multiarch}", f"/usr/lib/{multiarch}",
                   "/usr/share/zoneinfo", "/etc/ld.so.cache", "/etc/localtime"):
        if multiarch or not system.endswith("/"):
            paths.append(Path(system))
    executable = Path(sys.executable)
    paths += [executable, executable.resolve(), *_numpy_dirs()]
    return [p for p in dict.fromkeys(paths) if p.exists()], [p for p in dict.fromkeys(listed) if p.exists()]


def landlock_read_paths() -> list[Path]:
    return landlock_paths()[0]


def protect_from_others(paths: list[Path]) -> list[Path]:
    """Take away the permissions "others" have on each folder or file (read, write, enter):
    without Landlock, that is what keeps a child of its own uid out. The course's own
    folders, not the course root: that may be the grader's source tree, which stays readable."""
    changed = []
    for path in paths:
        path = Path(path)
        parts = [path / name for name in ("exercises", "solutions", "kit")] if (path / "exercises").is_dir() else [path]
        for part in parts:
            try:
                mode = stat.S_IMODE(part.stat().st_mode)
                if mode & 0o007:
                    os.chmod(part, mode & ~0o007)
                    changed.append(part)
            except OSError:
                pass
    return changed


# ---------------------------------------------------------------- the ``user`` mode: no shared folder, no open file


def mount_spec(exchange: Path, cover: list[str] | None = None) -> dict:
    """What confine.private_mounts does in the worker: an empty tmpfs over every folder others may
    write, /tmp included; what the worker needs that lies beneath one bound back (its exchange
    folder writable, the Python runtime, numpy and the worker's own files read-only)."""
    keep = [WORKER_DIR, Path(sys.executable).parent, Path(sys.executable).resolve().parent, *_numpy_dirs()]
    keep += [Path(p) for p in dict.fromkeys((sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix))]
    keep += [Path(sysconfig.get_paths()[name]) for name in ("stdlib", "platstdlib")]
    libdir = sysconfig.get_config_var("LIBDIR")
    keep += [Path(libdir)] if libdir else []
    cover = writable_by_others().folders if cover is None else cover
    return {"cover": sorted({"/tmp", *cover}),
            "keep": [str(p.resolve()) for p in dict.fromkeys(keep) if p.is_dir()],
            "writable": [str(Path(exchange).resolve())], "tmp_size": TMP_SIZE}


@lru_cache(maxsize=None)
def private_mounts_unavailable() -> str:
    """'' when a worker can make its own mount namespace here (root, and mounts allowed: not in a
    container without CAP_SYS_ADMIN), else why not; probed once a process, as the worker does it."""
    if os.geteuid() != 0:
        return "not root"
    probe = ("import json, os, sys; sys.path.insert(0, sys.argv[1]); import confine; "
             "confine.private_mounts(json.loads(sys.argv[2])); import numpy; "
             "open(os.path.join(sys.argv[3], 'seen'), 'w').close()")
    with tempfile.TemporaryDirectory(prefix="grade-probe-") as folder:
        spec = mount_spec(Path(folder), cover=["/tmp"])   # whether mounts are allowed, without the walk
        try:
            proc = subprocess.run([sys.executable, "-I", "-c", probe, str(WORKER_DIR), json.dumps(spec), folder],
                                  capture_output=True, timeout=60, stdin=subprocess.DEVNULL, cwd="/")
        except (OSError, subprocess.SubprocessError) as exc:
            return f"no private mounts ({exc})"
        if proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"no private mounts ({detail[-1] if detail else proc.returncode})"
        if not (Path(folder) / "seen").is_file():
            return "no private mounts (the exchange folder was not bound back)"
    return ""




def students_read_by_permissions(mode: str = "auto") -> bool:
    """Whether file permissions alone keep student code from the grader's files here: the ``user``
    mode (bubblewrap unavailable, as root a uid of the submission's own, no Landlock). Every file
    the run writes must then be closed to others from the moment it is made (:func:`closed_files`)."""
    if mode == "none":
        return False
    reason = sandbox_unavailable()
    if not reason:
        return False
    fallback = fallback_isolation(reason, None)
    return fallback.own_uid and not fallback.landlock


@contextlib.contextmanager
def closed_files(active: bool):
    """While ``active``: umask 077, so every file and folder this process and its children make
    (the gradebook and its journal, WAL and shared-memory files, feedback, reports, caches,
    temporary files) is its owner's alone from the moment it exists; and no bytecode written (a
    __pycache__ made under that umask would shut other users out of a shared library's cache)."""
    if not active:
        yield
        return
    mask, bytecode = os.umask(0o077), sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        os.umask(mask)
        sys.dont_write_bytecode = bytecode


def confinement_unavailable() -> str:
    """Why student code could not be kept from the course and other submissions here: neither
    bubblewrap nor a fallback of grader/sandbox/worker/confine.py works ('' when one does)."""
    reason = sandbox_unavailable()
    if not reason or fallback_isolation(reason, None).confined:
        return ""
    return f"{reason}; not root, and no Landlock in this kernel"


_PROBE_LOCK = threading.Lock()
_ANSWER: list[str] = []          # the probe's answer, once known
_HELLO: list = []                # how to wait for a spare worker's hello (grader/sandbox/launch.py)


def sandbox_unavailable() -> str:
    """Why bubblewrap cannot run the worker on this machine ('' when it can); known once a process.
    Where `grade check` started its worker before loading the course (grader/sandbox/launch.py),
    that worker's hello is the answer: its start did what the probe does. Otherwise (or when
    it failed, to learn why) bubblewrap is probed. Thread-safe: a later caller waits."""
    with _PROBE_LOCK:
        if not _ANSWER:
            started = bool(_HELLO) and _HELLO[-1]()
            if started:
                _ANSWER.append("")
            else:
                with tempfile.TemporaryDirectory(prefix="grade-probe-") as empty:
                    _ANSWER.append(probe_bwrap(Path(empty)))
        return _ANSWER[0]


def answer_from(hello) -> None:
    """``hello()``: waits for a spare worker's first message, True if it came (launch.py)."""
    _HELLO.append(hello)


def worker_preexec(cgroup):
    """What the worker's process does between fork and exec: enter the sandbox's cgroup, and
    leave the grader's session keyring for a fresh one."""
    join_keyring = fresh_session_keyring()

    def prepare():
        if cgroup is not None:
            cgroup.enter()
        join_keyring()

    return prepare
