"""Stand-ins: one mistake costs marks where it is, not in every exercise that calls it.

A student's function for one exercise often calls the one they wrote for an
earlier exercise. If that earlier one is wrong, the later one is wrong too,
though its own logic may be right, and so is every exercise above it. So, once
an exercise has lost points (or its file does not import, or is missing), each
later exercise is graded with that
exercise's functions replaced, in the sandboxed child, by *stand-ins*: small
functions that send their arguments to the grader and return what the
reference returns on them. The student code under grading still runs in the
sandbox; only the broken function's answers come from the trusted side. The
reference's code never enters the sandbox, so a student cannot read it.

The trusted side bounds what it answers (this module): only the stand-ins the
current request installed (never a function of the exercise being graded, so
its own checks, hidden ones included, cannot be answered by the reference),
plain data only (the wire format), arguments the reference's signature
accepts (else the child calls the student's own function: a helper with an
extra argument still works), a number of calls and a time per submission.

The reference never runs a student's arguments in the grading process: a 16-byte call
may ask it for 3e8 numbers or 1e12 loops. Each call runs in the trusted helper
(grader/sandbox/trusted_calls.py) with a wall-clock and CPU limit (``CALL_SECONDS``, and no more
than the submission's budget left), a memory ceiling and a bound on the answer's size, all
enforced by preemption. A call stopped at a limit raises in the student's code, and the
check that failed for it says which function was stood in and which limit it met
(``overrun``, grader/grading/engine.py).
"""

from __future__ import annotations

import functools
import inspect
import time

import numpy as np

from grader.course.modules import module_name
from grader.sandbox.trusted_calls import CALL_SECONDS, Overrun
from grader.sandbox.worker import wire

MAX_CALLS = 20_000        # stand-in calls per submission (the bundled course's worst case: ~3,000)
MAX_SECONDS = 5.0         # of the grader's own time per submission spent answering them
ARGUMENT_BYTES = 2 << 20  # arguments of one call (the bundled course's largest: 10 KiB)
REPLY_MARGIN = 0.1        # seconds left for the child's reply after a stand-in's answer
# The exception a call stopped at a limit raises in the student's code (the check's message says more).
_RAISED = {"time": "TimeoutError", "memory": "MemoryError"}


def stand_ins_for(course, exercise, lost, module_of, broken=(), leaning=None) -> tuple:
    """(module, function, how) for every function of the exercises in ``lost`` but
    ``exercise``'s own. ``module_of(file)``: the submission's module for a course file (one
    module for a single file or notebook), None if missing; ``how`` is "empty" for a module in
    ``broken`` or missing (the child makes a module of stand-ins without importing it), else
    "patch".

    ``leaning``: {exercise: functions} of exercises that kept their points only because calls
    of those functions leant on stand-ins (a right function over a wrong helper it calls). They
    are stood in too: the reference's answer is the one the student's function gave with the
    stand-in inside, in one trusted round trip instead of one per inner call."""
    stand_ins = set()
    for other_id, funcs in (leaning or {}).items():
        other = course.exercises.get(other_id)
        module = module_of(other.file) if other is not None and other.id != exercise.id else None
        if module is None or module in broken:
            continue
        stand_ins.update((module, func, "patch") for func in funcs if func not in exercise.functions)
    for other_id in lost:
        other = course.exercises.get(other_id)
        if other is None or other.id == exercise.id or other.is_quiz:
            continue
        module = module_of(other.file)
        how = "empty" if module is None or module in broken else "patch"
        for func in other.functions:
            if func not in exercise.functions:
                stand_ins.add((module or module_name(other.file), func, how))
    return tuple(sorted(stand_ins))


def _size(value, depth=0) -> int:
    if depth > 20:
        return ARGUMENT_BYTES + 1
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_size(v, depth + 1) for v in value) + 8 * len(value)
    if isinstance(value, dict):
        return sum(_size(v, depth + 1) + len(str(k)) for k, v in value.items())
    if isinstance(value, (str, bytes)):
        return len(value)
    return 8


class StandInAnswers:
    """The grader's answers to one submission's stand-in calls."""

    def __init__(self, runtime, course):
        self.runtime, self.course = runtime, course
        self.owner = {}   # function -> the exercise that asks for it
        for exercise in course.exercises.values():
            for func in exercise.functions if not exercise.is_quiz else ():
                self.owner.setdefault(func, exercise)
        self.calls = 0
        self.seconds = 0.0
        self.exercise = None                  # the exercise being graded (see grading())
        self.used: dict[str, set] = {}        # exercise -> the functions stood in while it was graded
        self.leant: dict[tuple, set] = {}     # (exercise, its function) -> the stand-ins its calls used
        self.overruns: list[tuple] = []       # (exercise, calling, function, Overrun) of calls stopped at a limit
        self.deadline: float | None = None    # when the child's pending reply is due (set by answer_stand_in)

    def grading(self, exercise_id: str) -> None:
        """The calls from now on are made while ``exercise_id`` is graded."""
        self.exercise = exercise_id

    def frame(self, request: dict, allowed: tuple, calling: str | None = None,
              deadline: float | None = None) -> bytes:
        """The sandbox client's callback (grader/sandbox/client.py): the frame answering one request."""
        return answer_stand_in(self, request, allowed, calling, deadline)

    def leaning(self, exercise) -> set:
        """The exercise's functions whose calls leant on stand-ins while it was graded."""
        return {func for func in exercise.functions if self.leant.get((exercise.id, func))}

    def note(self, exercise_id: str, leaning=None):
        """What the report says of an exercise graded with stand-ins, or None. A function stood
        in because it leant on stand-ins itself (``leaning``, see stand_ins_for) is named by
        the wrong ones it leant on: those are what the student must fix."""
        from grader.base.i18n import Message

        leaning = leaning or {}
        funcs, todo, seen = set(), list(self.used.get(exercise_id, ())), set()
        while todo:
            func = todo.pop()
            owner = self.owner[func].id
            if (owner, func) in seen:
                continue
            seen.add((owner, func))
            if func in leaning.get(owner, ()):
                todo.extend(self.leant.get((owner, func), ()))
            else:
                funcs.add(func)
        funcs = sorted(funcs)
        if not funcs:
            return None
        owners = sorted({self.owner[f].id for f in funcs})
        return Message("note.stand_in", functions=", ".join(funcs), exercises=", ".join(owners))

    def __call__(self, module: str, func: str, args: list, kwargs: dict, calling: str | None = None) -> dict:
        """The reference's answer to one call of ``func``, made while the student's ``calling``
        function ran (None: not known, as during an import)."""
        self.calls += 1
        self.used.setdefault(self.exercise, set()).add(func)
        if calling is not None:
            self.leant.setdefault((self.exercise, calling), set()).add(func)
        if self.calls > MAX_CALLS or self.seconds > MAX_SECONDS:
            return {"error": ["RuntimeError", "too many calls to functions of other exercises"]}
        if _size(args) + _size(kwargs) > ARGUMENT_BYTES:
            return {"fallback": True}
        file = self.owner[func].file
        reference = self.runtime.reference_function(file, func)
        try:
            _signature(reference).bind(*args, **kwargs)
        except TypeError:
            return {"fallback": True}
        start = time.perf_counter()
        bounded = self.runtime.trusted_calls()
        try:
            if bounded is not None:
                return bounded.stand_in(file, func, args, kwargs, self.seconds_for_a_call())
            with np.errstate(all="ignore"):   # grade release: the instructor's own solutions, recorded here
                value = reference(*args, **kwargs)
        except Overrun as overrun:
            return self.overrun(func, overrun, calling)
        except Exception as exc:  # noqa: BLE001 -- the student's arguments may be anything
            return {"error": [type(exc).__name__, str(exc)[:200]]}
        finally:
            self.seconds += time.perf_counter() - start
        return {"value": value}

    def seconds_for_a_call(self) -> float:
        """A call's wall clock: CALL_SECONDS, within what is left of the submission's budget and
        of the time the child's reply is due by."""
        seconds = min(CALL_SECONDS, MAX_SECONDS - self.seconds)
        if self.deadline is not None:
            seconds = min(seconds, self.deadline - REPLY_MARGIN - time.monotonic())
        return max(seconds, 0.0)

    def overrun(self, func: str, overrun: Overrun, calling: str | None = None) -> dict:
        """A call stopped at a limit: noted for the check's message, and an exception in the child."""
        self.overruns.append((self.exercise, calling, func, overrun))
        return {"error": [_RAISED.get(overrun.kind, "RuntimeError"),
                          f"{func}, answered by the course's reference, was stopped: {overrun}"]}

    def overrun_message(self, since: int, exercise: str | None = None, calling: str | None = None):
        """The message for a failed check, where a stand-in call made during it was stopped at a
        limit (``since``: len(overruns) when it began), or one made by a call of the student's
        ``calling`` function of ``exercise`` (planned calls run before the check that takes their
        results, grader/grading/plan.py); else None."""
        from grader.base.i18n import Message

        found = self.overruns[since:] or [o for o in self.overruns
                                          if calling is not None and o[:2] == (exercise, calling)]
        if not found:
            return None
        _, _, func, overrun = found[0]
        owner = self.owner.get(func)
        return Message(f"err.stand_in_{overrun.kind}", function=func, exercise=owner.id if owner else "?",
                       **overrun.params())


@functools.lru_cache(maxsize=256)
def _signature(function) -> inspect.Signature:
    """A reference function's signature, read once (a stand-in is called up to thousands of
    times per submission)."""
    return inspect.signature(function)


def answer_stand_in(handler, request: dict, allowed: tuple, calling: str | None = None,
                    deadline: float | None = None) -> bytes:
    """The frame that answers one stand-in call from the child (grader/sandbox/client.py), made while
    the student's ``calling`` function runs; ``deadline``: when the child's reply is due
    (time.monotonic()), which the call does not run past."""
    pair = request.get("stand_in")
    args, kwargs = request.get("args", []), request.get("kwargs", {})
    if (handler is None or type(pair) is not list or len(pair) != 2
            or tuple(pair) not in {(module, func) for module, func, _ in allowed}
            or type(args) is not list or type(kwargs) is not dict
            or not all(type(k) is str for k in kwargs)):
        answer = {"error": ["RuntimeError", "no such function"]}
    else:
        if isinstance(handler, StandInAnswers):
            handler.deadline = deadline
        answer = handler(pair[0], pair[1], args, kwargs, calling)
        if isinstance(answer, bytes):   # the helper's frame, forwarded as it came
            return answer
    try:
        return wire.pack({"stand_in": True, **answer})
    except Exception:  # noqa: BLE001 -- a reference value the wire cannot carry
        return wire.pack({"stand_in": True, "error": ["RuntimeError", "no answer"]})
