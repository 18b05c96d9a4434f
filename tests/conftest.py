"""Shared fixtures: the bundled course, one warm grader, and submission builders."""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

os.environ.setdefault("GRADER_STRICT", "1")   # a broken check raises in tests instead of failing quietly
# Hidden checks draw their inputs from the course secret (grader/secret.py): one fixed secret keeps the
# tests deterministic and writes nothing into the config folder. tests/test_redteam_hidden.py varies it.
os.environ.setdefault("GRADER_SECRET", "the-test-suite-course-secret-0123456789abcdef")

from grader.course import bundled_course_root, load_course  # noqa: E402
from grader.engine import Grader  # noqa: E402
from grader.submission import load_submission  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "solutions" / "reference"
STUBS = ROOT / "exercises" / "stubs"
IMPLS = Path(__file__).resolve().parent / "impls"
STUDENT_MODULES = ("rnn_step", "rnn_forward", "param_count", "masking", "readout", "bptt", "gradient_flow", "birnn", "tiny_rnn")


@pytest.fixture(scope="session")
def course():
    return load_course(bundled_course_root())


@pytest.fixture(scope="session")
def grader(course):
    # Counterexample searches cost up to 2 s per failing function; tests/test_counterexample.py
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
        parts.append("\n".join(line for line in lines if not re.match(r"^\s*(from|import)\s+(%s)\b" % "|".join(STUDENT_MODULES), line)))
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
