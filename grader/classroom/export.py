"""`grade export --csv`: one row per student, for an LMS gradebook import.

``grade export --csv FILE --lms canvas|moodle|gradescope`` writes the columns that LMS's grade
import reads instead, keyed by the LMS ids the download gave (grader/classroom/lms_layouts.py), with the
score of :func:`final_score`.

Text cells come from student names, which anyone can choose, and are opened in spreadsheet
programs: control characters are written as visible escapes, and a cell that would start a
formula (OWASP's rule: a first character among ``= + - @``, tab or carriage return) gets a
leading ``'``, which spreadsheets read as "this is text".
"""

from __future__ import annotations

import csv
import io

from grader.classroom.gradebook import SYSTEM_ENTRY
from grader.classroom.late_policy import final_for, finals
from grader.report import write_atomically
from grader.report.view import points
from grader.report.escaping import visible

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
    final = finals(book, latest)
    rows, extra = {}, {}
    for attempt in latest:
        scores_of = scores.get(attempt.id, {})
        result = final[attempt.student]
        rows[attempt.student] = [points(result.total), points(attempt.max_score), GRADED,
                                 *[points(scores_of[e]) if e in scores_of else "" for e in exercises]]
        extra[attempt.student] = [points(result.raw), points(result.late_penalty), points(result.adjustments),
                                  late_cell(result)]
    for name, (run_id, reason) in not_graded.items():
        if run_id < graded_in.get(name, -1) or reason == SYSTEM_ENTRY:
            continue       # graded again since, or no student's (.DS_Store)
        last = rows.get(name) or ["", "", "", *[""] * len(exercises)]
        rows[name] = [*last[:2], f"{NOT_GRADED}: {reason}", *last[3:]]
    infos = book.submissions()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    # total is the final score (what an LMS imports): raw - late_penalty + adjustments, never below 0
    # (grader/classroom/late_policy.py); the exercise columns are the graded scores, before either.
    writer.writerow([text_cell(name) for name in ("student", "total", "max", "status", "name", "submitted_at",
                                                  "time_source", "raw", "late_penalty", "adjustments", "late",
                                                  *exercises)])
    for name in sorted(rows):
        total, top, status, *cells = rows[name]
        info = infos.get(name)
        when = ""
        if info is not None:     # a source with a late flag only (Canvas) says late or not, no time
            when = info.submitted_at or {True: "LATE", False: "not late"}.get(info.late, "")
        writer.writerow([text_cell(name), total, top, text_cell(status), text_cell(info.name if info else ""),
                         when or "", text_cell((info.time_source or "") if info else ""),
                         *extra.get(name, ["", "", "", ""]), *cells])
    # A BOM lets spreadsheet programs read non-ASCII student names as UTF-8.
    write_atomically(path, "\ufeff" + buffer.getvalue())
    return len(rows)


def text_cell(raw: str) -> str:
    """A cell that a spreadsheet shows as the text it is, never runs as a formula."""
    cell = visible(raw, keep="")
    # Leading spaces do not stop every spreadsheet from reading a formula.
    formula = cell.lstrip(" ").startswith(FORMULA_STARTS) and cell != "-"     # a lone "-" computes nothing
    return "'" + cell if formula else cell


# ---------------------------------------------------------------- LMS grade imports

def final_score(book, attempt) -> float:
    """The score an LMS import receives for ``attempt``: its final score (CONTRACT section 11),
    raw - late penalty + adjustments by hand, never below 0 (grader/classroom/late_policy.py)."""
    return final_for(book, attempt).total


def late_cell(result) -> str:
    """The export's ``late`` column: how late, in the policy's units, or why there is no penalty."""
    if result.status == "late" or result.status == "past_cap":
        return f"{result.units_late} {result.unit}{'s' * (result.units_late != 1)}" + \
            (" (past the cap)" if result.status == "past_cap" else "")
    return {"on_time": "on time", "no_time": "no time: no penalty"}.get(result.status, "")


LMS = ("canvas", "moodle", "gradescope")


def write_lms_csv(book, path, lms: str, assignment: str = "") -> tuple[int, list[str]]:
    """``lms``'s grade import file of every graded student: (rows written, ids that do not look
    like that LMS's ids, which its import will not match)."""
    infos = book.submissions()
    latest = book.latest_all()
    rows, foreign = [], []
    for attempt in latest:
        info = infos.get(attempt.student)
        if info is not None and info.layout != lms or info is None:
            foreign.append(attempt.student)
        rows.append((attempt, info))
    header, lines = _LMS_WRITERS[lms](book, rows, assignment)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for line in lines:
        writer.writerow([text_cell(cell) if isinstance(cell, str) else points(cell) for cell in line])
    write_atomically(path, ("\ufeff" if lms != "moodle" else "") + buffer.getvalue())
    return len(rows), foreign


def _canvas(book, rows, assignment):
    """Canvas's gradebook import: its own export's columns (Student, ID, SIS User ID, SIS Login ID,
    Section), a "Points Possible" row, and one assignment column, matched by the Canvas user ID.
    An assignment column that names no assignment of the course becomes a new assignment."""
    title = assignment or "Autograded"
    top = max((attempt.max_score for attempt, _ in rows), default=0.0)
    lines = [["    Points Possible", "", "", "", "", top]]
    for attempt, info in sorted(rows, key=lambda r: ((r[1].name if r[1] else "") or r[0].student, r[0].student)):
        lines.append([info.name if info else attempt.student, attempt.student, "", "", "",
                      final_score(book, attempt)])
    return ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title], lines


def _moodle(book, rows, assignment):
    """Moodle's offline grading worksheet ("Upload grading worksheet"): Identifier is "Participant N"
    (the id in the download's folder names), Grade the score; "-" as the grade's last change lets
    the upload set it."""
    lines = []
    for attempt, info in sorted(rows, key=lambda r: r[0].student):
        lines.append([f"Participant {attempt.student}", info.name if info else "", info.email if info else "",
                      "Graded", final_score(book, attempt), attempt.max_score,
                      (info.submitted_at or "-") if info else "-", "-"])
    return ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
            "Last modified (submission)", "Last modified (grade)"], lines


def _gradescope(book, rows, assignment):
    """Gradescope's own grade export columns (Name, SID, Email, Total Score, Max Points, ...): its
    score upload matches a row by Email or SID; a group submission is one row per member."""
    lines = []
    for attempt, info in sorted(rows, key=lambda r: r[0].student):
        email = info.email if info else ""
        sid = attempt.student if attempt.student != email else ""
        lines.append([info.name if info else attempt.student, sid, email, final_score(book, attempt),
                      attempt.max_score, "Graded", info.submission if info else "",
                      (info.submitted_at or "") if info else ""])
    return ["Name", "SID", "Email", "Total Score", "Max Points", "Status", "Submission ID", "Submission Time"], lines


_LMS_WRITERS = {"canvas": _canvas, "moodle": _moodle, "gradescope": _gradescope}
