"""One table per extension point: what a student can hand in (grader/submission/forms.py FORMS),
the output writers (grader/report/__init__.py WRITERS, each declared by its own module) and the
declared check kinds (grader/course/declared_checks.py KINDS, each registered by its decorator)."""

from __future__ import annotations

import re
import subprocess
import sys
import types

import pytest

from conftest import ROOT
from grader.base.errors import SubmissionError
from grader.course import declared_checks
from grader.course.declared_checks import KINDS, declared_check, declared_kind
from grader.report import WRITER_MODULES, WRITERS, Writer, render_view
from grader.submission import forms
from grader.submission.load import load_submission

# ------------------------------------------------------------------ submission forms

# Files that say ".ipynb" for something else than what a student hands in: a course's notebook
# name, the Jupyter side's own notebook, and the similarity report's source files (not yet moved).
IPYNB_ELSEWHERE = {"grader/course/loader.py", "grader/jupyter/__init__.py", "grader/jupyter/session.py",
                   "grader/classroom/similarity.py"}
# A tuple of two suffixes or more, written out: a second suffix list.
SUFFIX_TUPLE = re.compile(r"""\(\s*"\.\w+"\s*(,\s*"\.\w+"\s*)+,?\s*\)""")


def grader_sources():
    for path in sorted((ROOT / "grader").rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_the_forms_table_is_the_only_place_notebooks_are_named_as_a_suffix():
    stray = [name for name, source in grader_sources()
             if '".ipynb"' in source and name != "grader/submission/forms.py" and name not in IPYNB_ELSEWHERE]
    assert not stray, "name a submission's suffix through grader/submission/forms.py: " + ", ".join(stray)


def test_no_second_list_of_submission_suffixes():
    lists = [f"{name}: {match.group(0)}" for name, source in grader_sources()
             if name not in IPYNB_ELSEWHERE for match in SUFFIX_TUPLE.finditer(source)
             if any(f'"{suffix}"' in match.group(0) for suffix in (".ipynb", ".zip"))]
    assert not lists, "a list of submission suffixes outside grader/submission/forms.py: " + "; ".join(lists)


def test_the_table_gives_the_words_and_the_loaders():
    from grader.submission import load

    assert forms.SUFFIXES == (".py", ".ipynb", ".zip")
    assert forms.NOT_A_SUBMISSION == "not a folder, .py, .ipynb or .zip"
    assert forms.NOTHING_TO_GRADE == "no .py, .ipynb or answers.yaml"
    for form in forms.FORMS.values():
        assert callable(getattr(load, form.loader)), form
    assert forms.form_of("HW.IPYNB") is forms.FORMS[".ipynb"] and forms.form_of("notes.txt") is None


def test_a_file_of_no_form_keeps_its_error(tmp_path):
    odd = tmp_path / "homework.txt"
    odd.write_text("x = 1\n")
    with pytest.raises(SubmissionError) as err:
        load_submission(odd, tmp_path / "work")
    assert str(err.value) == (f"unsupported file type '.txt': {odd}; "
                              "give a folder, a .py file, a .ipynb notebook or a .zip")
    bare = tmp_path / "README"
    bare.write_text("x\n")
    with pytest.raises(SubmissionError, match=r"unsupported file type \(no suffix\)"):
        load_submission(bare, tmp_path / "work")


# ------------------------------------------------------------------ output writers

def test_each_format_is_its_modules_declared_writer():
    import importlib

    for fmt, module in WRITER_MODULES.items():
        declared = importlib.import_module(f"grader.report.{module}").WRITER
        assert isinstance(declared, Writer) and WRITERS[fmt] is declared
    assert list(WRITERS) == list(WRITER_MODULES)
    with pytest.raises(KeyError):
        WRITERS["nope"]


def test_a_writer_declared_in_a_module_is_found_by_name(monkeypatch):
    module = types.ModuleType("grader.report.shout")
    module.WRITER = Writer(lambda view, loud="!": view.upper() + loud, ".txt")
    monkeypatch.setitem(sys.modules, "grader.report.shout", module)
    monkeypatch.setitem(WRITER_MODULES, "shout", "shout")
    assert WRITERS["shout"] is module.WRITER
    assert render_view("ok", "shout", color=True) == "OK!"        # not coloured: no color passed
    assert render_view("ok", "shout", loud="?") == "OK?"


def test_grade_check_imports_only_its_writer():
    code = ("import sys\nfrom grader.report import WRITERS\nWRITERS['text']\n"
            "print(sorted(m for m in sys.modules if m.startswith('grader.report.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    loaded = set(eval(out))
    assert "grader.report.text" in loaded
    assert not loaded & {"grader.report.json_report", "grader.report.junit", "grader.report.gradescope",
                         "grader.report.markdown", "grader.report.html", "grader.report.class_formats"}


# ------------------------------------------------------------------ declared check kinds

def fail(problem, line=None):
    raise ValueError(problem)


def test_the_kinds_are_registered_by_their_decorators_in_order():
    assert list(KINDS) == ["reference", "shape_dtype", "inputs_unchanged", "no_state", "gradient"]
    assert KINDS["reference"].run is declared_checks._reference
    assert KINDS["no_state"].min_cases == 2 and KINDS["gradient"].keys == ("loss", "wrt", "eps", "max_error")


def test_a_kind_registered_by_its_decorator_is_declared(monkeypatch):
    monkeypatch.setattr(declared_checks, "KINDS", dict(KINDS))

    @declared_kind("always")
    def _always(ctx, func, tag, build, names=None):
        return ("ran", func, tag)

    check = declared_check("ex", ["f"], {"id": "c", "kind": "always", "args": [{"value": 1}]}, fail)
    assert check.kind == "always" and check.func == "f"
    with pytest.raises(ValueError, match="kind 'never' is not one of reference, shape_dtype, inputs_unchanged, "
                                         "no_state, gradient, always$"):
        declared_check("ex", ["f"], {"id": "c", "kind": "never"}, fail)


@pytest.mark.parametrize("kind", ["nope", None, ["reference"]])
def test_an_unknown_kind_is_the_same_course_error(kind):
    with pytest.raises(ValueError) as err:
        declared_check("ex", ["f"], {"id": "c", "kind": kind}, fail)
    assert str(err.value) == f"kind {kind!r} is not one of reference, shape_dtype, inputs_unchanged, no_state, gradient"
