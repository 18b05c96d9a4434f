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
