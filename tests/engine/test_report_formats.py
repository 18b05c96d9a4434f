"""The markdown, junit and gradescope reports: built from real graded submissions, in both
languages; hidden checks never show their message; student text cannot inject markup."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference
from grader.base.i18n import Message, text
from grader.report import FORMATS, render
from grader.report.markdown import code, inline
from grader.report import check_message

LANGS = ("en", "zh")
MISTAKE = ROOT / "solutions" / "mistakes" / "step" / "missing_bias.py"
ONLY = ("step", "params", "quiz")

# What a student's code may print or raise: a table pipe, a script tag, backticks, an ANSI
# colour, a NUL, a right-to-left override, and a newline that would start a heading.
EVIL = "x | y <script>alert(1)</script> `tick` \x1b[31mred\x1b[0m \x00 \u202e\n# injected heading"
EVIL_CODE = f'''

_EVIL = {EVIL!r}
print(_EVIL)


def rnn_step(x_t, h_prev, W_x, W_h, b):
    print(_EVIL)
    raise ValueError(_EVIL)
'''

GRADESCOPE_TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
                  "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GRADESCOPE_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                   "tags", "visibility", "extra_data"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


# ------------------------------------------------------------------ submissions

def mistake_folder(tmp_path: Path) -> Path:
    """The reference with: the bias left out of rnn_step (a named mistake, hidden checks
    failing), param_count.py missing (an exercise-wide problem), one quiz answer half right."""
    folder = copy_reference(tmp_path / "mistake")
    step = folder / "rnn_step.py"
    step.write_text(step.read_text(encoding="utf-8") + "\n\n" + MISTAKE.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "param_count.py").unlink()
    answers = folder / "answers.yaml"
    original = answers.read_text(encoding="utf-8")
    changed = original.replace("shared_parameters: [W_x, W_h, b]", "shared_parameters: [W_x, W_h]")
    assert changed != original
    answers.write_text(changed, encoding="utf-8")
    return folder


def evil_folder(tmp_path: Path) -> Path:
    folder = copy_reference(tmp_path / "evil")
    step = folder / "rnn_step.py"
    step.write_text(step.read_text(encoding="utf-8") + EVIL_CODE, encoding="utf-8")
    return folder


@pytest.fixture
def mistake_result(grade, tmp_path):
    result = grade(mistake_folder(tmp_path), ONLY)
    step = exercise(result, "step")
    # the premises of these tests: a named mistake, failing hidden checks, a problem, partial credit
    assert [d.id for d in step.diagnoses] == ["step.missing_bias"]
    assert any(c.hidden and not c.passed for c in step.checks)
    assert exercise(result, "params").problem is not None
    assert any(0 < c.score < c.max_score for c in exercise(result, "quiz").checks)
    return result


@pytest.fixture
def evil_result(grade, tmp_path):
    result = grade(evil_folder(tmp_path), ("step",))
    step = exercise(result, "step")
    assert "<script>" in check_message(step.checks[0], "en") and "<script>" in step.output
    return result


def exercise(result, ex_id):
    return next(e for e in result.exercises if e.id == ex_id)


def secret_messages(result, lang):
    """Hidden checks' own messages that no visible part of the report legitimately shows
    (a missing file's message is the exercise's problem, shown anyway)."""
    secrets = []
    for ex in result.exercises:
        shown = {c.message.render(lang) for c in ex.checks if not c.hidden and c.message is not None}
        if ex.problem is not None:
            shown.add(ex.problem.render(lang))
        for c in ex.checks:
            if c.hidden and not c.passed and c.message is not None and c.message.render(lang) not in shown:
                secrets.append(c.message.render(lang))
    return secrets


def hidden_generic(lang):
    return Message("report.hidden_failed").render(lang)


def test_the_formats_are_registered():
    assert set(FORMATS) >= {"text", "json", "junit", "gradescope", "markdown"}


# ------------------------------------------------------------------ junit

@pytest.mark.parametrize("lang", LANGS)
def test_junit_parses_and_its_counts_match_the_result(mistake_result, lang):
    report = render(mistake_result, "junit", lang)
    root = ET.fromstring(report)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [e.id for e in mistake_result.exercises]
    all_checks = [c for e in mistake_result.exercises for c in e.checks]
    assert int(root.get("tests")) == len(all_checks)
    assert int(root.get("failures")) + int(root.get("errors")) == sum(not c.passed for c in all_checks)
    for suite, ex in zip(suites, mistake_result.exercises):
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == [c.name for c in ex.checks]
        assert {c.get("classname") for c in cases} == {ex.id}
        assert int(suite.get("tests")) == len(ex.checks)
        failing = sum(not c.passed for c in ex.checks)
        assert int(suite.get("failures")) + int(suite.get("errors")) == failing
        assert sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None) == failing
        assert suite.get("time") == "0"     # an exercise's time includes its hidden checks' calls
        props = [(p.get("name"), p.get("value")) for p in suite.find("properties")]
        assert ("score", _num(ex.score)) in props and ("max_score", _num(ex.max_score)) in props
        assert [v for k, v in props if k == "diagnosis"] == [d.id for d in ex.diagnoses]
        for case, check in zip(cases, ex.checks):
            failure = case.find("failure")
            if check.passed:
                assert failure is None
            elif check.hidden:
                assert failure.get("message") == hidden_generic(lang)
            else:
                assert failure.get("message") == check.message.render(lang)
    step = suites[[e.id for e in mistake_result.exercises].index("step")]
    explained = step.find("system-out").text
    assert "step.missing_bias" in explained
    assert text(exercise(mistake_result, "step").diagnoses[0].explanation, lang) in explained
    secrets = secret_messages(mistake_result, lang)
    assert secrets
    for secret in secrets:
        assert secret not in report and _xml_text(secret) not in report


# ------------------------------------------------------------------ gradescope

@pytest.mark.parametrize("lang", LANGS)
def test_gradescope_has_the_documented_keys_and_the_scores_add_up(mistake_result, lang):
    report = render(mistake_result, "gradescope", lang)
    data = json.loads(report)
    assert set(data) <= GRADESCOPE_TOP
    assert data["visibility"] == data["stdout_visibility"] == "visible"
    assert data["score"] == pytest.approx(mistake_result.score, abs=1e-4)
    tests = data["tests"]
    checks = [(e, c) for e in mistake_result.exercises for c in e.checks]
    assert len(tests) == len(checks)
    assert sum(t["score"] for t in tests) == pytest.approx(mistake_result.score, abs=1e-3)
    assert sum(t["max_score"] for t in tests) == pytest.approx(mistake_result.max_score)
    for test, (ex, check) in zip(tests, checks):
        assert set(test) <= GRADESCOPE_TEST
        assert test["name"].startswith(f"{ex.id}::{check.name}")
        assert test["name_format"] == test["output_format"] == "text"
        assert test["status"] == ("passed" if check.passed else "failed")
        assert test["score"] == pytest.approx(check.score, abs=1e-4)
        assert test["visibility"] in VISIBILITIES
        assert test["visibility"] == "visible"   # hidden checks: generic output only, score visible
        if check.hidden:
            assert test["output"] in ("", hidden_generic(lang)) or "step.missing_bias" in test["output"]
        elif not check.passed:
            assert check.message.render(lang) in test["output"]
    # the named mistake goes with the first failing visible check of its exercise, once
    with_mistake = [t for t in tests if "step.missing_bias" in t["output"]]
    first = next(c for c in exercise(mistake_result, "step").checks if not c.passed and not c.hidden)
    assert [t["name"] for t in with_mistake] == [t["name"] for t, (e, c) in zip(tests, checks) if c is first]
    assert Message("report.diagnosis").render(lang) in with_mistake[0]["output"]
    secrets = secret_messages(mistake_result, lang)
    assert secrets
    for secret in secrets:
        assert secret not in report and secret not in json.dumps(data)


def test_gradescope_full_marks_pass_every_test(grade, tmp_path):
    data = json.loads(render(grade(copy_reference(tmp_path / "ref"), ("step", "quiz")), "gradescope", "en"))
    assert data["score"] == sum(t["max_score"] for t in data["tests"])
    assert {t["status"] for t in data["tests"]} == {"passed"}
    assert all(t["output"] == "" for t in data["tests"])


# ------------------------------------------------------------------ markdown

@pytest.mark.parametrize("lang", LANGS)
def test_markdown_summary_names_the_mistake_and_hides_hidden_messages(mistake_result, lang):
    md = render(mistake_result, "markdown", lang)
    lines = md.splitlines()
    assert lines[0].startswith("## ") and f"{_num(mistake_result.score)}/{_num(mistake_result.max_score)}" in lines[0]
    for ex in mistake_result.exercises:
        row = next(line for line in lines if line.startswith(f"| `{ex.id}` |"))
        assert f"{_num(ex.score)}/{_num(ex.max_score)}" in row
        assert row.rstrip().endswith("✅ |" if all(c.passed for c in ex.checks) else "❌ |")
    assert "`step.missing_bias`" in md
    assert Message("report.diagnosis").render(lang) in md
    assert inline(text(exercise(mistake_result, "step").diagnoses[0].explanation, lang)) in md
    # failing visible checks with their message; every exercise that lost points has a section
    step = exercise(mistake_result, "step")
    for check in step.checks:
        if not check.passed and not check.hidden:
            assert inline(check.message.render(lang)) in md
    assert sum(line.startswith("### ") for line in lines) == sum(
        not all(c.passed for c in e.checks) for e in mistake_result.exercises)
    assert inline(exercise(mistake_result, "params").problem.render(lang)) in md
    hidden_lines = [line for line in lines if f"({Message('report.hidden').render(lang)})" in line]
    assert hidden_lines and all("<br>" not in line for line in hidden_lines)
    secrets = secret_messages(mistake_result, lang)
    assert secrets
    for secret in secrets:
        assert secret not in md and inline(secret) not in md


def test_markdown_notes_are_a_blockquote_and_isolation_is_named(mistake_result):
    mistake_result.notes.append(Message("note.not_sandboxed", reason="bwrap | <b>missing</b>"))
    md = render(mistake_result, "markdown", "en")
    quote = [line for line in md.splitlines() if line.startswith("> ")]
    assert quote and "Not sandboxed" in quote[-1] and "<b>" not in md and "&lt;b&gt;" in quote[-1]
    assert f"`{mistake_result.isolation}`" in md and Message("report.isolation").render("en") in md


def test_markdown_full_marks_has_no_failure_sections(grade, tmp_path):
    md = render(grade(copy_reference(tmp_path / "ref"), ("step",)), "markdown", "zh")
    assert "❌" not in md and "### " not in md and "✅" in md


# ------------------------------------------------------------------ student text cannot inject

@pytest.mark.parametrize("lang", LANGS)
def test_markdown_escapes_student_text(evil_result, lang):
    md = render(evil_result, "markdown", lang)
    for raw in ("<script>", "</script>", "`tick`", "x | y", "\x1b", "\x00", "\u202e"):
        assert raw not in md, raw
    assert "&lt;script&gt;" in md and "\\`tick\\`" in md and "x \\| y" in md and "\\\\x1b" in md
    # no line that the student's newline could have started: headings are ours only
    for line in md.splitlines():
        if line.startswith("#"):
            assert line.startswith(("## ", "### ❌")) and "injected" not in line, line
    # the student's printed output shows, as data
    assert "<pre>" in md and "&#35; injected heading" in md


def test_markdown_table_cells_and_code_spans_stay_closed():
    cell = inline("a|b\nc`d`<e>")
    assert "\n" not in cell and "<e>" not in cell
    assert re.search(r"(?<!\\)[|`]", cell) is None
    span = code("x``y")
    assert span.startswith("```") and span.endswith("```") and "x``y" in span
    assert code("a|b", cell=True) == "`a\\|b`"


@pytest.mark.parametrize("lang", LANGS)
def test_junit_and_gradescope_carry_student_text_as_data(evil_result, lang):
    xml = render(evil_result, "junit", lang)
    root = ET.fromstring(xml)                   # control characters would make this raise
    assert "<script>" not in xml and "\x1b" not in xml and "\x00" not in xml
    failure = root.find("testsuite/testcase/failure")
    assert "<script>alert(1)</script>" in failure.get("message") and "\\x1b[31m" in failure.get("message")
    assert "x | y" in root.find("testsuite/system-out").text

    data = json.loads(render(evil_result, "gradescope", lang))
    strings = json.dumps(data, ensure_ascii=False)
    assert "\x1b" not in strings and "\\u001b" not in strings and "\\u0000" not in strings
    first = data["tests"][0]
    assert first["output_format"] == "text" and "\\x1b[31m" in first["output"]


def test_lone_surrogates_and_nul_in_output_stay_writable(evil_result, tmp_path):
    evil_result.exercises[0].output = "bad \ud800 \x00 \x7f end"
    for fmt in ("markdown", "junit", "gradescope"):
        report = render(evil_result, fmt, "en")
        report.encode("utf-8")                  # a lone surrogate would raise here
        assert "\x00" not in report and "\x7f" not in report
    ET.fromstring(render(evil_result, "junit", "en"))


# ------------------------------------------------------------------ the command

@pytest.mark.parametrize("fmt", ["junit", "gradescope", "markdown"])
def test_cli_writes_the_format_to_the_output_file(tmp_path, fmt):
    folder = mistake_folder(tmp_path)
    target = tmp_path / f"report.{fmt}"
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(folder), "--only", "step",
                           "--format", fmt, "--lang", "zh", "--output", str(target)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    content = target.read_text(encoding="utf-8")
    if fmt == "junit":
        suite = ET.fromstring(content).find("testsuite")
        assert suite.get("name") == "step" and int(suite.get("failures")) > 0
        assert "常见错误" in suite.find("system-out").text
    elif fmt == "gradescope":
        data = json.loads(content)
        assert data["score"] < sum(t["max_score"] for t in data["tests"])
        assert any("常见错误" in t["output"] for t in data["tests"])
    else:
        assert content.startswith("## ") and "`step.missing_bias`" in content and "常见错误" in content


# ------------------------------------------------------------------ helpers

def _num(x) -> str:
    x = round(float(x), 4)
    return str(int(x)) if x.is_integer() else f"{x:g}"


def _xml_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
