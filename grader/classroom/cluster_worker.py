"""The Dask worker's side of ``grade class --scheduler`` (CONTRACT section 9).

:class:`WarmGrader` is a Dask worker plugin: it travels to every worker of the cluster (and
to workers that join or restart later) with the course as bytes and the run's settings.
As soon as a worker gets it (the client registers it right after connecting), a thread of
that worker unpacks the course into a private folder, computes the test vectors and
reference results and starts the sandboxed worker process, while the client is still
finding, hashing and loading the class: the first task finds the grader warm, and every
later task reuses it, as a local grading process does.

:func:`grade_batch` is the task: a few submissions, each loaded and packed by the client
(grader/submission/packed.py), graded one after the other exactly as a local run grades
them (grader/classroom.grade_loaded). A worker that cannot grade as the client asked (no
bubblewrap when the run wants the sandbox, another grader version, another course secret)
answers every task with a refusal instead of grades, and the client stops the run.
"""

from __future__ import annotations

import asyncio
import gc
import io
import shutil
import threading
import time
import zipfile
from pathlib import Path

from distributed import WorkerPlugin, get_worker

import grader
from grader.base.temp_folders import make_folder, temporary_folder
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
    """One warm grader per Dask worker process, built in the background from the moment the
    worker gets the plugin."""

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
        self.quieted = quiet_profiler(worker)
        self.building = threading.Thread(target=self._build_now, name="rnn-grader-warm-up", daemon=True)
        self.building.start()

    async def teardown(self, worker):
        """Once the build and any task still grading are done (in a thread: the worker's event
        loop goes on), the warm grader and its sandbox stopped, the course removed."""
        await asyncio.to_thread(self._close)
        for callback in self.quieted:
            callback.start()

    def _close(self):
        self.building.join()
        with self.lock:
            if self.grader is not None:
                self.grader.close()
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
            self.grader = self.folder = None

    def _build_now(self):
        """At setup, in a thread of its own: the warm grader, or the refusal, ready for the
        first task. The sandboxed worker it starts inherits this thread's batch scheduling, as
        a local grading process's does (grader/classroom.batch_scheduling)."""
        from grader.classroom.class_run import batch_scheduling

        with batch_scheduling():
            try:
                self._warm()
            except Exception:  # noqa: BLE001 -- the first task builds again, and says why it cannot
                pass

    def warm(self):
        """The warm grader, or Refused: the one built at setup (waited for), else built now."""
        self.building.join()
        return self._warm()

    def _warm(self):
        if self.refusal is not None:
            raise Refused(self.refusal)
        if self.grader is None:
            if self.folder is not None:          # a build that failed midway: start afresh
                shutil.rmtree(self.folder, ignore_errors=True)
                self.folder = None
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
        self.folder = make_folder("course")
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
        try:
            warm_up(warm, course, only)
        except BaseException:
            warm.close()
            raise
        if settings["feedback"] is not None:
            kind, lang = settings["feedback"]
            self.feedback = FeedbackWriter(self.folder / "unused", kind, lang, course.messages)   # renders only
        gc.freeze()      # the warm vectors and results live as long as the worker
        return warm


def quiet_profiler(worker) -> list:
    """Stop the worker's statistical profiler while the plugin is there (restarted at teardown):
    every 10 ms it takes the interpreter from the grading thread to walk its stack, a cost per
    submission that a local grading process does not pay (see benchmarks/README.md). With two
    runs' plugins on a worker, the first one's teardown turns it on again."""
    callbacks = [getattr(worker, "periodic_callbacks", {}).get(name) for name in ("profile", "profile-cycle")]
    running = [c for c in callbacks if c is not None and c.is_running()]
    for callback in running:
        callback.stop()
    return running


def grade_batch(batch: list, only: tuple, plugin_name: str = PLUGIN_NAME):
    """The task: ``batch``, a list of (student, packed submission), graded on this worker one
    after the other by the warm grader of the run's plugin (registered as ``plugin_name``).
    Returns, in order, what a local grading process returns for each
    (grader/classroom.grade_loaded), or ``{"refused": why, "worker": address}``."""
    from grader.classroom.class_run import batch_scheduling

    plugin = get_worker().plugins[plugin_name]
    with plugin.lock, batch_scheduling():
        try:
            warm = plugin.warm()
        except Refused as exc:
            return {"refused": str(exc), "worker": plugin.address}
        return [grade_one(warm, plugin.feedback, student, packed, only) for student, packed in batch]


def grade_one(warm, feedback, student: str, packed: dict, only: tuple):
    from grader.classroom.class_run import grade_loaded, not_graded
    from grader.submission.packed import unpack

    start = time.perf_counter()
    with temporary_folder("dask") as folder:
        try:
            submission = unpack(packed, Path(folder), student)
        except (OSError, ValueError) as exc:
            return student, None, not_graded(exc), time.perf_counter() - start
        return grade_loaded(warm, feedback, student, submission, only, start)
