"""``grade class DIR --scheduler ADDRESS``: the class graded on a running Dask cluster.

The client (this process) does what a local run does except the grading itself: it finds
the submissions, skips the unchanged ones, loads each one (the same loader, the same
notes) and writes every result into the same gradebook as it arrives. Each loaded
submission travels as plain data (grader/submission/packed.py) to a Dask worker, whose
warm grader (grader/classroom/cluster_worker.py) grades it exactly as a local grading process
would; only what the gradebook and the feedback file keep comes back.

Dask does the rest: a worker that dies (killed, out of memory, node lost) has its tasks
run again elsewhere; a submission whose task killed every worker that tried it
(``distributed.scheduler.allowed-failures`` + 1 of them, 4 by default) comes back as
KilledWorker and is recorded as not graded for that student. At most a few submissions
per worker are in flight, so the client's memory does not grow with the class.
"""

from __future__ import annotations

import tempfile
import uuid
from collections import deque
from pathlib import Path

from grader.base.errors import CourseError

WORKER_KILLED = "its grading worker died every time it was tried (out of memory?)"
IN_FLIGHT_PER_WORKER = 2       # one being graded, one queued: no worker waits for the client
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
        # Every worker, and every worker that joins or restarts later, gets the plugin.
        self.plugin_name = PLUGIN_NAME
        self.client.register_plugin(WarmGrader(settings), name=PLUGIN_NAME)
        self.in_flight: dict = {}

    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def grade_all(self, entries, only: tuple, record) -> None:
        """Grade every entry; ``record(student, graded, problem)`` as each one ends."""
        distributed = _distributed()
        from grader.classroom.cluster_worker import grade_packed

        waiting = deque(entries)
        finished = distributed.as_completed(loop=self.client.loop)
        run = uuid.uuid4().hex[:8]

        def top_up():
            while waiting and len(self.in_flight) < IN_FLIGHT_PER_WORKER * self.workers():
                entry = waiting.popleft()
                packed, problem = load_and_pack(entry)
                if packed is None:
                    record(entry.student, None, problem)
                    continue
                future = self.client.submit(grade_packed, entry.student, packed, only, pure=False,
                                            key=f"grade-{run}-{uuid.uuid4().hex}")
                self.in_flight[future] = entry
                finished.add(future)

        top_up()
        while self.in_flight:
            future = next(finished)
            entry = self.in_flight.pop(future)
            try:
                outcome = future.result()
            except distributed.KilledWorker:
                outcome = entry.student, None, WORKER_KILLED, 0.0
            except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
                outcome = entry.student, None, f"its grading worker failed ({type(exc).__name__}: {exc})"[:500], 0.0
            future.release()
            if isinstance(outcome, dict):
                raise ClusterError(f"the Dask worker {outcome['worker']} refuses to grade: {outcome['refused']}")
            student, graded, problem, _seconds = outcome
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


def load_and_pack(entry):
    """(packed submission, None) or (None, why it cannot be graded): loaded here, as locally."""
    from grader.classroom.class_run import not_graded
    from grader.submission.packed import TooLarge, pack
    from grader.base.errors import SubmissionError
    from grader.submission.load import load_submission

    with tempfile.TemporaryDirectory(prefix="grade-pack-") as workdir:
        try:
            return pack(load_submission(Path(entry.path), Path(workdir))), None
        except (SubmissionError, TooLarge) as exc:
            return None, str(exc)
        except Exception as exc:  # noqa: BLE001 -- one submission never stops the class
            return None, not_graded(exc)
