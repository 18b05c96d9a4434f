"""``grade release OUT``: the student kit, with no solutions in it.

The kit holds the stub files and the answers template (copied from
``exercises/stubs``), a notebook version of the same (written with nbformat:
one markdown cell per exercise statement, the stubs as code cells, and an
``ANSWERS`` dict), ``README.md`` with the instructions in English and
Chinese, and the grader itself: the student wheel (grader/kit/student_wheel.py: no
solutions, mistakes or answer key) in ``wheels/``, which the README and the GitHub
workflow install, so the kit needs neither this repository nor a package index that
has the grader. ``--grader-requirement`` names a grader the course publishes
elsewhere instead (then the kit ships no wheel).
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import nbformat

from grader.base.errors import BadInput, CourseError
from grader.base.i18n import text
from grader.course.notebook import build_notebook, statement_markdown
from grader.kit.student_wheel import build_student_wheel, pytest_requirement

WORKFLOW_PATH = Path(".github") / "workflows" / "grade.yml"
WORKFLOW_TEMPLATE = Path(__file__).resolve().parent / "templates" / "github" / "grade.yml"
WORKFLOW_INSTALL = "@GRADER_INSTALL@"      # the template's placeholder for what `pip install` installs
WHEELS_FOLDER = "wheels"
# A word every shell (sh, cmd, PowerShell) passes to pip as it is, unquoted.
PLAIN_WORD = re.compile(r"[A-Za-z0-9._/:=@+%,~-]+")
# `pytest` in the kit runs the grader's checks (grader/kit/pytest_plugin.py). ASCII only: ini files
# are read in the platform's encoding by some tools.
PYTEST_INI = """\
# Running `pytest` in this folder grades it with rnn-grader: one test per check.
[pytest]
rnn_grader = true
required_plugins = rnn-grader
"""


class ReleaseError(CourseError):
    """The course cannot produce a kit (a stub is missing): bad input, exit 2."""


def write_kit(course, out: Path, grader_requirement: str | None = None, wheel: Path | None = None) -> list[Path]:
    """Write the kit into ``out`` (new or empty). ``grader_requirement``: a pip requirement the
    kit installs the grader from (the course publishes it); None ships the student wheel
    (``wheel``: one already built, copied: grader/quiz/variants.py writes one kit per student)."""
    from grader.quiz.variants import personalised

    course = personalised(course, None, None)    # variant questions read with their defaults (idempotent)
    out = Path(out)
    if grader_requirement is not None:
        grader_requirement = checked_requirement(grader_requirement)
    if out.exists() and any(out.iterdir()):
        raise BadInput(f"{out} exists and is not empty; choose a new folder for the kit")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in course.student_files():
        source = course.stubs_dir / name
        if not source.exists():
            raise ReleaseError(f"the course has no stub {source}")
        shutil.copyfile(source, out / name)
        written.append(out / name)
    if grader_requirement is None and wheel is not None:
        (out / WHEELS_FOLDER).mkdir(parents=True, exist_ok=True)
        wheel = Path(shutil.copyfile(wheel, out / WHEELS_FOLDER / Path(wheel).name))
        written.append(wheel)
        install = install_arguments(f"{WHEELS_FOLDER}/{wheel.name}")
    elif grader_requirement is None:
        wheel = build_student_wheel(course, out / WHEELS_FOLDER)
        written.append(wheel)
        install = install_arguments(f"{WHEELS_FOLDER}/{wheel.name}")
    else:
        install = install_arguments(grader_requirement, pytest_requirement())
    notebook = out / course.info.notebook
    nbformat.write(build_notebook(course), str(notebook))
    written.append(notebook)
    readme = out / "README.md"
    readme.write_text(instructions(course, install), encoding="utf-8")
    written.append(readme)
    pytest_ini = out / "pytest.ini"
    pytest_ini.write_text(PYTEST_INI, encoding="utf-8")
    written.append(pytest_ini)
    workflow = out / WORKFLOW_PATH          # GitHub Actions grades every push (grader/kit/templates/github/)
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text(workflow_text(install), encoding="utf-8")
    written.append(workflow)
    return written


# ---------------------------------------------------------------- installing the grader

def checked_requirement(requirement: str) -> str:
    """One pip requirement on one line (a name and version, a URL, a path), not an option."""
    requirement = requirement.strip()
    if not requirement:
        raise ReleaseError("--grader-requirement is empty; give a pip requirement, e.g. rnn-grader==0.1.0")
    if any(ord(c) < 32 or ord(c) == 127 for c in requirement):
        raise ReleaseError(f"--grader-requirement {requirement!r} holds a line break or a control character")
    if requirement.startswith("-"):
        raise ReleaseError(f"--grader-requirement {requirement!r} is a pip option, not a requirement")
    return requirement


def install_arguments(*requirements: str) -> str:
    """The arguments of ``pip install``, each quoted only where a shell would split or expand it."""
    return " ".join(shell_word(r) for r in requirements)


def shell_word(word: str) -> str:
    if PLAIN_WORD.fullmatch(word):
        return word
    if not any(c in word for c in '"$`\\!'):
        return f'"{word}"'            # double quotes: sh, cmd and PowerShell alike
    return shlex.quote(word)


def workflow_text(install: str) -> str:
    template = WORKFLOW_TEMPLATE.read_text(encoding="utf-8")
    if template.count(WORKFLOW_INSTALL) != 1:
        raise ReleaseError(f"{WORKFLOW_TEMPLATE} must hold {WORKFLOW_INSTALL} exactly once")
    return template.replace(WORKFLOW_INSTALL, install)


def instructions(course, install: str) -> str:
    rows = "\n".join(f"| `{e.id}` | `{e.file}` | {e.max_score:g} | {text(e.title, 'en')} / {text(e.title, 'zh')} |"
                     for e in course.exercises.values())
    statements = "\n\n".join(statement_markdown(e) for e in course.exercises.values())
    NOTEBOOK_NAME = course.info.notebook   # noqa: N806 -- read like a constant in the text below
    example = next((e.id for e in course.exercises.values() if not e.is_quiz), next(iter(course.exercises)))
    title_en, title_zh = text(course.info.title, "en"), text(course.info.title, "zh")
    cell_seconds = course.info.notebook_cell_seconds
    allowed = ", ".join(["numpy", *course.info.display_packages])
    return f"""# {title_en} — student kit / {title_zh} — 学生包

## English

**Check your work from the notebook.** Once the grader is installed (step 2 below), open
`{NOTEBOOK_NAME}` in Jupyter (JupyterLab, Notebook, VS Code or any front end with IPython), run its
first code cell once, then run the check cell after an exercise:

```python
from grader.jupyter import check, check_all
check("{example}")            # one exercise; check("{example}", lang="zh") in Chinese
check_all()              # every exercise
```

The result shows right under the cell: the score, each visible check with ✓ or ✗, its message, the
smallest input where your code goes wrong and the mistake it looks like. It grades the code this kernel
has run, in the order it ran (saved or not; a later definition wins), in the sandbox, with the same marks
as `grade check {NOTEBOOK_NAME}` gives for the same code.

1. Implement the functions in the `.py` files of this folder (or, if you prefer, in
   `{NOTEBOOK_NAME}`), and answer the quiz in `answers.yaml` (in the notebook: the `ANSWERS` dict).
   `grade check .` and `pytest` grade this folder's `.py` files; while you leave them as they
   came, they grade the notebook instead, and the report's first note says which was graded.
2. Install the grader once, from this folder: `pip install {install}`
   (its dependencies, NumPy and the rest, come from PyPI).
3. Check your work at any time: `grade check .` (or `grade check {NOTEBOOK_NAME}`).
   `grade check . --only {example}` checks one exercise; `--lang zh` gives Chinese feedback.
   Or run `pytest` in this folder: one test per check, the points at the end (`pytest -k {example}`, `-x`, `--lf` work).
   Pushed to GitHub, `.github/workflows/grade.yml` grades every push and shows the report in the job summary.
4. Hand in this folder, a single `.py` file, the notebook, or a `.zip` of any of them.

In the notebook, the cells run one by one, as "Run All" does in Jupyter with errors allowed: a
cell that raises, or that runs past its time budget of {cell_seconds:g} s, is stopped and the next one runs, so it costs
only the functions it would have defined (a later definition wins; `del f` removes `f`). The
report names each stopped cell once, at the top. Graded code may import the standard library
and {allowed}; keep plotting and training loops in cells of their own (in a `.py` file, under
`if __name__ == "__main__":`, as a `.py` file that fails to import loses all its exercises).

Some checks are hidden: they report pass or fail and their points, not their inputs.
Your functions must not modify their inputs or keep state between calls.

## 中文

**在笔记本中检查。** 安装评分器后（见下面第 2 步），用 Jupyter（JupyterLab、Notebook、VS Code
或任何支持 IPython 的前端）打开 `{NOTEBOOK_NAME}`，先运行一次第一个代码单元格，然后运行练习后面的检查单元格：

```python
from grader.jupyter import check, check_all
check("{example}")            # 检查一个练习；check("{example}", lang="zh") 输出中文
check_all()              # 检查全部练习
```

结果直接显示在单元格下方：得分、每项可见检查的 ✓ 或 ✗、说明、使代码出错的最小输入，以及它像哪种常见错误。
评测的是本内核运行过的代码，按运行顺序（无论是否保存；后面的定义生效），在沙箱中运行，得分与对同样的代码
运行 `grade check {NOTEBOOK_NAME}` 相同。

1. 在本文件夹的 `.py` 文件中实现各个函数（也可以改用 `{NOTEBOOK_NAME}`），并在 `answers.yaml`
   中回答测验（在笔记本中则填写 `ANSWERS` 字典）。`grade check .` 和 `pytest` 评测本文件夹的
   `.py` 文件；只要它们保持原样未改动，就改为评测笔记本，报告的第一条说明会写明评测的是哪个文件。
2. 在本文件夹中先安装一次评分器：`pip install {install}`（NumPy 等依赖从 PyPI 安装）。
3. 随时检查：`grade check .`（或 `grade check {NOTEBOOK_NAME}`）。`grade check . --only {example}`
   只检查一个练习；`--lang en` 输出英文反馈。
   也可以在本文件夹运行 `pytest`：每项检查一个测试，最后显示得分（支持 `pytest -k {example}`、`-x`、`--lf`）。
   推送到 GitHub 后，`.github/workflows/grade.yml` 会在每次推送时评分，并在任务摘要中显示报告。
4. 提交本文件夹、单个 `.py` 文件、笔记本，或它们的 `.zip` 压缩包。

笔记本中的单元格逐个运行，与 Jupyter 中允许出错的“全部运行”相同：抛出异常或运行超过 {cell_seconds:g} 秒的
单元格会被停止，后面的单元格照常运行，因此它只影响它本应定义的函数（后面的定义生效；`del f` 会删除 `f`）。
报告开头会逐一列出停止的单元格。被评分的代码只能导入标准库和 {allowed}；画图和训练循环请放在单独的单元格中
（在 `.py` 文件中放进 `if __name__ == "__main__":`，因为导入失败的 `.py` 文件会失去它的全部练习）。

部分检查是隐藏的：只显示是否通过和分数，不显示输入。函数不得修改输入，也不得在两次调用之间保留状态。

## Exercises / 练习

| id | file / 文件 | points / 分值 | title / 标题 |
|---|---|---|---|
{rows}

Total / 总分: {course.max_score:g}

{statements}
"""


def write_kits(course, out: Path, roster: list[str], secret: bytes, grader_requirement=None) -> list[Path]:
    """One kit per student of ``roster`` in ``out/<student>/``, each with their own question texts;
    the student wheel is built once and copied into each."""
    from grader.quiz.variants import personalised

    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise BadInput(f"{out} exists and is not empty; choose a new folder for the kits")
    written: list[Path] = []
    wheel = None
    for student in roster:
        kit = write_kit(personalised(course, student, secret), out / student, grader_requirement=grader_requirement,
                        wheel=wheel)
        written += kit
        if wheel is None and grader_requirement is None:
            wheel = next(p for p in kit if p.parent.name == WHEELS_FOLDER)
    return written
