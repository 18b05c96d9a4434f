"""Class grading throughput and memory, as ratios measured in one run.

Generates N synthetic submissions (the reference and every known mistake,
each laid out as a student folder) and prints, with the default settings
(counterexample search on) unless a row says otherwise, submissions per second for:

  * `grade class` with 2 jobs on a machine that has not kept hypothesis's drawn cases
    yet (the first run; grader/grading/tier_cache.py), then again (every later run: the
    default path), with 1 job, and with 2 jobs and --no-counterexamples (sandboxed,
    fresh gradebook, end to end);
  * one `grade check` process per submission (the first submissions of the shuffled
    class, so the same mix, run one after another);
  * an in-process floor: the same checks and counterexamples calling the student
    functions directly in the grading process, without worker or sandbox
    (benchmark-only code);

the time a lone `grade check` spends grading one submission with mistakes after its
start-up (a process of its own and a fresh sandboxed grader per submission, whose start-up,
the same for every submission, is taken as the grading of the reference), with the drawn cases kept and
with none kept; and the peak resident memory of the whole process tree while
`grade class` grades 1000 submissions with 2 jobs. The runs keep their drawn cases in a
folder of their own (GRADER_CACHE_DIR), never the user's.

    python benchmarks/class_bench.py [--n 300] [--memory-n 1000] [--sample 8]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.course.loader import bundled_course_root, load_course  # noqa: E402
from grader.course.modules import ModuleSet  # noqa: E402
from grader.sandbox.client import CallResult, StudentError  # noqa: E402
from grader.sandbox.isolation import Isolation  # noqa: E402
from grader.course.solution_folders import mistake_folder, reference_folder  # noqa: E402


# ---------------------------------------------------------------- synthetic class

CORRECT_SHARE = 1 / 3   # the class the issue measured: about two thirds hold some mistake


def make_class(directory: Path, n: int, correct_share: float = CORRECT_SHARE) -> Path:
    """``n`` student folders: ``correct_share`` of them the reference, the rest every known
    mistake in turn (each variant once before any comes twice), in a seeded shuffled order.
    Students with mistakes are named ``m...``, the others ``c...``."""
    course = load_course(bundled_course_root())
    variants = [(m, v) for e in course.exercises.values() for m in e.mistakes for v in m.variants]
    templates = directory / "templates"
    reference = reference_folder(course, templates / "reference")
    mistakes = [mistake_folder(course, mistake, variant, templates / f"m{i:03d}")
                for i, (mistake, variant) in enumerate(variants)]
    correct = round(n * correct_share)
    folders = [reference] * correct + [mistakes[i % len(mistakes)] for i in range(n - correct)]
    random.Random(20261204).shuffle(folders)
    cls = directory / "class"
    cls.mkdir(parents=True)
    for i, folder in enumerate(folders):
        shutil.copytree(folder, cls / f"{'c' if folder == reference else 'm'}{i:04d}")
    return cls


# ---------------------------------------------------------------- the in-process floor

class InProcessModule:
    """StudentModule's interface, calling the student's functions in this process."""

    def __init__(self, root, module, timeout, deadline=None, stand_ins=(), timed_out=None, keep_output=False):
        self.root, self.module = root, module
        self.stand_ins = tuple(stand_ins)        # the floor calls the student's own functions: none stood in
        self.timed_out = timed_out if timed_out is not None else set()
        self.keep_output = keep_output
        self.output: list[str] = []
        self.import_error = None
        self._module = None
        self.on_skipped = None

    def finish_plan(self):
        pass

    def stand_in(self, more) -> bool:
        return False

    def open(self, fresh=True, plan=()):   # calls in this process cost no round trip: no plan
        if self._module is not None and not fresh:
            return None
        try:
            self._module = ModuleSet(Path(self.root)).get(self.module)
        except Exception as exc:  # noqa: BLE001
            self.import_error = {"kind": "exception", "type": type(exc).__name__, "message": str(exc)}
        return self.import_error

    def call(self, func, *args, return_args=False, reuse_args=False, cache_as=None, **kwargs):
        if self._module is None and self.open() is not None:
            raise StudentError({"kind": "import", "cause": self.import_error})
        function = getattr(self._module, func, None)
        if function is None:
            raise StudentError({"kind": "missing", "name": func})
        args, kwargs = copy.deepcopy((list(args), kwargs))
        try:
            value = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            raise StudentError({"kind": "exception", "type": type(exc).__name__, "message": str(exc)}) from None
        return CallResult(value=value, type_name=type(value).__name__, args_after=args, kwargs_after=kwargs)

    def batch(self, calls, return_args=False, cache_as=None):
        results = []
        for func, args, kwargs in calls:
            try:
                results.append(self.call(func, *args, return_args=return_args, **kwargs))
            except StudentError as exc:
                results.append(exc)
        return results

    def getattr(self, name):
        if self._module is None and self.open() is not None:
            raise StudentError({"kind": "import", "cause": self.import_error})
        if not hasattr(self._module, name):
            raise StudentError({"kind": "missing", "name": name})
        return CallResult(value=getattr(self._module, name))

    def close(self):
        self._module = None


class InProcessWorker:
    isolation = Isolation("in-process (benchmark floor)")

    def module(self, root, module, timeout, deadline=None, slot=None, exercise=None, **how):
        return InProcessModule(root, module, timeout, deadline, **how)

    @contextlib.contextmanager
    def staged(self, root, share=False, stand_ins=None, notebooks=None):
        yield str(root)

    def close_session(self):
        pass

    def stop(self):
        pass


def floor_rate(cls: Path) -> float:
    """The defaults (counterexamples included), with the student's functions called in this process."""
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    course = load_course(bundled_course_root())
    entries = sorted(cls.iterdir())
    # The student code's warnings go to this process's stderr here (the worker captures them).
    with tempfile.TemporaryDirectory() as tmp, Grader(course, worker=InProcessWorker()) as g, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.grade(load_submission(entries[0], Path(tmp) / "warm"))
        start = time.perf_counter()
        for i, entry in enumerate(entries):
            g.grade(load_submission(entry, Path(tmp) / f"w{i}"))
        return len(entries) / (time.perf_counter() - start)


# ---------------------------------------------------------------- the CLI runs

def grade_class(cls: Path, jobs: int, book: Path, extra=()) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", "class", str(cls), "--jobs", str(jobs), "--force",
                    "--gradebook", str(book), "--feedback", "none", "--format", "json", *extra],
                   cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def in_class_order(cls: Path) -> list[Path]:
    """The class's folders in its shuffled order (their names are c or m, then that order)."""
    return sorted(cls.iterdir(), key=lambda p: int(p.name[1:]))


def check_rate(cls: Path, sample: int) -> float:
    """One default `grade check` process per submission, one after another."""
    entries = in_class_order(cls)[:sample]
    start = time.perf_counter()
    for entry in entries:
        subprocess.run([sys.executable, "-m", "grader", "check", str(entry), "--format", "json"],
                       cwd=ROOT, capture_output=True)
    return len(entries) / (time.perf_counter() - start)


@contextlib.contextmanager
def cache_dir(folder: Path):
    """GRADER_CACHE_DIR set to ``folder`` for a while, then as it was."""
    kept = os.environ.get("GRADER_CACHE_DIR")
    os.environ["GRADER_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if kept is None:
            os.environ.pop("GRADER_CACHE_DIR")
        else:
            os.environ["GRADER_CACHE_DIR"] = kept


def check_grading_seconds(cls: Path, sample: int, cache: Path | None) -> tuple[float, float]:
    """Median and worst time a lone default `grade check` spends grading one submission with
    mistakes after its start-up, over ``sample`` of them: each in a process of its own with a
    fresh sandboxed grader (nothing memoised or compiled for another submission, hypothesis
    imported only if this one needs it), whose start-up is the grading of the reference (the
    worker, the test vectors and the reference's results: the same for every submission).
    ``cache``: the folder of kept drawn cases (GRADER_CACHE_DIR), or None for a fresh one each."""
    course = load_course(bundled_course_root())
    entries = [e for e in in_class_order(cls) if e.name.startswith("m")][:sample]
    seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        reference = reference_folder(course, Path(tmp) / "reference")
        for i, entry in enumerate(entries):
            with cache_dir(cache or Path(tmp) / f"cache{i}"):
                done = subprocess.run([sys.executable, __file__, "--lone-check", str(entry), str(reference)],
                                      cwd=ROOT, check=True, capture_output=True, text=True)
            seconds.append(float(done.stdout.split()[-1]))
    seconds.sort()
    return seconds[len(seconds) // 2], seconds[-1]


def lone_check(entry: Path, reference: Path) -> float:
    """In this process: a fresh grader's start-up (grading the reference), then the seconds it
    spends grading ``entry``."""
    from grader.grading.engine import Grader
    from grader.submission.load import load_submission

    with tempfile.TemporaryDirectory() as tmp, Grader(load_course(bundled_course_root())) as g:
        g.grade(load_submission(reference, Path(tmp) / "reference"))   # start-up
        start = time.perf_counter()
        g.grade(load_submission(entry, Path(tmp) / "entry"))
        return time.perf_counter() - start


def tree_rss(root_pid: int) -> int:
    """Resident bytes of a process and all its descendants, each process's resident set summed."""
    return tree_memory(root_pid)[0]


def tree_memory(root_pid: int) -> tuple[int, int]:
    """(the resident sets summed, the proportional sets summed) of a process and its descendants.
    A page that forked processes share (the warm grader's test vectors in every grading process and
    helper, numpy in every sandboxed child) is in each one's resident set, so the first sum counts it
    once per process; the proportional set divides it among them, so the second counts it once in
    all: the tree's memory. Where smaps_rollup is missing (Linux before 4.14), the resident set."""
    parents, rss = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        parents[int(pid)] = int(fields.get("PPid", "0").strip() or 0)
        rss[int(pid)] = int(fields.get("VmRSS", "0 kB").split()[0]) * 1024 if "VmRSS" in fields else 0
    total, proportional, stack = 0, 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        proportional += _pss(pid, rss.get(pid, 0))
        stack += [child for child, parent in parents.items() if parent == pid]
    return total, proportional


def _pss(pid: int, rss: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return rss


def peak_memory(cls: Path, book: Path) -> tuple[int, int, float]:
    """The peaks of :func:`tree_memory`'s two sums over a `grade class` run, and its seconds."""
    proc = subprocess.Popen([sys.executable, "-m", "grader", "class", str(cls), "--jobs", "2", "--force",
                             "--gradebook", str(book), "--feedback", "markdown", "--format", "json",
                             "--output", str(book.with_suffix(".json"))],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_rss = peak_pss = 0
    start = time.perf_counter()
    while proc.poll() is None:
        rss, pss = tree_memory(proc.pid)
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(0.2)
    return peak_pss, peak_rss, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="submissions for the throughput runs")
    parser.add_argument("--memory-n", type=int, default=1000, help="submissions for the memory run")
    parser.add_argument("--sample", type=int, default=8, help="submissions graded one process each")
    parser.add_argument("--correct", type=float, default=CORRECT_SHARE,
                        help="share of correct submissions in the class (the rest: every known mistake in turn)")
    parser.add_argument("--lone-check", nargs=2, metavar=("SUBMISSION", "REFERENCE"), type=Path,
                        help=argparse.SUPPRESS)   # one sample of check_grading_seconds, in its own process
    args = parser.parse_args()
    if args.lone_check:
        print(lone_check(*args.lone_check))
        return
    with tempfile.TemporaryDirectory(prefix="class-bench-") as tmp:
        tmp = Path(tmp)
        os.environ["GRADER_CACHE_DIR"] = str(tmp / "cache")   # starts empty: the first run on a machine
        cls = make_class(tmp / "a", args.n, args.correct)
        n = args.n
        two_first = n / grade_class(cls, 2, tmp / "g0.sqlite")
        two = n / grade_class(cls, 2, tmp / "g1.sqlite")
        one = n / grade_class(cls, 1, tmp / "g2.sqlite")
        two_plain = n / grade_class(cls, 2, tmp / "g3.sqlite", ["--no-counterexamples"])
        per_process = check_rate(cls, args.sample)
        median, worst = check_grading_seconds(cls, args.sample * 4, tmp / "cache")
        cold_median, cold_worst = check_grading_seconds(cls, args.sample * 4, None)
        floor = floor_rate(cls)
        big = make_class(tmp / "b", args.memory_n, args.correct)
        peak, peak_rss, seconds = peak_memory(big, tmp / "g4.sqlite")
    print(f"class grading benchmark: {n} synthetic submissions ({args.correct:.0%} correct, the rest every "
          f"known mistake in turn), {os.cpu_count()} CPUs; default settings (counterexamples on) unless said")
    print(f"{'':52} {'subs/s':>8} {'s/sub':>8}")
    rows = [("grade class, 2 jobs (the default path)", two),
            ("grade class, 2 jobs, first run (no drawn cases kept)", two_first), ("grade class, 1 job", one),
            ("grade class, 2 jobs, --no-counterexamples", two_plain),
            (f"one grade check process per submission ({args.sample})", per_process),
            ("in-process floor (no worker, no sandbox, 1 process)", floor)]
    for name, rate in rows:
        print(f"{name:52} {rate:>8.1f} {1 / rate:>8.3f}")
    print()
    print(f"2 jobs vs one process per submission: {two / per_process:.1f}x faster per submission (target >= 20x)")
    print(f"2 jobs vs the in-process floor:       {floor / two:.2f}x slower (target <= 3x)")
    print(f"2 jobs throughput:                    {two:.1f} submissions/s (target >= 20)")
    print(f"lone grade check of a submission with mistakes, grading only ({args.sample * 4}): median {median:.3f} s, "
          f"worst {worst:.3f} s (target < 0.5 s); with no drawn cases kept yet: median {cold_median:.3f} s, "
          f"worst {cold_worst:.3f} s")
    print(f"peak memory, {args.memory_n} submissions with 2 jobs: {peak / 2**20:.0f} MiB (proportional sets "
          f"summed; the resident sets summed, shared pages once per process: {peak_rss / 2**20:.0f} MiB) "
          f"in {seconds:.0f} s (target < 500 MiB)")


if __name__ == "__main__":
    main()
