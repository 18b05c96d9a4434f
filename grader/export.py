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
    graded_in = book.latest_runs()
    not_graded = book.not_graded()
    # Exercise scores from the check rows (no stored result is decoded): each attempt's exercises
    # in the order they were graded, each the sum of its checks, as ExerciseResult.score is.
    scores: dict[int, dict[str, float]] = {}
    for attempt_id, exercise, _, _, score, _, _ in book.check_rows([a.id for a in latest]):
        per = scores.setdefault(attempt_id, {})
        per[exercise] = per.get(exercise, 0.0) + score
    exercises: list[str] = []
    for attempt in latest:
        exercises += [e for e in scores.get(attempt.id, {}) if e not in exercises]
    rows = {}
    for attempt in latest:
        scores_of = scores.get(attempt.id, {})
        rows[attempt.student] = [points(attempt.score), points(attempt.max_score), GRADED,
                                 *[points(scores_of[e]) if e in scores_of else "" for e in exercises]]
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
