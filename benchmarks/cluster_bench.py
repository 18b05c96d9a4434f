"""Class grading on a Dask cluster against local processes, as figures measured in one run.

On one machine, with the default settings (sandbox and counterexample search on), the same
synthetic class (a third correct, the rest every known mistake in turn, as class_bench.py makes it) is graded:

  * locally with `grade class --jobs 1` and `--jobs 2`;
  * with `grade class --scheduler` on a `dask scheduler` with 1, then 2 `dask worker`
    processes (one thread each, each with its nanny), as the README starts them, on loopback;

each run a whole CLI process with a fresh gradebook, start-up and the workers' warm-up
included. A run of one submission on the same cluster measures the fixed cost (the client's
start-up, the course shipped, every worker's warm grader built), so the rest gives the rate
per worker once warm. The client's peak memory is measured for a small and a large class,
and the figures give what a 100 000-submission run would take on N workers.

    python benchmarks/cluster_bench.py [--n 150] [--memory-n 600]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from class_bench import grade_class, make_class, tree_rss  # noqa: E402

SECRET = "cluster-bench-secret-0123456789abcdef"


class Cluster:
    """A `dask scheduler` and ``workers`` `dask worker` processes on loopback."""

    def __init__(self, folder: Path, workers: int, env: dict):
        self.folder, self.env, self.procs = folder, env, []
        scheduler_file = folder / f"scheduler-{workers}.json"
        self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", scheduler_file)
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            if time.monotonic() > deadline:
                raise SystemExit("the Dask scheduler did not start")
            time.sleep(0.1)
        time.sleep(0.3)
        self.address = json.loads(scheduler_file.read_text())["address"]
        self._start("worker", self.address, "--nthreads", "1", "--nworkers", str(workers), "--host", "127.0.0.1",
                    "--no-dashboard")
        from distributed import Client
        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=120)

    def _start(self, *args):
        log = open(self.folder / f"{args[0]}-{time.monotonic_ns()}.log", "w")
        self.procs.append(subprocess.Popen([str(Path(sys.executable).with_name("dask")), *map(str, args)],
                                           stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                           start_new_session=True))

    def close(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def on_cluster(cls: Path, address: str, book: Path, env: dict) -> tuple[float, int, float]:
    """Seconds for `grade class --scheduler` on the class, the client's peak memory and the
    CPU seconds the client spent."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "grader", "class", str(cls), "--scheduler", address, "--force",
                             "--gradebook", str(book), "--feedback", "none", "--format", "json"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.1)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"grade class --scheduler failed with exit code {proc.returncode}")
    return time.perf_counter() - start, peak, usage.ru_utime + usage.ru_stime


def one_submission(cls: Path, folder: Path) -> Path:
    single = folder / "single"
    single.mkdir()
    first = sorted(cls.iterdir())[0]
    shutil.copytree(first, single / first.name)
    return single


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=150, help="submissions for the throughput runs")
    parser.add_argument("--memory-n", type=int, default=600, help="submissions for the client-memory run")
    args = parser.parse_args()
    env = {**os.environ, "GRADER_SECRET": SECRET}
    os.environ["GRADER_SECRET"] = SECRET
    n = args.n
    with tempfile.TemporaryDirectory(prefix="cluster-bench-") as tmp:
        tmp = Path(tmp)
        cls = make_class(tmp / "a", n)
        single = one_submission(cls, tmp)
        local = {jobs: n / grade_class(cls, jobs, tmp / f"local{jobs}.sqlite") for jobs in (1, 2)}
        dask, fixed, per_worker, client_peak, client_cpu = {}, {}, {}, {}, {}
        for workers in (1, 2):
            cluster = Cluster(tmp, workers, env)
            try:
                fixed[workers], _, cpu_one = on_cluster(single, cluster.address, tmp / f"single{workers}.sqlite",
                                                        env)
                seconds, client_peak[n, workers], cpu = on_cluster(cls, cluster.address,
                                                                   tmp / f"dask{workers}.sqlite", env)
                dask[workers] = n / seconds
                per_worker[workers] = (n - 1) / max(1e-9, seconds - fixed[workers]) / workers
                client_cpu[workers] = (cpu - cpu_one) / (n - 1)    # per submission, start-up left out
                if workers == 2:
                    big = make_class(tmp / "b", args.memory_n)
                    big_seconds, client_peak[args.memory_n, workers], _ = on_cluster(
                        big, cluster.address, tmp / "big.sqlite", env)
            finally:
                cluster.close()
    print(f"cluster grading benchmark: {n} synthetic submissions (the reference and every known mistake), "
          f"{os.cpu_count()} CPUs, default settings (sandbox, counterexamples); every row a whole CLI run")
    print(f"{'':48} {'subs/s':>8} {'s/sub':>8}")
    rows = [("grade class --jobs 1 (local)", local[1]), ("grade class --jobs 2 (local)", local[2]),
            ("grade class --scheduler, 1 Dask worker", dask[1]), ("grade class --scheduler, 2 Dask workers", dask[2])]
    for name, rate in rows:
        print(f"{name:48} {rate:>8.1f} {1 / rate:>8.3f}")
    print()
    for workers in (1, 2):
        print(f"{workers} Dask worker(s): fixed cost of a run (start-up, course shipped, warm graders) "
              f"{fixed[workers]:.1f} s; once warm {per_worker[workers]:.2f} subs/s per worker")
    print(f"1 Dask worker vs --jobs 1: {dask[1] / local[1]:.2f}x; "
          f"2 Dask workers vs --jobs 2: {dask[2] / local[2]:.2f}x; "
          f"2 workers vs 1: {dask[2] / dask[1]:.2f}x (2 cores shared with the client and the scheduler)")
    print(f"client peak memory: {client_peak[n, 2] / 2**20:.0f} MiB for {n} submissions, "
          f"{client_peak[args.memory_n, 2] / 2**20:.0f} MiB for {args.memory_n} ({big_seconds:.0f} s)")
    cpu = min(client_cpu.values())
    print(f"the client's CPU per submission (loading, packing, the gradebook): {cpu * 1000:.0f} ms, "
          f"so one client feeds at most {1 / cpu:.0f} subs/s")
    rate = per_worker[1]       # one worker per core, each as fast as a lone warm worker here
    for workers in (16, 64, 256):
        throughput = min(rate * workers, 1 / cpu)
        hours = (100_000 / throughput + fixed[1]) / 3600
        bound = "the client" if throughput < rate * workers else "the workers"
        print(f"100 000 submissions on {workers:>3} one-core workers at {rate:.2f} subs/s each: {hours:.2f} h "
              f"({bound} the limit)")


if __name__ == "__main__":
    main()
