"""Red team, issue 10, breaches 1-3: one submission reaching another, or the instructor.

Each student here runs in the same sandbox as the students before and after it
(one warm worker, as in `grade class`), or in a later `grade check` run. The
channels they try: System V and POSIX IPC, kernel keyrings (the sandbox uid's,
the grader's session keyring), ptrace and /proc/<pid>/mem of the sandbox's
long-lived pid 1, and namespaces. Every test asserts the safe outcome; each
failed on the code before the system-call filter, the zygote as pid 1 and the
fresh session keyring.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid

import pytest

from conftest import ROOT, copy_reference
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.sandbox.isolation import bwrap_path
from grader.submission.load import load_submission

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

KEY = 0x5EED10   # the System V key colluding students agree on

# Student-side helpers: raw system calls through ctypes, as an attacker would write them.
LIBC = '''
import ctypes as _ct, os as _os, platform as _pf
_libc = _ct.CDLL(None, use_errno=True)
_libc.shmat.restype = _ct.c_void_p
_libc.syscall.restype = _ct.c_long
_X86 = _pf.machine() == "x86_64"
def _keyctl(*args):
    return _libc.syscall(250 if _X86 else 219, *args)
def _add_key(kind, desc, payload, ring):
    return _libc.syscall(248 if _X86 else 217, kind, desc, payload, len(payload), ring)
'''

# What a colluder leaves behind, each way it can (the answers, for the next student).
LEAVE = LIBC + '''
def _leave(secret):
    left = []
    shm = _libc.shmget(__KEY__, 4096, 0o1666)                        # IPC_CREAT | 0666
    if shm >= 0:
        addr = _libc.shmat(shm, None, 0)
        if addr not in (None, _ct.c_void_p(-1).value):
            _ct.memmove(addr, secret, len(secret))
            left.append("shm")
    q = _libc.msgget(__KEY__, 0o1666)
    if q >= 0:
        buf = _ct.create_string_buffer(8 + len(secret))
        _ct.memmove(_ct.addressof(buf), (1).to_bytes(8, "little") + secret, 8 + len(secret))
        if _libc.msgsnd(q, buf, len(secret), 0o4000) == 0:            # IPC_NOWAIT
            left.append("msg")
    if _libc.semget(__KEY__, 1, 0o1666) >= 0:
        left.append("sem")
    fd = _libc.mq_open(b"/colluder", 0o102, 0o666, None)              # O_CREAT | O_RDWR
    if fd >= 0 and _libc.mq_send(fd, secret, len(secret), 0) == 0:
        left.append("mq")
    for ring, name in ((-4, "user"), (-3, "session"), (-5, "user-session")):
        if _add_key(b"user", b"colluder-" + name.encode(), secret, ring) > 0:
            left.append("key-" + name)
    return left
'''

# What the next student finds.
FIND = LIBC + '''
def _find():
    found = []
    shm = _libc.shmget(__KEY__, 0, 0)
    if shm >= 0:
        addr = _libc.shmat(shm, None, 0o10000)                         # SHM_RDONLY
        if addr not in (None, _ct.c_void_p(-1).value):
            found.append("shm:" + _ct.string_at(addr, 16).decode("latin-1"))
    q = _libc.msgget(__KEY__, 0)
    if q >= 0:
        buf = _ct.create_string_buffer(8 + 64)
        n = _libc.msgrcv(q, buf, 64, 0, 0o4000)
        found.append("msg:" + (buf.raw[8:8 + n].decode("latin-1") if n > 0 else "queue"))
    if _libc.semget(__KEY__, 1, 0) >= 0:
        found.append("sem")
    fd = _libc.mq_open(b"/colluder", 0o2, 0, None)
    if fd >= 0:
        found.append("mq")
    for ring, name in ((-4, "user"), (-3, "session"), (-5, "user-session")):
        key = _libc.syscall(250 if _X86 else 219, 10, ring, b"user", b"colluder-" + name.encode(), 0)  # KEYCTL_SEARCH
        if key > 0:
            found.append("key-" + name)
    return found
'''


def student(tmp_path, body: str, helpers: str = "") -> object:
    """The reference with ``rnn_step`` replaced: it raises with what it found, so the
    check's message carries the finding."""
    folder = copy_reference(tmp_path / f"student-{uuid.uuid4().hex[:6]}")
    path = folder / "rnn_step.py"
    code = helpers.replace("__KEY__", str(KEY)) + textwrap.dedent(body)
    path.write_text(path.read_text() + "\n\n" + code)
    return folder


def messages(result, exercise="step"):
    return [c.message.render("en") for e in result.exercises if e.id == exercise for c in e.checks if c.message]


def verdict(result) -> str:
    """What the student's rnn_step reported: the text after 'REPORT '."""
    for message in messages(result):
        if "REPORT " in message:
            return message.split("REPORT ", 1)[1].split(" END", 1)[0].strip()
    raise AssertionError(messages(result))


def _class_grader():
    course = load_course(bundled_course_root())
    for exercise in course.exercises.values():
        exercise.timeout = 2.0
    return Grader(course, isolation="sandbox", time_limit=60, counterexamples=False)


@pytest.fixture
def bwrap_worker():
    """One sandboxed grader for a whole 'class': the students share its warm worker."""
    with _class_grader() as grader:
        assert grader.worker.isolation.sandboxed, grader.worker.isolation.reason
        yield grader


@pytest.fixture(params=["bubblewrap", "without bubblewrap"])
def one_worker(request, monkeypatch):
    """As bwrap_worker, and again with bubblewrap made unavailable: the attacks that do not
    depend on bubblewrap's pid namespace must fail in the fallback too (grader/sandbox/isolation.py)."""
    if request.param != "bubblewrap":
        import grader.sandbox.isolation
        monkeypatch.setattr(grader.sandbox.isolation, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    with _class_grader() as grader:
        isolation = grader.worker.isolation
        if request.param == "bubblewrap":
            assert isolation.sandboxed, isolation.reason
        elif not isolation.confined:
            pytest.skip("neither root nor Landlock here: nothing to fall back to")
        yield grader


def grade(grader, folder, tmp_path):
    return grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), ["step"])


# ------------------------------------------------------------------ breach 1: collusion

def test_nothing_a_student_leaves_in_ipc_or_keyrings_reaches_the_next_student(one_worker, tmp_path):
    colluder = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            raise RuntimeError("REPORT " + ",".join(_leave(b"ANSWERS-OF-ALICE")) + " END")
        ''', LEAVE)
    friend = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            raise RuntimeError("REPORT " + (",".join(_find()) or "NOTHING") + " END")
        ''', FIND)
    left = verdict(grade(one_worker, colluder, tmp_path))
    found = verdict(grade(one_worker, friend, tmp_path))
    assert found == "NOTHING", (left, found)
    assert left == "", f"the sandbox let a student create {left}"


def test_the_sandbox_uid_keyring_does_not_carry_from_one_run_to_the_next(tmp_path):
    """Two separate `grade check` runs: a key the first student adds to the sandbox uid's
    user keyring (which outlives every process of that uid) must not reach the second."""
    leave = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            raise RuntimeError("REPORT " + ",".join(_leave(b"ANSWERS-OF-ALICE")) + " END")
        ''', LEAVE)
    find = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            raise RuntimeError("REPORT " + (",".join(_find()) or "NOTHING") + " END")
        ''', FIND)
    outputs = [grade_check(folder) for folder in (leave, find)]
    assert "REPORT NOTHING END" in outputs[1], outputs[1]
    assert "key-user" not in outputs[0], outputs[0]


def grade_check(folder, env_extra=None, prelude=""):
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}
    env.update(env_extra or {})
    script = prelude + textwrap.dedent(f'''
        import sys
        from grader.cli import main
        sys.argv = ["grade", "check", {str(folder)!r}, "--only", "step", "--format", "json",
                    "--lang", "en", "--no-counterexamples"]
        main()
        ''')
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["isolation"] == "bubblewrap"
    return json.dumps(report) + "\n" + proc.stderr


# ------------------------------------------------------------------ breach 2: pid 1 and the zygote

def test_the_sandbox_pid_1_cannot_be_traced_or_written(bwrap_worker, tmp_path):
    one_worker = bwrap_worker
    attacker = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            import signal
            got = []
            for pid in (1, _os.getppid()):
                if _libc.ptrace(16, pid, None, None) == 0:                 # PTRACE_ATTACH
                    got.append(f"ptrace-attach:{pid}")
                if _libc.ptrace(0x4206, pid, None, None) == 0:             # PTRACE_SEIZE
                    got.append(f"ptrace-seize:{pid}")
                for name in ("mem", "environ", "fd/3"):
                    try:
                        _os.close(_os.open(f"/proc/{pid}/{name}", _os.O_RDONLY))
                        got.append(f"open:/proc/{pid}/{name}")
                    except OSError:
                        pass
            iov = (_ct.c_char * 8)()
            local = (_ct.c_void_p * 2)(_ct.addressof(iov), 8)
            remote = (_ct.c_void_p * 2)(0x400000, 8)
            if _libc.process_vm_readv(1, local, 1, remote, 1, 0) >= 0 or _ct.get_errno() != 1:
                got.append("process_vm_readv not refused")
            for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM):
                _os.kill(1, sig)                                          # pid 1 ignores them all
            raise RuntimeError("REPORT " + (",".join(got) or "NOTHING") + " END")
        ''', LIBC)
    result = grade(one_worker, attacker, tmp_path)
    assert verdict(result) == "NOTHING"
    # pid 1 is the zygote, still serving: the next student grades in full.
    reference = copy_reference(tmp_path / "reference")
    after = grade(one_worker, reference, tmp_path)
    assert after.exercises[0].score == after.exercises[0].max_score


def test_pid_1_is_the_zygote_not_a_bystander(bwrap_worker, tmp_path):
    one_worker = bwrap_worker
    attacker = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            cmd = open("/proc/1/cmdline", "rb").read().split(b"\\0")
            status = dict(l.split(":", 1) for l in open("/proc/1/status").read().splitlines() if ":" in l)
            zygote = any(arg.endswith(b"/zygote.py") for arg in cmd)
            raise RuntimeError("REPORT " + str(zygote) + "|" + str(_os.getppid()) + "|" + status["Name"].strip() + " END")
        ''', LIBC)  # noqa: E501 -- the student's code, one statement a line
    report = verdict(grade(one_worker, attacker, tmp_path))
    zygote, parent, _ = report.split("|")
    assert zygote == "True", report
    assert parent == "1", report


def test_no_namespace_mount_or_kernel_interface_for_student_code(one_worker, tmp_path):
    attacker = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            got = []
            for flag in (0x10000000, 0x08000000, 0x20000000, 0x00020000):  # user, ipc, pid, mount
                if _libc.unshare(flag) == 0:
                    got.append(f"unshare:{flag:#x}")
            if _libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
                got.append("mount")
            try:
                _os.memfd_create("x")
                got.append("memfd")
            except OSError:
                pass
            if _X86 and _libc.syscall(323, 0) >= 0:                       # userfaultfd
                got.append("userfaultfd")
            import threading, subprocess, sys
            done = []
            t = threading.Thread(target=lambda: done.append(1))            # clone3 falls back to clone
            t.start(); t.join()
            if not done:
                got.append("no threads")
            if subprocess.run([sys.executable, "-c", "pass"]).returncode != 0:
                got.append("no subprocess")
            raise RuntimeError("REPORT " + (",".join(got) or "NOTHING") + " END")
        ''', LIBC)
    assert verdict(grade(one_worker, attacker, tmp_path)) == "NOTHING"


# ------------------------------------------------------------------ breach 3: the instructor's keyring

INSTRUCTOR_KEY = '''
import ctypes, platform
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_nr = 248 if platform.machine() == "x86_64" else 217
_token = b"LMS-TOKEN-0123456789"
assert _libc.syscall(_nr, b"user", b"lms-token", _token, len(_token), -3) > 0, ctypes.get_errno()
'''


def test_the_instructors_session_keyring_is_out_of_reach(tmp_path):
    """The instructor keeps an LMS token in their session keyring; the grader runs in that
    session. Student code must neither read nor replace it."""
    thief = student(tmp_path, '''
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            got = []
            key = _keyctl(10, -3, b"user", b"lms-token", 0)                # KEYCTL_SEARCH the session ring
            if key > 0:
                buf = _ct.create_string_buffer(64)
                n = _keyctl(11, key, buf, 64)                              # KEYCTL_READ
                got.append("read:" + buf.raw[:max(n, 0)].decode("latin-1"))
            if _add_key(b"user", b"lms-token", b"OWNED", -3) > 0:
                got.append("overwrote")
            if _keyctl(0, -3, 0) > 0:                                      # KEYCTL_GET_KEYRING_ID
                got.append("session ring visible")
            raise RuntimeError("REPORT " + (",".join(got) or "NOTHING") + " END")
        ''', LIBC)
    check = INSTRUCTOR_KEY + textwrap.dedent('''
        def _still_there():
            key = _libc.syscall(250 if platform.machine() == "x86_64" else 219, 10, -3, b"user", b"lms-token", 0)
            buf = ctypes.create_string_buffer(64)
            n = _libc.syscall(250 if platform.machine() == "x86_64" else 219, 11, key, buf, 64)
            return buf.raw[:n]
        import atexit
        atexit.register(lambda: print("TOKEN-AFTER", _still_there(), file=sys.stderr))
        ''')
    report = grade_check(thief, prelude="import sys\n" + check)
    assert "REPORT NOTHING END" in report, report
    assert "TOKEN-AFTER b'LMS-TOKEN-0123456789'" in report, report
