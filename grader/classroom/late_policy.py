"""Deadlines, late penalties and the final score (CONTRACT section 11).

The policy language (``grade class DIR --deadline ISO8601 --late POLICY``)::

    none                          no penalty, whatever the time
    10%/day, max 3 days           10 % for each day or part of a day late; more than 3 days late: 0
    2%/hour, max 48 hours         2 % for each hour or part of an hour late; past 48 hours: 0
    5%/day                        no cap: the penalty grows until it takes everything (20 days)

A day or an hour that has begun counts whole: 12 hours late at ``10%/day`` costs 10 %, 50 hours
30 %, exactly at the deadline nothing. ``h``, ``hr``, ``hours``, ``d``, ``days`` are accepted
for the unit, ``max``/``cap``/``up to`` for the cap. The percentage is of the score the work
earned (the graded score plus the adjustments made by hand): late work never loses more than
it earned, and past the cap it keeps nothing.

Times: the deadline must name its UTC offset (``2026-12-10T23:59+08:00`` or ``...Z``), since a
class's students may be anywhere; a hand-in time without an offset (Moodle's zip times, a
``timestamp.txt`` written without one) is read in the deadline's offset and the report says so.
A student with no hand-in time gets no penalty and the report says that too: the grader never
falls back on file modification times.

The final score (:func:`final_for`): ``total = raw - late_penalty + adjustments``, never below 0,
where ``adjustments`` (grader/classroom/adjustments.py) and ``late_penalty`` are in points. The gradebook
keeps the raw score; the penalty is computed from the stored policy whenever it is shown, so a
changed policy or deadline changes every penalty without regrading any code.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass
from pathlib import Path

from grader.base.csv_rows import read_csv_rows
from grader.base.errors import BadInput
from grader.classroom.times import parse_time

UNITS = {"hour": 3600, "day": 86400}
_UNIT_WORDS = {"h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
               "d": "day", "day": "day", "days": "day"}
_POLICY = re.compile(
    r"^\s*(?P<rate>\d+(?:\.\d+)?)\s*%\s*(?:/|per)\s*(?P<unit>[a-z]+)\s*"
    r"(?:[,;]?\s*(?:max(?:imum)?|cap|up\s+to)\s*(?P<cap>\d+)\s*(?P<cap_unit>[a-z]+)?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class LatePolicy:
    """A parsed policy: ``rate`` percent per begun ``unit``; more than ``cap`` units late: 0."""

    rate: float = 0.0          # percent
    unit: str = "day"          # hour | day
    cap: int | None = None     # units; None: no cap
    text: str = "none"

    @property
    def none(self) -> bool:
        return self.rate == 0

    def units_late(self, seconds: float) -> int:
        """How many units ``seconds`` after the deadline is: a begun unit counts whole."""
        return 0 if seconds <= 0 else math.ceil(seconds / UNITS[self.unit])

    def fraction(self, units: int) -> float:
        """The share of the earned score lost at ``units`` late (1: everything)."""
        if units <= 0 or self.none:
            return 0.0
        if self.cap is not None and units > self.cap:
            return 1.0
        return min(1.0, self.rate * units / 100.0)


def parse_policy(text: str) -> LatePolicy:
    """``none`` or ``RATE%/UNIT[, max N UNITS]``; anything else is bad input naming the language."""
    raw = " ".join(str(text).split())
    if raw.lower() in ("none", "no", "off", "0", "0%"):
        return LatePolicy(text="none")
    match = _POLICY.match(raw)
    unit = _UNIT_WORDS.get((match.group("unit") or "").lower()) if match else None
    cap_unit = _UNIT_WORDS.get((match.group("cap_unit") or match.group("unit") or "").lower()) if match else None
    if match is None or unit is None or cap_unit != unit:
        raise BadInput(f"--late {raw!r}: not a late policy (write 'none', '10%/day, max 3 days' or "
                       "'2%/hour, max 48 hours': a percentage per hour or day, and optionally a cap in the "
                       "same unit after which the score is 0)")
    rate = float(match.group("rate"))
    if not 0 < rate <= 100:
        raise BadInput(f"--late {raw!r}: the percentage must be above 0 and at most 100")
    cap = int(match.group("cap")) if match.group("cap") is not None else None
    return LatePolicy(rate=rate, unit=unit, cap=cap, text=raw)


def parse_deadline(text: str, what: str = "--deadline") -> _dt.datetime:
    """An ISO 8601 time with its UTC offset."""
    iso = parse_time(text)
    if iso is None:
        raise BadInput(f"{what} {text!r}: not an ISO 8601 time (like 2026-12-10T23:59+08:00)")
    when = _dt.datetime.fromisoformat(iso)
    if when.tzinfo is None:
        raise BadInput(f"{what} {text!r}: give the time's UTC offset (2026-12-10T23:59+08:00, or Z for UTC)")
    return when


def read_submitted_at(path: Path) -> dict[str, str]:
    """``--submitted-at FILE``: student -> ISO time, each checked (columns ``student,time``)."""
    times = {}
    for student, value in read_csv_rows(path, ("student", "time"), "--submitted-at"):
        iso = parse_time(value)
        if iso is None:
            raise BadInput(f"--submitted-at {path}: {student!r}: {value!r} is not an ISO 8601 time")
        times[student] = iso
    return times


def read_extensions(path: Path) -> dict[str, str]:
    """``--extensions FILE``: student -> their own deadline (columns ``student,deadline``), each with its offset."""
    return {student: parse_deadline(value, f"--extensions {path}: {student!r}:").isoformat()
            for student, value in read_csv_rows(path, ("student", "deadline"), "--extensions")}


@dataclass
class Final:
    """One student's score as every report shows it."""

    raw: float                  # the graded score
    adjustments: float          # points added (or taken) by hand
    late_penalty: float         # points
    total: float                # max(0, raw - late_penalty + adjustments)
    max_score: float
    submitted_at: str | None    # ISO, or None: no time known
    deadline: str | None        # the deadline that applied (an extension's, if any)
    units_late: int = 0
    unit: str = "day"
    status: str = "none"        # none (no policy) | on_time | late | past_cap | no_time | naive_time
    time_source: str | None = None
    naive_time: bool = False    # the hand-in time had no offset: read in the deadline's


def apply(policy: LatePolicy | None, deadline: str | None, raw: float, adjustments: float, max_score: float,
          submitted_at: str | None, time_source: str | None = None) -> Final:
    """The final score of a student from what the gradebook holds."""
    earned = max(0.0, raw + adjustments)
    final = Final(raw, adjustments, 0.0, earned, max_score, submitted_at, deadline, time_source=time_source)
    if policy is None or deadline is None:
        return final
    final.unit = policy.unit
    if submitted_at is None:
        final.status = "no_time"
        return final
    due = _dt.datetime.fromisoformat(deadline)
    when = _dt.datetime.fromisoformat(submitted_at)
    if when.tzinfo is None:
        when, final.naive_time = when.replace(tzinfo=due.tzinfo), True
    final.units_late = policy.units_late((when - due).total_seconds())
    share = policy.fraction(final.units_late)
    final.status = "on_time" if final.units_late == 0 else "past_cap" if share >= 1.0 and policy.cap is not None \
        and final.units_late > policy.cap else "late"
    final.late_penalty = round(earned * share, 6)
    final.total = max(0.0, round(raw - final.late_penalty + adjustments, 6))
    return final


def final_for(book, attempt) -> Final:
    """``attempt``'s final score with the gradebook's policy, the student's extension, their
    hand-in time and the adjustments made by hand."""
    setting = book.late_setting()
    policy = parse_policy(setting[1]) if setting and setting[1] else None
    info = book.submissions().get(attempt.student)
    deadline = book.extensions().get(attempt.student) or (setting[0] if setting else None)
    from grader.classroom.adjustments import adjusted_points

    adjustments = adjusted_points(book, attempt)
    return apply(policy if policy is not None and not policy.none else None, deadline, float(attempt.score),
                 adjustments, float(attempt.max_score), info.submitted_at if info else None,
                 info.time_source if info else None)


def finals(book, attempts) -> dict[str, Final]:
    """:func:`final_for` of many attempts, reading the policy, extensions and times once."""
    from grader.classroom.adjustments import adjusted_points_all

    setting = book.late_setting()
    policy = parse_policy(setting[1]) if setting and setting[1] else None
    if policy is not None and policy.none:
        policy = None
    infos = book.submissions()
    extensions = book.extensions()
    extra = adjusted_points_all(book, attempts)
    out = {}
    for attempt in attempts:
        info = infos.get(attempt.student)
        deadline = extensions.get(attempt.student) or (setting[0] if setting else None)
        out[attempt.student] = apply(policy, deadline, float(attempt.score), extra.get(attempt.student, 0.0),
                                     float(attempt.max_score), info.submitted_at if info else None,
                                     info.time_source if info else None)
    return out
