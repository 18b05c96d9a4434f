"""What a check is written against.

A check is a function ``check(ctx)`` registered for an exercise with
:func:`check`. It passes by returning and fails by raising :class:`Fail`
with a message key. It reaches the student's code only through
``ctx.call`` (a plain-data call into the sandboxed worker) and the reference
only through ``ctx.expected``. Inputs and expected values are built once per
course run (``ctx.cached``) and reused for every submission.

While a hidden check runs (the course YAML says which), ``ctx.rng`` is seeded from
the course secret instead of the published seed, and its cases are kept apart
from the visible checks': the check code, public in the wheel, is not enough to
recompute a hidden check's inputs.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import hashlib
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from grader.checks.compare import Mismatch, compare
from grader.base.errors import CourseError
from grader.base.i18n import Message
from grader.checks.outcomes import Overrun, StudentError
from grader.checks.call_errors import call_error_message


class Registry:
    """One course's Python checks, by exercise and check id, and what its counterexample
    search needs (grader/grading/counterexample.py): per function, an input builder
    (grader/checks/choices.py), the names of its arguments and of its result's parts."""

    def __init__(self):
        self.checks: dict[str, dict[str, Callable]] = {}
        self.builders: dict[str, object] = {}
        self.arg_names: dict[str, tuple] = {}
        self.result_names: dict[str, str | tuple] = {}   # a name, or one per part of a tuple result

    def add(self, exercise: str, check_id: str, run: Callable) -> None:
        self.checks.setdefault(exercise, {})[check_id] = run

    def for_exercise(self, exercise: str) -> dict[str, Callable]:
        return self.checks.get(exercise, {})


# The registry a course's check modules register into while grader/course/code.py imports them.
_loading: contextvars.ContextVar[Registry | None] = contextvars.ContextVar("loading", default=None)


@contextlib.contextmanager
def registering(registry: Registry):
    token = _loading.set(registry)
    try:
        yield registry
    finally:
        _loading.reset(token)


def check(exercise: str, check_id: str):
    """Register the decorated function as check ``check_id`` of ``exercise`` in the course
    whose check modules are being loaded."""

    def register(fn):
        @functools.wraps(fn)
        def run(ctx):
            with ctx.checking(check_id):
                return fn(ctx)

        registry = _loading.get()
        if registry is None:
            raise RuntimeError("@check is for a course's check modules, which the course loader imports")
        registry.add(exercise, check_id, run)
        return run

    return register


class Fail(Exception):
    """The check failed; ``message`` says why in the student's terms."""

    def __init__(self, message_key: str, /, **params):
        super().__init__(message_key)
        self.message = Message(message_key, params)


@dataclass
class Case:
    """One call's inputs plus a short description of them for messages."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    shared: bool = field(default=False, compare=False)   # kept for the run and sent to every student


def mark_shared(value, depth: int = 0):
    """Cases built by ``Context.cached`` are shared by every submission: never changed."""
    if isinstance(value, Case):
        value.shared = True
    elif depth < 4 and isinstance(value, (list, tuple)):
        for item in value:
            mark_shared(item, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            mark_shared(item, depth + 1)
    return value


@dataclass
class RecordedCall:
    """A call made to the student, kept to compare with known mistakes."""

    func: str
    case: Case
    outcome: tuple            # ("ok", value, args_after, kwargs_after) or ("error", exception type or kind)


def describe_case(case: Case) -> str:
    return case.label or ", ".join(_shape(a) for a in case.args)


def _shape(value) -> str:
    if isinstance(value, np.ndarray):
        return "x".join(map(str, value.shape)) or "scalar"
    return repr(value) if not isinstance(value, (list, dict)) else type(value).__name__


class Context:
    # ``student``: the student's functions, whatever runs them (grader/sandbox/client.py's StudentModule,
    # or the kit's records): anything with ``call(func, *args, ...)`` returning a CallResult or a
    # StudentError (grader/checks/outcomes.py).
    def __init__(self, runtime, exercise, student, describe_line=None, hidden: bool = False):
        self.runtime = runtime
        self.hidden = hidden   # a hidden check is running: its inputs come from the course secret
        self.exercise = exercise
        self.student = student
        self.rtol, self.atol = exercise.rtol, exercise.atol
        self.calls: list[RecordedCall] = []
        self.last = None   # the CallResult of the latest successful call
        self.current = ""  # the function the latest call went to
        self.check_id = ""  # the check running (Context.checking)
        self._describe_line = describe_line or (lambda module, line: f"{module}.py, line {line}")
        # Planned calls that no check took still ran: the diagnosis replays them too.
        if student is not None:
            student.on_skipped = self._record

    # ------------------------------------------------------------ inputs and expected values

    @contextlib.contextmanager
    def checking(self, check_id: str):
        """While check ``check_id`` runs: hidden or not, as the course's YAML says."""
        spec = next((c for c in self.exercise.checks if c.id == check_id), None)
        outer, self.hidden = self.hidden, bool(spec and spec.hidden)
        outer_id, self.check_id = self.check_id, check_id
        try:
            yield
        finally:
            self.hidden, self.check_id = outer, outer_id

    def rng(self, tag: str) -> np.random.Generator:
        """A generator for ``tag`` of this exercise: from the published seed for visible checks,
        from the course secret for hidden ones."""
        if self.hidden:
            return np.random.default_rng(self.runtime.hidden_seed(self.exercise.id, tag))
        digest = hashlib.sha256(f"{self.runtime.seed}:{self.exercise.id}:{tag}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    def cached(self, tag: str, build: Callable):
        """``build(rng)`` once per course run; every submission reuses the result. A hidden check's
        cases are its own even where a visible check uses the same tag."""
        key = (self.exercise.id, tag, "hidden") if self.hidden else (self.exercise.id, tag)
        return self.runtime.memo(key, lambda: mark_shared(build(self.rng(tag))))

    def reference(self, func: str) -> Callable:
        return self.runtime.reference_function(self.exercise.file, func)

    def expected(self, func: str, case: Case):
        """The reference's result for ``case``, on copies of the inputs. The reference raising on
        a check's inputs is the course's error (its inputs or its reference are wrong), never
        the student's: :class:`CourseError` naming the check's file and line and the reference's."""
        inputs = "a hidden check's inputs" if self.hidden else f"the inputs {describe_case(case)}"
        bounded = None if case.shared else self.runtime.trusted_calls()
        if bounded is not None:
            outcome = self._bounded_outcome(bounded, func, case)
            if outcome[0] == "ok":
                return outcome[1]
            # The reference raised there, within the helper's limits: run it here for the course
            # error's file and line (it ended within those limits, so it ends here too).
        args, kwargs = copy.deepcopy((case.args, case.kwargs))
        with quiet_numpy():
            try:
                return self.reference(func)(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 -- the course's code may raise anything
                raise self.course_error(exc, f"the reference {func}() raised on {inputs}") from None

    def _bounded_outcome(self, bounded, func: str, case: Case) -> tuple:
        """The reference's outcome for a case not ``cached`` (which every submission shares): such
        a case may be built from what the student's code gave, so the course's code runs on
        arguments the student chose, in the bounded helper (grader/sandbox/trusted_calls.py), never in the
        grading process first; a call stopped at a limit fails the check, saying which."""
        try:
            return bounded.outcome(["reference", self.exercise.file], func, list(case.args), dict(case.kwargs))
        except Overrun as overrun:
            raise Fail(f"err.reference_{overrun.kind}", function=func, **overrun.params()) from None

    def course_error(self, exc: BaseException, what: str) -> CourseError:
        """The course error for ``exc``, raised by the course's own code or data while the current
        check ran: it names the check's YAML file and line, and the course file and line that raised."""
        return CourseError(f"{self.check_where()}: {what}: {type(exc).__name__}: {exc}{course_frame(exc, self)}")

    def check_where(self) -> str:
        spec = next((c for c in self.exercise.checks if c.id == self.check_id), None)
        line = getattr(spec, "line", 0)
        where = str(self.exercise.path or f"{self.exercise.id}.yaml") + (f":{line}" if line else "")
        return where + (f": check {self.check_id!r}" if self.check_id else "")

    def expected_for(self, func: str, case: Case):
        """``expected`` for a case kept in ``cached``: computed once per run."""
        key = (self.exercise.id, "expected", func, id(case))
        return self.runtime.memo(key, lambda: (case, self.expected(func, case)))[1]

    def cases_with_expected(self, tag: str, func: str, build: Callable) -> list[tuple[Case, object]]:
        def with_expected(rng):
            # marked shared first: built from the seed, not from a student's values, so the reference
            # runs on them here, not in the bounded helper (a round trip each, 200 a course)
            cases = mark_shared(build(rng))
            return [(c, self.expected(func, c)) for c in cases]
        return self.cached(tag, with_expected)

    # ------------------------------------------------------------ calling the student

    def call(self, func: str, case: Case, reuse: bool = False):
        """The student's result, or :class:`Fail` with what went wrong.

        ``reuse``: the worker passes the previous call's argument objects, refilled
        with this case's values (catches caches keyed on id() or on shapes)."""
        self.current = func
        try:
            result = self.student.call(func, *case.args, return_args=True, reuse_args=reuse,
                                       cache_as=case if case.shared else None, **case.kwargs)
        except StudentError as exc:
            result = exc
        return self._judged(func, case, self._record(func, case, result))

    def _record(self, func: str, case: Case, result):
        """Keep a call that ran (a CallResult or a StudentError) for the diagnosis; return it."""
        if isinstance(result, StudentError):
            if result.kind != "not_run":
                self.calls.append(RecordedCall(func, case, ("error", result.error.get("type") or result.kind)))
        else:
            self.calls.append(RecordedCall(func, case, ("ok", result.value, result.args_after, result.kwargs_after)))
        return result

    def _judged(self, func: str, case: Case, result):
        """The returned value, or :class:`Fail` saying why the call did not return one."""
        if isinstance(result, StudentError):
            key, params = self.error_message(result.error, func)
            raise Fail(key, **params)
        self.last = result
        return result.value

    @property
    def last_type(self) -> str:
        return self.last.type_name if self.last else ""

    def error_message(self, error: dict, func: str) -> tuple:
        """The message for a call that returned no value (grader/grading/worker_errors.py)."""
        return call_error_message(error, func, self.exercise.file, self._describe_line, self.exercise.timeout)

    # ------------------------------------------------------------ judging

    def assert_close(self, got, expected, case: Case, what: str = "", rtol=None, atol=None, names=None):
        """``names``: the result's names (a name, or one per part of a tuple result, as the
        exercise's ``returns:`` gives them), which the message then uses instead of ``what``."""
        mismatch = compare(got, expected, self.rtol if rtol is None else rtol,
                           self.atol if atol is None else atol, what if names is None else "")
        if mismatch:
            if names is not None:
                mismatch = Mismatch(mismatch.key, {**mismatch.params,
                                                   "where": result_name(names, mismatch.params.get("where", ""))})
            raise_mismatch(mismatch, case)

    def check_reference(self, tag: str, func: str, build: Callable, what: str = "",
                        values_only: Callable | None = None, names=None):
        """The usual check: every case of ``build`` against the reference, in one round trip.
        ``values_only(got, expected)``: the student's value as the comparison should see it, for a
        check about values where another check judges the layout (e.g. a (1, H) gradient kept
        with keepdims, compared as (H,)): one mistake costs one check."""
        pairs = self.cases_with_expected(tag, func, build)
        results = self.student.batch([(func, case.args, case.kwargs) for case, _ in pairs], return_args=True,
                                     cache_as=[case for case, _ in pairs] if all(c.shared for c, _ in pairs) else None)
        self.current = func
        for (case, _), result in zip(pairs, results):   # record every call that ran, in order
            self._record(func, case, result)
        for (case, expected), result in zip(pairs, results):
            got = self._judged(func, case, result)
            self.assert_close(values_only(got, expected) if values_only else got, expected, case, what or func,
                              names=names)

    def check_unchanged(self, func: str, case: Case):
        """The call must leave its arguments as they were. Only that: wrong values are the
        business of the checks named after them (one mistake, one place)."""
        self.call(func, case)
        changed = [str(i + 1) for i, (before, now) in enumerate(zip(case.args, self.last.args_after))
                   if compare(now, before, 0.0, 0.0) is not None]
        changed += [k for k, before in case.kwargs.items()
                    if compare(self.last.kwargs_after.get(k), before, 0.0, 0.0) is not None]
        if changed:
            raise Fail("prop.input_modified", name=func, position=", ".join(changed), case=describe_case(case))

    def check_no_state(self, func: str, case_a: Case, case_b: Case, what: str = ""):
        """A, then B, then A again, the later calls reusing the same argument objects
        refilled with new values. State shows as A giving another answer the second time,
        or as a function right on its first call and wrong on the next (give B the same
        shapes and kind of values as A, so that only state explains that). Wrong values
        alone, a constant answer included, are the business of the checks named after values."""
        expected_a, expected_b = self.expected_for(func, case_a), self.expected_for(func, case_b)
        first = self.call(func, case_a)
        second = self.call(func, case_b, reuse=True)
        if (compare(first, expected_a, self.rtol, self.atol) is None
                and compare(second, expected_b, self.rtol, self.atol) is not None):
            raise Fail("prop.state_carried", name=func, case=describe_case(case_b))
        again = self.call(func, case_a, reuse=True)
        if compare(again, first, self.rtol, self.atol) is not None:
            raise Fail("prop.state_carried", name=func, case=describe_case(case_a))
        # B again in fresh arrays: the objects of the calls before now hold A's values, so a
        # function that kept an argument (or a view of it) and answers later calls from it gives
        # A's answer here, and a kept copy gives A's or B's first: either way not the second answer.
        fresh = self.call(func, case_b)
        if compare(fresh, second, self.rtol, self.atol) is not None:
            raise Fail("prop.state_carried", name=func, case=describe_case(case_b))


@contextlib.contextmanager
def quiet_numpy():
    """Course code on NaN or inf padding may warn; the grader's own output stays clean."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def course_frame(exc: BaseException, ctx=None, root: Path | None = None) -> str:
    """' (at <file>:<line>)': the deepest frame of ``exc``'s traceback in a course's folder
    (its reference, known mistakes or check modules: ``ctx``'s course, or ``root``), or ''."""
    roots = [str(Path(root).resolve())] if root is not None else []
    roots += [str(ctx.runtime.course.root.resolve())] if ctx is not None else []
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename
        if any(name.startswith(root) or str(Path(name).resolve()).startswith(root) for root in roots):
            found = f" (at {name}:{frame.lineno})"
    return found


def result_name(names, where: str, default: str = "result") -> str:
    """Where in a result a message points, in the course's names for the result: with ``names``
    ("h_t", "c_t") the part ``[0]`` is ``h_t`` and ``[1][2]`` is ``c_t[2]``; with one name
    (a str) that name stands for the whole result; without names, ``default``."""
    if isinstance(names, (tuple, list)):
        match = re.match(r"\[(\d+)\]", where)
        if match and int(match.group(1)) < len(names):
            return str(names[int(match.group(1))]) + where[match.end():]
        return default + where
    return (names if isinstance(names, str) and names else default) + where


def raise_mismatch(mismatch: Mismatch, case: Case):
    raise Fail(mismatch.key, case=describe_case(case), **mismatch.params)
