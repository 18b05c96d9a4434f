"""Every known mistake of CONTRACT section 3 is named however it is written (issue 12).

For each of the 22 mistakes of the contract's table, at least two variants in
``tests/section3/<exercise>/wrong/<name>.py``, written independently of
solutions/mistakes/<exercise>/<name>.py: the mistake made in one function of a
file whose other functions are right; explicit loops, einsum, np.dot, in-place updates or other
intermediates; values that differ from the catalogued implementation where the mistake is not
about them; another exception where the catalogued one raises; the mistake only in a default
argument. Each is appended to (so overrides functions of) a copy of solutions/reference/, graded
on its one exercise, must lose points there and be named with exactly that mistake's id.

Correct code written in other ways (``tests/section3/<exercise>/right/<name>.py``: loops, einsum,
equivalent formulas, keepdims shapes, long double intermediates; float32 ones are beyond every
exercise's tolerance of about 1e-9) gets full marks and no diagnosis.

Variants that also match another catalogued mistake on part of their results (normalising over
axis 0 always also matches "the default axis is wrong" on the default-axis calls) are named alone:
the other mistake's evidence is a strict part of theirs (Diagnoser._prune). A variant the
diagnosis cannot name would be kept in NOT_NAMED, with the reason: an xfail(strict=True) that only
that failure (NotNamed) satisfies; there is none today.

Each file starts with a comment header and a blank line; the header is not graded, the rest is
appended as is. A wrong file's header starts with ``# mistake: <mistake id>``, the mistake it must be
named with.
"""

from __future__ import annotations

import pytest

from conftest import REFERENCE, ROOT, copy_reference, exercise_report as report, top_level_functions as functions

EXERCISE_FILE = {"step": "rnn_step.py", "forward": "rnn_forward.py", "masking": "masking.py",
                 "readout": "readout.py", "bptt": "bptt.py", "clipping": "bptt.py",
                 "gradient_flow": "gradient_flow.py", "birnn": "birnn.py"}


# ============================================================== the cases
#
# tests/section3/<exercise>/wrong/<name>.py: a mistake written another way, appended to the exercise's
# file in the reference copy; tests/section3/<exercise>/right/<name>.py: correct code written another way.
# rnn_step.py has `math` and `np`; rnn_forward.py and masking.py `rnn_step`; bptt.py and
# gradient_flow.py `rnn_forward`; readout.py and birnn.py `rnn_forward_masked` (birnn.py also
# its `reverse_valid`), as the reference imports or defines them.

CASES_DIR = ROOT / "tests" / "section3"


class NotNamed(AssertionError):
    """The variant loses points but its mistake is not named."""


# variant name -> why the diagnosis misses it, which makes the case an xfail(strict=True) that only
# that failure satisfies. None today.
NOT_NAMED: dict[str, str] = {}


def _read(path):
    """(header lines, code): the comment header, then after the first blank line the code as graded."""
    header, sep, code = path.read_text(encoding="utf-8").partition("\n\n")
    header = header.splitlines()
    assert sep and header and all(line.startswith("#") for line in header), \
        f"{path}: a comment header, then a blank line, then the code"
    return header, code


MISTAKES = {}   # name -> (exercise, mistake id, code, not_named)
for _path in sorted(CASES_DIR.glob("*/wrong/*.py")):
    _header, _code = _read(_path)
    assert _header[0].startswith("# mistake: "), f"{_path}: the first line names the mistake"
    assert _path.stem not in MISTAKES, _path
    MISTAKES[_path.stem] = (_path.parent.parent.name, _header[0].removeprefix("# mistake: ").strip(), _code,
                            NOT_NAMED.get(_path.stem))
assert set(NOT_NAMED) <= set(MISTAKES)

CORRECT = {}    # name -> (exercise, code)
for _path in sorted(CASES_DIR.glob("*/right/*.py")):
    assert _path.stem not in CORRECT, _path
    CORRECT[_path.stem] = (_path.parent.parent.name, _read(_path)[1])


# ============================================================== grading

def graded(grade, tmp_path, exercise, code):
    folder = copy_reference(tmp_path / "student")
    with open(folder / EXERCISE_FILE[exercise], "a", encoding="utf-8") as fh:
        fh.write("\n\n" + code)
    (result,) = grade(folder, [exercise]).exercises
    return result


SECTION_3 = ["step.swapped_weights", "step.missing_bias", "step.wrong_activation", "step.transposed_recurrent",
             "forward.state_not_carried", "forward.ignores_h0", "masking.padding_state",
             "masking.mean_over_padding", "masking.padding_in_loss", "masking.inclusive_mask",
             "readout.unstable_softmax", "readout.wrong_axis", "bptt.no_tanh_derivative",
             "bptt.no_recurrent_grad", "bptt.last_step_only", "bptt.uses_current_state", "clipping.per_tensor",
             "clipping.elementwise", "gradient_flow.spectral_norm", "gradient_flow.real_part",
             "birnn.reversed_padding", "birnn.unaligned_backward"]




def test_every_section_3_mistake_has_at_least_two_variants():
    variants, alone = {}, {}
    for exercise, mistake_id, _, not_named in MISTAKES.values():
        assert mistake_id.split(".")[0] == exercise
        variants[mistake_id] = variants.get(mistake_id, 0) + 1
        if not not_named:
            alone[mistake_id] = alone.get(mistake_id, 0) + 1
    assert sorted(variants) == sorted(SECTION_3)
    assert all(n >= 2 for n in variants.values()), variants
    assert {m for m in SECTION_3 if alone.get(m, 0) < 2} == set(), alone      # each named alone twice
    assert len(CORRECT) >= 5


def test_the_sources_are_not_the_reference_nor_the_mistake_files():
    for exercise, code in [(e, c) for e, _, c, _ in MISTAKES.values()] + list(CORRECT.values()):
        given = [REFERENCE / EXERCISE_FILE[exercise], *sorted((ROOT / "solutions/mistakes" / exercise).glob("*.py"))]
        known = {text for path in given for text in functions(path.read_text(encoding="utf-8")).values()}
        compile(code, EXERCISE_FILE[exercise], "exec")
        assert not known & set(functions(code).values()), code


def _mistake_params():
    for name, (exercise, mistake_id, code, not_named) in MISTAKES.items():
        marks = [pytest.mark.xfail(strict=True, raises=NotNamed, reason=not_named)] if not_named else []
        yield pytest.param(exercise, mistake_id, code, id=name, marks=marks)


@pytest.mark.parametrize("exercise, mistake_id, code", list(_mistake_params()))
def test_a_section_3_mistake_written_another_way_is_named(grade, tmp_path, exercise, mistake_id, code):
    ex = graded(grade, tmp_path, exercise, code)
    assert ex.problem is None, report(ex)
    assert ex.score < ex.max_score, report(ex)
    ids = [d.id for d in ex.diagnoses]
    if ids == []:
        raise NotNamed(report(ex))
    assert ids == [mistake_id], report(ex)


@pytest.mark.parametrize("exercise, code", list(CORRECT.values()), ids=list(CORRECT))
def test_correct_code_written_another_way_gets_full_marks_and_no_diagnosis(grade, tmp_path, exercise, code):
    ex = graded(grade, tmp_path, exercise, code)
    assert ex.problem is None, report(ex)
    assert [c.name for c in ex.checks if not c.passed] == [], report(ex)
    assert ex.score == ex.max_score, report(ex)
    assert [d.id for d in ex.diagnoses] == [], report(ex)
