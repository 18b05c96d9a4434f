"""Notes on what a student handed in, shown in the student's language.

The loaders (grader/submission/load.py, notebook.py, safezip.py) and grader/grading/graded_work.py
say with :func:`note` what is worth telling the student: a folder used, a file skipped,
an encoding converted. A module of its own, so the notebook and zip readers need not
import the loader that calls them.
"""

from __future__ import annotations

from grader.report.escaping import plain
from grader.base.i18n import Message


def note(key: str, /, **params) -> Message:
    """A note on what was handed in: ``key`` (grader/base/locales/*/submission.yaml) inside the
    report's "Note: ..." line, both in the student's language. Names the student chose (files,
    zip entries, notebook lines) are shown on one line, control characters made visible, bounded."""
    return Message("note.submission", text=Message(key, _shown(params)))


def _shown(params: dict) -> dict:
    return {k: plain(v) if isinstance(v, str) else Message(v.key, _shown(v.params)) if isinstance(v, Message)
            else v for k, v in params.items()}


def note_text(message: Message, lang: str = "en") -> str:
    """A note's own text, without the report's "Note: " (for a one-line error)."""
    inner = message.params.get("text") if message.key == "note.submission" else None
    return (inner if isinstance(inner, Message) else message).render(lang)
