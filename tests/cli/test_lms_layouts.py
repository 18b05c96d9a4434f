"""`grade class DIR_OR_ZIP` on the downloads of Canvas, Moodle, Gradescope, GitHub Classroom and nbgrader
(issue 42): a small synthetic download of each, with three students (one on time, one late, one who
uploaded twice more and hands in a notebook), names with spaces, accents and hyphens, and a stray file.
Each layout's download of the reference is graded in full: every student 193/193, graded once."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from conftest import REFERENCE, STUBS, notebook_from_source, run_grade as run, single_file_source, zip_folder
from grader.classroom.lms_layouts import canvas_match, group, parse_time, restored_name
from grader.sandbox.isolation import bwrap_path

needs_sandbox = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

REFERENCE_FILES = sorted(p for p in REFERENCE.iterdir() if p.suffix in (".py", ".yaml"))
STEP_POINTS = None     # the step exercise's points, read from `grade list` once


def step_points() -> int:
    global STEP_POINTS
    if STEP_POINTS is None:
        code, out, _ = run("list")
        assert code == 0
        STEP_POINTS = int(next(line.split()[2] for line in out.splitlines() if line.startswith("step ")))
    return STEP_POINTS


def notebooks(tmp: Path) -> tuple[Path, Path]:
    """(the reference as one notebook, a notebook that defines nothing of the course)."""
    good = notebook_from_source(single_file_source(), tmp / "good.ipynb")
    bad = notebook_from_source("def unrelated():\n    return 1\n", tmp / "bad.ipynb")
    return good, bad


def zip_tree(folder: Path, path: Path, times: dict | None = None) -> Path:
    """``folder`` zipped; ``times``: entry name -> (y, m, d, H, M, S) for the entries that have one."""
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                name = file.relative_to(folder).as_posix()
                info = zipfile.ZipInfo(name, (times or {}).get(name, (2026, 1, 1, 0, 0, 0)))
                zf.writestr(info, file.read_bytes())
    return path


def book_rows(book: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(book) as db:
        return db.execute(sql).fetchall()


def latest_scores(book: Path) -> dict[str, tuple]:
    return {s: (score, top) for s, score, top in book_rows(
        book, "SELECT a.student, a.score, a.max_score FROM attempts a JOIN (SELECT student, MAX(id) id FROM attempts"
              " GROUP BY student) l ON a.id = l.id")}


def submissions(book: Path) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in book_rows(
        book, "SELECT student, name, layout, submitted_at, time_source, late FROM submissions ORDER BY rowid")}


def read_csv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


# ---------------------------------------------------------------- the downloads

def canvas_download(tmp: Path, collide: bool = False) -> Path:
    """Canvas's "Download Submissions": loose files, name[_LATE]_userid_attachmentid_original."""
    folder = tmp / "canvas"
    folder.mkdir()
    good, bad = notebooks(tmp)
    for file in REFERENCE_FILES:     # "José Müller" on time, "Anne-Marie O'Neil" late
        shutil.copyfile(file, folder / f"müllerjosé_1001_5001_{file.name}")
        shutil.copyfile(file, folder / f"oneilannemarie_LATE_1002_5002_{file.name}")
    # "Zhang Wei" uploaded the notebook three times: Canvas named the later ones -1, -2
    shutil.copyfile(bad, folder / "zhangwei_1003_5003_homework.ipynb")
    shutil.copyfile(bad, folder / "zhangwei_1003_5010_homework-1.ipynb")
    shutil.copyfile(good, folder / "zhangwei_1003_5020_homework-2.ipynb")
    if collide:   # another "John Smith": the same name in Canvas's file names, another user id
        shutil.copyfile(REFERENCE / "rnn_step.py", folder / "smithjohn_1004_5030_rnn_step.py")
        shutil.copyfile(REFERENCE / "rnn_step.py", folder / "smithjohn_1005_5031_rnn_step.py")
    (folder / "readme.txt").write_text("a stray file\n")
    return folder


MOODLE_TIMES = {"José Müller": (2026, 3, 1, 10, 0, 0), "Anne-Marie O'Neil": (2026, 3, 3, 9, 30, 0),
                "Zhang Wei": (2026, 3, 1, 23, 58, 42)}


def moodle_download(tmp: Path) -> Path:
    """Moodle's "Download all submissions" zip, a folder per student (Moodle 3.1 and later)."""
    folder = tmp / "moodle-unpacked"
    good, _ = notebooks(tmp)
    times = {}
    for name, uid in (("José Müller", 211), ("Anne-Marie O'Neil", 212)):
        student = folder / f"{name}_{uid}_assignsubmission_file_"
        student.mkdir(parents=True)
        for file in REFERENCE_FILES:
            shutil.copyfile(file, student / file.name)
            times[f"{student.name}/{file.name}"] = MOODLE_TIMES[name]
    # Zhang Wei's notebook, in the flat variant's naming
    shutil.copyfile(good, folder / "Zhang Wei_213_assignsubmission_file_homework.ipynb")
    times["Zhang Wei_213_assignsubmission_file_homework.ipynb"] = MOODLE_TIMES["Zhang Wei"]
    (folder / "readme.txt").write_text("a stray file\n")
    return zip_tree(folder, tmp / "moodle.zip", times)


GRADESCOPE_METADATA = """\
submission_9001:
  :submitters:
  - :name: José Müller
    :sid: '1001'
    :email: jose@example.edu
  :created_at: 2026-03-01 10:00:00.123456000 -08:00
  :score: !ruby/object:BigDecimal 18:0.193e3
  :status: processed
  :history: []
submission_9002:
  :submitters:
  - :name: Anne-Marie O'Neil
    :sid: '1002'
    :email: anne-marie@example.edu
  :created_at: 2026-03-03 09:30:00.000000000 -08:00
  :score: !ruby/object:BigDecimal 18:0.0
  :status: processed
submission_9003:
  :submitters:
  - :name: Zhang Wei
    :sid: '1003'
    :email: zhang@example.edu
  - :name: Lê Văn-Thành
    :sid: '1004'
    :email: le@example.edu
  :created_at: 2026-03-01 23:58:42.000000000 -08:00
  :history:
  - :id: 8001
    :created_at: 2026-02-27 12:00:00.000000000 -08:00
  - :id: 8002
    :created_at: 2026-02-28 12:00:00.000000000 -08:00
"""


def gradescope_download(tmp: Path) -> Path:
    """Gradescope's "Export Submissions": submission_metadata.yml and a folder per submission
    (9003 is a group submission of two students, submitted three times: only the last is exported)."""
    root = tmp / "gradescope" / "assignment_777_export"
    root.mkdir(parents=True)
    good, _ = notebooks(tmp)
    (root / "submission_metadata.yml").write_text(GRADESCOPE_METADATA, encoding="utf-8")
    for sub in ("9001", "9002"):
        (root / f"submission_{sub}").mkdir()
        for file in REFERENCE_FILES:
            shutil.copyfile(file, root / f"submission_{sub}" / file.name)
    (root / "submission_9003").mkdir()
    shutil.copyfile(good, root / "submission_9003" / "homework.ipynb")
    (root / "submission_9999").mkdir()          # a folder the metadata does not name
    (root / "submission_9999" / "stray.py").write_text("x = 1\n")
    return tmp / "gradescope"


def classroom_download(tmp: Path) -> Path:
    """GitHub Classroom: one repository per student, assignment-username."""
    root = tmp / "classroom"
    good, _ = notebooks(tmp)
    for user in ("jose-muller", "anne-marie"):
        repo = root / f"rnn-homework-{user}"
        repo.mkdir(parents=True)
        for file in REFERENCE_FILES:
            shutil.copyfile(file, repo / file.name)
        (repo / ".git").mkdir()
        (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    repo = root / "rnn-homework-zhangwei"
    repo.mkdir()
    shutil.copyfile(good, repo / "homework.ipynb")
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "roster.txt").write_text("a stray file\n")
    return root


def nbgrader_download(tmp: Path) -> Path:
    """nbgrader's course folder: submitted/<student>/<assignment>/ with timestamp.txt."""
    root = tmp / "course"
    good, _ = notebooks(tmp)
    stamps = {"jose-müller": "2026-03-01 10:00:00.123456 UTC", "anne-marie": "2026-03-03 09:30:00 UTC",
              "zhang wei": "2026-03-01T23:58:42+00:00"}
    for student, stamp in stamps.items():
        folder = root / "submitted" / student / "ps1"
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text(stamp + "\n")
        if student == "zhang wei":
            shutil.copyfile(good, folder / "homework.ipynb")
        else:
            for file in REFERENCE_FILES:
                shutil.copyfile(file, folder / file.name)
    (root / "submitted" / "readme.txt").write_text("a stray file\n")
    return root


REGEX = r"ps1_(?P<student>[^_]+)_attempt_(?P<time>[0-9T:-]+)_(?P<file>.+)"


def regex_download(tmp: Path) -> Path:
    """Anything else: nbgrader zip_collect's own example naming, ps1_<student>_attempt_<time>_<file>."""
    root = tmp / "regex"
    root.mkdir()
    good, bad = notebooks(tmp)
    for file in REFERENCE_FILES:
        shutil.copyfile(file, root / f"ps1_José Müller_attempt_2026-03-01T10:00:00_{file.name}")
        shutil.copyfile(file, root / f"ps1_Anne-Marie_attempt_2026-03-03T09:30:00_{file.name}")
    shutil.copyfile(bad, root / "ps1_zhang_attempt_2026-02-27T12:00:00_homework.ipynb")
    shutil.copyfile(good, root / "ps1_zhang_attempt_2026-03-01T23:58:42_homework.ipynb")
    shutil.copyfile(bad, root / "ps1_zhang_attempt_2026-02-28T12:00:00_homework.ipynb")
    (root / "readme.txt").write_text("a stray file\n")
    return root


# ---------------------------------------------------------------- grouping, without grading

def test_canvas_names_are_read_as_canvas_writes_them():
    assert canvas_match("müllerjosé_1001_5001_rnn_step.py") == {
        "name": "müllerjosé", "late": None, "uid": "1001", "att": "5001", "file": "rnn_step.py"}
    found = canvas_match("oneilannemarie_LATE_1002_5002_2_notes_v1.py")
    assert (found["name"], found["late"], found["uid"], found["file"]) == ("oneilannemarie", "LATE", "1002",
                                                                          "2_notes_v1.py")
    anonymous = canvas_match("LATE_anon_Ab3x9_5002_rnn_step.py")
    assert (anonymous["late"], anonymous["uid"], anonymous["file"]) == ("LATE", "anon_Ab3x9", "rnn_step.py")
    assert canvas_match("smithjohn_1003_text.html")["uid"] == "1003"
    assert canvas_match("smithjohn_1003_5001_text.html")["uid"] == "1003"       # an upload named text.html
    assert canvas_match("readme.txt") is None and canvas_match("rnn_step.py") is None
    assert restored_name("rnn_step-2.py") == ("rnn_step.py", 2)
    assert restored_name("data-1.tar.gz") == ("data.tar.gz", 1)
    assert restored_name("rnn_step.py") == ("rnn_step.py", 0)
    assert restored_name("model-0.py") == ("model-0.py", 0)      # Canvas starts at -1


def test_times_parse_with_their_zone_or_not_at_all():
    assert parse_time("2026-03-01 10:00:00.123456789 UTC") == "2026-03-01T10:00:00.123456+00:00"
    assert parse_time("2026-03-01 10:00:00 -08:00") == "2026-03-01T10:00:00-08:00"
    assert parse_time("2026-03-01T10:00") == "2026-03-01T10:00:00"
    assert parse_time("yesterday") is None and parse_time("") is None


def test_canvas_dry_run_groups_and_lists_every_file(tmp_path):
    folder = canvas_download(tmp_path, collide=True)
    code, out, err = run("class", folder, "--dry-run")
    assert code == 0, err
    assert out.startswith("layout: canvas (5 students, 1 unmatched files)")
    assert "1001 (müllerjosé): 10 files, on time (no time given)" in out
    assert "1002 (oneilannemarie): 10 files, LATE" in out
    assert "1003 (zhangwei): 1 file" in out and "    homework.ipynb\n" in out
    # two students with the same name stay two
    assert "1004 (smithjohn): 1 file" in out and "1005 (smithjohn): 1 file" in out
    assert "unmatched: readme.txt" in out
    assert "carry no submission time" in out
    assert not (tmp_path / "canvas.gradebook.sqlite").exists()       # nothing graded, nothing written


def test_layout_override_and_bad_layouts(tmp_path):
    folder = canvas_download(tmp_path)
    code, out, _ = run("class", folder, "--dry-run", "--layout", "folders")
    # as before issue 42: every .py and .ipynb a student (what the issue saw), answers.yaml skipped
    assert code == 0 and out.startswith("layout: folders (21 students, 3 unmatched files)")
    assert "unmatched: readme.txt: not a folder, .py, .ipynb or .zip" in out
    code, out, err = run("class", folder, "--dry-run", "--layout", "blackboard")
    assert code == 2 and "--layout 'blackboard'" in err and "Traceback" not in err
    code, out, err = run("class", folder, "--dry-run", "--layout", "regex:(?P<student>\\d+)_(")
    assert code == 2 and "not a regular expression" in err and "Traceback" not in err
    code, out, err = run("class", folder, "--dry-run", "--layout", "regex:(?P<student>\\d+)")
    assert code == 2 and "(?P<file>...)" in err
    code, out, err = run("class", tmp_path / "missing.zip", "--dry-run")
    assert code == 2 and "no such folder or .zip" in err


def test_plain_folders_are_grouped_as_always(tmp_path):
    cls = tmp_path / "class"
    (cls / "alice").mkdir(parents=True)
    shutil.copyfile(REFERENCE / "rnn_step.py", cls / "alice" / "rnn_step.py")
    (cls / "alice" / "timestamp.txt").write_text("2026-03-01 10:00:00 UTC\n")
    (cls / "hw-bob").mkdir()
    (cls / "dave.py").write_text("x = 1\n")
    (cls / "notes.txt").write_text("not a submission")
    grouping = group(cls)
    assert grouping.layout == "folders"
    assert [(s.id, s.folder) for s in grouping.students] == [("alice", cls / "alice"), ("dave", cls / "dave.py"),
                                                            ("hw-bob", cls / "hw-bob")]
    assert grouping.students[0].time.at == "2026-03-01T10:00:00+00:00"
    assert grouping.students[0].time.precision == "seconds"
    assert [s.file_count() for s in grouping.students] == [2, 1, 0]       # timestamp.txt counts
    assert grouping.unmatched == [("notes.txt", "not a folder, .py, .ipynb or .zip")]


def test_moodle_flat_variant_and_grading_worksheet_times(tmp_path):
    folder = tmp_path / "moodle"
    folder.mkdir()
    for name, uid in (("José Müller", 11), ("José Müller", 12)):       # same name, two participants
        shutil.copyfile(REFERENCE / "rnn_step.py", folder / f"{name}_{uid}_assignsubmission_file_rnn_step.py")
    (folder / "Grades-RNN-123.csv").write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
        "Last modified (submission),Last modified (grade),Feedback comments\n"
        "Participant 11,José Müller,j@x,Submitted,,193,Yes,\"Sunday, 1 March 2026, 10:05 AM\",-,\n"
        "Participant 12,José Müller,k@x,Submitted,,193,Yes,-,-,\n", encoding="utf-8")
    grouping = group(folder)
    assert grouping.layout == "moodle" and [s.id for s in grouping.students] == ["11", "12"]
    assert grouping.students[0].files == {"rnn_step.py": folder / "José Müller_11_assignsubmission_file_rnn_step.py"}
    assert grouping.students[0].time.at == "2026-03-01T10:05:00"
    assert grouping.students[0].time.source == "Moodle grading worksheet"
    assert grouping.students[1].time is None and grouping.unmatched == []


def test_an_unreadable_timestamp_is_said_not_guessed(tmp_path):
    folder = tmp_path / "course" / "submitted" / "ann" / "ps1"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("last tuesday\n")
    grouping = group(tmp_path / "course")
    assert grouping.layout == "nbgrader" and grouping.students[0].time is None
    assert grouping.students[0].notes[0].render("en") == \
        "Note: timestamp.txt is not a time (last tuesday): no submission time was read"


def test_a_zip_that_escapes_is_bad_input_not_a_traceback(tmp_path):
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../../outside.py", "x = 1\n")
        zf.writestr("smithjohn_1_2_rnn_step.py", "x = 1\n")
    code, out, err = run("class", path, "--dry-run")
    assert code == 0, err
    assert "1 (smithjohn): 1 file" in out and not (tmp_path.parent / "outside.py").exists()
    assert "unmatched: ../../outside.py: not unpacked: zip entry ../../outside.py points outside" in out


def test_file_names_that_would_leave_the_staging_folder_are_listed_not_staged(tmp_path):
    from grader.classroom.lms_download import Download

    folder = tmp_path / "regex"
    folder.mkdir()
    (folder / "ann__..").write_text("x = 1\n")
    (folder / "ann__rnn_step.py").write_text((REFERENCE / "rnn_step.py").read_text())
    download = Download(folder, tmp_path / "work")
    grouping = download.group("regex:(?P<student>[a-z]+)__(?P<file>.+)")
    assert grouping.unmatched == [("ann__..", "the pattern's file group leaves no usable file name")]
    staged = download.stage(grouping.students[0], 0, grouping.layout)
    assert staged == tmp_path / "work" / "staged" / "0" / "rnn_step.py"
    assert sorted(p.name for p in (tmp_path / "work").rglob("*") if p.is_file()) == ["rnn_step.py"]

    canvas = tmp_path / "canvas"
    canvas.mkdir()
    (canvas / "smithjohn_1_2_..").write_text("x = 1\n")
    (canvas / "smithjohn_1_3_rnn_step.py").write_text("x = 1\n")
    grouping = Download(canvas, tmp_path / "work2").group("auto")
    assert grouping.layout == "canvas" and list(grouping.students[0].files) == ["rnn_step.py"]
    assert grouping.unmatched == [("smithjohn_1_2_..", "not a usable file name ('..')")]


# ---------------------------------------------------------------- graded

@needs_sandbox
def test_canvas_zip_with_no_flags_gives_every_student_full_marks(tmp_path):
    """The issue's "done when": a Canvas download of the reference for three students, graded
    with `grade class` and no flags, gives three students at 193/193, the grouping printed."""
    download = zip_tree(canvas_download(tmp_path), tmp_path / "submissions.zip")
    shutil.rmtree(tmp_path / "canvas")
    code, out, err = run("class", download)
    assert code == 0, err
    assert err.startswith("layout: canvas (3 students, 1 unmatched files)")
    assert "grade: skipped readme.txt" in err
    book = tmp_path / "submissions.gradebook.sqlite"
    assert latest_scores(book) == {"1001": (193, 193), "1002": (193, 193), "1003": (193, 193)}
    assert len(book_rows(book, "SELECT id FROM attempts")) == 3          # each graded once
    info = submissions(book)
    assert info["1001"] == ("müllerjosé", "canvas", None, "Canvas LATE marker", 0)
    assert info["1002"] == ("oneilannemarie", "canvas", None, "Canvas LATE marker", 1)
    feedback = (tmp_path / "submissions.feedback" / "1003.md").read_text()
    assert "homework.ipynb: the latest of 3 uploads is graded (homework-2.ipynb" in feedback

    export = tmp_path / "canvas.csv"
    code, out, err = run("export", "--csv", export, "--gradebook", book, "--lms", "canvas",
                         "--assignment", "RNN homework (4711)")
    assert code == 0 and err == ""
    assert read_csv(export) == [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "RNN homework (4711)"],
                                ["    Points Possible", "", "", "", "", "193"],
                                ["müllerjosé", "1001", "", "", "", "193"],
                                ["oneilannemarie", "1002", "", "", "", "193"],
                                ["zhangwei", "1003", "", "", "", "193"]]
    plain = tmp_path / "plain.csv"
    assert run("export", "--csv", plain, "--gradebook", book)[0] == 0
    rows = {r[0]: r for r in read_csv(plain)}
    assert rows["student"][:7] == ["student", "total", "max", "status", "name", "submitted_at", "time_source"]
    assert rows["1002"][4:7] == ["oneilannemarie", "LATE", "Canvas LATE marker"]
    assert rows["1001"][5] == "not late"

    # a rerun of the same download grades nothing again (unless the grader's own files changed meanwhile:
    # the course fingerprint covers them, and engineers edit them while this suite runs)
    code, out, err = run("class", download)
    fingerprints = {course for (course,) in book_rows(book, "SELECT course FROM runs")}
    assert code == 0 and ("0 graded now, 3 unchanged" in out if len(fingerprints) == 1 else "3 graded now" in out)


@needs_sandbox
def test_moodle_zip_graded_with_its_participant_ids_and_zip_times(tmp_path):
    download = moodle_download(tmp_path)
    code, out, err = run("class", download, "--format", "json", "--no-counterexamples")
    assert code == 0, err
    assert err.startswith("layout: moodle (3 students, 1 unmatched files)")
    assert "211 (José Müller): 10 files, submitted 2026-03-01T10:00:00" in err
    graded = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert graded == {"211": 193, "212": 193, "213": 193}
    book = tmp_path / "moodle.gradebook.sqlite"
    info = submissions(book)
    assert info["212"][:4] == ("Anne-Marie O'Neil", "moodle", "2026-03-03T09:30:00",
                               "zip entry times of Moodle's download")
    assert info["213"][2] == "2026-03-01T23:58:42"

    export = tmp_path / "moodle.csv"
    assert run("export", "--csv", export, "--gradebook", book, "--lms", "moodle")[0] == 0
    assert not export.read_bytes().startswith(b"\xef\xbb\xbf")     # the Identifier header is the first bytes
    rows = read_csv(export)
    assert rows[0] == ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                       "Last modified (submission)", "Last modified (grade)"]
    assert rows[2] == ["Participant 212", "Anne-Marie O'Neil", "", "Graded", "193", "193", "2026-03-03T09:30:00", "-"]


@needs_sandbox
def test_gradescope_export_with_a_group_submission_graded_once(tmp_path):
    download = gradescope_download(tmp_path)
    code, out, err = run("class", download, "--format", "json", "--no-counterexamples")
    assert code == 0, err
    assert err.startswith("layout: gradescope (3 students, 1 unmatched files)")
    assert "1003 (Zhang Wei) with 1004 (Lê Văn-Thành): 1 file" in err
    assert "unmatched: submission_9999/stray.py" in err
    graded = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert graded == {key: 193 for key in ("1001", "1002", "1003", "1004")}
    book = tmp_path / "gradescope.gradebook.sqlite"
    rows = book_rows(book, "SELECT student, seconds, content FROM attempts ORDER BY student")
    assert [r[0] for r in rows] == ["1001", "1002", "1003", "1004"]
    assert rows[2][1:] == rows[3][1:]           # one grading, recorded for both members of the group
    info = submissions(book)
    assert info["1001"][2] == "2026-03-01T10:00:00.123456-08:00"
    assert info["1004"][:4] == ("Lê Văn-Thành", "gradescope", "2026-03-01T23:58:42-08:00",
                                "Gradescope submission_metadata.yml")

    export = tmp_path / "gradescope.csv"
    assert run("export", "--csv", export, "--gradebook", book, "--lms", "gradescope")[0] == 0
    rows = read_csv(export)
    assert rows[0] == ["Name", "SID", "Email", "Total Score", "Max Points", "Status", "Submission ID",
                       "Submission Time"]
    assert rows[4] == ["Lê Văn-Thành", "1004", "le@example.edu", "193", "193", "Graded", "9003",
                       "2026-03-01T23:58:42-08:00"]
    # a gradebook of another LMS: said, not hidden
    code, out, err = run("export", "--csv", export, "--gradebook", book, "--lms", "canvas")
    assert code == 0 and "4 students were not read from a canvas download" in err


@needs_sandbox
def test_classroom_nbgrader_and_regex_downloads(tmp_path):
    for make, layout, ids, args in (
            (classroom_download, "classroom", ("anne-marie", "jose-muller", "zhangwei"), ()),
            (nbgrader_download, "nbgrader", ("anne-marie", "jose-müller", "zhang wei"), ()),
            (regex_download, "regex", ("Anne-Marie", "José Müller", "zhang"), ("--layout", "regex:" + REGEX))):
        download = make(tmp_path)
        code, out, err = run("class", download, "--format", "json", "--no-counterexamples", *args)
        assert code == 0, err
        assert err.startswith(f"layout: {layout} (3 students, 1 unmatched files)"), err
        graded = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
        assert graded == {key: 193 for key in ids}, layout
        info = submissions(download.parent / f"{download.name}.gradebook.sqlite")
        if layout == "nbgrader":
            assert info["jose-müller"][2:4] == ("2026-03-01T10:00:00.123456+00:00", "nbgrader timestamp.txt")
            assert info["anne-marie"][2] == "2026-03-03T09:30:00+00:00"
        if layout == "regex":
            assert info["zhang"][2:4] == ("2026-03-01T23:58:42", "the pattern's time group")
            feedback = (download.parent / "regex.feedback" / "zhang.md").read_text()
            assert "the latest of 3 uploads is graded" in feedback
        if layout == "classroom":
            assert info["zhangwei"][2] is None


@needs_sandbox
def test_the_latest_canvas_upload_is_the_one_graded(tmp_path):
    """Without the rule, the first upload (a stub) would be graded, or all three collide."""
    folder = tmp_path / "canvas"
    folder.mkdir()
    shutil.copyfile(STUBS / "rnn_step.py", folder / "smithjohn_7_100_rnn_step.py")
    shutil.copyfile(REFERENCE / "rnn_step.py", folder / "smithjohn_7_300_rnn_step-2.py")
    shutil.copyfile(STUBS / "rnn_step.py", folder / "smithjohn_7_200_rnn_step-1.py")
    # a name that is not UTF-8 (a folder unpacked by an old tool), and a link that leads out
    with open(bytes(folder) + b"/caf\xe9_8_400_rnn_step.py", "wb") as fh:
        fh.write((REFERENCE / "rnn_step.py").read_bytes())
    (folder / "evil_9_500_rnn_step.py").symlink_to(REFERENCE / "rnn_step.py")
    # a student who handed in one zip: graded as that zip, as a plain folder's .zip entry is
    zip_folder(REFERENCE, folder / "lee_10_600_my homework.zip", prefix="hw/")
    code, out, err = run("class", folder, "--only", "step", "--format", "json", "--no-counterexamples")
    assert code == 0, err
    assert [(s["student"], s["score"]) for s in json.loads(out)["submissions"]] == [
        ("10", step_points()), ("7", step_points()), ("8", step_points())]
    assert "10 (lee): 1 file" in err and "    my homework.zip\n" in err
    assert "unmatched: evil_9_500_rnn_step.py: a symbolic link" in err
    assert "8 (caf\\xe9): 1 file" in err
    assert submissions(tmp_path / "canvas.gradebook.sqlite")["8"][0] == "caf\\xe9"


@needs_sandbox
def test_on_a_dask_cluster_the_layout_notes_reach_the_feedback_too(tmp_path):
    distributed = pytest.importorskip("distributed")
    from helpers.dask_cluster import DaskProcesses

    assert distributed
    folder = tmp_path / "canvas"
    folder.mkdir()
    good, bad = notebooks(tmp_path)
    shutil.copyfile(bad, folder / "zhangwei_1003_5003_homework.ipynb")
    shutil.copyfile(good, folder / "zhangwei_1003_5020_homework-1.ipynb")
    env = {**__import__("os").environ, "GRADER_SECRET": "a-cluster-test-secret-0123456789abcdef"}
    procs = DaskProcesses(tmp_path, 1, env)
    try:
        code, out, err = run("class", folder, "--only", "step", "--scheduler", procs.address, "--format", "json",
                             "--no-counterexamples", env=env)
    finally:
        procs.stop()
    assert code == 0, err
    assert [(s["student"], s["score"]) for s in json.loads(out)["submissions"]] == [("1003", step_points())]
    feedback = (tmp_path / "canvas.feedback" / "1003.md").read_text()
    assert "homework.ipynb: the latest of 2 uploads is graded (homework-1.ipynb" in feedback
    stored = json.loads(book_rows(tmp_path / "canvas.gradebook.sqlite", "SELECT result FROM attempts")[0][0])
    assert stored["notes"][0]["params"]["text"]["message"]["key"] == "note.lms_resubmitted"


def test_a_gradebook_from_before_the_submissions_table_opens_as_it_is(tmp_path):
    from grader.classroom.export import write_csv, write_lms_csv
    from grader.classroom.gradebook import Gradebook, PreparedAttempt

    path = tmp_path / "old.sqlite"
    with Gradebook(path) as book:
        run_id = book.start_run("class", "course")
        book.record_prepared(run_id, "alice", "content", PreparedAttempt(
            score=5, max_score=10, isolation="process", seconds=0.1, result="", checks=[], diagnoses=[]))
    with sqlite3.connect(path) as db:         # as a gradebook of schema version 1 was
        db.execute("DROP TABLE submissions")
        db.execute("PRAGMA user_version = 0")
    with Gradebook(path) as book:
        assert book.submissions() == {}
        assert book.db.execute("PRAGMA user_version").fetchone()[0] >= 2
        write_csv(book, tmp_path / "plain.csv")
        assert write_lms_csv(book, tmp_path / "canvas.csv", "canvas")[1] == ["alice"]     # said: not from Canvas
    rows = {r[0]: r for r in read_csv(tmp_path / "plain.csv")}
    assert rows["student"][4:7] == ["name", "submitted_at", "time_source"]
    assert rows["alice"][1:3] == ["5", "10"] and rows["alice"][4:7] == ["", "", ""]
    assert read_csv(tmp_path / "canvas.csv")[2] == ["alice", "alice", "", "", "", "5"]
