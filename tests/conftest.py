"""Shared fixtures: the bundled course, one warm grader, the sandbox tests' graders, and submission builders.

Every fixture that more than one test module uses lives here; test modules never import from one another
(plain helpers they share are in tests/helpers/). No tests/<dir>/conftest.py: a second conftest module would
take the name ``conftest`` that test modules import ROOT, copy_reference and the like from.
"""

from __future__ import annotations

import ast
import atexit
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
# themselves, not in the user's cache folder. The process that makes the folder (pytest, or its xdist controller,
# whose workers inherit the variable) removes it when it exits: a test session leaves nothing in TMPDIR.
if "GRADER_CACHE_DIR" not in os.environ:
    os.environ["GRADER_CACHE_DIR"] = tempfile.mkdtemp(prefix="grader-test-cache-")
    atexit.register(shutil.rmtree, os.environ["GRADER_CACHE_DIR"], ignore_errors=True)

from grader.course.loader import bundled_course_root, load_course  # noqa: E402
from grader.grading.engine import Grader  # noqa: E402
from grader.submission.load import load_submission  # noqa: E402
from grader.report import check_message
import grader.sandbox.isolation as isolation

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "solutions" / "reference"
STUBS = ROOT / "exercises" / "stubs"
IMPLS = Path(__file__).resolve().parent / "impls"
STUDENT_MODULES = ("rnn_step", "rnn_forward", "param_count", "masking", "readout", "bptt", "gradient_flow", "birnn",
                   "tiny_rnn")


# ---------------------------------------------------------------- in parallel (pytest-xdist)
# The suite runs as `python -m pytest -n 2 --dist loadgroup`: each worker process has its own session (its own
# warm `grader`), and tests are handed out one by one, except the tests of one xdist_group, which one worker
# runs in order. Two kinds of groups:
# - named in a test module (`pytestmark = pytest.mark.xdist_group("...")`): tests that must not run at the
#   same time as each other, e.g. "uid-fallback" (as root without bubblewrap: submission uids, and sweeps of
#   every folder others may write, that another such run would see);
# - made here: a test that uses a module-scoped fixture runs on the worker that runs its module's other such
#   tests, so that fixture (a sandboxed grader, a built wheel, a graded class) is made once, as without -n.

def _module_scoped_fixtures(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)      # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _module_scoped_fixtures(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))   # its module


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


@pytest.fixture(scope="module")
def fast_grader():
    """A sandboxed grader with 1-second call timeouts, so hangs cost little: one per test module."""
    course = load_course(bundled_course_root())
    for exercise in course.exercises.values():
        exercise.timeout = 1.0
    with Grader(course, isolation="sandbox", time_limit=60) as grader:
        assert grader.worker.isolation.sandboxed, grader.worker.isolation.reason
        yield grader


@pytest.fixture
def no_bwrap(monkeypatch):
    """Bubblewrap made unavailable: grading falls back to Landlock or a uid of its own."""
    monkeypatch.setattr(isolation, "sandbox_unavailable", lambda: "bubblewrap made unavailable")


@pytest.fixture
def fallback_grader(no_bwrap, course):
    """A grader without bubblewrap (tests/sandbox/test_redteam_without_bubblewrap.py, ..._fallback_review.py)."""
    fallback = isolation.fallback_isolation("bubblewrap made unavailable", None)
    with Grader(course, counterexamples=False) as g:
        assert g.isolation == fallback.name and not g.worker.isolation.sandboxed
        yield g


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
