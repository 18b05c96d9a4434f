"""One feedback file per student, beside the gradebook (markdown, or HTML)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from grader.report import render, write_atomically

_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)


def safe_name(student: str) -> str:
    """A file name that stays inside the feedback folder, whatever the student is called."""
    name = _UNSAFE.sub("_", student).strip("._") or "student"
    return name[:120]


class FeedbackWriter:
    def __init__(self, folder: Path, kind: str, lang: str):
        self.folder, self.kind, self.lang = Path(folder), kind, lang

    def write(self, student: str, result) -> Path | None:
        return self.save(student, self.render(result))

    def render(self, result) -> str | None:
        """The file's text (class grading renders it in the grading processes)."""
        if self.kind == "none":
            return None
        return render(result, "markdown", self.lang)

    def save(self, student: str, markdown: str | None) -> Path | None:
        if self.kind == "none" or markdown is None:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.kind == "html":
            path = self.folder / f"{safe_name(student)}.html"
            body = f"<!doctype html><meta charset='utf-8'><title>{html.escape(student)}</title><pre>{html.escape(markdown)}</pre>"
            write_atomically(path, body)
        else:
            path = self.folder / f"{safe_name(student)}.md"
            write_atomically(path, markdown)
        return path
