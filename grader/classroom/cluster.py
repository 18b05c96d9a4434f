"""``grade class DIR --scheduler ADDRESS``: the class graded on a running Dask cluster.

The client (this process) does what a local run does except the grading itself: it finds
the submissions, skips the unchanged ones, loads each one (the same loader, the same
notes) and writes every result into the same gradebook as it arrives. Each loaded
submission travels as plain data (grader/submission/packed.py) to a Dask worker, whose
warm grader (grader/classroom/cluster_worker.py) grades it exactly as a local grading process
would; only what the gradebook and the feedback file keep comes back. The plugin that builds
each worker's warm grader is registered as soon as the client connects, so the workers warm
up while the client hashes and loads the class.

Submissions travel a few per task (:func:`batch_size`): Dask's cost per task (a message
through the scheduler each way, the result fetched) is shared by the batch, and batches
shrink as the class runs out, down to one submission, so no worker waits long for another's
last batch. Dask does the rest: a worker that dies (killed, out of memory, node lost) has its
tasks run again elsewhere; a batch whose task killed every worker that tried it
(``distributed.scheduler.allowed-failures`` + 1 of them, 4 by default) comes back as
KilledWorker, and its submissions are sent again one per task, so only a submission whose own
task kills every worker is recorded as not graded for that student. At most two tasks per
worker are in flight (one being graded, one queued), so the client holds at most
2 x MAX_BATCH packed submissions per worker, however large the class.
"""

from __future__ import annotations

import uuid
from collections import deque
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.base.errors import CourseError

WORKER_KILLED = "its grading worker died every time it was tried (out of memory?)"
IN_FLIGHT_PER_WORKER = 2       # tasks: one being graded, one queued: no worker waits for the client
MAX_BATCH = 4                  # submissions per task at most (Dask's ~8 ms of CPU per task, shared by 4)
TASKS_LEFT_PER_WORKER = 4      # what is left is cut into at least this many tasks per worker
CONNECT_TIMEOUT = "10s"


class ClusterError(CourseError):
    """The cluster cannot grade this run (unreachable, no workers, a worker that refuses):
    one line, exit code 2."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("--scheduler needs Dask: pip install 'rnn-grader[cluster]'") from None
    return distributed


class DaskPool:
    """Grades entries on the cluster at ``address``; the same interface as the local pool
    (grader/classroom._Pool): ``grade_all``, ``close``, ``stop``."""

    def __init__(self, address: str, course, *, only=(), isolation="sandbox", counterexamples=True,
                 feedback=None):
        distributed = _distributed()
        from grader.classroom.cluster_worker import PLUGIN_NAME, WarmGrader, grader_digest, pack_course
        from grader.course.secret import course_name, course_secret_fingerprint

        self.address = address
        try:
            self.client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        try:
            workers = self.client.scheduler_info().get("workers", {})
            if not workers:
                self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            self.client.close()
            raise ClusterError(f"the Dask scheduler at {address} has no worker ({exc})") from None
        settings = {
            "course": pack_course(course.root), "course_name": course_name(course),
            "secret_fingerprint": course_secret_fingerprint(course), "grader_digest": grader_digest(),
            "isolation": isolation, "counterexamples": counterexamples, "only": tuple(only),
            "feedback": (feedback.kind, feedback.lang) if feedback is not None and feedback.kind != "none" else None,
        }
        # Every worker, and every worker that joins or restarts later, gets the plugin, under a name of
        # this run's: another client grading on the same cluster (another part of the class, other
        # settings) registers its own beside it instead of replacing it.
        self.plugin_name = f"{PLUGIN_NAME}-{uuid.uuid4().hex[:12]}"
        self.client.register_plugin(WarmGrader(settings), name=self.plugin_name)
        self.in_flight: dict = {}

    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def grade_all(self, entries, only: tuple, record) -> None:
        """Grade every entry; ``record(student, graded, problem)`` as each one ends."""
        distributed = _distributed()
        from grader.classroom.cluster_worker import grade_batch

        waiting = deque(entries)
        alone: deque = deque()        # from a batch that killed its workers: one per task
        finished = distributed.as_completed(loop=self.client.loop)
        run = uuid.uuid4().hex[:8]

        def submit(batch: list, packed: list) -> None:
            future = self.client.submit(grade_batch, packed, only, self.plugin_name, pure=False,
                                        key=f"grade-{run}-{uuid.uuid4().hex}")
            self.in_flight[future] = batch
            finished.add(future)

        def top_up():
            workers = self.workers()
            while (alone or waiting) and len(self.in_flight) < IN_FLIGHT_PER_WORKER * workers:
                source, size = (alone, 1) if alone else (waiting, batch_size(len(waiting), workers))
                batch, packed = [], []
                while source and len(batch) < size:
                    entry = source.popleft()
                    loaded, problem = load_and_pack(entry)
                    if loaded is None:
                        record(entry.student, None, problem)
                    else:
                        batch.append(entry)
                        packed.append((entry.student, loaded))
                if batch:
                    submit(batch, packed)

        top_up()
        while self.in_flight:
            future = next(finished)
            batch = self.in_flight.pop(future)
            try:
                outcomes = future.result()
            except distributed.KilledWorker:
                if len(batch) > 1:       # which one killed them is not known: each graded alone
                    alone.extend(batch)
                    outcomes = []
                else:
                    outcomes = [(batch[0].student, None, WORKER_KILLED, 0.0)]
            except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
                why = f"its grading worker failed ({type(exc).__name__}: {exc})"[:500]
                outcomes = [(entry.student, None, why, 0.0) for entry in batch]
            future.release()
            if isinstance(outcomes, dict):
                raise ClusterError(f"the Dask worker {outcomes['worker']} refuses to grade: {outcomes['refused']}")
            for student, graded, problem, _seconds in outcomes:
                record(student, graded, problem)
            top_up()

    def close(self) -> None:
        """Stop the workers' warm graders (and their sandboxes), then leave the cluster."""
        try:
            self.client.unregister_worker_plugin(self.plugin_name)
        except Exception:  # noqa: BLE001 -- the cluster may be gone already
            pass
        self.client.close()

    def stop(self) -> None:
        for future in list(self.in_flight):
            future.cancel()
        self.in_flight.clear()
        self.close()


def batch_size(left: int, workers: int) -> int:
    """Submissions in the next task, with ``left`` waiting for ``workers``: up to MAX_BATCH while
    much is left, fewer as the class runs out, one at the end (guided self-scheduling), so the
    run's tail, when some workers are done and others still grade, is about one submission."""
    return max(1, min(MAX_BATCH, left // (workers * TASKS_LEFT_PER_WORKER)))


def load_and_pack(entry):
    """(packed submission, None) or (None, why it cannot be graded): loaded here, as locally."""
    from grader.classroom.class_run import not_graded
    from grader.submission.packed import TooLarge, pack
    from grader.base.errors import SubmissionError
    from grader.submission.load import load_submission

    with temporary_folder("pack") as workdir:
        try:
            return pack(load_submission(Path(entry.path), Path(workdir))), None
        except (SubmissionError, TooLarge) as exc:
            return None, str(exc)
        except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
            return None, not_graded(exc)
