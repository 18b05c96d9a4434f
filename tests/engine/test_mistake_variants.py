"""Mistakes named however they are written: every file under tests/variants/ graded through
the real grader on its own exercise.

- ``tests/variants/<exercise>/wrong/<mistake>__<variant>.py``: a known mistake written another way
  (another idiom, another choice where the mistake says nothing, another exception), appended to (so
  overriding functions of) a copy of the reference's file. It must lose points and be named with exactly
  that mistake (a mistake only hidden checks show, ``hidden_evidence``, to the instructor only).
- ``tests/variants/<exercise>/right/*.py``: correct code written otherwise: full marks, nothing named.
- ``tests/variants/<exercise>/pairs/<a>+<b>__<variant>.py``: two mistakes in one function, named both.

Every named mistake carries its evidence (the call, the student's, the mistake's and the reference's
value), and every report format shows it (grader/report/view.py puts it after the explanation).
"""

from __future__ import annotations


import pytest

from conftest import ROOT, copy_reference, exercise_report as report, with_mistake
from grader.course.loader import bundled_course_root, load_course
from grader.report import render

VARIANTS = ROOT / "tests" / "variants"
COURSE = load_course(bundled_course_root())


def _cases(kind: str):
    for path in sorted(VARIANTS.glob(f"*/{kind}/*.py")):
        exercise = path.parent.parent.name
        yield pytest.param(exercise, path, id=f"{exercise}/{kind}/{path.stem}")


def _graded(grade, tmp_path, exercise, path):
    folder = with_mistake(copy_reference(tmp_path / "student"), COURSE.exercises[exercise].file, path)
    result = grade(folder, [exercise])
    (ex,) = result.exercises
    return result, ex


@pytest.mark.parametrize("exercise, path", list(_cases("wrong")))
def test_a_mistake_written_another_way_is_named(grade, tmp_path, exercise, path):
    mistake_id = f"{exercise}.{path.stem.split('__', 1)[0]}"
    mistake = next((m for m in COURSE.exercises[exercise].mistakes if m.id == mistake_id), None)
    assert mistake is not None, f"{path.name} names no catalogued mistake of {exercise}"
    result, ex = _graded(grade, tmp_path, exercise, path)
    assert ex.problem is None, report(ex)
    assert ex.score < ex.max_score, report(ex)
    named = [d.id for d in ex.diagnoses] + (list(ex.hidden_diagnoses) if mistake.hidden_evidence else [])
    assert named == [mistake_id], report(ex)
    if not mistake.hidden_evidence:
        (d,) = ex.diagnoses
        assert d.evidence is not None and d.evidence.key == "diag.evidence", report(ex)
        phrase = {"en": "Your result equals what you would get by this mistake on this input",
                  "zh": "你的结果正是犯这个错误时会得到的结果"}
        for lang in ("en", "zh"):
            assert phrase[lang] in d.evidence.render(lang), d.evidence.render(lang)
            for fmt in ("text", "markdown", "html", "gradescope", "junit"):
                out = "".join(render(result, fmt, lang, verbose=True, messages=COURSE.messages).split())
                assert "".join(phrase[lang].split()) in out, (fmt, lang)


@pytest.mark.parametrize("exercise, path", list(_cases("right")))
def test_correct_code_written_another_way_is_never_named(grade, tmp_path, exercise, path):
    _, ex = _graded(grade, tmp_path, exercise, path)
    assert ex.problem is None, report(ex)
    assert [c.name for c in ex.checks if not c.passed] == [], report(ex)
    assert [d.id for d in ex.diagnoses] == [] and list(ex.hidden_diagnoses) == [], report(ex)


@pytest.mark.parametrize("exercise, path", list(_cases("pairs")))
def test_two_mistakes_in_one_function_are_both_named(grade, tmp_path, exercise, path):
    ids = {f"{exercise}.{name}" for name in path.stem.split("__", 1)[0].split("+")}
    assert len(ids) == 2 and ids <= {m.id for m in COURSE.exercises[exercise].mistakes}, path.name
    _, ex = _graded(grade, tmp_path, exercise, path)
    assert ex.score < ex.max_score, report(ex)
    assert sorted(d.id for d in ex.diagnoses) == sorted(ids), report(ex)


SECTION_3 = ["step.swapped_weights", "step.missing_bias", "step.wrong_activation", "step.transposed_recurrent",
             "forward.state_not_carried", "forward.ignores_h0", "masking.padding_state", "masking.mean_over_padding",
             "masking.padding_in_loss", "masking.inclusive_mask", "readout.unstable_softmax", "readout.wrong_axis",
             "bptt.no_tanh_derivative", "bptt.no_recurrent_grad", "bptt.last_step_only", "bptt.uses_current_state",
             "clipping.per_tensor", "clipping.elementwise", "gradient_flow.spectral_norm", "gradient_flow.real_part",
             "birnn.reversed_padding", "birnn.unaligned_backward"]


def test_every_catalogued_mistake_has_two_independent_variants():
    """Each known mistake of the bundled course is named however it is written: at least two
    variants each, written apart from the catalogue's files (another idiom, another edge choice,
    another exception), every one graded by the test above."""
    missing = []
    for exercise in COURSE.exercises.values():
        for mistake in exercise.mistakes:
            name = mistake.id.split(".", 1)[1]
            if len(list((VARIANTS / exercise.id / "wrong").glob(f"{name}__*.py"))) < 2:
                missing.append(mistake.id)
    assert not missing, f"mistakes with fewer than two variants in tests/variants/: {missing}"
    assert set(SECTION_3) <= {m.id for e in COURSE.exercises.values() for m in e.mistakes}


def test_every_variant_names_a_catalogued_mistake_and_the_right_folders_exist():
    known = {m.id for e in COURSE.exercises.values() for m in e.mistakes}
    stray = [p.relative_to(VARIANTS).as_posix() for p in VARIANTS.glob("*/wrong/*.py")
             if f"{p.parent.parent.name}.{p.stem.split('__', 1)[0]}" not in known]
    assert not stray, stray
    for exercise in ("step", "masking", "tinyrnn", "forward", "readout"):
        assert list((VARIANTS / exercise / "right").glob("*.py")), exercise


def test_a_function_wrong_in_a_way_no_mistake_explains_gets_no_name(grade, tmp_path):
    path = tmp_path / "half_tanh.py"
    path.write_text("import numpy as np\n\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n"
                    "    return np.tanh(0.5 * (x_t @ W_x + h_prev @ W_h + b))\n", encoding="utf-8")
    _, ex = _graded(grade, tmp_path, "step", path)
    assert ex.score < ex.max_score
    assert [d.id for d in ex.diagnoses] == [], report(ex)
    assert all(c.message is not None for c in ex.checks if not c.passed)


def test_a_function_that_raises_on_every_call_matches_no_mistake_that_raises_on_some(grade, tmp_path):
    """Any two raises are one behaviour (item 2), so a function that raises everywhere would match
    step.swapped_weights (which raises where d != H) were its raises where the mistake returns not held
    against it."""
    path = tmp_path / "typo.py"
    path.write_text("def rnn_step(x_t, h_prev, W_x, W_h, b):\n    return np.tanh(x_t @ W_x + h_prev @ W_hh + b)\n",
                    encoding="utf-8")
    _, ex = _graded(grade, tmp_path, "step", path)
    assert ex.score < ex.max_score and [d.id for d in ex.diagnoses] == [], report(ex)


def _diagnosed_anyway(grader, monkeypatch):
    """Diagnosis runs only where a check failed; here it runs on every exercise's visible calls too (correct
    code's included), through the real Diagnoser, and what it names is recorded."""
    from grader.grading.run import SubmissionRun

    named: dict = {}
    original = SubmissionRun.hidden_checks

    def hidden_checks(self, graded):
        if graded.visible_calls:
            named[graded.exercise.id] = [m.id for m in self.grader.diagnoser.diagnose(graded.exercise,
                                                                                      graded.visible_calls)]
        return original(self, graded)

    monkeypatch.setattr(SubmissionRun, "hidden_checks", hidden_checks)
    return named


@pytest.mark.parametrize("folder", ["einsum", "loops"])
def test_every_valid_rewrite_in_tests_impls_is_never_named(grade, grader, monkeypatch, tmp_path, folder):
    """Item 4: correct code has no wrong values, so no mistake is named, even when diagnosis is asked."""
    named = _diagnosed_anyway(grader, monkeypatch)
    result = grade(ROOT / "tests" / "impls" / folder)
    graded = [e for e in result.exercises if e.problem is None and e.id != "quiz"]
    assert len(graded) >= 8 and all(e.score == e.max_score for e in graded), [(e.id, e.score) for e in graded]
    assert len(named) >= 8 and all(ids == [] for ids in named.values()), named


@pytest.mark.parametrize("exercise, path", list(_cases("right")))
def test_a_right_variant_is_never_named_even_when_diagnosis_is_asked(grade, grader, monkeypatch, tmp_path,
                                                                     exercise, path):
    named = _diagnosed_anyway(grader, monkeypatch)
    _graded(grade, tmp_path, exercise, path)
    assert named.get(exercise) == [], named
