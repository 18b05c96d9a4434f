"""The declared gradient kind, counterexample builders from declared specs, and the stats course
(tests/courses/stats: three exercises declared in YAML only, and a quiz) graded end to end through the CLI."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from grader.checks.api import Case, Context, Fail
from grader.course.loader import CourseError, load_course
from grader.course.declared_checks import declared_check
from grader.course.declared_gradient import numeric_gradients
from grader.grading.engine import Grader
from grader.base.i18n import render
from grader.sandbox.client import CallResult, StudentError
from grader.course.runtime import CourseRuntime
from grader.submission.load import load_submission

STATS = Path(__file__).resolve().parents[1] / "courses" / "stats"
REFERENCE = STATS / "solutions" / "reference"


def cli(*args):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def with_mistake(tmp_path: Path, exercise: str, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(REFERENCE, folder)
    file = {"standardize": "stats.py"}.get(exercise, "distances.py")
    wrong = (STATS / "solutions" / "mistakes" / exercise / f"{name}.py").read_text()
    (folder / file).write_text((folder / file).read_text() + "\n\n" + wrong)
    return folder


# ---------------------------------------------------------------- the stats course through the CLI

def test_validate_the_stats_course():
    code, out, err = cli("validate", "--course", STATS)
    assert code == 0, out + err
    assert "reference  23/23" in out and "stubs      0/23" in out
    assert "17 known mistakes" in out and "0 problems" in out


def test_list_the_stats_course():
    code, out, err = cli("list", "--course", STATS, "--lang", "en")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["Exercise", "File", "Points"]      # the column headers come first
    assert [line.split()[0] for line in lines[1:5]] == ["standardize", "distances", "distances_grad", "quiz"]


def test_reference_scores_full_marks_and_stubs_zero(tmp_path):
    code, out, err = cli("check", "--course", STATS, REFERENCE, "--format", "json", "--output", tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 0, out + err
    assert report["score"] == report["max_score"] == 23
    code, _, _ = cli("check", "--course", STATS, STATS / "exercises" / "stubs", "--format", "json",
                     "--output", tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["score"] == 0


@pytest.mark.parametrize("exercise, name, lost", [
    ("standardize", "ignores_axis", {"other_axis"}),
    ("distances_grad", "same_sign_for_b", {"finite_differences"}),   # shape_dtype: only the structure
])
def test_a_mistake_loses_its_points_and_is_named(tmp_path, exercise, name, lost):
    folder = with_mistake(tmp_path, exercise, name)
    code, out, err = cli("check", "--course", STATS, folder, "--format", "json", "--output", tmp_path / "m.json")
    assert code == 1, out + err
    report = json.loads((tmp_path / "m.json").read_text())
    graded = {e["id"]: e for e in report["exercises"]}
    failed = {c["name"] for c in graded[exercise]["checks"] if not c["passed"]}
    assert failed == lost
    assert graded[exercise]["diagnoses"] == [f"{exercise}.{name}"]
    others = [e for e in report["exercises"] if e["id"] != exercise]
    assert all(e["score"] == e["max_score"] for e in others)


# ---------------------------------------------------------------- the gradient kind, one check at a time

@pytest.fixture(scope="module")
def runtime():
    return CourseRuntime(load_course(STATS))


class Direct:
    """StudentModule's interface over plain Python functions: one check run directly, no worker."""

    on_skipped = None

    def __init__(self, functions):
        self.functions = functions

    def call(self, func, *args, return_args=False, reuse_args=False, cache_as=None, **kwargs):
        args, kwargs = copy.deepcopy((list(args), kwargs))
        try:
            value = self.functions[func](*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            raise StudentError({"kind": "exception", "type": type(exc).__name__, "message": str(exc)}) from None
        return CallResult(value=value, type_name=type(value).__name__, args_after=args, kwargs_after=kwargs)


def run_check(runtime, exercise_id, check_id, implementation):
    exercise = runtime.course.exercises[exercise_id]
    ctx = Context(runtime, exercise, Direct({exercise.functions[0]: implementation}))
    runtime.course.registry.for_exercise(exercise_id)[check_id](ctx)


def reference_grad(A, B, G):
    return 2.0 * (G.sum(axis=1)[:, None] * A - G @ B), 2.0 * (G.sum(axis=0)[:, None] * B - G.T @ A)


def test_gradient_passes_the_reference_and_fails_wrong_gradients(runtime):
    run_check(runtime, "distances_grad", "finite_differences", reference_grad)
    with pytest.raises(Fail) as failed:
        run_check(runtime, "distances_grad", "finite_differences",
                  lambda A, B, G: tuple(g / 2 for g in reference_grad(A, B, G)))
    message = failed.value.message
    assert message.key == "prop.gradient_fd" and message.params["wrt"] == "A" and message.params["key"] == "result[0]"
    for lang in ("en", "zh"):
        assert "{" not in render(message.key, lang, **message.params)
    with pytest.raises(Fail) as failed:   # dA right, dB wrong: named as dB's
        run_check(runtime, "distances_grad", "finite_differences",
                  lambda A, B, G: (reference_grad(A, B, G)[0], -reference_grad(A, B, G)[1]))
    assert failed.value.message.params["wrt"] == "B"


def test_gradient_fails_only_on_gradients(runtime):
    """Right gradients in a list instead of a tuple pass; a wrong shape, a lone array or a
    tuple of one is a structure failure, not a finite-difference one."""
    run_check(runtime, "distances_grad", "finite_differences", lambda A, B, G: list(reference_grad(A, B, G)))
    with pytest.raises(Fail) as failed:
        run_check(runtime, "distances_grad", "finite_differences",
                  lambda A, B, G: (reference_grad(A, B, G)[0].T, reference_grad(A, B, G)[1]))
    assert failed.value.message.key == "cmp.shape"
    with pytest.raises(Fail) as failed:
        run_check(runtime, "distances_grad", "finite_differences", lambda A, B, G: reference_grad(A, B, G)[0])
    assert failed.value.message.key == "cmp.type"
    with pytest.raises(Fail) as failed:
        run_check(runtime, "distances_grad", "finite_differences", lambda A, B, G: reference_grad(A, B, G)[:1])
    assert failed.value.message.key == "cmp.length"


def test_numeric_gradients_of_a_loss_of_a_course_function(runtime):
    """loss(f(x)) through the reference's pairwise_sq_dists: the centred differences agree with the
    analytic gradient, and with a {function: ...} loss written as a course function."""
    entry = {"id": "g", "kind": "gradient", "args": [{"name": "A", "shape": [3, 2]}, {"name": "B", "shape": [4, 2]},
                                                   {"name": "G", "shape": [3, 4]}],
             "loss": "sum(pairwise_sq_dists(A, B) * G)", "wrt": {"dB": "B", "dA": "A"}}
    spec = declared_check("distances_grad", ["sq_dists_grad"], entry, pytest.fail).gradient
    rng = np.random.default_rng(0)
    A, B, G = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(3, 4))
    reference = CourseRuntime(load_course(STATS)).reference_function
    numeric = numeric_gradients(spec, lambda name: reference("distances.py", name), Case((A, B, G)))
    dA, dB = reference_grad(A, B, G)
    assert np.allclose(numeric["A"], dA, rtol=1e-7, atol=1e-8) and np.allclose(numeric["B"], dB, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("change, problem", [
    ({"loss": "sum(np.exp(A))"}, "only plain names can be called"),
    ({"loss": "sum(A).T"}, "Attribute is not allowed"),
    ({"loss": "sum(A) if A else 0"}, "IfExp is not allowed"),
    ({"loss": "sum(A * C)"}, "'C' is no named argument"),
    ({"loss": "sum(A"}, "is not an expression"),
    ({"wrt": "C"}, "wrt names 'C'"),
    ({"wrt": 3}, "wrt must name"),
    ({"eps": 0}, "eps and max_error must be positive"),
    ({"loss": None}, "needs loss"),
])
def test_a_malformed_gradient_check_names_file_and_line(tmp_path, change, problem):
    course = tmp_path / "stats"
    shutil.copytree(STATS, course)
    path = course / "exercises" / "distances_grad.yaml"
    data = yaml.safe_load(path.read_text())
    entry = data["checks"][0]
    for key, value in change.items():
        if value is None:
            entry.pop(key)
        else:
            entry[key] = value
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    with pytest.raises(CourseError) as error:
        load_course(course)
    text = str(error.value)
    assert text.startswith(f"{path}:") and text.split(":")[1].isdigit() and int(text.split(":")[1]) > 1
    assert problem in text


# ---------------------------------------------------------------- counterexamples for declared functions

def test_a_declared_function_gets_a_smallest_counterexample(tmp_path):
    course = load_course(STATS)
    assert "pairwise_sq_dists" in course.registry.builders
    assert course.registry.arg_names["pairwise_sq_dists"] == ("A", "B")
    folder = with_mistake(tmp_path, "distances", "missing_factor_two")
    with Grader(course, counterexamples=True) as grader:
        result = grader.grade(load_submission(folder, tmp_path / "w"), ["distances"])
    failing = [c for c in result.exercises[0].checks if not c.passed and c.counterexample is not None]
    assert failing, [c.name for c in result.exercises[0].checks]
    shown = failing[0].counterexample.render("en")
    # the smallest input: one point each, one coordinate, the simplest value off 0 where it shows
    assert "pairwise_sq_dists(A=[[" in shown and "B=[[" in shown, shown
    assert shown.count("],") <= 2, shown


def test_a_loss_given_as_a_course_function():
    entry = {"id": "g", "kind": "gradient", "args": [{"name": "A", "shape": [2, 2]}, {"name": "B", "shape": [3, 2]},
                                                   {"name": "G", "shape": [2, 3]}],
             "loss": {"function": "weighted_sq_dists"}, "wrt": ["A", "B"]}
    spec = declared_check("distances_grad", ["sq_dists_grad"], entry, pytest.fail).gradient
    assert spec.loss_text == "weighted_sq_dists(A, B, G)"
    rng = np.random.default_rng(1)
    case = Case((rng.normal(size=(2, 2)), rng.normal(size=(3, 2)), rng.normal(size=(2, 3))))
    functions = {"weighted_sq_dists": lambda A, B, G: np.sum(((A[:, None] - B[None]) ** 2).sum(-1) * G)}
    numeric = numeric_gradients(spec, functions.__getitem__, case)
    dA, dB = reference_grad(*case.args)
    assert np.allclose(numeric["A"], dA, rtol=1e-7, atol=1e-8) and np.allclose(numeric["B"], dB, rtol=1e-7, atol=1e-8)
    with pytest.raises(ValueError, match="not a number"):   # a loss that is no scalar is the course's bug, said so
        numeric_gradients(spec, {"weighted_sq_dists": lambda A, B, G: A}.__getitem__, case)
