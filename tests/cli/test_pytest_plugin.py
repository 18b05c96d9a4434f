"""The pytest plugin (grader/kit/pytest_plugin.py): `pytest` in a student kit runs the grader's checks.

Runs in a subprocess where grading happens (the grader forks workers); collection-only
runs are in process.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.kit.pytest_plugin import HIDDEN_ITEM, _state
from grader.kit.release import write_kit

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "reference"
STUBS = ROOT / "exercises" / "stubs"
FINISHED = ("rnn_step.py", "param_count.py")   # the half-finished submission: these two, the rest stubs


def half_finished_kit(course, folder: Path) -> Path:
    write_kit(course, folder)
    for name in FINISHED:
        shutil.copyfile(REFERENCE / name, folder / name)
    return folder


def grade_check_json(folder: Path, *only: str) -> dict:
    args = [a for exercise in only for a in ("--only", exercise)]
    run = subprocess.run([sys.executable, "-m", "grader", "check", str(folder), "--format", "json", "--lang", "en",
                          *args], capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def expected_items(report: dict) -> dict[str, bool]:
    """node id -> passed, as the plugin should report the checks `grade check` graded."""
    items = {}
    for exercise in report["exercises"]:
        hidden = [c for c in exercise["checks"] if c["name"] in exercise["_hidden"]]
        for check in exercise["checks"]:
            if check["name"] not in exercise["_hidden"]:
                items[f"pytest.ini::{exercise['id']}::{check['name']}"] = check["passed"]
        if hidden:
            items[f"pytest.ini::{exercise['id']}::{HIDDEN_ITEM}"] = all(c["passed"] for c in hidden)
    return items


def with_hidden_flags(report: dict, course) -> dict:
    for exercise in report["exercises"]:
        exercise["_hidden"] = {c.id for c in course.exercises[exercise["id"]].checks if c.hidden}
    return report


def outcomes(lines: list[str]) -> dict[str, bool]:
    """node id -> passed, from the short test summary of a `-rA` run."""
    found = {}
    for line in lines:
        m = re.match(r"(PASSED|FAILED) (\S+)", line)
        if m:
            found[m.group(2)] = m.group(1) == "PASSED"
    return found


def section(lines: list[str], title: str) -> str:
    """The failure report under pytest's `____ title ____` header."""
    start = next(i for i, line in enumerate(lines) if re.fullmatch(rf"_+ {re.escape(title)} _+", line))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^(_{3,} |={3,})", lines[i])), len(lines))
    return "\n".join(lines[start + 1:end])


def test_kit_items_agree_with_grade_check(pytester, course):
    kit = half_finished_kit(course, pytester.path)
    assert "rnn_grader = true" in (kit / "pytest.ini").read_text()

    result = pytester.runpytest_subprocess("-q", "-rA", "--lang", "en", "--junitxml", "junit.xml", timeout=300)
    report = with_hidden_flags(grade_check_json(kit), course)
    lines = result.outlines
    want = expected_items(report)

    # one item per visible check, one per exercise for its hidden checks; the same verdicts as grade check
    got = outcomes(lines)
    assert got == want
    assert any(want.values()) and not all(want.values())
    result.assert_outcomes(passed=sum(want.values()), failed=sum(not v for v in want.values()))
    assert result.ret == 1
    for exercise in course.exercises.values():
        assert not [c.id for c in exercise.checks if c.hidden and f"::{exercise.id}::{c.id}" in result.stdout.str()]

    # the points: per exercise and in total, as grade check counts them
    assert f"score: {report['score']:g}/{report['max_score']:g}" in lines
    for exercise in report["exercises"]:
        assert any(re.match(rf"\s+{exercise['id']}\s+{exercise['score']:g}/{exercise['max_score']:g}\s", line)
                   for line in lines), exercise["id"]
    assert report["score"] == 27 and report["max_score"] == 193   # step + scalar + params, by hand
    assert "Isolation: " in result.stdout.str()

    # a failing visible item reports the grader's message (a stub's: no hint guesses under it, issue 39);
    # a hidden item only counts
    forward = section(lines, "forward::matches_reference")
    assert "`rnn_forward` is not implemented yet" in forward and "Hint: " not in forward
    hidden = section(lines, f"forward::{HIDDEN_ITEM}")
    assert hidden.startswith("4 of 4 hidden checks failed") and "not implemented" not in hidden

    # --junitxml: parses, one testcase per item, failures where the grader failed a check
    suite = ET.parse(kit / "junit.xml").getroot()
    cases = {f"{c.get('classname')}.{c.get('name')}": c.find("failure") is None for c in suite.iter("testcase")}
    assert cases == {nodeid.replace("::", "."): passed for nodeid, passed in want.items()}

    # -k params: only the items named params (the params exercise and the quiz's params_* questions),
    # and only their exercises are graded
    result = pytester.runpytest_subprocess("-q", "-rA", "--lang", "en", "-k", "params", timeout=300)
    got = outcomes(result.outlines)
    assert got and all("params" in nodeid for nodeid in got)
    assert {n for n in want if "params" in n} == set(got)
    assert {n.split("::")[1] for n in got} == {"params", "quiz"}
    assert all(got[n] == want[n] for n in got)
    graded = {e["id"]: e for e in report["exercises"] if e["id"] in ("params", "quiz")}
    total = sum(e["score"] for e in graded.values())
    assert f"score: {total:g}/{sum(e['max_score'] for e in graded.values()):g}" in result.outlines
    assert not any(re.match(r"\s+step\s", line) for line in result.outlines)


def test_exercise_markers_select_exactly_one_exercise(pytester, course):
    half_finished_kit(course, pytester.path)
    result = pytester.runpytest("--collect-only", "-q", "-m", "params")
    ids = [line for line in result.outlines if line.startswith("pytest.ini::")]
    visible = [c for c in course.exercises["params"].checks if not c.hidden]
    assert ids == [f"pytest.ini::params::{c.id}" for c in visible] + [f"pytest.ini::params::{HIDDEN_ITEM}"]


def test_inert_without_the_ini_option(pytester):
    plain = pytester.mkdir("plain")
    for stub in STUBS.iterdir():
        shutil.copyfile(stub, plain / stub.name)
    (plain / "pytest.ini").write_text("[pytest]\n")
    result = pytester.runpytest("--collect-only", "-q", str(plain))
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "pytest.ini::" not in result.stdout.str()

    # --rnn-grader turns it on in the same folder
    result = pytester.runpytest("--collect-only", "-q", "--rnn-grader", str(plain))
    assert result.ret == pytest.ExitCode.OK
    assert "pytest.ini::step::shape_dtype" in result.outlines


def test_pyproject_ini_options_activate_it(pytester):
    for stub in STUBS.iterdir():
        shutil.copyfile(stub, pytester.path / stub.name)
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\nrnn_grader = true\nrnn_grader_lang = \"zh\"\n")
    result = pytester.runpytest("--collect-only", "-q")
    assert "pyproject.toml::masking::mask_reference" in result.outlines
    assert "pyproject.toml::masking::hidden_checks" in result.outlines


def test_this_projects_own_session_is_inert(request):
    assert _state(request.config) is None
