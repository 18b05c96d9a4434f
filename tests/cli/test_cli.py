"""The `grade` command: formats, languages, exit codes, and one clear line for bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, STUBS, copy_reference
from grader.cli import main


def run(*args, env=None):
    """Run `python -m grader` as a user would; return (code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def test_check_json_has_the_contract_keys_and_exit_zero(tmp_path):
    code, out, err = run("check", copy_reference(tmp_path / "ref"), "--format", "json",
                         "--only", "step", "--only", "quiz")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"score", "max_score", "exercises"}
    assert [e["id"] for e in data["exercises"]] == ["step", "quiz"]
    ex = data["exercises"][0]
    assert set(ex) >= {"id", "score", "max_score", "diagnoses", "checks"}
    assert set(ex["checks"][0]) >= {"name", "passed", "score", "max_score", "message"}
    assert data["score"] == data["max_score"]


def test_failing_submission_exits_one_and_names_the_mistake(tmp_path):
    folder = copy_reference(tmp_path / "ref")
    (folder / "rnn_step.py").write_text((folder / "rnn_step.py").read_text() + (
        "\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n    return np.tanh(x_t @ W_x + h_prev @ W_h)\n"))
    code, out, _ = run("check", folder, "--format", "json", "--only", "step")
    assert code == 1
    step = json.loads(out)["exercises"][0]
    assert step["diagnoses"] == ["step.missing_bias"]
    assert step["score"] < step["max_score"]


def test_text_report_in_both_languages(tmp_path):
    folder = copy_reference(tmp_path / "ref")
    code_en, out_en, _ = run("check", STUBS, "--only", "step", "--lang", "en")
    code_zh, out_zh, _ = run("check", STUBS, "--only", "step", "--lang", "zh")
    assert code_en == code_zh == 1
    # issue 39: an exercise not started is one line, with the file to edit; --verbose shows every check
    assert "not started: edit rnn_step.py" in out_en and "Total: 0/" in out_en
    assert "尚未开始：请编辑 rnn_step.py" in out_zh and "总分: 0/" in out_zh
    assert "not implemented yet" in run("check", STUBS, "--only", "step", "--verbose")[1]
    code, out, _ = run("check", folder, "--only", "scalar")
    assert code == 0 and "All checks passed" in out


def test_default_language_follows_the_locale():
    env = {"PATH": "/usr/bin:/bin", "LANG": "zh_CN.UTF-8", "PYTHONPATH": str(ROOT),
           "GRADER_SECRET": os.environ["GRADER_SECRET"]}
    code, out, _ = run("check", STUBS, "--only", "params", env=env)
    assert code == 1 and "总分" in out
    env["LANG"] = "en_US.UTF-8"
    code, out, _ = run("check", STUBS, "--only", "params", env=env)
    assert "Total" in out


def test_output_file_is_written_and_stdout_stays_empty(tmp_path):
    target = tmp_path / "report.json"
    code, out, _ = run("check", STUBS, "--only", "params", "--format", "json", "--output", target)
    assert code == 1 and out == ""
    assert json.loads(target.read_text())["score"] == 0


def _bad_inputs(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    broken_nb = tmp_path / "broken.ipynb"
    broken_nb.write_text("{ not json")
    unsupported = tmp_path / "homework.rar"
    unsupported.write_bytes(b"Rar!")
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip")
    return {
        "missing path": ["check", tmp_path / "nope"],
        "empty folder": ["check", empty],
        "broken notebook": ["check", broken_nb],
        "unsupported file": ["check", unsupported],
        "corrupt zip": ["check", corrupt],
        "unknown exercise": ["check", STUBS, "--only", "lstm"],
        "unknown format": ["check", STUBS, "--format", "pdf"],
        "unknown command": ["frobnicate"],
    }


def test_bad_input_is_one_line_and_exit_two(tmp_path):
    for name, args in _bad_inputs(tmp_path).items():
        code, out, err = run(*args)
        assert code == 2, (name, code, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1, (name, err)
        assert "Traceback" not in err and lines[0].startswith("grade: "), (name, err)


def malformed_course(tmp_path, text, line_expected):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", course / "exercises")
    shutil.copytree(ROOT / "solutions", course / "solutions")
    (course / "exercises" / "params.yaml").write_text(text)
    code, _, err = run("check", STUBS, "--course", course)
    assert code == 2 and "params.yaml" in err and f":{line_expected}" in err, err
    assert len(err.strip().splitlines()) == 1


def test_malformed_course_yaml_names_file_and_line(tmp_path):
    malformed_course(tmp_path, "id: params\nfile: param_count.py\ntitle: {en: x, zh: y\n", 4)


def test_course_yaml_with_unknown_check_names_file_and_line(tmp_path):
    text = (ROOT / "exercises" / "params.yaml").read_text()
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip() == "- id: returns_int")
    lines[index] = lines[index].replace("returns_int", "returns_banana")
    malformed_course(tmp_path, "\n".join(lines) + "\n", index + 1)


def test_list_and_release_and_kit_scores_zero(tmp_path):
    code, out, _ = run("list")
    assert code == 0 and "masking" in out and "total" in out
    kit = tmp_path / "kit"
    code, out, err = run("release", kit)
    assert code == 0, err
    names = {p.name for p in kit.iterdir()}
    assert {"rnn_step.py", "answers.yaml", "rnn_exercises.ipynb", "README.md"} <= names
    assert not any("solution" in p.name for p in kit.rglob("*"))
    reference_lines = {line.strip() for p in (ROOT / "solutions" / "reference").glob("*.py")
                       for line in p.read_text().splitlines() if "np." in line and "return" in line}
    kit_text = "\n".join(p.read_text() for p in kit.glob("*.py"))
    assert not [line for line in reference_lines if line in kit_text]
    code, out, _ = run("check", kit, "--format", "json")
    assert code == 1 and json.loads(out)["score"] == 0
    code, out, _ = run("check", kit / "rnn_exercises.ipynb", "--format", "json")
    assert code == 1 and json.loads(out)["score"] == 0
    assert run("release", kit)[0] == 2   # never overwrite a kit


def test_main_returns_exit_codes_in_process(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("prefix", ["../evil.py", "/abs/evil.py"])
def test_zip_with_escaping_paths_grades_without_writing_outside(tmp_path, prefix):
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(prefix, "print('x')")
        zf.writestr("param_count.py", (ROOT / "solutions" / "reference" / "param_count.py").read_text())
    code, out, err = run("check", archive, "--only", "params", "--format", "json")
    assert code == 0, err
    assert not (tmp_path.parent / "evil.py").exists()


@pytest.mark.parametrize("where", ["no-such-folder/report.json", "a-file/report.json"])
def test_a_bad_output_is_refused_before_grading(tmp_path, where):
    (tmp_path / "a-file").write_text("")
    # The output is checked first: before the submission is even looked at (it does not exist here).
    code, out, err = run("check", tmp_path / "no-such-submission", "--output", tmp_path / where)
    assert code == 2 and err.startswith("grade: cannot write") and len(err.strip().splitlines()) == 1, err
    code, out, err = run("class", tmp_path, "--output", tmp_path / where, "--no-sandbox")
    assert code == 2 and err.startswith("grade: cannot write") and len(err.strip().splitlines()) == 1, err
