"""Adjustments by hand (CONTRACT section 11): recorded with who, when and why, listed, shown in the
export, the class report and the feedback, kept across ``grade class --force``; ``--only-student``
regrades one student; gradebooks of schema versions 1 and 2 open as they are."""

from __future__ import annotations

import csv
import shutil
import sqlite3

import pytest

from conftest import ROOT, run_grade as run
from grader.classroom.gradebook import SCHEMA, SCHEMA_VERSION, Gradebook
from grader.sandbox.isolation import bwrap_path

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

STATS = ROOT / "tests" / "courses" / "stats"


def export_rows(book, path):
    code, _, err = run("export", "--csv", path, "--gradebook", book)
    assert code == 0, err
    with open(path, encoding="utf-8-sig") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


@pytest.fixture
def graded(tmp_path):
    cls = tmp_path / "class"
    shutil.copytree(STATS / "solutions" / "reference", cls / "alice")
    shutil.copytree(STATS / "exercises" / "stubs", cls / "bob")
    book = tmp_path / "book.sqlite"
    code, _, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples")
    assert code == 0, err
    return cls, book


def test_adjustments_survive_a_forced_regrade_and_show_everywhere(graded, tmp_path):
    cls, book = graded
    code, out, err = run("adjust", "bob", "quiz", "--points", "+2", "--reason", "equation right, odd notation",
                         "--by", "ta-li", "--gradebook", book)
    assert code == 0, err
    assert "final score 2 / 23" in out
    # the student's feedback file says so at once, before any regrade
    assert "Adjusted by hand, quiz: +2 (equation right, odd notation; ta-li" in \
        (tmp_path / "class.feedback" / "bob.md").read_text()
    assert "feedback written again" in out
    code, out, err = run("adjust", "alice", "distances", "--set", "4", "--reason", "copied the loop from the notes",
                         "--gradebook", book)
    assert code == 0, err
    code, out, _ = run("adjust", "--list", "--gradebook", book)
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["student", "exercise", "change", "reason", "by", "at"]
    assert lines[1].split("\t")[:5] == ["bob", "quiz", "+2", "equation right, odd notation", "ta-li"]
    assert lines[2].split("\t")[:4] == ["alice", "distances", "= 4", "copied the loop from the notes"]

    rows = export_rows(book, tmp_path / "a.csv")
    assert (rows["bob"]["raw"], rows["bob"]["adjustments"], rows["bob"]["total"]) == ("0", "2", "2")
    assert (rows["alice"]["raw"], rows["alice"]["adjustments"], rows["alice"]["total"]) == ("23", "-2", "21")

    # --force grades everyone again: new attempts, the same adjustments
    code, _, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples", "--force")
    assert code == 0, err
    with sqlite3.connect(book) as db:
        assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 4
    assert export_rows(book, tmp_path / "b.csv") == rows
    feedback = (tmp_path / "class.feedback" / "bob.md").read_text()
    assert "Adjusted by hand, quiz: +2 (equation right, odd notation; ta-li" in feedback
    assert "Final score: 2 / 23" in feedback
    report = tmp_path / "r.html"
    code, _, err = run("report", "--gradebook", book, "--course", STATS, "--output", report, "--lang", "zh")
    assert code == 0, err
    assert "手动调整" in report.read_text()

    # an LMS import receives the final score (grader/classroom/export.py: final_score)
    code, _, err = run("export", "--csv", tmp_path / "canvas.csv", "--gradebook", book, "--lms", "canvas")
    assert code == 0, err
    with open(tmp_path / "canvas.csv", encoding="utf-8-sig") as fh:
        canvas = {row[1]: row[-1] for row in csv.reader(fh)}
    assert (canvas["alice"], canvas["bob"]) == ("21", "2")


def test_bad_adjustments_are_one_line(graded):
    _, book = graded
    for args, words in ((["bob", "quiz", "--points", "+2"], "--reason"),
                        (["bob", "quiz", "--points", "two", "--reason", "x"], "not a number"),
                        (["bob", "quiz", "--points", "1", "--set", "2", "--reason", "x"], "one of"),
                        (["bob", "quiz", "--set", "99", "--reason", "x"], "between 0 and 3"),
                        (["bob", "nope", "--points", "1", "--reason", "x"], "no exercise 'nope'"),
                        (["eve", "quiz", "--points", "1", "--reason", "x"], "no graded attempt")):
        code, _, err = run("adjust", *args, "--gradebook", book)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (args, err)
    code, out, _ = run("adjust", "--list", "--gradebook", book)
    assert "(no adjustments)" in out


def test_only_student_regrades_one_and_keeps_history(graded):
    cls, book = graded
    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                         "--only-student", "bob")
    assert code == 0, err
    with sqlite3.connect(book) as db:
        assert sorted(db.execute("SELECT student FROM attempts").fetchall()) == [("alice",), ("bob",), ("bob",)]
    code, _, err = run("class", cls, "--course", STATS, "--gradebook", book, "--only-student", "zed")
    assert code == 2 and "no submission of 'zed'" in err


@pytest.mark.parametrize("version", [1, 2])
def test_old_gradebooks_open_as_they_are(graded, tmp_path, version):
    """A gradebook of schema version 1 (no submissions table) or 2 (no late policy, extensions,
    adjustments) is exported and adjusted as it is, and gains the new tables empty."""
    _, book = graded
    old = tmp_path / f"v{version}.sqlite"
    cut = SCHEMA.index("CREATE TABLE IF NOT EXISTS " + ("submissions" if version == 1 else "late_policy"))
    with sqlite3.connect(old) as db:
        db.executescript(SCHEMA[:cut])
        db.execute(f"PRAGMA user_version = {0 if version == 1 else 2}")
        with sqlite3.connect(book) as src:
            for table in ("runs", "attempts", "checks", "diagnoses", "skipped"):
                rows = src.execute(f"SELECT * FROM {table}").fetchall()
                if rows:
                    db.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)
    rows = export_rows(old, tmp_path / "old.csv")
    assert (rows["alice"]["total"], rows["alice"]["raw"], rows["alice"]["late_penalty"]) == ("23", "23", "0")
    assert rows["alice"]["submitted_at"] == ""
    code, _, err = run("adjust", "alice", "quiz", "--points", "-1", "--reason", "late quiz", "--gradebook", old)
    assert code == 0, err
    with Gradebook(old) as opened:
        assert opened.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert [a.points for a in opened.adjustments()] == [-1.0]
    assert export_rows(old, tmp_path / "old2.csv")["alice"]["total"] == "22"


def test_the_html_feedback_shows_the_final_score_escaped(graded, tmp_path):
    cls, book = graded
    code, _, err = run("adjust", "bob", "quiz", "--points", "1", "--reason", "<script>alert(1)</script> fair",
                       "--gradebook", book)
    assert code == 0, err
    code, _, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                       "--feedback", "html", "--lang", "zh", "--force")
    assert code == 0, err
    page = (tmp_path / "class.feedback" / "bob.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; fair" in page
    assert "<h2>最终成绩</h2>" in page and "最终成绩：1 / 23" in page
    assert page.rstrip().endswith("</section>")       # after the report, which leaves </body> implied
    assert "Content-Security-Policy" in page.split('<section class="final">')[0]
    # an adjustment made now rewrites the page in its own kind and language
    code, out, err = run("adjust", "bob", "quiz", "--points", "1", "--reason", "再加一分", "--gradebook", book)
    assert code == 0, err
    page = (tmp_path / "class.feedback" / "bob.html").read_text()
    assert "手动调整，quiz：+1（再加一分" in page and "最终成绩：2 / 23" in page and "<!doctype" in page.lower()
    # alice has nothing to add: her page has no final-score section
    assert '<section class="final">' not in (tmp_path / "class.feedback" / "alice.html").read_text()


def test_feedback_written_again_keeps_the_course_s_words(graded, tmp_path):
    """The course's catalogue (its title, its messages) writes the feedback again, as the class run
    wrote it: only the final score's lines are new. Without --course the course is the bundled one."""
    cls, book = graded
    before = (tmp_path / "class.feedback" / "bob.md").read_text().splitlines()
    code, _, err = run("adjust", "bob", "quiz", "--points", "+1", "--reason", "r", "--gradebook", book,
                       "--course", STATS)
    assert code == 0, err
    after = (tmp_path / "class.feedback" / "bob.md").read_text().splitlines()
    assert after[0] == before[0] and after[:len(before)] == before
    assert after[len(before):] and any("Final score" in line for line in after[len(before):])
