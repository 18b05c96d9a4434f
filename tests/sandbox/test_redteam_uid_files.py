"""Red team, issue 31 item 3: in the uid fallback, nothing the grader writes is readable by a student's uid.

In the ``user`` mode (no bubblewrap, no Landlock; as root each submission's child runs as a uid of
its own) only file permissions keep student code out of the grader's files. SQLite made the
gradebook's -wal and -shm files with the gradebook's mode before the gradebook was closed to
others, and the feedback folder was made after it, open to everyone: a student graded later read
an earlier student's attempt from the WAL, and every other student's name from the feedback
folder. Here a snooping submission, graded after a victim in the same ``grade class`` run, walks
the whole file system as its uid (breadth first, for a bounded time), reads every file it can that
changed since the test began or lies beside the gradebook, and prints what of the victim it found:
its name, a line of its source, what it printed. Run twice (a second run finds the first run's
report, feedback and gradebook in place), with the worker's private mounts (item 4) and with the
sweep that replaces them where mounts are not allowed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from conftest import copy_reference

import grader.sandbox.isolation as sandbox
from grader.cli import main
from grader.classroom.gradebook import Gradebook, load_result
from helpers.sandbox import force_user_mode

# uid-fallback: as root without bubblewrap, submission uids (and, without private mounts, sweeps of every folder
# others may write) that another such run on the machine would see: these modules run one test at a time
pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="the uid fallback needs root"),
              pytest.mark.xdist_group("uid-fallback")]

SNOOP_SECONDS = 5.0      # the snooper's walk, at most (a call may take 10 s)


@pytest.fixture
def open_folder():
    """A folder every user may enter and list, as an instructor's home often is (not under /tmp,
    which the worker's private mounts cover, nor pytest's 0700 tmp_path)."""
    base = Path(tempfile.mkdtemp(prefix="grade-snoop-", dir="/srv" if os.path.isdir("/srv") else "/var"))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


SNOOPER = '''
import collections as _collections, os as _os, tempfile as _tempfile, time as _time

def _snoop():
    """Everything of another student this uid can find on the machine (once per submission)."""
    done = _os.path.join(_tempfile.gettempdir(), ".snooped")
    if _os.path.exists(done):
        return
    open(done, "w").close()
    tokens = {kind: value[::-1].encode() for kind, value in %(tokens)r.items()}
    mine = (_os.path.dirname(_os.path.abspath(__file__)), _tempfile.gettempdir())
    base, since = %(base)r, %(since)r
    deadline = _time.monotonic() + %(seconds)r
    queue = _collections.deque(["/", "/dev/shm"])
    found, listed, read = [], 0, 0
    while queue and _time.monotonic() < deadline:
        folder = queue.popleft()
        try:
            with _os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            path = entry.path
            if path.startswith(mine):
                continue
            listed += path.startswith(base)
            found += [("name", kind, path) for kind, token in tokens.items() if token in _os.fsencode(entry.name)]
            try:
                if entry.is_dir(follow_symlinks=False):
                    if path not in ("/proc", "/sys", "/dev"):
                        queue.append(path)
                elif entry.is_file(follow_symlinks=False):
                    if entry.stat(follow_symlinks=False).st_mtime >= since or path.startswith(base):
                        with open(path, "rb") as fh:
                            data = fh.read(64 << 20)
                        read += 1
                        found += [("content", kind, path) for kind, token in tokens.items() if token in data]
            except OSError:
                pass
    print("SNOOP listed=%%d read=%%d complete=%%s" %% (listed, read, not queue))
    for item in found[:20]:
        print("FOUND", *item)

'''


def snooper(folder: Path, tokens: dict, base: Path, since: float) -> Path:
    """The reference, whose count_rnn_params first snoops (the tokens reversed: its own file holds none)."""
    copy_reference(folder)
    encoded = {kind: token[::-1] for kind, token in tokens.items()}
    source = SNOOPER % {"tokens": encoded, "base": str(base), "since": since, "seconds": SNOOP_SECONDS}
    path = folder / "param_count.py"
    head = "def count_rnn_params(input_size, hidden_size, output_size=0, num_layers=1,\n"
    text = path.read_text()
    assert head in text
    body_start = text.index('    """', text.index(head))
    text = text[:body_start] + "    _snoop()\n" + text[body_start:]
    path.write_text(source + text)
    return folder


def victim(folder: Path, tokens: dict) -> Path:
    """The reference with a marked source line and a marked print, whose rnn_step forgets the
    bias (a named mistake, a counterexample searched and kept in the cache)."""
    copy_reference(folder)
    path = folder / "rnn_step.py"
    text = path.read_text().replace("h_prev @ W_h + b)", "h_prev @ W_h)")
    path.write_text(f"# {tokens['source']}\nprint({tokens['printed']!r})\n" + text)
    return folder


def snoop_outputs(book: Path, student: str) -> list[str]:
    with sqlite3.connect(book) as db:
        rows = db.execute("SELECT result FROM attempts WHERE student = ? ORDER BY id", (student,)).fetchall()
    outputs = []
    for (result,) in rows:
        params = [e for e in load_result(result).exercises if e.id == "params"]
        assert params and params[0].score == params[0].max_score, [
            c.message.render("en") for c in params[0].checks if not c.passed]
        outputs.append(params[0].output)
    return outputs


@pytest.mark.parametrize("mounts", [True, False], ids=["private-mounts", "sweep"])
def test_a_later_student_finds_nothing_of_an_earlier_one(monkeypatch, open_folder, mounts):
    force_user_mode(monkeypatch, mounts)
    monkeypatch.setenv("GRADER_CACHE_DIR", str(open_folder / "cache"))
    since = time.time() - 1
    tag = uuid.uuid4().hex[:12]
    tokens = {"name": f"avictim{tag}", "source": f"vsource{tag}", "printed": f"vprinted{tag}"}
    klass = open_folder / "class"
    klass.mkdir(mode=0o755)
    victim(klass / tokens["name"], tokens)
    snooper(klass / f"zsnoop{tag}", tokens, open_folder, since)
    report = open_folder / "report.json"
    args = ["class", str(klass), "--jobs", "1", "--only", "step", "--only", "params", "--format", "json",
            "--output", str(report), "--feedback", "markdown"]
    assert main(args) == 0
    assert main(args + ["--force"]) == 0          # the second run meets the first one's files
    book = open_folder / "class.gradebook.sqlite"
    with Gradebook(book) as opened:
        graded = opened.latest(tokens["name"]).result
    assert [e.score < e.max_score for e in graded.exercises] == [True, False]   # the victim was graded first
    assert tokens["name"] in report.read_text() and (open_folder / "class.feedback").is_dir()
    outputs = snoop_outputs(book, f"zsnoop{tag}")
    assert len(outputs) == 2
    for output in outputs:
        assert "SNOOP listed=" in output, output
        listed = int(output.split("listed=")[1].split()[0])
        assert listed > 0, output          # it did reach the folder of the gradebook and the feedback
        assert "FOUND" not in output, output
    # What the runs made is its owner's alone (nothing was opened up afterwards either).
    for path in [open_folder / "cache", *open_folder.rglob("*")]:
        if path.exists() and path != klass and not path.is_relative_to(klass):
            assert stat.S_IMODE(path.lstat().st_mode) & 0o077 == 0, path


@pytest.mark.parametrize("existing", [False, True], ids=["new", "left-open-by-an-earlier-run"])
def test_the_gradebooks_journal_files_are_never_open_to_others(tmp_path, existing):
    """SQLite makes -wal and -shm with the gradebook's own mode: a private gradebook is closed
    before SQLite opens it; one an earlier run left open loses its permissions for others, its
    journal files too."""
    path = tmp_path / "class.gradebook.sqlite"
    before = os.umask(0o022)
    try:
        if existing:
            with Gradebook(path) as book:      # an earlier run, not private: 0644
                book.start_run("class", "x")
            for suffix in ("-wal", "-shm"):
                path.with_name(path.name + suffix).write_bytes(b"")
                os.chmod(path.with_name(path.name + suffix), 0o644)
            assert stat.S_IMODE(path.stat().st_mode) & 0o004
        with Gradebook(path, private=True) as book:
            book.start_run("class", "x")
            files = [path, *(path.with_name(path.name + s) for s in ("-wal", "-shm"))]
            assert all(f.exists() for f in files)
            for file in files:
                assert stat.S_IMODE(file.stat().st_mode) & 0o007 == 0, file
    finally:
        os.umask(before)


def test_closed_files_closes_what_is_made_and_restores_the_umask(tmp_path):
    before = os.umask(0o022)
    try:
        with sandbox.closed_files(True):
            folder = tmp_path / "made"
            folder.mkdir()
            (folder / "file").write_text("x")
            fd, temporary = tempfile.mkstemp(dir=folder)
            os.close(fd)
            report = folder / "report.json"
            report.write_text(json.dumps({}))
        assert os.umask(0o022) == 0o022
        for path in (folder, folder / "file", Path(temporary), report):
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
        with sandbox.closed_files(False):
            (tmp_path / "open").write_text("x")
        assert stat.S_IMODE((tmp_path / "open").stat().st_mode) == 0o644
    finally:
        os.umask(before)


def test_only_the_user_mode_closes_the_runs_files(monkeypatch):
    """bubblewrap (or Landlock) keeps student code away from the grader's files whatever their
    mode: an instructor's outputs keep their usual permissions there."""
    monkeypatch.setattr(sandbox, "sandbox_unavailable", lambda: "")
    assert not sandbox.students_read_by_permissions("auto")
    monkeypatch.setattr(sandbox, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    monkeypatch.setattr(sandbox, "another_uid_can_run_python", lambda: True)
    monkeypatch.setattr(sandbox, "landlock_available", lambda: 3)
    assert not sandbox.students_read_by_permissions("auto")
    monkeypatch.setattr(sandbox, "landlock_available", lambda: 0)
    assert sandbox.students_read_by_permissions("auto") == (os.geteuid() == 0)
    assert not sandbox.students_read_by_permissions("none")
