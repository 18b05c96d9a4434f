"""``grade adjust``: adjustments by hand, recorded with who, when and why (grader/classroom/adjustments.py)."""

from __future__ import annotations

import getpass
import os

from grader.classroom.adjustments import exercise_scores, parse_points
from grader.base.errors import BadInput


def adjust_command(path, student, exercise, points, set_to, reason, by, list_, messages=None) -> list[str]:
    """What ``grade adjust`` prints; each adjustment checked against the student's latest attempt.
    ``messages``: the course's catalogue, which the feedback file is written again with (None: the
    package's)."""
    from grader.classroom.gradebook import Gradebook
    from grader.classroom.late_policy import final_for
    from grader.report.view import points as shown_points

    with Gradebook(path) as book:
        if list_:
            if student is not None or points is not None or set_to is not None:
                raise BadInput("--list takes no student, --points or --set")
            rows = book.adjustments()
            lines = ["student\texercise\tchange\treason\tby\tat"]
            for row in rows:
                change = f"= {shown_points(row.points)}" if row.kind == "set" else f"{row.points:+g}"
                lines.append("\t".join((row.student, row.exercise, change, row.reason, row.by, row.at)))
            if not rows:
                lines.append("(no adjustments)")
            return lines
        if student is None or exercise is None:
            raise BadInput("name the STUDENT and the EXERCISE (or give --list)")
        if (points is None) == (set_to is None):
            raise BadInput("give one of --points N (+2, -1.5) and --set N")
        if not reason or not reason.strip():
            raise BadInput("give --reason TEXT: every adjustment says why")
        attempt = book.latest(student)
        if attempt is None:
            raise BadInput(f"no graded attempt of student {student!r} in {path}")
        scores = exercise_scores(book, [attempt.id]).get(attempt.id, {})
        if exercise not in scores:
            raise BadInput(f"student {student!r} has no exercise {exercise!r} (graded: {', '.join(scores)})")
        if set_to is not None:
            top = scores[exercise][1]
            if not 0 <= set_to <= top:
                raise BadInput(f"--set {set_to:g}: the score of {exercise!r} is between 0 and {top:g}")
            kind, value = "set", float(set_to)
        else:
            kind, value = "add", parse_points(points)
        who = by or os.environ.get("SUDO_USER") or _login()
        book.add_adjustment(student, exercise, kind, value, " ".join(reason.split())[:500], who)
        final = final_for(book, attempt)
        from grader.classroom.staff import refresh_one

        page = refresh_one(book, path, student, messages)
        return [f"{student} {exercise}: {'set to ' + shown_points(value) if kind == 'set' else f'{value:+g}'}"
                f" by {who}; final score {shown_points(final.total)} / {shown_points(final.max_score)} "
                f"(graded {shown_points(final.raw)}, adjustments {final.adjustments:+g}, "
                f"late penalty {shown_points(final.late_penalty)})",
                f"feedback written again: {page}" if page is not None else
                "no feedback file of this student beside the gradebook (the next grade class run writes it)"]


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
