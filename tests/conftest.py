"""Shared fixtures: the bundled course, one warm grader, and submission builders."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

os.environ.setdefault("GRADER_STRICT", "1")   # a broken check raises in tests instead of failing quietly
# Hidden checks draw their inputs from the course secret (grader/course/secret.py): one fixed secret keeps the
# tests deterministic and writes nothing into the config folder. tests/sandbox/test_redteam_hidden.py varies it.
os.environ.setdefault("GRADER_SECRET", "the-test-suite-course-secret-0123456789abcdef")
# Drawn counterexample cases are kept between runs (grader/grading/tier_cache.py): the tests keep theirs to
# themselves, not in the user's cache folder.
os.environ.setdefault("GRADER_CACHE_DIR", tempfile.mkdtemp(prefix="grader-test-cache-"))

from grader.course.loader import bundled_course_root, load_course  # noqa: E402
from grader.grading.engine import Grader  # noqa: E402
from grader.submission.load import load_submission  # noqa: E402
from grader.report import check_message

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "solutions" / "reference"
STUBS = ROOT / "exercises" / "stubs"
IMPLS = Path(__file__).resolve().parent / "impls"
STUDENT_MODULES = ("rnn_step", "rnn_forward", "param_count", "masking", "readout", "bptt", "gradient_flow", "birnn",
                   "tiny_rnn")


@pytest.fixture(scope="session")
def course():
    return load_course(bundled_course_root())


@pytest.fixture(scope="session")
def grader(course):
    # Counterexample searches cost up to 2 s per failing function; tests/engine/test_counterexample.py
    # switches them on where they are the point.
    with Grader(course, counterexamples=False) as g:
        yield g


@pytest.fixture
def grade(grader, tmp_path):
    """grade(path, only=()) -> SubmissionResult, through the shared warm grader."""
    counter = iter(range(10_000))

    def run(path, only=()):
        return grader.grade(load_submission(Path(path), tmp_path / f"work{next(counter)}"), only)

    return run


def copy_reference(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for path in REFERENCE.iterdir():
        if path.suffix in (".py", ".yaml"):
            shutil.copy2(path, dest / path.name)
    return dest


def single_file_source(folder: Path = REFERENCE) -> str:
    """Every student module of ``folder`` in one file, with the quiz as an ANSWERS dict."""
    parts = []
    for name in STUDENT_MODULES:
        lines = (folder / f"{name}.py").read_text(encoding="utf-8").splitlines()
        sibling_import = r"^\s*(from|import)\s+(%s)\b" % "|".join(STUDENT_MODULES)
        parts.append("\n".join(line for line in lines if not re.match(sibling_import, line)))
    answers = yaml.safe_load((folder / "answers.yaml").read_text(encoding="utf-8"))
    parts.append(f"ANSWERS = {answers!r}")
    return "\n\n".join(parts) + "\n"


def notebook_from_source(source: str, path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# My RNN homework"),
                nbformat.v4.new_code_cell("%matplotlib inline\n!pip install numpy"),
                nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, str(path))
    return path


def zip_folder(folder: Path, path: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted(folder.iterdir()):
            zf.write(file, prefix + file.name)
    return path


def full_marks(result) -> bool:
    return result.score == result.max_score and result.all_passed


def run_grade(*args, env=None, timeout=600):
    """``python -m grader ARGS`` from the repository: (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def with_mistake(folder: Path, exercise_file: str, mistake: Path) -> Path:
    """A known mistake's file appended to the student's file (its functions override)."""
    target = folder / exercise_file
    target.write_text(target.read_text() + "\n\n" + mistake.read_text())
    return folder


def exercise_report(ex) -> str:
    """Score, diagnoses and every failing check's message (a hidden check's too, for the maintainer)."""
    lines = [f"score {ex.score}/{ex.max_score}, diagnoses {[d.id for d in ex.diagnoses]}"]
    if ex.problem is not None:
        lines.append("problem: " + ex.problem.render("en"))
    for c in ex.checks:
        if not c.passed:
            lines.append(f"  FAILED {c.name}: {check_message(c, 'en')}")
            if c.hidden and c.message is not None:
                lines.append(f"    (hidden check's message: {c.message.render('en')})")
    return "\n".join(lines)


def top_level_functions(source: str) -> dict:
    """Each top-level function of ``source``, unparsed (comments and layout dropped)."""
    return {node.name: ast.unparse(node) for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
