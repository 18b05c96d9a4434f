"""`grade export --csv`: one row per student, for an LMS gradebook import.

Text cells come from student names, which anyone can choose, and are opened in spreadsheet
programs: control characters are written as visible escapes, and a cell that would start a
formula (OWASP's rule: a first character among ``= + - @``, tab or carriage return) gets a
leading ``'``, which spreadsheets read as "this is text".
"""

from __future__ import annotations

import csv
import io

from grader.report import write_atomically
from grader.report.markdown import visible

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write_csv(book, path) -> int:
    latest = book.latest_all("en")
    exercises: list[str] = []
    for attempt in latest:
        for exercise in attempt.report.get("exercises", []):
            if exercise["id"] not in exercises:
                exercises.append(exercise["id"])
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([text_cell(name) for name in ("student", "total", "max", *exercises)])
    for attempt in latest:
        scores = {e["id"]: e["score"] for e in attempt.report.get("exercises", [])}
        writer.writerow([text_cell(attempt.student), _num(attempt.score), _num(attempt.max_score),
                         *[_num(scores[e]) if e in scores else "" for e in exercises]])
    # A BOM lets spreadsheet programs read non-ASCII student names as UTF-8.
    write_atomically(path, "\ufeff" + buffer.getvalue())
    return len(latest)


def text_cell(raw: str) -> str:
    """A cell that a spreadsheet shows as the text it is, never runs as a formula."""
    cell = visible(raw, keep="")
    # Leading spaces do not stop every spreadsheet from reading a formula.
    return "'" + cell if cell.lstrip(" ").startswith(FORMULA_STARTS) else cell


def _num(x) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"
