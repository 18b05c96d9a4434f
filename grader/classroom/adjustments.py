"""Adjustments by hand (``grade adjust STUDENT EXERCISE --points +2 --reason TEXT`` / ``--set N``).

Each adjustment is a row of the gradebook's ``adjustments`` table (schema version 3): the
student, the exercise, ``add`` some points or ``set`` the exercise's score, the reason, who made
it and when. Nothing is ever overwritten: a later adjustment of the same exercise applies after
the earlier ones (a ``set`` replaces what came before it, an ``add`` adds to it). They are keyed
by student and exercise, not by attempt, so they survive every regrade (``grade class --force``):
a ``--points +2`` still adds 2 to whatever the new grading gave, a ``--set 10`` still makes it 10.

In points, a student's adjustments are the sum over the exercises of (adjusted score - graded
score): the export's ``adjustments`` column, and what grader/classroom/late_policy.py adds before the late
penalty takes its share.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Adjustment:
    id: int
    student: str
    exercise: str
    kind: str           # add | set
    points: float
    reason: str
    by: str
    at: str


def exercise_scores(book, attempt_ids: list[int]) -> dict[int, dict[str, tuple[float, float]]]:
    """attempt id -> exercise -> (score, max) from the check rows, as ExerciseResult.score sums them."""
    out: dict[int, dict[str, list[float]]] = {}
    for attempt_id, exercise, _, _, score, max_score, _ in book.check_rows(attempt_ids):
        cell = out.setdefault(attempt_id, {}).setdefault(exercise, [0.0, 0.0])
        cell[0] += float(score)
        cell[1] += float(max_score)
    return {a: {e: (s, m) for e, (s, m) in per.items()} for a, per in out.items()}


def adjusted(score: float, rows: list[Adjustment]) -> float:
    """An exercise's score after its adjustments, in the order they were made."""
    for row in rows:
        score = row.points if row.kind == "set" else score + row.points
    return score


def adjusted_points_all(book, attempts) -> dict[str, float]:
    """student -> points their adjustments add (negative: take) to their latest attempt."""
    rows = book.adjustments()
    if not rows:
        return {}
    by_student: dict[str, dict[str, list[Adjustment]]] = {}
    for row in rows:
        by_student.setdefault(row.student, {}).setdefault(row.exercise, []).append(row)
    wanted = [a for a in attempts if a.student in by_student]
    scores = exercise_scores(book, [a.id for a in wanted])
    out = {}
    for attempt in wanted:
        per = scores.get(attempt.id, {})
        out[attempt.student] = round(sum(adjusted(per.get(ex, (0.0, 0.0))[0], rows_of) - per.get(ex, (0.0, 0.0))[0]
                                         for ex, rows_of in by_student[attempt.student].items()), 6)
    return out


def adjusted_points(book, attempt) -> float:
    return adjusted_points_all(book, [attempt]).get(attempt.student, 0.0)


def per_exercise(book, attempt) -> dict[str, float]:
    """exercise -> points added by hand, for one attempt (feedback and the CSV's exercise columns)."""
    rows = [r for r in book.adjustments() if r.student == attempt.student]
    if not rows:
        return {}
    per = exercise_scores(book, [attempt.id]).get(attempt.id, {})
    grouped: dict[str, list[Adjustment]] = {}
    for row in rows:
        grouped.setdefault(row.exercise, []).append(row)
    return {ex: round(adjusted(per.get(ex, (0.0, 0.0))[0], rs) - per.get(ex, (0.0, 0.0))[0], 6)
            for ex, rs in grouped.items()}


def parse_points(text: str) -> float:
    """``+2``, ``-1.5``, ``3``: a finite number of points, not 0."""
    import math

    from grader.base.errors import BadInput

    try:
        value = float(str(text).strip())
    except ValueError:
        raise BadInput(f"--points {text!r}: not a number of points (like +2 or -1.5)") from None
    if not math.isfinite(value) or value == 0:
        raise BadInput(f"--points {text!r}: give a finite number of points other than 0")
    return value
