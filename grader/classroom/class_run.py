"""``grade class DIR``: every entry of DIR is one student's submission.

The parent process finds the submissions, warms the course's test vectors and
reference results once, then forks ``jobs`` grading processes, each with its
own warm sandboxed worker. Results are written to the gradebook as they
arrive (one transaction per attempt), so an interrupted or killed run keeps
every finished attempt, and the next run grades only what is missing or
changed.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import multiprocessing.util
import os
import signal
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import grader
from grader.base.temp_folders import temporary_folder
from grader.base.code_digest import put
from grader.grading.engine import Grader
from grader.sandbox.trusted_calls import die_with_parent
from grader.base.errors import SubmissionError
from grader.grading.grade_path import grade_path
from grader.submission.forms import NOT_A_SUBMISSION, is_submission_file
from grader.classroom.gradebook import SYSTEM_ENTRY, Gradebook, prepare
from grader.course.secret import course_secret_fingerprint

POOL_KILLED = "its grading process died twice, the second time grading it alone (out of memory?)"


@dataclass
class Entry:
    student: str
    path: Path
    notes: list = field(default_factory=list)  # Messages for this student's feedback (classroom/lms_layouts.py)
    members: list = field(default_factory=list)    # more students graded with this entry (a group submission)
    info: list = field(default_factory=list)       # gradebook.SubmissionInfo of the student and each member


@dataclass
class FoundEntries:
    """The entries of a download as grader/classroom/lms_layouts.py grouped them, instead of :func:`find_entries`."""

    entries: list[Entry]
    skipped: list[tuple[str, str]]
    private: list[Path] = field(default_factory=list)    # staged copies: kept from student code too
    shown: list[str] = field(default_factory=list)      # the grouping as printed once grading starts


@dataclass
class ClassRun:
    entries: list[Entry]
    skipped: list[tuple[str, str]]                       # (entry name, why)
    graded: list[str] = field(default_factory=list)       # students graded in this run
    unchanged: list[str] = field(default_factory=list)    # students whose latest attempt was reused
    failed: list[tuple[str, str]] = field(default_factory=list)   # (student, why it could not be graded)
    interrupted: bool = False


def find_entries(directory: Path) -> tuple[list[Entry], list[tuple[str, str]]]:
    entries, skipped, seen = [], [], {}
    for path in sorted(directory.iterdir(), key=lambda p: p.name):
        name = path.name
        if name.startswith(".") or name.startswith("__"):
            skipped.append((readable(name), SYSTEM_ENTRY))
            continue
        if path.is_symlink():
            skipped.append((readable(name), "a symbolic link"))
            continue
        if path.is_dir():
            student = readable(name)
        elif path.is_file() and is_submission_file(path):
            student = readable(path.stem)
        else:
            skipped.append((readable(name), NOT_A_SUBMISSION))
            continue
        if student in seen:
            skipped.append((readable(name), f"another entry is already student {student!r} ({seen[student]})"))
            continue
        seen[student] = name
        entries.append(Entry(student, path))
    return entries, skipped


def readable(name: str) -> str:
    """A student name as valid text: a file name that is not UTF-8 keeps its bytes as escapes."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def content_hash(path: Path, course_fingerprint: str) -> str:
    """What was graded: the entry's kind (one file or a folder), names and bytes (symlinks not
    followed), and the course. Every part is framed by its length and each file's bytes enter as
    their own digest (grader/base/code_digest.py: put), so no two different entries hash alike: a
    folder holding ``a.py`` = ``x`` and ``b.py`` = ``y`` is not one holding only ``a.py`` =
    ``xb.py\\0y`` (issue 41). A gradebook from before this framing matches no entry: each
    student is graded again once."""
    digest = hashlib.sha256()
    put(digest, course_fingerprint.encode("utf-8", "surrogateescape"))
    single = path.is_file()
    put(digest, b"file" if single else b"folder")
    files = [path] if single else sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    for file in files:
        relative = file.relative_to(path).as_posix() if file != path else file.name
        put(digest, relative.encode("utf-8", "surrogateescape"))
        content = hashlib.sha256()
        try:
            with open(file, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    content.update(block)
        except OSError:
            put(digest, b"unreadable")
        else:
            put(digest, b"bytes " + content.digest())
    return digest.hexdigest()


def course_fingerprint(course) -> str:
    """Changes when the course or the grader changes, so stale grades are redone. Each file
    enters as two framed parts, its path and its bytes (grader/base/code_digest.py: put)."""
    digest = hashlib.sha256()
    put(digest, grader.__version__.encode())
    put(digest, course_secret_fingerprint(course).encode())   # hidden inputs follow the secret (never stored)
    for folder in (course.root / "exercises", course.root / "solutions", Path(grader.__file__).parent):
        for file in sorted(folder.rglob("*")):
            if file.is_file() and file.suffix in (".py", ".yaml") and "__pycache__" not in file.parts:
                put(digest, file.as_posix().encode("utf-8", "surrogateescape"))
                put(digest, file.read_bytes())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------- the grading processes

_GRADER: Grader | None = None
_PREPARED: dict = {}


def _init_job():
    """In each grading process: its own sandboxed worker; Ctrl-C is the parent's to handle.
    A job sends back only what the gradebook and the feedback file hold (strings and rows),
    rendered here: the parent stays light, and its memory does not grow with the class."""
    global _GRADER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(_PREPARED.get("parent"))
    settings = _PREPARED
    _GRADER = Grader(settings["course"], runtime=settings["runtime"], isolation=settings["isolation"],
                     counterexamples=settings["counterexamples"], private=settings["private"])
    # Pool processes end through multiprocessing's exit path, which runs these finalizers.
    multiprocessing.util.Finalize(None, _GRADER.close, exitpriority=10)
    # The warm test vectors, reference results and plans live as long as the process:
    # the garbage collector need not walk them again and again.
    gc.freeze()


def _die_with_parent(parent: int | None) -> None:
    """This grading process is killed when the run's process dies, however it dies: after a
    ``kill -9`` of ``grade class`` (not of its process group) the grading processes would
    otherwise wait for work forever, each with its warm sandboxed worker (which goes with its
    grading process: bwrap --die-with-parent). Linux only; elsewhere nothing changes."""
    if die_with_parent() and parent is not None and os.getppid() != parent:   # it died before: no signal will come
        os._exit(1)


@contextlib.contextmanager
def batch_scheduling():
    """A local class run is batch work (SCHED_BATCH, inherited by the grading processes and
    their workers): a process woken by another's message (a grading process by its worker's
    reply, the parent by a result) then waits for a free core instead of taking the sender's
    at once. Each planned call's reply wakes its grading process, so on a busy machine the two
    would otherwise swap places hundreds of times per submission (issue 15: 6% of a class's
    time on 2 cores). Marks and timeouts are unchanged. The caller's policy is restored after;
    where it cannot be set (not Linux) nothing changes."""
    try:
        before = os.sched_getscheduler(0), os.sched_getparam(0)
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        yield
        return
    try:
        yield
    finally:
        try:
            os.sched_setscheduler(0, *before)
        except OSError:
            pass


def _grade_one(student: str, path: str, only: tuple, notes: tuple = ()):
    """One student's entry loaded and graded (grader/grading/grade_path.py), as :func:`grade_loaded` returns it;
    ``notes``: what the download's layout tells this student (a resubmission, a renamed file)."""
    from grader.quiz.variants import for_student

    start = time.perf_counter()
    # a quiz's variant questions are graded with this student's own values (grader/quiz/variants.py)
    with for_student(_PREPARED.get("variant_secret"), student):
        return outcome(_PREPARED["feedback"], student, start, lambda: grade_path(Path(path), _GRADER, only,
                                                                                 kind="class"), notes)


def grade_loaded(grader_: Grader, feedback, student: str, submission, only: tuple, start: float):
    """One loaded submission graded, as what the gradebook and the feedback file keep:
    (student, (PreparedAttempt, feedback text) or None, why not graded or None, seconds).
    Dask workers (grader/classroom/cluster_worker.py) end here; local grading processes load and
    grade in one step (:func:`_grade_one`) and keep the same. A quiz's variant questions are
    graded with ``student``'s values, from the secret the worker checked against the client's."""
    from grader.quiz.variants import for_student, has_variants

    secret = getattr(grader_.runtime, "_secret", None) if has_variants(grader_.course) else None
    with for_student(secret, student):
        return outcome(feedback, student, start, lambda: grader_.grade(submission, only))


def outcome(feedback, student: str, start: float, grade, notes: tuple = ()):
    """``grade()``'s result as the gradebook and the feedback file keep it, or why it could not
    be graded (see :func:`grade_loaded`): one submission never stops the class. ``notes`` come
    first among the result's notes."""
    try:
        result = grade()
    except SubmissionError as exc:
        return student, None, str(exc), time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
        return student, None, not_graded(exc), time.perf_counter() - start
    result.source = student
    result.notes[:0] = list(notes)
    text = feedback.render(result, student) if feedback else None
    return student, (prepare(result), text), None, time.perf_counter() - start


def with_notes(attempt, notes: list, feedback, student: str):
    """A graded attempt (and its feedback text) with ``notes`` first among its result's notes, as a
    local grading process adds them (:func:`outcome`); for results graded on a Dask worker."""
    import json

    from grader.report.results import SubmissionResult, message_data

    data = json.loads(attempt.result)
    data["notes"][:0] = [message_data(n) for n in notes]
    attempt.result = json.dumps(data, ensure_ascii=False)
    text = feedback.render(SubmissionResult.from_data(data), student) if feedback else None
    return attempt, text


def not_graded(exc: Exception) -> str:
    return f"could not be graded ({type(exc).__name__}: {exc})"[:500]


def warm_up(grader_: Grader, course, only):
    """Build every test vector and reference result once, before the jobs fork."""
    from grader.course.solution_folders import reference_folder

    with temporary_folder("warm") as tmp:
        folder = reference_folder(course, Path(tmp) / "reference")
        grade_path(folder, grader_, only, kind="warm")
    if grader_.counterexamples:
        from grader.grading.counterexample import warm_ladders

        warm_ladders(grader_.runtime, [e for e in course.select(only) if not e.is_quiz])


def grade_class(course, directory: Path, gradebook: Gradebook, *, jobs: int, only=(), force=False,
                isolation="sandbox", counterexamples=True, feedback=None, progress=None, cluster=None,
                found: FoundEntries | None = None) -> ClassRun:
    """Grade every changed submission of ``directory`` into ``gradebook``; ``feedback``: a
    FeedbackWriter for one file per student; ``cluster``: a grader.classroom.cluster.DaskPool to grade
    on instead of ``jobs`` local processes (closed here); ``found``: the entries of an LMS
    download (grader/classroom/lms_layouts.py) instead of each entry of ``directory``. A group
    submission is graded once and recorded for each of its members."""
    entries, skipped = (found.entries, found.skipped) if found is not None else find_entries(directory)
    run = ClassRun(entries=entries, skipped=skipped)
    fingerprint = course_fingerprint(course) + ":" + ",".join(only)
    run_id = gradebook.start_run(str(directory), fingerprint)
    for name, why in skipped:
        gradebook.record_skipped(run_id, readable(name), why)
    for entry in entries:
        for info in entry.info:
            gradebook.record_submission(run_id, info)
    todo = []
    for entry in entries:
        content = content_hash(entry.path, fingerprint)
        if not force and all(gradebook.has_content(s, content) for s in (entry.student, *entry.members)):
            run.unchanged += [entry.student, *entry.members]
        else:
            todo.append((entry, content))
    if progress:
        progress.start(total=len(todo))
    if not todo:
        gradebook.finish_run(run_id)
        if cluster is not None:
            cluster.close()
        return run

    if cluster is None:
        # Every student's folder, the gradebook and the feedback are kept from student code too.
        private = [directory.resolve(), gradebook.path.resolve()] + ([feedback.folder] if feedback else []) \
            + [path.resolve() for path in (found.private if found is not None else ())]
        with Grader(course, isolation=isolation, counterexamples=counterexamples, private=private) as warm:
            warm_up(warm, course, only)
            _PREPARED.update(course=course, runtime=warm.runtime, isolation=isolation, parent=os.getpid(),
                             counterexamples=counterexamples, feedback=feedback, private=private,
                             variant_secret=_variant_secret(course))
    if feedback:
        feedback.reserve([s for entry in entries for s in (entry.student, *entry.members)])
    contents = {entry.student: content for entry, content in todo}
    members = {entry.student: entry.members for entry, _ in todo}
    # a Dask worker grades what was packed, without the layout's notes: they are added here
    late_notes = {entry.student: entry.notes for entry, _ in todo if entry.notes} if cluster is not None else {}

    def record(student, graded, problem):
        if graded is None:
            for each in (student, *members.get(student, ())):
                run.failed.append((each, problem))
                gradebook.record_skipped(run_id, each, problem)
        else:
            attempt, feedback_text = graded
            if student in late_notes:
                attempt, feedback_text = with_notes(attempt, late_notes[student], feedback, student)
            for each in (student, *members.get(student, ())):
                gradebook.record_prepared(run_id, each, contents[student], attempt)
                run.graded.append(each)
                if feedback:
                    feedback.save(each, feedback_text)
        if progress:
            progress.advance(student)

    pool = cluster if cluster is not None else _Pool(max(1, jobs))
    with batch_scheduling() if cluster is None else contextlib.nullcontext():
        try:
            pool.grade_all([entry for entry, _ in todo], tuple(only), record)
        except KeyboardInterrupt:
            run.interrupted = True
            pool.stop()
            gradebook.finish_run(run_id, "interrupted")
            raise
        except Exception:      # a cluster that refuses: what was graded stays, the run is stopped
            pool.stop()
            gradebook.finish_run(run_id, "interrupted")
            raise
        pool.close()
    gradebook.finish_run(run_id)
    return run


def _variant_secret(course) -> bytes | None:
    """The course secret, where a quiz question is drawn per student (grader/quiz/variants.py)."""
    from grader.course.secret import course_secret
    from grader.quiz.variants import has_variants

    return course_secret(course) if has_variants(course) else None


class _Pool:
    """The grading processes, made again whenever one of them dies.

    A grading process that dies (the kernel's OOM killer ends a trusted process that a
    submission drove beyond memory; a crash) breaks a ProcessPoolExecutor: every
    submission it held fails with it. Only two submissions per job are handed out at a
    time, so a break concerns those only; each of them is graded again alone, in a fresh
    pool, and one that breaks that pool too is recorded as not graded. The others go on
    in parallel afterwards."""

    IN_FLIGHT_PER_JOB = 2      # one being graded, one queued: no job waits for the parent

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.generation = 0
        self.executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_init_job)

    def grade_all(self, entries: list[Entry], only: tuple, record) -> None:
        """Grade every entry; ``record(student, graded, problem)`` as each one ends."""
        waiting = deque(entries)
        suspects: deque[Entry] = deque()      # in a pool that broke: graded again alone
        self.in_flight: dict = {}             # future -> (entry, graded alone?, generation)
        while waiting or suspects or self.in_flight:
            if suspects:
                if not self.in_flight:         # alone: nothing else runs beside it
                    self._submit(suspects.popleft(), only, alone=True)
            else:
                while waiting and len(self.in_flight) < self.IN_FLIGHT_PER_JOB * self.jobs:
                    self._submit(waiting.popleft(), only, alone=False)
            done, _ = wait(self.in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                entry, alone, generation = self.in_flight.pop(future)
                try:
                    student, graded, problem, _seconds = future.result()
                except BrokenProcessPool:
                    self._broken(generation)
                    if not alone:
                        suspects.append(entry)
                        continue
                    student, graded, problem = entry.student, None, POOL_KILLED
                except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
                    student, graded, problem = entry.student, None, f"grading process failed ({type(exc).__name__})"
                record(student, graded, problem)

    def _submit(self, entry: Entry, only: tuple, alone: bool) -> None:
        try:
            future = self.executor.submit(_grade_one, entry.student, str(entry.path), only, tuple(entry.notes))
        except BrokenProcessPool:     # it broke before its futures say so: this entry was not in it
            self._broken(self.generation)
            future = self.executor.submit(_grade_one, entry.student, str(entry.path), only, tuple(entry.notes))
        self.in_flight[future] = (entry, alone, self.generation)

    def _broken(self, generation: int) -> None:
        """A new pool, once per broken one (its other submissions fail with it, one by one;
        none is cancelled here, since a cancelled one would count as failed)."""
        if generation == self.generation:
            self.executor.shutdown(wait=False)
            self.generation += 1
            self.executor = self._start()

    def close(self) -> None:
        self.executor.shutdown(wait=True)

    def stop(self) -> None:
        for future in getattr(self, "in_flight", {}):
            future.cancel()
        _stop_pool(self.executor)


def _stop_pool(pool: ProcessPoolExecutor):
    """Kill the grading processes (and with them their sandboxes) at once."""
    for process in list(getattr(pool, "_processes", {}).values()):
        try:
            os.kill(process.pid, signal.SIGKILL)
        except OSError:
            pass
    pool.shutdown(wait=False, cancel_futures=True)
