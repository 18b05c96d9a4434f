"""A student's `grade check`, as ratios to a bare `python -c "import numpy"`, in one run.

Times four `grade check` cases, each as a whole CLI process (start-up included, sandbox on,
default settings), alternating with a bare `python -c "import numpy"` so every figure sees
the same machine load, and prints the medians and their ratio to that unit:

  * `grade check DIR --only step`, the submission correct;
  * `grade check DIR --only step`, one known mistake in step (diagnosis and counterexample);
  * `grade check DIR`, the whole course, correct;
  * `grade check DIR`, the whole course, three known mistakes (step, forward, bptt).

The submissions are held out: built from solutions/reference and solutions/mistakes into a
temporary folder, as a student hands them in. The runs keep their drawn cases and other
caches in a folder of their own (GRADER_CACHE_DIR), warmed by one untimed run per case first,
so every timed run is the default path (any run after a machine's first).

and a re-check by `grade check DIR --watch --only step` after one save of the step's file
(from the save to the redrawn report, the watch polling every 0.05 s), median of the runs.

    python benchmarks/check_speed.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.course.loader import bundled_course_root, load_course  # noqa: E402
from grader.course.solution_folders import mistake_folder, reference_folder  # noqa: E402

# (label, issue's target ratio, folder key, extra args)
CASES = [
    ("grade check DIR --only step, correct", 3.0, "correct", ["--only", "step"]),
    ("grade check DIR --only step, one mistake", 4.0, "one", ["--only", "step"]),
    ("grade check DIR, whole course, correct", 6.0, "correct", []),
    ("grade check DIR, whole course, three mistakes", 8.0, "three", []),
]
THREE = ("step", "forward", "bptt")


def first_mistake(course, exercise_id):
    exercise = course.exercises[exercise_id]
    mistake = exercise.mistakes[0]
    return mistake, mistake.variants[0]


def build(directory: Path) -> dict[str, Path]:
    """The held-out submissions: correct, one mistake in step, three mistakes."""
    course = load_course(bundled_course_root())
    folders = {"correct": reference_folder(course, directory / "correct")}
    mistake, variant = first_mistake(course, "step")
    folders["one"] = mistake_folder(course, mistake, variant, directory / "one")
    three = reference_folder(course, directory / "three")
    for exercise_id in THREE:
        mistake, variant = first_mistake(course, exercise_id)
        target = three / course.exercises[exercise_id].file
        target.write_text(target.read_text(encoding="utf-8") + "\n\n" + variant.read_text(encoding="utf-8"),
                          encoding="utf-8")
    folders["three"] = three
    return folders


def seconds(argv: list[str], env: dict, expect: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in expect:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return elapsed


def check_argv(folder: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "grader", "check", str(folder), "--format", "json", *extra]


def watch_seconds(folder: Path, env: dict, runs: int) -> float:
    """From a save of rnn_step.py to the watch's redrawn report, median of ``runs`` saves."""
    import re
    import signal
    import threading

    status = re.compile(r"^\[watch\] graded ")
    proc = subprocess.Popen([sys.executable, "-m", "grader", "check", str(folder), "--only", "step",
                             "--watch", "--watch-interval", "0.05"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen: list[float] = []
    lock = threading.Condition()

    def read():
        for line in proc.stdout:
            if status.match(line):
                with lock:
                    seen.append(time.perf_counter())
                    lock.notify_all()

    def wait_for(count: int):
        with lock:
            if not lock.wait_for(lambda: len(seen) >= count, timeout=120):
                raise SystemExit("the watch did not answer")

    threading.Thread(target=read, daemon=True).start()
    try:
        wait_for(1)
        times = []
        for i in range(runs):
            stamp = time.time() + 10 * (i + 1)
            start = time.perf_counter()
            os.utime(folder / "rnn_step.py", (stamp, stamp))
            wait_for(i + 2)
            times.append(seen[i + 1] - start)
        return statistics.median(times)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    unit_argv = [sys.executable, "-c", "import numpy"]
    # bytecode compiled, as after an install (a run with PYTHONDONTWRITEBYTECODE set writes none)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "grader")], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        folders = build(tmp / "subs")
        env = dict(os.environ, GRADER_CACHE_DIR=str(tmp / "cache"))
        expects = {"correct": (0,), "one": (1,), "three": (1,)}
        for _label, _target, key, extra in CASES:     # warm the caches: the default path
            seconds(check_argv(folders[key], extra), env, expects[key])
        units, times = [], {label: [] for label, *_ in CASES}
        for _ in range(args.runs):
            for label, _target, key, extra in CASES:
                units.append(seconds(unit_argv, env))
                times[label].append(seconds(check_argv(folders[key], extra), env, expects[key]))
        unit = statistics.median(units)
        print(f"unit: python -c 'import numpy', median of {len(units)}: {unit:.3f} s")
        print(f"{'what':48} {'median':>8} {'ratio':>7} {'target':>7}  met")
        for label, target, _key, _extra in CASES:
            median = statistics.median(times[label])
            ratio = median / unit
            print(f"{label:48} {median:>7.3f}s {ratio:>6.1f}x {target:>6.1f}x  {'yes' if ratio <= target else 'no'}")
        watched = watch_seconds(folders["correct"], env, args.runs)
        ratio = watched / unit
        print(f"{'grade check --watch --only step, re-check':48} {watched:>7.3f}s {ratio:>6.1f}x {1.5:>6.1f}x  "
              f"{'yes' if ratio <= 1.5 else 'no'}")


if __name__ == "__main__":
    main()
