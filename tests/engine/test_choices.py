"""The ladder of small inputs and the shrinking moves (grader/checks/choices.py)."""

from __future__ import annotations

import numpy as np

from grader.checks.choices import build, builder, integers, ladder, lists, merge, sampled_from, simpler, size
from grader.course.kit_records import call_digest
from grader.course.loader import bundled_course_root, load_course

BUILDERS = load_course(bundled_course_root()).registry.builders


@builder
def pair(draw):
    n = draw(integers(1, 3))
    return (np.array(draw(lists(sampled_from((0.0, 1.0, -1.0)), min_size=n, max_size=n))), draw(integers(0, 2)))


def key(case):
    return call_digest("f", (case,), {})


def test_the_first_rung_takes_every_choice_at_its_simplest():
    first = ladder(pair(), key)[0]
    assert first.case[0].tolist() == [0.0] and first.case[1] == 0
    assert all(index == 0 for index in first.indexes)


def test_the_ladder_is_deterministic_without_repeats_and_smallest_first_before_the_random_rungs():
    one, two = ladder(pair(), key), ladder(pair(), key)
    assert [r.indexes for r in one] == [r.indexes for r in two]
    assert len({key(r.case) for r in one}) == len(one)
    near = [r for r in one if sum(1 for i in r.indexes if i) <= 1]
    assert [size(r) for r in near] == sorted(size(r) for r in near)
    # every single choice made one step less simple is on it
    values = {tuple(r.case[0].tolist()) + (r.case[1],) for r in one}
    assert {(1.0, 0), (-1.0, 0), (0.0, 1), (0.0, 2), (0.0, 0.0, 0)} <= values


def test_a_ladder_holds_cases_several_choices_away_from_the_simplest():
    rungs = ladder(BUILDERS["rnn_step"], lambda c: call_digest("rnn_step", c.args, c.kwargs))
    assert max(sum(1 for i in r.indexes if i) for r in rungs) >= 4
    assert any(r.case.args[3].shape == (2, 2) or r.case.args[3].shape == (3, 3) for r in rungs)


def test_simpler_cases_are_simpler_and_reach_the_simplest():
    start = build(pair(), (2, 0, 1, 2, 1, 2))   # n=3, the list's length (one option), values, then 2
    assert start.case[0].tolist() == [1.0, -1.0, 1.0] and start.case[1] == 2
    seen = simpler(pair(), start)
    assert seen and all(size(r) < size(start) for r in seen)
    assert [size(r) for r in seen] == sorted(size(r) for r in seen)
    rung = start
    while True:   # always taking the smallest move ends at the simplest case
        moves = simpler(pair(), rung)
        if not moves:
            break
        rung = moves[0]
    assert rung.case[0].tolist() == [0.0] and rung.case[1] == 0


def test_merge_takes_each_choice_at_its_simplest_among_the_failing_cases():
    start = build(pair(), (2, 0, 1, 2, 1, 2))          # [1, -1, 1], 2
    first_zero = build(pair(), (2, 0, 0, 2, 1, 2))     # [0, -1, 1], 2
    last_zero = build(pair(), (2, 0, 1, 2, 1, 0))      # [1, -1, 1], 0
    both = merge(pair(), start, [first_zero, last_zero])
    assert both.case[0].tolist() == [0.0, -1.0, 1.0] and both.case[1] == 0
    assert size(both) < min(size(first_zero), size(last_zero))
    assert merge(pair(), start, []) is None
    assert merge(pair(), both, [start]) is None          # nothing simpler than the merged case itself


def test_every_builder_of_the_course_gives_a_ladder_the_reference_accepts():
    from grader.course.loader import bundled_course_root, load_course
    from grader.course.runtime import CourseRuntime

    course = load_course(bundled_course_root())
    runtime = CourseRuntime(course)
    files = {}
    for exercise in course.exercises.values():
        for func in BUILDERS:
            try:
                files.setdefault(func, runtime.reference_function(exercise.file, func))
            except Exception:  # noqa: BLE001 -- not in this file
                pass
    assert set(files) == set(BUILDERS)
    for func, spec in BUILDERS.items():
        rungs = ladder(spec, lambda c, f=func: call_digest(f, c.args, c.kwargs))
        assert 10 <= len(rungs) <= 96, func
        accepted = 0
        for rung in rungs:
            try:
                files[func](*rung.case.args, **rung.case.kwargs)
                accepted += 1
            except Exception:  # noqa: BLE001
                pass
        assert accepted >= len(rungs) * 0.9, (func, accepted, len(rungs))
