"""A course's test vectors, reference results and plans kept between runs (grader/grading/kept_memo.py).

What is read back is what was kept (values, types, the cases' identity that plans rely on); what
cannot be kept is built again and not tried again; a damaged file is ignored; a run that starts
from a kept memo records no plan and grades exactly as a run that builds everything."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import grader.grading.engine as engine
from conftest import copy_reference, with_mistake
from grader.checks.api import Case
from grader.checks.choices import Rung
from grader.course.loader import bundled_course_root, load_course
from grader.grading import kept_memo
from grader.grading.counterexample import Tier
from grader.grading.engine import Grader
from grader.grading.plan import Plan, PlannedCall
from grader.report import render
from grader.submission.load import load_submission

ROOT = bundled_course_root()


def _memo():
    shared = np.arange(6.0).reshape(2, 3)
    a = Case((shared, np.float32(2.5), 3), {"h0": None, "k": shared}, "first", shared=True)
    b = Case((np.array([[1 + 2j]]), [1, 2.5, float("nan")], (True, "x")), {}, "", shared=True)
    return {
        ("step", "reference"): [a, b],
        ("step", "pairs", "hidden"): ({"inf": float("-inf"), 3: complex(1, -1)}, np.int64(7),
                                     np.zeros((0, 4)), np.array(5.0), np.array([1, 2], dtype=">i4")),
        ("step", "expected", "rnn_step", id(a)): (a, np.ones((2, 2))),
        ("plan", "step"): Plan(visible=(PlannedCall("rnn_step", a, False), PlannedCall("rnn_step", b, True)),
                               hidden=()),
        ("counterexample ladder", "step", "rnn_step"): Tier([(Rung(a, ((0, 3), (2, 5))), np.ones(2))],
                                                            frozenset({"d1", "d2"})),
        ("counterexample drawn", "step", "rnn_step"): Tier([], frozenset()),   # hypothesis's: replayed each run
    }


def test_what_is_kept_reads_back_the_same(tmp_path):
    memo = _memo()
    path = tmp_path / "memo.bin"
    kept_memo.keep(path, memo)
    back, refused = kept_memo.read(path)
    assert refused == set()
    a, b = back[("step", "reference")]
    assert a.args[0] is a.kwargs["k"]                      # one array object, as it was
    np.testing.assert_array_equal(a.args[0], np.arange(6.0).reshape(2, 3))
    assert type(a.args[1]) is np.float32 and a.args[1] == np.float32(2.5) and a.args[2] == 3
    assert a.kwargs["h0"] is None and a.label == "first" and a.shared
    assert b.args[0].dtype == np.complex128 and b.args[0][0, 0] == 1 + 2j
    assert b.args[1][:2] == [1, 2.5] and math.isnan(b.args[1][2]) and b.args[2] == (True, "x")
    pairs = back[("step", "pairs", "hidden")]
    assert pairs[0] == {"inf": float("-inf"), 3: complex(1, -1)}
    assert type(pairs[1]) is np.int64 and pairs[1] == 7
    assert pairs[2].shape == (0, 4) and pairs[3].shape == () and type(pairs[3]) is np.ndarray
    assert pairs[4].dtype == np.dtype("<i4") and pairs[4].tolist() == [1, 2]
    assert a.args[0].flags.writeable and a.args[0].flags.aligned
    # the expected result is keyed by its (new) case, and the plan names the very cases of the list
    (key,) = [k for k in back if k[1:2] == ("expected",)]
    assert key == ("step", "expected", "rnn_step", id(a)) and back[key][0] is a
    plan = back[("plan", "step")]
    assert plan.visible[0].case is a and plan.visible[1].case is b and plan.visible[1].reuse_args
    tier = back[("counterexample ladder", "step", "rnn_step")]
    ((rung, expected),) = tier.rungs
    assert rung.case is a and rung.choices == ((0, 3), (2, 5)) and expected.tolist() == [1.0, 1.0]
    assert tier.digests == frozenset({"d1", "d2"})
    assert ("counterexample drawn", "step", "rnn_step") not in back


def test_what_cannot_be_kept_is_built_again_and_not_tried_again(tmp_path):
    memo = _memo()
    odd = Case((np.random.default_rng(0),), {}, "", shared=True)     # a generator: not plain data
    memo[("tinyrnn", "sample")] = [odd]
    memo[("plan", "tinyrnn")] = Plan(visible=(PlannedCall("sample", odd, False),), hidden=())
    base = np.zeros(8)
    memo[("tinyrnn", "views")] = [Case((base[:4], base[2:]), {}, "", shared=True)]   # arguments sharing memory
    memo[("tinyrnn", "object")] = {"x": object()}
    path = tmp_path / "memo.bin"
    kept_memo.keep(path, memo)
    back, refused = kept_memo.read(path)
    assert refused == {("tinyrnn", "sample"), ("plan", "tinyrnn"), ("tinyrnn", "views"), ("tinyrnn", "object")}
    assert ("step", "reference") in back and ("plan", "step") in back
    assert not kept_memo.new_keys(memo, set(back) | refused)
    assert kept_memo.new_keys({**memo, ("masking", "new"): []}, set(back) | refused)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "header", "array out of bounds", "empty"])
def test_a_damaged_file_is_ignored(tmp_path, damage):
    path = tmp_path / "memo.bin"
    kept_memo.keep(path, _memo())
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "big")
    if damage == "truncated":
        data = data[:-9]
    elif damage == "garbage":
        data = bytes(range(256)) * 10
    elif damage == "header":
        data = data[:8] + b"[" + data[9:]
    elif damage == "array out of bounds":
        header = json.loads(data[8:8 + size])
        header["arrays"][0][3] = 10 ** 9
        text = json.dumps(header).encode()
        text += b" " * (size - len(text))
        data = data[:8] + text[:size] + data[8 + size:]
    else:
        data = b""
    path.write_bytes(data)
    assert kept_memo.read(path) == ({}, set())


def _three_mistakes(tmp_path):
    """The reference with the first known mistake of step, forward and bptt."""
    folder = copy_reference(tmp_path / "student")
    course = load_course(ROOT)
    for exercise_id in ("step", "forward", "bptt"):
        exercise = course.exercises[exercise_id]
        with_mistake(folder, exercise.file, exercise.mistakes[0].variants[0])
    return folder


def _graded(tmp_path, name, only=(), counterexamples=False):
    course = load_course(ROOT)
    with Grader(course, counterexamples=counterexamples) as grader:
        result = grader.grade(load_submission(_three_mistakes(tmp_path / name), tmp_path / f"work-{name}"), only)
    report = json.loads(render(result, "json", "en"))
    report.pop("elapsed", None)
    report["source"] = ""
    for exercise in report["exercises"]:
        exercise.pop("elapsed", None)
    return report


def test_a_run_from_the_kept_memo_records_no_plan_and_grades_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(engine, "KEEP_MEMO", False)
    built = _graded(tmp_path, "built", ["step", "forward", "bptt"])
    monkeypatch.setattr(engine, "KEEP_MEMO", True)
    first = _graded(tmp_path, "first", ["step", "forward", "bptt"])
    assert len(list((tmp_path / "cache").glob("memo-*.bin"))) == 3     # one file per exercise
    recorded = []
    monkeypatch.setattr(engine, "record_plan", lambda *a, **k: recorded.append(a) or pytest.fail("recorded"))
    second = _graded(tmp_path, "second", ["step", "forward", "bptt"])
    assert recorded == []
    assert first == built and second == built
    assert any(e["score"] < e["max_score"] for e in built["exercises"])


def test_the_key_follows_the_checks_the_secret_and_hidden(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    course = load_course(ROOT)
    with Grader(course, counterexamples=False) as grader:
        runtime, checks = grader.runtime, grader.checks
        base = kept_memo.memo_prefix(runtime, checks, True)
        assert base is not None and base == kept_memo.memo_prefix(runtime, checks, True)
        assert kept_memo.memo_prefix(runtime, checks, False) != base
        swapped = {**checks, "step": {**checks["step"], next(iter(checks["step"])): lambda ctx: None}}
        assert kept_memo.memo_prefix(runtime, swapped, True) != base
        monkeypatch.setattr(runtime, "secret_fingerprint", "another")
        assert kept_memo.memo_prefix(runtime, checks, True) != base
        monkeypatch.setattr(runtime, "recording", object())
        assert kept_memo.memo_prefix(runtime, checks, True) is None
    monkeypatch.setenv("GRADER_CACHE_DIR", "")
    assert kept_memo.memo_prefix(runtime, checks, True) is None


def test_a_run_of_one_exercise_reads_and_writes_only_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    _graded(tmp_path, "whole")
    files = sorted((tmp_path / "cache").glob("memo-*.bin"))
    assert len(files) == len([e for e in load_course(ROOT).exercises.values() if not e.is_quiz])
    read = []
    real = kept_memo.read
    monkeypatch.setattr(kept_memo, "read", lambda path: read.append(path) or real(path))
    _graded(tmp_path, "step", ["step"])
    assert len(read) == 1 and read[0] in files
    entries, _ = real(read[0])
    assert {kept_memo.exercise_of(key) for key in entries} == {"step"}


def test_a_counterexample_from_a_kept_ladder_is_the_one_a_built_ladder_gives(tmp_path, monkeypatch):
    """The search's ladder (its cases and the reference's results) is kept too: the counterexample
    shown is the same."""
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(engine, "KEEP_MEMO", False)
    built = _graded(tmp_path, "built", ["step"], counterexamples=True)
    monkeypatch.setattr(engine, "KEEP_MEMO", True)
    _graded(tmp_path, "first", ["step"], counterexamples=True)
    kept = [kept_memo.read(path)[0] for path in (tmp_path / "cache").glob("memo-*.bin")]
    assert any(k[0] == "counterexample ladder" for entries in kept for k in entries)
    second = _graded(tmp_path, "second", ["step"], counterexamples=True)
    assert second == built
    assert any(c.get("counterexample") for e in built["exercises"] for c in e["checks"]), built


def test_an_exercise_that_built_something_in_this_run_reads_nothing_kept(tmp_path, monkeypatch):
    """A plan read back names the cases kept with it: an exercise whose cases this run built already
    (a check run on its own, say) must not take a plan that names others."""
    monkeypatch.setenv("GRADER_CACHE_DIR", str(tmp_path / "cache"))
    _graded(tmp_path, "kept", ["step"])
    course = load_course(ROOT)
    with Grader(course, counterexamples=False) as grader:
        grader.plan(course.exercises["step"])              # its cases built here, before the run reads anything
        grader.runtime._memo.pop(("plan", "step"))         # (as by a check run on its own: cases, no plan)
        cases = {k: v for k, v in grader.runtime.memo_entries().items() if k[0] == "step"}
        grader.grade(load_submission(_three_mistakes(tmp_path / "again"), tmp_path / "work-again"), ["step"])
        memo = grader.runtime.memo_entries()
        planned = {id(p.case) for p in memo[("plan", "step")].visible}
        assert planned and planned <= _case_ids(cases)      # the cases this run built, not the kept ones


def _case_ids(value) -> set:
    if isinstance(value, Case):
        return {id(value)}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return set().union(*map(_case_ids, value)) if value else set()
    return set()
