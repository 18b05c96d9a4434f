"""The Dask worker's side of ``grade class --scheduler`` (CONTRACT section 9).

:class:`WarmGrader` is a Dask worker plugin: it travels to every worker of the cluster (and
to workers that join or restart later) with the course as bytes and the run's settings.
On a worker's first task it unpacks the course into a private folder, computes the test
vectors and reference results, and starts the sandboxed worker process, once: later tasks
on that worker reuse the warm grader, as a local grading process does.

:func:`grade_packed` is the task: one submission, loaded and packed by the client
(grader/submission/packed.py), graded exactly as a local run grades it
(grader/classroom.grade_loaded). A worker that cannot grade as the client asked (no
bubblewrap when the run wants the sandbox, another grader version, another course secret)
answers every task with a refusal instead of a grade, and the client stops the run.
"""

from __future__ import annotations

import gc
import io
import shutil
import tempfile
import threading
import time
import zipfile
from pathlib import Path

from distributed import WorkerPlugin, get_worker

import grader
from grader.base.code_digest import grader_digest   # a worker running other code refuses the run

PLUGIN_NAME = "rnn-grader"
COURSE_FOLDERS = ("exercises", "solutions")


def pack_course(root: Path) -> bytes:
    """The course folder's exercises/ and solutions/ as a zip (a few hundred KiB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder in COURSE_FOLDERS:
            for file in sorted((Path(root) / folder).rglob("*")):
                if file.is_file() and not file.is_symlink() and "__pycache__" not in file.parts:
                    archive.write(file, file.relative_to(root).as_posix())
    return buffer.getvalue()


class Refused(Exception):
    """This worker cannot grade the run as the client asked; the message says why."""


class WarmGrader(WorkerPlugin):
    """One warm grader per Dask worker process, built on its first task."""

    name = PLUGIN_NAME

    def __init__(self, settings: dict):
        # course (zip bytes), course_name, secret_fingerprint, grader_digest, isolation,
        # counterexamples, only, feedback (kind, lang) or None
        self.settings = settings

    def setup(self, worker):
        self.address = worker.address
        self.lock = threading.Lock()       # one grader, one submission at a time (--nthreads 1 is best)
        self.grader = None
        self.feedback = None
        self.folder = None
        self.refusal = None

    def teardown(self, worker):
        with self.lock:
            if self.grader is not None:
                self.grader.close()
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
            self.grader = self.folder = None

    def warm(self):
        """The warm grader (built on first use, under the lock), or Refused."""
        if self.refusal is not None:
            raise Refused(self.refusal)
        if self.grader is None:
            try:
                self.grader = self._build()
            except Refused as exc:
                self.refusal = str(exc)
                raise
        return self.grader

    def _build(self):
        from grader.classroom.class_run import warm_up
        from grader.course.loader import load_course
        from grader.base.errors import CourseError
        from grader.grading.engine import Grader
        from grader.classroom.feedback import FeedbackWriter
        from grader.course.runtime import CourseRuntime
        from grader.sandbox.isolation import confinement_unavailable
        from grader.course.secret import fingerprint, secret_named

        settings = self.settings
        if grader_digest() != settings["grader_digest"]:
            raise Refused(f"it runs rnn-grader {grader.__version__} with other code than the client's; "
                          "install the same version on the client and every worker")
        if settings["isolation"] == "sandbox":
            reason = confinement_unavailable()
            if reason:
                raise Refused(f"no sandbox ({reason}); install bubblewrap there, or pass --no-sandbox "
                              "to grade anyway")
        try:
            secret = secret_named(settings["course_name"])
        except CourseError as exc:
            raise Refused(str(exc)) from None
        if fingerprint(secret) != settings["secret_fingerprint"]:
            raise Refused("its course secret is not the client's (hidden inputs would differ): set "
                          "GRADER_SECRET to the same value on the client and every worker")
        self.folder = Path(tempfile.mkdtemp(prefix="grade-course-"))
        with zipfile.ZipFile(io.BytesIO(settings["course"])) as archive:
            for name in archive.namelist():       # written by pack_course: relative, no links
                if name.startswith("/") or ".." in Path(name).parts:
                    raise Refused(f"a course file outside the course: {name!r}")
            archive.extractall(self.folder)
        course = load_course(self.folder)
        only = settings["only"]
        course.select(only)
        warm = Grader(course, runtime=CourseRuntime(course, secret=secret), isolation=settings["isolation"],
                      counterexamples=settings["counterexamples"])
        warm_up(warm, course, only)
        if settings["feedback"] is not None:
            kind, lang = settings["feedback"]
            self.feedback = FeedbackWriter(self.folder / "unused", kind, lang, course.messages)   # renders only
        gc.freeze()      # the warm vectors and results live as long as the worker
        return warm


def grade_packed(student: str, packed: dict, only: tuple):
    """The task: a packed submission graded on this worker. Returns what a local grading
    process returns (grader/classroom.grade_loaded), or ``{"refused": why, "worker": address}``."""
    from grader.classroom.class_run import grade_loaded, not_graded
    from grader.submission.packed import unpack

    start = time.perf_counter()
    plugin = get_worker().plugins[PLUGIN_NAME]
    with plugin.lock:
        try:
            warm = plugin.warm()
        except Refused as exc:
            return {"refused": str(exc), "worker": plugin.address}
        with tempfile.TemporaryDirectory(prefix="grade-dask-") as folder:
            try:
                submission = unpack(packed, Path(folder), student)
            except (OSError, ValueError) as exc:
                return student, None, not_graded(exc), time.perf_counter() - start
            return grade_loaded(warm, plugin.feedback, student, submission, only, start)
