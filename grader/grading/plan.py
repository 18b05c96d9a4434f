"""The calls an exercise's checks make, known before any student is graded.

Checks call the student one at a time, and each call would be a round trip to
the worker. But the test cases are fixed for the run, so the calls the checks
make on correct code are fixed too: this module records them once, by running
the checks on the reference solution in this process. The worker then runs
the visible checks' plan in one request when an exercise starts (and the
hidden checks' plan when they run, last), and the checks take their results
from it (:meth:`grader.sandbox.client.StudentModule.open`); a call that is not in
the plan still goes to the worker on its own.

So the calls a submission sees do not depend on which checks fail along the
way; for code without state between calls, that changes no verdict
(``tests/engine/test_plan.py``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from grader.checks.api import Context, quiet_numpy
from grader.course.kit_records import NotInKit
from grader.sandbox.client import CallResult, StudentError


@dataclass(frozen=True)
class PlannedCall:
    func: str
    case: object          # a shared Case: the identity the checks' calls are matched on
    reuse_args: bool


class _Recorder:
    """StudentModule's interface over the reference, recording the calls made with shared cases."""

    def __init__(self, runtime, exercise):
        self.runtime, self.exercise = runtime, exercise
        self.planned: list[PlannedCall] = []
        self.output: list[str] = []
        self.keep_output = True

    def call(self, func, *args, return_args=False, reuse_args=False, cache_as=None, **kwargs):
        if cache_as is not None and return_args:
            self.planned.append(PlannedCall(func, cache_as, reuse_args))
        return self._run(func, args, kwargs)

    def batch(self, calls, return_args=False, cache_as=None):
        results = []
        for i, (func, args, kwargs) in enumerate(calls):
            if cache_as is not None and return_args:
                self.planned.append(PlannedCall(func, cache_as[i], False))
            try:
                results.append(self._run(func, args, kwargs))
            except StudentError as exc:
                results.append(exc)
        return results

    def _run(self, func, args, kwargs):
        args, kwargs = copy.deepcopy((list(args), kwargs))
        try:
            with quiet_numpy():
                value = self.runtime.reference_function(self.exercise.file, func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- a check may probe how errors are raised
            raise StudentError({"kind": "exception", "type": type(exc).__name__, "message": str(exc)}) from None
        return CallResult(value=value, type_name=type(value).__name__, args_after=args, kwargs_after=kwargs)

    def getattr(self, name):
        raise StudentError({"kind": "missing", "name": name})


@dataclass(frozen=True)
class Plan:
    visible: tuple[PlannedCall, ...]   # the visible checks' calls, in the order they are run
    hidden: tuple[PlannedCall, ...]    # the hidden checks' calls (run last, see grader/grading/run.py)


def record_plan(runtime, exercise, checks: dict, hidden_checks: bool = True) -> Plan:
    """The calls, in order, that the exercise's checks make on the reference (the visible
    checks' only, without ``hidden_checks``: a student kit runs no hidden check)."""
    recorder = _Recorder(runtime, exercise)
    ctx = Context(runtime, exercise, recorder)
    parts = {True: ()}
    for hidden in (False, True) if hidden_checks else (False,):
        recorder.planned = []
        for spec in exercise.checks:
            if spec.hidden != hidden:
                continue
            try:
                checks[exercise.id][spec.id](ctx)
            except (Exception, NotInKit):  # noqa: BLE001 -- a check that fails here still planned its calls
                pass
        parts[hidden] = tuple(recorder.planned)
    return Plan(visible=parts[False], hidden=parts[True])
