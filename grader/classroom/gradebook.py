"""The gradebook: every attempt of every student, in SQLite, never overwritten.

Each grading of a submission is one *attempt*: its score, the content hash of
what was graded, the result as language-neutral data (message keys and parameters,
grader/report/results.py: every report, in either language and any format, is rendered
from it later) and one row per check and per named mistake, written in a single
transaction. A run killed at any point
(even with kill -9) leaves whole attempts or none; the next run sees which
students already have an attempt for their current content and grades only
the others.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from grader.report import json_data

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,              -- running | finished | interrupted
    directory TEXT NOT NULL,
    course TEXT NOT NULL               -- fingerprint of the course and grader
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    student TEXT NOT NULL,
    content TEXT NOT NULL,             -- hash of the submission's bytes and of the course
    graded_at TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    isolation TEXT NOT NULL,
    seconds REAL NOT NULL,
    report_en TEXT,                    -- gradebooks before results were stored as data: the
    report_zh TEXT,                    --   `grade check --format json` object per language
    result TEXT                        -- SubmissionResult.to_data() as JSON
);
CREATE INDEX IF NOT EXISTS attempts_student ON attempts(student, id);
CREATE TABLE IF NOT EXISTS checks (
    attempt_id INTEGER NOT NULL REFERENCES attempts(id),
    exercise TEXT NOT NULL,
    name TEXT NOT NULL,
    passed INTEGER NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS checks_attempt ON checks(attempt_id);
CREATE TABLE IF NOT EXISTS diagnoses (
    attempt_id INTEGER NOT NULL REFERENCES attempts(id),
    exercise TEXT NOT NULL,
    mistake TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS skipped (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    entry TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (   -- schema version 2: what each run read of a student (lms_layouts.py)
    run_id INTEGER NOT NULL REFERENCES runs(id),
    student TEXT NOT NULL,             -- the LMS's id: the key attempts use
    name TEXT NOT NULL,                -- the display name, as the LMS wrote it
    layout TEXT NOT NULL,              -- canvas | moodle | gradescope | classroom | nbgrader | folders | regex
    submitted_at TEXT,                 -- ISO 8601, or NULL: the download carries no time
    time_source TEXT,                  -- where it was read ("nbgrader timestamp.txt", "Canvas LATE marker", ...)
    time_precision TEXT,               -- what it is worth ("seconds", "none: late or not only", ...)
    late INTEGER,                      -- what the LMS itself said (Canvas's LATE marker), or NULL
    email TEXT NOT NULL DEFAULT '',
    submission TEXT NOT NULL DEFAULT '', -- the LMS's own submission id, where it has one
    files TEXT NOT NULL DEFAULT '[]'   -- the restored file names, as JSON
);
CREATE INDEX IF NOT EXISTS submissions_student ON submissions(student, run_id);
CREATE TABLE IF NOT EXISTS late_policy (   -- schema version 3: grader/classroom/late_policy.py; the latest row applies
    id INTEGER PRIMARY KEY,
    set_at TEXT NOT NULL,
    deadline TEXT,                     -- ISO 8601 with its offset, or NULL
    policy TEXT NOT NULL               -- "none", "10%/day, max 3 days", ...
);
CREATE TABLE IF NOT EXISTS extensions (    -- schema version 3: one student's own deadline
    student TEXT PRIMARY KEY,
    deadline TEXT NOT NULL,
    set_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS adjustments (   -- schema version 3: grader/classroom/adjustments.py; never overwritten
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    kind TEXT NOT NULL,                -- add | set
    points REAL NOT NULL,
    reason TEXT NOT NULL,
    made_by TEXT NOT NULL,
    made_at TEXT NOT NULL
);
"""

# 1: before the submissions table (PRAGMA user_version 0); such a gradebook gains it empty.
# 3: late policy, extensions and adjustments (grader/classroom/late_policy.py, grader/classroom/adjustments.py); a
# gradebook of version 1 or 2 gains them empty: no policy, no extension, no adjustment.
SCHEMA_VERSION = 3


@dataclass
class SubmissionInfo:
    """What the latest run read of one student's submission (the ``submissions`` table)."""

    student: str
    name: str
    layout: str
    submitted_at: str | None
    time_source: str | None
    time_precision: str | None
    late: bool | None
    email: str = ""
    submission: str = ""
    files: tuple = ()


SYSTEM_ENTRY = "hidden or system entry"    # why .DS_Store or __MACOSX is skipped: no student's


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class Attempt:
    id: int
    student: str
    content: str
    graded_at: str
    score: float
    max_score: float
    seconds: float
    stored: tuple         # (result data, report_en, report_zh) as JSON text, as the row holds them

    @property
    def result(self):
        """The graded result (grader/report/results.py), rebuilt from what was stored."""
        return load_result(*self.stored)

    def report(self, lang: str = "en", messages=None) -> dict:
        """`grade check --format json`'s object in ``lang``, with ``messages`` (the course's catalogue;
        None: the package's)."""
        return json_data(self.result, lang, messages)


@dataclass
class PreparedAttempt:
    """An attempt as the gradebook stores it: what a grading process sends its parent
    (strings and numbers, encoded where the grading happened)."""

    score: float
    max_score: float
    isolation: str
    seconds: float
    result: str           # SubmissionResult.to_data() as JSON
    checks: list          # (exercise, name, passed, score, max_score, hidden)
    diagnoses: list       # (exercise, mistake)


def prepare(result) -> PreparedAttempt:
    return PreparedAttempt(
        score=result.score, max_score=result.max_score, isolation=result.isolation, seconds=result.elapsed,
        result=json.dumps(result.to_data(), ensure_ascii=False),
        checks=[(e.id, c.name, int(c.passed), c.score, c.max_score, int(c.hidden))
                for e in result.exercises for c in e.checks],
        diagnoses=[(e.id, d.id) for e in result.exercises for d in e.diagnoses])


class Gradebook:
    def __init__(self, path: Path, private: bool = False):
        """``private``: student code may read what others may (grader/sandbox/isolation.py: the ``user``
        mode): the gradebook is closed to others before SQLite opens it, since SQLite gives its
        journal, WAL and shared-memory files the gradebook's own mode when it makes them. A new
        one is made 0600 here; one left open by an earlier run loses its permissions for
        others, and so do the journal files such a run left beside it."""
        self.path = Path(path)
        if private:
            close_to_others(self.path)
        self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        # WAL with synchronous=NORMAL: a committed attempt survives the grader being killed
        # (kill -9, Ctrl-C, a crash) at any point; only a power cut can lose the last few, and
        # those are regraded by the next run. FULL would add an fsync per submission.
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(attempts)")}
        if "result" not in columns:   # a gradebook from before results were stored as data
            self.db.execute("ALTER TABLE attempts ADD COLUMN result TEXT")
        if self.db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")   # the submissions table is there now

    @contextlib.contextmanager
    def transaction(self):
        """One transaction: every statement inside is kept, or none (a kill at any point included).
        The connection is in autocommit mode (``isolation_level=None``), where ``with self.db:``
        opens no transaction: each statement, and each row of an ``executemany``, would be a
        transaction of its own, so an attempt's 144 check rows were 144 commits, and a run
        killed among them kept an attempt without all its checks."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if self.db.in_transaction:      # some errors (a full disk) have ended it already
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------ runs

    def start_run(self, directory: str, course: str) -> int:
        with self.db:
            cur = self.db.execute("INSERT INTO runs (started_at, status, directory, course)"
                                  " VALUES (?, 'running', ?, ?)",
                                  (now(), directory, course))
        return cur.lastrowid

    def finish_run(self, run_id: int, status: str = "finished"):
        with self.db:
            self.db.execute("UPDATE runs SET finished_at = ?, status = ? WHERE id = ?", (now(), status, run_id))

    def record_skipped(self, run_id: int, entry: str, reason: str):
        with self.db:
            self.db.execute("INSERT INTO skipped (run_id, entry, reason) VALUES (?, ?, ?)", (run_id, entry, reason))

    def record_submission(self, run_id: int, info: SubmissionInfo):
        """What this run read of a student's submission: id, display name, time and its source."""
        with self.db:
            self.db.execute(
                "INSERT INTO submissions (run_id, student, name, layout, submitted_at, time_source, time_precision,"
                " late, email, submission, files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, info.student, info.name, info.layout, info.submitted_at, info.time_source,
                 info.time_precision, None if info.late is None else int(info.late), info.email, info.submission,
                 json.dumps(list(info.files), ensure_ascii=False)))

    # ------------------------------------------------------------ late policy, extensions, adjustments

    def set_late_policy(self, deadline: str | None, policy: str):
        with self.db:
            self.db.execute("INSERT INTO late_policy (set_at, deadline, policy) VALUES (?, ?, ?)",
                            (now(), deadline, policy))

    def late_setting(self) -> tuple[str | None, str] | None:
        """(deadline, policy) of the latest ``--deadline``/``--late``, or None: never set."""
        row = self.db.execute("SELECT deadline, policy FROM late_policy ORDER BY id DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else None

    def set_extensions(self, extensions: dict[str, str]):
        """The ``--extensions`` file's rows replace the ones before (the file is the list)."""
        with self.transaction():
            self.db.execute("DELETE FROM extensions")
            self.db.executemany("INSERT INTO extensions (student, deadline, set_at) VALUES (?, ?, ?)",
                                [(student, deadline, now()) for student, deadline in extensions.items()])

    def extensions(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT student, deadline FROM extensions").fetchall())

    def add_adjustment(self, student: str, exercise: str, kind: str, points: float, reason: str, by: str) -> int:
        with self.db:
            cur = self.db.execute("INSERT INTO adjustments (student, exercise, kind, points, reason, made_by, made_at)"
                                  " VALUES (?, ?, ?, ?, ?, ?, ?)", (student, exercise, kind, points, reason, by, now()))
        return cur.lastrowid

    def adjustments(self, student: str | None = None) -> list:
        """Every adjustment by hand (of ``student``), in the order they were made."""
        from grader.classroom.adjustments import Adjustment

        query = "SELECT id, student, exercise, kind, points, reason, made_by, made_at FROM adjustments"
        rows = self.db.execute(query + (" WHERE student = ?" if student is not None else "") + " ORDER BY id",
                               (student,) if student is not None else ()).fetchall()
        return [Adjustment(*row) for row in rows]

    def submissions(self) -> dict[str, SubmissionInfo]:
        """Every student's latest :class:`SubmissionInfo`, by id (none for a gradebook of schema version 1)."""
        rows = self.db.execute(
            "SELECT student, name, layout, submitted_at, time_source, time_precision, late, email, submission, files"
            " FROM submissions ORDER BY run_id, rowid").fetchall()
        return {row[0]: SubmissionInfo(*row[:6], None if row[6] is None else bool(row[6]), row[7], row[8],
                                       tuple(json.loads(row[9] or "[]"))) for row in rows}

    # ------------------------------------------------------------ attempts

    def record(self, run_id: int, student: str, content: str, result) -> int:
        """One attempt with all its rows, in one transaction."""
        return self.record_prepared(run_id, student, content, prepare(result))

    def record_prepared(self, run_id: int, student: str, content: str, attempt: "PreparedAttempt") -> int:
        with self.transaction():
            # report_en/report_zh: empty, not NULL, so an older gradebook's NOT NULL columns accept the row
            cur = self.db.execute(
                "INSERT INTO attempts (run_id, student, content, graded_at, score, max_score, isolation, seconds,"
                " report_en, report_zh, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '', ?)",
                (run_id, student, content, now(), attempt.score, attempt.max_score, attempt.isolation,
                 attempt.seconds, attempt.result))
            attempt_id = cur.lastrowid
            self.db.executemany(
                "INSERT INTO checks (attempt_id, exercise, name, passed, score, max_score, hidden)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", [(attempt_id, *row) for row in attempt.checks])
            self.db.executemany("INSERT INTO diagnoses (attempt_id, exercise, mistake) VALUES (?, ?, ?)",
                                [(attempt_id, *row) for row in attempt.diagnoses])
        return attempt_id

    _ATTEMPT = ("a.id, a.student, a.content, a.graded_at, a.score, a.max_score, a.seconds,"
                " a.result, a.report_en, a.report_zh")
    _LATEST = ("FROM attempts a JOIN (SELECT student, MAX(id) AS id FROM attempts GROUP BY student) l ON a.id = l.id"
               " ORDER BY a.student")

    def latest(self, student: str) -> Attempt | None:
        row = self.db.execute(f"SELECT {self._ATTEMPT} FROM attempts a WHERE student = ? ORDER BY id DESC LIMIT 1",
                              (student,)).fetchone()
        return _attempt(row) if row else None

    def latest_scores(self) -> list[tuple[str, float, float]]:
        """(student, score, max_score) of every student's latest attempt, by name."""
        return self.db.execute(f"SELECT a.student, a.score, a.max_score {self._LATEST}").fetchall()

    def latest_all(self) -> list[Attempt]:
        """Every student's latest attempt, by name (their results are rebuilt when asked for)."""
        return [_attempt(r) for r in self.db.execute(f"SELECT {self._ATTEMPT} {self._LATEST}")]

    def not_graded(self) -> dict[str, tuple[int, str]]:
        """Every entry a run could not grade: (the latest such run's id, why) by name."""
        rows = self.db.execute("SELECT entry, run_id, reason FROM skipped ORDER BY run_id, rowid").fetchall()
        return {entry: (run_id, reason) for entry, run_id, reason in rows}

    def latest_runs(self) -> dict[str, int]:
        """The run of every student's latest attempt."""
        return dict(self.db.execute("SELECT student, MAX(run_id) FROM attempts GROUP BY student").fetchall())

    def has_content(self, student: str, content: str) -> bool:
        row = self.db.execute("SELECT content FROM attempts WHERE student = ? ORDER BY id DESC LIMIT 1",
                              (student,)).fetchone()
        return row is not None and row[0] == content

    def check_rows(self, attempt_ids: list[int]) -> list[tuple]:
        if not attempt_ids:
            return []
        marks = ",".join("?" * len(attempt_ids))
        return self.db.execute(f"SELECT attempt_id, exercise, name, passed, score, max_score, hidden FROM checks"
                               f" WHERE attempt_id IN ({marks}) ORDER BY rowid", attempt_ids).fetchall()

    def diagnosis_rows(self, attempt_ids: list[int]) -> list[tuple]:
        if not attempt_ids:
            return []
        marks = ",".join("?" * len(attempt_ids))
        return self.db.execute(f"SELECT attempt_id, exercise, mistake FROM diagnoses WHERE attempt_id IN ({marks})",
                               attempt_ids).fetchall()


JOURNALS = ("-wal", "-shm", "-journal")     # what SQLite keeps beside a database


def close_to_others(path: Path) -> None:
    """Before SQLite opens ``path``: a new gradebook made 0600 (O_EXCL, so never one that appeared
    meanwhile), an existing one and its journal files stripped of every permission for others."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        return
    except FileExistsError:
        pass
    except OSError:
        return      # a folder that does not exist: SQLite says so
    for file in (path, *(path.with_name(path.name + suffix) for suffix in JOURNALS)):
        try:
            mode = stat.S_IMODE(os.lstat(file).st_mode)
            if mode & 0o007 and not stat.S_ISLNK(os.lstat(file).st_mode):
                os.chmod(file, mode & ~0o007)
        except OSError:
            continue


def _attempt(row) -> Attempt:
    return Attempt(id=row[0], student=row[1], content=row[2], graded_at=row[3], score=row[4], max_score=row[5],
                   seconds=row[6], stored=tuple(row[7:10]))


def load_result(result: str | None, report_en: str | None = None, report_zh: str | None = None):
    """A SubmissionResult from what an attempt stored: its data, or (a gradebook written before
    results were stored as data) its JSON reports, whose texts come back as they were written,
    in the language each was written in."""
    from grader.report.results import SubmissionResult

    if result:
        return SubmissionResult.from_data(json.loads(result))
    from grader.classroom.stored_reports import result_from_reports
    return result_from_reports(json.loads(report_en or "{}"), json.loads(report_zh or "{}"))
