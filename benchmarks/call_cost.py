"""What one call of a student function costs at the worker boundary, beyond the function itself.

A sandboxed worker (default settings) runs batches of calls to a function that does almost
nothing, as a check's planned calls run: one request per batch, one reply per call, the request
packed once (as the grader caches a run's frames). Two kinds of call: a small one (four small
arrays in, one out, as rnn_step) and one carrying a tinyrnn-sized set of parameters (three
arrays and a dict of six in, a float and a dict of six arrays out, as tiny_rnn_loss). Printed per
call: the wall time, the grading process's CPU and the sandboxed child's CPU (the worker's whole
process tree, read when it has exited, less that of a worker that ran no batch).

    python benchmarks/call_cost.py [--calls 400] [--batches 20]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.sandbox.client import StudentModule, Worker  # noqa: E402

MODULE = '''
def small(x, h, W, b):
    return h

def loss(tokens, targets, params, h0=None):
    return 1.25, {name: value * 0.5 for name, value in params.items()}
'''


def arguments() -> dict:
    rng = np.random.default_rng(0)
    params = {name: rng.normal(size=shape) for name, shape in
              [("E", (8, 4)), ("W_x", (4, 4)), ("W_h", (4, 4)), ("b", (4,)), ("W_y", (4, 8)), ("c", (8,))]}
    return {"small": ((rng.normal(size=(2, 4)), rng.normal(size=(2, 4)), rng.normal(size=(4, 4)),
                       rng.normal(size=4)), {}),
            "loss": ((np.array([1, 2, 3]), np.array([2, 3, 4]), params), {"h0": np.zeros(4)})}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(folder: Path, func: str, calls: int, batches: int) -> tuple[float, float, float]:
    """(wall, grader CPU, child CPU) per call, in seconds."""
    args, kwargs = arguments()[func]
    keys = [object() for _ in range(calls)]          # the frame is packed once, as a run's are
    batch = [(func, args, kwargs)] * calls
    before = children_cpu()
    with Worker() as worker, worker.staged(folder) as root:
        StudentModule(worker, root, "mod", 5.0).batch(batch[:1])
    idle = children_cpu() - before                   # a worker's start, one child, its exit
    before = children_cpu()
    with Worker() as worker, worker.staged(folder) as root:
        student = StudentModule(worker, root, "mod", 5.0)
        student.batch(batch, cache_as=keys)          # warm: the child forked, the frame packed
        cpu, start = time.process_time(), time.perf_counter()
        for _ in range(batches):
            results = student.batch(batch, cache_as=keys)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert not any(isinstance(r, Exception) for r in results), results[:1]
    child = children_cpu() - before - idle
    n = calls * (batches + 1)
    return wall / (calls * batches), cpu / (calls * batches), child / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="calls in a batch")
    parser.add_argument("--batches", type=int, default=20, help="timed batches of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "mod.py").write_text(MODULE)
        print(f"{'per call, µs':40} {'wall':>8} {'grader':>8} {'child':>8}")
        for func, what in (("small", "small (4 arrays in, 1 out)"),
                           ("loss", "tinyrnn-sized (9 arrays in, 6 out)")):
            wall, grader, child = measure(folder, func, args.calls, args.batches)
            print(f"{what:40} {wall * 1e6:>8.1f} {grader * 1e6:>8.1f} {child * 1e6:>8.1f}")


if __name__ == "__main__":
    main()
