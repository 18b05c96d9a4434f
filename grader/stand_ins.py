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
"""

from __future__ import annotations

import functools
import inspect
import time

import numpy as np

from grader.modules import module_name
from grader.worker import wire

MAX_CALLS = 20_000        # stand-in calls per submission (the bundled course's worst case: ~3,000)
MAX_SECONDS = 5.0         # of the grader's own time per submission spent answering them
ARGUMENT_BYTES = 2 << 20  # arguments of one call (the bundled course's largest: 10 KiB)


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
        self.exercise = None                  # the exercise being graded (set by the engine)
        self.used: dict[str, set] = {}        # exercise -> the functions stood in while it was graded
        self.leant: dict[tuple, set] = {}     # (exercise, its function) -> the stand-ins its calls used

    def leaning(self, exercise) -> set:
        """The exercise's functions whose calls leant on stand-ins while it was graded."""
        return {func for func in exercise.functions if self.leant.get((exercise.id, func))}

    def note(self, exercise_id: str, leaning=None):
        """What the report says of an exercise graded with stand-ins, or None. A function stood
        in because it leant on stand-ins itself (``leaning``, see stand_ins_for) is named by
        the wrong ones it leant on: those are what the student must fix."""
        from grader.i18n import Message

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
        reference = self.runtime.reference_function(self.owner[func].file, func)
        try:
            _signature(reference).bind(*args, **kwargs)
        except TypeError:
            return {"fallback": True}
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                value = reference(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- the student's arguments may be anything
            return {"error": [type(exc).__name__, str(exc)[:200]]}
        finally:
            self.seconds += time.perf_counter() - start
        return {"value": value}


@functools.lru_cache(maxsize=256)
def _signature(function) -> inspect.Signature:
    """A reference function's signature, read once (a stand-in is called up to thousands of
    times per submission)."""
    return inspect.signature(function)


def answer_stand_in(handler, request: dict, allowed: tuple, calling: str | None = None) -> bytes:
    """The frame that answers one stand-in call from the child (grader/runner.py), made while
    the student's ``calling`` function runs."""
    pair = request.get("stand_in")
    args, kwargs = request.get("args", []), request.get("kwargs", {})
    if (handler is None or type(pair) is not list or len(pair) != 2
            or tuple(pair) not in {(module, func) for module, func, _ in allowed}
            or type(args) is not list or type(kwargs) is not dict
            or not all(type(k) is str for k in kwargs)):
        answer = {"error": ["RuntimeError", "no such function"]}
    else:
        answer = handler(pair[0], pair[1], args, kwargs, calling)
    try:
        return wire.pack({"stand_in": True, **answer})
    except Exception:  # noqa: BLE001 -- a reference value the wire cannot carry
        return wire.pack({"stand_in": True, "error": ["RuntimeError", "no answer"]})
