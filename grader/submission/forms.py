"""What a student can hand in, in one table: a folder, or one file of a form below, by its
suffix. Every place that asks "is this a submission?" reads it: loading one
(grader/submission/load.py, which runs each form's loader), ``grade class``'s entries
(grader/classroom/class_run.py), an LMS download's files (grader/classroom/lms_layouts.py), the
kit's watch (grader/kit/watch.py) and its pytest plugin (grader/kit/pytest_plugin.py); the words
for what is not one come from here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Form:
    suffix: str          # lower case, with its dot
    called: str          # as "give a folder, ..." names it
    loader: str          # the function of grader/submission/load.py that loads one such file
    in_folder: bool      # a file of this form at a folder's top is the student's work (a .zip there is not)


FORMS = {form.suffix: form for form in (
    Form(".py", "a .py file", "_load_py_file", in_folder=True),
    Form(".ipynb", "a .ipynb notebook", "_load_notebook_file", in_folder=True),
    Form(".zip", "a .zip", "_load_zip_file", in_folder=False),
)}
SUFFIXES = tuple(FORMS)                                          # a file handed in as a whole submission
SOURCE_SUFFIXES = tuple(s for s, form in FORMS.items() if form.in_folder)   # a folder's student files
PY, NOTEBOOK, ZIP = SUFFIXES
ANSWERS_NAMES = ("answers.yaml", "answers.yml")                  # the quiz's answers (any letter case)
ANSWERS_SUFFIXES = tuple(Path(name).suffix for name in ANSWERS_NAMES)


def _either(words) -> str:
    words = list(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


# Why a file is no submission (``grade class``: an entry skipped, an LMS download's file unmatched).
NOT_A_SUBMISSION = "not a folder, " + _either(SUFFIXES)
# Why a folder holds nothing to grade.
NOTHING_TO_GRADE = "no " + _either([*SOURCE_SUFFIXES, ANSWERS_NAMES[0]])


def unsupported(suffix: str, shown: str) -> str:
    """The error for a file of no form above."""
    what = f"'{suffix}'" if suffix else "(no suffix)"
    return f"unsupported file type {what}: {shown}; give " + _either(["a folder", *(f.called for f in FORMS.values())])


def form_of(path) -> Form | None:
    """The form of the file at ``path`` by its suffix (any letter case), or None."""
    return FORMS.get(Path(path).suffix.lower())


def is_submission_file(path) -> bool:
    return form_of(path) is not None


def is_zip(path) -> bool:
    """A ``.zip`` (a student's, or a class's download)."""
    return Path(path).suffix.lower() == ZIP
