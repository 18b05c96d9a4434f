"""``grade class``'s own text output (issue 35): each student's line shows the graded score and,
where a late policy or an adjustment by hand applies, the final score beside it; a class with
neither prints the lines as before."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import ROOT, run_grade as run
from grader.sandbox.isolation import bwrap_path

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

STATS = ROOT / "tests" / "courses" / "stats"
DEADLINE = "2026-12-10T23:59:00+08:00"


def student_lines(out: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^  (\S+)\s+(\S.*)$", out, re.M)}


def test_the_final_score_beside_the_graded_one(tmp_path):
    cls = tmp_path / "class"
    for name in ("late", "ontime"):
        shutil.copytree(STATS / "solutions" / "reference", cls / name)
    shutil.copytree(STATS / "exercises" / "stubs", cls / "stub")
    (cls / "late" / "timestamp.txt").write_text("2026-12-11T10:00:00Z\n")         # 1 day late
    (cls / "ontime" / "timestamp.txt").write_text("2026-12-10T15:59:00Z\n")       # exactly the deadline
    book = tmp_path / "book.sqlite"

    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples")
    assert code == 0, err
    plain = student_lines(out)
    assert set(plain) == {"late", "ontime", "stub"} and "Final score" not in out      # no policy: as before
    top = plain["late"].split("/")[1]

    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                         "--deadline", DEADLINE, "--late", "10%/day, max 3 days")
    assert code == 0, err
    lines = student_lines(out)
    assert lines["late"] == f"{top}/{top}  Final score: {float(top) * 0.9:g} / {top}", lines
    assert lines["ontime"] == f"{top}/{top}  Final score: {top} / {top}"
    assert lines["stub"].endswith(f"Final score: 0 / {top}")         # no hand-in time: graded score, no penalty

    code, _, err = run("adjust", "stub", "quiz", "--points", "+2", "--reason", "right idea", "--gradebook", book)
    assert code == 0, err
    code, out, err = run("class", cls, "--course", STATS, "--gradebook", book, "--no-counterexamples",
                         "--late", "none", "--lang", "zh")
    assert code == 0, err
    lines = student_lines(out)
    # no policy now: only the adjusted student has a final score, in the run's language
    assert lines["stub"].endswith(f"最终成绩：2 / {top}") and "最终成绩" not in lines["late"] + lines["ontime"], lines
