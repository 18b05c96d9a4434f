"""`grade class`: same scores as `grade check`, a gradebook that loses nothing, resume after kill -9."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, STUBS, copy_reference, run_grade as run, with_mistake
from grader.sandbox.isolation import bwrap_path
from helpers.killed_class import attempts, reference_class, start_class

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


@pytest.fixture
def small_class(tmp_path):
    cls = tmp_path / "class"
    cls.mkdir()
    copy_reference(cls / "alice")
    shutil.copytree(STUBS, cls / "bob")
    with_mistake(copy_reference(cls / "carol"), "rnn_step.py", ROOT / "solutions/mistakes/step/missing_bias.py")
    (cls / "dave.py").write_text((ROOT / "tests/impls/single_file.py").read_text())
    (cls / "notes.txt").write_text("not a submission")
    return cls


def test_class_matches_check_and_keeps_every_attempt(small_class, tmp_path):
    book = tmp_path / "book.sqlite"
    code, out, err = run("class", small_class, "--jobs", "2", "--gradebook", book, "--format", "json",
                         "--no-counterexamples")
    assert code == 0, err
    assert "skipped notes.txt" in err
    graded = {s["student"]: s for s in json.loads(out)["submissions"]}
    assert set(graded) == {"alice", "bob", "carol", "dave"}
    for student, entry in (("alice", "alice"), ("bob", "bob"), ("carol", "carol"), ("dave", "dave.py")):
        _, check_out, _ = run("check", small_class / entry, "--format", "json")
        single = json.loads(check_out)
        assert graded[student]["score"] == single["score"], student
        assert [(e["id"], e["score"]) for e in graded[student]["exercises"]] == \
               [(e["id"], e["score"]) for e in single["exercises"]]
    assert graded["carol"]["exercises"][0]["diagnoses"] == ["step.missing_bias"]
    feedback = book.parent / "class.feedback"
    assert {p.stem for p in feedback.glob("*.md")} == {"alice", "bob", "carol", "dave"}
    assert "step.missing_bias" in (feedback / "carol.md").read_text()

    # A rerun grades only what changed; --force regrades all; nothing is ever overwritten.
    assert len(attempts(book)) == 4
    (small_class / "alice" / "param_count.py").write_text("def count_rnn_params(*a, **k):\n    return 0\n")
    code, out, err = run("class", small_class, "--jobs", "1", "--gradebook", book, "--no-counterexamples")
    assert code == 0 and "1 graded now, 3 unchanged" in out
    rows = attempts(book)
    assert len(rows) == 5 and rows[-1][0] == "alice"
    run("class", small_class, "--jobs", "2", "--gradebook", book, "--force", "--no-counterexamples")
    assert len(attempts(book)) == 9

    export = tmp_path / "grades.csv"
    code, out, err = run("export", "--csv", export, "--gradebook", book)
    assert code == 0, err
    with open(export, encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:3] == ["student", "total", "max"] and "masking" in rows[0]
    # notes.txt is listed too, as not graded: a student's wrong file type must not vanish from an import
    assert sorted(r[0] for r in rows[1:]) == ["alice", "bob", "carol", "dave", "notes.txt"]
    assert [r[3] for r in rows[1:] if r[0] == "notes.txt"] == ["not graded: not a folder, .py, .ipynb or .zip"]


def test_kill_9_halfway_then_resume_loses_and_duplicates_nothing(tmp_path):
    cls = reference_class(tmp_path, 24)
    book = tmp_path / "book.sqlite"
    proc = start_class(cls, book, jobs=1)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if book.exists() and 3 <= len(attempts(book)) < 20:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = attempts(book)
    assert 3 <= len(before) < 24
    code, out, err = run("class", cls, "--jobs", "2", "--gradebook", book, "--no-counterexamples",
                         "--feedback", "none", "--format", "json")
    assert code == 0, err
    after = attempts(book)
    assert after[:len(before)] == before                       # nothing lost or rewritten
    students = [s for s, _ in after]
    assert sorted(students) == sorted(f"s{i:02d}" for i in range(24))   # each graded exactly once
    assert all(s["score"] == s["max_score"] for s in json.loads(out)["submissions"])


def _children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_grading_processes_end_when_the_run_is_killed_alone(tmp_path):
    """kill -9 of the run's process alone (not its group): its grading processes end with it
    (PR_SET_PDEATHSIG), instead of waiting for work forever with their sandboxed workers."""
    cls = reference_class(tmp_path, 12)
    book = tmp_path / "book.sqlite"
    proc = start_class(cls, book, jobs=2)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not (book.exists() and attempts(book)):
            time.sleep(0.05)
        assert attempts(book), "no attempt recorded in time"
        jobs = {pid for pid in _children(proc.pid)
                if "grader" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")}
        assert len(jobs) >= 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() and
                                                  "Z" != _state(pid) for pid in jobs):
            time.sleep(0.1)
        left = [pid for pid in jobs if Path(f"/proc/{pid}").exists() and _state(pid) != "Z"]
        assert not left, f"grading processes still running after the run was killed: {left}"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_class_without_bubblewrap_is_confined_otherwise(small_class, tmp_path):
    """No bwrap on PATH: the class is graded confined by the fallback (a uid of its own as root,
    Landlock), which each report names; --no-sandbox is a plain process."""
    from grader.sandbox.isolation import fallback_isolation

    expected = fallback_isolation("", None)
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}   # no bwrap on this PATH
    code, out, err = run("class", small_class, "--gradebook", tmp_path / "b.sqlite", "--no-counterexamples",
                         "--format", "json", env=env)
    if not expected.confined:
        assert code == 2 and "sandbox" in err and "--no-sandbox" in err and len(err.strip().splitlines()) == 1
    else:
        assert code == 0, err
        assert {s["isolation"] for s in json.loads(out)["submissions"]} == {expected.name}
    code, out, err = run("class", small_class, "--gradebook", tmp_path / "b2.sqlite", "--no-sandbox",
                         "--no-counterexamples", "--format", "json", env=env)
    assert code == 0, err
    assert {s["isolation"] for s in json.loads(out)["submissions"]} == {"process"}


def test_class_refuses_when_nothing_can_confine_student_code(small_class, tmp_path, monkeypatch, capsys):
    import grader.sandbox.isolation
    from grader.cli import main

    monkeypatch.setattr(grader.sandbox.isolation, "confinement_unavailable",
                        lambda: "bubblewrap is not installed; not root")
    code = main(["class", str(small_class), "--gradebook", str(tmp_path / "b.sqlite")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert "no sandbox (bubblewrap is not installed; not root)" in lines[0] and "--no-sandbox" in lines[0]
    assert not (tmp_path / "b.sqlite").exists()


def test_export_lists_every_student_with_a_status(small_class, tmp_path):
    (small_class / "erin.zip").write_bytes(b"PK\x03\x04 not a zip")      # cannot be graded
    (small_class / ".DS_Store").write_bytes(b"")                        # no student's
    book = tmp_path / "book.sqlite"
    code, out, err = run("class", small_class, "--jobs", "2", "--gradebook", book, "--no-counterexamples",
                         "--only", "step")
    assert code in (0, 1), err
    csv_path = tmp_path / "grades.csv"
    code, out, err = run("export", "--csv", csv_path, "--gradebook", book)
    assert code == 0, err
    with open(csv_path, encoding="utf-8-sig", newline="") as fh:
        rows = {row["student"]: row for row in csv.DictReader(fh)}
    assert {"alice", "bob", "carol", "dave"} <= set(rows) and ".DS_Store" not in rows
    assert rows["alice"]["status"] == "graded" and rows["alice"]["total"] == rows["alice"]["max"]
    for entry in ("erin", "notes.txt"):
        assert rows[entry]["status"].startswith("not graded: ") and rows[entry]["total"] == "", rows[entry]


def test_a_class_runs_as_batch_work_down_to_student_code_and_leaves_the_caller_as_it_was(tmp_path):
    """Issue 15: grading processes and their workers run with SCHED_BATCH (a reply no longer
    preempts the worker that sent it). Student code, inside the sandbox, reports the policy it
    inherited; the caller's own policy is restored after the run."""
    from grader.classroom.class_run import batch_scheduling

    cls = tmp_path / "class"
    folder = copy_reference(cls / "alice")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\nimport os as _os\nraise RuntimeError('policy %d' % _os.sched_getscheduler(0))\n")
    code, out, err = run("class", cls, "--only", "step", "--gradebook", tmp_path / "book.sqlite", "--format", "json")
    assert code in (0, 1), err
    step = json.loads(out)["submissions"][0]["exercises"][0]
    assert step["problem"].endswith(f"policy {os.SCHED_BATCH}"), step["problem"]
    before = os.sched_getscheduler(0)
    with batch_scheduling():
        assert os.sched_getscheduler(0) == os.SCHED_BATCH
    assert os.sched_getscheduler(0) == before
