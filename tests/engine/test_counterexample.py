"""Minimal counterexamples: small, readable, found by shrinking, never for hidden checks."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import copy_reference
from grader.grading.counterexample import format_call, format_value
from grader.checks.api import Case
from grader.course.loader import bundled_course_root, load_course
from grader.report import json_data

MISTAKES = "solutions/mistakes"


@pytest.fixture(autouse=True)
def searching(grader):
    grader.counterexamples = True
    yield
    grader.counterexamples = False


def with_mistake(tmp_path, exercise, name):
    from conftest import ROOT
    from grader.course.loader import bundled_course_root, load_course

    course = load_course(bundled_course_root())
    folder = copy_reference(tmp_path / name)
    target = folder / course.exercises[exercise].file
    target.write_text(target.read_text() + "\n\n" + (ROOT / MISTAKES / exercise / f"{name}.py").read_text())
    return folder


def visible_counterexamples(result):
    return [(e.id, c.name, c.counterexample.render("en")) for e in result.exercises for c in e.checks
            if c.counterexample is not None]


def test_missing_bias_shrinks_to_the_bias_alone(grade, tmp_path):
    result = grade(with_mistake(tmp_path, "step", "missing_bias"), ["step"])
    found = visible_counterexamples(result)
    assert len(found) == 1                                   # once per function, not per check
    text = found[0][2]
    assert "rnn_step(x_t=[[0.]], h_prev=[[0.]], W_x=[[0.]], W_h=[[0.]], b=[1.])" in text
    assert "expected 0.761594, got 0" in text
    zh = next(c for c in result.exercises[0].checks if c.counterexample).counterexample.render("zh")
    assert "找到的出错最小输入" in zh


def test_padding_state_counterexample_has_a_short_row(grade, tmp_path):
    result = grade(with_mistake(tmp_path, "masking", "padding_state"), ["masking"])
    found = [f for f in visible_counterexamples(result) if "rnn_forward_masked(" in f[2]]
    assert found, visible_counterexamples(result)
    call = found[0][2].splitlines()[0]
    lengths = call.split("lengths=")[1].split("]")[0]
    X = call.split("X=")[1].split(", lengths")[0]
    assert X.count("[") <= 6                                 # a tiny batch
    assert lengths.strip("[") in ("0", "1", "0, 1", "1, 0")  # a row shorter than T


def test_a_capstone_that_ignores_h0_is_shown_a_small_start_state(grade, tmp_path):
    # The capstone's forward and loss inputs give h0 or leave it out: ignoring it can be shown.
    result = grade(with_mistake(tmp_path, "tinyrnn", "ignores_h0"), ["tinyrnn"])
    found = {f[2].splitlines()[0].split(":", 1)[1].split("(")[0].strip(): f[2] for f in visible_counterexamples(result)}
    assert set(found) >= {"tiny_rnn_forward", "tiny_rnn_loss"}, found
    for text in found.values():
        assert ", h0=[[" in text.replace("\n", "")


def test_sampling_above_temperature_0_is_searched_with_a_u_that_picks_clear_ids(grade, tmp_path):
    # The sampler's inputs go above temperature 0 with a u in the middle of each picked id's
    # interval: a temperature applied the wrong way round is shown on a small call.
    result = grade(with_mistake(tmp_path, "tinyrnn", "temperature_multiplied"), ["tinyrnn"])
    found = [f[2] for f in visible_counterexamples(result) if ": sample(" in f[2].splitlines()[0]]
    assert found, visible_counterexamples(result)
    call = found[0].replace("\n", "")
    assert "temperature=0," not in call and ", u=[" in call


@pytest.mark.parametrize("exercise, mistake", [("step", "modifies_h_prev"), ("forward", "modifies_h0")])
def test_no_search_for_an_argument_changed_in_place(grade, tmp_path, monkeypatch, exercise, mistake):
    # The search compares results: it cannot show a change to an argument, so it is not run
    # for a function whose only failing check says that.
    import grader.grading.engine as engine

    searched = []
    monkeypatch.setattr(engine, "search_counterexample", lambda ctx, func, budget: searched.append(func))
    result = grade(with_mistake(tmp_path, exercise, mistake), [exercise])
    failed = [c for e in result.exercises for c in e.checks if not c.passed and not c.hidden]
    assert failed and all(c.message.key == "prop.input_modified" for c in failed)
    assert searched == [] and visible_counterexamples(result) == []


def test_no_counterexample_for_correct_code_or_hidden_checks(grade, tmp_path):
    assert visible_counterexamples(grade(copy_reference(tmp_path / "ref"), ["step", "masking"])) == []
    result = grade(with_mistake(tmp_path, "step", "keeps_state"), ["step"])
    for exercise in result.exercises:
        for check in exercise.checks:
            if check.hidden:
                assert check.counterexample is None
                assert "counterexample" not in json_data(check, "en")


def test_json_carries_the_counterexample(grade, tmp_path):
    result = grade(with_mistake(tmp_path, "readout", "reads_last_position"), ["readout"])
    checks = [json_data(c, "en") for c in result.exercises[0].checks]
    with_cx = [c for c in checks if "counterexample" in c]
    assert with_cx and all(not c["passed"] for c in with_cx)
    assert with_cx[0]["counterexample"].startswith("Smallest input found where it goes wrong: many_to_one_probs(")


def test_formatting_small_and_large_values():
    assert format_value(np.array([[0.0, 1.0]])) == "[[0., 1.]]"
    assert format_value(np.zeros((5, 5))) == "<array of shape (5, 5)>"
    case = Case((np.array([2, 0]), 3), {"axis": 0})
    names = load_course(bundled_course_root()).registry.arg_names["sequence_mask"]
    assert format_call("sequence_mask", case, names) == "sequence_mask(lengths=[2, 0], T=3, axis=0)"


def count_requests(monkeypatch):
    from grader.sandbox import client as runner

    sent = []
    original = runner.Worker.exchange

    def exchange(self, message, *args, **kwargs):
        if message is not None:
            sent.append(message.get("op"))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(runner.Worker, "exchange", exchange)
    return sent


def test_the_ladder_goes_in_one_request_and_shrinking_in_a_few(grade, grader, tmp_path, monkeypatch):
    folder = with_mistake(tmp_path, "step", "transposed_recurrent")   # needs several choices off their simplest
    grader.counterexamples = False
    sent = count_requests(monkeypatch)
    grade(folder, ["step"])
    without = len(sent)
    sent.clear()
    grader._counterexamples.clear()
    grader.counterexamples = True
    result = grade(folder, ["step"])
    assert visible_counterexamples(result)
    # one import for the search's own module, one ladder, and a bounded number of shrinking rounds
    assert 2 <= len(sent) - without <= 2 + 12, sent
    assert sent.count("batch") >= 1


def test_shrinking_takes_every_simplification_that_still_fails_at_once(grade, grader, tmp_path, monkeypatch):
    """A capstone forward that ignores h0 fails on many simpler cases at a time (fewer rows, a
    shorter sequence, a smaller vocabulary...): each round also tries all of them together, so
    tiny_rnn_forward and tiny_rnn_loss shrink in 9 rounds between them, not 18 taking one
    simplification a round; and to a case as small."""
    from grader.grading import counterexample

    folder = with_mistake(tmp_path, "tinyrnn", "ignores_h0")
    grader._counterexamples.clear()   # an earlier test's search for this behaviour is not reused
    rounds = []
    original = counterexample._verdicts

    def counting(ctx, func, cases, shared=False):
        if not shared:   # a shrinking round (the ladder's request is shared)
            rounds.append(func)
        return original(ctx, func, cases, shared)

    monkeypatch.setattr(counterexample, "_verdicts", counting)
    found = visible_counterexamples(grade(folder, ["tinyrnn"]))
    assert {name for _, name, _ in found} >= {"forward_reference", "loss_reference"}
    assert len(rounds) <= 10, rounds
    forward = next(text for _, name, text in found if name == "forward_reference")
    assert "tiny_rnn_forward(tokens=[[0]]" in forward and "h0=" in forward, forward


def test_a_student_whose_function_behaves_alike_gets_the_same_answer_in_one_call(grade, grader, tmp_path,
                                                                                   monkeypatch):
    first = grade(with_mistake(tmp_path, "step", "missing_bias"), ["step"])
    sent = count_requests(monkeypatch)
    again = grade(with_mistake(tmp_path, "step", "missing_bias"), ["step"])
    assert visible_counterexamples(again) == visible_counterexamples(first)
    assert sent.count("batch") <= 1 + 1   # the recheck (one call), and nothing else searched


def test_a_search_that_found_nothing_is_not_repeated_for_a_student_who_behaves_alike(grader, course, tmp_path):
    calls = []
    grader._counterexamples.clear()
    import grader.grading.engine as engine

    original = engine.search_counterexample

    def counting(ctx, func, budget=None):
        calls.append(func)
        return None

    engine.search_counterexample = counting
    try:
        for i in range(2):
            grader.grade(load(with_mistake(tmp_path / str(i), "step", "missing_bias"), tmp_path / f"w{i}"), ["step"])
    finally:
        engine.search_counterexample = original
    assert calls and len(calls) == len(set(calls))   # each function searched once, not once per student


def load(folder, work):
    from grader.submission.load import load_submission
    return load_submission(folder, work)
