"""The notebook a student kit holds: each exercise's statement, the stubs as code cells,
and the quiz as an ``ANSWERS`` dict.

``grade release`` writes it into the kit (grader/kit/release.py); grading compares a handed-in
notebook with it to tell work from an untouched kit (grader/grading/graded_work.py).
"""

from __future__ import annotations

import nbformat
import yaml

from grader.base.i18n import text


SETUP_CELL = "from grader.jupyter import check, check_all"


def check_cell(exercise_id: str) -> str:
    return f'check("{exercise_id}")'


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
    name = course.info.notebook
    cells = [nbformat.v4.new_markdown_cell(
        f"# {text(course.info.title, 'en')} / {text(course.info.title, 'zh')}\n\n"
        f"Fill in every function below, and the `ANSWERS` dict at the end. Run the first code cell once, then "
        f"check your work right here: each exercise's code cell is followed by a cell `check(\"<id>\")` "
        f"(`check(\"<id>\", lang=\"zh\")` in Chinese; `check_all()` at the end grades everything). It grades "
        f"the code this kernel has run, in the sandbox, as `grade check {name}` grades the saved notebook.\n\n"
        f"The cells are graded one by one, as Run All runs them with errors allowed: a cell that fails "
        f"(or runs past {course.info.notebook_cell_seconds:g} s) costs only what it would have defined. "
        f"Keep plots and experiments in cells of their own.\n\n"
        f"实现下面的每个函数，并填写最后的 `ANSWERS` 字典。先运行一次第一个代码单元格，然后就在这里检查："
        f"每个练习的代码单元格后面都有一个 `check(\"<id>\")` 单元格（`check(\"<id>\", lang=\"zh\")` 输出中文；"
        f"最后的 `check_all()` 评测全部练习）。它在沙箱中评测本内核运行过的代码，"
        f"与 `grade check {name}` 评测保存的笔记本相同。\n\n"
        f"评分时逐个运行单元格（与允许出错的“全部运行”相同）：出错（或运行超过 "
        f"{course.info.notebook_cell_seconds:g} 秒）的单元格只影响它本应定义的内容。画图和实验请放在单独的单元格中。")]
    # the in-notebook check (grader/jupyter/__init__.py, CONTRACT section 10); inert when the notebook is graded
    cells.append(nbformat.v4.new_code_cell(SETUP_CELL))
    done_files = set()
    for exercise in course.exercises.values():
        cells.append(nbformat.v4.new_markdown_cell(statement_markdown(exercise)))
        if exercise.is_quiz:
            continue
        if exercise.file not in done_files:   # an exercise whose file came earlier is checked on that cell
            done_files.add(exercise.file)
            source = (course.stubs_dir / exercise.file).read_text(encoding="utf-8")
            cells.append(nbformat.v4.new_code_cell(f"# {exercise.file}\n" + source.strip() + "\n"))
        cells.append(nbformat.v4.new_code_cell(check_cell(exercise.id)))
    keys, template = quiz_template(course)
    if keys:
        lines = ["# Quiz answers / 测验答案", "ANSWERS = {"]
        quiz = next(e for e in course.exercises.values() if e.is_quiz)
        formats = {c.id: (c.question or {}).get("format") for c in quiz.checks}
        for key in keys:
            value = template.get(key)
            if formats.get(key) == "equation" and value in (None, ""):
                # a raw string keeps a LaTeX backslash: in "\tanh", Python reads \t as a tab
                lines.append(f"    {key!r}: r'',   # an equation: write it inside r'...' / 公式写在 r'...' 中")
                continue
            lines.append(f"    {key!r}: {value!r},")
        lines.append("}")
        cells.append(nbformat.v4.new_code_cell("\n".join(lines)))
        cells.append(nbformat.v4.new_code_cell(check_cell(quiz.id)))
    cells.append(nbformat.v4.new_code_cell("check_all()"))
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
