"""The results model: the one data type between grading and every report.

Results hold :class:`~grader.i18n.Message` objects rather than rendered text,
so the same graded submission can be reported in either language, stored,
and compared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from grader.i18n import Message, text

# Course staff debugging a check may see hidden checks' messages; students' reports never do.
REVEAL_HIDDEN = os.environ.get("GRADER_REVEAL_HIDDEN") == "1"


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

    def to_json(self, lang: str) -> dict:
        data = {"name": self.name, "passed": self.passed, "score": _number(self.score),
                "max_score": _number(self.max_score), "message": self.rendered(lang)}
        if self.counterexample is not None and not self.hidden:
            data["counterexample"] = self.counterexample.render(lang)
        return data

    def rendered(self, lang: str) -> str:
        if self.passed:
            return self.message.render(lang) if self.message else ""
        if self.hidden and not REVEAL_HIDDEN:
            return Message("report.hidden_failed").render(lang)
        return self.message.render(lang) if self.message else ""


@dataclass
class Diagnosis:
    id: str
    title: dict
    explanation: dict
    hint: dict


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

    @property
    def score(self) -> float:
        return sum(c.score for c in self.checks)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.checks)

    def to_json(self, lang: str) -> dict:
        return {"id": self.id, "title": text(self.title, lang), "score": _number(self.score),
                "max_score": _number(self.max_score), "diagnoses": [d.id for d in self.diagnoses],
                "problem": self.problem.render(lang) if self.problem else None,
                "notes": [n.render(lang) for n in self.notes],
                "checks": [c.to_json(lang) for c in self.checks]}


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

    def to_json(self, lang: str) -> dict:
        return {"score": _number(self.score), "max_score": _number(self.max_score),
                "isolation": self.isolation,
                "exercises": [e.to_json(lang) for e in self.exercises],
                "notes": [n.render(lang) for n in self.notes]}


def _number(x: float):
    """Whole numbers print as ints (10, not 10.0); others keep up to 4 decimals."""
    x = round(float(x), 4)
    return int(x) if x.is_integer() else x
