"""A course is a folder: its checks, messages, order and title come with it (issue 11).

A small course written in a temporary folder, one exercise (``relu``) with its own Python
check module, one (``relu_grad``) declared in YAML only, a course file and messages, is
listed, validated and graded through the CLI; its mistakes are named; errors in its files
name file and line; two courses in one process keep their modules and messages apart.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.checks.api import check
from grader.course.loader import CourseError, bundled_course_root, load_course
from grader.base.i18n import render

ROOT = Path(__file__).resolve().parents[2]

EXERCISE = """\
id: relu
file: activations.py
functions: [relu]
title: {en: ReLU, zh: ReLU 激活}
statement: {en: "Write relu(x): max(x, 0) elementwise.", zh: "写出 relu(x)：逐元素取 max(x, 0)。"}
signatures: ["def relu(x: np.ndarray) -> np.ndarray"]
checks:
  - id: matches_reference
    points: 2
    title: {en: Same as the reference, zh: 与参考实现一致}
    hint: {en: Negative inputs give 0., zh: 负数输入得 0。}
  - id: never_negative
    points: 1
    hidden: true
    title: {en: Never negative, zh: 不会为负}
"""

CHECKS = '''\
import numpy as np

from grader.checks.api import Case, Fail, check

from .shapes import SHAPES


@check("relu", "matches_reference")
def matches_reference(ctx):
    ctx.check_reference("relu cases", "relu", lambda rng: [Case((rng.normal(size=s) * 3,)) for s in SHAPES])


@check("relu", "never_negative")
def never_negative(ctx):
    case = ctx.cached("relu negatives", lambda rng: Case((-np.abs(rng.normal(size=(4, 3))) - 1,)))
    got = ctx.call("relu", case)
    if np.any(np.asarray(got) < 0):
        raise Fail("relu.negative", name="relu")
'''

# An exercise declared in YAML only (grader/course/declared_checks.py): no Python check.
DECLARED = """\
id: relu_grad
file: activations.py
functions: [relu_grad]
title: {en: ReLU's derivative, zh: ReLU 的导数}
statement: {en: "relu_grad(x): 1.0 where x > 0, else 0.0, as floats.", zh: "relu_grad(x)：x > 0 处为 1.0，其余为 0.0（浮点数）。"}
checks:
  - {id: shape_dtype, kind: shape_dtype, points: 1, args: [{shape: [B, d]}],
     title: {en: Shape and dtype, zh: 形状与 dtype}}
  - {id: matches_reference, kind: reference, points: 2, args: [{shape: [B, d], values: extreme}],
     title: {en: Same as the reference, zh: 与参考实现一致}}
  - {id: inputs_unchanged, kind: inputs_unchanged, points: 1, args: [{shape: [B, d]}],
     title: {en: Input unchanged, zh: 不修改输入}}
  - {id: no_state, kind: no_state, points: 1, args: [{shape: [B, d]}], sizes: [{B: 4, d: 7}, {B: 4, d: 7}],
     title: {en: No state between calls, zh: 调用之间不保留状态}}
"""  # noqa: E501 -- the course file as an author writes it: its statement is one line

REFERENCE = ("import numpy as np\n\n\ndef relu(x):\n    return np.maximum(x, 0.0)\n\n\n"
             "def relu_grad(x):\n    return (x > 0).astype(float)\n")
STUB = ("import numpy as np\n\n\ndef relu(x):\n    raise NotImplementedError\n\n\n"
        "def relu_grad(x):\n    raise NotImplementedError\n")
GRAD_MISTAKES = {
    "bool_dtype.py": "def relu_grad(x):\n    return x > 0\n",
    "in_place.py": "def relu_grad(x):\n    x[...] = x > 0\n    return x\n",
    # the first answer for each shape is kept (no_state's shapes are its own: its first call is fresh)
    "first_answer_kept.py": "_KEPT = {}\n\n\ndef relu_grad(x):\n    if x.shape not in _KEPT:\n"
                            "        _KEPT[x.shape] = (x > 0).astype(float)\n    return _KEPT[x.shape]\n",
    "catalogue.yaml": """\
relu_grad.bool_dtype:
  title: {en: A boolean array instead of floats, zh: 返回布尔数组而不是浮点数}
  explanation: {en: "The derivative is a float array.", zh: "导数是浮点数组。"}
  fails: [shape_dtype, matches_reference]
relu_grad.in_place:
  title: {en: The input overwritten, zh: 覆盖了输入}
  explanation: {en: "x must stay as it was.", zh: "不能修改 x。"}
  fails: [inputs_unchanged]
relu_grad.first_answer_kept:
  title: {en: The first call's answer kept, zh: 保留了第一次调用的结果}
  explanation: {en: "Each call depends on its own input only.", zh: "每次调用只取决于它自己的输入。"}
  fails: [no_state]
""",
}
MISTAKE = "def relu(x):\n    return np.where(x > 0, x, 0.5 * x)\n"
CATALOGUE = """\
relu.leaky_half:
  title: {en: Negative inputs halved instead of zeroed, zh: 负数输入被减半而不是置零}
  explanation: {en: "Negative inputs must give exactly 0.", zh: "负数输入必须得到 0。"}
  fails: [matches_reference, never_negative]
"""


def write_course(root: Path, checks: str = CHECKS) -> Path:
    files = {
        "exercises/relu.yaml": EXERCISE,
        "exercises/course.yaml": "title: {en: Activations, zh: 激活函数}\nnotebook: activations.ipynb\norder: [relu]\n",
        "exercises/checks/relu.py": checks,
        "exercises/checks/shapes.py": "SHAPES = [(1,), (1, 1), (3, 1), (1, 4), (5, 7)]\n",
        "exercises/locales/en/relu.yaml": 'relu.negative: "`{name}` returned a negative value."\n',
        "exercises/locales/zh/relu.yaml": 'relu.negative: "`{name}` 返回了负数。"\n',
        "exercises/stubs/activations.py": STUB,
        "solutions/reference/activations.py": REFERENCE,
        "solutions/mistakes/relu/leaky_half.py": MISTAKE,
        "solutions/mistakes/relu/catalogue.yaml": CATALOGUE,
        "exercises/relu_grad.yaml": DECLARED,
        **{f"solutions/mistakes/relu_grad/{name}": text for name, text in GRAD_MISTAKES.items()},
    }
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    return root


def grade(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env={"PATH": "/usr/bin:/bin", "GRADER_SECRET": "x" * 32})


def test_a_course_of_its_own_is_listed_validated_and_graded(tmp_path):
    course = write_course(tmp_path / "activations")
    listed = grade("list", "--course", course)
    assert listed.returncode == 0, listed.stderr
    assert "relu" in listed.stdout and "step" not in listed.stdout
    validated = grade("validate", "--course", course)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "relu.leaky_half" in validated.stdout and "0 problems" in validated.stdout
    # Declared checks fail only for what their names say: a bool result loses shape_dtype and
    # matches_reference (3 points), not inputs_unchanged or no_state; overwriting x loses only
    # inputs_unchanged.
    assert re.search(r"relu_grad\.bool_dtype\s+2/5\s+fails\s+2 checks", validated.stdout), validated.stdout
    assert re.search(r"relu_grad\.in_place\s+4/5\s+fails\s+1 checks", validated.stdout), validated.stdout
    graded = grade("check", "--course", course, course / "solutions" / "reference", "--format", "json")
    assert graded.returncode == 0, graded.stderr
    assert '"score": 8' in graded.stdout and '"max_score": 8' in graded.stdout


def test_its_mistake_is_named_and_its_own_messages_and_title_are_used(tmp_path):
    course = write_course(tmp_path / "activations")
    student = tmp_path / "student"
    student.mkdir()
    # written otherwise
    (student / "activations.py").write_text(REFERENCE.replace("return np.maximum(x, 0.0)",
                                                              "return x * (x > 0) + x * (x <= 0) / 2"))
    text = grade("check", "--course", course, student)
    assert text.returncode == 1
    assert "Activations: grading report" in text.stdout
    assert "Negative inputs halved instead of zeroed" in text.stdout
    zh = grade("check", "--course", course, student, "--lang", "zh")
    assert "激活函数：评分报告" in zh.stdout


def test_the_courses_order_and_notebook_come_from_its_course_file(tmp_path):
    course = load_course(write_course(tmp_path / "activations"))
    assert list(course.exercises) == ["relu", "relu_grad"]
    assert course.info.notebook == "activations.ipynb" and course.info.title["en"] == "Activations"
    bundled = load_course(bundled_course_root())
    assert list(bundled.exercises)[:3] == ["step", "scalar", "forward"]
    assert bundled.info.notebook == "rnn_exercises.ipynb"


def test_two_courses_in_one_process_keep_their_checks_and_messages(tmp_path):
    first = load_course(write_course(tmp_path / "a"))
    second = load_course(write_course(tmp_path / "b", CHECKS.replace("relu.negative", "relu.negative_b")))
    assert set(first.registry.checks) == {"relu", "relu_grad"} == set(second.registry.checks)
    assert first.registry.checks["relu"]["never_negative"] is not second.registry.checks["relu"]["never_negative"]
    bundled = load_course(bundled_course_root())
    assert "relu" not in bundled.registry.checks and "step" in bundled.registry.checks
    assert first.messages.render("relu.negative", "en", name="f") == "`f` returned a negative value."
    assert render("relu.negative", "en", name="f") == "relu.negative {'name': 'f'}"   # the package's: no course's


OTHER_MESSAGES = {"en": 'relu.negative: "`{name}` went below zero (course B)."\n',
                  "zh": 'relu.negative: "`{name}` 小于零（课程 B）。"\n'}


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_each_courses_results_render_with_its_own_messages(tmp_path, order):
    """Two courses in one process whose locales word one key differently, and whose titles differ:
    each course's result is shown with its own messages and title, whichever was loaded last."""
    from grader.grading.engine import Grader
    from grader.report import render_view
    from grader.report.view import build
    from grader.submission.load import load_submission

    roots = {"a": write_course(tmp_path / "a"), "b": write_course(tmp_path / "b")}
    for lang, line in OTHER_MESSAGES.items():
        (roots["b"] / f"exercises/locales/{lang}/relu.yaml").write_text(line, encoding="utf-8")
    (roots["b"] / "exercises/course.yaml").write_text(
        "title: {en: Other course, zh: 另一门课}\nnotebook: activations.ipynb\norder: [relu]\n", encoding="utf-8")
    student = tmp_path / "student"
    student.mkdir()
    (student / "activations.py").write_text(REFERENCE.replace("return np.maximum(x, 0.0)", "return x - 1.0"))
    courses = {name: load_course(roots[name]) for name in order}   # the last loaded is the other one each time
    results = {}
    for name, course in courses.items():
        with Grader(course, isolation="none", counterexamples=False) as grader:
            results[name] = grader.grade(load_submission(student, tmp_path / f"work-{name}"), ("relu",))
    own = {"a": {"en": ("`relu` returned a negative value.", "Activations: grading report"),
                 "zh": ("`relu` 返回了负数。", "激活函数：评分报告")},
           "b": {"en": ("`relu` went below zero (course B).", "Other course: grading report"),
                 "zh": ("`relu` 小于零（课程 B）。", "另一门课：评分报告")}}
    for name, course in courses.items():
        other = "b" if name == "a" else "a"
        for lang in ("en", "zh"):
            view = build(results[name], lang, course.messages, reveal=True)
            report = render_view(view, "text")
            message, title = own[name][lang]
            assert message in report and title in report, report
            assert own[other][lang][0] not in report and own[other][lang][1] not in report, report
            hidden = next(c for c in results[name].exercises[0].checks if c.name == "never_negative")
            assert course.messages.render(hidden.message.key, lang, **hidden.message.params) == message


@pytest.mark.parametrize("change, where", [
    (lambda root: (root / "exercises/checks/relu.py").write_text("import numpy as np\n\ndef broken(:\n"), "relu.py:3"),
    (lambda root: (root / "exercises/checks/relu.py").write_text("from .missing import X\n"), "relu.py:1"),
    (lambda root: (root / "exercises/course.yaml").write_text("title: {en: A, zh: B}\norder: [relu, nope]\n"),
     "course.yaml"),
    (lambda root: (root / "exercises/course.yaml").write_text("title: {en: A}\n"), "course.yaml:1"),
    (lambda root: (root / "exercises/locales/en/relu.yaml").write_text("relu.negative: [1, 2]\n"), "relu.yaml:1"),
    (lambda root: (root / "exercises/checks/relu.py").write_text(CHECKS.replace('"never_negative")', '"other")')),
     "relu.yaml"),
    (lambda root: (root / "exercises/relu_grad.yaml").write_text(DECLARED.replace("kind: no_state", "kind: no_sate")),
     "relu_grad.yaml:13: check 'no_state': kind 'no_sate'"),
    (lambda root: (root / "exercises/relu_grad.yaml").write_text(DECLARED.replace("{B: 4, d: 7}, {B: 4, d: 7}",
                                                                                  "{B: 2}, {B: 4, d: 7}")),
     "relu_grad.yaml:13: check 'no_state': sizes must"),
    (lambda root: (root / "exercises/relu_grad.yaml").write_text(DECLARED.replace("values: extreme", "values: huge")),
     "relu_grad.yaml:9: check 'matches_reference': argument 1: values 'huge'"),
])
def test_errors_in_a_courses_files_name_file_and_line_and_exit_2(tmp_path, change, where):
    course = write_course(tmp_path / "broken")
    change(course)
    with pytest.raises(CourseError) as info:
        load_course(course)
    assert where in str(info.value)
    listed = grade("list", "--course", course)
    assert listed.returncode == 2 and "Traceback" not in listed.stderr and where in listed.stderr


def test_check_outside_a_course_loader_is_refused():
    with pytest.raises(RuntimeError, match="course loader"):
        check("relu", "anything")(lambda ctx: None)


def test_the_grader_package_holds_no_check_module():
    package = ROOT / "grader"
    assert not list((package / "suite").glob("*.py"))
    modules = [p for p in package.rglob("*.py") if "@check(" in p.read_text(encoding="utf-8")]
    assert modules == [], modules
    text = textwrap.dedent((package / "course" / "loader.py").read_text(encoding="utf-8"))
    assert "rnn_step" not in text and "CONTRACT_ORDER" not in text


def test_the_grader_package_names_nothing_of_the_rnn_course():
    course = load_course(bundled_course_root())
    names = {*course.exercises, *(f for e in course.exercises.values() for f in e.functions),
             *(e.file.rsplit(".", 1)[0] for e in course.exercises.values()), "RNN", "tanh_bounds", "W_x", "W_h"}
    # plain words, and the quiz's answers file, which every course has (CONTRACT section 4)
    names -= {"quiz", "params", "step", "scalar", "forward", "readout", "answers"}
    # softmax is also a function of the equation quiz type's library (grader/quiz/equation_functions.py)
    names -= {"softmax"}
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\b")
    found = []
    for path in sorted((ROOT / "grader").rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if path.suffix not in (".py", ".yaml", ".yml", ".html", ".md") or "_course" in rel:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line.replace("rnn-grader", "").replace("rnn_grader", "")):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)
