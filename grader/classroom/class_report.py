"""``grade report``: what one static HTML page about a class shows, collected from its
gradebook (grader/classroom/class_page.py draws the page).

It is built from the *latest* attempt of every student (what ``grade export`` exports too):

* a summary (students, mean, median, full marks) and a score histogram (ten
  bins of 10 % of the maximum each, the last one including 100 %);
* per exercise: the share of students with full marks on it, and the mean score;
* per check: how many students failed it, hidden checks included (the page is
  the instructor's), sorted by failures;
* the known mistakes named most often, with their titles from the course's
  catalogues (the gradebook stores ids only);
* the slowest submissions (``attempts.seconds``) and the run history.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path

from grader.base.i18n import text

BINS = 10                # histogram bins of 10 % each
TOP_MISTAKES = 20
TOP_SLOWEST = 10
MAX_RUNS = 50
NAMES_SHOWN = 8          # students listed per mistake before "and N more"
# The default page beside the gradebook, report.html (not spelled as one quoted string: tests/engine/test_i18n.py
# reads quoted "report.*" strings as message keys).
DEFAULT_NAME = Path("report").with_suffix(".html").name


# ---------------------------------------------------------------- the numbers

@dataclass
class StudentRow:
    student: str
    score: float
    max_score: float
    seconds: float
    graded_at: str

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score > 0 else 0.0


@dataclass
class ExerciseRow:
    id: str
    title: str
    max_score: float
    students: int = 0
    full: int = 0
    total: float = 0.0

    @property
    def pass_rate(self) -> float:
        return self.full / self.students if self.students else 0.0

    @property
    def mean(self) -> float:
        return self.total / self.students if self.students else 0.0


@dataclass
class CheckRow:
    exercise: str
    name: str
    title: str
    hidden: bool
    attempts: int = 0
    failures: int = 0
    points_lost: float = 0.0


@dataclass
class MistakeRow:
    id: str
    exercise: str
    title: str
    students: list[str] = field(default_factory=list)
    hidden: bool = False     # named from hidden checks' calls, for the instructor only (hidden_diagnoses)


@dataclass
class RunRow:
    id: int
    started_at: str
    finished_at: str | None
    status: str
    directory: str
    graded: int
    skipped: int


@dataclass
class ClassStats:
    gradebook: str
    generated: str
    students: list[StudentRow]
    histogram: list[tuple[str, int]]
    exercises: list[ExerciseRow]
    checks: list[CheckRow]             # failed by at least one student, most failures first
    checks_all_passed: int             # checks every student passed
    mistakes: list[MistakeRow]
    slowest: list[StudentRow]
    runs: list[RunRow]
    finals: dict = field(default_factory=dict)     # student -> grader.classroom.late_policy.Final
    late_setting: tuple | None = None              # (deadline, policy) kept in the gradebook, or None

    @property
    def max_score(self) -> float:
        return max((s.max_score for s in self.students), default=0.0)


def collect(book, lang: str = "en", course=None) -> ClassStats:
    """The report's numbers, from the latest attempt of every student in ``book``."""
    latest = book.latest_all()
    # each student's JSON report in ``lang``, rendered from the stored result once
    messages = course.messages if course is not None else None
    reports = {attempt.id: attempt.report(lang, messages) for attempt in latest}
    students = [StudentRow(a.student, float(a.score), float(a.max_score), float(a.seconds), a.graded_at)
                for a in latest]
    order = _exercise_order(course, reports.values())

    exercises: dict[str, ExerciseRow] = {}
    for report in reports.values():
        for ex in report.get("exercises", []):
            row = exercises.get(ex["id"])
            if row is None:
                row = exercises[ex["id"]] = ExerciseRow(ex["id"], _exercise_title(course, ex, lang),
                                                        float(ex.get("max_score", 0)))
            row.max_score = max(row.max_score, float(ex.get("max_score", 0)))
            row.students += 1
            row.total += float(ex.get("score", 0))
            if float(ex.get("score", 0)) >= float(ex.get("max_score", 0)):
                row.full += 1

    ids = [a.id for a in latest]
    student_of = {a.id: a.student for a in latest}
    checks: dict[tuple[str, str], CheckRow] = {}
    for _attempt_id, exercise, name, passed, score, max_score, hidden in book.check_rows(ids):
        row = checks.get((exercise, name))
        if row is None:
            row = checks[(exercise, name)] = CheckRow(exercise, name, _check_title(course, exercise, name, lang),
                                                      bool(hidden))
        row.attempts += 1
        if not passed:
            row.failures += 1
        row.points_lost += max(float(max_score) - float(score), 0.0)

    mistakes: dict[str, MistakeRow] = {}
    for attempt_id, exercise, mistake in book.diagnosis_rows(ids):
        row = mistakes.get(mistake)
        if row is None:
            row = mistakes[mistake] = MistakeRow(mistake, exercise, _mistake_title(course, exercise, mistake, lang))
        if student_of[attempt_id] not in row.students:
            row.students.append(student_of[attempt_id])
    for attempt in latest:   # what only hidden checks showed, which the students' own reports never name
        for ex in attempt.result.exercises:
            for mistake in ex.hidden_diagnoses:
                row = mistakes.get(f"{mistake} hidden")
                if row is None:
                    row = mistakes[f"{mistake} hidden"] = MistakeRow(
                        mistake, ex.id, _mistake_title(course, ex.id, mistake, lang), hidden=True)
                if attempt.student not in row.students:
                    row.students.append(attempt.student)

    failing = [c for c in checks.values() if c.failures]
    failing.sort(key=lambda c: (-c.failures, order.get(c.exercise, len(order)), c.exercise, c.name))
    ranked = sorted(mistakes.values(), key=lambda m: (-len(m.students), m.id))
    for m in ranked:
        m.students.sort()
    from grader.classroom.late_policy import finals

    return ClassStats(
        finals=finals(book, latest), late_setting=book.late_setting(),
        gradebook=str(book.path),
        generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        students=students,
        histogram=histogram(students),
        exercises=sorted(exercises.values(), key=lambda e: (order.get(e.id, len(order)), e.id)),
        checks=failing,
        checks_all_passed=len(checks) - len(failing),
        mistakes=ranked[:TOP_MISTAKES],
        slowest=sorted(students, key=lambda s: (-s.seconds, s.student))[:TOP_SLOWEST],
        runs=_runs(book),
    )


def histogram(students: list[StudentRow]) -> list[tuple[str, int]]:
    """Ten bins of 10 % of the maximum: [0, 10), [10, 20), ..., [90, 100]."""
    counts = [0] * BINS
    width = 100 // BINS
    for s in students:
        counts[min(int(s.percent // width), BINS - 1)] += 1
    return [(f"{i * width}–{(i + 1) * width}", n) for i, n in enumerate(counts)]


def _runs(book) -> list[RunRow]:
    rows = book.db.execute(
        "SELECT r.id, r.started_at, r.finished_at, r.status, r.directory,"
        " (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id),"
        " (SELECT COUNT(*) FROM skipped s WHERE s.run_id = r.id)"
        " FROM runs r ORDER BY r.id DESC LIMIT ?", (MAX_RUNS,)).fetchall()
    return [RunRow(*row) for row in rows]


def _exercise_order(course, reports) -> dict[str, int]:
    ids: list[str] = list(course.exercises) if course is not None else []
    for report in reports:
        for ex in report.get("exercises", []):
            if ex["id"] not in ids:
                ids.append(ex["id"])
    return {id_: n for n, id_ in enumerate(ids)}


def _exercise_title(course, ex: dict, lang: str) -> str:
    if course is not None and ex["id"] in course.exercises:
        return text(course.exercises[ex["id"]].title, lang)
    return str(ex.get("title") or "")


def _check_title(course, exercise: str, name: str, lang: str) -> str:
    spec = course.exercises.get(exercise) if course is not None else None
    for check in (spec.checks if spec else []):
        if check.id == name:
            return text(check.title, lang)
    return ""


def _mistake_title(course, exercise: str, mistake: str, lang: str) -> str:
    if course is None:
        return ""
    specs = [m for e in course.exercises.values() for m in e.mistakes]
    for spec in specs:
        if spec.id == mistake:
            return text(spec.title, lang)
    return ""
