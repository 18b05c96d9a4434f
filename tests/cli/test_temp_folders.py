"""What a killed grader leaves in TMPDIR (a student's staged files, a download, a course copy) is
removed by the next command that grades; nothing of a live process, or of another user, is touched."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

from conftest import copy_reference, run_grade
from grader.base import temp_folders
from helpers.killed_class import attempts, reference_class, start_class


def gone_pid() -> int:
    """A pid no process can have: one past the kernel's largest."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def plant(tmp: Path, name: str) -> Path:
    folder = tmp / name
    (folder / "s1").mkdir(parents=True)
    (folder / "s1" / "rnn_step.py").write_text("# a student's file\n")
    return folder


def grader_folders(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("grade-"))


def test_only_the_folders_of_processes_that_are_gone_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = plant(tmp_path, f"grade-class-{gone_pid()}-abc")
    ours = plant(tmp_path, f"grade-class-{os.getpid()}-def")              # this process: alive
    other = plant(tmp_path, "grade-class-xyz")                             # no pid: not ours to judge
    not_a_folder = tmp_path / f"grade-download-{gone_pid()}-file"
    not_a_folder.write_text("x")
    assert temp_folders.remove_stale() == [stale.name]
    assert not stale.exists() and ours.exists() and other.exists() and not_a_folder.exists()
    with temp_folders.temporary_folder("check") as made:                   # named by this process
        assert Path(made).name.startswith(f"grade-check-{os.getpid()}-")


def test_a_check_removes_what_a_killed_grader_left_and_leaves_nothing_of_its_own(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    stale = plant(tmp, f"grade-class-{gone_pid()}-abc")
    env = {**os.environ, "TMPDIR": str(tmp)}
    code, _, err = run_grade("check", copy_reference(tmp_path / "student"), "--only", "step", env=env)
    assert code == 0, err
    assert not stale.exists()
    assert grader_folders(tmp) == []


def test_what_a_class_killed_with_kill_9_left_is_gone_after_the_next_run(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    cls = reference_class(tmp_path, 12)
    book = tmp_path / "book.sqlite"
    proc = start_class(cls, book, jobs=2, env=env)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None and len(attempts(book)) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10        # the grading processes die with it (PR_SET_PDEATHSIG)
    while time.monotonic() < deadline and [n for n in grader_folders(tmp) if temp_folders._alive(int(n.split("-")[2]))]:
        time.sleep(0.1)
    left = grader_folders(tmp)
    code, _, err = run_grade("check", tmp_path / "template", "--only", "step", env=env)
    assert code == 0, err
    assert grader_folders(tmp) == [], f"left by the killed run: {left}"
