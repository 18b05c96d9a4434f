"""Digests of the code a result depends on: the grader's own (a Dask worker running other code
would grade otherwise: grader/classroom/cluster_worker.py) and a course folder's (the drawn counterexample
cases kept between runs come from the course's builders: grader/grading/tier_cache.py).

Every part a digest takes in is framed by its length (:func:`put`), so the parts can be read
back one way only: a file named ``a.py`` holding ``xb.py\\0y`` never digests like two files
``a.py`` and ``b.py`` (issue 41). The class gradebook's content hashes frame their parts the
same way (grader/classroom/class_run.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import grader


def put(digest, data: bytes) -> None:
    """One part into ``digest``: its length (8 bytes, big-endian), then its bytes."""
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)


def add_files(digest, folder: Path, suffixes=(".py", ".yaml"), skip=()) -> None:
    """Every file under ``folder`` with one of ``suffixes`` into ``digest``, by path relative to
    ``folder`` and content, each a framed part (:func:`put`); nothing under ``__pycache__`` or a
    top-level folder in ``skip``."""
    folder = Path(folder)
    for file in sorted(folder.rglob("*")):
        relative = file.relative_to(folder)
        if (file.is_file() and file.suffix in suffixes and "__pycache__" not in relative.parts
                and relative.parts[0] not in skip):
            put(digest, relative.as_posix().encode("utf-8", "surrogateescape"))
            put(digest, file.read_bytes())


def grader_digest() -> str:
    """The grader's version and code. An installed wheel carries the bundled course in
    grader/_course, a checkout does not: the course is left out (a run names its own), so
    both digest alike."""
    digest = hashlib.sha256()
    put(digest, grader.__version__.encode())
    add_files(digest, Path(grader.__file__).parent, skip=("_course",))
    return digest.hexdigest()[:16]
