"""`grade export --csv`: one row per student, for an LMS gradebook import."""

from __future__ import annotations

import csv
import io

from grader.report import write_atomically


def write_csv(book, path) -> int:
    latest = book.latest_all("en")
    exercises: list[str] = []
    for attempt in latest:
        for exercise in attempt.report.get("exercises", []):
            if exercise["id"] not in exercises:
                exercises.append(exercise["id"])
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", "total", "max", *exercises])
    for attempt in latest:
        scores = {e["id"]: e["score"] for e in attempt.report.get("exercises", [])}
        writer.writerow([attempt.student, _num(attempt.score), _num(attempt.max_score),
                         *[_num(scores[e]) if e in scores else "" for e in exercises]])
    # A BOM lets spreadsheet programs read non-ASCII student names as UTF-8.
    write_atomically(path, "\ufeff" + buffer.getvalue())
    return len(latest)


def _num(x) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"
