"""The quiz template cannot be misread, and a backslash YAML or Python ate is explained.

Between double quotes, in YAML and in Python alike, ``\\t`` is a tab: ``"h_t = \\tanh(...)"``
reaches the grader as a tab and ``anh``, and ``"\\h_{t-1}"`` stops YAML altogether. The
template asks for single quotes (``r'...'`` in the notebook); a student who used double
quotes is told what happened and how to write it instead."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml

from grader.cli import main
from grader.submission.answers import read_answers_yaml
from grader.quiz.grade import grade_answer

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = {q["key"]: q for q in yaml.safe_load((ROOT / "exercises" / "quiz.yaml").read_text("utf-8"))["questions"]}
EQUATION = QUESTIONS["step_equation"]
MAPPING = QUESTIONS["match_outputs"]
RIGHT = r"h_t = \tanh(x_t W_x + h_{t-1} W_h + b)"


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    out = tmp_path_factory.mktemp("kit") / "kit"
    assert main(["release", str(out)]) == 0
    return out


def answers_file(tmp_path, template: str, line: str) -> Path:
    text = template.replace("step_equation: ''", line)
    assert text != template
    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_template_leaves_single_quotes_to_write_the_equation_in(kit, tmp_path):
    template = (kit / "answers.yaml").read_text("utf-8")
    assert "step_equation: ''" in template
    answers, problem = read_answers_yaml(answers_file(tmp_path, template, f"step_equation: '{RIGHT}'"))
    assert problem is None and answers["step_equation"] == RIGHT
    assert grade_answer(EQUATION, answers["step_equation"], RIGHT).fraction == 1.0


def test_untouched_template_answers_are_no_answer(kit, tmp_path):
    answers, problem = read_answers_yaml(kit / "answers.yaml")
    assert problem is None
    for key in ("step_equation", "match_outputs"):
        key_answer = {"classification": "A", "tagging": "B", "next_step": "C", "seq2seq": "D"} \
            if key == "match_outputs" else RIGHT
        assert grade_answer(QUESTIONS[key], answers[key], key_answer).message == "quiz.unanswered", key
    assert isinstance(answers["match_outputs"], dict) and answers["match_outputs"]   # the keys are there


def test_a_backslash_eaten_between_double_quotes_is_explained(kit, tmp_path):
    template = (kit / "answers.yaml").read_text("utf-8")
    answers, problem = read_answers_yaml(answers_file(tmp_path, template, f'step_equation: "{RIGHT}"'))
    assert problem is None and "\t" in answers["step_equation"]
    verdict = grade_answer(EQUATION, answers["step_equation"], RIGHT)
    assert (verdict.fraction, verdict.message, verdict.params) == (0.0, "quiz.escaped_backslash", {"escape": "\\t"})


@pytest.mark.parametrize("text", ["h_t = tanh(x_t W_x + h_{t-1} W_h + b)\t",
                                  "h_t =\ttanh(x_t W_x + h_{t-1} W_h + b)"])
def test_a_real_tab_is_whitespace(text):
    assert grade_answer(EQUATION, text, RIGHT).fraction == 1.0


def test_a_wrong_answer_with_a_tab_is_not_blamed_on_escapes():
    verdict = grade_answer(EQUATION, "h_t =\ttanh(x_t W_x + h_{t-1} W_h)", RIGHT)
    assert verdict.fraction == 0.0 and verdict.message != "quiz.escaped_backslash"


@pytest.mark.parametrize("line,escape", [(r'step_equation: "h_t = tanh(x_t W_x + \h_{t-1} W_h + b)"', r"\h"),
                                         (r'step_equation: "\phi(x_t W_x + h_{t-1} W_h + b)"', r"\p")])
def test_an_escape_yaml_refuses_names_the_line_and_the_fix(kit, tmp_path, line, escape):
    template = (kit / "answers.yaml").read_text("utf-8")
    path = answers_file(tmp_path, template, line)
    answers, problem = read_answers_yaml(path)
    line_number = path.read_text("utf-8").splitlines().index(line) + 1
    assert answers == {}
    assert problem.key == "err.answers_yaml_escape"
    assert problem.params == {"file": "answers.yaml", "line": line_number, "escape": escape}


def test_the_notebook_asks_for_a_raw_string_and_grades_it(kit, tmp_path):
    nb = nbformat.read(kit / "rnn_exercises.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "ANSWERS = {" in c.source)
    assert "'step_equation': r''," in cell.source
    cell.source = cell.source.replace("'step_equation': r''", f"'step_equation': r'{RIGHT}'")
    nbformat.write(nb, tmp_path / "mine.ipynb")
    out = tmp_path / "report.json"
    main(["check", str(tmp_path / "mine.ipynb"), "--only", "quiz", "--format", "json", "--output", str(out)])
    quiz = next(e for e in json.loads(out.read_text())["exercises"] if e["id"] == "quiz")
    assert next(c for c in quiz["checks"] if c["name"] == "step_equation")["passed"] is True


def test_a_notebook_string_without_r_is_explained(kit, tmp_path):
    nb = nbformat.read(kit / "rnn_exercises.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "ANSWERS = {" in c.source)
    cell.source = cell.source.replace("'step_equation': r''", f"'step_equation': \"{RIGHT}\"")
    nbformat.write(nb, tmp_path / "mine.ipynb")
    out = tmp_path / "report.json"
    main(["check", str(tmp_path / "mine.ipynb"), "--only", "quiz", "--format", "json", "--output", str(out)])
    quiz = next(e for e in json.loads(out.read_text())["exercises"] if e["id"] == "quiz")
    step = next(c for c in quiz["checks"] if c["name"] == "step_equation")
    assert step["passed"] is False and "single quotes" in step["message"] and "r'" in step["message"]


def test_an_empty_mapping_answer_is_no_answer():
    assert grade_answer(MAPPING, {"classification": None, "tagging": None, "next_step": "", "seq2seq": None},
                        {"classification": "A", "tagging": "B", "next_step": "C", "seq2seq": "D"}).message \
        == "quiz.unanswered"
    partly = grade_answer(MAPPING, {"classification": "A", "tagging": None, "next_step": None, "seq2seq": None},
                          {"classification": "A", "tagging": "B", "next_step": "C", "seq2seq": "D"})
    assert partly.message == "quiz.mapping_wrong_keys" and partly.fraction == 0.25


def test_a_passed_question_is_one_line_not_every_choice_again(tmp_path):
    out = tmp_path / "report"
    assert main(["check", str(ROOT / "solutions" / "reference"), "--only", "quiz", "--format", "text",
                 "--output", str(out)]) == 0
    report = out.read_text("utf-8")
    assert "long_range_cause" in report and "100 steps back?" in report
    assert "A: Each step has its own weights" not in report
