"""`grade validate` passes on the bundled course and catches a course that cannot fail."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from grader.course.loader import CourseError, load_course
from grader.grading.validate import validate_course


def test_bundled_course_validates(course):
    lines = []
    report = validate_course(course, echo=lines.append)
    assert report.ok, report.problems
    assert report.mistakes >= 3 * 11 and report.implementations >= report.mistakes
    assert lines[-1].startswith("validate: 13 exercises")


def copy_course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", root / "exercises")
    shutil.copytree(ROOT / "solutions", root / "solutions")
    return root


def test_a_harmless_mistake_and_an_uncovered_check_are_reported(tmp_path):
    root = copy_course(tmp_path)
    mistakes = root / "solutions" / "mistakes" / "params"
    # A "mistake" that is in fact correct: it loses nothing and cannot be named.
    for path in mistakes.glob("*.py"):
        path.unlink()
    (mistakes / "ignores_double_bias.py").write_text("# no change at all\n")
    catalogue = mistakes / "catalogue.yaml"
    text = catalogue.read_text()
    keep = text.split("\nparams.", 1)[0]   # only the first entry stays
    catalogue.write_text(keep if keep.startswith("params.ignores_double_bias") else
                         "params.ignores_double_bias:\n"
                         + text.split("params.ignores_double_bias:\n", 1)[1].split("\nparams.", 1)[0])
    report = validate_course(load_course(root), only=["params"], echo=lambda *_: None)
    assert not report.ok
    joined = "\n".join(report.problems)
    assert "params.ignores_double_bias loses no points" in joined
    assert "params.ignores_double_bias is not named" in joined
    assert "no known mistake fails params.returns_int" in joined


def test_a_reference_that_fails_is_reported(tmp_path):
    root = copy_course(tmp_path)
    path = root / "solutions" / "reference" / "param_count.py"
    path.write_text(path.read_text() + "\n\ndef count_rnn_params(*args, **kwargs):\n    return 32.0\n")
    report = validate_course(load_course(root), only=["params"], echo=lambda *_: None)
    assert any(p.startswith("reference fails params.") for p in report.problems)



def flag_first_mistake(root, value: str):
    """Sets ``hidden_evidence: <value>`` as the first key of params' first catalogue entry;
    returns the catalogue and that line's number."""
    catalogue = root / "solutions" / "mistakes" / "params" / "catalogue.yaml"
    lines = catalogue.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("params."))
    lines.insert(first + 1, f"  hidden_evidence: {value}")
    catalogue.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return catalogue, first + 2


def test_hidden_evidence_is_a_bool_per_mistake_false_unless_set(tmp_path):
    root = copy_course(tmp_path)
    assert not any(m.hidden_evidence for m in load_course(root).exercises["params"].mistakes)
    flag_first_mistake(root, "true")
    mistakes = load_course(root).exercises["params"].mistakes
    assert [m.hidden_evidence for m in mistakes] == [True] + [False] * (len(mistakes) - 1)


def test_a_hidden_evidence_that_is_not_a_bool_names_file_and_line(tmp_path):
    catalogue, line = flag_first_mistake(copy_course(tmp_path), '"yes"')
    with pytest.raises(CourseError) as error:
        load_course(catalogue.parents[3]).select()   # the catalogues are read for the exercises selected
    assert str(error.value).startswith(f"{catalogue}:{line}: ") and "hidden_evidence" in str(error.value)
