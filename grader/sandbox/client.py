"""The trusted side of the worker boundary.

:class:`Worker` owns one warm worker process (``grader/sandbox/worker/zygote.py``),
restarts it if it dies, and talks to the child it forks for a submission on
that child's own pipes. :class:`StudentModule` is one exercise's handle on a
student module: it imports the module in the submission's child (a fresh one if
another exercise ran student code in that child, or this exercise left it changed),
takes results from the exercise's plan or calls functions on their own, and starts
a fresh child after a crash or a timeout so that one bad call costs only its check.
Only inputs are sent; only plain data (see ``grader/sandbox/worker/wire.py``) come back, and
no more of it than a call's and a submission's budget (:class:`Limits`).

Why one file of this size: the Worker, its Session and StudentModule share the protocol's
invariants (which replies a request owes, when a child is fresh, what a timeout or a crash
leaves behind); they are the trusted half of the wire and are reviewed together.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import os
import secrets
import select
import shutil
import socket
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.sandbox.notebook_run import MAX_RERUNS, CellClock
from grader.checks.outcomes import CallResult, StudentError, with_arguments
from grader.base.temp_folders import remove_stale
from grader.sandbox.cgroup import Cgroup
from grader.sandbox.isolation import SUBMISSION_UIDS, Isolation, choose_isolation, protect_from_others
from grader.sandbox.launch import await_hello, kill, launch, new_exchange, take_spare, worker_command
from grader.sandbox.limits import ALWAYS_ACCEPTED, DEFAULT_MEMORY, REPLY_BYTES, SUBMISSION_REPLY_BYTES, Limits  # noqa: F401 -- their old home
from grader.sandbox.worker import wire

REPLY_SLACK = 0.5                 # seconds beyond a call's timeout for its reply to arrive
CONTROL_TIMEOUT = 5.0             # seconds for the worker to fork or kill a child
MAX_CONTROL = 1 << 16             # bytes of one control reply
DEATH_WAIT = 0.5                  # seconds for a child that closed its pipe to finish exiting
FRAME_CACHE = 2048                # packed requests kept for reuse (test cases are shared by all students)
MAX_FAILURES = 3                  # crashes or timeouts before an exercise stops calling
FATAL = ("crash", "timeout", "protocol")   # errors after which the child is gone
OUTPUT_PER_EXERCISE = 8192        # characters of a student's prints kept per exercise

SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")   # where a uid without Landlock may leave files


def _remove_files_of(uid: int) -> None:
    """What a submission's uid left in the machine's shared scratch folders (a note for the
    next student): removed once its processes are gone (the zygote killed them)."""
    for folder in SHARED_SCRATCH:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def checked(reply) -> dict:
    """A reply must be a mapping with a boolean "ok"; anything else is the worker misbehaving."""
    if type(reply) is not dict or type(reply.get("ok")) is not bool:
        raise wire.WireError("malformed reply")
    error = reply.get("error")
    if not reply["ok"] and (type(error) is not dict or type(error.get("kind", "")) is not str):
        raise wire.WireError("malformed error reply")
    if error is not None and type(error) is not dict:
        raise wire.WireError("malformed reply")
    if type(reply.get("output", "")) is not str or (type(error) is dict and type(error.get("output", "")) is not str):
        raise wire.WireError("malformed reply")
    return reply


class Session:
    """The grader's ends of one worker child's pipes, and what it has imported."""

    def __init__(self, root: str, to_child: int, from_child: int):
        self.root, self.to_child, self.from_child = root, to_child, from_child
        self.replies = wire.Reader(from_child)
        self.imports: dict[str, dict | None] = {}   # module -> its import error, or None
        self.owner: str | None = None   # the exercise whose student code this child has run

    def close(self):
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass(frozen=True)
class Staging:
    """How the staged submission's modules are run (:meth:`Worker.staged`). ``share``: its code is
    plain code grader/sandbox/plain_code.py proves cannot leave state outside its own modules, so
    its exercises may share one child. ``stand_ins``: answers its stand-in calls,
    ``.frame(request, allowed, calling, deadline) -> bytes`` (grader/grading/stand_ins.py), or None.
    ``notebooks``: its notebook modules, run cell by cell (grader/sandbox/notebook_run.py), by module."""

    share: bool = False
    stand_ins: object = None
    notebooks: dict = field(default_factory=dict)


class Worker:
    """One warm worker process, started lazily and restarted when it dies.

    A submission gets one child of that worker (a *session*), forked when the first
    exercise needs it and killed when the submission is unstaged; a crash or a
    timeout ends it early, and the next call starts a fresh one.

    ``isolation``: "auto" uses bubblewrap when it works on this machine,
    "sandbox" requires it, "none" runs the worker as a plain process.
    """

    def __init__(self, limits: Limits | None = None, isolation: str = "auto", hidden: list[Path] = ()):
        self.limits = limits or Limits()
        self.mode = isolation
        self.hidden = list(hidden)
        self._proc: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._hello_due = False   # a started worker's first message is its hello (launch.py)
        self.session: Session | None = None
        self.sessions = 0   # sessions opened so far: a module imported in an older one must be imported again
        self.tainted = 0    # sessions not reused because an exercise left the child changed
        self._frames: collections.OrderedDict = collections.OrderedDict()   # see exchange()
        self.staging = Staging()   # how the staged submission is run (see staged())
        self.restarts = 0
        self.received = 0   # bytes of replies accepted from the submission being graded
        self._staged = itertools.count()
        self._root: str | None = None
        self._cgroup: Cgroup | None = None
        self._confine: dict | None = None   # the staged submission's confinement (no bubblewrap)
        remove_stale()   # what killed graders left in TMPDIR (grader/base/temp_folders.py)
        spare = take_spare(isolation, self.hidden, self.limits)
        if spare is not None:   # started before the course was loaded, and said hello
            self._exchange, self.isolation, self._cgroup = spare.exchange, spare.isolation, spare.cgroup
            self._proc, self._control = spare.proc, spare.control
            return
        self._exchange = new_exchange()
        self.isolation: Isolation = choose_isolation(self._exchange, isolation, self.hidden)
        if self.isolation.own_uid:
            # Children of other uids may pass through the exchange folder, never list it.
            os.chmod(self._exchange, 0o711)
            if not self.isolation.landlock:
                protect_from_others(self.hidden)

    def command(self) -> list[str]:
        return worker_command(self.isolation)

    def _start(self):
        if self.isolation.sandboxed and self._cgroup is None:
            self._cgroup = Cgroup(*self.limits.cgroup())
        cgroup = self._cgroup if self._cgroup is not None and self._cgroup.active else None
        self._proc, self._control = launch(self.command(), cgroup)
        self._hello_due = True

    def prestart(self):
        """Start the sandboxed worker now rather than at the first request: bubblewrap's start-up
        and the worker's numpy import then run while the grading process stages the submission
        and draws its test vectors. (Without bubblewrap a worker's confinement depends on the
        staged submission: it still starts at the first request.)"""
        if self._proc is None and self.isolation.sandboxed:
            self._start()

    def module(self, root: str, module: str, timeout: float, deadline: float | None = None,
               slot: str | None = None, exercise: str | None = None, **how) -> "StudentModule":
        """One exercise's handle on a student module in this worker (``how``: StudentModule's
        stand_ins, timed_out and keep_output)."""
        return StudentModule(self, root, module, timeout, deadline, slot, exercise, **how)

    @contextlib.contextmanager
    def staged(self, root: Path, share: bool = False, stand_ins=None, notebooks: dict | None = None):
        """A private copy of a submission where the worker can see it; removed afterwards.
        How its modules are run, while it is staged (:class:`Staging`): ``share``, ``stand_ins``
        and ``notebooks``."""
        number = next(self._staged)
        target = self._exchange / f"s{number}"
        own_uid = self.isolation.own_uid and not self.isolation.sandboxed
        holder = None
        if own_uid:
            # Copied (a hard link would hand the grader's own copy to the student's uid) inside a
            # folder nobody else may enter, and moved into place once every file is the student's
            # group's, read-only (below).
            holder = self._exchange / f".h{number}"
            holder.mkdir(mode=0o700)
            shutil.copytree(root, holder / "s", symlinks=False)
        else:
            shutil.copytree(root, target, symlinks=False, copy_function=_link_or_copy)
            for path in [target, *target.rglob("*")]:
                mode = stat.S_IMODE(path.lstat().st_mode)
                os.chmod(path, mode | (0o755 if path.is_dir() else 0o644))
        tmp = None
        if self.isolation.confined and not self.isolation.sandboxed:
            tmp = self._exchange / f"t{number}"
            tmp.mkdir(mode=0o700)
            uid = SUBMISSION_UIDS + secrets.randbelow(1 << 24) if own_uid else None
            if uid is not None:
                # Root's, readable by the submission's uid (its group) only: it cannot chmod them.
                staging = holder / "s"
                for path in [*staging.rglob("*"), staging]:
                    os.chown(path, 0, uid, follow_symlinks=False)
                    os.chmod(path, 0o550 if path.is_dir() else 0o440)
                os.rename(staging, target)
                holder.rmdir()
                os.chown(tmp, uid, uid)
            self._confine = self.isolation.confine_spec(target, tmp, uid)
        self.received = 0
        self.staging = Staging(share, stand_ins, notebooks or {})
        try:
            yield self.isolation.inside(target)
        finally:
            self.close_session()
            self.staging = Staging()
            uid = (self._confine or {}).get("uid")
            self._confine = None
            shutil.rmtree(target, ignore_errors=True)
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            if uid is not None and not self.isolation.landlock:
                _remove_files_of(uid)
                # without a mount namespace, every other folder others may write too, right
                # after this submission (not only before the next one: with --jobs N another
                # grading process's submission could run in between)
                self.isolation.sweep(uid)

    # ------------------------------------------------------------ the worker's control channel

    def _control_request(self, message: dict, timeout: float = CONTROL_TIMEOUT, fds: int = 0):
        """One control request and its reply (and the descriptors it carries), or None when the
        worker is gone or misbehaves; it is then replaced on the next request."""
        if self._proc is None or self._proc.poll() is not None:
            self._kill()
            self._start()
        received = []
        try:
            if self._hello_due:
                if not await_hello(self._control):
                    raise TimeoutError("the worker did not start")
                self._hello_due = False
            self._control.send(json.dumps(message).encode("utf-8"))
            if not select.select([self._control], [], [], timeout)[0]:
                raise TimeoutError("control request timed out")
            data, received, flags, _ = socket.recv_fds(self._control, MAX_CONTROL, max(fds, 1))
            reply = json.loads(data.decode("utf-8")) if data else None
            if type(reply) is not dict or reply.get("ok") is not True or len(received) != fds:
                raise ValueError("malformed control reply")
            if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or not all(_is_pipe(fd) for fd in received):
                raise ValueError("malformed control reply")
            for fd in received:   # recvmsg does not set close-on-exec
                os.set_inheritable(fd, False)
            return reply, received
        except (OSError, ValueError, TimeoutError):
            for fd in received:
                os.close(fd)
            self._kill()
            self.restarts += 1
            return None, []

    def open_session(self, root: str) -> Session | None:
        """A fresh child for the staged submission at ``root``; None if the worker failed.
        The worker ends the current child itself before it forks: one round trip, not two."""
        if self.session is not None:
            self.session.close()
            self.session = None
        request = {"op": "open", "root": root, "limits": self.limits.as_request()}
        if self._confine is not None:
            request["confine"] = self._confine
        reply, fds = self._control_request(request, fds=2)
        if reply is None:   # a worker that died unnoticed: the failed request replaced it; once more
            reply, fds = self._control_request(request, fds=2)
        if reply is None:
            return None
        os.set_blocking(fds[0], False)   # a child that stops reading must not block the grader
        self.session, self.sessions = Session(root, *fds), self.sessions + 1
        return self.session

    def end_session(self, wait: float = 0.0) -> tuple[dict | None, str]:
        """Kill the current child; how it ended if it died on its own, and its last output.
        ``wait``: seconds it may take to finish dying (it closed its pipe: it is exiting)."""
        session, self.session = self.session, None
        if session is None:
            return None, ""
        session.close()
        reply, _ = self._control_request({"op": "close", "wait": wait})
        if reply is None:
            return None, ""
        death, output = reply.get("death"), reply.get("output")
        return (death if type(death) is dict else None), (output if type(output) is str else "")

    def close_session(self):
        if self.session is not None:
            self.end_session()

    # ------------------------------------------------------------ the session's child

    def exchange(self, message: dict | None, timeout: float, replies: int, key=None,
                 deadline: float | None = None, stand_ins: tuple = (), calling: tuple = (),
                 cells: CellClock | None = None) -> list[dict]:
        """Send one request to the current child and read up to ``replies`` replies, each
        within ``timeout``. Reading stops after an error that ends the child: a timeout,
        a crash (it died or closed its pipe) or a protocol error (a garbled reply).
        ``deadline``: the submission's (time.monotonic()); past it the child is stopped
        and the reply it owes is a "time_limit" error. A reply over the budget left
        (Limits.reply_limit) is read to its end, dropped, and becomes a "too_large" error;
        the child goes on.

        ``key``: (a tag, the objects the message was built from). Every student gets the
        same test cases, so the frame is packed once per run and reused.

        ``stand_ins``: the (module, function) pairs the request installed in the child; its
        calls to them come back as requests the grader answers (grader/grading/stand_ins.py) while
        the reply is awaited, within the same time. ``calling``: the student function each reply
        answers, in order (None for an import's), so the handler knows whose call leant on them.
        ``cells``: the clock of the notebook whose cells the request runs (see _reply)."""
        session = self.session
        answers = []
        limit = float("inf") if deadline is None else deadline + REPLY_SLACK

        def until():
            return min(time.monotonic() + timeout + REPLY_SLACK, limit)

        sent = message is None
        try:
            if message is not None:   # None: more replies to a request already sent
                wire.write_frame(session.to_child, self._frame(message, key), until())
                sent = True
            while len(answers) < replies:
                func = calling[len(answers)] if len(answers) < len(calling) else None
                answers.append(self._reply(session, until(), stand_ins, func, cells))
        except wire.Timeout:
            _, output = self.end_session()
            kind = "time_limit" if time.monotonic() >= limit else "timeout"
            error = {"kind": kind, "seconds": timeout, "output": output}
            if not sent:     # the child stopped reading: no call of this request ran (not its function's fault)
                error["unread"] = True
            answers.append({"ok": False, "error": error})
        except (wire.Closed, OSError):
            death, output = self.end_session(wait=DEATH_WAIT)
            answers.append({"ok": False, "error": {"kind": "crash", **(death or {}), "output": output}})
        except wire.WireError as exc:
            _, output = self.end_session()
            answers.append({"ok": False, "error": {"kind": "protocol", "message": str(exc), "output": output}})
        return answers

    def _reply(self, session: Session, deadline: float, stand_ins: tuple = (), calling: str | None = None,
               cells: CellClock | None = None) -> dict:
        """The child's next reply, or the refusal of one over the submission's budget. Calls
        to stand-ins on the way are answered here, by the submission's handler (Staging). While a
        notebook runs (``cells``, its clock), each cell's frame starts that cell's own budget."""
        overall = deadline
        while True:
            try:
                reply = checked(session.replies.recv(deadline, limit=self.limits.reply_limit(self.received)))
            except wire.TooLarge as refused:
                return {"ok": False, "error": self.limits.refusal(refused.size)}
            self.received += session.replies.last_size
            if "cell" in reply and cells is not None and reply.get("ok"):
                deadline = cells.started(reply["cell"], overall)
                continue
            if "stand_in" not in reply:
                return reply
            handler = self.staging.stand_ins
            if handler is None:     # a child asking for a stand-in it was not given
                answer = wire.pack({"stand_in": True, "error": ["RuntimeError", "no such function"]})
            else:
                answer = handler.frame(reply, stand_ins, calling, deadline)
            wire.write_frame(session.to_child, answer, deadline)

    def _frame(self, message: dict, key) -> bytes:
        if key is None:
            return wire.pack(message)
        tag, objects = key
        index = (tag, tuple(map(id, objects)))
        cached = self._frames.get(index)
        if cached is None:
            # The objects are kept with their frame: their ids stay theirs while it is cached.
            cached = self._frames[index] = (objects, wire.pack(message))
            if len(self._frames) > FRAME_CACHE:
                self._frames.popitem(last=False)
        else:
            self._frames.move_to_end(index)
        return cached[1]

    def _kill(self):
        if self.session is not None:
            self.session.close()
            self.session = None
        proc, self._proc = self._proc, None
        if self._control is not None:
            self._control.close()
            self._control = None
        if proc is not None:
            kill(proc)

    def stop(self):
        # The zygote ends and reaps its child (by pid: one that left the process group is not
        # missed), then exits at once, and bubblewrap with it. An orderly exit, not a kill: each
        # process is reaped by its parent, so the CPU time of the whole sandbox is counted to the
        # grader's process tree (the benchmarks' CPU figures read it there).
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._control.send(json.dumps({"op": "exit"}).encode("utf-8"))
                _wait_for_exit(self._proc, 2.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()   # the sandbox's PID namespace dies with it: nothing survives
        if self._cgroup is not None:
            self._cgroup.close()
            self._cgroup = None
        shutil.rmtree(self._exchange, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _wait_for_exit(proc: subprocess.Popen, timeout: float) -> None:
    """Wait until ``proc`` exits (at most ``timeout``), woken by the kernel as it does (a pidfd),
    not by subprocess's sleeps; then reap it."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):   # an older kernel or Python: subprocess's own wait
        proc.wait(timeout=timeout)
        return
    try:
        select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    proc.wait(timeout=timeout)


def _link_or_copy(source, target):
    """Submissions are the grader's private copies already (see grader/submission/load.py): a hard
    link is copy enough, as the sandbox sees the exchange folder read-only."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def _is_pipe(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


class StudentModule:
    """One exercise's calls into one student module, in the submission's child."""

    def __init__(self, worker: Worker, root: Path | str, module: str, timeout: float, deadline: float | None = None,
                 slot: str | None = None, exercise: str | None = None, stand_ins: tuple = (),
                 timed_out: dict | None = None, keep_output: bool = True):
        self.worker, self.root, self.module, self.timeout = worker, str(root), module, timeout
        self.slot = slot or module   # where the child keeps this exercise's module
        # Handles of one exercise (its checks, its counterexample search) may share a child;
        # a child that ran another exercise's student code is never used again.
        self.exercise = exercise or self.slot
        self.deadline = deadline   # time.monotonic() past which nothing more is run for this submission
        self.import_error: dict | None = None
        self.failures = 0
        self._session: int | None = None   # the worker session the module is imported in
        self.output: list[str] = []   # what the student code printed, in order
        self.keep_output = keep_output   # off while a hidden check runs: its prints could show its inputs
        self._plan: tuple = ()        # see open(plan=...)
        self._replies: list = []
        self._cursor = 0
        self.on_skipped = None        # called with (func, case, result) for planned calls no check took
        self.stand_ins: tuple = tuple(stand_ins)   # (module, function, how) of other exercises the grader answers
        # Functions that timed out earlier in this submission, by "module.function": the grader
        # shares one dict between a submission's handles, and such a function is not called again
        # (an endless loop would otherwise cost the full timeout in every check that calls it).
        self.timed_out: dict[str, float] = {} if timed_out is None else timed_out

    def open(self, fresh: bool = True, plan: tuple = ()) -> dict | None:
        """Import the module in the submission's child (a fresh one if there is none, if
        another exercise ran student code in it, or if this exercise left it changed);
        return the import error, if any.
        ``fresh``: False goes on with the module as this exercise left it, if the child is
        the same (for the hidden checks, which run last). ``plan``: planned calls (see
        grader/grading/plan.py) the child runs right after a successful import, in the same
        request; the checks' calls then take their results from it, in order."""
        self._plan, self._replies, self._cursor = (), [], 0
        # A function that timed out before is not planned: its checks' calls are refused (call()).
        plan = tuple(p for p in plan if f"{self.module}.{p.func}" not in self.timed_out)
        timeout = self._time_left()
        if timeout <= 0:
            self.import_error = {"kind": "time_limit"}
            return self.import_error
        reply = self._import(timeout, fresh, plan)
        self._note_output(reply)
        if not reply.get("ok"):
            self.import_error = reply.get("error", {"kind": "crash"})
        else:
            error = reply.get("error")
            self.import_error = error if error is None or type(error) is dict else {
                "kind": "protocol", "message": "malformed reply"}
        self._session = self.worker.sessions if self.import_error is None else None
        if plan and self.import_error is None and self.worker.session is not None:
            answers = self.worker.exchange(None, timeout, len(plan), deadline=self.deadline, stand_ins=self.stand_ins,
                                           calling=tuple(p.func for p in plan))
            self._plan, self._replies = plan, answers + [None] * (len(plan) - len(answers))
            for step, reply in zip(plan, answers):
                error = reply.get("error") if isinstance(reply, dict) and not reply.get("ok") else None
                if isinstance(error, dict) and error.get("kind") == "timeout" and not error.get("unread"):
                    self.timed_out[f"{self.module}.{step.func}"] = error.get("seconds", self.timeout)
        return self.import_error

    def stand_in(self, more) -> bool:
        """Stand in ``more`` functions as well (stand_ins' triples); whether that changed the
        module's stand-ins (it must then be imported afresh for them)."""
        wanted = tuple(sorted(set(self.stand_ins) | set(more)))
        if wanted == tuple(self.stand_ins):
            return False
        self.stand_ins = wanted
        return True

    def _import(self, timeout: float, fresh: bool = True, plan: tuple = ()) -> dict:
        notebook = self.worker.staging.notebooks.get(self.module)
        if notebook is None:
            return self._import_once(timeout, fresh, plan)
        # A notebook runs cell by cell (grader/sandbox/notebook_run.py): a cell that cost the child (past
        # its budget, or it ended the process) is left out, and the run starts again without it.
        for _ in range(MAX_RERUNS):
            left = self._time_left_of_submission()
            if left <= 0:
                return {"ok": False, "error": {"kind": "time_limit"}}
            clock = CellClock(notebook)
            reply = self._import_once(notebook.timeout(left), fresh, plan, notebook, clock)
            error = reply.get("error") if not reply.get("ok") else None
            if type(error) is dict and error.get("kind") in ("timeout", "crash") and clock.cell is not None:
                notebook.lost_child(clock.cell, error, clock.notebook_budget)
                fresh = True
                continue
            if reply.get("ok"):
                notebook.record(reply.get("cells"))
            return reply
        return reply

    def _time_left_of_submission(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def _import_once(self, timeout: float, fresh: bool = True, plan: tuple = (), notebook=None,
                     clock: CellClock | None = None) -> dict:
        session = self.worker.session
        fresh = fresh or self._session != self.worker.sessions
        message = {"op": "import", "module": self.module, "slot": self.slot, "fresh": fresh}
        if notebook is not None:
            message.update(notebook.request())
        if self.stand_ins:
            message["stand_ins"] = [list(pair) for pair in self.stand_ins]
        if plan:
            message["calls"] = [{"func": p.func, "args": list(p.case.args), "kwargs": p.case.kwargs,
                                 "return_args": True, "reuse_args": p.reuse_args} for p in plan]

        def key(check: bool, fresh: bool):
            if not plan:
                return None
            return (("import", self.slot, self.module, check, fresh, self.stand_ins,
                     tuple((p.func, p.reuse_args) for p in plan), notebook and notebook.state()),
                    tuple(p.case for p in plan))

        if (session is not None and session.root == self.root
                and (self.worker.staging.share or session.owner in (None, self.exercise))):
            # The child of this exercise, if it is still there (a crash may have killed it)
            # and still clean (process_state): first one reply on that, then the import's.
            # Another exercise's child is reused only for code that cannot leave state behind
            # (Staging.share): what its calls left where process_state does not look
            # (a module it does not watch, C memory) would stay there.
            session.owner = self.exercise
            answers = self.worker.exchange({**message, "check": True}, timeout, 2, key(True, fresh), self.deadline,
                                           self.stand_ins, cells=clock)
            first = answers[0]
            if first.get("ok") and not first.get("tainted") and len(answers) == 2:
                return answers[1]
            if first.get("ok") and first.get("tainted"):
                self.worker.tainted += 1
        for attempt in range(2):
            if self.worker.open_session(self.root) is None:
                return {"ok": False, "error": {"kind": "crash", "message": "worker lost"}}
            self.worker.session.owner = self.exercise
            reply = self.worker.exchange({**message, "fresh": True, "check": False}, timeout, 1, key(False, True),
                                         self.deadline, self.stand_ins, cells=clock)[0]
            # A fresh child that died without saying how went down with a worker a student
            # had killed (its sandbox is torn down a moment later): once more, on a new one.
            dead = not reply.get("ok") and reply.get("error", {}).get("kind") == "crash"
            if not (dead and "signal" not in reply["error"] and "exit_code" not in reply["error"]):
                return reply
        return reply

    def _note_output(self, reply: dict):
        text = reply.get("output") or (reply.get("error") or {}).get("output") or ""
        if not text or not isinstance(text, str) or not self.keep_output:
            return
        # a warning names the file by the path it was staged under, which changes with the order a run
        # grades in (/submission/s48/...): shown as the student's own file name, the same every run
        text = text.replace(self.root.rstrip("/") + "/", "")
        kept = sum(len(t) for t in self.output)
        if kept >= OUTPUT_PER_EXERCISE:
            return
        if kept + len(text) > OUTPUT_PER_EXERCISE:
            text = text[:OUTPUT_PER_EXERCISE - kept] + "\n[... output cut]"
        self.output.append(text)

    def call(self, func: str, *args, return_args: bool = False, reuse_args: bool = False, cache_as=None,
             **kwargs) -> CallResult:
        """``reuse_args``: refill the previous call's argument objects with these values.
        ``cache_as``: an object that stands for args and kwargs for the whole run (a shared
        test case, never changed); the request is then packed once per run, and its result
        may come from the exercise's plan."""
        planned = self._take(func, cache_as, reuse_args) if return_args else None
        try:
            if planned is not None:
                result = self._result(planned)
            else:
                self._not_timed_out(func)
                key = None if cache_as is None else (("call", self.slot, func, return_args, reuse_args), (cache_as,))
                result = self._request({"op": "call", "func": func, "args": list(args), "kwargs": kwargs,
                                        "return_args": return_args, "reuse_args": reuse_args}, key)
        except StudentError as exc:
            self._note_timeout(func, exc)
            raise
        return with_arguments(result, args, kwargs) if return_args else result

    def _not_timed_out(self, func: str) -> None:
        seconds = self.timed_out.get(f"{self.module}.{func}")
        if seconds is not None:
            raise StudentError({"kind": "timed_out_before", "seconds": seconds})

    def _note_timeout(self, func: str, error) -> None:
        if isinstance(error, StudentError) and error.kind == "timeout" and not error.error.get("unread"):
            self.timed_out[f"{self.module}.{func}"] = error.error.get("seconds", self.timeout)

    def batch(self, calls: list[tuple[str, tuple, dict]], return_args: bool = False, cache_as=None) -> list:
        """Several calls in one round trip; each item is a CallResult or a StudentError.
        After a crash or timeout the rest are not run (StudentError "not_run").
        ``cache_as``: as for call(), one object per call."""
        taken = [self._take(f, cache_as[i], False) if cache_as is not None and return_args else None
                 for i, (f, _, _) in enumerate(calls)]
        refused = {i for i, (f, _, _) in enumerate(calls)
                   if taken[i] is None and f"{self.module}.{f}" in self.timed_out}
        missing = [i for i, reply in enumerate(taken) if reply is None and i not in refused]
        live = self._batch([calls[i] for i in missing], return_args,
                           None if cache_as is None else [cache_as[i] for i in missing]) if missing else []
        results = []
        for i, (reply, (func, args, kwargs)) in enumerate(zip(taken, calls)):
            if i in refused:
                results.append(StudentError({"kind": "timed_out_before",
                                             "seconds": self.timed_out[f"{self.module}.{func}"]}))
                continue
            if reply is None:
                results.append(live.pop(0))
                self._note_timeout(func, results[-1])
                continue
            try:
                result = self._result(reply)
                results.append(with_arguments(result, args, kwargs) if return_args else result)
            except StudentError as exc:
                self._note_timeout(func, exc)
                results.append(exc)
        return results

    def _batch(self, calls, return_args, cache_as) -> list:
        try:
            self._ready()
        except StudentError as exc:
            return [exc] * len(calls)
        timeout = self._time_left()
        if timeout <= 0:
            return [StudentError({"kind": "time_limit"})] * len(calls)
        message = {"op": "batch", "module": self.slot,
                   "calls": [{"func": f, "args": list(a), "kwargs": k, "return_args": return_args}
                             for f, a, k in calls]}
        key = None if cache_as is None else (("batch", self.slot, tuple(f for f, _, _ in calls), return_args),
                                             tuple(cache_as))
        answers = self.worker.exchange(message, timeout, len(calls), key, self.deadline, self.stand_ins,
                                       tuple(f for f, _, _ in calls))
        results = []
        for reply, (_, args, kwargs) in zip(answers, calls):
            try:
                result = self._result(reply)
                results.append(with_arguments(result, args, kwargs) if return_args else result)
            except StudentError as exc:
                results.append(exc)
        results += [StudentError({"kind": "not_run"})] * (len(calls) - len(results))
        return results

    # ------------------------------------------------------------ the exercise's plan

    def finish_plan(self) -> None:
        """The planned calls no check took, handed to ``on_skipped`` (they ran: a replay of
        the exercise must see them), and the plan put away."""
        for i in range(self._cursor, len(self._plan)):
            self._skip(self._plan[i], self._replies[i])
        self._plan, self._replies, self._cursor = (), [], 0

    def _take(self, func: str, case, reuse_args: bool) -> dict | None:
        """The planned reply for this call, if the plan has it further on; the planned calls
        passed over (a failing check stops early) are handed to ``on_skipped``."""
        if case is None or self._cursor >= len(self._plan):
            return None
        for j in range(self._cursor, len(self._plan)):
            step = self._plan[j]
            if step.case is case and step.func == func and step.reuse_args == reuse_args:
                break
        else:
            return None
        for i in range(self._cursor, j):
            self._skip(self._plan[i], self._replies[i])
        self._cursor = j + 1
        return self._replies[j]   # None if it never ran (after a crash): called on its own

    def _skip(self, step, reply):
        if reply is None or self.on_skipped is None:
            return
        try:
            # Not counted towards MAX_FAILURES: no check asked for this call.
            result = with_arguments(self._result(reply, note_output=False, count_failure=False),
                                    step.case.args, step.case.kwargs)
        except StudentError as exc:
            result = exc
        self.on_skipped(step.func, step.case, result)

    def getattr(self, name: str) -> CallResult:
        return self._request({"op": "getattr", "name": name})

    def _ready(self):
        """Raise what prevents calling now; import the module again if its child is gone."""
        if self.import_error is not None:
            if self.import_error.get("kind") == "time_limit":
                raise StudentError({"kind": "time_limit"})
            raise StudentError({"kind": "import", "cause": self.import_error})
        if self.failures >= MAX_FAILURES:
            raise StudentError({"kind": "gave_up", "failures": self.failures})
        if self.worker.session is None or self._session != self.worker.sessions:
            if self.open() is not None:
                raise StudentError({"kind": "import", "cause": self.import_error})

    def _request(self, message: dict, key=None) -> CallResult:
        self._ready()
        timeout = self._time_left()
        if timeout <= 0:
            raise StudentError({"kind": "time_limit"})
        message["module"] = self.slot
        calling = (message["func"],) if message.get("op") == "call" else ()
        return self._result(self.worker.exchange(message, timeout, 1, key, self.deadline, self.stand_ins,
                                                 calling)[0])

    def _result(self, reply: dict, note_output: bool = True, count_failure: bool = True) -> CallResult:
        if note_output:
            self._note_output(reply)
        if reply.get("ok"):
            changed, kw_changed = reply.get("args_changed"), reply.get("kwargs_changed")
            return CallResult(value=reply.get("value"), type_name=reply.get("type", ""),
                              args_after=changed if type(changed) is dict else {},
                              kwargs_after=kw_changed if type(kw_changed) is dict else {},
                              output=reply.get("output", ""), elapsed=reply.get("elapsed", 0.0),
                              aliases=reply.get("aliases") or [])
        error = reply.get("error") or {"kind": "crash"}
        if error.get("kind") in FATAL and count_failure:
            self.failures += 1   # the child is gone; the next call starts a new one
        raise StudentError(error)

    def _time_left(self) -> float:
        if self.deadline is None:
            return self.timeout
        return min(self.timeout, self.deadline - time.monotonic())

    def close(self):
        """Done with this exercise. The child stays for the submission's other exercises."""
