"""The equation quiz type is generic: a question's ``equation:`` mapping names the symbols, their
roles and sizes, and the functions; the answer key's answer is the reference. Proven on the stats
course (tests/courses/stats, z = (x - μ)/σ) through the CLI, and on questions written here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.course.loader import CourseError, load_course
from grader.quiz.equation import check_equation, reference_problem
from grader.quiz.equation_spec import SpecError, compile_spec

STATS = Path(__file__).resolve().parents[1] / "courses" / "stats"
ZSCORE = next(q for q in yaml.safe_load((STATS / "exercises" / "quiz.yaml").read_text(encoding="utf-8"))["questions"]
              if q["key"] == "zscore_equation")["equation"]
ZREF = "z = (x - μ) / σ"


def cli(*args):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


# ---------------------------------------------------------------- the stats course's equation

@pytest.mark.parametrize("text", [
    "z = (x - μ) / σ", r"z = \frac{x - \mu}{\sigma}", r"z = \dfrac{x-\mu}{\sigma}", "(x - mean)/std",
    "z_i = (x_i - x̄)/s", "Z = (X - mu) * 1/sigma", "z = x/σ - μ/σ", "z=(x-mu)/sigma",
])
def test_the_zscore_is_accepted_however_written(text):
    verdict = check_equation(text, ZSCORE, ZREF)
    assert verdict.ok, (text, verdict)


@pytest.mark.parametrize("text, key, params", [
    ("z = x - μ / σ", "equation.wrong", {}),
    ("z = (x - σ) / μ", "equation.swapped", {"first": "μ", "second": "σ"}),
    ("z = x / σ", "equation.missing_term", {"missing": "μ"}),
    ("z = (x - μ)", "equation.missing_term", {"missing": "σ"}),
    ("y = (x - μ) / σ", "equation.wrong_lhs", {"lhs": "y", "result": "z"}),
    ("z = (x - μ) / (σ + z)", "equation.uses_result", {"result": "z"}),
    ("z = (x - W) / σ", "equation.unknown_symbol", {"symbol": "W", "allowed": "x, μ, σ"}),
    ("z = tanh((x - μ) / σ)", "equation.wrong", {}),
    (r"z = \frac{x - \mu}{\sigma", "equation.unparsable", None),
])
def test_wrong_zscores_are_diagnosed_in_the_course_symbols(text, key, params):
    verdict = check_equation(text, ZSCORE, ZREF)
    assert not verdict.ok and verdict.message == key, (text, verdict)
    if params is not None:
        assert verdict.params == params


def test_sigma_is_a_symbol_of_this_course_not_the_sigmoid():
    assert check_equation("z = (x - μ) / σ", ZSCORE, ZREF).ok
    # in the RNN course σ(...) is the sigmoid; here σ followed by brackets is a product
    assert check_equation("z = (x - μ) / σ(1)", ZSCORE, ZREF).ok


def test_the_stats_quiz_is_graded_through_the_cli(tmp_path):
    folder = tmp_path / "student"
    shutil.copytree(STATS / "solutions" / "reference", folder)
    (folder / "answers.yaml").write_text("zscore_equation: '(x - σ) / μ'\nunbiased_ddof: 1\n", encoding="utf-8")
    code, out, err = cli("check", "--course", STATS, folder, "--only", "quiz", "--format", "json",
                         "--output", tmp_path / "r.json")
    assert code == 1, out + err
    checks = {c["name"]: c for c in json.loads((tmp_path / "r.json").read_text())["exercises"][0]["checks"]}
    assert checks["unbiased_ddof"]["passed"] and not checks["zscore_equation"]["passed"]
    assert "μ and σ are swapped" in checks["zscore_equation"]["message"]
    code, out, err = cli("check", "--course", STATS, folder, "--only", "quiz", "--lang", "zh")
    assert "μ 和 σ 用反了" in out, out + err
    (folder / "answers.yaml").write_text("zscore_equation: '\\frac{x-\\mu}{\\sigma}'\nunbiased_ddof: 1\n",
                                         encoding="utf-8")
    code, out, err = cli("check", "--course", STATS, folder, "--only", "quiz")
    assert code == 0, out + err


# ---------------------------------------------------------------- other roles: matrix, scalar, parts

LAYER = {
    "result": "y", "size": "m",
    "symbols": {
        "x": {"role": "vector", "size": "n"},
        "A": {"role": "matrix", "from": "n", "to": "m", "aliases": ["W"]},
        "c": {"role": "bias", "size": "m", "parts": [["c_1"], ["c_2"]]},
        "k": {"role": "scalar", "aliases": ["kappa", "κ"]},
    },
    "functions": {"relu": ["ReLU", "rectifier"]},
}
LAYER_REF = "y = relu(k (x A + c))"


@pytest.mark.parametrize("text, convention", [
    ("y = relu(k (x A + c))", "row"),
    ("y = ReLU(κ x W + κ c)", "row"),
    ("y = rectifier(k (A x + c_1 + c_2))", "column"),
    ("y = relu(k x A^T + k c)", "transposed"),
])
def test_a_layer_with_a_matrix_a_scalar_and_a_split_bias(text, convention):
    verdict = check_equation(text, LAYER, LAYER_REF)
    assert verdict.ok and verdict.params == {"convention": convention}, verdict


@pytest.mark.parametrize("text, key", [
    ("y = tanh(k (x A + c))", "equation.wrong_activation"),
    ("y = k (x A + c)", "equation.no_activation"),
    ("y = relu(k x A) + k c", "equation.activation_placement"),
    ("y = relu(k (x A))", "equation.missing_bias"),
    ("y = relu(x A + c)", "equation.missing_term"),
    ("y = relu(k (A x + c) + 0 x A)", "equation.mixed_conventions"),
    ("y = relu(k (x ⊙ A + c))", "equation.shape_error"),
])
def test_layer_mistakes(text, key):
    assert check_equation(text, LAYER, LAYER_REF).message == key


def test_a_reference_in_column_form_grades_row_answers_too():
    assert check_equation("y = relu(k (x A + c))", LAYER, "y = relu(k (A x + c))").ok


# ---------------------------------------------------------------- what a course can get wrong

@pytest.mark.parametrize("change, problem", [
    ({"symbols": {"x": {"role": "tensor", "size": "n"}}}, "role must be one of"),
    ({"symbols": {"x": {"role": "vector"}}}, "size must be a size symbol"),
    ({"symbols": {"x": {"role": "vector", "size": "n", "shape": 3}}}, "unknown key 'shape'"),
    ({"symbols": {"x": {"role": "vector", "size": "n", "aliases": ["y"]}}}, "also used for 'y'"),
    ({"functions": {"softsign": ["ss"]}}, "function 'softsign' is not one of"),
    ({"conventions": ["diagonal"]}, "convention 'diagonal'"),
    ({"previous": "q"}, "previous 'q' is not one of the symbols"),
    ({"reference": "y = x"}, "unknown key 'reference'"),
])
def test_a_malformed_mapping_is_refused(change, problem):
    with pytest.raises(SpecError, match=problem):
        compile_spec({**LAYER, **change})


@pytest.mark.parametrize("reference, problem", [
    ("y = relu(k (x A + q))", "unknown symbol 'q'"),
    ("y = relu(k (x A + c) + y)", "uses its result"),
    ("y = relu(k (x c))", "fits none of the conventions"),
    ("", "gives no equation"),
    (None, "gives no equation"),
])
def test_an_unusable_answer_key_is_named(reference, problem):
    assert problem in reference_problem(LAYER, reference)
    assert check_equation("y = relu(k (x A + c))", LAYER, reference).message == "equation.bad_question"


def test_a_broken_equation_mapping_fails_the_course_load_with_file_and_line(tmp_path):
    course = tmp_path / "stats"
    shutil.copytree(STATS, course)
    path = course / "exercises" / "quiz.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("role: vector, size: d, positive",
                                                             "role: vectr, size: d, positive"),
                    encoding="utf-8")
    with pytest.raises(CourseError, match="role must be one of"):
        load_course(course)
    code, out, err = cli("list", "--course", course)
    assert code == 2 and str(path) in err and "Traceback" not in err


def test_validate_names_an_answer_key_that_cannot_be_the_reference(tmp_path):
    course = tmp_path / "stats"
    shutil.copytree(STATS, course)
    key = course / "solutions" / "reference" / "answers.yaml"
    key.write_text("zscore_equation: 'z = (x - μ) / τ'\nunbiased_ddof: 1\n", encoding="utf-8")
    code, out, err = cli("validate", "--course", course, "--only", "quiz")
    assert code == 1, out + err
    assert "answers.yaml: zscore_equation: the answer key's equation: unknown symbol 'τ'" in out
