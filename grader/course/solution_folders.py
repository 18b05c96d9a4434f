"""The course's solutions as a student would hand them in: the reference files with the answer key,
or the reference with one known mistake appended (its functions override the reference's).
``grade validate``, ``grade class`` (the reference graded once per run) and the kit's data
all start from these folders."""

from __future__ import annotations

import shutil
from pathlib import Path


def reference_folder(course, dest: Path) -> Path:
    """The reference files plus the answer key, as a student would hand them in."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in course.reference_dir.iterdir():
        if path.suffix in (".py", ".yaml"):
            shutil.copy2(path, dest / path.name)
    return dest


def mistake_folder(course, mistake, variant: Path, dest: Path) -> Path:
    reference_folder(course, dest)
    target = dest / course.exercises[mistake.exercise].file
    wrong = variant.read_text(encoding="utf-8")
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + wrong, encoding="utf-8")
    return dest
