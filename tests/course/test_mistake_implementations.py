"""A catalogue entry may list several implementations of one mistake and declare where it says nothing
(issue 36 item 6): ``implementations: [a.py, b.py]`` and ``silent: {raises, rows, outputs}``. grade validate
checks that listed implementations agree wherever the mistake speaks; malformed entries are course errors."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from grader.course.loader import load_course
from grader.base.errors import CourseError
from grader.grading.validate import validate_course


def course_copy(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", root / "exercises")
    shutil.copytree(ROOT / "solutions", root / "solutions")
    return root


def add_to_entry(root, exercise, mistake_id, lines):
    path = root / "solutions" / "mistakes" / exercise / "catalogue.yaml"
    text = path.read_text(encoding="utf-8")
    head = f"{mistake_id}:\n"
    assert head in text
    path.write_text(text.replace(head, head + "".join(f"  {line}\n" for line in lines), 1), encoding="utf-8")


def test_the_bundled_catalogue_lists_implementations_and_silences():
    course = load_course(ROOT)
    mistakes = {m.id: m for e in course.exercises.values() for m in e.mistakes}
    assert [v.name for v in mistakes["tinyrnn.grads_of_sum"].variants] == [
        "grads_of_sum.py", "grads_of_sum__scaled.py", "grads_of_sum__loss_summed.py"]
    assert mistakes["tinyrnn.grads_of_sum"].listed and mistakes["tinyrnn.grads_of_sum"].silent.outputs_of(
        "tiny_rnn_loss") == (0,)
    assert mistakes["step.swapped_weights"].silent.raises
    assert mistakes["masking.padding_state"].silent.rows_of("last_valid_state")
    assert "clip" in "tinyrnn.grads_clipped_in_loss" and mistakes["tinyrnn.grads_clipped_in_loss"].variants


def test_validate_finds_listed_implementations_that_disagree(tmp_path):
    root = course_copy(tmp_path)
    add_to_entry(root, "step", "step.missing_bias", ["implementations: [missing_bias.py, transposed_recurrent.py]"])
    report = validate_course(load_course(root), only=("step",), echo=lambda *a: None)
    assert any("step.missing_bias" in p and "disagree where the mistake speaks" in p for p in report.problems), \
        report.problems


def test_validate_accepts_listed_implementations_that_agree(tmp_path):
    root = course_copy(tmp_path)
    (root / "solutions/mistakes/step/missing_bias__loops.py").write_text(
        "import math\n\nimport numpy as np\n\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n"
        "    out = np.zeros(h_prev.shape)\n    for i in range(h_prev.shape[0]):\n"
        "        out[i] = [math.tanh(v) for v in x_t[i] @ W_x + h_prev[i] @ W_h]\n    return out\n",
        encoding="utf-8")
    add_to_entry(root, "step", "step.missing_bias", ["implementations: [missing_bias.py, missing_bias__loops.py]"])
    report = validate_course(load_course(root), only=("step",), echo=lambda *a: None)
    assert report.problems == [], report.problems


@pytest.mark.parametrize("lines, says", [
    (["implementations: [nowhere.py]"], "is not in"),
    (["implementations: [../x.py]"], "distinct file names"),
    (["silent: {raises: 3}"], "silent.raises"),
    (["silent: {rows: {rnn_forward: 'lengths == 0'}}"], "not one of"),
    (["silent: {rows: {rnn_step: 'b ==='}}"], "does not compile"),
    (["silent: {when: x}"], "give raises, rows or outputs"),
])
def test_a_malformed_entry_is_a_course_error(tmp_path, lines, says):
    root = course_copy(tmp_path)
    add_to_entry(root, "step", "step.missing_bias", lines)
    course = load_course(root)   # a catalogue is read when its exercise is first selected or diagnosed
    with pytest.raises(CourseError, match=says):
        course.select(["step"])
    with pytest.raises(CourseError, match=says):   # and again: never half-read
        course.exercises["step"].mistakes
    course.select(["forward"])                    # an exercise whose catalogue is sound is graded
