"""Which install this is: the instructor's, or a student kit's (the student wheel).

The student wheel (grader/kit/student_wheel.py) bundles the course as a kit: ``exercises/`` and
``kit/`` (the records ``grade release`` made, ``kit/reference.rec`` among them), and no
``solutions/``: no reference, no known-mistake implementations, no answer key. Nor does a
student's machine hold the course secret hidden checks draw from. What such an install can do
is ``grade check``, ``grade list`` and the kit's pytest (and the commands that need only what
they are given: ``report``, ``export`` and ``adjust`` a gradebook, ``similarity`` of a folder).
The instructor's commands (``class``, ``validate``, ``release``, ``gradescope-bundle``) need
the course's ``solutions/``: in a student install they stop at once with one line (exit code 2)
instead of failing halfway, unless ``--course`` names an instructor's course folder (with
``solutions/``), whose reference, answer key and mistakes they then use as in any install.
"""

from __future__ import annotations

from pathlib import Path

from grader.base.errors import BadInput, CourseError
from grader.course.loader import bundled_course_root, is_kit_folder

INSTRUCTOR_INSTALL = ("install the grader from the course's repository (pip install . in its checkout), "
                      "or pass --course with the instructor's course folder (exercises/ and solutions/)")


class InstructorOnly(BadInput):
    """A command of the instructor's, asked of a student install: one line, exit code 2."""


def student_install() -> bool:
    """Whether this install is a student kit's: its bundled course is a kit."""
    try:
        return is_kit_folder(bundled_course_root())
    except CourseError:
        return False      # no bundled course: the command says so itself


def require_instructor(command: str, course_dir: Path | None = None) -> None:
    """Stop ``grade <command>`` where the course it would use is a student kit's: the bundled course
    of a student install (no ``--course``), or a ``--course`` folder that is itself a kit."""
    if course_dir is None:
        if student_install():
            raise InstructorOnly(f"grade {command} needs the instructor's install: this is a student kit's "
                                 f"install, without the reference solutions, answer key or course secret; "
                                 f"{INSTRUCTOR_INSTALL}")
    elif Path(course_dir).is_dir() and is_kit_folder(course_dir):
        raise InstructorOnly(f"grade {command} needs the instructor's course: {course_dir} is a student kit's "
                             f"course (no solutions/); pass the course folder with exercises/ and solutions/")
