"""Red team, issue 13 item 9: student code when bubblewrap cannot run.

Gradescope's containers, and many CI runners, forbid the namespaces bubblewrap needs.
Here it is made unavailable (``sandbox_unavailable`` answers a reason), and the grader
falls back to what grader/sandbox/isolation.py describes: as root, a uid of the submission's own
where that uid can run this Python; Landlock where the kernel has it. Each attack below
is what a student could do with a plain process; every test asserts the safe outcome,
and each failed before the fallback (student code ran as a plain process, as root).
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

import grader.sandbox.isolation as sandbox
from conftest import ROOT, copy_reference
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.sandbox.client import StudentModule, Worker
from grader.submission.load import load_submission
from helpers.sandbox import output_of, submit

FALLBACK = sandbox.fallback_isolation("bubblewrap made unavailable", None)
# uid-fallback: as root without bubblewrap, submission uids (and, without private mounts, sweeps of every folder
# others may write) that another such run on the machine would see: these modules run one test at a time
pytestmark = [pytest.mark.skipif(not FALLBACK.confined,
                                 reason="neither root nor Landlock here: nothing to fall back to"),
              pytest.mark.xdist_group("uid-fallback")]


@pytest.fixture
def course():
    """A fresh course for each test here (conftest's fallback_grader grades with it), not the shared one."""
    return load_course(bundled_course_root())


TRY_READ = '''
def _try_read(path):
    try:
        with open(path, "rb") as fh:
            return "READ " + path + " " + repr(fh.read(40))
    except OSError as exc:
        return "DENIED " + path + " " + type(exc).__name__
'''


def test_graded_in_full_and_the_report_says_how(fallback_grader, tmp_path):
    result = fallback_grader.grade(load_submission(copy_reference(tmp_path / "ref"), tmp_path / "w"))
    assert result.score == result.max_score
    assert result.isolation == FALLBACK.name
    notes = [n for n in result.notes if n.key == "note.confined"]
    assert len(notes) == 1 and FALLBACK.name in notes[0].render("en")


def test_student_code_cannot_read_the_reference_the_answer_key_or_the_course(fallback_grader, tmp_path):
    targets = [ROOT / "solutions" / "reference" / "rnn_step.py", ROOT / "solutions" / "reference" / "answers.yaml",
               ROOT / "exercises" / "step.yaml", ROOT / "exercises" / "checks" / "step.py",
               ROOT / "grader" / "grading" / "engine.py", Path.home() / ".config" / "rnn-grader" / "secrets"]
    attack = TRY_READ + "".join(f"print(_try_read({str(t)!r}))\n" for t in targets)
    attack += "import os\nprint(_try_read('/proc/%d/environ' % os.getppid()))\nprint(_try_read('/proc/1/environ'))\n"
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert out.count("DENIED ") == len(targets) + 2 and "READ " not in out, out


def test_student_code_cannot_read_another_submission_being_graded(no_bwrap, course, tmp_path):
    """Two workers, as in `grade class --jobs 2`: while one holds a student's files, the other's
    student looks for them in every exchange folder."""
    marker = f"SECRET-{uuid.uuid4().hex}"
    victim = copy_reference(tmp_path / "victim")
    (victim / "rnn_step.py").write_text(f"# {marker}\n" + (victim / "rnn_step.py").read_text())
    attack = TRY_READ + '''
import glob
for _path in glob.glob("/tmp/grade-exchange-*/*/*.py") + glob.glob("/tmp/grade-exchange-*/*/*/*.py"):
    print(_try_read(_path))
print("LISTED", len(glob.glob("/tmp/grade-exchange-*/*")))
'''
    with Worker(hidden=[course.root]) as other, other.staged(victim) as staged:
        assert other.isolation.name == FALLBACK.name
        held = StudentModule(other, staged, "rnn_step", 5.0)
        assert held.open() is None         # the victim's child is alive, its files in place
        with Grader(course, counterexamples=False) as g:
            out = output_of(g, submit(tmp_path, attack), tmp_path)
    assert marker not in out and "READ " not in out, out


def test_student_code_cannot_write_outside_its_own_tmp(fallback_grader, tmp_path):
    name = f"planted-{uuid.uuid4().hex[:8]}"
    targets = [Path("/tmp") / name, ROOT / name, tmp_path / name, Path("/dev/shm") / name]
    attack = "import os, tempfile\n" + "".join(f'''
try:
    open({str(t)!r}, "w").write("x"); print("WROTE", {str(t)!r})
except OSError as exc:
    print("DENIED", type(exc).__name__)
''' for t in targets) + '''
with open(os.path.join(tempfile.gettempdir(), "mine.txt"), "w") as fh:   # its own /tmp works
    fh.write("scratch")
print("TMP", tempfile.gettempdir() != "/tmp")
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert "WROTE" not in out and out.count("DENIED") == len(targets) and "TMP True" in out, out
    assert not any(t.exists() for t in targets)


def test_student_code_cannot_signal_the_worker_or_the_grader(fallback_grader, tmp_path):
    attack = f'''
import os, signal
for _who, _pid in (("zygote", os.getppid()), ("grader", {os.getpid()})):
    try:
        os.kill(_pid, signal.SIGCONT)      # harmless if it got through: the test says so
        print("SIGNALLED", _who)
    except OSError as exc:
        print("DENIED", _who, type(exc).__name__)
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert "SIGNALLED" not in out and out.count("DENIED") == 2, out


def test_no_network_and_no_unix_sockets(fallback_grader, tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    attack = f'''
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2); print("CONNECTED tcp")
except OSError as exc:
    print("DENIED tcp", type(exc).__name__)
try:
    _s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); print("OPENED unix")
except OSError as exc:
    print("DENIED unix", type(exc).__name__)
'''
    try:
        out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    finally:
        listener.close()
    assert "DENIED unix" in out and "OPENED unix" not in out, out
    if FALLBACK.landlock >= 4:      # Landlock refuses TCP from ABI 4 on
        assert "DENIED tcp" in out and not accepted, out


def test_a_daemon_left_behind_is_killed_with_its_submission(fallback_grader, tmp_path):
    """A double-forked, setsid daemon would otherwise outlive its student and wait for the next."""
    attack = '''
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print("DAEMON", os.getpid(), flush=True)
        time.sleep(600)
    os._exit(0)
time.sleep(0.2)
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    pids = [int(line.split()[1]) for line in out.splitlines() if line.startswith("DAEMON")]
    assert pids, out
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] not in "ZX"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not FALLBACK.own_uid, reason="this Python is not readable by another uid here")
def test_as_root_student_code_runs_as_a_uid_of_its_own(fallback_grader, tmp_path):
    attack = "import os\nprint('UID', os.getuid(), os.geteuid(), os.getgid(), os.getgroups())\n"
    first = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    second = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    uid1, uid2 = (int(o.split()[1]) for o in (first, second))
    assert uid1 >= sandbox.SUBMISSION_UIDS and uid2 >= sandbox.SUBMISSION_UIDS and uid1 != uid2
    assert "[]" in first


def test_without_landlock_the_course_loses_its_permissions_for_others(tmp_path):
    """The uid-only mode relies on the course's folders being closed to others."""
    course = tmp_path / "course"
    for name in ("exercises", "solutions", "kit", "notes"):
        (course / name).mkdir(parents=True)
        os.chmod(course / name, 0o755)
    gradebook = tmp_path / "book.sqlite"
    gradebook.write_text("")
    os.chmod(gradebook, 0o644)
    changed = sandbox.protect_from_others([course, gradebook])
    assert sorted(changed) == sorted([course / "exercises", course / "solutions", course / "kit", gradebook])
    for path in changed:
        assert os.stat(path).st_mode & 0o007 == 0
    assert os.stat(course / "notes").st_mode & 0o007 == 0o005
    assert sandbox.protect_from_others([course]) == []          # already closed: nothing to do


def test_the_landlock_read_list_holds_numpy_and_never_the_grader(tmp_path):
    import numpy
    read = [p.resolve() for p in sandbox.landlock_read_paths()]
    grader_dir = (ROOT / "grader").resolve()
    assert Path(numpy.__file__).resolve().parent in read
    assert not any(grader_dir == p or grader_dir.is_relative_to(p) for p in read if p.is_dir())
    assert not any(p.name in ("site-packages", "dist-packages") for p in read)


def test_grade_check_without_bubblewrap_grades_confined(tmp_path):
    """Through the CLI, as Gradescope's run_autograder calls it when bwrap is missing."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}   # no bwrap on this PATH
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(copy_reference(tmp_path / "ref")),
                           "--format", "json", "--no-counterexamples"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["isolation"] == FALLBACK.name and report["score"] == report["max_score"]
    assert "no bubblewrap" in proc.stderr and FALLBACK.name in proc.stderr


def test_an_endless_loop_that_ignores_signals_still_ends_with_its_timeout(fallback_grader, tmp_path):
    """The worker ends a child with SIGKILL, which cannot be ignored, uid or no uid."""
    attack = '''
import signal
for _s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(_s, signal.SIG_IGN)
'''
    folder = submit(tmp_path, attack)
    path = folder / "rnn_step.py"
    head = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n"
    path.write_text(path.read_text().replace(head, head + "    while True:\n        pass\n"))
    step = fallback_grader.course.exercises["step"]
    saved, step.timeout = step.timeout, 0.5
    try:
        result = fallback_grader.grade(load_submission(folder, tmp_path / "w"), ["step"])
    finally:
        step.timeout = saved
    keys = {c.message.key for c in result.exercises[0].checks}
    assert "err.timeout" in keys and result.exercises[0].score == 0


def test_ordinary_code_still_runs_confined(fallback_grader, tmp_path):
    """Confinement must fail only attacks: standard-library imports the worker had not loaded,
    threads, a Python subprocess and scratch files all still work."""
    attack = '''
import csv, decimal, fractions, json, statistics, subprocess, sys, tempfile, threading
_done = []
_t = threading.Thread(target=lambda: _done.append(1)); _t.start(); _t.join()
_sub = subprocess.run([sys.executable, "-c", "import json; print(json.dumps([1]))"], capture_output=True, text=True)
with tempfile.NamedTemporaryFile("w+") as _fh:
    _fh.write("ok"); _fh.flush()
print("ORDINARY", bool(_done), _sub.returncode, _sub.stdout.strip(), statistics.mean([1, 2, 3]))
'''
    out = output_of(fallback_grader, submit(tmp_path, attack), tmp_path)
    assert "ORDINARY True 0 [1] 2" in out, out
