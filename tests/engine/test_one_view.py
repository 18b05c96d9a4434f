"""One view between results and every output (grader/report/view.py), results stored as
language-neutral data and read back, every `grade class --format`, and gradebooks written
before results were stored as data."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference, run_grade, with_mistake
from grader.classroom.gradebook import Gradebook, prepare
from grader.base.i18n import Message
from grader.report import FORMATS, WRITERS, render
from grader.report.results import CheckResult, Diagnosis, ExerciseResult, SubmissionResult
from grader.report.view import build, points
from grader.report import json_data

MISTAKES = ROOT / "solutions" / "mistakes"
LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def graded(tmp_path_factory, grader):
    """A real result with a named mistake, failing hidden checks, a missing file and a partial quiz answer."""
    from grader.submission.load import load_submission

    tmp = tmp_path_factory.mktemp("view")
    folder = with_mistake(copy_reference(tmp / "s"), "rnn_step.py", MISTAKES / "step" / "missing_bias.py")
    (folder / "param_count.py").unlink()
    answers = folder / "answers.yaml"
    answers.write_text(answers.read_text().replace("shared_parameters: [W_x, W_h, b]", "shared_parameters: [W_x, W_h]"))
    return grader.grade(load_submission(folder, tmp / "work"), ("step", "params", "quiz"))


def odd_points() -> SubmissionResult:
    """A check worth 7/3 points, half earned, and a hidden check whose own message must stay hidden."""
    checks = [CheckResult("thirds", passed=False, score=7 / 6, max_score=7 / 3,
                          message=Message("err.timeout", name="f", seconds=2)),
              CheckResult("secret", passed=False, score=0, max_score=1, hidden=True,
                          message=Message("cmp.value", where="h", expected="SECRET-EXPECTED", got="1"))]
    exercise = ExerciseResult("ex", {"en": "Ex", "zh": "练习"}, checks,
                              diagnoses=[Diagnosis("ex.m", {"en": "M"}, {"en": "why"}, {"en": "fix"})])
    return SubmissionResult(source="sub", exercises=[exercise])


# ------------------------------------------------------------------ stored and loaded back

@pytest.mark.parametrize("lang", LANGS)
def test_a_result_stored_as_data_renders_every_format_alike(graded, lang):
    stored = json.loads(json.dumps(graded.to_data(), ensure_ascii=False))   # what the gradebook keeps
    back = SubmissionResult.from_data(stored)
    for fmt in (*FORMATS, "html"):
        assert render(back, fmt, lang) == render(graded, fmt, lang), fmt


def test_stored_data_is_language_neutral(graded):
    data = json.dumps(graded.to_data(), ensure_ascii=False)
    failing = next(c for e in graded.exercises for c in e.checks if not c.passed and c.message is not None)
    assert failing.message.key in data
    assert failing.message.render("en") not in data and failing.message.render("zh") not in data


def test_a_gradebook_keeps_the_result_and_every_report_comes_from_it(graded, tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        run = book.start_run("class", "fp")
        book.record_prepared(run, "alice", "c1", prepare(graded))
        attempt = book.latest("alice")
        for lang in LANGS:
            assert attempt.report(lang) == json_data(graded, lang)
            assert render(attempt.result, "markdown", lang) == render(graded, "markdown", lang)


# ------------------------------------------------------------------ one decision, every format

def test_points_print_alike_in_every_text_format():
    result = odd_points()
    assert points(7 / 3) == "2.3333" and points(10.0) == "10"
    for fmt in ("text", "markdown", "junit", "html"):
        report = render(result, fmt, "en")
        assert "1.1667/2.3333" in report, fmt
        assert "2.33333" not in report and "1.16667" not in report, fmt
    for fmt in ("json", "gradescope"):
        assert "2.3333" in render(result, fmt, "en") and "2.33333" not in render(result, fmt, "en")


@pytest.mark.parametrize("reveal", [False, True])
def test_reveal_hidden_is_honoured_by_every_format(monkeypatch, reveal):
    monkeypatch.setenv("GRADER_REVEAL_HIDDEN", "1" if reveal else "0")
    result = odd_points()
    for fmt in (*FORMATS, "html"):
        report = render(result, fmt, "en")
        assert ("SECRET-EXPECTED" in report) is reveal, fmt
    assert ("SECRET-EXPECTED" in build(result, "en").exercises[0].checks[1].message) is reveal


def test_the_known_mistakes_go_with_one_check_everywhere():
    view = build(odd_points(), "en")
    assert view.exercises[0].carrier.name == "thirds"       # the first failing visible check
    tests = json.loads(render(odd_points(), "gradescope", "en"))["tests"]
    assert [t["name"].split(" ")[0] for t in tests if "ex.m" in t["output"]] == ["ex::thirds"]


def test_html_feedback_is_a_page_not_markdown_in_a_pre(graded):
    page = render(graded, "html", "en")
    assert page.startswith("<!doctype html>") and "<table>" in page and "<h2>" in page
    assert "## " not in page and "| " not in page          # no Markdown syntax shown as text
    assert "step.missing_bias" in page


# ------------------------------------------------------------------ grade class, every format

@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    root = tmp_path_factory.mktemp("klass")
    folder = root / "class"
    copy_reference(folder / "alice")
    with_mistake(copy_reference(folder / "bob"), "rnn_step.py", MISTAKES / "step" / "missing_bias.py")
    book = root / "book.sqlite"
    code, out, err = run_grade("class", folder, "--jobs", "1", "--only", "step", "--gradebook", book,
                               "--feedback", "html")
    assert code == 0, err
    return folder, book


def class_output(klass, fmt):
    folder, book = klass
    code, out, err = run_grade("class", folder, "--jobs", "1", "--only", "step", "--gradebook", book,
                               "--feedback", "none", "--format", fmt)
    assert code == 0, err
    return out


def test_grade_class_writes_every_format(klass):
    assert set(FORMATS) <= {name for name, w in WRITERS.items() if w.many is not None}
    text = class_output(klass, "text")
    assert "alice" in text and "bob" in text
    data = json.loads(class_output(klass, "json"))
    assert [s["student"] for s in data["submissions"]] == ["alice", "bob"]
    assert data["submissions"][1]["exercises"][0]["diagnoses"] == ["step.missing_bias"]
    scope = json.loads(class_output(klass, "gradescope"))
    assert [s["student"] for s in scope["submissions"]] == ["alice", "bob"]
    assert all({"score", "tests"} <= set(s) for s in scope["submissions"])
    root = ET.fromstring(class_output(klass, "junit"))
    assert [s.get("name") for s in root.iter("testsuite")] == ["alice::step", "bob::step"]
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in root.iter("testsuite")) > 0
    md = class_output(klass, "markdown")
    assert "| `alice` |" in md and "## `bob`" in md and "`step.missing_bias`" in md


def test_class_feedback_html_files_are_pages(klass):
    folder, book = klass
    page = (book.parent / "class.feedback" / "bob.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "<title>bob</title>" in page and "step.missing_bias" in page


# ------------------------------------------------------------------ gradebooks from before

OLD_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,
                   directory TEXT NOT NULL, course TEXT NOT NULL);
CREATE TABLE attempts (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), student TEXT NOT NULL,
                       content TEXT NOT NULL, graded_at TEXT NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL,
                       isolation TEXT NOT NULL, seconds REAL NOT NULL,
                       report_en TEXT NOT NULL, report_zh TEXT NOT NULL);
CREATE TABLE checks (attempt_id INTEGER NOT NULL, exercise TEXT NOT NULL, name TEXT NOT NULL, passed INTEGER NOT NULL,
                     score REAL NOT NULL, max_score REAL NOT NULL, hidden INTEGER NOT NULL);
CREATE TABLE diagnoses (attempt_id INTEGER NOT NULL, exercise TEXT NOT NULL, mistake TEXT NOT NULL);
CREATE TABLE skipped (run_id INTEGER NOT NULL, entry TEXT NOT NULL, reason TEXT NOT NULL);
"""


def old_gradebook(path: Path, result) -> Path:
    """A gradebook as grade class wrote it before results were stored as data: finished JSON reports."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO runs VALUES (1, 't0', 't1', 'finished', 'class', 'fp')")
    db.execute("INSERT INTO attempts VALUES (1, 1, 'carol', 'c', 't1', ?, ?, 'bubblewrap', 1.5, ?, ?)",
               (result.score, result.max_score, json.dumps(json_data(result, "en")),
                json.dumps(json_data(result, "zh"))))
    db.executemany("INSERT INTO checks VALUES (1, ?, ?, ?, ?, ?, ?)",
                   [(e.id, c.name, int(c.passed), c.score, c.max_score, int(c.hidden))
                    for e in result.exercises for c in e.checks])
    db.commit()
    db.close()
    return path


def test_an_old_gradebook_still_opens_and_every_output_reads_it(graded, tmp_path):
    book = old_gradebook(tmp_path / "old.sqlite", graded)
    with Gradebook(book) as gradebook:
        attempt = gradebook.latest("carol")
        for lang in LANGS:
            old = json_data(graded, lang)
            again = attempt.report(lang)
            assert again["score"] == old["score"]
            assert [e["id"] for e in again["exercises"]] == [e["id"] for e in old["exercises"]]
            assert [[c["message"] for c in e["checks"]] for e in again["exercises"]] == \
                   [[c["message"] for c in e["checks"]] for e in old["exercises"]]
        for fmt in (*FORMATS, "html"):
            report = render(attempt.result, fmt, "zh")
            assert all(e.id in report for e in graded.exercises), fmt
        run = gradebook.start_run("class", "fp")              # a new attempt goes into the old table too
        gradebook.record_prepared(run, "dave", "d", prepare(graded))
        assert gradebook.latest("dave").report("en") == json_data(graded, "en")
    code, out, err = run_grade("export", "--gradebook", book, "--csv", tmp_path / "out.csv")
    assert code == 0, err
    assert "carol" in (tmp_path / "out.csv").read_text(encoding="utf-8-sig")
    code, out, err = run_grade("report", "--gradebook", book, "--output", tmp_path / "r.html")
    assert code == 0, err
    assert "carol" in (tmp_path / "r.html").read_text(encoding="utf-8")
