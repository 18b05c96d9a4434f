"""What is graded: the kit's notebook when its .py stubs are untouched, and messages naming what
the student handed in (grader/grading/graded_work.py).

Graded through the command line, as a student runs it (`python -m grader check ...`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from conftest import REFERENCE, ROOT, STUDENT_MODULES, notebook_from_source, single_file_source
from grader.course.loader import bundled_course_root, load_course
from grader.grading.graded_work import holds_no_work, prepare, py_unchanged, rewrite_course_imports
from grader.kit.release import build_notebook, write_kit
from grader.submission.load import load_submission

NOTEBOOK = "rnn_exercises.ipynb"


def run(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def check_json(path, *only):
    code, out, err = run("check", path, "--format", "json", "--lang", "en",
                         *[a for exercise in only for a in ("--only", exercise)])
    assert code in (0, 1), err
    return code, json.loads(out)


def messages(report) -> list[str]:
    return [c["message"] for e in report["exercises"] for c in e["checks"]] + [
        e["problem"] for e in report["exercises"] if e["problem"]]


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """A kit as `grade release` writes it (the grader named as a requirement: no wheel to build)."""
    folder = tmp_path_factory.mktemp("released") / "kit"
    write_kit(load_course(bundled_course_root()), folder, grader_requirement="rnn-grader")
    return folder


@pytest.fixture
def kit(released, tmp_path):
    folder = tmp_path / "kit"
    shutil.copytree(released, folder)
    return folder


def fill_notebook(path: Path, answers: bool = True) -> None:
    """The kit's notebook worked in: each stub cell holds the reference's file, leftover imports of
    the other files included (as a student copying from a folder would have them), and the
    ANSWERS dict the reference's answers."""
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        first = cell.source.split("\n", 1)[0]
        if re.fullmatch(r"# \w+\.py", first):
            cell.source = first + "\n" + (REFERENCE / first[2:]).read_text(encoding="utf-8")
        elif "ANSWERS" in cell.source and answers:
            cell.source = "ANSWERS = " + repr(yaml.safe_load((REFERENCE / "answers.yaml").read_text(encoding="utf-8")))
    nbformat.write(nb, str(path))


# ---------------------------------------------------------------- the kit's notebook or its .py files

def test_the_kits_readme_says_when_the_notebook_is_graded(kit):
    readme = (kit / "README.md").read_text(encoding="utf-8")
    english, chinese = readme.split("## 中文", 1)
    assert "while you leave them as they" in english and "grade the notebook instead" in english
    assert "就改为评测笔记本" in chinese.split("## Exercises", 1)[0]


def test_notebook_worked_in_with_untouched_stubs_is_graded_with_full_marks(kit):
    fill_notebook(kit / NOTEBOOK)
    # untouched all the same: saved with Windows line endings, a comment added
    stub = kit / "param_count.py"
    stub.write_bytes(stub.read_bytes().replace(b"\n", b"\r\n"))
    with open(kit / "rnn_forward.py", "a", encoding="utf-8") as fh:
        fh.write("\n# I will do this one in the notebook\n")
    code, report = check_json(kit)
    assert code == 0 and report["score"] == report["max_score"] > 0
    assert all(e["score"] == e["max_score"] for e in report["exercises"])
    assert report["notes"][0].startswith(f"Graded {NOTEBOOK}: no .py file of the course here was changed from its stub")
    # the reference's `from rnn_step import rnn_step` lines: skipped, and each named by its cell
    leftover = next(n for n in report["notes"] if "imports course files" in n)
    assert "`from rnn_step import rnn_step` (cell " in leftover and "Delete them." in leftover
    assert not any("ignored: the .py files are graded" in n for n in report["notes"])
    code, out, _ = run("check", kit, "--only", "step", "--lang", "en")
    assert code == 0 and f"Graded {NOTEBOOK}" in out and "Total: 11/11" in out
    code, out, _ = run("check", kit, "--only", "step", "--lang", "zh")
    assert code == 0 and f"评分对象是 {NOTEBOOK}" in out


def test_the_kits_pytest_grades_the_notebook_too(kit):
    fill_notebook(kit / NOTEBOOK)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "step"],
                          capture_output=True, text=True, cwd=kit, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Graded {NOTEBOOK}" in proc.stdout and re.search(r"score: (\d+)/\1\b", proc.stdout)


def test_when_both_were_changed_the_py_files_are_graded_and_the_report_says_so(kit):
    fill_notebook(kit / NOTEBOOK)
    shutil.copyfile(REFERENCE / "rnn_step.py", kit / "rnn_step.py")
    _, report = check_json(kit, "step", "forward")
    step, forward = report["exercises"]
    assert step["score"] == step["max_score"] and forward["score"] == 0      # the stub's rnn_forward
    note = report["notes"][0]
    assert note.startswith("Graded the .py files (rnn_step.py changed)") and f"grade check {NOTEBOOK}" in note
    assert "rnn_forward.py" not in note


def test_untouched_notebook_and_worked_py_files_grade_as_before(kit):
    for name in STUDENT_MODULES:
        shutil.copyfile(REFERENCE / f"{name}.py", kit / f"{name}.py")
    code, report = check_json(kit, "step", "masking")
    assert code == 0
    assert not any(n.startswith("Graded") for n in report["notes"])
    assert f"Note: {NOTEBOOK} ignored: the .py files are graded" in report["notes"]


def test_a_notebook_graded_from_the_folder_takes_answers_yaml_only_if_it_holds_answers(kit):
    fill_notebook(kit / NOTEBOOK, answers=False)     # the ANSWERS dict left as released
    _, report = check_json(kit, "quiz")
    assert report["score"] == 0 and "(its quiz answers: the ANSWERS dict)" in report["notes"][0]
    shutil.copyfile(REFERENCE / "answers.yaml", kit / "answers.yaml")
    code, report = check_json(kit, "quiz")
    assert code == 0 and report["score"] == report["max_score"]
    assert "the quiz is graded from answers.yaml" in report["notes"][0]


def test_the_decision_needs_only_the_released_exercises(kit, tmp_path):
    """The student wheel carries the course as exercises/ (and kit data): no solutions needed."""
    shutil.copytree(ROOT / "exercises", tmp_path / "course" / "exercises")
    course = load_course(tmp_path / "course")
    fill_notebook(kit / NOTEBOOK)
    loaded = load_submission(kit, tmp_path / "work")
    submission = prepare(loaded, course)
    assert submission.kind == "notebook" and submission.display_names == {"submission": NOTEBOOK}
    assert submission.answers_file is None and submission.single_module == "submission"
    assert "def rnn_step(" in (submission.root / "submission.py").read_text(encoding="utf-8")
    assert submission.describe_line("submission", 1).startswith(f"{NOTEBOOK}, cell ")
    again = prepare(loaded, course)          # graded twice: decided alike
    assert (again.kind, again.messages) == (submission.kind, submission.messages)


def test_what_counts_as_unchanged(tmp_path):
    course = load_course(bundled_course_root())
    for name in STUDENT_MODULES:
        stub = course.stubs_dir / f"{name}.py"
        assert py_unchanged(stub, stub) and holds_no_work(stub.read_text(encoding="utf-8"))
        assert not py_unchanged(REFERENCE / f"{name}.py", stub)
    released = build_notebook(course)
    code = "\n".join(c.source for c in released.cells if c.cell_type == "code")
    assert holds_no_work(code)
    assert not holds_no_work(code + "\nprint('started')\n")
    assert not holds_no_work(code.replace("ANSWERS = {", "ANSWERS = {'decay_steps': 51, ", 1))
    # an older kit's stub with other docstrings: no work in it
    older = tmp_path / "rnn_step.py"
    older.write_text('"""old"""\nimport numpy as np\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n    pass\n')
    assert py_unchanged(older, course.stubs_dir / "rnn_step.py")


# ---------------------------------------------------------------- a single file or notebook: its own name

def without_function(source: str, name: str) -> str:
    return re.sub(rf"\ndef {name}\(.*?(?=\ndef |\nANSWERS)", "\n", source, flags=re.DOTALL)


def test_a_missing_function_is_named_in_the_file_handed_in(tmp_path):
    source = without_function(single_file_source(), "count_rnn_params")
    homework = tmp_path / "homework.py"
    homework.write_text(source, encoding="utf-8")
    _, report = check_json(homework, "params")
    assert "homework.py does not define a function `count_rnn_params`." in messages(report)
    assert not any("param_count.py" in m for m in messages(report))
    _, report = check_json(notebook_from_source(source, tmp_path / "homework.ipynb"), "params")
    assert "homework.ipynb does not define a function `count_rnn_params`." in messages(report)


def test_an_error_in_a_notebook_names_the_notebook_and_its_cell(tmp_path):
    # A notebook runs cell by cell (issue 40): the cell stops where it raised, what it defined
    # before stays, and the note at the top names the notebook, the cell and the line.
    source = single_file_source() + "\nraise RuntimeError('demo code')\n"
    code, report = check_json(notebook_from_source(source, tmp_path / "homework.ipynb"), "step")
    line = len(source.rstrip("\n").split("\n"))
    assert code == 0 and report["exercises"][0]["problem"] is None and report["score"] == report["max_score"]
    assert report["notes"][0].startswith(
        f"cell [3] stopped: RuntimeError: demo code (homework.ipynb, cell 3, line {line}; the cell begins ")


def test_a_leftover_import_of_a_course_file_in_a_single_file_is_resolved_and_explained(tmp_path):
    reference = "\n\n".join((REFERENCE / f"{m}.py").read_text(encoding="utf-8") for m in ("rnn_step", "rnn_forward"))
    assert "from rnn_step import rnn_step" in reference
    homework = tmp_path / "homework.py"
    homework.write_text("import rnn_step as steps\n" + reference
                        + "\n\ndef twice(x, *w):\n    return steps.rnn_step(x, x, *w)\n", encoding="utf-8")
    code, report = check_json(homework, "step", "forward")
    assert code == 0 and report["score"] == report["max_score"]
    note = report["notes"][0]
    assert note.startswith("homework.py imports course files that are not part of what you handed in: "
                           "`import rnn_step as steps` (line 1); `from rnn_step import rnn_step` (line ")
    assert "homework.py is graded on its own" in note and "Delete them." in note


def test_a_leftover_import_in_a_notebook_cell_is_named_by_its_cell(tmp_path):
    source = single_file_source().replace("def rnn_forward(", "from rnn_step import rnn_step\n\n\ndef rnn_forward(", 1)
    line = source.split("\n").index("from rnn_step import rnn_step") + 1
    code, report = check_json(notebook_from_source(source, tmp_path / "homework.ipynb"), "forward")
    assert code == 0 and report["score"] == report["max_score"]
    assert report["notes"][0] == (
        f"homework.ipynb, cell 3, line {line}: `from rnn_step import rnn_step` imports rnn_step.py, which is not "
        "part of what you handed in: homework.ipynb is graded on its own, so that import was skipped and "
        "homework.ipynb's own functions are used. Delete that line.")


def test_an_import_the_grader_cannot_resolve_is_explained(tmp_path):
    homework = tmp_path / "homework.py"
    homework.write_text("import importlib\nstep = importlib.import_module('rnn_step')\n" + single_file_source(),
                        encoding="utf-8")
    code, report = check_json(homework, "step")
    assert code == 1
    assert report["exercises"][0]["problem"] == (
        "homework.py imports rnn_step (homework.py, line 2), a course file that is not part of what you handed in: "
        "homework.py is graded on its own and must define every function itself. Delete that import.")


def test_rewriting_keeps_every_line_and_leaves_other_imports_and_strings():
    source = (
        "import numpy as np\n"
        "from rnn_step import rnn_step, scalar_rnn as scalar\n"
        "import math, rnn_forward\n"
        "from masking import (sequence_mask,\n"
        "                     rnn_forward_masked)  # both\n"
        "x = 1; from bptt import *\n"
        "TEXT = '''\nfrom rnn_step import rnn_step\n'''\n"
        "def f():\n"
        "    from rnn_step import rnn_step\n"
        "    return rnn_step\n"
        "from numpy.linalg import norm\n"
        "from rnn_step.x import y\n")
    names = {"rnn_step", "rnn_forward", "masking", "bptt"}
    out, found = rewrite_course_imports(source, names, "submission")
    assert out.count("\n") == source.count("\n")
    compile(out, "submission.py", "exec")
    assert [(line, module) for line, _, module in found] == [
        (2, "rnn_step"), (3, "rnn_forward"), (4, "masking"), (6, "bptt"), (11, "rnn_step")]
    lines = out.split("\n")
    assert lines[1] == "scalar = lambda *args, **kwargs: scalar_rnn(*args, **kwargs)"
    assert lines[2] == "import math; import submission as rnn_forward"
    assert lines[3:5] == ["pass", "  # both"] and lines[5] == "x = 1; pass"
    assert "from rnn_step import rnn_step\n'''" in out and lines[10] == "    pass"
    assert lines[-3:-1] == ["from numpy.linalg import norm", "from rnn_step.x import y"]
    assert rewrite_course_imports("import numpy\n", names, "submission") == ("import numpy\n", [])
