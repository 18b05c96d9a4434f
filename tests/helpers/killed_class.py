"""A `grade class` to kill halfway: tests/cli/test_class.py and test_temp_folders.py."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, copy_reference


def reference_class(tmp_path: Path, n: int) -> Path:
    """``n`` students, each the reference (the template they copy is ``tmp_path/template``)."""
    cls = tmp_path / "class"
    cls.mkdir()
    template = copy_reference(tmp_path / "template")
    for i in range(n):
        shutil.copytree(template, cls / f"s{i:02d}")
    return cls


def start_class(cls: Path, book: Path, jobs: int, env: dict | None = None) -> subprocess.Popen:
    """`grade class` started in a session of its own, to be killed halfway."""
    return subprocess.Popen([sys.executable, "-m", "grader", "class", str(cls), "--jobs", str(jobs), "--gradebook",
                             str(book), "--no-counterexamples", "--feedback", "none"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def attempts(book: Path) -> list[tuple]:
    """(student, content) of every attempt the gradebook holds so far."""
    try:
        with sqlite3.connect(book, timeout=30) as db:
            return db.execute("SELECT student, content FROM attempts ORDER BY id").fetchall()
    except sqlite3.OperationalError:   # the grader is still creating the gradebook
        return []
