"""Naming known mistakes by behaviour.

Every call the visible checks made to the student during an exercise is
replayed on each known wrong implementation (trusted course code), and the
hidden checks' calls too for a mistake whose catalogue entry sets
``hidden_evidence``. A mistake is named when, for some
function, the student's outcome agrees with the mistake's on every call where
the mistake and the reference disagree. This recognises the mistake however
the student wrote it, and never names one on correct code: where a mistake is
discriminating, correct code agrees with the reference instead.
"""

from __future__ import annotations

import copy
import hashlib

import numpy as np

from grader.checks import RecordedCall, quiet_numpy
from grader.compare import identical, same
from grader.course import MistakeSpec
from grader.kit import NotInKit, call_digest


def call_key(call: RecordedCall) -> str:
    """A digest of the call's inputs (grader/kit.py's, which names a call in the kit's records
    too); kept on the Case, which lives as long as the run's cache."""
    cached = getattr(call.case, "_digest", None)
    if cached is not None and cached[0] == call.func:
        return cached[1]
    call.case._digest = (call.func, call_digest(call.func, call.case.args, call.case.kwargs))
    return call.case._digest[1]


def run_outcome(function, call: RecordedCall) -> tuple:
    args, kwargs = copy.deepcopy((list(call.case.args), call.case.kwargs))
    try:
        with quiet_numpy():
            value = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- a wrong implementation may raise anything
        return ("error", type(exc).__name__)
    # Arguments left as they were are the case's own objects, as on the student's side
    # (see runner.with_arguments): comparing them is then an identity test.
    args = [original if identical(arg, original) else arg for arg, original in zip(args, call.case.args)]
    kwargs = {k: call.case.kwargs[k] if identical(v, call.case.kwargs.get(k)) else v for k, v in kwargs.items()}
    return ("ok", value, args, kwargs)


def signature(value):
    """The types in a value (dtype, Python or numpy scalar type), not its numbers."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str)
    if isinstance(value, np.generic):
        return ("numpy", value.dtype.str)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(signature(v) for v in value[:64]))
    if isinstance(value, dict):
        return ("dict", tuple((str(k), signature(v)) for k, v in value.items()))
    return type(value).__name__


def same_values(a: tuple, b: tuple, rtol: float, atol: float) -> bool:
    return all(same(x, y, rtol, atol) for x, y in zip(a[1:], b[1:]))


def difference(reference: tuple, wrong: tuple, rtol: float, atol: float) -> str | None:
    """How a mistake's outcome differs from the reference's: "value", "type" or not at all."""
    if reference[0] != wrong[0]:
        return "value"
    if reference[0] == "error":
        return None
    if not same_values(reference, wrong, rtol, atol):
        return "value"
    return "type" if signature(reference[1]) != signature(wrong[1]) else None


def agrees(student: tuple, wrong: tuple, how: str, rtol: float, atol: float) -> bool:
    if student[0] != wrong[0]:
        return False
    if student[0] == "error":
        return True
    if how == "type":
        return signature(student[1]) == signature(wrong[1])
    return same_values(student, wrong, rtol, atol)


def shares_the_mistake(student, wrong, reference, rtol: float, atol: float, shown: set | None = None,
                       path: tuple = ()) -> tuple[bool, bool]:
    """(consistent, evidence) for one returned value, part by part (dict entries, items, array
    positions): where the mistake agrees with the reference the student must too; where it does
    not, the student must be wrong as well, and shows the mistake (evidence) where they give the
    mistake's very value. A part where the mistake gives NaN or inf is matched by any wrong value
    (finite garbage for NaN), and one the student gets wrong another way (dh0 of a gradient
    that does not flow back, computed differently) still counts as wrong: a mistake is named
    however the rest of the function is written, and never on parts a correct function gets right.
    ``shown`` collects where the evidence is (``path`` and array positions), to weigh mistakes
    that are both consistent with the student's results against each other (see ``prune``)."""
    shown = set() if shown is None else shown
    if isinstance(reference, dict) and isinstance(wrong, dict) and isinstance(student, dict):
        if set(reference) != set(wrong) or set(student) != set(reference):
            agree = same(student, wrong, rtol, atol)
            if agree:
                shown.add(path)
            return agree, agree
        parts = [shares_the_mistake(student[k], wrong[k], reference[k], rtol, atol, shown, path + (str(k),))
                 for k in reference]
    elif (isinstance(reference, (list, tuple)) and isinstance(wrong, (list, tuple)) and isinstance(student, (list, tuple))
          and len(reference) == len(wrong) == len(student) and type(student) is type(reference)):
        parts = [shares_the_mistake(a, b, c, rtol, atol, shown, path + (i,))
                 for i, (a, b, c) in enumerate(zip(student, wrong, reference))]
    elif (isinstance(reference, np.ndarray) and isinstance(wrong, np.ndarray) and isinstance(student, np.ndarray)
          and reference.shape == wrong.shape == student.shape and reference.dtype.kind in "fc"
          and student.dtype.kind in "iuf" and wrong.dtype.kind in "iuf"):
        with np.errstate(all="ignore"):
            s, w, r = (a.astype(np.float64) for a in (student, wrong, reference))
            mistaken = ~np.isclose(w, r, rtol=rtol, atol=atol, equal_nan=True)
            right = np.isclose(s, r, rtol=rtol, atol=atol, equal_nan=True)
            like_mistake = np.isclose(s, w, rtol=rtol, atol=atol, equal_nan=True)
        if (right & mistaken).any() or (~right & ~mistaken).any():
            return False, False
        where = (like_mistake & mistaken & np.isfinite(w)) | (mistaken & ~np.isfinite(w))
        shown.update(path + (int(i),) for i in np.flatnonzero(where))
        return True, bool(where.any())
    else:
        agree = same(student, wrong, rtol, atol)
        if same(wrong, reference, rtol, atol):
            return same(student, reference, rtol, atol), False
        if agree:
            shown.add(path)
        return agree, agree
    return all(ok for ok, _ in parts), all(ok for ok, _ in parts) and any(e for _, e in parts)


def usable(calls) -> list[RecordedCall]:
    """The calls a replay can judge: not those the module's import failed on."""
    return [c for c in calls if not (c.outcome[0] == "error" and c.outcome[1] == "import")]


def looks_correct(calls, keys, reference, right) -> bool:
    """Correct code on these calls (the reference's values and types): nothing to name from them."""
    return all(right) and all(c.outcome[0] == "error" or signature(c.outcome[1]) == signature(ref[1])
                              for c, ref in zip(calls, reference))


class Diagnoser:
    """Replays calls on known mistakes; results are memoised for the whole run."""

    def __init__(self, runtime):
        self.runtime = runtime
        self._reference: dict[bytes, tuple] = {}
        self._mistake: dict[tuple, list] = {}
        self._repeatable: dict[str, bool] = {}

    def diagnose(self, exercise, calls: list[RecordedCall],
                 hidden_calls: list[RecordedCall] = ()) -> list[MistakeSpec]:
        """The known mistakes the calls show: each mistake from the visible checks' ``calls``, and
        a mistake whose catalogue entry sets ``hidden_evidence`` from ``hidden_calls`` too (else
        whether it is named would tell the student something about a hidden input)."""
        calls = usable(calls)
        hidden_calls = usable(hidden_calls) if any(m.hidden_evidence for m in exercise.mistakes) else []
        everything = calls + hidden_calls    # the visible calls first: for a mistake without the flag, a prefix
        if not everything:
            return []
        # In a student kit, a call the release did not record (inputs the student's own results
        # built, as in a training run) cannot be replayed: it is left out, and the rest judged.
        kept, keys, reference = [], [], []
        for i, call in enumerate(everything):
            key = call_key(call)
            try:
                reference.append(self._reference_outcome(exercise, call, key))
            except NotInKit:
                continue
            kept.append((i < len(calls), call))
            keys.append(key)
        calls = [c for visible, c in kept if visible]
        everything = [c for _, c in kept]
        if not everything:
            return []
        # Where the student agrees with the reference, no mistake that differs from it can agree.
        right = [agrees(c.outcome, ref, "value", exercise.rtol, exercise.atol) for c, ref in zip(everything, reference)]
        seen = {n: (everything[:n], keys[:n], reference[:n], right[:n]) for n in {len(calls), len(everything)}}
        correct = {n: looks_correct(*part) for n, part in seen.items()}
        found = []          # (mistake, calls judged, where it shows)
        for mistake in exercise.mistakes:
            n = len(everything) if mistake.hidden_evidence else len(calls)
            if correct[n]:
                continue
            shown = [where for v in mistake.variants for matched, where in [self._matches(exercise, v, *seen[n])]
                     if matched]
            if shown:
                found.append((mistake, n, max(shown, key=len)))
        return self._prune(exercise, found, seen)

    def _prune(self, exercise, found, seen) -> list[MistakeSpec]:
        """Of two mistakes both consistent with the student's results, the one whose evidence is
        a strict part of the other's is not named: a student who always normalises over axis 0
        also matches "the default axis is wrong" on the calls that use the default, and one who
        ignores h0 matches a mistake seen only on a one-step call that starts from zeros. Only
        ever removes a name, so correct code is still never named; a catalogued mistake's own
        implementation shows its mistake wherever it differs from the reference, so no other
        mistake's evidence can strictly contain it."""
        if len(found) < 2:
            return [mistake for mistake, _, _ in found]

        def shown_in(entry, n):
            mistake, judged, where = entry
            if judged >= n:
                return {p for p in where if p[0] < n}
            return max((self._matches(exercise, v, *seen[n])[1] for v in mistake.variants), key=len)

        kept = []
        for entry in found:
            mistake, n, where = entry
            if not any(other is not entry and where < shown_in(other, n) for other in found):
                kept.append(mistake)
        return kept

    def _reference_outcome(self, exercise, call, key):
        if key not in self._reference:
            function = self.runtime.reference_function(exercise.file, call.func)
            self._reference[key] = run_outcome(function, call)
        return self._reference[key]

    def _repeatable_call(self, exercise, call, key) -> bool:
        """Whether the reference answers this call the same way twice. A function that draws its
        own random numbers (a sampler given no ``u``) is not: a value returned there is no
        evidence of anything (only an exception, which correct code never raises, is)."""
        if key not in self._repeatable:
            function = self.runtime.reference_function(exercise.file, call.func)
            again = run_outcome(function, call)
            self._repeatable[key] = difference(self._reference[key], again, exercise.rtol, exercise.atol) is None
        return self._repeatable[key]

    def _mistake_outcomes(self, exercise, variant, calls, keys, reference) -> list:
        """For the whole call sequence, in order (a mistake may keep state): each call's
        mistaken outcome and how it differs from the reference's (None: not at all)."""
        sequence_key = (str(variant), hashlib.blake2b("".join(keys).encode(), digest_size=16).digest())
        if sequence_key not in self._mistake:
            rows = []
            for call, ref in zip(calls, reference):
                function = self.runtime.variant_function(exercise, variant, call.func)
                try:
                    wrong = run_outcome(function, call) if function else ("error", "missing")
                except NotInKit:   # not recorded for the kit: this variant cannot be told apart here
                    wrong = ref
                rows.append((wrong, difference(ref, wrong, exercise.rtol, exercise.atol)))
            self._mistake[sequence_key] = rows
        return self._mistake[sequence_key]

    def _matches(self, exercise, variant, calls, keys, reference, right) -> tuple[bool, frozenset]:
        """Per function: the student agrees with the mistake wherever it differs from correct code.
        Also where the evidence is: (call index, part of the value, array position) of each
        agreement on a mistaken value, in the functions that match."""
        rows = self._mistake_outcomes(exercise, variant, calls, keys, reference)
        consistent: dict[str, bool] = {}
        evidence: dict[str, bool] = {}   # agreement on a value, or on the very same exception
        where: dict[str, set] = {}
        for index, (call, key, (wrong, how), is_right, ref) in enumerate(zip(calls, keys, rows, right, reference)):
            if how is None or (wrong[0] == "ok" and not self._repeatable_call(exercise, call, key)):
                continue  # this call cannot tell the mistake from correct code (an exception still can)
            shown = None
            parts: set = set()
            if how == "value" and is_right and call.outcome[0] == "ok":
                same = False   # the student is right here, and the mistake is not
            elif (how == "value" and call.outcome[0] == wrong[0] == ref[0] == "ok"
                  and same_values(("", *wrong[2:]), ("", *ref[2:]), exercise.rtol, exercise.atol)
                  and same_values(("", *call.outcome[2:]), ("", *wrong[2:]), exercise.rtol, exercise.atol)):
                # a mistake in the returned value: compared part by part (the arguments are as they were)
                same, shown = shares_the_mistake(call.outcome[1], wrong[1], ref[1], exercise.rtol, exercise.atol,
                                                 parts)
            else:
                same = agrees(call.outcome, wrong, how, exercise.rtol, exercise.atol)
                parts = {()}
            consistent[call.func] = consistent.get(call.func, True) and same
            if same and (shown if shown is not None else (wrong[0] == "ok" or call.outcome[1] == wrong[1])):
                evidence[call.func] = True
                where.setdefault(call.func, set()).update((index, *part) for part in parts)
        matching = [func for func, ok in consistent.items() if ok and evidence.get(func)]
        return bool(matching), frozenset(p for func in matching for p in where[func])
