"""The cases hypothesis draws for a counterexample search, kept between runs.

Drawing them (grader/checks/choices.py: drawn) runs hypothesis's engine: 0.1 to 0.2 s per function
(and 0.1 s to import hypothesis), the largest part of a lone `grade check` of a submission
with a mistake the ladder cannot fault. The draw is derandomised, so it is the same every
run for the same course, builder and hypothesis: what is kept is only the choice indexes of
each case, replayed through the course's builder on the next run (milliseconds). The
reference's results are computed again each run, never read from here.

Where: the cache folder (grader/base/cache_folder.py). A file is named by a digest of everything
the draw depends on (the
course's exercise folder, the grader, hypothesis's version, the function and the number of
cases), so a changed course or tool never reads a stale one. What is read is checked to be
lists of small non-negative integers; anything else is drawn again. Student code cannot
reach the folder (the sandbox shows it no home folder, and the confined fallback gives it
another uid); even a forged file only picks other inputs of the same builder, whose
expected results still come from the reference: feedback, never marks.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from grader.base.cache_folder import cache_dir, store_json
from grader.base.code_digest import add_files, grader_digest

MAX_ENTRIES = 10_000     # cases in one file, at most (a tier holds 60)
MAX_INDEX = 1 << 20      # a choice index, at most (builders offer a few hundred options)


def course_digest(course_root: Path) -> str:
    """What the drawn cases of a course depend on: its exercise folder (the builders live in its
    check modules), the grader's code and version, and hypothesis's version."""
    from importlib import metadata   # 8 ms (email, zipfile): only when a search looks for kept cases

    digest = hashlib.sha256(grader_digest().encode())
    try:
        digest.update(metadata.version("hypothesis").encode())
    except metadata.PackageNotFoundError:
        digest.update(b"no hypothesis")
    add_files(digest, Path(course_root) / "exercises")
    return digest.hexdigest()


def _valid(data) -> bool:
    return (type(data) is list and len(data) <= MAX_ENTRIES
            and all(type(row) is list and len(row) <= MAX_ENTRIES
                    and all(type(i) is int and 0 <= i <= MAX_INDEX for i in row) for row in data))


def cached_indexes(key: str, draw) -> list[tuple[int, ...]]:
    """The choice indexes stored under ``key``, or ``draw()``'s, stored for the next run."""
    folder = cache_dir()
    path = folder / f"drawn-{key}.json" if folder is not None else None
    if path is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if _valid(data):
                return [tuple(row) for row in data]
        except (OSError, ValueError):
            pass
    indexes = [tuple(int(i) for i in row) for row in draw()]
    if path is not None:
        store_json(path, [list(row) for row in indexes])
    return indexes
