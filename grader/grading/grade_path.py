"""Grading a path: what a student handed in (a folder, .py, .ipynb or .zip), loaded into a
private copy (grader/submission/load.py) and graded (grader/grading/engine.py).

Every command that grades a path does it here: ``grade check``, the kit's pytest plugin,
``grade class`` (its warm-up on the reference, then each student), ``grade validate`` and
the kit's recorded data (grader/kit/data.py). Each handles errors its own way: a submission
that cannot be loaded raises :class:`grader.base.errors.SubmissionError` from here.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.submission.load import load_submission


def grade_path(path, grader, only=(), *, kind: str = "check", on_start=None, progress=None):
    """Load the submission at ``path`` into a new temporary folder (grader/base/temp_folders.py:
    ``kind`` names it; removed before this returns), grade it and return its
    :class:`grader.report.results.SubmissionResult`.

    ``grader``: a :class:`grader.grading.engine.Grader`, or a function of no arguments that makes one:
    it is then called only once the submission is loaded (one that cannot be loaded costs
    no worker), and the Grader it makes is closed before this returns.
    ``on_start(isolation)``: called once the submission is loaded and the grader is there,
    before grading, with how student code is isolated (``grader.sandbox.worker.isolation``, see
    grader/sandbox/isolation.py); ``grade check`` warns then.
    ``progress``: a function of no arguments making a progress context manager
    (grader/progress.make_progress), made and entered around the grading alone; what it
    gives is told of each exercise."""
    with temporary_folder(kind) as workdir:
        submission = load_submission(Path(path), Path(workdir))
        made = grader() if callable(grader) else None
        with made if made is not None else contextlib.nullcontext(grader) as grading:
            if on_start is not None:
                on_start(grading.worker.isolation)
            with progress() if progress is not None else contextlib.nullcontext() as told:
                return grading.grade(submission, only, progress=told)
