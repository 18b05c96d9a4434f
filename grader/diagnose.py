"""Naming known mistakes by behaviour.

Every call made to the student during an exercise is replayed on each known
wrong implementation (trusted course code). A mistake is named when, for some
function, the student's outcome agrees with the mistake's on every call where
the mistake and the reference disagree. This recognises the mistake however
the student wrote it, and never names one on correct code: where a mistake is
discriminating, correct code agrees with the reference instead.
"""

from __future__ import annotations

import copy
import hashlib

from grader.checks import RecordedCall
from grader.compare import compare
from grader.course import MistakeSpec
from grader.runtime import module_name
from grader.worker import wire


def call_key(call: RecordedCall) -> bytes:
    blobs: list = []
    header = repr(wire.encode([call.func, list(call.case.args), call.case.kwargs], blobs)).encode()
    digest = hashlib.blake2b(header, digest_size=16)
    for blob in blobs:
        digest.update(blob)
    return digest.digest()


def run_outcome(function, call: RecordedCall) -> tuple:
    args, kwargs = copy.deepcopy((list(call.case.args), call.case.kwargs))
    try:
        value = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- a wrong implementation may raise anything
        return ("error", type(exc).__name__)
    return ("ok", value, args, kwargs)


def same_outcome(a: tuple, b: tuple, rtol: float, atol: float) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return True
    return (compare(a[1], b[1], rtol, atol) is None and compare(a[2], b[2], rtol, atol) is None
            and compare(a[3], b[3], rtol, atol) is None)


class Diagnoser:
    """Replays calls on known mistakes; results are memoised for the whole run."""

    def __init__(self, runtime):
        self.runtime = runtime
        self._reference: dict[bytes, tuple] = {}
        self._mistake: dict[tuple, list] = {}

    def diagnose(self, exercise, calls: list[RecordedCall]) -> list[MistakeSpec]:
        calls = [c for c in calls if not (c.outcome[0] == "error" and c.outcome[1] == "import")]
        if not calls:
            return []
        keys = [call_key(c) for c in calls]
        reference = [self._reference_outcome(exercise, c, k) for c, k in zip(calls, keys)]
        found = []
        for mistake in exercise.mistakes:
            if any(self._matches(exercise, v, calls, keys, reference) for v in mistake.variants):
                found.append(mistake)
        return found

    def _reference_outcome(self, exercise, call, key):
        if key not in self._reference:
            function = self.runtime.reference_function(exercise.file, call.func)
            self._reference[key] = run_outcome(function, call)
        return self._reference[key]

    def _mistake_outcomes(self, exercise, variant, calls, keys) -> list:
        """Outcomes of the whole call sequence, in order (a mistake may keep state)."""
        sequence_key = (str(variant), hashlib.blake2b(b"".join(keys), digest_size=16).digest())
        if sequence_key not in self._mistake:
            from grader.modules import ModuleSet
            source = variant.read_text(encoding="utf-8")
            modules = ModuleSet(self.runtime.course.reference_dir, {module_name(exercise.file): source})
            module = modules.get(module_name(exercise.file))
            outcomes = []
            for call in calls:
                function = getattr(module, call.func, None)
                outcomes.append(run_outcome(function, call) if function else ("error", "missing"))
            self._mistake[sequence_key] = outcomes
        return self._mistake[sequence_key]

    def _matches(self, exercise, variant, calls, keys, reference) -> bool:
        mistaken = self._mistake_outcomes(exercise, variant, calls, keys)
        rtol, atol = exercise.rtol, exercise.atol
        verdict: dict[str, bool] = {}      # per function: still consistent with the mistake?
        value_match: dict[str, bool] = {}  # per function: matched at least one returned value
        for call, ref, wrong in zip(calls, reference, mistaken):
            if same_outcome(ref, wrong, rtol, atol):
                continue  # this call cannot tell the mistake from correct code
            agrees = same_outcome(call.outcome, wrong, rtol, atol)
            verdict[call.func] = verdict.get(call.func, True) and agrees
            if agrees and wrong[0] == "ok":
                value_match[call.func] = True
        return any(ok and value_match.get(func) for func, ok in verdict.items())
