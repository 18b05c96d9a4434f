"""One feedback file per student, beside the gradebook: the Markdown or the HTML report (grader/report/).

File names come from student names, which anyone can choose: a name is kept as it is only
when it is already a safe file name that no other student's name could be mistaken for;
otherwise it becomes the safe part plus a hash of the real name (``alice_-3f2a...``), so
``alice`` and ``alice!``, or ``Bob`` and ``bob`` on a case-insensitive disk, never share
a file, and no student can pick a name that lands on another student's file.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from pathlib import Path

from grader.report import WRITERS, render_view, write_atomically
from grader.report.view import build

_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)
_HASH_LENGTH = 16                       # 64 bits: no one finds a second name with the same file
_LOOKS_HASHED = re.compile(rf"-[0-9a-f]{{{_HASH_LENGTH}}}$", re.IGNORECASE)


def safe_name(student: str) -> str:
    """A file name that stays inside the feedback folder, whatever the student is called
    (no separators, no leading dot or dash, bounded)."""
    name = _UNSAFE.sub("_", student).strip("._").lstrip("-") or "student"
    return name[:120]


def hashed_name(student: str) -> str:
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_LENGTH]
    return f"{safe_name(student)}-{digest}"


def feedback_names(students) -> dict[str, str]:
    """Each student's file name (without suffix), no two alike even where the file system
    ignores case or Unicode normalisation."""
    students = list(students)
    plain = {s: s for s in students if _keeps_plain_name(s, safe_name(s))}
    # Hashed names never clash with plain ones (those never end like a hash); plain names
    # that differ only in case or normalisation are hashed too.
    folded = Counter(_fold(name) for name in plain.values())
    return {s: s if s in plain and folded[_fold(s)] == 1 else hashed_name(s) for s in students}


def _keeps_plain_name(student: str, name: str) -> bool:
    # A name shaped like a hashed one could take another student's hashed file.
    return name == student and not _LOOKS_HASHED.search(student)


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


class FeedbackWriter:
    def __init__(self, folder: Path, kind: str, lang: str, messages=None):
        """``messages``: the course's catalogue (``Course.messages``; None: the package's)."""
        self.folder, self.kind, self.lang, self.messages = Path(folder), kind, lang, messages
        self._names: dict[str, str] = {}

    def reserve(self, students) -> None:
        """Name the files of every student of the run at once, so names that clash are told apart."""
        self._names = feedback_names(students)

    def path_for(self, student: str) -> Path:
        if student not in self._names:        # a student the run did not announce
            name = safe_name(student)
            taken = {_fold(other) for other in self._names.values()}
            keep = _keeps_plain_name(student, name) and _fold(name) not in taken
            self._names[student] = name if keep else hashed_name(student)
        return self.folder / f"{self._names[student]}{WRITERS[self.kind].suffix}"

    def write(self, student: str, result) -> Path | None:
        return self.save(student, self.render(result, student))

    def render(self, result, student: str = "") -> str | None:
        """The file's text, from the one view (class grading renders it in the grading processes);
        an HTML page is titled with the student's name."""
        if self.kind == "none":
            return None
        options = {"title": student} if self.kind == "html" else {}
        return render_view(build(result, self.lang, self.messages), self.kind, **options)

    def save(self, student: str, content: str | None) -> Path | None:
        if self.kind == "none" or content is None:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path_for(student)
        write_atomically(path, content)
        return path
