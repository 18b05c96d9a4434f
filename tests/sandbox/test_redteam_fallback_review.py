"""Red team review of the fallback without bubblewrap (commit 493aced), as root.

Like tests/sandbox/test_redteam_without_bubblewrap.py, bubblewrap is made unavailable and the
reference's rnn_step.py first runs an attack at import; what it prints is read back from the
report. Every test asserts the safe outcome. The review found that in the "landlock" mode
(root in a Landlock domain, no uid: a Python under /root) the child kept root's powers that
Landlock does not cover: capabilities, device nodes in its /tmp, raw and UDP sockets, other
processes' limits, metadata of files outside its reach, a deep chain of sessions outliving its
submission; and that the uid-only staging showed files to others for a moment. Each of these
failed before the fix: a uid of its own (with at most CAP_DAC_READ_SEARCH, under Landlock), no
device rights in its /tmp, no socket at all, a sweep of the whole tree, staging in a closed folder.
"""

from __future__ import annotations

import ast
import os
import resource
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import ROOT, copy_reference

from grader.sandbox import isolation as sandbox
from grader.sandbox.client import Worker
from grader.submission.load import load_submission
# the attack helpers of both red-team files without bubblewrap (the fallback_grader fixture is in conftest.py)
from helpers.sandbox import output_of, submit

FALLBACK = sandbox.fallback_isolation("bubblewrap made unavailable", None)
# uid-fallback: as root without bubblewrap, submission uids (and, without private mounts, sweeps of every folder
# others may write) that another such run on the machine would see: these modules run one test at a time
pytestmark = [pytest.mark.skipif(not FALLBACK.confined,
                                 reason="neither root nor Landlock here: nothing to fall back to"),
              pytest.mark.xdist_group("uid-fallback")]
# The grader runs as root: its child must hold no root power (uid 0 or capabilities) that Landlock
# does not cover. On a machine whose Python other uids cannot read the mode is "landlock" and the
# child stays root with every capability: those tests fail there.
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the grader does not run as root here")
CAP_DAC_READ_SEARCH = 1 << 2


TRY = '''
def _try(name, f):
    try:
        print("WORKED", name, repr(f())[:120])
    except Exception as exc:
        print("DENIED", name, type(exc).__name__)
'''


# ---------------------------------------------------------------- stopped (regression tests)

def test_inherited_descriptors_and_proc_links_lead_nowhere(fallback_grader, tmp_path):
    """Every open descriptor is the child's own (its pipes, its capture, /dev/null); /proc/self's
    magic links, io_uring, file handles and unix sockets do not reach past Landlock and the filter."""
    secret = ROOT / "solutions" / "reference" / "answers.yaml"
    attack = TRY + f'''
import ctypes, os, socket, stat
_kinds = []
for _fd in range(256):
    try:
        _st = os.fstat(_fd)
    except OSError:
        continue
    _kinds.append((_fd, stat.S_IFMT(_st.st_mode), _st.st_ino))
print("FDS", sorted(set(k for _, k, _ in _kinds)) == sorted({{stat.S_IFCHR, stat.S_IFREG, stat.S_IFIFO}}) and len(_kinds) <= 6)
_try("proc-root", lambda: open("/proc/self/root" + {str(secret)!r}).read())
_try("proc-cwd-up", lambda: open("/proc/self/cwd/../../../" + {str(secret)!r}).read())
_try("proc-fd-dir", lambda: [os.readlink("/proc/self/fd/%d" % fd) for fd in range(3)] and os.listdir("/proc/self/fd/3"))
_try("proc-zygote-environ", lambda: open("/proc/%d/environ" % os.getppid()).read())
_try("proc-zygote-fd", lambda: os.listdir("/proc/%d/fd" % os.getppid()))
_try("proc-zygote-mem", lambda: open("/proc/%d/mem" % os.getppid(), "rb"))
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
def _sys(number, *args):
    if _libc.syscall(number, *args) < 0:
        raise OSError(ctypes.get_errno(), "refused")
    return "made"
_try("io_uring_setup", lambda: _sys(425, 8, ctypes.create_string_buffer(120)))
_try("name_to_handle_at", lambda: _sys(303, -100, b"/", ctypes.create_string_buffer(136), ctypes.byref(ctypes.c_int()), 0))
_try("open_by_handle_at", lambda: _sys(304, -100, ctypes.create_string_buffer(136), 0))
_try("ptrace-attach-zygote", lambda: _sys(101, 16, os.getppid(), 0, 0))
_try("pidfd_send_signal-zygote", lambda: _sys(424, os.pidfd_open(os.getppid()), 18, None, 0))   # SIGCONT
_try("unix-socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
_try("unix-socketpair", lambda: socket.socketpair(socket.AF_UNIX))
_try("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
_try("packet", lambda: socket.socket(17, socket.SOCK_RAW, 0))
_tmp = os.environ["TMPDIR"]
_try("symlink-out", lambda: (os.symlink({str(secret)!r}, _tmp + "/l"), open(_tmp + "/l").read()))
_try("hardlink-out", lambda: (os.link({str(secret)!r}, _tmp + "/h"), open(_tmp + "/h").read()))
_try("hardlink-own-file", lambda: os.link(os.path.abspath("rnn_step.py"), _tmp + "/h2"))
_try("tmp-parent", lambda: os.listdir(_tmp + "/.."))
_try("chroot", lambda: os.chroot(_tmp))
'''  # noqa: E501 -- the attack's code, one call a line
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert "FDS True" in out, out
    assert "WORKED" not in out and out.count("DENIED") == 20, out


def test_kill_minus_one_reaches_nothing_outside(fallback_grader, tmp_path):
    """kill(-1, SIGCONT) from the child: the grader (this process) gets nothing."""
    got = []
    previous = signal.signal(signal.SIGCONT, lambda *_: got.append(1))
    try:
        attack = "import os, signal\ntry:\n    os.kill(-1, signal.SIGCONT); print('SENT')\nexcept OSError as e:\n    print('DENIED', e)\n"  # noqa: E501 -- the attack's code
        out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
        time.sleep(0.2)
    finally:
        signal.signal(signal.SIGCONT, previous)
    assert not got, out


# ---------------------------------------------------------------- still working in the "landlock" mode

@as_root
def test_the_child_keeps_no_capability(fallback_grader, tmp_path):
    """Root kept in a Landlock domain still holds every capability: what Landlock does not
    cover (device nodes, raw sockets, other processes' limits, file metadata) is then open.
    Dropping the capabilities alone is not enough: uid 0 still owns root's files (chmod, utime)
    and may prlimit root's processes. At most CAP_DAC_READ_SEARCH, under Landlock, for a uid of
    its own to read a Python under /root."""
    attack = "import os\nprint('UID', os.getuid(), os.geteuid(), [l.split()[1] for l in open('/proc/self/status').read().splitlines() if l.startswith(('CapEff', 'CapPrm', 'CapAmb'))])\n"  # noqa: E501 -- the attack's code
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    line = next(row for row in out.splitlines() if row.startswith("UID"))
    uid, euid, caps = line.split(None, 3)[1], line.split(None, 3)[2], ast.literal_eval(line.split(None, 3)[3])
    allowed = CAP_DAC_READ_SEARCH if FALLBACK.landlock else 0
    assert uid != "0" and euid != "0" and all(int(c, 16) & ~allowed == 0 for c in caps), out


@as_root
def test_no_device_node_in_its_tmp(fallback_grader, tmp_path):
    """mknod of /dev/kmsg's numbers in its private /tmp reads the kernel log (syslog(2) is
    refused by the filter); a block device's numbers would read the disk where the device
    cgroup does not forbid it."""
    attack = TRY + '''
import os, stat
_tmp = os.environ["TMPDIR"]
_try("mknod-kmsg", lambda: os.mknod(_tmp + "/kmsg", stat.S_IFCHR | 0o600, os.makedev(1, 11)))
_try("read-kmsg", lambda: os.read(os.open(_tmp + "/kmsg", os.O_RDONLY | os.O_NONBLOCK), 8192)[:40])
_try("mknod-loop0", lambda: os.mknod(_tmp + "/loop0", stat.S_IFBLK | 0o600, os.makedev(7, 0)))
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert "WORKED" not in out, out


@as_root
def test_no_raw_socket_sniffs_the_machines_traffic(fallback_grader, tmp_path):
    """A raw TCP socket (CAP_NET_RAW; the filter refuses only unix, netlink and packet sockets)
    sees other processes' loopback TCP traffic: here, this test's own connection."""
    marker = f"SNIFFED-{uuid.uuid4().hex[:12]}"
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def chatter():
        peer = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
        while not stop.is_set():
            peer.sendall(f"password={marker}\n".encode())
            conn.recv(4096)
            time.sleep(0.02)
        peer.close()
        conn.close()

    thread = threading.Thread(target=chatter, daemon=True)
    thread.start()
    attack = '''
import socket, time
try:
    _raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    _raw.settimeout(0.2)
    _seen, _end = b"", time.monotonic() + 1.5
    while time.monotonic() < _end and b"SNIFFED-" not in _seen:
        try:
            _seen += _raw.recv(65535)
        except OSError:
            pass
    _i = _seen.find(b"SNIFFED-")
    print("SNIFF", _seen[_i:_i + 20].decode() if _i >= 0 else "nothing")
except OSError as exc:
    print("DENIED raw", type(exc).__name__)
'''
    try:
        out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    finally:
        stop.set()
        thread.join(5)
        server.close()
    assert marker not in out and "DENIED raw" in out, out


@as_root
def test_no_udp_out(fallback_grader, tmp_path):
    """Landlock refuses TCP only: UDP reaches any address (a local service, or a student's
    server abroad, where hidden test inputs could be sent)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(3)
    attack = f'''
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"UDP-OUT", ("127.0.0.1", {listener.getsockname()[1]}))
    print("SENT udp")
except OSError as exc:
    print("DENIED udp", type(exc).__name__)
'''
    try:
        out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
        try:
            received = listener.recv(100)
        except TimeoutError:
            received = b""
    finally:
        listener.close()
    assert received != b"UDP-OUT" and "DENIED udp" in out, out


@as_root
def test_no_change_to_another_process_limits_or_priority(fallback_grader, tmp_path):
    """prlimit(2) and setpriority(2) are no Landlock matter: the child lowers the grader's own
    limits (RLIMIT_CPU would kill it, RLIMIT_AS starve it, and later students' children too)."""
    which = resource.RLIMIT_MSGQUEUE        # harmless to lower here, restored afterwards
    before = resource.getrlimit(which)
    attack = TRY + f'''
import os, resource
_try("prlimit-grader", lambda: resource.prlimit({os.getpid()}, resource.RLIMIT_MSGQUEUE, (12345, {before[1]})))
_try("setpriority-zygote", lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(), os.getpriority(os.PRIO_PROCESS, os.getppid())))
'''  # noqa: E501 -- the attack's code, one call a line
    try:
        out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
        after = resource.getrlimit(which)
    finally:
        resource.setrlimit(which, before)
    assert after == before and "WORKED" not in out, (after, out)


@as_root
def test_no_change_to_metadata_outside_its_reach(fallback_grader, tmp_path):
    """Landlock does not govern chmod, chown, utime or extended attributes: as root the child
    opens a 0600 file of the grader's to everyone (here a stand-in for the course secret)."""
    secret = tmp_path / "private" / "secret"
    secret.parent.mkdir()
    secret.write_text("course secret")
    os.chmod(secret, 0o600)
    stamp = os.stat(secret).st_mtime_ns
    attack = TRY + f'''
import ast
import os
_p = {str(secret)!r}
_try("chmod", lambda: os.chmod(_p, 0o644))
_try("chown", lambda: os.chown(_p, 4242, 4242))
_try("utime", lambda: os.utime(_p, (0, 0)))
_try("setxattr", lambda: os.setxattr(_p, "user.planted", b"1"))
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    st = os.stat(secret)
    assert (st.st_mode & 0o777, st.st_uid, st.st_mtime_ns) == (0o600, 0, stamp), out
    assert "WORKED" not in out, out


def test_a_deep_chain_of_processes_does_not_outlive_its_submission(fallback_grader, tmp_path):
    """sweep_children kills the zygote's children 64 rounds a sweep at most; a chain of 200
    nested processes, each in a session of its own (the zygote's killpg misses it) and each
    one's parent still alive, loses one level a round: the deepest outlive the submission, and
    the worker itself (then they are init's, root and landlocked, for as long as they like).
    With a uid of its own sweep_uid kills them; root in Landlock has no such sweep."""
    attack = '''
import os, time
_once = os.path.join(os.environ["TMPDIR"], "chain")
if not os.path.exists(_once):          # the module is imported again for the hidden checks
    open(_once, "w").close()
    _r, _w = os.pipe()
    if os.fork() == 0:
        os.close(_r)
        for _level in range(200):
            os.setsid()
            if os.fork():
                os.close(_w)
                time.sleep(60)
                os._exit(0)
        os.close(_w)
        time.sleep(60)
        os._exit(0)
    os.close(_w)
    os.read(_r, 1)                      # EOF: every level has forked its child
    os.close(_r)
'''
    worker = fallback_grader.worker
    try:
        # With a uid of its own the process limit binds: the chain may stop early (EAGAIN), which
        # costs the student the exercise; either way nothing may be left afterwards.
        fallback_grader.grade(load_submission(submit(tmp_path, attack), tmp_path / "work"), ["step"])
        zygote = worker._proc.pid
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _forked_from(worker, zygote):
            time.sleep(0.05)
        left = _forked_from(worker, zygote)
    finally:
        for pid in _forked_from(worker, worker._proc.pid if worker._proc else -1):
            try:                        # this test's own attack's processes, by pid
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    assert not left, f"{len(left)} processes of the chain outlived their submission"


def _forked_from(worker, zygote: int) -> list[int]:
    """Live processes forked from this worker's zygote (they share its command line), but it."""
    needle = str(worker._exchange).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == zygote:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if needle not in fh.read():
                    continue
            with open(f"/proc/{entry}/stat") as fh:
                if fh.read().split(") ", 1)[1][0] in "ZX":
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(entry))
    return found


# ---------------------------------------------------------------- the uid-only mode's staging (no child is run)

@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own needs root")
def test_uid_mode_staging_never_shows_a_submission_to_others(monkeypatch, tmp_path):
    """Worker.staged() used to make every staged file 0644 (folders 0755) before it chowned them
    to the submission's uid: in between, any uid (a concurrent submission's child, in `grade
    class --jobs N`) that opened /tmp/grade-exchange-*/s<N>/... read them (the exchange is 0711,
    s<N> counts up). And a staged file was a hard link of the grader's own copy: the chown
    handed that copy to the student's uid, which could chmod it back and rewrite it."""
    monkeypatch.setattr(sandbox, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    monkeypatch.setattr(sandbox, "another_uid_can_run_python", lambda: True)
    monkeypatch.setattr(sandbox, "landlock_available", lambda: 0)
    source = copy_reference(tmp_path / "private-copy")
    exposed = []
    real_chown = os.chown
    holder = {}

    def spy(path, uid, gid, **kwargs):
        target = holder.get("target")
        if target is None:   # the first chown is of a path inside the folder being staged
            target = holder["target"] = next(p for p in [Path(path), *Path(path).parents]
                                              if p.parent.name.startswith("grade-exchange-"))
        # Every folder from the exchange down to the file must keep others out while it is prepared.
        chain = [p for p in [Path(path), *Path(path).parents] if p == target or target in p.parents]
        if chain and all(os.lstat(p).st_mode & 0o077 for p in chain if p.is_dir()) and Path(path) != target:
            exposed.append(str(path))
        return real_chown(path, uid, gid, **kwargs)

    monkeypatch.setattr(os, "chown", spy)
    with Worker() as worker, worker.staged(source) as staged:
        assert worker.isolation.own_uid and not worker.isolation.landlock
        uid = worker._confine["uid"]
        for path in [Path(staged), *Path(staged).rglob("*")]:
            info = os.lstat(path)
            assert info.st_uid == 0 and info.st_gid == uid and info.st_mode & 0o007 == 0, path
            assert info.st_mode & 0o222 == 0 and (path.is_dir() or info.st_nlink == 1), path
        handed_over = os.stat(source / "answers.yaml").st_uid
    assert not exposed, f"readable by others while being staged: {exposed[:3]}"
    assert handed_over == 0, "the grader's own copy of the submission now belongs to the student's uid"
