"""Deadlines and late penalties (CONTRACT section 11): the policy language, exact penalties at the
hour and day boundaries and across time zones, and a class with late, on-time, extended and
missing-time submissions, in the export, the class report and each student's feedback."""

from __future__ import annotations

import csv
import datetime as dt
import shutil
import sqlite3

import pytest

from conftest import ROOT, run_grade as run
from grader.base.errors import BadInput
from grader.classroom.late_policy import apply, parse_policy
from grader.sandbox.isolation import bwrap_path

STATS = ROOT / "tests" / "courses" / "stats"
DEADLINE = "2026-12-10T23:59:00+08:00"


def late_by(seconds: float, zone: str = "+08:00") -> str:
    """The hand-in time ``seconds`` after the deadline, written in ``zone``."""
    due = dt.datetime.fromisoformat(DEADLINE)
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    offset = dt.timezone((1 if zone[0] == "+" else -1) * dt.timedelta(hours=hours, minutes=minutes))
    return (due + dt.timedelta(seconds=seconds)).astimezone(offset).isoformat()


def penalty(policy: str, seconds: float, raw: float = 20.0, adjustments: float = 0.0, zone: str = "+08:00"):
    final = apply(parse_policy(policy), DEADLINE, raw, adjustments, 20.0, late_by(seconds, zone))
    return final.late_penalty, final.total, final.units_late, final.status


@pytest.mark.parametrize("seconds, lost, units", [
    (-3600, 0.0, 0), (0, 0.0, 0),                    # early, and exactly at the deadline: on time
    (1, 2.0, 1), (12 * 3600, 2.0, 1),                # a begun day counts whole: 12 hours cost 10 %
    (86400, 2.0, 1), (86401, 4.0, 2),                # the day boundary
    (50 * 3600, 6.0, 3), (3 * 86400, 6.0, 3),        # 50 hours: 30 %; exactly 3 days: still 30 %
])
def test_ten_percent_a_day(seconds, lost, units):
    lost_points, total, units_late, _ = penalty("10%/day, max 3 days", seconds)
    assert (lost_points, units_late) == (lost, units)
    assert total == pytest.approx(20.0 - lost)


def test_past_the_cap_the_score_is_zero():
    assert penalty("10%/day, max 3 days", 3 * 86400 + 1) == (20.0, 0.0, 4, "past_cap")
    assert penalty("2%/hour, max 48 hours", 48 * 3600 + 1) == (20.0, 0.0, 49, "past_cap")
    # with no cap the share grows to everything, never more
    assert penalty("30%/day", 5 * 86400)[:2] == (20.0, 0.0)


@pytest.mark.parametrize("seconds, lost", [(3600, 0.4), (3601, 0.8), (48 * 3600, 19.2), (47 * 3600 + 1, 19.2)])
def test_two_percent_an_hour(seconds, lost):
    assert penalty("2%/hour, max 48 hours", seconds)[0] == pytest.approx(lost)


@pytest.mark.parametrize("zone", ["+00:00", "-05:00", "+05:45", "+14:00"])
def test_time_zones_are_one_instant(zone):
    # the same instants, written in other zones: exactly the deadline is on time, a second later is a day late
    assert penalty("10%/day, max 3 days", 0, zone=zone)[3] == "on_time"
    assert penalty("10%/day, max 3 days", 1, zone=zone)[:3] == (2.0, 18.0, 1)
    assert penalty("2%/hour, max 48 hours", 3599, zone=zone)[:3] == (0.4, 19.6, 1)


def test_the_penalty_is_a_share_of_what_was_earned_after_adjustments():
    lost, total, _, _ = penalty("10%/day, max 3 days", 3600, raw=10.0, adjustments=2.0)
    assert (lost, total) == (pytest.approx(1.2), pytest.approx(10.8))


def test_no_time_no_penalty_and_no_policy():
    final = apply(parse_policy("10%/day"), DEADLINE, 15.0, 0.0, 20.0, None)
    assert (final.late_penalty, final.total, final.status) == (0.0, 15.0, "no_time")
    assert parse_policy("none").none
    # a time without a zone is read in the deadline's (and says so)
    final = apply(parse_policy("10%/day"), DEADLINE, 10.0, 0.0, 20.0, "2026-12-11T00:00:00")
    assert (final.units_late, final.naive_time) == (1, True)


@pytest.mark.parametrize("bad", ["10%", "ten percent a day", "10%/week", "0%/day", "150%/day",
                                 "10%/day, max 3 hours", "10%/day max", ""])
def test_bad_policies_are_refused(bad):
    with pytest.raises(BadInput):
        parse_policy(bad)


@pytest.mark.parametrize("good, unit, cap", [("10%/day, max 3 days", "day", 3), ("2 % per hour; cap 48 h", "hour", 48),
                                             ("5%/d", "day", None), ("2.5%/hours, up to 10 hours", "hour", 10)])
def test_the_policy_language(good, unit, cap):
    policy = parse_policy(good)
    assert (policy.unit, policy.cap) == (unit, cap)


needs_sandbox = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def export_rows(book, path):
    code, _, err = run("export", "--csv", path, "--gradebook", book)
    assert code == 0, err
    with open(path, encoding="utf-8-sig") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


@needs_sandbox
def test_a_class_with_late_on_time_extended_and_missing_times(tmp_path):
    cls = tmp_path / "class"
    for name in ("late", "ontime", "extended", "notime", "fromcsv"):
        shutil.copytree(STATS / "solutions" / "reference", cls / name)
    (cls / "late" / "timestamp.txt").write_text("2026-12-11 10:00:00 UTC\n")        # 18:01 in +08: 1 day late
    (cls / "ontime" / "timestamp.txt").write_text("2026-12-10T15:59:00Z\n")         # exactly the deadline
    (cls / "extended" / "timestamp.txt").write_text("2026-12-12T09:00:00+08:00\n")  # 2 days late, but extended
    times = tmp_path / "canvas_times.csv"     # what an LMS export gives: student, time
    times.write_text("student,time\nfromcsv,2026-12-13T00:30:00+08:00\n", encoding="utf-8")
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,deadline\nextended,2026-12-12T23:59+08:00\n", encoding="utf-8")
    book = tmp_path / "book.sqlite"
    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                         "--deadline", DEADLINE, "--late", "10%/day, max 3 days", "--submitted-at", times,
                         "--extensions", extensions)
    assert code == 0, err
    assert "1 with no hand-in time (no penalty): notime" in err
    rows = export_rows(book, tmp_path / "grades.csv")
    top = float(rows["late"]["max"])
    assert rows["late"]["raw"] == rows["late"]["max"]
    assert float(rows["late"]["late_penalty"]) == pytest.approx(0.1 * top)
    assert float(rows["late"]["total"]) == pytest.approx(0.9 * top)
    assert rows["late"]["late"] == "1 day"
    assert (rows["ontime"]["late_penalty"], rows["ontime"]["late"]) == ("0", "on time")
    assert (rows["extended"]["late_penalty"], rows["extended"]["late"]) == ("0", "on time")
    assert float(rows["fromcsv"]["late_penalty"]) == pytest.approx(0.3 * top)      # 48.5 hours: 3 days
    assert rows["fromcsv"]["time_source"] == "canvas_times.csv (--submitted-at)"
    assert (rows["notime"]["late_penalty"], rows["notime"]["late"]) == ("0", "no time: no penalty")
    assert rows["notime"]["submitted_at"] == ""
    assert all(row["adjustments"] == "0" for row in rows.values())

    feedback = tmp_path / "class.feedback"
    assert "late penalty -" in (feedback / "late.md").read_text()
    assert "no late penalty was applied" in (feedback / "notime.md").read_text()
    report = tmp_path / "report.html"
    code, _, err = run("report", "--gradebook", book, "--course", STATS, "--output", report)
    assert code == 0, err
    page = report.read_text()
    assert "1 students have no hand-in time" in page and "Policy: 10%/day, max 3 days" in page

    # A new policy recomputes every penalty without grading anything again.
    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                         "--late", "2%/hour, max 48 hours", "--submitted-at", times, "--lang", "zh")
    assert code == 0, err
    with sqlite3.connect(book) as db:
        assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 5
    rows = export_rows(book, tmp_path / "grades2.csv")
    assert float(rows["late"]["late_penalty"]) == pytest.approx(0.02 * 19 * top)    # 18 h 1 min: 19 hours
    assert (rows["fromcsv"]["total"], rows["fromcsv"]["late"]) == ("0", "49 hours (past the cap)")
    assert "迟交" in (feedback / "late.md").read_text()        # the feedback in the run's language


def test_bad_options_are_one_line_and_exit_2(tmp_path):
    cls = tmp_path / "class"
    shutil.copytree(STATS / "solutions" / "reference", cls / "alice")
    for args, words in ((["--late", "lots"], "not a late policy"),
                        (["--deadline", "2026-12-10T23:59"], "UTC offset"),
                        (["--deadline", "tomorrow"], "not an ISO 8601 time"),
                        (["--submitted-at", tmp_path / "missing.csv"], "missing.csv")):
        code, out, err = run("class", cls, "--course", STATS, "--gradebook", tmp_path / "b.sqlite", *args)
        assert code == 2 and words in err and "Traceback" not in err, (args, err)
        assert len(err.strip().splitlines()) == 1
    bad = tmp_path / "times.csv"
    bad.write_text("who,when\nalice,2026-12-01T00:00Z\n")
    code, _, err = run("class", cls, "--course", STATS, "--submitted-at", bad)
    assert code == 2 and "no column 'student'" in err
