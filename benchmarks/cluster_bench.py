"""Class grading on a Dask cluster against local processes on the same cores, measured in one run.

On one machine, with the default settings (sandbox and counterexample search on), the same
synthetic class (a third correct, the rest every known mistake in turn, as class_bench.py makes
it) is graded, each time by a whole `grade class` CLI process with a fresh gradebook:

  * locally with `grade class --jobs 2`;
  * with `grade class --scheduler` on a `dask scheduler` and 2 `dask worker --nthreads 1`
    processes (each with its nanny), as the README starts them, on loopback.

The two alternate, ``--rounds`` times (the order swapped every round, so a machine whose load
drifts hurts both alike); the table gives the median of each and the ratio of the cluster's
time to the local one's, against the target (the cluster at most 1.15 times the local time,
start-up included: the client's start, the course shipped, every worker's warm grader built).
The cluster itself is started before and primed once with a small class (its worker processes
import the grader the first time), as a cluster that is already running would be; the first,
cold run is reported too. Each row also gives the CPU seconds that run took on the machine:
for the local run its processes, for the cluster run the client's plus everything the
scheduler, the nanny and the workers (with their sandboxes) spent meanwhile.

A run of one submission on the same cluster measures the fixed cost, so the rest gives the
rate per worker once warm and the client's CPU per submission; the client's peak memory is
measured for a larger class (``--memory-n``, 0 to skip), and the figures give what a
100 000-submission run would take on N workers. ``--one-worker`` adds `--jobs 1` and a
1-worker cluster.

    python benchmarks/cluster_bench.py [--n 120] [--rounds 3] [--memory-n 600] [--one-worker]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from class_bench import make_class, tree_rss  # noqa: E402

SECRET = "cluster-bench-secret-0123456789abcdef"
TARGET = 1.15          # the cluster's time over the local run's on the same cores, at most
TICK = os.sysconf("SC_CLK_TCK")


class Cluster:
    """A `dask scheduler` and ``workers`` `dask worker` processes (with nannies) on loopback."""

    def __init__(self, folder: Path, workers: int, env: dict):
        self.folder, self.env, self.procs = folder, env, []
        scheduler_file = folder / f"scheduler-{workers}-{time.monotonic_ns()}.json"
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

    def cpu(self) -> float:
        """CPU seconds the scheduler, the nanny, the workers and their sandboxes spent so far."""
        return sum(tree_cpu(proc.pid) for proc in self.procs)

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


def tree_cpu(root: int) -> float:
    """User and system seconds of ``root`` and every live descendant, each with its reaped children."""
    children, times = {}, {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(name))
            times[int(name)] = sum(int(f) for f in fields[11:15]) / TICK
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


def grade(cls: Path, book: Path, env: dict, *how: str) -> tuple[float, float, int]:
    """One whole `grade class` run: its seconds, its own CPU seconds (with its children's) and
    its peak memory (with its children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    err = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "grader", "class", str(cls), *how, "--force",
                             "--gradebook", str(book), "--feedback", "none", "--format", "json"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
    peak = 0
    while True:
        pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.1)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        err.seek(0)
        raise SystemExit(f"grade class {' '.join(how)} failed with exit code {code}: "
                         f"{err.read().decode(errors='replace')[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu, peak


class Runs:
    """Runs of one class, locally and on the cluster, with their seconds and CPU seconds."""

    def __init__(self, folder: Path, env: dict):
        self.folder, self.env, self.count = folder, env, 0

    def _book(self) -> Path:
        self.count += 1
        return self.folder / f"book{self.count}.sqlite"

    def local(self, cls: Path, jobs: int) -> tuple[float, float]:
        seconds, cpu, _ = grade(cls, self._book(), self.env, "--jobs", str(jobs))
        return seconds, cpu

    def cluster(self, cls: Path, cluster: Cluster) -> dict:
        """seconds, cpu (the client's and the cluster's), client_cpu, client_peak."""
        before = cluster.cpu()
        seconds, client_cpu, peak = grade(cls, self._book(), self.env, "--scheduler", cluster.address)
        return {"seconds": seconds, "cpu": client_cpu + cluster.cpu() - before, "client_cpu": client_cpu,
                "client_peak": peak}


def one_submission(cls: Path, folder: Path) -> Path:
    single = folder / "single"
    single.mkdir()
    first = sorted(cls.iterdir())[0]
    shutil.copytree(first, single / first.name)
    return single


def small_class(cls: Path, folder: Path, n: int = 4) -> Path:
    small = folder / "small"
    small.mkdir()
    for entry in sorted(cls.iterdir())[:n]:
        shutil.copytree(entry, small / entry.name)
    return small


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=120, help="submissions for the timed runs")
    parser.add_argument("--rounds", type=int, default=3, help="local and cluster runs, alternated")
    parser.add_argument("--memory-n", type=int, default=600, help="submissions for the client-memory run (0: none)")
    parser.add_argument("--one-worker", action="store_true", help="also --jobs 1 and a cluster of 1 worker")
    args = parser.parse_args()
    env = {**os.environ, "GRADER_SECRET": SECRET}
    os.environ["GRADER_SECRET"] = SECRET
    n = args.n
    with tempfile.TemporaryDirectory(prefix="cluster-bench-") as tmp:
        tmp = Path(tmp)
        cls = make_class(tmp / "a", n)
        single, small = one_submission(cls, tmp), small_class(cls, tmp)
        runs = Runs(tmp, env)
        local, dask = [], []
        one = {}
        cluster = Cluster(tmp, 2, env)
        try:
            cold = runs.cluster(small, cluster)["seconds"]       # the workers import the grader
            for round_ in range(args.rounds):
                for where in (("local", "cluster") if round_ % 2 == 0 else ("cluster", "local")):
                    if where == "local":
                        local.append(runs.local(cls, 2))
                    else:
                        dask.append(runs.cluster(cls, cluster))
            fixed = runs.cluster(single, cluster)
            fixed_local = runs.local(single, 2)[0]
            big = runs.cluster(make_class(tmp / "b", args.memory_n), cluster) if args.memory_n else None
        finally:
            cluster.close()
        if args.one_worker:
            one["local"] = runs.local(cls, 1)
            cluster = Cluster(tmp, 1, env)
            try:
                runs.cluster(small, cluster)
                one["fixed"] = runs.cluster(single, cluster)["seconds"]
                one["dask"] = runs.cluster(cls, cluster)
            finally:
                cluster.close()

    local_s = statistics.median(s for s, _ in local)
    local_cpu = statistics.median(c for _, c in local)
    dask_s = statistics.median(r["seconds"] for r in dask)
    dask_cpu = statistics.median(r["cpu"] for r in dask)
    ratio = dask_s / local_s
    print(f"cluster grading benchmark: {n} synthetic submissions (the reference and every known mistake), "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, default settings (sandbox, counterexamples); "
          f"every row a whole `grade class` run, start-up included; median of {args.rounds} alternated rounds")
    print(f"{'':46} {'seconds':>8} {'subs/s':>7} {'CPU s':>7}   rounds (s)")
    rows = [("grade class --jobs 2 (local)", local_s, local_cpu, [s for s, _ in local]),
            ("grade class --scheduler, 2 Dask workers", dask_s, dask_cpu, [r["seconds"] for r in dask])]
    if one:
        rows += [("grade class --jobs 1 (local)", *one["local"], [one["local"][0]]),
                 ("grade class --scheduler, 1 Dask worker", one["dask"]["seconds"], one["dask"]["cpu"],
                  [one["dask"]["seconds"]])]
    for name, seconds, cpu, each in rows:
        print(f"{name:46} {seconds:>8.2f} {n / seconds:>7.2f} {cpu:>7.1f}   {' '.join(f'{s:.2f}' for s in each)}")
    verdict = "met" if ratio <= TARGET else "NOT met"
    each = " ".join(f"{r['seconds'] / s:.2f}" for r, (s, _) in zip(dask, local))
    print(f"2 Dask workers / --jobs 2, time: {ratio:.2f}x (target <= {TARGET}: {verdict}); per round: {each}; "
          f"CPU: {dask_cpu / local_cpu:.2f}x")
    print(f"the first run after the cluster started (its workers import the grader): {cold:.1f} s for 4 submissions")
    print()
    per_worker = (n - 1) / max(1e-9, dask_s - fixed["seconds"]) / 2
    print(f"fixed cost of a run (one submission, start-up to exit): {fixed['seconds']:.1f} s on 2 Dask workers, "
          f"{fixed_local:.1f} s with --jobs 2; once warm {per_worker:.2f} subs/s per Dask worker")
    client_cpu = (statistics.median(r["client_cpu"] for r in dask) - fixed["client_cpu"]) / (n - 1)
    print(f"the client's CPU per submission (loading, packing, the gradebook): {client_cpu * 1000:.0f} ms, "
          f"so one client feeds at most {1 / client_cpu:.0f} subs/s")
    if one:
        print(f"1 Dask worker / --jobs 1, time: {one['dask']['seconds'] / one['local'][0]:.2f}x; "
              f"fixed cost on 1 worker {one['fixed']:.1f} s")
    peak = max(r["client_peak"] for r in dask)
    line = f"client peak memory: {peak / 2**20:.0f} MiB for {n} submissions"
    if big is not None:
        line += f", {big['client_peak'] / 2**20:.0f} MiB for {args.memory_n} ({big['seconds']:.0f} s)"
    print(line)
    rate = per_worker          # one worker per core, each as fast as here
    for workers in (16, 64, 256):
        throughput = min(rate * workers, 1 / client_cpu)
        hours = (100_000 / throughput + fixed["seconds"]) / 3600
        bound = "the client" if throughput < rate * workers else "the workers"
        print(f"100 000 submissions on {workers:>3} one-core workers at {rate:.2f} subs/s each: {hours:.2f} h "
              f"({bound} the limit)")


if __name__ == "__main__":
    main()
