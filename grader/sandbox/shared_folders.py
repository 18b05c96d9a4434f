"""The folders a submission's uid could leave something in for another, in the ``user`` mode
(no bubblewrap, no Landlock; as root, each submission a uid of its own): one walk of the file
system finds every folder (and file) other users may write; where the worker cannot have a
mount namespace of its own (grader/sandbox/isolation.py: private mounts), what submission uids left there
is swept after each submission, at start-up and at exit, and what cannot be swept is reported.
"""

from __future__ import annotations

import atexit
import collections
import os
import shutil
import stat
import sys
import time
from dataclasses import dataclass
from functools import lru_cache


# Without bubblewrap, as root: each staged submission runs as a uid drawn from the 2**24 above
# this one (no account has such a uid; a draw shared with a leftover is killed with it).
SUBMISSION_UIDS = 0x2A000000


WALK_SECONDS = 10.0        # the start-up walk for the folders other users may write, at most


SWEEP_WALK_SECONDS = 60.0  # ... and for their files too, which the sweep needs whole


_NOT_WALKED = ("/proc", "/sys")   # the kernel's: nothing a uid leaves there outlives its processes


@dataclass(frozen=True)
class Writable:
    """What a uid of no account may write on this machine, found by one walk of it."""

    folders: tuple[str, ...]        # every folder writable by others (sticky or not), parents first
    files: tuple[tuple, ...]        # (path, inode, size, mtime_ns) of every file or fifo writable by others
    complete: bool                  # False: the walk ran out of time (WALK_SECONDS, SWEEP_WALK_SECONDS)


@lru_cache(maxsize=None)
def writable_by_others(with_files: bool = False) -> Writable:
    """Walk the whole file system once (not /proc or /sys, no symbolic link followed, not below a
    folder others may not enter) for the folders, and with ``with_files`` the files, that others
    may write: where a submission's uid could leave something for another. Cached for the
    process; ``cache_clear()`` to walk again."""
    deadline = time.monotonic() + (SWEEP_WALK_SECONDS if with_files else WALK_SECONDS)
    folders, files = [], []
    try:
        if os.lstat("/").st_mode & stat.S_IWOTH:
            folders.append("/")
    except OSError:
        pass
    queue = collections.deque(["/"])
    complete = True
    while queue:
        if time.monotonic() > deadline:
            complete = False
            break
        folder = queue.popleft()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    mode = entry.stat(follow_symlinks=False).st_mode
                    if entry.path in _NOT_WALKED or not mode & stat.S_IXOTH:   # no uid of ours gets in
                        continue
                    if mode & stat.S_IWOTH:
                        folders.append(entry.path)
                    queue.append(entry.path)
                elif with_files and not entry.is_symlink():
                    info = entry.stat(follow_symlinks=False)
                    if info.st_mode & stat.S_IWOTH and (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                        files.append((entry.path, info.st_ino, info.st_size, info.st_mtime_ns))
            except OSError:
                continue
    return Writable(tuple(folders), tuple(files), complete)


def _submission_uid(uid: int) -> bool:
    return SUBMISSION_UIDS <= uid < SUBMISSION_UIDS + (1 << 24)


def live_submission_uids() -> set[int]:
    """The submission uids some process still runs as (a child being graded now, in any worker);
    a zombie runs nothing."""
    live = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
            if fields.get("State", "").split()[:1] in (["Z"], ["X"]):
                continue
            live.update(u for u in map(int, fields.get("Uid", "").split()) if _submission_uid(u))
        except (OSError, ValueError):
            continue
    return live


_REPORTED: set[str] = set()   # each problem is said once a process


def _report(problems: list[str]) -> None:
    for problem in problems:
        if problem not in _REPORTED:
            _REPORTED.add(problem)
            sys.stderr.write(f"grade: warning: {problem}\n")


def sweep_leftovers(found: Writable, uid: int | None = None, finished: set = frozenset()) -> list[str]:
    """Remove every entry that ``uid`` (None: any submission uid with no live process left, and
    the ``finished`` ones whatever their processes) owns in the folders of ``found``, then look
    again: an entry of such a uid still there, a file writable by others that changed since
    start-up, or a walk that did not finish is a problem, reported."""
    live = set() if uid is not None else live_submission_uids() - set(finished)

    def left_by_submission(owner: int) -> bool:
        return owner == uid if uid is not None else _submission_uid(owner) and owner not in live

    def leftovers() -> list[str]:
        found_now = []
        for folder in found.folders:
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue
            for entry in entries:
                try:
                    if left_by_submission(entry.stat(follow_symlinks=False).st_uid):
                        found_now.append(entry.path)
                except OSError:
                    continue
        return found_now

    for path in leftovers():
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass
    problems = [f"{path}: left by a submission's uid and could not be removed" for path in leftovers()]
    for path, inode, size, mtime in found.files:
        try:
            info = os.lstat(path)
            changed = (info.st_ino, info.st_size, info.st_mtime_ns) != (inode, size, mtime)
        except OSError:
            changed = True
        if changed:
            problems.append(f"{path}: writable by every user, changed while submissions were graded "
                            "(a later submission may have read it)")
    if found.files:
        problems.append(f"{len(found.files)} files are writable by every user and cannot be swept "
                        f"(first: {found.files[0][0]}); chmod o-w them, or grade with bubblewrap")
    if not found.complete:
        problems.append(f"the walk for folders every user may write stopped after {SWEEP_WALK_SECONDS:g} s: "
                        "what lies beyond it is not swept")
    _report(problems)
    return problems


@lru_cache(maxsize=None)
def _sweep_at_exit() -> None:
    """Once a process: when the grader exits, every submission uid's leftovers go (their processes
    are gone by then), so nothing of this run's last submissions waits on the machine for the next run."""
    atexit.register(lambda: sweep_leftovers(writable_by_others(with_files=True)))
