"""The benchmark's in-process floor keeps up with the grader's StudentModule interface."""

from __future__ import annotations

import sys

from conftest import ROOT


def test_the_in_process_floor_grades_a_small_class(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import class_bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    klass = class_bench.make_class(tmp_path / "a", 3)
    assert class_bench.floor_rate(klass) > 0


def test_the_call_cost_benchmark_measures_both_kinds_of_call(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import call_cost
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    (tmp_path / "mod.py").write_text(call_cost.MODULE)
    for func in ("small", "loss"):
        # the child's CPU is a difference of two workers' totals: too small here to say anything
        wall, grader, _ = call_cost.measure(tmp_path, func, calls=5, batches=2)
        assert 0 < wall < 1 and 0 < grader < 1
