"""`grade export --csv`: one row per student, for an LMS gradebook import.

Text cells come from student names, which anyone can choose, and are opened in spreadsheet
programs: control characters are written as visible escapes, and a cell that would start a
formula (OWASP's rule: a first character among ``= + - @``, tab or carriage return) gets a
leading ``'``, which spreadsheets read as "this is text".
"""

from __future__ import annotations

import csv
import io

from grader.gradebook import SYSTEM_ENTRY
from grader.report import write_atomically
from grader.view import points
from grader.escaping import visible

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GRADED = "graded"
NOT_GRADED = "not graded"


def write_csv(book, path) -> int:
    """One row per student the gradebook knows, graded or not: an entry a run could not grade
    is listed with the reason in ``status`` (an LMS import must not lose a student silently).
    If a student's latest run could not grade them, their last grade stays, with that status."""
    latest = book.latest_all()
    results = {attempt.student: attempt.result for attempt in latest}
    graded_in = book.latest_runs()
    not_graded = book.not_graded()
    exercises: list[str] = []
    for attempt in latest:
        for exercise in results[attempt.student].exercises:
            if exercise.id not in exercises:
                exercises.append(exercise.id)
    rows = {}
    for attempt in latest:
        scores = {e.id: e.score for e in results[attempt.student].exercises}
        rows[attempt.student] = [points(attempt.score), points(attempt.max_score), GRADED,
                                 *[points(scores[e]) if e in scores else "" for e in exercises]]
    for name, (run_id, reason) in not_graded.items():
        if run_id < graded_in.get(name, -1) or reason == SYSTEM_ENTRY:
            continue       # graded again since, or no student's (.DS_Store)
        last = rows.get(name) or ["", "", "", *[""] * len(exercises)]
        rows[name] = [*last[:2], f"{NOT_GRADED}: {reason}", *last[3:]]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([text_cell(name) for name in ("student", "total", "max", "status", *exercises)])
    for name in sorted(rows):
        total, top, status, *cells = rows[name]
        writer.writerow([text_cell(name), total, top, text_cell(status), *cells])
    # A BOM lets spreadsheet programs read non-ASCII student names as UTF-8.
    write_atomically(path, "\ufeff" + buffer.getvalue())
    return len(rows)


def text_cell(raw: str) -> str:
    """A cell that a spreadsheet shows as the text it is, never runs as a formula."""
    cell = visible(raw, keep="")
    # Leading spaces do not stop every spreadsheet from reading a formula.
    return "'" + cell if cell.lstrip(" ").startswith(FORMULA_STARTS) else cell
