"""`grade report`: one static HTML page about a class, checked against its gradebook, and in Chromium."""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, STUBS, copy_reference
from grader.classroom.class_page import render_html
from grader.classroom.class_report import collect
from grader.classroom.gradebook import Gradebook
from grader.base.i18n import Message
from grader.report.results import CheckResult, Diagnosis, ExerciseResult, SubmissionResult

MISTAKES = ROOT / "solutions" / "mistakes"
CHROMIUM = Path("/usr/bin/chromium")


def run(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def with_mistake(folder: Path, file: str, mistake: Path) -> Path:
    """The reference with one known mistake appended (as the grader builds its wrong files)."""
    copy_reference(folder)
    target = folder / file
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + mistake.read_text(encoding="utf-8"),
                      encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """Four students graded by `grade class`, and the report on them: (gradebook, report.html)."""
    base = tmp_path_factory.mktemp("class-report")
    folder = base / "class"
    folder.mkdir()
    copy_reference(folder / "alice")
    shutil.copytree(STUBS, folder / "bob")
    with_mistake(folder / "carol", "rnn_step.py", MISTAKES / "step" / "missing_bias.py")
    with_mistake(folder / "dave", "masking.py", MISTAKES / "masking" / "padding_state.py")
    extra = [] if shutil.which("bwrap") else ["--no-sandbox"]
    code, out, err = run("class", folder, "--jobs", "2", *extra)
    assert code == 0, err
    book = base / "class.gradebook.sqlite"
    assert book.is_file()
    code, out, err = run("report", "--gradebook", book, "--lang", "en")
    assert code == 0, err
    report = base / "report.html"          # the default: beside the gradebook
    assert report.is_file() and str(report) in out
    return book, report


class Page(HTMLParser):
    """Every element's tag and attributes, and the text inside each element with a class."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.stack: list[tuple[str, dict, list]] = []
        self.texts: list[tuple[str, dict, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag not in ("meta", "line", "br", "img", "input"):
            self.stack.append((tag, attrs, []))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, attrs, chunks = self.stack.pop()
            text = "".join(chunks)
            self.texts.append((open_tag, attrs, text))
            if self.stack:
                self.stack[-1][2].append(text)
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)

    def find(self, tag, cls=None):
        return [a for t, a in self.elements if t == tag and (cls is None or cls in (a.get("class") or "").split())]

    def text_of(self, tag, cls):
        return [text for t, a, text in self.texts if t == tag and cls in (a.get("class") or "").split()]


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def latest_reports(book: Path) -> dict[str, tuple[int, dict]]:
    """Each student's latest attempt and its English JSON report, rendered from the stored result."""
    with Gradebook(book) as gradebook:
        return {a.student: (a.id, a.report("en")) for a in gradebook.latest_all()}


def test_report_numbers_match_the_gradebook(klass):
    book, report = klass
    page = parse(report)
    latest = latest_reports(book)
    assert sorted(latest) == ["alice", "bob", "carol", "dave"]

    # summary and histogram: 4 students, ten bins, the counts add up to 4
    cards = dict(zip(page.text_of("div", "label"), page.text_of("div", "value")))
    assert cards["Students"] == "4"
    bars = page.find("rect", "bar")
    assert len(bars) == 10
    assert sum(int(b["data-count"]) for b in bars) == 4
    assert int(bars[-1]["data-count"]) >= 1                 # alice, full marks, in 90-100
    assert int(bars[0]["data-count"]) >= 1                  # bob, the stubs, in 0-10
    svg_texts = [t for tag, _, t in page.texts if tag == "text"]
    assert "Students" in svg_texts and "Score, % of the maximum" in svg_texts   # axis labels
    assert "0–10" in svg_texts and "90–100" in svg_texts

    # per exercise: pass rate = share with full marks; mean score
    rows = {r["data-exercise"]: r for r in page.find("tr", "exercise")}
    exercises = {e["id"] for _, r in latest.values() for e in r["exercises"]}
    assert set(rows) == exercises
    for ex_id, row in rows.items():
        scores = [(e["score"], e["max_score"]) for _, r in latest.values() for e in r["exercises"] if e["id"] == ex_id]
        assert float(row["data-pass-rate"]) == pytest.approx(sum(s >= m for s, m in scores) / len(scores), abs=1e-4)
        assert float(row["data-mean"]) == pytest.approx(sum(s for s, _ in scores) / len(scores), abs=1e-4)
    assert float(rows["step"]["data-pass-rate"]) == pytest.approx(0.5)   # alice and dave; not bob, not carol

    # per check: failures counted over the latest attempts, hidden checks included, most failures first
    db = sqlite3.connect(str(book))
    ids = [id_ for id_, _ in latest.values()]
    expected = dict(((ex, name), n) for ex, name, n in db.execute(
        f"SELECT exercise, name, SUM(passed = 0) FROM checks WHERE attempt_id IN ({','.join('?' * len(ids))})"
        " GROUP BY exercise, name", ids))
    hidden_failed = db.execute(
        f"SELECT COUNT(*) FROM checks WHERE hidden = 1 AND passed = 0 AND attempt_id IN ({','.join('?' * len(ids))})",
        ids).fetchone()[0]
    db.close()
    check_rows = page.find("tr", "check")
    shown = {tuple(r["data-check"].split("::")): int(r["data-failures"]) for r in check_rows}
    assert shown == {k: n for k, n in expected.items() if n}
    failures = [int(r["data-failures"]) for r in check_rows]
    assert failures == sorted(failures, reverse=True)
    assert hidden_failed > 0 and page.text_of("span", "tag").count("hidden") > 0
    assert shown[("step", "matches_reference")] == 2          # bob and carol

    # named mistakes, with their titles from the course catalogue
    mistakes = {r["data-mistake"]: int(r["data-count"]) for r in page.find("tr", "mistake")}
    assert mistakes["step.missing_bias"] == 1 and mistakes["masking.padding_state"] == 1
    assert "The bias b is missing" in report.read_text(encoding="utf-8")

    # slowest submissions (every student, slowest first) and the run history
    slow = page.find("tr", "slow")
    assert sorted(r["data-student"] for r in slow) == ["alice", "bob", "carol", "dave"]
    runs = page.find("tr", "run")
    assert len(runs) == 1


def test_report_is_self_contained(klass):
    _, report = klass
    content = report.read_text(encoding="utf-8")
    page = parse(report)
    assert not page.find("script") and not page.find("link") and not page.find("img")
    assert all("src" not in a and "href" not in a for _, a in page.elements)
    assert "url(" not in content and "@import" not in content
    assert [a.get("xmlns") for a in page.find("svg")][0] == "http://www.w3.org/2000/svg"   # a name, not a fetch


def test_report_in_chinese_and_default_gradebook(klass, tmp_path):
    book, _ = klass
    folder = tmp_path / "here"
    folder.mkdir()
    shutil.copy(book, folder / book.name)
    code, out, err = run("report", "--lang", "zh", cwd=folder)       # the only *.gradebook.sqlite here
    assert code == 0, err
    content = (folder / "report.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in content and "班级报告" in content and "漏掉了偏置 b" in content
    code, _, err = run("report", "--gradebook", tmp_path / "missing.sqlite")
    assert code == 2 and err.startswith("grade: no such gradebook")
    (tmp_path / "junk.sqlite").write_text("not a database")
    code, _, err = run("report", "--gradebook", tmp_path / "junk.sqlite")
    assert code == 2 and "is not a gradebook" in err and len(err.strip().splitlines()) == 1


def test_every_student_string_is_escaped(tmp_path, course):
    """Names, folders, report fields and unknown ids never become markup."""
    evil = '<script>alert("x")</script>&amp;'
    book_path = tmp_path / "evil.gradebook.sqlite"
    with Gradebook(book_path) as book:
        run_id = book.start_run(f"/tmp/{evil}", "fp")
        check = CheckResult(name=f"c{evil}", passed=False, score=0, max_score=2, message=Message("x"), hidden=True)
        exercise = ExerciseResult(id=f"ex{evil}", title={"en": f"T{evil}"}, checks=[check],
                                  diagnoses=[Diagnosis(f"m{evil}", {}, {}, {})])
        result = SubmissionResult(source="s", exercises=[exercise], elapsed=1.5)
        book.record(run_id, f"student{evil}", "hash", result)
        book.finish_run(run_id)
        page = render_html(collect(book, "en", course), "en")
    assert "<script" not in page
    assert page.count("&lt;script&gt;") >= 6      # student, folder, exercise id and title, check, mistake
    parsed = Page()
    parsed.feed(page)
    assert not parsed.find("script")


def test_an_empty_gradebook_gives_a_page(tmp_path):
    with Gradebook(tmp_path / "empty.gradebook.sqlite") as book:
        page = render_html(collect(book, "en", None), "en")
    assert "no graded attempts yet" in page and "</html>" in page


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def chromium(*args, tmp: Path) -> subprocess.CompletedProcess:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":      # CI installs it (.ci/run): a skip there would hide the test
            pytest.fail(f"CI=true and Chromium is not installed ({CHROMIUM}): "
                        "scripts/install-system-packages --ci installs it", pytrace=False)
        pytest.skip(f"Chromium is not installed ({CHROMIUM})")
    return subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--no-first-run", f"--user-data-dir={tmp / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180)


def test_the_report_renders_in_headless_chromium(klass, tmp_path):
    _, report = klass
    shot = tmp_path / "shot.png"
    proc = chromium(f"--screenshot={shot}", "--window-size=1200,2000", report.as_uri(), tmp=tmp_path)
    assert shot.is_file(), proc.stderr[-2000:]
    assert shot.stat().st_size > 20_000            # a real page, not a blank one (a blank PNG is a few KiB)
    assert png_size(shot) == (1200, 2000)

    proc = chromium("--dump-dom", report.as_uri(), tmp=tmp_path)
    dom = Page()
    dom.feed(proc.stdout)
    assert len(dom.find("svg", "histogram")) == 1
    assert len(dom.find("rect", "bar")) == 10
    assert len(dom.find("svg", "rate-bar")) == len(dom.find("tr", "exercise")) > 0
