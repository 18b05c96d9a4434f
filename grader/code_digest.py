"""Digests of the code a result depends on: the grader's own (a Dask worker running other code
would grade otherwise: grader/cluster_worker.py) and a course folder's (the drawn counterexample
cases kept between runs come from the course's builders: grader/tier_cache.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import grader


def add_files(digest, folder: Path, suffixes=(".py", ".yaml"), skip=()) -> None:
    """Every file under ``folder`` with one of ``suffixes`` into ``digest``, by path relative to
    ``folder`` and content; nothing under ``__pycache__`` or a top-level folder in ``skip``."""
    folder = Path(folder)
    for file in sorted(folder.rglob("*")):
        relative = file.relative_to(folder)
        if (file.is_file() and file.suffix in suffixes and "__pycache__" not in relative.parts
                and relative.parts[0] not in skip):
            digest.update(relative.as_posix().encode() + b"\0" + file.read_bytes())


def grader_digest() -> str:
    """The grader's version and code. An installed wheel carries the bundled course in
    grader/_course, a checkout does not: the course is left out (a run names its own), so
    both digest alike."""
    digest = hashlib.sha256(grader.__version__.encode())
    add_files(digest, Path(grader.__file__).parent, skip=("_course",))
    return digest.hexdigest()[:16]
