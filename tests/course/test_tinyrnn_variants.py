"""The capstone, TinyRNN (CONTRACT section 6), graded on code written independently of the
reference and of the catalogue's mistake files.

1. Correct code is never marked down or named as a mistake, however it is written: explicit
   loops, einsum, a one-hot embedding, a hand-written backward pass, reused earlier functions,
   NumPy scalars in the results.
2. A known mistake is named when it is made another way than in its catalogue file, in a whole
   tiny_rnn.py whose other functions are correct, and the exercise loses points.

Each submission is a copy of solutions/reference/ whose tiny_rnn.py is replaced by a variant
from tests/tinyrnn_variants/right/ or wrong/ (the earlier files, masking.py, bptt.py, ..., stay
the reference's).
"""

from __future__ import annotations

import shutil

import pytest

from conftest import REFERENCE, ROOT, exercise_report as report, top_level_functions as functions
from grader.course.loader import load_course
from grader.grading.engine import Grader
from grader.submission.load import load_submission


# ============================================================== the variants
#
# tests/tinyrnn_variants/right/<name>.py: correct code written another way, a whole tiny_rnn.py;
# tests/tinyrnn_variants/wrong/<name>.py: a mistake made in one function of a correct file, as
# solutions/mistakes/ holds them: only the definitions that differ, appended to the right file its
# header names (``# base: right/<name>.py``), so they replace the base's own. Each file starts with a
# comment header and a blank line; the header is not graded. A wrong file's header starts with
# ``# mistake: <mistake id>``, the mistake it must be named with.

CASES_DIR = ROOT / "tests" / "tinyrnn_variants"


def _read(path):
    """(header lines, source): the comment header, then the tiny_rnn.py graded."""
    header, sep, source = path.read_text(encoding="utf-8").partition("\n\n")
    header = header.splitlines()
    assert sep and header and all(line.startswith("#") for line in header), \
        f"{path}: a comment header, then a blank line, then the code"
    return header, "\n" + source


CORRECT = {}    # name -> source
for _path in sorted(CASES_DIR.glob("right/*.py")):
    CORRECT[_path.stem] = _read(_path)[1]

MISTAKES = {}   # name -> (mistake id, source: the base with the wrong definitions appended)
for _path in sorted(CASES_DIR.glob("wrong/*.py")):
    _header, _wrong = _read(_path)
    assert _header[0].startswith("# mistake: "), f"{_path}: the first line names the mistake"
    (_base,) = [line.split("right/", 1)[1].split(".py", 1)[0] for line in _header if line.startswith("# base: ")]
    MISTAKES[_path.stem] = (_header[0].removeprefix("# mistake: ").strip(), CORRECT[_base] + "\n" + _wrong)


# ============================================================== grading

@pytest.fixture(scope="module")
def grader():
    # one warm grader for every case of this file; counterexample searches (which name no
    # mistake and change no score) are off, as in conftest's shared grader
    with Grader(load_course(ROOT), counterexamples=False) as g:
        yield g


def graded(grader, tmp_path, source):
    folder = tmp_path / "student"
    folder.mkdir()
    for path in REFERENCE.iterdir():
        if path.is_file() and path.suffix in (".py", ".yaml"):
            shutil.copy2(path, folder / path.name)
    (folder / "tiny_rnn.py").write_text(source, encoding="utf-8")
    (result,) = grader.grade(load_submission(folder, tmp_path / "work"), ["tinyrnn"]).exercises
    return result


def test_the_sources_are_not_the_reference_nor_the_mistake_files():
    given = [REFERENCE / "tiny_rnn.py", *sorted((ROOT / "solutions/mistakes/tinyrnn").glob("*.py"))]
    known = {code for path in given for code in functions(path.read_text(encoding="utf-8")).values()}
    for source in [*CORRECT.values(), *(s for _, s in MISTAKES.values())]:
        compile(source, "tiny_rnn.py", "exec")
        assert not known & set(functions(source).values())


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_code_gets_full_marks_and_no_diagnosis(grader, tmp_path, name):
    ex = graded(grader, tmp_path, CORRECT[name])
    print(name, report(ex))
    assert ex.problem is None, report(ex)
    assert [c.name for c in ex.checks if not c.passed] == [], report(ex)
    assert ex.score == ex.max_score, report(ex)
    assert [d.id for d in ex.diagnoses] == [], report(ex)


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_mistake_written_another_way_is_named(grader, tmp_path, name):
    mistake, source = MISTAKES[name]
    ex = graded(grader, tmp_path, source)
    print(name, report(ex))
    assert ex.problem is None, report(ex)
    assert ex.score < ex.max_score, report(ex)
    # a mistake only hidden checks show (hidden_evidence) is named to the instructor only (issue 31, item 5)
    flagged = {m.id for m in grader.course.exercises["tinyrnn"].mistakes if m.hidden_evidence}
    named = [d.id for d in ex.diagnoses] + (ex.hidden_diagnoses if mistake in flagged else [])
    assert mistake in named, report(ex)
