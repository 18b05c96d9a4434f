"""``grade release OUT``: the student kit, with no solutions in it.

The kit holds the stub files and the answers template (copied from
``exercises/stubs``), a notebook version of the same (written with nbformat:
one markdown cell per exercise statement, the stubs as code cells, and an
``ANSWERS`` dict), and ``README.md`` with the instructions in English and
Chinese.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import yaml

from grader.course import CourseError
from grader.i18n import text

NOTEBOOK_NAME = "rnn_exercises.ipynb"
WORKFLOW_PATH = Path(".github") / "workflows" / "grade.yml"
WORKFLOW_TEMPLATE = Path(__file__).resolve().parent / "templates" / "github" / "grade.yml"
# `pytest` in the kit runs the grader's checks (grader/pytest_plugin.py). ASCII only: ini files
# are read in the platform's encoding by some tools.
PYTEST_INI = """\
# Running `pytest` in this folder grades it with rnn-grader: one test per check.
[pytest]
rnn_grader = true
required_plugins = rnn-grader
"""


class ReleaseError(CourseError):
    """The course cannot produce a kit (a stub is missing): bad input, exit 2."""


def write_kit(course, out: Path) -> list[Path]:
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        from grader.cli import BadInput
        raise BadInput(f"{out} exists and is not empty; choose a new folder for the kit")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in course.student_files():
        source = course.stubs_dir / name
        if not source.exists():
            raise ReleaseError(f"the course has no stub {source}")
        shutil.copyfile(source, out / name)
        written.append(out / name)
    notebook = out / NOTEBOOK_NAME
    nbformat.write(build_notebook(course), str(notebook))
    written.append(notebook)
    readme = out / "README.md"
    readme.write_text(instructions(course), encoding="utf-8")
    written.append(readme)
    pytest_ini = out / "pytest.ini"
    pytest_ini.write_text(PYTEST_INI, encoding="utf-8")
    written.append(pytest_ini)
    workflow = out / WORKFLOW_PATH          # GitHub Actions grades every push (grader/templates/github/)
    workflow.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(WORKFLOW_TEMPLATE, workflow)
    written.append(workflow)
    return written


def quiz_template(course) -> tuple[list[str], dict]:
    """The question keys of the quiz, and their empty answers."""
    quiz = next((e for e in course.exercises.values() if e.is_quiz), None)
    if quiz is None:
        return [], {}
    template = yaml.safe_load((course.stubs_dir / quiz.file).read_text(encoding="utf-8")) or {}
    return [c.id for c in quiz.checks], template


def build_notebook(course) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [nbformat.v4.new_markdown_cell(
        "# RNN exercises / RNN 练习\n\n"
        "Fill in every function below, and the `ANSWERS` dict at the end. Check your work with "
        "`grade check rnn_exercises.ipynb`.\n\n"
        "实现下面的每个函数，并填写最后的 `ANSWERS` 字典。用 `grade check rnn_exercises.ipynb` 检查。")]
    done_files = set()
    for exercise in course.exercises.values():
        cells.append(nbformat.v4.new_markdown_cell(statement_markdown(exercise)))
        if exercise.is_quiz or exercise.file in done_files:
            continue
        done_files.add(exercise.file)
        source = (course.stubs_dir / exercise.file).read_text(encoding="utf-8")
        cells.append(nbformat.v4.new_code_cell(f"# {exercise.file}\n" + source.strip() + "\n"))
    keys, template = quiz_template(course)
    if keys:
        lines = ["# Quiz answers / 测验答案", "ANSWERS = {"]
        for key in keys:
            value = template.get(key)
            lines.append(f"    {key!r}: {value!r},")
        lines.append("}")
        cells.append(nbformat.v4.new_code_cell("\n".join(lines)))
    nb.cells = cells
    return nb


def statement_markdown(exercise) -> str:
    parts = [f"## `{exercise.id}` — {text(exercise.title, 'en')} / {text(exercise.title, 'zh')}"]
    if exercise.signatures:
        parts.append("```python\n" + "\n".join(exercise.signatures) + "\n```")
    parts.append(text(exercise.statement, "en").strip())
    parts.append(text(exercise.statement, "zh").strip())
    if exercise.is_quiz:
        for check in exercise.checks:
            parts.append(f"- `{check.id}`: {text(check.title, 'en').strip()}  \n  {text(check.title, 'zh').strip()}")
    return "\n\n".join(parts)


def instructions(course) -> str:
    rows = "\n".join(f"| `{e.id}` | `{e.file}` | {e.max_score:g} | {text(e.title, 'en')} / {text(e.title, 'zh')} |"
                     for e in course.exercises.values())
    statements = "\n\n".join(statement_markdown(e) for e in course.exercises.values())
    return f"""# RNN exercises — student kit / RNN 练习 — 学生包

## English

1. Implement the functions in the `.py` files of this folder (or, if you prefer, in
   `{NOTEBOOK_NAME}`), and answer the quiz in `answers.yaml` (in the notebook: the `ANSWERS` dict).
2. Install the grader once: `pip install rnn-grader` (or the wheel your course gives you).
3. Check your work at any time: `grade check .` (or `grade check {NOTEBOOK_NAME}`).
   `grade check . --only masking` checks one exercise; `--lang zh` gives Chinese feedback.
   Or run `pytest` in this folder: one test per check, the points at the end (`pytest -k masking`, `-x`, `--lf` work).
   Pushed to GitHub, `.github/workflows/grade.yml` grades every push and shows the report in the job summary.
4. Hand in this folder, a single `.py` file, the notebook, or a `.zip` of any of them.

Some checks are hidden: they report pass or fail and their points, not their inputs.
Your functions must not modify their inputs or keep state between calls.

## 中文

1. 在本文件夹的 `.py` 文件中实现各个函数（也可以改用 `{NOTEBOOK_NAME}`），并在 `answers.yaml`
   中回答测验（在笔记本中则填写 `ANSWERS` 字典）。
2. 先安装评分器：`pip install rnn-grader`（或课程提供的安装包）。
3. 随时检查：`grade check .`（或 `grade check {NOTEBOOK_NAME}`）。`grade check . --only masking`
   只检查一个练习；`--lang en` 输出英文反馈。
   也可以在本文件夹运行 `pytest`：每项检查一个测试，最后显示得分（支持 `pytest -k masking`、`-x`、`--lf`）。
   推送到 GitHub 后，`.github/workflows/grade.yml` 会在每次推送时评分，并在任务摘要中显示报告。
4. 提交本文件夹、单个 `.py` 文件、笔记本，或它们的 `.zip` 压缩包。

部分检查是隐藏的：只显示是否通过和分数，不显示输入。函数不得修改输入，也不得在两次调用之间保留状态。

## Exercises / 练习

| id | file / 文件 | points / 分值 | title / 标题 |
|---|---|---|---|
{rows}

Total / 总分: {course.max_score:g}

{statements}
"""
