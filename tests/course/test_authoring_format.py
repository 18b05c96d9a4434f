"""The course format says what a real second course needs (issue 33), on tests/courses/gates: a course
of one LSTM step declared in YAML alone, with packed (d, 4*H) weights, a tuple result (h_t, c_t),
constant edge-case inputs (fill:) and a quiz with known wrong answers. A course author's mistake is a
course error naming the file (exit 2), found by `grade validate` too, never an internal error (exit 3)
and never the student's fault."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grader.checks.api import Case
from grader.checks.choices import build, ladder
from grader.course.loader import HINT_KINDS, CourseError, failure_kind, load_course
from grader.course.declared_checks import ENTRY_KEYS, SPEC_KEYS, VALUES, _cases, _default_sizes, declared_check
from grader.course.declared_gradient import KEYS as GRADIENT_KEYS
from grader.grading.engine import Grader
from grader.grading.grade_path import grade_path
from grader.course.kit_records import call_digest
from grader.report.view import build as build_view
from grader.quiz.grade import grade_answer, known_wrong

ROOT = Path(__file__).resolve().parents[2]
GATES = ROOT / "tests" / "courses" / "gates"
STATS = ROOT / "tests" / "courses" / "stats"
GUIDE = ROOT / "docs" / "authoring.md"
PACKED = [{"name": "x", "shape": ["B", "d"]}, {"name": "h_prev", "shape": ["B", "H"]},
          {"name": "W", "shape": ["d", "4*H"]}, {"name": "b", "shape": ["4*H"]}]


def cli(*args, env=None):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout, proc.stderr


def course_copy(tmp_path: Path, source: Path = GATES) -> Path:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    return folder


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def with_mistake(tmp_path: Path, name: str, course: Path = GATES, exercise: str = "lstm",
                 file: str = "gates.py", code: str | None = None) -> Path:
    folder = tmp_path / f"submission-{name}"
    shutil.copytree(course / "solutions" / "reference", folder)
    wrong = code if code is not None else (course / "solutions" / "mistakes" / exercise / f"{name}.py").read_text()
    (folder / file).write_text((folder / file).read_text() + "\n\n" + wrong)
    return folder


def report(tmp_path: Path, folder: Path, course: Path = GATES, lang: str = "en", env=None) -> tuple[int, dict]:
    out = tmp_path / f"{folder.name}-{lang}.json"
    code, stdout, stderr = cli("check", "--course", course, folder, "--format", "json", "--lang", lang,
                               "--output", out, env=env)
    assert code in (0, 1), stdout + stderr
    return code, json.loads(out.read_text())


def view(folder: Path, course: Path = GATES, lang: str = "en"):
    """What a report shows (grader/report/view.py), in ``lang``: hints and named mistakes' explanations."""
    with Grader(load_course(course)) as grader:
        return build_view(grade_path(folder, grader, kind="authoring"), lang)


def shown(submission_view, exercise: str, name: str):
    ex = next(e for e in submission_view.exercises if e.id == exercise)
    return next(c for c in ex.checks if c.name == name)


def check_of(data: dict, exercise: str, name: str) -> dict:
    ex = next(e for e in data["exercises"] if e["id"] == exercise)
    return next(c for c in ex["checks"] if c["name"] == name)


def never(problem, line=None):
    raise AssertionError(problem)


def declared(entry: dict, fail=never, returns=None):
    entry = {"id": "c", "kind": "reference", **entry}
    return declared_check("ex", ["f"], entry, fail, *([returns] if returns is not None else []))


# ---------------------------------------------------------------- the course itself

def test_the_gates_course_validates_with_no_problem():
    code, out, err = cli("validate", "--course", GATES)
    assert code == 0, out + err
    assert "reference  11/11" in out and "stubs      0/11" in out
    assert "5 known mistakes" in out and "0 problems" in out
    assert not (GATES / "exercises" / "checks").exists()   # declared in YAML alone


# ---------------------------------------------------------------- 1. shapes that are expressions of sizes

def test_packed_shapes_are_computed_from_the_same_sizes():
    check = declared({"args": PACKED, "sizes": [{"B": 2, "d": 3, "H": 5}, {"B": 1, "d": 1, "H": 1}]})
    specs = check.builder.args[0]
    for size in ({"B": 2, "d": 3, "H": 5}, {"B": 1, "d": 1, "H": 1}):
        (case,) = _cases(list(specs), {}, [size], np.random.default_rng(0))
        x, h, W, b = case.args
        assert W.shape == (size["d"], 4 * size["H"]) and b.shape == (4 * size["H"],)
        assert x.shape == (size["B"], size["d"]) and h.shape == (size["B"], size["H"])


def test_default_sizes_keep_the_relation_too():
    check = declared({"args": [{"shape": ["H"]}, {"shape": ["H+1", "2*H", "(H+1)//2"]}]})
    specs = list(check.builder.args[0])
    assert check.builder.args[2] == ("H",)           # one size symbol, not one per expression
    for case in _cases(specs, {}, _default_sizes(["H"]), np.random.default_rng(1)):
        H = case.args[0].shape[0]
        assert case.args[1].shape == (H + 1, 2 * H, (H + 1) // 2)


@pytest.mark.parametrize("shape, expected", [
    ("[d, 4*K]", "size symbol 'K', which shape entry '4*K' uses: it is an unknown symbol"),
    ("[d, H/2]", "not an integer expression"),
    ("[d, 0.5*H]", "not an integer expression"),
    ("[d, 4H]", "no size expression"),
    ("[d, H-3]", "negative"),
    ("[d, W.size]", "not an integer expression"),
])
def test_a_bad_shape_expression_is_a_course_error_at_its_line(tmp_path, shape, expected):
    course = course_copy(tmp_path)
    yaml_path = course / "exercises" / "lstm.yaml"
    edit(yaml_path, "{name: W, shape: [d, 4*H]}", f"{{name: W, shape: {shape}}}")   # the check saturated's
    line = next(i for i, text in enumerate(yaml_path.read_text().splitlines(), 1) if shape in text)
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert f"lstm.yaml:{line}: check 'saturated'" in str(info.value)
    assert expected in str(info.value)
    code, out, err = cli("validate", "--course", course)
    assert code == 2 and "internal error" not in err and f"lstm.yaml:{line}" in err


# ---------------------------------------------------------------- 2. counterexample inputs respect the sizes

def test_every_counterexample_input_is_a_call_the_reference_accepts():
    course = load_course(GATES)
    spec = course.registry.builders["lstm_step"]
    from grader.course.runtime import CourseRuntime
    reference = CourseRuntime(course).reference_function("gates.py", "lstm_step")
    rungs = ladder(spec, lambda case: call_digest("lstm_step", case.args, case.kwargs))
    assert len(rungs) > 20
    for rung in rungs:
        x, h, c, W, U, b = rung.case.args
        H = h.shape[1]
        assert W.shape == (x.shape[1], 4 * H) and U.shape == (H, 4 * H) and b.shape == (4 * H,)
        h_t, c_t = reference(*rung.case.args, **rung.case.kwargs)   # never "array split does not result ..."
        assert h_t.shape == c_t.shape == h.shape


def test_a_packed_builder_without_fill_draws_tied_shapes():
    check = declared({"args": PACKED})
    for index in range(6):
        case = build(check.builder, (index % 3, (index + 1) % 3, index % 2)).case
        x, h, W, b = case.args
        assert W.shape[1] == b.shape[0] == 4 * h.shape[1]


def test_every_reference_check_feeds_the_counterexample_search(tmp_path):
    """A mistake seen only with an argument that only the second reference check passes still
    gets a counterexample, with that argument (stats: other_axis passes axis=1)."""
    _, data = report(tmp_path, with_mistake(tmp_path, "ignores_axis", STATS, "standardize", "stats.py"), STATS)
    found = check_of(data, "standardize", "other_axis")
    assert not found["passed"] and "axis=1" in found.get("counterexample", ""), found


def test_the_second_reference_checks_argument_in_the_gates_course(tmp_path):
    _, data = report(tmp_path, with_mistake(tmp_path, "ignores_forget_bias"))
    found = check_of(data, "lstm", "with_forget_bias")
    assert not found["passed"] and "forget_bias=1" in found["counterexample"], found


# ---------------------------------------------------------------- 3. constant and structured inputs

def test_fill_gives_constant_arrays_in_checks_and_in_the_search():
    check = declared({"args": [{"name": "W", "shape": ["d", "4*H"], "fill": 0},
                               {"name": "b", "shape": ["4*H"], "fill": 1000}]})
    for case in _cases(list(check.builder.args[0]), {}, _default_sizes(["H", "d"]), np.random.default_rng(2)):
        assert case.args[0].dtype == np.float64 and not case.args[0].any()
        assert (case.args[1] == 1000.0).all()
    for rung in ladder(check.builder, lambda case: call_digest("f", case.args, case.kwargs)):
        assert not rung.case.args[0].any() and (rung.case.args[1] == 1000.0).all()


@pytest.mark.parametrize("spec, expected", [
    ({"shape": ["H"], "fill": ".nan"}, "fill must be a finite number"),
    ({"shape": ["H"], "fill": "zero"}, "fill must be a finite number"),
    ({"shape": ["H"], "fill": 0, "values": "normal"}, "shape, fill and name only"),
    ({"shape": ["H"], "scale": 0}, "fill: 0"),
    ({"shape": ["H"], "colour": 1}, "unknown key 'colour'"),
])
def test_a_bad_argument_spec_is_a_course_error(spec, expected):
    problems = []

    def fail(problem, line=None):
        problems.append(problem)
        raise CourseError(problem)

    spec = {k: (float("nan") if v == ".nan" else v) for k, v in spec.items()}
    with pytest.raises(CourseError):
        declared({"args": [spec]}, fail)
    assert expected in problems[0]


# ---------------------------------------------------------------- 4. names of results

def test_returns_names_the_results_in_every_message(tmp_path):
    _, data = report(tmp_path, with_mistake(tmp_path, "swapped_outputs"))
    check = check_of(data, "lstm", "matches_reference")
    assert check["message"].startswith("h_t: "), check["message"]
    assert "h_t: " in check["counterexample"] and "lstm_step(x=" in check["counterexample"]
    for text in (check["message"], check["counterexample"]):
        assert "lstm_step[0]" not in text and "(h_t, c_t)" not in text and "result[0]" not in text


def test_a_tuple_of_result_names_from_python_names_each_part(tmp_path):
    """RESULT_NAMES = {"f": ("a", "b")}: once an internal error (exit 3), now the names of the parts."""
    course = course_copy(tmp_path)
    edit(course / "exercises" / "lstm.yaml", "returns: [h_t, c_t]", "")
    checks = course / "exercises" / "checks"
    checks.mkdir()
    (checks / "names.py").write_text('RESULT_NAMES = {"lstm_step": ("hidden", "cell")}\n')
    code, data = report(tmp_path, with_mistake(tmp_path, "swapped_outputs"), course)
    assert code == 1
    check = check_of(data, "lstm", "matches_reference")
    assert "hidden: " in check["counterexample"] and "(hidden, cell)" not in check["counterexample"]


# ---------------------------------------------------------------- 5. a course author's error is a course error

@pytest.mark.parametrize("source, expected", [
    ('X = 1\nRESULT_NAMES = {"lstm_step": 3}\n', "names.py:2: RESULT_NAMES gives 'lstm_step' 3"),
    ('RESULT_NAMES = ["h_t"]\n', "names.py:1: RESULT_NAMES must be a dict"),
    ('ARG_NAMES = {"lstm_step": "x, h"}\n', "names.py:1: ARG_NAMES gives 'lstm_step'"),
    ('BUILDERS = {"lstm_step": lambda draw: None}\n', "names.py:1: BUILDERS gives 'lstm_step'"),
])
def test_counterexample_names_and_builders_of_the_wrong_type_are_course_errors(tmp_path, source, expected):
    course = course_copy(tmp_path)
    (course / "exercises" / "checks").mkdir()
    (course / "exercises" / "checks" / "names.py").write_text(source)
    for args in (("validate", "--course", course),
                 ("check", "--course", course, with_mistake(tmp_path, "swapped_outputs"))):
        code, out, err = cli(*args)
        assert code == 2, out + err
        assert expected in err and "internal error" not in err


def test_a_builder_that_raises_is_a_course_error_found_by_validate(tmp_path):
    course = course_copy(tmp_path)
    (course / "exercises" / "checks").mkdir()
    (course / "exercises" / "checks" / "inputs.py").write_text(
        "from grader.checks.choices import builder, integers\n\n\n"
        "@builder\n"
        "def broken(draw):\n"
        "    n = draw(integers(1, 3))\n"
        "    raise ValueError(f'no case of size {n}')\n\n\n"
        "BUILDERS = {'lstm_step': broken()}\n")
    code, out, err = cli("check", "--course", course, with_mistake(tmp_path, "gate_order"))
    assert code == 2 and "internal error" not in err, out + err
    assert "inputs.py:7" in err and "counterexample search for lstm_step()" in err
    code, out, err = cli("validate", "--course", course)
    assert code == 2 and "inputs.py:7" in err, out + err
    assert "problem: the counterexample builder of lstm_step() raised (at " in out


def test_a_builder_whose_calls_the_reference_refuses_is_a_validate_problem(tmp_path):
    """A builder that draws W one column wider than 4*H: every call it draws is one no correct
    function need accept, which students would otherwise be shown."""
    course = course_copy(tmp_path)
    (course / "exercises" / "checks").mkdir()
    (course / "exercises" / "checks" / "inputs.py").write_text(
        "import numpy as np\n"
        "from grader.checks.api import Case\n"
        "from grader.checks.choices import builder, integers\n\n\n"
        "@builder\n"
        "def wide(draw):\n"
        "    B, d, H = draw(integers(1, 2)), draw(integers(1, 2)), draw(integers(1, 2))\n"
        "    z = np.zeros\n"
        "    return Case((z((B, d)), z((B, H)), z((B, H)), z((d, 4 * H + 1)), z((H, 4 * H)), z(4 * H)))\n\n\n"
        "BUILDERS = {'lstm_step': wide()}\n")
    code, out, err = cli("validate", "--course", course, "--only", "lstm")
    assert code == 1, out + err
    assert "problem: the reference raises on 8 of the 8 counterexample inputs of lstm_step()" in out


def test_a_reference_that_refuses_the_declared_inputs_is_a_course_error(tmp_path):
    """Not 'check the return type against the statement' (the student's message), nor a problem
    of a check that broke: the YAML's check at its line, and the reference's line that raised."""
    course = course_copy(tmp_path)
    yaml_path = course / "exercises" / "lstm.yaml"
    edit(yaml_path, "{name: U, shape: [H, 4*H], scale: 0.5}", "{name: U, shape: [H, 3*H], scale: 0.5}")
    for args in (("validate", "--course", course),
                 ("check", "--course", course, course / "solutions" / "reference")):
        code, out, err = cli(*args)
        assert code == 2, out + err
        assert "lstm.yaml:" in err and "check 'matches_reference'" in err and "the reference lstm_step()" in err
        assert "gates.py:" in err and "internal error" not in err


def test_a_known_mistake_that_does_not_compile_is_a_course_error(tmp_path):
    course = course_copy(tmp_path)
    (course / "solutions" / "mistakes" / "lstm" / "gate_order.py").write_text("def lstm_step(x:\n")
    code, out, err = cli("validate", "--course", course)
    assert code == 2, out + err
    assert "gate_order.py:1" in err and "does not compile" in err


# ---------------------------------------------------------------- 6. no_state catches a kept argument

KEEPS_X = '''
_SEEN = {}


def standardize(X, axis=0, eps=1e-8):
    X = _SEEN.setdefault((X.shape, axis), X)
    mean = X.mean(axis=axis, keepdims=True)
    std = np.sqrt(((X - mean) ** 2).mean(axis=axis, keepdims=True))
    return (X - mean) / (std + eps)
'''


def test_no_state_catches_a_function_that_keeps_its_argument(tmp_path):
    folder = with_mistake(tmp_path, "keeps_x", STATS, "standardize", "stats.py", code=KEEPS_X)
    _, data = report(tmp_path, folder, STATS, env={"GRADER_REVEAL_HIDDEN": "1"})
    check = check_of(data, "standardize", "no_state")
    assert not check["passed"] and "carries state" in check["message"]
    _, data = report(tmp_path, with_mistake(tmp_path, "keeps_weights"))
    assert not check_of(data, "lstm", "no_state")["passed"]


def test_no_state_still_passes_the_reference_and_a_copying_function(tmp_path):
    copying = KEEPS_X.replace("X = _SEEN.setdefault((X.shape, axis), X)",
                              "X = _SEEN.setdefault(id(X), X.copy()) * 0 + X")
    folder = with_mistake(tmp_path, "copies", STATS, "standardize", "stats.py", code=copying)
    _, data = report(tmp_path, folder, STATS, env={"GRADER_REVEAL_HIDDEN": "1"})
    assert check_of(data, "standardize", "no_state")["passed"]


# ---------------------------------------------------------------- 7. hints per way of failing

def test_the_hint_shown_is_the_one_for_the_way_the_check_failed(tmp_path):
    """Issue 39: a named mistake's own hint is the one cause shown in its exercise (the checks show their
    generic hints); a hint per way of failing is shown where that way matched and nothing is named."""
    swapped = view(with_mistake(tmp_path, "swapped_outputs"))
    assert shown(swapped, "lstm", "matches_reference").hint.startswith("Compare your gates with the statement")
    assert shown(swapped, "lstm", "saturated").hint.startswith("Every gate is saturated")   # no values hint: generic
    with Grader(load_course(GATES)) as grader:
        result = grade_path(with_mistake(tmp_path, "unstable_sigmoid"), grader, kind="authoring")
    named = build_view(result, "en")
    assert [d.id for d in named.exercises[0].diagnoses] == ["lstm.unstable_sigmoid"]
    assert shown(named, "lstm", "saturated").hint.startswith("Every gate is saturated")   # its own hint says why
    result.exercises[0].diagnoses = []     # the same failure with nothing named: its way of failing is the evidence
    assert shown(build_view(result, "en"), "lstm", "saturated").hint.startswith("exp(1000) overflows")   # not finite
    assert shown(build_view(result, "zh"), "lstm", "saturated").hint.startswith("exp(1000) 溢出")


def test_failure_kinds_and_a_bad_hint_kind():
    assert failure_kind("cmp.shape") == "shape" and failure_kind("cmp.array_not_finite") == "not_finite"
    assert failure_kind("cmp.values") == "values" and failure_kind("err.exception") == "raised"
    assert failure_kind("prop.state_carried") is None
    assert set(HINT_KINDS) == {"shape", "values", "not_finite", "raised"}


def test_an_unknown_hint_kind_is_a_course_error(tmp_path):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "lstm.yaml", "      not_finite:\n", "      overflow:\n")
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert "lstm.yaml:" in str(info.value) and "'overflow'" in str(info.value)


# ---------------------------------------------------------------- 8. known wrong quiz answers

def test_a_known_wrong_quiz_answer_is_named_with_its_explanation(tmp_path):
    folder = tmp_path / "answers"
    shutil.copytree(GATES / "solutions" / "reference", folder)
    (folder / "answers.yaml").write_text("lstm_params: 2560\ncandidate_activation: A\n")
    for lang, words, title in (("en", "Two bias vectors counted", "lstm_params: the answer 2560"),
                               ("zh", "数了两个偏置向量", "lstm_params：答案 2560")):
        quiz = next(e for e in view(folder, lang=lang).exercises if e.id == "quiz")
        named = {d.id: d for d in quiz.diagnoses}
        assert set(named) == {"quiz.lstm_params=2560", "quiz.candidate_activation=A"}, named
        assert words in named["quiz.lstm_params=2560"].explanation and named["quiz.lstm_params=2560"].title == title
        assert "2560" in shown(view(folder, lang=lang), "quiz", "lstm_params").message
        assert quiz.carrier is not None and quiz.carrier.name == "lstm_params"
    _, data = report(tmp_path, folder)
    assert next(e for e in data["exercises"] if e["id"] == "quiz")["diagnoses"] == [
        "quiz.lstm_params=2560", "quiz.candidate_activation=A"]
    spec = load_course(GATES).exercises["quiz"].checks[0].question
    assert known_wrong(spec, "2,560") == 2560 and known_wrong(spec, 2481) is None
    assert grade_answer(spec, 2480, 2480).fraction == 1.0 and known_wrong(spec, 2480) is None


def test_a_known_wrong_answer_equal_to_the_key_is_a_course_error(tmp_path):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "quiz.yaml", "      620:", "      2480:")
    line = next(i for i, text in enumerate((course / "exercises" / "quiz.yaml").read_text().splitlines(), 1)
                if "- key: lstm_params" in text)
    code, out, err = cli("validate", "--course", course)
    assert code == 2, out + err
    assert f"quiz.yaml:{line}: question 'lstm_params' lists 2480" in err
    code, out, err = cli("check", "--course", course, course / "solutions" / "reference")
    assert code == 2 and "quiz.yaml" in err


def test_wrong_answers_are_for_number_and_choice_questions(tmp_path):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "quiz.yaml", "format: choice", "format: list")
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert "quiz.yaml:" in str(info.value) and "wrong answers are for" in str(info.value)


# ---------------------------------------------------------------- 9. guards: safety nets

def test_guard_checks_need_no_known_mistake_but_must_be_able_to_fail(tmp_path, monkeypatch):
    from grader.grading import validate

    course = load_course(GATES)
    guards = [c.id for c in course.exercises["lstm"].checks if c.guards]
    assert guards == ["shape_dtype", "inputs_unchanged"]
    lines = []
    assert validate.validate_course(course, echo=lines.append).ok     # no known mistake fails either
    assert any("generated: float32 result" in line for line in lines)
    # without the generated mistake that modifies an argument, nothing can fail inputs_unchanged
    monkeypatch.setattr(validate, "GENERATED", {k: v for k, v in validate.GENERATED.items()
                                                if k != "modified argument"})
    report_ = validate.validate_course(load_course(GATES), echo=lambda line: None)
    assert report_.problems == ["no known mistake fails lstm.inputs_unchanged, nor a generated one "
                                "(float32 result, state kept between calls): a check declared guards: true "
                                "must be able to fail"]


def test_guards_must_be_a_bool(tmp_path):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "lstm.yaml", "guards: true ", "guards: yes please ")
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert "lstm.yaml:" in str(info.value) and "'guards'" in str(info.value)


# ---------------------------------------------------------------- 10. the guide

def test_the_guide_documents_every_declared_key_and_the_worked_example():
    guide = GUIDE.read_text(encoding="utf-8")
    table = guide[guide.index("### Every key of a declared check"):]
    table = table[:table.index("\n## ")]
    for key in (*ENTRY_KEYS, *SPEC_KEYS, *GRADIENT_KEYS, *VALUES, *HINT_KINDS, "returns", "wrong"):
        assert f"`{key}`" in table, key
    for kind in ("reference", "shape_dtype", "inputs_unchanged", "no_state", "gradient"):
        assert f"| `{kind}` |" in table, kind
    for words in ("BUILDERS", "ARG_NAMES", "RESULT_NAMES", "4*H", "fill: 1000", "returns: [h_t, c_t]",
                  "feeds the counterexample search", "guards: true", "tests/courses/gates"):
        assert words in guide, words
    # the worked example is the tested course's own YAML
    example = (GATES / "exercises" / "lstm.yaml").read_text(encoding="utf-8")
    for line in ("returns: [h_t, c_t]", "{name: W, shape: [d, 4*H], scale: 0.5}",
                 "{name: b, shape: [4*H], fill: 1000}"):
        assert line in example and line in guide, line


def test_case_labels_show_the_sizes():
    check = declared({"args": PACKED, "sizes": [{"B": 1, "d": 2, "H": 3}]})
    (case,) = _cases(list(check.builder.args[0]), {}, [{"B": 1, "d": 2, "H": 3}], np.random.default_rng(0))
    assert isinstance(case, Case) and case.label == "B=1, d=2, H=3"


# ---------------------------------------------------------------- the items again, on the stats course
# (which loads on the code before issue 33: each of these failed there for the reason its item names)

HINT_BEFORE = '      zh: "逐项对照公式：均值、总体标准差（ddof=0），以及加在标准差上的 eps。"\n'
HINT_AFTER = HINT_BEFORE + ('      values: {en: "VALUES: ddof=0.", zh: "数值：ddof=0。"}\n'
                            '      shape: {en: "SHAPE: keepdims=True.", zh: "形状：keepdims=True。"}\n')
WRONG_BEFORE = "      zh: \"贝塞尔校正。\"\n"
WRONG_AFTER = WRONG_BEFORE + ('    wrong:\n      0: {en: "ddof=0 is the population variance: biased.", '
                              'zh: "ddof=0 是总体方差：有偏。"}\n')


def stats_with(tmp_path: Path, names: str | None = None) -> Path:
    course = course_copy(tmp_path, STATS)
    if names is not None:
        (course / "exercises" / "checks").mkdir()
        (course / "exercises" / "checks" / "names.py").write_text(names)
    return course


def test_item4_5_tuple_result_names_in_python_are_no_internal_error(tmp_path):
    """The issue's reproduction: RESULT_NAMES = {"f": ("a", "b")} ended `grade check` with an
    internal error (exit 3: can only concatenate tuple (not "str") to tuple)."""
    course = stats_with(tmp_path, 'RESULT_NAMES = {"standardize": ("Z",)}\n')
    folder = with_mistake(tmp_path, "sample_std", STATS, "standardize", "stats.py")
    code, out, err = cli("check", "--course", course, folder, "--lang", "en")
    assert code == 1 and "internal error" not in err, out + err
    assert "Smallest input found where it goes wrong: standardize(X=" in " ".join(out.split())


def test_item5_result_names_of_the_wrong_type_in_the_stats_course(tmp_path):
    """Once: validate said 0 problems and grade check ended with an internal error (exit 3)."""
    course = stats_with(tmp_path, 'RESULT_NAMES = {"standardize": 3}\n')
    folder = with_mistake(tmp_path, "sample_std", STATS, "standardize", "stats.py")
    for args in (("validate", "--course", course), ("check", "--course", course, folder)):
        code, out, err = cli(*args)
        assert code == 2 and "names.py:1: RESULT_NAMES gives 'standardize' 3" in err, out + err


def test_item7_a_hint_per_way_of_failing_in_the_stats_course(tmp_path):
    """The values hint for a mistake that gives wrong values, the shape hint for one that squeezes
    an axis away (once: the one generic hint for both)."""
    course = stats_with(tmp_path)
    edit(course / "exercises" / "standardize.yaml", HINT_BEFORE, HINT_AFTER)
    doubled = ("\n\n_right = standardize\n\n\n"
               "def standardize(X, axis=0, eps=1e-8):\n    return 2 * _right(X, axis, eps)\n")
    values = view(with_mistake(tmp_path, "doubled", STATS, "standardize", "stats.py", code=doubled), course)
    assert shown(values, "standardize", "matches_reference").hint == "VALUES: ddof=0."
    sample_std = view(with_mistake(tmp_path, "sample_std", STATS, "standardize", "stats.py"), course)
    assert shown(sample_std, "standardize", "matches_reference").message_key == "cmp.array_not_finite"
    assert shown(sample_std, "standardize", "matches_reference").hint.startswith("Check the formula term by term")
    squeezes = view(with_mistake(tmp_path, "squeezes", STATS, "standardize", "stats.py"), course, "zh")
    # issue 39: the named standardize.squeezes brings its own hint; the checks show their generic ones
    assert [d.id for d in squeezes.exercises[0].diagnoses] == ["standardize.squeezes"]
    assert shown(squeezes, "standardize", "matches_reference").hint.startswith("逐项对照公式")
    extra_axis = ("\n\n_right = standardize\n\n\n"
                  "def standardize(X, axis=0, eps=1e-8):\n    return _right(X, axis, eps)[..., None]\n")
    unnamed = view(with_mistake(tmp_path, "extra_axis", STATS, "standardize", "stats.py", code=extra_axis),
                   course, "zh")
    assert not unnamed.exercises[0].diagnoses
    assert shown(unnamed, "standardize", "matches_reference").hint == "形状：keepdims=True。"


def test_item8_a_known_wrong_answer_in_the_stats_course(tmp_path):
    course = stats_with(tmp_path)
    edit(course / "exercises" / "quiz.yaml", WRONG_BEFORE, WRONG_AFTER)
    folder = tmp_path / "answers"
    shutil.copytree(STATS / "solutions" / "reference", folder)
    key = (folder / "answers.yaml").read_text()
    (folder / "answers.yaml").write_text(key.replace("unbiased_ddof: 1", "unbiased_ddof: 0"))
    quiz = next(e for e in view(folder, course).exercises if e.id == "quiz")
    assert [d.id for d in quiz.diagnoses] == ["quiz.unbiased_ddof=0"]
    assert quiz.diagnoses[0].explanation == "ddof=0 is the population variance: biased."
    edit(course / "exercises" / "quiz.yaml", "      0: {en:", "      1: {en:")     # now the key itself
    code, out, err = cli("validate", "--course", course, "--only", "quiz")
    assert code == 2 and "question 'unbiased_ddof' lists 1 as a known wrong answer" in err, out + err


def test_item9_a_guard_check_of_the_stats_course_needs_no_known_mistake(tmp_path):
    """stats' inputs_unchanged declared guards: true, without the known mistake that fails it: once
    'no known mistake fails standardize.inputs_unchanged', now proven by a generated mistake."""
    course = stats_with(tmp_path)
    edit(course / "exercises" / "standardize.yaml", "  - id: inputs_unchanged\n",
         "  - id: inputs_unchanged\n    guards: true\n")
    catalogue = course / "solutions" / "mistakes" / "standardize" / "catalogue.yaml"
    text = catalogue.read_text()
    catalogue.write_text(text[:text.index("standardize.in_place:")]
                         + text[text.index("standardize.accumulates_stats:"):])
    code, out, err = cli("validate", "--course", course, "--only", "standardize")
    assert code == 0 and "0 problems" in out, out + err
    assert "standardize (generated: modified argument)" in out


def test_the_kit_of_the_gates_course_grades_every_mistake_as_the_instructor_does(tmp_path):
    """The student kit (what `grade release` records, no reference) of a course with packed shapes,
    fill: and returns: grades the visible checks and names the mistakes as the instructor's copy."""
    import uuid

    from grader.kit.data import write_kit_data
    from grader.submission.load import load_submission
    from grader.grading.validate import mistake_folder

    instructor = load_course(GATES)
    root = tmp_path / "kit-course"
    shutil.copytree(GATES / "exercises", root / "exercises")
    write_kit_data(instructor, root / "kit")
    kit = load_course(root)
    assert kit.is_kit
    with Grader(instructor, counterexamples=False, hidden=False) as a, Grader(kit, counterexamples=False) as b:
        for mistake in instructor.exercises["lstm"].mistakes:
            folder = mistake_folder(instructor, mistake, mistake.variants[0], tmp_path / mistake.id)
            seen = []
            for grader in (a, b):
                result = grader.grade(load_submission(folder, tmp_path / f"w-{uuid.uuid4().hex[:6]}"), ["lstm"])
                exercise = result.exercises[0]
                seen.append(([(c.name, c.passed) for c in exercise.checks], [d.id for d in exercise.diagnoses]))
            assert seen[0] == seen[1] and seen[1][1] == [mistake.id], (mistake.id, seen)


def test_a_gradient_loss_that_fails_on_its_inputs_is_a_course_error(tmp_path):
    """Once a check that broke (the student read "the grader could not judge the returned value"),
    now the loss at the check's line in the YAML, exit 2."""
    course = stats_with(tmp_path)
    yaml_path = course / "exercises" / "distances_grad.yaml"
    edit(yaml_path, 'loss: "sum(pairwise_sq_dists(A, B) * G)"', 'loss: "sum(pairwise_sq_dists(A, G) * G)"')
    line = next(i for i, text in enumerate(yaml_path.read_text().splitlines(), 1) if "id: finite_differences" in text)
    for args in (("validate", "--course", course, "--only", "distances_grad"),
                 ("check", "--course", course, STATS / "solutions" / "reference")):
        code, out, err = cli(*args)
        assert code == 2 and "internal error" not in err, out + err
        where = f"distances_grad.yaml:{line}: check 'finite_differences'"
        assert f"{where}: the loss sum(pairwise_sq_dists(A, G) * G) failed" in err


def test_item4_without_returns_the_search_names_the_result_as_the_checks_do(tmp_path):
    """One value, one name: the stats course declares no returns:, so both the check's message and
    its counterexample say `standardize:` (once: `standardize:` above, `result:` below)."""
    _, data = report(tmp_path, with_mistake(tmp_path, "ignores_axis", STATS, "standardize", "stats.py"), STATS)
    check = check_of(data, "standardize", "other_axis")
    assert check["message"].startswith("standardize: ")
    detail = check["counterexample"].split("\n", 1)[-1]
    assert "standardize: " in detail and "result" not in detail, check["counterexample"]


def test_a_course_error_in_a_hidden_check_does_not_describe_its_inputs(tmp_path):
    course = stats_with(tmp_path)
    edit(course / "exercises" / "standardize.yaml", "    args: [{name: X, shape: [N, D]}]\n    sizes: [{N: 7, D: 2}",
         "    args: [{name: X, shape: [N, D]}]\n    kwargs: {axis: {value: 2}}\n    sizes: [{N: 7, D: 2}")
    code, out, err = cli("check", "--course", course, STATS / "solutions" / "reference")
    assert code == 2 and "check 'no_state': the reference standardize() raised on a hidden check's inputs" in err
    assert "N=7" not in err, err


def test_returns_naming_another_number_of_results_is_a_course_error(tmp_path):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "lstm.yaml", "returns: [h_t, c_t]", "returns: [h_t, c_t, n_t]")
    code, out, err = cli("validate", "--course", course)
    assert code == 2, out + err
    assert ("lstm.yaml: returns names 3 results of lstm_step() (h_t, c_t, n_t), "
            "but the reference returns a tuple of 2") in err


@pytest.mark.parametrize("returns, expected", [
    ("returns: {gru_step: h_t}", "returns names 'gru_step', which is not one of the exercise's functions"),
    ("returns: [h_t, 3]", "returns: give a name, or a list of names"),
    ("returns: []", "returns: give a name, or a list of names"),
])
def test_a_malformed_returns_is_a_course_error(tmp_path, returns, expected):
    course = course_copy(tmp_path)
    edit(course / "exercises" / "lstm.yaml", "returns: [h_t, c_t]", returns)
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert "lstm.yaml:" in str(info.value) and expected in str(info.value)
