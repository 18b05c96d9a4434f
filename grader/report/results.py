"""The results model: the one data type between grading and every report.

Results hold :class:`~grader.base.i18n.Message` objects (keys and parameters) rather than
rendered text, so the same graded submission can be reported in either language and
any format (grader/report/view.py builds what is shown; grader/report/ writes it), stored as
language-neutral data (:meth:`SubmissionResult.to_data`, what the gradebook keeps)
and loaded back (:meth:`SubmissionResult.from_data`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.base.i18n import Message

DATA_VERSION = 1   # the shape of to_data(); from_data() refuses another


@dataclass
class CheckResult:
    name: str
    passed: bool
    score: float
    max_score: float
    message: Message | None = None     # why it failed (or a note when it passed)
    title: dict = field(default_factory=dict)
    hint: dict = field(default_factory=dict)
    hidden: bool = False
    internal: str | None = None        # set when the check itself broke (a grader bug)
    counterexample: Message | None = None   # the smallest failing input found (visible checks only)
    func: str = ""                          # the student function the check was calling when it failed


@dataclass
class Diagnosis:
    id: str
    title: dict
    explanation: dict
    hint: dict
    # Where it shows (grader/grading/diagnose.py, from the visible checks' calls): the smallest call on which the
    # student's result is the mistake's, with the student's, the mistake's and the reference's values.
    evidence: Message | None = None


@dataclass
class ExerciseResult:
    id: str
    title: dict
    checks: list[CheckResult]
    diagnoses: list[Diagnosis] = field(default_factory=list)
    problem: Message | None = None     # what stopped the whole exercise (missing file, import error)
    output: str = ""                   # what the student's code printed (escaped when shown)
    elapsed: float = 0.0
    notes: list[Message] = field(default_factory=list)   # how it was graded (e.g. with stand-ins)
    # For the instructor only, never rendered in a student's report: ids of the known mistakes
    # (catalogue ``hidden_evidence``) that the hidden checks' calls show (grader/grading/diagnose.py).
    hidden_diagnoses: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(c.score for c in self.checks)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.checks)


@dataclass
class SubmissionResult:
    source: str
    exercises: list[ExerciseResult]
    notes: list[Message] = field(default_factory=list)
    isolation: str = "process"
    elapsed: float = 0.0

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)

    @property
    def all_passed(self) -> bool:
        return all(c.passed for e in self.exercises for c in e.checks)

    # ------------------------------------------------------------ stored and loaded back

    def to_data(self) -> dict:
        """Language-neutral plain data (JSON-able): message keys and parameters, course texts in
        every language. What the gradebook stores; :meth:`from_data` reads it back."""
        return {"version": DATA_VERSION, "source": self.source, "isolation": self.isolation,
                "elapsed": self.elapsed, "notes": [message_data(n) for n in self.notes],
                "exercises": [_exercise_data(e) for e in self.exercises]}

    @classmethod
    def from_data(cls, data: dict) -> "SubmissionResult":
        if not isinstance(data, dict) or data.get("version") != DATA_VERSION:
            raise ValueError(f"not a stored result of version {DATA_VERSION}")
        return cls(source=data["source"], isolation=data["isolation"], elapsed=data.get("elapsed", 0.0),
                   notes=[message_from(n) for n in data["notes"]],
                   exercises=[_exercise_from(e) for e in data["exercises"]])


def _exercise_data(e: ExerciseResult) -> dict:
    return {"id": e.id, "title": e.title, "problem": message_data(e.problem), "output": e.output,
            "elapsed": e.elapsed, "notes": [message_data(n) for n in e.notes],
            "diagnoses": [{"id": d.id, "title": d.title, "explanation": d.explanation, "hint": d.hint,
                           "evidence": message_data(d.evidence)} for d in e.diagnoses],
            "hidden_diagnoses": list(e.hidden_diagnoses),
            "checks": [{"name": c.name, "passed": c.passed, "score": c.score, "max_score": c.max_score,
                        "message": message_data(c.message), "title": c.title, "hint": c.hint, "hidden": c.hidden,
                        "internal": c.internal, "counterexample": message_data(c.counterexample), "func": c.func}
                       for c in e.checks]}


def _exercise_from(e: dict) -> ExerciseResult:
    return ExerciseResult(
        id=e["id"], title=e["title"], problem=message_from(e["problem"]), output=e["output"],
        elapsed=e.get("elapsed", 0.0), notes=[message_from(n) for n in e["notes"]],
        diagnoses=[Diagnosis(d["id"], d["title"], d["explanation"], d["hint"], message_from(d.get("evidence")))
                   for d in e["diagnoses"]],
        hidden_diagnoses=[str(m) for m in e.get("hidden_diagnoses", ())],
        checks=[CheckResult(name=c["name"], passed=c["passed"], score=c["score"], max_score=c["max_score"],
                            message=message_from(c["message"]), title=c["title"], hint=c["hint"],
                            hidden=c["hidden"], internal=c["internal"],
                            counterexample=message_from(c["counterexample"]), func=c["func"])
                for c in e["checks"]])


# A message's parameters are JSON values, tuples (an index), nested messages and, rarely,
# other values (kept as the text str.format would have shown).
def message_data(message: Message | None):
    if message is None:
        return None
    return {"key": message.key, "params": {k: _value_data(v) for k, v in message.params.items()}}


def message_from(data) -> Message | None:
    if data is None:
        return None
    return Message(data["key"], {k: _value_from(v) for k, v in data["params"].items()})


def _value_data(value):
    if isinstance(value, Message):
        return {"message": message_data(value)}
    if isinstance(value, tuple):
        return {"tuple": [_value_data(v) for v in value]}
    if isinstance(value, list):
        return [_value_data(v) for v in value]
    if isinstance(value, dict):
        return {"dict": {str(k): _value_data(v) for k, v in value.items()}}
    if value is None or type(value) in (str, bool, int, float):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def _value_from(data):
    if isinstance(data, dict):
        if "message" in data:
            return message_from(data["message"])
        if "tuple" in data:
            return tuple(_value_from(v) for v in data["tuple"])
        return {k: _value_from(v) for k, v in data["dict"].items()}
    if isinstance(data, list):
        return [_value_from(v) for v in data]
    return data
