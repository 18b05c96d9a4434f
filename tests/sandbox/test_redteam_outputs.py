"""Red-team tests of what the grader writes (issue 10, breaches 5, 6 and 7).

* Report injection (breach 6): entry names and file names reach the terminal, the CSV
  export and the feedback folder; control characters must arrive as visible escapes, CSV
  cells must never start a formula, and two students never share a feedback file.
* The class pool (breach 5): a grading process that dies (as the kernel's OOM killer ends
  a trusted process that exceeded memory) costs only its own submission.
* Timing (breach 7): no output carries a time that includes hidden checks' calls.

The class runs use ``--no-sandbox`` and ``--only params``: what is attacked here is the
trusted side's outputs, not the sandbox, and a small class keeps each run to seconds.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
import zipfile

import pytest
from rich.console import Console

from conftest import ROOT, copy_reference
from grader.report import FORMATS, render
from grader.report.results import CheckResult, ExerciseResult, SubmissionResult

OSC_TITLE = "\x1b]0;pwned\x07"          # sets the terminal's title; click does not strip it off a tty
CSI_CLEAR = "\x1b[2J\x1b[1;1H"         # clears the screen and moves the cursor home
C1_CSI = "\x9b31m"                      # the one-character (C1) form of CSI
FORGED_ROW = "\n  alice                         8"   # a newline in a name forges a listing row
FORMULAS = ["=1+2", "@SUM(1)", "+3", "-4", "=HYPERLINK(\"x\")"]


def run(*args, env=None, timeout=300):
    """`grade ...` as a process; stdout and stderr as text that keeps undecodable bytes."""
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, cwd=ROOT,
                          env=env, timeout=timeout)
    decode = lambda b: b.decode("utf-8", "surrogateescape")   # noqa: E731
    return proc.returncode, decode(proc.stdout), decode(proc.stderr)


def raw_controls(text: str) -> list[str]:
    """Every non-printable character other than the line breaks the grader writes itself."""
    return sorted({c for c in text if not c.isprintable() and c != "\n"})


# ================================================================ breach 6: names in class outputs

HOSTILE_STUDENTS = ["alice", "alice!", "Bob", "bob", f"eve{OSC_TITLE}", f"{CSI_CLEAR}mallory", f"{C1_CSI}trudy",
                    f"zz{FORGED_ROW}", "carol\u202egnp", *FORMULAS]


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    """One `grade class` run over students with hostile names, then `grade export --csv`."""
    base = tmp_path_factory.mktemp("hostile")
    folder = base / "class"
    folder.mkdir()
    for student in HOSTILE_STUDENTS:
        copy_reference(folder / student)
    (folder / f"notes{OSC_TITLE}.txt").write_text("not a submission")
    book = base / "book.sqlite"
    code, out, err = run("class", folder, "--only", "params", "--jobs", "2", "--no-sandbox", "--no-counterexamples",
                         "--gradebook", book)
    assert code == 0, err
    csv_path = base / "grades.csv"
    export_code, export_out, export_err = run("export", "--csv", csv_path, "--gradebook", book)
    assert export_code == 0, export_err
    return {"out": out, "err": err, "feedback": base / "class.feedback", "csv": csv_path}


def test_class_listing_shows_names_escaped_one_row_each(hostile_class):
    out, err = hostile_class["out"], hostile_class["err"]
    assert raw_controls(out) == [] and raw_controls(err) == []
    rows = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(rows) == len(HOSTILE_STUDENTS)              # no row forged by a newline in a name
    assert all(line.rstrip().endswith("8/8") for line in rows)
    assert any("eve\\x1b]0;pwned\\x07" in line for line in rows)
    assert any(line.startswith("  zz\\n  alice") for line in rows)
    assert "notes\\x1b]0;pwned\\x07.txt" in err              # a skipped entry's name, on stderr


def test_csv_export_quotes_formulas_and_escapes_controls(hostile_class):
    with open(hostile_class["csv"], encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    graded = [row for row in rows[1:] if row[3] == "graded"]
    assert len(graded) == len(HOSTILE_STUDENTS)
    assert all(row[3].startswith("not graded: ") for row in rows[1:] if row not in graded)
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert all(raw_controls(c) == [] for c in cells)
    names = {row[0] for row in rows[1:]}
    assert {"'" + f for f in FORMULAS} <= names
    assert "eve\\x1b]0;pwned\\x07" in names and "zz\\n  alice                         8" in names
    assert all(row[1:3] == ["8", "8"] for row in graded)   # scores stay numbers


def test_every_student_gets_a_feedback_file_of_their_own(hostile_class):
    files = sorted(hostile_class["feedback"].glob("*.md"))
    assert len(files) == len(HOSTILE_STUDENTS)
    assert len({f.name.casefold() for f in files}) == len(files)   # distinct on a case-insensitive disk too
    assert (hostile_class["feedback"] / "alice.md").is_file()      # a plain name keeps its plain file
    assert not [f for f in files if f.name.startswith("-")]         # no file name reads as an option
    texts = [f.read_text(encoding="utf-8") for f in files]
    for text in texts:
        assert raw_controls(text) == []
    # each file is about its own student: the alice! file names alice!, the alice file does not
    assert sum("`alice!`" in t for t in texts) == 1 and sum("`alice`" in t for t in texts) == 1


def test_feedback_names_cannot_be_forged_by_another_student(tmp_path):
    from grader.classroom.feedback import FeedbackWriter

    writer = FeedbackWriter(tmp_path, "markdown", "en")
    victim = "alice!"
    writer.reserve([victim])
    forged = writer.path_for(victim).stem            # a student who names themselves after it...
    writer = FeedbackWriter(tmp_path / "run2", "markdown", "en")
    writer.reserve([victim, forged, "alice"])
    paths = {s: writer.path_for(s) for s in (victim, forged, "alice")}
    assert len(set(paths.values())) == 3               # ...gets a file of their own
    for student, path in paths.items():
        writer.save(student, f"feedback of {student}")
    assert {p.read_text() for p in paths.values()} == {f"feedback of {s}" for s in paths}


def test_html_feedback_title_is_escaped(tmp_path):
    from grader.classroom.feedback import FeedbackWriter

    from grader.report.results import SubmissionResult

    writer = FeedbackWriter(tmp_path, "html", "en")
    student = f"<b>{OSC_TITLE}"
    path = writer.save(student, writer.render(SubmissionResult(source="s", exercises=[]), student))
    page = path.read_text(encoding="utf-8")
    assert "&lt;b&gt;" in page and raw_controls(page) == []


def test_progress_bar_shows_names_as_data():
    from grader.classroom.progress import _Bar

    buffer = io.StringIO()
    bar = _Bar(Console(file=buffer, force_terminal=True, width=100))
    with bar:
        bar.start(2)
        bar.advance(f"[/]{OSC_TITLE}x")                  # rich markup would raise; OSC would retitle
        bar.progress.refresh()
    shown = buffer.getvalue()
    assert "pwned" in shown and OSC_TITLE not in shown


def test_class_json_escapes_invisible_characters_without_changing_names(tmp_path):
    folder = tmp_path / "class"
    names = [f"{C1_CSI}trudy", "carol\u202egnp", "line\u2028sep"]
    for name in names:
        copy_reference(folder / name)
    code, out, err = run("class", folder, "--only", "params", "--jobs", "1", "--no-sandbox", "--no-counterexamples",
                         "--gradebook", tmp_path / "book.sqlite", "--feedback", "none", "--format", "json")
    assert code == 0, err
    assert raw_controls(out) == []
    assert sorted(s["student"] for s in json.loads(out)["submissions"]) == sorted(names)


# ================================================================ breach 6: student text in `grade check`

HOSTILE_KEYS = """

def rnn_backward(X, W_x, W_h, b, dHs, h0=None):
    return {"\\x1b]0;pwned\\x07\\x9b2J\\u202e": 0}
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_student_text_in_messages_reaches_no_report_raw(tmp_path, fmt):
    folder = copy_reference(tmp_path / "sub")
    (folder / "bptt.py").write_text((folder / "bptt.py").read_text() + HOSTILE_KEYS)
    code, out, err = run("check", folder, "--only", "bptt", "--format", fmt, "--no-sandbox", "--no-counterexamples")
    assert code == 1, err
    assert "pwned" in out                                  # the dict key is named in the message...
    assert raw_controls(out.replace("\t", "")) == []       # ...as data (JUnit keeps tabs, JSON indents)


# ================================================================ breach 6: the one-line exit-2 message

def test_exit_2_message_escapes_a_missing_path(tmp_path):
    code, out, err = run("check", tmp_path / f"nope{OSC_TITLE}\n{C1_CSI}", "--no-sandbox")
    assert code == 2
    assert len(err.splitlines()) == 1 and raw_controls(err) == []
    assert "nope\\x1b]0;pwned\\x07" in err


def test_exit_2_message_escapes_names_inside_a_zip(tmp_path):
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"../{OSC_TITLE}evil\u202e.py", "x = 1\n")
    code, out, err = run("check", archive, "--no-sandbox")
    assert code == 2
    assert len(err.splitlines()) == 1 and raw_controls(err) == []
    assert "\\x1b]0;pwned\\x07evil\\u202e.py" in err


# ================================================================ breach 5: a grading process that dies

# `grade class` with its grading function wrapped: the job grading a student whose name
# starts with "mallory" kills its own process, as the OOM killer ends a grading process
# that exceeded memory. With a marker file, it dies only the first time (a passing fault).
POOL_KILLER = textwrap.dedent("""
    import os, signal, sys
    import grader.classroom.class_run as classroom
    from grader.cli import main

    real_grade_one = classroom._grade_one
    marker = os.environ.get("KILL_ONCE_MARKER")

    def grade_or_die(student, path, only, *rest):
        if student.startswith("mallory"):
            if marker is None or not os.path.exists(marker):
                if marker is not None:
                    open(marker, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
        return real_grade_one(student, path, only, *rest)

    classroom._grade_one = grade_or_die
    sys.exit(main(sys.argv[1:]))
""")

MALLORY = f"mallory{OSC_TITLE}"


def class_with_pool_killer(tmp_path, jobs: int, env=None):
    """Six students, the pool killer second in line (as in the issue: 0 of 6 graded)."""
    folder = tmp_path / "class"
    for name in ("alice", MALLORY, "nina", "oscar", "peggy", "trent"):
        copy_reference(folder / name)
    book = tmp_path / "book.sqlite"
    proc = subprocess.run([sys.executable, "-c", POOL_KILLER, "class", str(folder), "--only", "params", "--jobs",
                           str(jobs), "--no-sandbox", "--no-counterexamples", "--gradebook", str(book), "--format",
                           "json"], capture_output=True, cwd=ROOT, timeout=300, env={**os.environ, **(env or {})})
    out, err = proc.stdout.decode("utf-8", "surrogateescape"), proc.stderr.decode("utf-8", "surrogateescape")
    return proc.returncode, out, err


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_pool_killer_costs_only_its_own_submission(tmp_path, jobs):
    code, out, err = class_with_pool_killer(tmp_path, jobs)
    graded = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert graded == {name: 8 for name in ("alice", "nina", "oscar", "peggy", "trent")}
    assert code == 1, err                                  # not every student could be graded
    lines = [line for line in err.splitlines() if "mallory" in line]
    assert len(lines) == 1 and "not graded" in lines[0] and raw_controls(err) == []
    assert "mallory\\x1b]0;pwned\\x07" in lines[0]


def test_a_grading_process_that_dies_once_is_graded_on_retry(tmp_path):
    code, out, err = class_with_pool_killer(tmp_path, 2, env={"KILL_ONCE_MARKER": str(tmp_path / "killed")})
    assert (tmp_path / "killed").exists()                 # it did die once
    graded = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert graded == {name: 8 for name in ("alice", MALLORY, "nina", "oscar", "peggy", "trent")}
    assert code == 0, err
    assert "not graded" not in err


# ================================================================ breach 7: no time that includes hidden work

def timed_result() -> SubmissionResult:
    """A result whose exercise time (hidden checks' calls included) could encode a hidden input."""
    checks = [CheckResult("matches_reference", True, 3, 3, title={"en": "visible"}),
              CheckResult("random_shapes", False, 0, 2, title={"en": "hidden"}, hidden=True)]
    exercise = ExerciseResult(id="step", title={"en": "One RNN step"}, checks=checks, elapsed=4242.4242)
    return SubmissionResult(source="s", exercises=[exercise], isolation="bubblewrap", elapsed=7373.7373)


def test_no_report_carries_a_time_that_includes_hidden_checks():
    result = timed_result()
    for fmt in FORMATS:
        for lang in ("en", "zh"):
            report = render(result, fmt, lang)
            assert "4242" not in report and "7373" not in report, fmt
    junit = ET.fromstring(render(result, "junit", "en"))
    times = [element.get("time") for element in junit.iter() if element.get("time") is not None]
    assert times and all(float(t) == 0 for t in times)
    assert "execution_time" not in json.loads(render(result, "gradescope", "en"))
