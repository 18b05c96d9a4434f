"""The smallest input on which a student's function goes wrong.

When a visible check fails, the function's **ladder** (grader/checks/choices.py: the simplest
case of the course's input builder, every case one choice away from it, a few seeded
random ones; built once per run with the reference's results) goes to the student's
code in one worker request. The first case that goes wrong is shrunk further, a batch
of simpler cases per request, until none of them goes wrong. Only where the ladder
finds nothing do the cases hypothesis draws from the same builder go (drawn once per
run, with the reference's results; again one request), within the submission's time
budget.
What it finds is shown to the student: the call with its values, and expected
against got. The course's builders and argument names come with its check modules
(grader/course/code.py: BUILDERS, ARG_NAMES, RESULT_NAMES) or from its declared reference
checks (grader/course/declared_checks.py: combined_builder; ``returns:`` names the results).
"""

from __future__ import annotations

import copy
import hashlib
import time
from dataclasses import dataclass

import numpy as np

from grader.checks.api import Case, quiet_numpy, result_name
from grader.checks.choices import DRAWN_RUNGS, Rung, build as build_rung, drawn, ladder, merge, simpler, size
from grader.checks.compare import compare
from grader.base.i18n import Message
from grader.course.kit_records import call_digest
from grader.sandbox.client import StudentError
from grader.grading.tier_cache import cached_indexes, course_digest
from grader.sandbox.worker import wire

SHOW_VALUES = 24              # arrays up to this size are printed in full
SHRINK_ROUNDS = 12            # batches of simpler cases after the first failing one
SUBMISSION_SECONDS = 1.0      # all counterexample work of one submission, at most
# Errors that make no clean counterexample, and cost too much to repeat (or the grader refused).
UNCLEAN = ("timeout", "timed_out_before", "crash", "gave_up", "time_limit", "import", "too_large", "not_run")


class Budget:
    """The time one submission's counterexamples may still take."""

    def __init__(self, seconds: float = SUBMISSION_SECONDS):
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return self.deadline - time.monotonic()


# ---------------------------------------------------------------- the search

@dataclass
class Counterexample:
    func: str
    case: Case
    outcome: str          # "mismatch" or "error"
    detail: Message       # what differs, or the error
    arg_names: tuple = ()  # the function's argument names, to show the call with

    def message(self) -> Message:
        return Message("cx.found", call=format_call(self.func, self.case, self.arg_names), detail=self.detail)


def _inputs(ctx):
    """The course's counterexample inputs (grader/checks/api.py Registry)."""
    return ctx.runtime.course.registry


def _found(ctx, func, case, verdict) -> Counterexample:
    return Counterexample(func, case, *verdict, arg_names=tuple(_inputs(ctx).arg_names.get(func, ())))


def behaviour(calls, func: str) -> str:
    """A fingerprint of what a student's function returned on the graded calls."""
    digest = hashlib.blake2b(digest_size=16)
    for call in calls:
        if call.func != func:
            continue
        if call.outcome[0] == "error":
            digest.update(f"error:{call.outcome[1]}".encode())
            continue
        blobs: list = []
        try:
            header = wire.encode(_rounded(call.outcome[1]), blobs)
        except wire.WireError:
            header = "?"
        digest.update(repr(header).encode())
        for blob in blobs:
            digest.update(blob)
    return digest.hexdigest()


def _rounded(value):
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.round(value, 6)
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, (list, tuple)):
        return type(value)(_rounded(v) for v in value)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def recheck(ctx, found: "Counterexample") -> "Counterexample | None":
    """The cached counterexample, if it still shows this student's function going wrong."""
    expected = _expected(ctx.reference(found.func), found.case)
    if expected is _REFUSED:
        return None
    verdict = _verdicts(ctx, found.func, [(found.case, expected)])[0]
    return None if verdict is None else _found(ctx, found.func, found.case, verdict)


_REFUSED = object()   # the reference itself refuses the input: out of scope


def _expected(reference, case: Case):
    try:
        with quiet_numpy():
            return reference(*_copy(case.args), **_copy(case.kwargs))
    except Exception:  # noqa: BLE001
        return _REFUSED


def _verdicts(ctx, func: str, cases: list, shared: bool = False) -> list:
    """For each (case, expected): ("mismatch" | "error", detail) where ``func`` goes wrong on
    it, else None; all in one request. ``shared``: the cases are kept for the run (a ladder),
    so the request is packed once for every student."""
    calls = [(func, case.args, case.kwargs) for case, _ in cases]
    results = ctx.student.batch(calls, cache_as=[case for case, _ in cases] if shared else None)
    return [_verdict(ctx, func, result, expected) for result, (_, expected) in zip(results, cases)]


def _verdict(ctx, func, result, expected):
    if isinstance(result, StudentError):
        if result.kind in UNCLEAN:
            return None
        return "error", Message(*ctx.error_message(result.error, func))
    mismatch = compare(result.value, expected, ctx.rtol, ctx.atol, "")
    if mismatch is None:
        return None
    where = result_name(_inputs(ctx).result_names.get(func), mismatch.params.get("where", ""))
    return "mismatch", Message(mismatch.key, {**mismatch.params, "where": where, "case": Message("cx.above")})


@dataclass
class Tier:
    """Cases of one function, fixed for the run: each with the reference's result."""

    rungs: list[tuple[Rung, object]]
    digests: frozenset     # the rungs' content keys (shrinking never sends one of them again)


def _tier(ctx, func: str, name: str, build) -> Tier:
    """``build(digest)``'s rungs with the reference's results and their digests, once per run;
    a case the reference refuses is out of scope."""
    def make():
        reference = ctx.reference(func)
        def digest(case):
            return call_digest(func, case.args, case.kwargs)
        with_expected = [(rung, _expected(reference, rung.case)) for rung in build(digest)]
        rungs = [(rung, expected) for rung, expected in with_expected if expected is not _REFUSED]
        return Tier(rungs, frozenset(digest(rung.case) for rung, _ in rungs))
    return ctx.runtime.memo((f"counterexample {name}", ctx.exercise.id, func), make)


def _ladder(ctx, func: str) -> Tier:
    """The function's ladder (grader/checks/choices.py: ladder)."""
    return _tier(ctx, func, "ladder", lambda digest: ladder(_inputs(ctx).builders[func], digest))


def _drawn(ctx, func: str) -> Tier:
    """The cases hypothesis draws for the function (grader/checks/choices.py: drawn), those not on its
    ladder. Hypothesis's draw is the same every run: its choices are kept between runs
    (grader/grading/tier_cache.py) and replayed through the builder."""
    def build(digest):
        on_ladder = _ladder(ctx, func).digests
        spec = _inputs(ctx).builders[func]
        course = ctx.runtime.memo("tier cache digest", lambda: course_digest(ctx.runtime.course.root))
        key = hashlib.sha256(f"{course}:{ctx.exercise.id}:{func}:{DRAWN_RUNGS}".encode()).hexdigest()[:32]
        indexes = cached_indexes(key, lambda: [rung.indexes for rung in drawn(spec, digest)])
        rungs = [build_rung(spec, i) for i in indexes]
        return [rung for rung in rungs if digest(rung.case) not in on_ladder]
    return _tier(ctx, func, "drawn", build)


def warm_ladders(runtime, exercises) -> None:
    """Build the ladders (with the reference's results) of the exercises' functions now: a
    class run does it once before its grading processes fork, not once in each of them."""
    from grader.checks.api import Context

    for exercise in exercises:
        ctx = Context(runtime, exercise, None)
        for func in exercise.functions:
            if func in _inputs(ctx).builders:
                _ladder(ctx, func)


def search(ctx, func: str, budget: Budget | None = None) -> Counterexample | None:
    """The smallest input found where ``func`` goes wrong, or None: the ladder first, then
    hypothesis's drawn cases where the ladder finds nothing and ``budget`` has time left;
    the first failing case is shrunk."""
    spec = _inputs(ctx).builders.get(func)
    if spec is None:
        return None
    budget = budget or Budget()
    seen = set()
    # The ladder, then (where it finds nothing and time is left) hypothesis's cases: one
    # request each, packed once per run; the smallest failing case is shrunk.
    for tier in (_ladder, _drawn):
        if tier is _drawn and budget.left() <= 0:
            break
        cases = tier(ctx, func)
        verdicts = _verdicts(ctx, func, [(rung.case, expected) for rung, expected in cases.rungs], shared=True)
        seen |= cases.digests
        failing = [(rung, verdict) for (rung, _), verdict in zip(cases.rungs, verdicts) if verdict is not None]
        if failing:
            rung, verdict = _shrink(ctx, func, *failing[0], seen, budget)
            return _found(ctx, func, rung.case, verdict)
    return None


def _shrink(ctx, func, rung, verdict, seen, budget):
    """Simpler cases than the failing ``rung``, a batch a round, while one of them still fails.
    Each round also tries every simplification that failed in the last one at once (merge)."""
    reference = ctx.reference(func)
    spec = _inputs(ctx).builders[func]
    merged = None   # every simplification that still failed last round, at once (see merge)
    for _ in range(SHRINK_ROUNDS):
        if budget.left() <= 0:
            break
        candidates = []
        for candidate in sorted(simpler(spec, rung) + ([merged] if merged else []), key=size):
            key = call_digest(func, candidate.case.args, candidate.case.kwargs)
            if key in seen:
                continue
            seen.add(key)
            expected = _expected(reference, candidate.case)
            if expected is not _REFUSED:
                candidates.append((candidate, expected))
        if not candidates:
            break
        verdicts = _verdicts(ctx, func, [(c.case, expected) for c, expected in candidates])
        smaller = [(c, v) for (c, _), v in zip(candidates, verdicts) if v is not None]
        if not smaller:
            break
        rung, verdict = smaller[0]   # candidates come smallest first
        merged = merge(spec, rung, [c for c, _ in smaller[1:]])
    return rung, verdict


def _copy(value):
    return copy.deepcopy(value)


# ---------------------------------------------------------------- showing it

def format_value(value) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= SHOW_VALUES:
            body = np.array2string(value, precision=4, separator=", ", suppress_small=True)
            return " ".join(body.split())
        return f"<array of shape {value.shape}>"
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def format_call(func: str, case: Case, names: tuple = ()) -> str:
    parts = []
    for i, value in enumerate(case.args):
        name = names[i] if i < len(names) else f"arg{i + 1}"
        parts.append(f"{name}={format_value(value)}")
    parts += [f"{k}={format_value(v)}" for k, v in case.kwargs.items()]
    return f"{func}({', '.join(parts)})"
