"""Red team, issue 31 item 4: the uid fallback leaves no folder shared by submissions.

In the ``user`` mode (no bubblewrap, no Landlock; as root each submission's child runs as a uid
of its own) what a submission's uid left in /tmp, /var/tmp and /dev/shm was removed, but that was
a list: /run/lock (1777 on Debian and Ubuntu) or any folder writable by others was a drop box,
and files that outlived the run reached later runs. A writer leaves notes (a file and a folder
holding one) in every such place, among them a folder writable by others that the test makes
outside that list; a later student with another uid, whose rnn_step only loads them (and would
return zeros if it found any), must score full marks and find nothing: in the same worker, and
in a later run. Both ways the grader closes them: the worker's own mount namespace (an empty,
root-owned tmpfs over every folder others may write, every other mount read-only), and where
mounts are not allowed, a sweep of every such folder found by a walk at start-up.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import uuid
from pathlib import Path

import pytest
from conftest import copy_reference
from helpers.sandbox import force_user_mode

import grader.sandbox.isolation as sandbox
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.submission.load import load_submission

# uid-fallback: as root without bubblewrap, submission uids (and, without private mounts, sweeps of every folder
# others may write) that another such run on the machine would see: these modules run one test at a time
pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="the uid fallback needs root"),
              pytest.mark.xdist_group("uid-fallback")]
MODES = pytest.mark.parametrize("mounts", [True, False], ids=["private-mounts", "sweep"])


@pytest.fixture
def course():
    return load_course(bundled_course_root())


@pytest.fixture
def places():
    """The machine's shared folders, and one more that every user may write, made for the test
    outside any list (before the grader walks the machine: the walk is at start-up)."""
    parent = "/srv" if os.path.isdir("/srv") else "/var"
    extra = Path(tempfile.mkdtemp(prefix="grade-dropbox-", dir=parent))
    os.chmod(extra, 0o1777)
    sandbox.writable_by_others.cache_clear()
    try:
        yield [p for p in ("/run/lock", "/tmp", "/var/tmp", "/dev/shm") if os.path.isdir(p)] + [str(extra)]
    finally:
        shutil.rmtree(extra, ignore_errors=True)
        sandbox.writable_by_others.cache_clear()


def writer(folder: Path, places: list[str], tag: str) -> Path:
    copy_reference(folder)
    attack = f'''
import os as _os
for _place in {places!r}:
    for _path in (_os.path.join(_place, "note-{tag}"), _os.path.join(_place, "dir-{tag}", "note")):
        try:
            _os.makedirs(_os.path.dirname(_path), exist_ok=True)
            with open(_path, "w") as _fh:
                _fh.write("the answer")
            _os.chmod(_path, 0o666)
            print("WROTE", _path)
        except OSError as _exc:
            print("DENIED", _path, type(_exc).__name__)
'''
    path = folder / "rnn_step.py"
    path.write_text(attack + path.read_text())
    return folder


def reader(folder: Path, places: list[str], tag: str) -> Path:
    """The reference, whose rnn_step first loads what another student left (and, had it found
    anything, would return zeros: it would lose every mark of the exercise)."""
    copy_reference(folder)
    helper = f'''
import os as _os

def _notes():
    found = []
    for place in {places!r}:
        try:
            names = [_os.path.join(place, n) for n in _os.listdir(place) if "{tag}" in n]
        except OSError:
            continue
        for path in names + [_os.path.join(p, n) for p in names if _os.path.isdir(p) for n in _os.listdir(p)]:
            try:
                with open(path) as fh:
                    found.append((path, fh.read()))
            except OSError:
                found.append((path, None))
    return found
'''
    path = folder / "rnn_step.py"
    head = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n"
    text = path.read_text()
    assert head in text
    text = text.replace(head, head + "    _found = _notes()\n    if _found:\n        print('FOUND', _found)\n"
                        "        return np.zeros_like(h_prev)\n", 1)
    path.write_text(helper + text)
    return folder


def graded(grader, folder: Path, tmp_path: Path):
    result = grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), ["step"])
    assert result.isolation == "user"
    return result.exercises[0]


def left_on_the_machine(places: list[str], tag: str) -> list[str]:
    return [str(p) for place in places for p in Path(place).glob(f"*{tag}*")]


def check_writer(step, mounts: bool, places: list[str]):
    out = step.output
    if mounts:    # nothing but its own /tmp is writable: not one note was written
        assert "WROTE" not in out and out.count("DENIED") == 2 * len(places), out
    else:         # it wrote them all: the sweep is what keeps them from the next student
        assert out.count("WROTE") == 2 * len(places), out


@MODES
def test_a_later_student_in_the_same_worker_finds_no_note(monkeypatch, course, places, tmp_path, mounts):
    force_user_mode(monkeypatch, mounts)
    tag = uuid.uuid4().hex[:12]
    with Grader(course, counterexamples=False) as grader:
        isolation = grader.worker.isolation
        assert isolation.name == "user" and (isolation.mounts is not None) == mounts and isolation.sweeps != mounts
        check_writer(graded(grader, writer(tmp_path / "writer", places, tag), tmp_path), mounts, places)
        step = graded(grader, reader(tmp_path / "reader", places, tag), tmp_path)
        assert "FOUND" not in step.output, step.output
        assert step.score == step.max_score, [c.message.render("en") for c in step.checks if not c.passed]
        assert not left_on_the_machine(places, tag)
    assert not left_on_the_machine(places, tag)


@MODES
def test_no_note_reaches_a_later_run(monkeypatch, course, places, tmp_path, mounts):
    force_user_mode(monkeypatch, mounts)
    tag = uuid.uuid4().hex[:12]
    with Grader(course, counterexamples=False) as grader:
        check_writer(graded(grader, writer(tmp_path / "writer", places, tag), tmp_path), mounts, places)
    with Grader(course, counterexamples=False) as grader:     # a new worker, as a later `grade` run has
        assert not left_on_the_machine(places, tag)          # swept before any submission of this run
        step = graded(grader, reader(tmp_path / "reader", places, tag), tmp_path)
    assert "FOUND" not in step.output, step.output
    assert step.score == step.max_score, [c.message.render("en") for c in step.checks if not c.passed]


def test_the_start_up_walk_finds_every_folder_and_file_others_may_write(places):
    extra = Path(places[-1])
    nested = extra / "inner"
    nested.mkdir()
    os.chmod(nested, 0o777)
    shared = extra / "shared.txt"
    shared.write_text("")
    os.chmod(shared, 0o666)
    sandbox.writable_by_others.cache_clear()
    found = sandbox.writable_by_others(with_files=True)
    assert {*places, str(nested)} <= set(found.folders)
    assert str(shared) in {f[0] for f in found.files}
    assert str(extra / "inner") not in {f[0] for f in found.files}


@pytest.mark.skipif(os.geteuid() != 0, reason="removing another uid's files needs root")
def test_the_sweep_removes_a_submissions_files_and_reports_what_it_cannot(places, capsys):
    extra = Path(places[-1])
    shared = extra / "shared.txt"
    shared.write_text("")
    os.chmod(shared, 0o666)
    sandbox.writable_by_others.cache_clear()
    found = sandbox.writable_by_others(with_files=True)
    uid = sandbox.SUBMISSION_UIDS + 12345
    note, folder = extra / "note", extra / "folder"
    note.write_text("x")
    folder.mkdir()
    (folder / "deeper").mkdir()
    (folder / "deeper" / "note").write_text("x")
    for path in (note, folder, folder / "deeper", folder / "deeper" / "note"):
        os.chown(path, uid, uid)
    os.chmod(folder, 0o700)
    mine = extra / "instructors"           # not a submission's: left alone
    mine.write_text("x")
    shared.write_text("a note for the next student")
    problems = sandbox.sweep_leftovers(found)
    assert not note.exists() and not folder.exists() and mine.exists()
    assert any(str(shared) in p and "changed" in p for p in problems), problems
    assert any("cannot be swept" in p for p in problems), problems
    assert str(shared) in capsys.readouterr().err
    assert stat.S_IMODE(os.stat(extra).st_mode) == 0o1777


def test_a_folder_made_writable_after_the_walk_is_no_drop_box_either(monkeypatch, course, places, tmp_path):
    """The mount namespace does not rely on the walk's list: every mount but the submission's own
    /tmp is read-only, so a folder that became writable by others after start-up (or that the
    walk's time bound left out) takes no note either."""
    force_user_mode(monkeypatch, True)
    tag = uuid.uuid4().hex[:12]
    with Grader(course, counterexamples=False) as grader:
        late = Path(places[-1]).parent / f"grade-late-{tag}"
        late.mkdir(mode=0o777)
        os.chmod(late, 0o1777)
        try:
            assert str(late) not in grader.worker.isolation.mounts["cover"]
            step = graded(grader, writer(tmp_path / "writer", [str(late)], tag), tmp_path)
            assert "WROTE" not in step.output and step.output.count("DENIED") == 2, step.output
            assert not list(late.iterdir())
        finally:
            shutil.rmtree(late, ignore_errors=True)


def test_a_worker_that_cannot_make_its_mounts_ends_before_any_student_code(tmp_path):
    """The zygote makes its mounts before anything else (the filter, numpy, a child): when they
    fail it exits 78, so no submission is graded with folders it was meant not to share."""
    import json
    import subprocess
    import sys

    spec = {"cover": ["/tmp"], "keep": [], "writable": [str(tmp_path / "no-such-exchange")]}
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import confine; confine.from_arguments(sys.argv[2:]); "
            "print('STUDENT CODE RAN')")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(sandbox.WORKER_DIR),
                           "--private-mounts=" + json.dumps(spec)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 78 and "STUDENT CODE RAN" not in proc.stdout, (proc.returncode, proc.stdout)
    assert "cannot make its private mounts" in proc.stderr
