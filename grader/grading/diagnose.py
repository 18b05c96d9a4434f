"""Naming known mistakes by behaviour.

Every call the visible checks made to the student during an exercise is
replayed on each known wrong implementation (trusted course code). A mistake is
named when, for some function, the student's outcome agrees with the mistake's
on every call where the mistake and the reference disagree. This recognises the
mistake however the student wrote it, and never names one on correct code: where
a mistake is discriminating, correct code agrees with the reference instead.

What the student is told (:meth:`Diagnoser.diagnose`) comes from the visible
checks' calls alone. A hidden check's calls would make whether a mistake is named
depend on the hidden inputs' values beyond that check's pass or fail: two
submissions that differ only in how they treat the sign of one hidden value then
learnt that sign from a name. A mistake whose catalogue entry sets
``hidden_evidence`` (only a hidden check shows it) is named from the hidden
checks' calls too, but for the instructor only (:meth:`Diagnoser.diagnose_hidden`,
``ExerciseResult.hidden_diagnoses``, which no student report renders).

Why one file of this size: the naming rule is one algorithm over one replay: matching the
student's outcomes to each mistake's (its implementations, where it is silent, two mistakes at
once), pruning, and the evidence shown all read the same memoised outcomes.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import hashlib
import inspect
import itertools
import types
from pathlib import Path

import numpy as np

from grader.checks.api import RecordedCall, quiet_numpy
from grader.checks.compare import identical, same
from grader.course.loader import MistakeSpec, Silence
from grader.base.i18n import Message
from grader.course.kit_records import NotInKit, call_digest
from grader.course.modules import module_name

MAX_MEMO_ROWS = 20_000
NO_SILENCE = Silence()
UNKNOWN = "unknown"     # a row a kit did not record: the call says nothing of the mistake
# Error outcomes that are no exception raised by the function (grader/checks/call_errors.py: CALL_ERROR_KINDS):
# the rest are raises, and any two raises are one behaviour whatever their type and message.
NOT_RAISED = frozenset(("timeout", "timed_out_before", "crash", "time_limit", "gave_up", "too_large", "protocol",
                        "bad_return", "missing", "import", "not_run"))
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-6   # how near two float32 results are to be one value (float32's eps: 1.2e-7)
MAX_PAIR_CANDIDATES = 12    # mistakes tried two at a time for one function (issue 36 item 3)


def raised(outcome: tuple) -> bool:
    """Whether an outcome is an exception the function raised (not a timeout, a crash, a missing function)."""
    return outcome[0] == "error" and outcome[1] not in NOT_RAISED


def call_key(call: RecordedCall) -> str:
    """A digest of the call's inputs (grader/course/kit_records.py's, which names a call in the kit's records
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


def bounded_outcome(helper, where: list, call: RecordedCall) -> tuple:
    """run_outcome, in the bounded helper (grader/sandbox/trusted_calls.py): for a call whose arguments a
    student may have chosen. A call stopped at a limit raises Overrun, and the diagnosis is given
    up (grader/grading/engine.py): no evidence is taken from a call the course's code could not answer."""
    outcome = helper.replay(where, call.func, list(call.case.args), call.case.kwargs)
    if outcome[0] != "ok":
        return outcome
    _, value, args, kwargs = outcome
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
    if isinstance(value, dict):   # in key order, not insertion order: the checks' comparison ignores the order
        return ("dict", tuple(sorted(((str(k), signature(v)) for k, v in value.items()), key=lambda e: e[0])))
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
                       path: tuple = (), rows=None, skip: tuple = ()) -> tuple[bool, bool]:
    """(consistent, evidence) for one returned value, part by part (dict entries, items, array
    positions): where the mistake agrees with the reference the student must too; where it does
    not, the student must be wrong as well, and shows the mistake (evidence) where they give the
    mistake's very value. A part where the mistake gives NaN or inf is matched by any wrong value
    (finite garbage for NaN), and one the student gets wrong another way (dh0 of a gradient
    that does not flow back, computed differently) still counts as wrong: a mistake is named
    however the rest of the function is written, and never on parts a correct function gets right.
    ``shown`` collects where the evidence is (``path`` and array positions), to weigh mistakes
    that are both consistent with the student's results against each other (``Diagnoser._prune``).
    Where the mistake says nothing (its catalogue's ``silent``): ``skip``, parts of the top-level result
    (index or key), and ``rows``, a boolean per batch row (axis 0 of every array), count neither way."""
    if isinstance(reference, dict) and isinstance(wrong, dict) and isinstance(student, dict):
        if set(reference) != set(wrong) or set(student) != set(reference):
            agree = same(student, wrong, rtol, atol)
            if agree and shown is not None:
                shown.add(path)
            return agree, agree
        parts = [shares_the_mistake(student[k], wrong[k], reference[k], rtol, atol, shown, path + (str(k),), rows)
                 for k in reference if not (path == () and k in skip)]
    elif (isinstance(reference, (list, tuple)) and isinstance(wrong, (list, tuple))
          and isinstance(student, (list, tuple))
          and len(reference) == len(wrong) == len(student) and type(student) is type(reference)):
        parts = [shares_the_mistake(a, b, c, rtol, atol, shown, path + (i,), rows)
                 for i, (a, b, c) in enumerate(zip(student, wrong, reference)) if not (path == () and i in skip)]
    elif (isinstance(reference, np.ndarray) and isinstance(wrong, np.ndarray) and isinstance(student, np.ndarray)
          and reference.shape == wrong.shape == student.shape and reference.dtype.kind in "fc"
          and student.dtype.kind in "iuf" and wrong.dtype.kind in "iuf"):
        with np.errstate(all="ignore"):
            s, w, r = (a.astype(np.float64) for a in (student, wrong, reference))
            mistaken = ~isclose64(w, r, rtol, atol)
            right = isclose64(s, r, rtol, atol)
            like_mistake = isclose64(s, w, rtol, atol)
            if rows is not None and r.ndim >= 1 and r.shape[0] == rows.shape[0]:
                quiet = np.broadcast_to(rows.reshape((-1,) + (1,) * (r.ndim - 1)), r.shape)
                mistaken, right = mistaken & ~quiet, right | quiet    # neither for nor against it there
            if (student.dtype == wrong.dtype == np.float32 and reference.dtype != np.float32 and mistaken.any()
                    and np.allclose(s, w, rtol=max(rtol, FLOAT32_RTOL), atol=max(atol, FLOAT32_ATOL), equal_nan=True)):
                # A float32 result where float64 is asked, the mistake's to float32's rounding (a float32 product
                # summed in another order, a float64 result rounded once): which positions the rounding happens
                # to leave right is chance, and the mistake is the float32, not its last bits.
                if shown is not None:
                    shown.update(path + (int(i),) for i in np.flatnonzero(mistaken))
                return True, True
        if (right & mistaken).any() or (~right & ~mistaken).any():
            return False, False
        where = (like_mistake & mistaken & np.isfinite(w)) | (mistaken & ~np.isfinite(w))
        if shown is not None:
            shown.update(path + (int(i),) for i in np.flatnonzero(where))
        return True, bool(where.any())
    else:
        agree = same(student, wrong, rtol, atol)
        if same(wrong, reference, rtol, atol):
            return same(student, reference, rtol, atol), False
        if not agree and _overflowed(wrong) and _real(student) and _real(reference):
            agree = not same(student, reference, rtol, atol)   # as an array position where the mistake overflows
        if agree and shown is not None:
            shown.add(path)
        return agree, agree
    return all(ok for ok, _ in parts), all(ok for ok, _ in parts) and any(e for _, e in parts)


def isclose64(x: np.ndarray, y: np.ndarray, rtol: float, atol: float):
    """np.isclose(x, y, rtol, atol, equal_nan=True) for two float64 arrays of one shape and finite
    tolerances, the same formula without its checks and conversions: a fifth of its time on the
    small arrays a diagnosis compares (three comparisons a part, for every mistake judged)."""
    with np.errstate(all="ignore"):     # an overflowing difference is "not close", as in numpy's
        result = np.less_equal(np.abs(x - y), atol + rtol * np.abs(y)) & np.isfinite(y) | (x == y)
        return result | (np.isnan(x) & np.isnan(y))


def _real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _overflowed(value) -> bool:
    """A real number that is NaN or infinite: overflow garbage, which another way of overflowing (inf / inf
    against log(inf), a sum of NaN against a NaN skipped) gives as another non-finite or finite value."""
    return isinstance(value, (float, np.floating)) and not np.isfinite(value)


_CONSTANT_DEFAULTS = (ast.Constant, ast.Name, ast.Attribute, ast.Lambda, ast.UnaryOp)


def _plain_value(node) -> bool:
    """A value that cannot hold state: a literal, a name, an attribute, a lambda, a tuple of these."""
    if isinstance(node, ast.Tuple):
        return all(_plain_value(e) for e in node.elts)
    return isinstance(node, _CONSTANT_DEFAULTS)


def _function_keeps_no_state(func: ast.FunctionDef) -> bool:
    if func.decorator_list or not all(_plain_value(d) for d in func.args.defaults + func.args.kw_defaults if d):
        return False
    params = {a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}
    params |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a}
    local = params | {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(func):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.ClassDef, ast.Yield, ast.YieldFrom)):
            return False
        written = None     # what the node writes into: an item or attribute, or a container it grows
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            written = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
            written = node.func.value
        if written is not None and not _rooted_in(written, local):
            return False   # writes into something of the module's (a cache, a function attribute)
    return True


_MUTATORS = ("append", "update", "setdefault", "add", "extend", "insert", "pop", "clear")


def _rooted_in(node, names: set) -> bool:
    """Whether ``a.b[c].d`` starts from one of ``names``."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def keeps_no_state(source: str) -> bool:
    """Whether a known mistake's file (appended to the reference) can only compute: no module
    variable it writes, no cache, no decorator, nothing but imports, functions and plain
    constants. Its outcome for a call then depends on that call alone, and is memoised per call
    rather than per sequence of calls (which differs whenever a check stops at another point)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign) and _plain_value(node.value):
            continue
        if isinstance(node, ast.FunctionDef) and _function_keeps_no_state(node):
            continue
        return False
    return True


def _code_names(code) -> set:
    """Every global name a code object and the functions nested in it may look up."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _same_object(a, b) -> bool:
    """Whether a name of a mistake's module is what the reference's module has (the mistake's
    module runs the reference's file again: its functions are new objects with the same code)."""
    if a is b:
        return True
    if isinstance(a, types.FunctionType) and isinstance(b, types.FunctionType):
        return a.__code__ == b.__code__ and a.__defaults__ == b.__defaults__ and a.__kwdefaults__ == b.__kwdefaults__
    if isinstance(a, types.ModuleType) and isinstance(b, types.ModuleType):
        return a.__name__ == b.__name__
    if type(a) is type(b) and isinstance(a, (int, float, str, bytes, bool, tuple, type(None))):
        return a == b
    return False


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
        self._mistake_call: dict[tuple, tuple] = {}   # (variant, call) -> row, for variants keeping no state
        self._stateless: dict[str, bool] = {}
        self._unaffected_memo: dict[tuple, bool] = {}
        self._repeatable: dict[str, bool] = {}
        self._rows: dict[tuple, object] = {}       # (expression, function, call) -> silent rows
        # The implementations of each mistake that explain the latest diagnosed results (grade validate:
        # the implementations a catalogue lists must agree wherever their mistake speaks).
        self.explained: dict[str, list] = {}
        self.explain_all = False
        self._shows: dict[str, tuple] = {}     # mistake id -> (variant, calls showing it), for the evidence
        # The latest judgement on visible calls: (exercise id, explain_all, those calls, mistake id ->
        # (matching variants, the calls showing it)). The instructor's diagnosis of the same exercise
        # judges every mistake without hidden_evidence on those calls again: it takes them from here.
        self._judged_visible: tuple | None = None

    def diagnose(self, exercise, calls: list[RecordedCall]) -> list[MistakeSpec]:
        """The known mistakes the visible checks' ``calls`` show: what the student is told. Never
        from a hidden check's calls, whatever the catalogue says."""
        return self._named(exercise, calls, [])

    def diagnose_hidden(self, exercise, calls: list[RecordedCall],
                        hidden_calls: list[RecordedCall]) -> list[MistakeSpec]:
        """For the instructor only: the mistakes whose catalogue entry sets ``hidden_evidence`` that
        the visible and the hidden checks' calls show together (the others are judged on the visible
        calls, as :meth:`diagnose` does, and left out here)."""
        if not hidden_calls or not any(m.hidden_evidence for m in exercise.mistakes):
            return []
        return [m for m in self._named(exercise, calls, hidden_calls, evidence=False) if m.hidden_evidence]

    def _named(self, exercise, calls: list[RecordedCall], hidden_calls: list[RecordedCall],
               evidence: bool = True) -> list[MistakeSpec]:
        """Each mistake judged on ``calls``, and a mistake that sets ``hidden_evidence`` on
        ``hidden_calls`` too."""
        self.explained = {}
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
        judged = self._judged_on(exercise, calls)
        for mistake in exercise.mistakes:
            n = len(everything) if mistake.hidden_evidence else len(calls)
            if correct[n]:
                continue
            if n == len(calls) and mistake.id in judged:
                matching, shown = judged[mistake.id]
            else:
                # The first implementation that explains the results names the mistake; grade validate
                # asks for every one (explain_all), to check that listed implementations agree.
                shows = {}      # variant -> the calls that show the mistake
                tried = (v for v in mistake.variants
                         if (shows.setdefault(v, self._matches(exercise, v, *seen[n], silent=mistake.silent)))[0])
                matching = list(tried) if self.explain_all else list(itertools.islice(tried, 1))
                shown = (matching[0], shows[matching[0]][1]) if matching else None
                if n == len(calls):
                    judged[mistake.id] = (matching, shown)
            self.explained[mistake.id] = matching
            self._shows[mistake.id] = shown
            if matching:
                found.append((mistake, n, matching))
        named = self._prune(exercise, found, seen)
        if not correct[len(calls)]:
            named += self._pairs(exercise, [m for m, _, _ in found], *seen[len(calls)])
        if not evidence:
            return named
        return [self._with_evidence(exercise, m, *seen[len(calls)]) for m in named]

    def _judged_on(self, exercise, calls: list) -> dict:
        """The mistakes already judged on exactly these visible calls (the same objects), to be
        filled by this judgement where it is new."""
        last = self._judged_visible
        if (last is not None and last[0] == exercise.id and last[1] == self.explain_all
                and len(last[2]) == len(calls) and all(a is b for a, b in zip(last[2], calls))):
            return last[3]
        self._judged_visible = (exercise.id, self.explain_all, tuple(calls), {})
        return self._judged_visible[3]

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
        # Where each shows (found by a second pass: a second mistake is rare, positions are not cheap)
        found = [(mistake, n, max((self._matches(exercise, v, *seen[n], locate=True, silent=mistake.silent)[1]
                                   for v in matching), key=len))
                 for mistake, n, matching in found]

        def shown_in(entry, n):
            mistake, judged, where = entry
            if judged >= n:
                return {p for p in where if p[0] < n}
            return max((self._matches(exercise, v, *seen[n], locate=True, silent=mistake.silent)[1]
                        for v in mistake.variants), key=len)

        kept = []
        for entry in found:
            mistake, n, where = entry
            if not any(other is not entry and where < shown_in(other, n) for other in found):
                kept.append(mistake)
        return kept

    def _reference_outcome(self, exercise, call, key):
        if key not in self._reference:
            function = self.runtime.reference_function(exercise.file, call.func)
            self._reference[key] = self._outcome(["reference", exercise.file], function, call)
        return self._reference[key]

    def _outcome(self, where: list, function, call, bounded: bool = False) -> tuple:
        """run_outcome here for a case a check cached (the grader chose its inputs); in the bounded
        helper (grader/sandbox/trusted_calls.py) for any other (built from a student's results, as in a
        training run: the course's code must not run a student's arguments in the grading
        process), or for every call of a sequence that holds one (``bounded``: a mistake that
        keeps state sees the whole sequence in one process)."""
        trusted = getattr(self.runtime, "trusted_calls", None)   # None: a stand-in runtime of a test's
        helper = None if (call.case.shared and not bounded) or trusted is None else trusted()
        if helper is None:
            return run_outcome(function, call)
        return bounded_outcome(helper, where, call)

    def _repeatable_call(self, exercise, call, key) -> bool:
        """Whether the reference answers this call the same way twice. A function that draws its
        own random numbers (a sampler given no ``u``) is not: a value returned there is no
        evidence of anything (only an exception, which correct code never raises, is)."""
        if key not in self._repeatable:
            function = self.runtime.reference_function(exercise.file, call.func)
            again = self._outcome(["reference", exercise.file], function, call)
            self._repeatable[key] = difference(self._reference[key], again, exercise.rtol, exercise.atol) is None
        return self._repeatable[key]

    def _mistake_outcomes(self, exercise, variant, calls, keys, reference):
        """``row(i)``: call i's mistaken outcome and how it differs from the reference's (None:
        not at all). A mistake that keeps no state is replayed call by call, only for the
        calls asked for (a lone check stops at the first disagreement); one that may keep state
        is replayed over the whole sequence, in order."""
        if self._keeps_no_state(variant):
            def row(i):
                found = self._mistake_call.get((str(variant), keys[i]))
                if found is None:
                    if len(self._mistake_call) >= MAX_MEMO_ROWS:   # calls built from students' own
                        self._mistake_call.clear()                  # results never recur: bounded
                    found = self._mistake_call[str(variant), keys[i]] = self._mistake_row(
                        exercise, variant, calls[i], reference[i])
                return found
            return row
        sequence_key = (str(variant), hashlib.blake2b("".join(keys).encode(), digest_size=16).digest())
        if sequence_key not in self._mistake:
            bounded = not all(call.case.shared for call in calls)
            self._mistake[sequence_key] = [self._mistake_row(exercise, variant, call, ref, bounded)
                                           for call, ref in zip(calls, reference)]
        return self._mistake[sequence_key].__getitem__

    def _mistake_row(self, exercise, variant, call, ref, bounded: bool = False) -> tuple:
        if self._unaffected(exercise, variant, call.func):
            return ref, None     # the mistake changes nothing this function runs: the reference's outcome
        function = self.runtime.variant_function(exercise, variant, call.func)
        try:
            wrong = (self._outcome(["variant", exercise.id, str(variant)], function, call, bounded) if function
                     else ("error", "missing"))
        except NotInKit:   # not recorded for the kit: this variant cannot be told apart here
            return ref, UNKNOWN
        return wrong, difference(ref, wrong, exercise.rtol, exercise.atol)

    def _unaffected(self, exercise, variant, func: str) -> bool:
        """Whether ``func`` runs none of what the mistake's file redefines (a mistake in one
        function does not change another that never calls it): its outcome is then the
        reference's, without replaying it (most calls of an exercise with several functions)."""
        key = (str(variant), func)
        if key not in self._unaffected_memo:
            try:
                self._unaffected_memo[key] = self._runs_nothing_redefined(exercise, variant, func)
            except Exception:  # noqa: BLE001 -- a kit's records, an odd module: replay it
                self._unaffected_memo[key] = False
        return self._unaffected_memo[key]

    def _runs_nothing_redefined(self, exercise, variant, func: str) -> bool:
        if getattr(self.runtime, "kit", False) or not self._keeps_no_state(variant):
            return False
        name = module_name(exercise.file)
        reference = self.runtime.reference.get(name).__dict__
        wrong = self.runtime._variant_modules(exercise, variant).get(name).__dict__
        redefined = {n for n, v in wrong.items() if not n.startswith("__") and not _same_object(v, reference.get(n))}
        start = reference.get(func)
        if not isinstance(start, types.FunctionType) or func in redefined:
            return False
        seen, todo = set(), [start]
        while todo:
            function = todo.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            names = _code_names(function.__code__)
            if function.__globals__ is reference and names & redefined:
                return False
            for n in names:
                target = function.__globals__.get(n)
                if isinstance(target, types.FunctionType):
                    if target.__module__ == name and target.__globals__ is not reference:
                        return False      # another module calls into this one: follow no further
                    todo.append(target)
        return True

    def _keeps_no_state(self, variant) -> bool:
        name = str(variant)
        if name not in self._stateless:
            try:
                self._stateless[name] = keeps_no_state(Path(variant).read_text(encoding="utf-8"))
            except (OSError, TypeError, ValueError):
                self._stateless[name] = False
        return self._stateless[name]

    def _matches(self, exercise, variant, calls, keys, reference, right, locate=False,
                 silent: Silence = NO_SILENCE) -> tuple[bool, frozenset]:
        """Per function: the mistake explains the student's wrong results. Every call the student gets
        wrong, the mistake gets wrong the same way (the same value, part by part; any exception where
        it raises), and where the mistake speaks the student is wrong too; some wrong value of the
        student's is the mistake's (evidence). Where the mistake says nothing (``silent``, from its
        catalogue) the student's outcome counts neither way. With ``locate``, also where the evidence
        is: (call index, part of the value, array position) of each agreement on a mistaken value, in
        the functions that match."""
        consistent, evidence, where = self._judge(exercise, variant, calls, keys, reference, right, locate, silent)
        matching = [func for func, ok in consistent.items() if ok and evidence.get(func)]
        return bool(matching), frozenset(p for func in matching for p in where.get(func, ()))

    def _judge(self, exercise, variant, calls, keys, reference, right, locate, silent):
        row = self._mistake_outcomes(exercise, variant, calls, keys, reference)
        consistent: dict[str, bool] = {}
        evidence: dict[str, bool] = {}   # agreement on a value, or a raise where the mistake raises
        where: dict[str, set] = {}
        # The calls the student gets wrong first: they tell most mistakes apart soonest. A function
        # that disagrees with the mistake once never matches, so its other calls are not replayed.
        order = sorted(range(len(calls)), key=lambda i: bool(right[i]))
        for index in order:
            call, key, is_right, ref = calls[index], keys[index], right[index], reference[index]
            if consistent.get(call.func) is False:
                continue
            wrong, how = row(index)
            if how == UNKNOWN:
                continue
            quiet = silent.concerns(call.func)
            if how is None:
                # The mistake gives the reference's outcome here. A student who raises where it returns
                # does something else (any two raises are one behaviour, so a function that raises on
                # every call would otherwise match every mistake that raises on some). A wrong value
                # is another part of the function written another way (a dh0 left at zero besides a
                # gradient that does not flow back): not held against the mistake, as ever.
                if raised(call.outcome) and ref[0] == "ok":
                    consistent[call.func] = False
                continue
            if wrong[0] == "ok" and not self._repeatable_call(exercise, call, key):
                continue  # this call cannot tell the mistake from correct code (an exception still can)
            if silent.raises and wrong[0] == "error" and ref[0] == "ok":
                continue  # the implementation raises: the mistake says nothing on this call
            shown = None
            parts: set | None = set() if locate else None
            if how == "value" and is_right and call.outcome[0] == "ok" and not quiet:
                same = False   # the student is right here, and the mistake is not
            elif how == "value" and self._comparable(exercise, call, wrong, ref):
                # a mistake in the returned value: compared part by part (the arguments are as they were)
                same, shown = shares_the_mistake(call.outcome[1], wrong[1], ref[1], exercise.rtol, exercise.atol,
                                                 parts, rows=self._silent_rows(exercise, silent, call, key)
                                                 if quiet else None, skip=silent.outputs_of(call.func))
            else:
                same = agrees(call.outcome, wrong, how, exercise.rtol, exercise.atol)
                parts = {()} if locate else None
            consistent[call.func] = consistent.get(call.func, True) and same
            if same and (shown if shown is not None else (
                    wrong[0] == "ok" or (raised(call.outcome) and raised(wrong)) or call.outcome[1] == wrong[1])):
                evidence[call.func] = True
                if locate:
                    where.setdefault(call.func, set()).update((index, *part) for part in parts)
                else:       # which calls show it (the evidence shown: grader/grading/diagnose.py _evidence)
                    where.setdefault(call.func, set()).add((index,))
        return consistent, evidence, where

    def _comparable(self, exercise, call, wrong, ref) -> bool:
        """Whether the student's, the mistake's and the reference's results can be compared part by
        part: all three returned, and left the arguments as the reference does."""
        return (call.outcome[0] == wrong[0] == ref[0] == "ok"
                and same_values(("", *wrong[2:]), ("", *ref[2:]), exercise.rtol, exercise.atol)
                and same_values(("", *call.outcome[2:]), ("", *wrong[2:]), exercise.rtol, exercise.atol))

    def _silent_rows(self, exercise, silent: Silence, call, key):
        """The batch rows of this call where the mistake says nothing (catalogue ``silent.rows``): a
        boolean array, or None. The expression sees the call's arguments by the reference's names."""
        expression = silent.rows_of(call.func)
        if expression is None:
            return None
        memo = (expression, call.func, key)
        if memo not in self._rows:
            try:
                function = self.runtime.reference_function(exercise.file, call.func)
                bound = inspect.signature(function).bind(*call.case.args, **call.case.kwargs)
                bound.apply_defaults()
                with np.errstate(all="ignore"):
                    mask = np.asarray(eval(expression, {"np": np}, dict(bound.arguments)), dtype=bool)  # noqa: S307
                self._rows[memo] = mask if mask.ndim == 1 else None
            except Exception:  # noqa: BLE001 -- a kit without the reference, arguments the expression cannot take
                self._rows[memo] = None
        return self._rows[memo]

    # ------------------------------------------------------------ two mistakes at once (item 3)

    def _pairs(self, exercise, found: list, calls, keys, reference, right) -> list[MistakeSpec]:
        """When no single mistake explains a function's wrong results, two that do together: each of the
        student's wrong values (part by part) is one of the two mistakes' values there, and neither
        alone explains them all. Tried only when no mistake was named (a rare, slower path); named
        only when exactly one pair fits (two pairs that both fit say nothing certain)."""
        if found:
            return []
        named: list[MistakeSpec] = []
        functions = list(dict.fromkeys(c.func for c, ok in zip(calls, right) if not ok))
        for func in functions:
            wrong = self._wrong_places(exercise, func, calls, keys, reference, right)
            if len(wrong) < 2:
                continue
            explains = []
            for mistake in exercise.mistakes:
                if mistake.hidden_evidence:
                    continue
                best = max((self._explained(exercise, mistake, v, func, calls, keys, reference, right, wrong)
                            for v in mistake.variants), key=lambda e: (len(e[1]), len(e[0])))
                if best[1] and best[0] != wrong:    # some wrong value is its value; not all of them
                    explains.append((mistake, best[0]))
            explains.sort(key=lambda e: -len(e[1]))
            explains = explains[:MAX_PAIR_CANDIDATES]
            fits = [(a, b) for i, (a, ea) in enumerate(explains) for b, eb in explains[i + 1:]
                    if ea | eb >= wrong and not ea >= eb and not eb >= ea]
            if len(fits) == 1:
                named += [m for m in fits[0] if m not in named]
        return named

    def _wrong_places(self, exercise, func, calls, keys, reference, right) -> frozenset:
        """Where the student's results of ``func`` differ from the reference's: (call index, 0, part..., array
        position) of the returned value, (call index, 1, argument index, position) of an argument left
        changed (2: a keyword argument), or (call index,) for a whole call (an exception)."""
        places = set()
        for i, call in enumerate(calls):
            if call.func != func or right[i]:
                continue
            if call.outcome[0] == "ok" and not self._repeatable_call(exercise, call, keys[i]):
                continue
            ref = reference[i]
            if call.outcome[0] == ref[0] == "ok":
                places |= differing(call.outcome[1:], ref[1:], exercise.rtol, exercise.atol, (i,)) or {(i,)}
            else:
                places.add((i,))
        return frozenset(places)

    def _explained(self, exercise, mistake, variant, func, calls, keys, reference, right, wrong) -> tuple:
        """(the places of ``wrong`` where the student's outcome is the mistake's: its value there, the
        argument it leaves changed the same way, or any raise where it raises; those of them that are
        values or arguments). A place is explained only where the two agree on all of it: a call wrong
        as a whole (another structure) only by the mistake's whole outcome, arguments included, so that
        a function whose only wrong thing is an argument it changes is never explained by mistakes in
        the value returned. Where the mistake says nothing explains nothing here: a pair must account
        for every wrong value by what its mistakes do."""
        row = self._mistake_outcomes(exercise, variant, calls, keys, reference)
        explained, values = set(), set()
        for i in sorted({p[0] for p in wrong}):
            here = {p for p in wrong if p[0] == i}
            value, how = row(i)
            call, ref = calls[i], reference[i]
            if how in (None, UNKNOWN) or (mistake.silent.raises and value[0] == "error" and ref[0] == "ok"):
                continue
            if raised(call.outcome) and raised(value):
                explained |= here
            elif call.outcome[0] == value[0] == "ok":
                other = differing(call.outcome[1:], value[1:], exercise.rtol, exercise.atol, (i,))
                within = {q[:n] for q in other for n in range(1, len(q) + 1)}   # other's places and their parts
                agreed = {p for p in here if p not in within and not any(p[:n] in other for n in range(1, len(p)))}
                explained |= agreed
                values |= agreed
        return frozenset(explained), frozenset(values)

    # ------------------------------------------------------------ the evidence shown (item 5)

    def _with_evidence(self, exercise, mistake: MistakeSpec, calls, keys, reference, right) -> MistakeSpec:
        """A copy of ``mistake`` carrying its evidence (a Message): the smallest call where the student's
        result is the mistake's, with the student's, the mistake's and the reference's value there."""
        try:
            return dataclasses.replace(mistake, evidence=self._evidence(exercise, mistake, calls, keys, reference,
                                                                        right))
        except Exception:  # noqa: BLE001 -- the evidence is a courtesy; the name stands without it
            return mistake

    def _evidence(self, exercise, mistake, calls, keys, reference, right) -> Message | None:
        found = self._shows.get(mistake.id)
        if not found or not found[1]:
            return None
        variant, shown = found
        sizes = {i: call_size(calls[i]) for i in {place[0] for place in shown}}
        index = min(sizes, key=lambda i: (sizes[i], i))
        call, ref = calls[index], reference[index]
        wrong, _ = self._mistake_outcomes(exercise, variant, calls, keys, reference)(index)
        place = (index,)
        if self._comparable(exercise, call, wrong, ref):
            parts: set = set()
            shares_the_mistake(call.outcome[1], wrong[1], ref[1], exercise.rtol, exercise.atol, parts,
                               rows=self._silent_rows(exercise, mistake.silent, call, keys[index])
                               if mistake.silent.concerns(call.func) else None,
                               skip=mistake.silent.outputs_of(call.func))
            if parts:
                place = (index, *min(parts, key=lambda p: [(isinstance(x, str), x if isinstance(x, int) else 0,
                                                            str(x)) for x in p]))
        best = (None, variant, place)
        _, variant, place = best
        index, part = place[0], tuple(place[1:])
        call, ref = calls[index], reference[index]
        wrong, _ = self._mistake_outcomes(exercise, variant, calls, keys, reference)(index)
        from grader.grading.counterexample import format_call

        registry = self.runtime.course.registry
        names = tuple(registry.arg_names.get(call.func, ()))
        label, yours, mistaken, correct = shown_part(call.func, registry.result_names.get(call.func), part,
                                                     call.outcome, wrong, ref)
        return Message("diag.evidence", call=format_call(call.func, call.case, names), what=label,
                       yours=yours, mistaken=mistaken, correct=correct)


def call_size(call: RecordedCall) -> int:
    """How big a call's inputs are (the number of values in them): the smallest call is shown."""
    def size(value):
        if isinstance(value, np.ndarray):
            return int(value.size)
        if isinstance(value, (list, tuple)):
            return sum(size(v) for v in value) or 1
        if isinstance(value, dict):
            return sum(size(v) for v in value.values()) or 1
        return 1
    return sum(size(a) for a in call.case.args) + sum(size(v) for v in call.case.kwargs.values())


def differing(a, b, rtol: float, atol: float, path: tuple = ()) -> set:
    """Where ``a`` and ``b`` differ, part by part (dict keys, items, array positions as flat indices)."""
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b):
        return {p for k in a for p in differing(a[k], b[k], rtol, atol, path + (str(k),))}
    if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b)
            and len(a) == len(b)):
        return {p for i, (x, y) in enumerate(zip(a, b)) for p in differing(x, y, rtol, atol, path + (i,))}
    if (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
            and a.dtype.kind in "iufb" and b.dtype.kind in "iufb"):
        with np.errstate(all="ignore"):
            off = ~isclose64(a.astype(np.float64), b.astype(np.float64), rtol, atol)
        return {path + (int(i),) for i in np.flatnonzero(off)}
    return set() if same(a, b, rtol, atol) else {path}


def shown_part(func: str, result_names, part: tuple, student: tuple, wrong: tuple, ref: tuple) -> tuple:
    """(what is shown, the student's, the mistake's and the reference's value there), as text: a whole
    small value, or the one entry of a large array where the mistake shows."""
    from grader.grading.counterexample import SHOW_VALUES, format_value

    outcomes = [student, wrong, ref]
    if any(o[0] != "ok" for o in outcomes):
        return (func + "(...)", *(format_value(o[1]) if o[0] == "ok" else f"raises {o[1]}" for o in outcomes))
    values = [o[1] for o in outcomes]
    label = result_names if isinstance(result_names, str) else "result"
    for depth, step in enumerate(part):
        head = values[2]
        if isinstance(head, dict) and step in {str(k) for k in head}:
            key = next(k for k in head if str(k) == step)
            values = [v[key] if isinstance(v, dict) and key in v else v for v in values]
            label = f"{step}" if depth == 0 else f"{label}[{key!r}]"
        elif isinstance(head, (list, tuple)) and isinstance(step, int) and step < len(head):
            values = [v[step] if isinstance(v, (list, tuple)) and step < len(v) else v for v in values]
            label = (result_names[step] if depth == 0 and isinstance(result_names, tuple)
                     and step < len(result_names) else f"{label}[{step}]")
        elif (isinstance(head, np.ndarray) and isinstance(step, int) and head.size > SHOW_VALUES
              and step < head.size and all(isinstance(v, np.ndarray) and v.shape == head.shape for v in values)):
            index = np.unravel_index(step, head.shape)
            values = [v[index] for v in values]
            label = f"{label}[{', '.join(map(str, index))}]"
            values = [float(v) if isinstance(v, np.floating) else v for v in values]
            break
        else:
            break
    return (label, *(format_value(v) for v in values))
