"""The grader's temporary folders, named by the process that made them.

A process killed outright (``kill -9``, the kernel's OOM killer, a Dask worker torn down, a
cluster job past its wall time) runs no cleanup: what it staged stays in TMPDIR for good, and
that is a student's submission, a class's download or a copy of the course. So every such
folder is ``grade-<kind>-<pid>-<random>``, and :func:`remove_stale` (run whenever a sandboxed
worker starts, so by every command that grades) deletes the ones whose process is gone. A
folder of a process that is alive, or of another user, is never touched. A pid is only meaningful
in its PID namespace: graders in containers that share one TMPDIR but not their PIDs must each be
given a TMPDIR of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_NAME = re.compile(r"grade-([a-z]+)-(\d+)-")


def prefix(kind: str) -> str:
    return f"grade-{kind}-{os.getpid()}-"


def temporary_folder(kind: str) -> tempfile.TemporaryDirectory:
    """A folder removed when the ``with`` block ends (or by a later run, should this process be killed)."""
    return tempfile.TemporaryDirectory(prefix=prefix(kind))


def make_folder(kind: str) -> Path:
    """A folder its maker removes itself (or a later run, should this process be killed)."""
    return Path(tempfile.mkdtemp(prefix=prefix(kind)))


def remove_stale() -> list[str]:
    """Delete the folders of grader processes that are gone; the names of those deleted."""
    removed = []
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return removed
    uid = os.getuid()
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or _alive(int(match.group(2))):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.name)
    return removed


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True          # never a grader's: leave it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
