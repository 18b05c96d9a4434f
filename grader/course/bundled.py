"""Where a course folder is, found from paths alone: the bundled course, and whether a folder is a
student kit's. Apart from the loader (grader/course/loader.py) because `grade check` needs the
course's folder before it loads the course: its sandboxed worker starts first (grader/sandbox/launch.py).
"""

from __future__ import annotations

from pathlib import Path

from grader.base.errors import CourseError


def is_kit_folder(root: Path) -> bool:
    """A course folder as the student wheel carries it: the kit's records (grader/kit/data.py)
    and no reference solutions."""
    root = Path(root)
    return not (root / "solutions" / "reference").is_dir() and (root / "kit" / "reference.rec").is_file()


def bundled_course_root() -> Path:
    """The bundled course: the repository's folders, or the copy inside an installed wheel."""
    package = Path(__file__).resolve().parents[1]   # grader/
    for candidate in (package / "_course", package.parent):
        if (candidate / "exercises").is_dir() and ((candidate / "solutions").is_dir()
                                                  or (candidate / "kit" / "reference.rec").is_file()):
            return candidate   # the instructor's course, or the student wheel's kit
    raise CourseError("the bundled course is missing from this installation")
