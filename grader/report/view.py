"""One view of a graded submission, built once, that every output format writes.

A :class:`~grader.report.results.SubmissionResult` holds message keys; a view holds what a
reader is shown, in one language: each check's status and points (one points format),
its title, its message (a hidden check's is the generic text unless course staff set
``GRADER_REVEAL_HIDDEN=1``), its counterexample and hint (visible checks only), the
known mistakes named and which check carries them, notes, the problem that stopped an
exercise, and the student's output clipped. Every decision about *what* is shown is
made here, once; a writer (grader/report/) only lays it out and escapes it for its
format. So text, JSON, Markdown, JUnit, Gradescope, HTML, the pytest report, class
output and feedback files cannot disagree.

Texts in a view are as the grader and the course wrote them and as the student's code
produced them: writers escape them (grader/report/escaping.py and each format's markup).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from grader.base.i18n import Catalogue, Message, text

OUTPUT_SHOWN = 600        # characters of a student's own prints shown per exercise
OUTPUT_LINES = 12         # ... and lines
OUTPUT_KEPT = 4000        # characters kept where a format has room (JUnit's system-out)
# Messages that say a function is still to be written: the known mistakes go with a check
# about code that exists, where there is one.
NOT_WRITTEN = ("err.not_implemented", "err.missing_function")
# Hints follow evidence (issue 39, docs/grading-rules.md): a hint that names a cause is shown only
# where the grader has evidence of that cause. A named known mistake's own hint has it; a check's
# hint for the way it failed (grader/course/loader.py HINT_KINDS: shape, values, not_finite, raised) has it
# when that way matched and no known mistake is named in the exercise (one cause per exercise: the
# mistake's). Otherwise a failing check shows its generic hint, which restates what it verifies. A
# function that returned None, raised or is still a stub is told so first (a note on the exercise)
# and no hint guesses under it (a ``raised`` hint only, for an exception, where nothing is named).
RAISED = ("err.exception", "err.exception_unplaced")
UNANSWERED = "quiz.unanswered"


def points(x) -> str:
    """Points as every text format prints them: whole numbers as ints (10, not 10.0),
    others with at most 4 decimals (2.3333)."""
    x = round(float(x), 4)
    return str(int(x)) if x.is_integer() else f"{x:g}"


def number(x):
    """Points as JSON numbers: ints when whole, else rounded to 4 decimals."""
    x = round(float(x), 4)
    return int(x) if x.is_integer() else x


def reveal_hidden() -> bool:
    """Course staff debugging a check may see hidden checks' messages; students never do."""
    return os.environ.get("GRADER_REVEAL_HIDDEN") == "1"


@dataclass
class CheckView:
    name: str
    passed: bool
    hidden: bool
    internal: bool            # the check itself broke (a grader bug): JUnit's <error>
    score: float
    max_score: float
    title: str
    message: str              # why it failed, or a note on a passed check with partial credit
    counterexample: str       # the smallest failing input found ("" if none, or hidden)
    hint: str                 # for a failing visible check
    message_key: str = ""     # the failure's message key (what kind of failure it was)
    revealed: bool = False    # a hidden check shown in full (GRADER_REVEAL_HIDDEN=1, for course staff)

    @property
    def status(self) -> str:
        return "passed" if self.passed else "failed"

    @property
    def points(self) -> str:
        return f"{points(self.score)}/{points(self.max_score)}"

    @property
    def partial(self) -> bool:
        """Passed with less than full points (a quiz answer half right): its message says why."""
        return self.passed and self.score < self.max_score

    @property
    def short_title(self) -> str:
        """The title's first line: a passed question shows its wording, not every choice again."""
        lines = self.title.strip().splitlines()
        return lines[0] if lines else ""


@dataclass
class DiagnosisView:
    id: str
    title: str
    explanation: str          # the catalogue's explanation, then the evidence (so every format shows it)
    hint: str
    evidence: str = ""        # "Your result equals what you would get by ... on this input" (grading/diagnose.py)


@dataclass
class ExerciseView:
    id: str
    title: str
    score: float
    max_score: float
    checks: list[CheckView]
    diagnoses: list[DiagnosisView]
    problem: str              # what stopped the whole exercise ("" if nothing did)
    notes: list[str]
    output: str               # what the student's code printed, as it printed it
    carrier: CheckView | None = None   # the check whose failure shows the known mistakes (None: none failed)
    # Not started (issue 39 item 7): every check fails because every function still raises the stub's
    # NotImplementedError (a quiz: no question answered). The text report shows it in one line.
    not_started: bool = False
    file: str = ""            # the file to edit, where the grader knows it (a stub's)
    unanswered: int = 0       # quiz questions not answered (one line in the text report)

    @property
    def points(self) -> str:
        return f"{points(self.score)}/{points(self.max_score)}"

    @property
    def complete(self) -> bool:
        return all(c.passed for c in self.checks) and self.score >= self.max_score

    @property
    def failing(self) -> list[CheckView]:
        return [c for c in self.checks if not c.passed or c.partial]

    def output_excerpt(self, chars: int = OUTPUT_SHOWN, lines: int | None = OUTPUT_LINES) -> str:
        """The start of the student's output ("" if it printed nothing but blanks), "…" where cut."""
        if not self.output.strip():
            return ""
        shown = self.output[:chars] + ("…" if len(self.output) > chars else "")
        return shown if lines is None else "\n".join(shown.splitlines()[:lines])


@dataclass
class SubmissionView:
    lang: str
    source: str
    isolation: str
    score: float
    max_score: float
    all_passed: bool
    notes: list[str]
    exercises: list[ExerciseView] = field(default_factory=list)
    messages: Catalogue | None = field(default=None, repr=False)   # the course's (None: the package's)

    @property
    def points(self) -> str:
        return f"{points(self.score)}/{points(self.max_score)}"

    @property
    def checks(self) -> list[tuple[ExerciseView, CheckView]]:
        return [(e, c) for e in self.exercises for c in e.checks]

    def label(self, key: str, **params) -> str:
        """A report word (``report.total``...) in the view's language."""
        return Message(key, params).render(self.lang, self.messages)


def build(result, lang: str, messages: Catalogue | None = None, reveal: bool | None = None) -> SubmissionView:
    """The view of ``result`` in ``lang``, its messages from ``messages`` (the course's catalogue,
    ``Course.messages``; None: the package's alone); ``reveal``: show hidden checks' messages
    (default: as GRADER_REVEAL_HIDDEN says)."""
    reveal = reveal_hidden() if reveal is None else reveal
    return SubmissionView(
        lang=lang, source=str(result.source), isolation=str(result.isolation),
        score=result.score, max_score=result.max_score, all_passed=result.all_passed,
        notes=[n.render(lang, messages) for n in result.notes],
        exercises=[_exercise(e, lang, reveal, messages) for e in result.exercises], messages=messages)


def exercise_view(exercise, lang: str, messages: Catalogue | None = None, reveal: bool | None = None) -> ExerciseView:
    """What a report shows of one exercise (see :func:`build`)."""
    return _exercise(exercise, lang, reveal_hidden() if reveal is None else reveal, messages)


def _exercise(exercise, lang: str, reveal: bool, messages: Catalogue | None = None) -> ExerciseView:
    named = bool(exercise.diagnoses)
    checks = [_check(c, lang, reveal, named, messages) for c in exercise.checks]
    view = ExerciseView(
        id=exercise.id, title=text(exercise.title, lang), score=exercise.score, max_score=exercise.max_score,
        checks=checks,
        diagnoses=[_diagnosis(d, lang, messages) for d in exercise.diagnoses],
        problem=exercise.problem.render(lang, messages) if exercise.problem is not None else "",
        notes=[*_first_notes(exercise.checks, lang, messages), *(n.render(lang, messages) for n in exercise.notes)],
        output=exercise.output or "")
    view.carrier = _carrier(checks)
    keys = [c.message.key if c.message is not None else "" for c in exercise.checks]
    view.unanswered = keys.count(UNANSWERED)
    view.not_started = bool(keys) and not exercise.problem and all(not c.passed for c in exercise.checks) and (
        all(k == "err.not_implemented" for k in keys) or all(k == UNANSWERED for k in keys))
    view.file = next((str(c.message.params.get("file") or "") for c in exercise.checks
                      if c.message is not None and c.message.key == "err.not_implemented"), "")
    if view.not_started:
        # Every function still raises the stub's NotImplementedError: that is no evidence of any
        # known mistake (a mistake that raises on some calls agrees with a stub there), so none is shown.
        view.diagnoses = []
    return view


def _diagnosis(d, lang: str, messages: Catalogue | None = None) -> DiagnosisView:
    """A named mistake as shown: its evidence (issue 36 item 5) follows its explanation."""
    evidence = d.evidence.render(lang, messages) if getattr(d, "evidence", None) is not None else ""
    explanation = text(d.explanation, lang)
    return DiagnosisView(d.id, text(d.title, lang), f"{explanation} {evidence}".strip() if evidence else explanation,
                         text(d.hint, lang), evidence)


def returned_none(check) -> bool:
    """Whether the check failed because the function returned None (a type or shape message about it)."""
    message = check.message
    return (not check.passed and message is not None and message.key.startswith(("cmp.", "prop."))
            and message.params.get("got") == "NoneType")


def _first_notes(checks, lang: str, messages: Catalogue | None = None) -> list[str]:
    """What is told first (item 6): each function that returned None, or raised, on a visible check."""
    notes, seen = [], set()
    for check in checks:
        if check.passed or check.hidden or check.message is None:
            continue
        name = check.func or str(check.message.params.get("name") or "")
        if returned_none(check) and ("none", name) not in seen:
            seen.add(("none", name))
            notes.append(Message("report.returns_none", name=name or "?").render(lang, messages))
        elif check.message.key in RAISED and ("raised", name) not in seen:
            seen.add(("raised", name))
            notes.append(Message("report.raises_first", name=name or "?",
                                 type=check.message.params.get("type", "")).render(lang, messages))
    return notes


def shown_hint(check, lang: str, named: bool = False) -> str:
    """The hint a failing visible check shows (see RAISED above): never one that guesses a cause."""
    if check.passed or check.hidden:
        return ""
    key = check.message.key if check.message is not None else ""
    hint = check.hint or {}
    kind = hint.get("kind") if isinstance(hint, dict) else None
    generic = hint.get("generic", {}) if kind else hint
    if returned_none(check) or key in NOT_WRITTEN or key == UNANSWERED:
        return ""
    if key in RAISED:
        return text(hint, lang) if kind == "raised" and not named else ""
    if kind and not named:
        return text(hint, lang)
    return text(generic, lang)


def check_view(check, lang: str, messages: Catalogue | None = None, reveal: bool | None = None,
               named: bool = False) -> CheckView:
    """What a report shows of one check (see :func:`build`); ``named``: a known mistake is named in
    its exercise (its hint is then the one cause shown)."""
    return _check(check, lang, reveal_hidden() if reveal is None else reveal, named, messages)


def _check(check, lang: str, reveal: bool, named: bool = False, messages: Catalogue | None = None) -> CheckView:
    shown = not check.hidden or reveal     # a hidden check's own message is for course staff only
    own = check.message.render(lang, messages) if check.message is not None else ""
    if check.passed or shown:
        message = own
    else:
        message = Message("report.hidden_failed").render(lang, messages)
    failing = not check.passed
    counterexample = check.counterexample.render(lang, messages) if failing and shown and check.counterexample else ""
    return CheckView(
        name=check.name, passed=check.passed, hidden=check.hidden, internal=bool(check.internal),
        score=check.score, max_score=check.max_score, title=text(check.title, lang), message=message,
        counterexample=counterexample, hint=shown_hint(check, lang, named),
        message_key=check.message.key if check.message is not None else "", revealed=check.hidden and reveal)


def _carrier(checks: list[CheckView]) -> CheckView | None:
    """The one check that shows the exercise's known mistakes and output: its first failing
    visible check about code that exists (not a function still to be written), else its first
    failing visible check, else its first failing hidden one."""
    failing = [c for c in checks if not c.passed]
    visible = [c for c in failing if not c.hidden]
    written = [c for c in visible if c.message_key not in NOT_WRITTEN]
    return (written or visible or failing or [None])[0]
