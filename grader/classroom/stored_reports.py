"""Results from gradebooks written before results were stored as data.

Such a gradebook kept each attempt as two finished JSON reports (`grade check --format
json`, in English and Chinese). They are read back into a SubmissionResult whose texts
are those reports' own, in the language each was written in, so every output (export,
feedback, `grade report`, `grade class --format ...`) still works on an old gradebook.
What the old reports never held cannot come back: check titles and hints, which checks
were hidden (their messages were stored as the generic text already), the known
mistakes' explanations (their ids remain).
"""

from __future__ import annotations

from grader.base.i18n import Message
from grader.report.results import CheckResult, Diagnosis, ExerciseResult, SubmissionResult


class StoredText(Message):
    """A text as an old report wrote it, per language."""

    __slots__ = ("texts",)

    def __init__(self, texts: dict):
        super().__init__("report.stored_text")
        self.texts = texts

    def render(self, lang: str, messages=None) -> str:   # as written: no catalogue's
        return self.texts.get(lang) or self.texts.get("en") or ""


def _text(en, zh) -> StoredText | None:
    if not en and not zh:
        return None
    return StoredText({"en": en or zh or "", "zh": zh or en or ""})


def _pairs(en: list, zh: list):
    """Items of the two reports side by side (the same attempt: the same order)."""
    return zip(en, zh if len(zh) == len(en) else en)


def result_from_reports(en: dict, zh: dict) -> SubmissionResult:
    en, zh = en or {}, zh or en or {}
    exercises = []
    for e_en, e_zh in _pairs(en.get("exercises", []), zh.get("exercises", [])):
        checks = [CheckResult(name=c_en.get("name", ""), passed=bool(c_en.get("passed")),
                              score=float(c_en.get("score", 0)), max_score=float(c_en.get("max_score", 0)),
                              message=_text(c_en.get("message"), c_zh.get("message")),
                              counterexample=_text(c_en.get("counterexample"), c_zh.get("counterexample")))
                  for c_en, c_zh in _pairs(e_en.get("checks", []), e_zh.get("checks", []))]
        exercises.append(ExerciseResult(
            id=e_en.get("id", ""), title={"en": e_en.get("title", ""), "zh": e_zh.get("title", "")}, checks=checks,
            diagnoses=[Diagnosis(d, {"en": d}, {}, {}) for d in e_en.get("diagnoses", [])],
            problem=_text(e_en.get("problem"), e_zh.get("problem")),
            notes=[_text(a, b) for a, b in _pairs(e_en.get("notes", []), e_zh.get("notes", []))]))
    return SubmissionResult(source="", exercises=exercises, isolation=en.get("isolation", ""),
                            notes=[_text(a, b) for a, b in _pairs(en.get("notes", []), zh.get("notes", []))])
