"""Hypothesis's drawn counterexample cases, kept between runs (grader/grading/tier_cache.py): a replay gives
the very cases a fresh draw gives, a later run draws nothing, and nothing odd is ever read back."""

from __future__ import annotations

import json

import pytest

from grader.checks import choices

from grader.grading import counterexample

from grader.grading import tier_cache
from grader.checks.api import Context
from grader.checks.compare import identical
from grader.course.kit_records import call_digest


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRADER_CACHE_DIR", str(folder))
    return folder


def drawn_tier(grader, course, exercise_id, func):
    """The function's drawn tier as a new run builds it (the run's memo forgotten)."""
    grader.runtime._memo.pop(("counterexample drawn", exercise_id, func), None)
    ctx = Context(grader.runtime, course.exercises[exercise_id], None)
    return counterexample._drawn(ctx, func)


def digests(tier, func):
    return [call_digest(func, rung.case.args, rung.case.kwargs) for rung, _ in tier.rungs]


@pytest.mark.parametrize("exercise_id, func", [("step", "rnn_step"), ("tinyrnn", "sample")])
def test_a_replay_gives_the_cases_hypothesis_draws(grader, course, cache, monkeypatch, exercise_id, func):
    fresh = drawn_tier(grader, course, exercise_id, func)
    assert fresh.rungs and len(list(cache.iterdir())) == 1

    def no_hypothesis(*_):
        raise AssertionError("drew again")

    monkeypatch.setattr(counterexample, "drawn", no_hypothesis)
    replayed = drawn_tier(grader, course, exercise_id, func)
    assert digests(replayed, func) == digests(fresh, func)
    # the file keeps choices only: the reference's results are computed again, case by case
    assert all(identical(got, want) for (_, got), (_, want) in zip(replayed.rungs, fresh.rungs))


def test_a_forged_or_broken_file_is_drawn_again(grader, course, cache):
    fresh = digests(drawn_tier(grader, course, "step", "rnn_step"), "rnn_step")
    (stored,) = cache.iterdir()
    for text in ("not json", json.dumps({"a": 1}), json.dumps([[-1, 2]]), json.dumps([["0"]]),
                 json.dumps([[2 ** 40]])):
        stored.write_text(text)
        assert digests(drawn_tier(grader, course, "step", "rnn_step"), "rnn_step") == fresh
        assert tier_cache._valid(json.loads(stored.read_text()))   # stored again, whole


def test_an_empty_setting_keeps_nothing(grader, course, tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE_DIR", "")
    assert tier_cache.cache_dir() is None
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    drawn_tier(grader, course, "step", "rnn_step")
    assert not (tmp_path / ".cache").exists()


def test_the_default_folder_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("GRADER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tier_cache.cache_dir() == tmp_path / "rnn-grader"


def test_a_changed_course_reads_no_stale_file(tmp_path):
    import shutil

    from conftest import ROOT

    copy = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", copy / "exercises")
    before = tier_cache.course_digest(copy)
    assert tier_cache.course_digest(copy) == before
    builders = copy / "exercises" / "checks" / "step.py"
    builders.write_text(builders.read_text() + "\n# a changed builder\n")
    assert tier_cache.course_digest(copy) != before


def test_a_shorter_replay_takes_the_simplest_option_past_its_end():
    spec = choices.builder(lambda draw: (draw(choices.integers(0, 5)), draw(choices.integers(0, 5))))()
    assert choices.build(spec, (3,)).case == (3, 0)
