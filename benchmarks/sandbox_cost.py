"""What the bubblewrap sandbox adds to one `grade check` of a full submission.

Runs `grade check` on the reference (laid out as a student folder) as a
separate process, alternating sandboxed and --no-sandbox runs so both see the
same machine load, and prints the medians and their difference in one table.
It also times a warm in-process grade with each kind of worker.

    python benchmarks/sandbox_cost.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cli_seconds(extra: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "check", str(ROOT / "solutions" / "reference"),
                    "--format", "json", *extra], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def warm_seconds(isolation: str, runs: int) -> tuple[float, str]:
    from grader.course.loader import bundled_course_root, load_course
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    course = load_course(bundled_course_root())
    with Grader(course, isolation=isolation) as grader, tempfile.TemporaryDirectory() as tmp:
        grader.grade(load_submission(ROOT / "solutions" / "reference", Path(tmp) / "w"))   # warm up
        times = []
        for i in range(runs):
            start = time.perf_counter()
            result = grader.grade(load_submission(ROOT / "solutions" / "reference", Path(tmp) / f"w{i}"))
            times.append(time.perf_counter() - start)
        assert result.score == result.max_score
        return statistics.median(times), grader.isolation


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sandboxed, plain = [], []
    for _ in range(args.runs):
        sandboxed.append(cli_seconds([]))
        plain.append(cli_seconds(["--no-sandbox"]))
    s, p = statistics.median(sandboxed), statistics.median(plain)
    ws, iso = warm_seconds("auto", args.runs)
    wp, _ = warm_seconds("none", args.runs)
    print(f"grade check of a full submission (reference, every exercise), median of {args.runs} runs")
    print(f"{'':32} {'sandbox (' + iso + ')':>22} {'no sandbox':>12} {'added':>9} {'ratio':>7}")
    print(f"{'one CLI process, end to end':32} {s:>21.3f}s {p:>11.3f}s {s - p:>+8.3f}s {s / p:>6.2f}x")
    print(f"{'warm grader, in process':32} {ws:>21.3f}s {wp:>11.3f}s {ws - wp:>+8.3f}s {ws / wp:>6.2f}x")


if __name__ == "__main__":
    main()
