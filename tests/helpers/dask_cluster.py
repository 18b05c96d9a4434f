"""`dask scheduler` and `dask worker` processes on loopback: tests/cli/test_cluster.py and test_lms_layouts.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


class DaskProcesses:
    """`dask scheduler` and `dask worker` as the README starts them, on loopback only (ports the system picks)."""

    def __init__(self, folder: Path, workers: int, env: dict):
        import distributed      # the cluster extra: its tests skip without it before they get here

        self.folder, self.env = folder, env
        self.scheduler_file = folder / "scheduler.json"
        self.scheduler = self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                     "--scheduler-file", self.scheduler_file)
        deadline = time.monotonic() + 60
        while not self.scheduler_file.exists():
            assert time.monotonic() < deadline and self.scheduler.poll() is None, "no scheduler"
            time.sleep(0.1)
        time.sleep(0.2)    # written whole
        self.address = json.loads(self.scheduler_file.read_text())["address"]
        self.workers = [self._start("worker", "--scheduler-file", self.scheduler_file, "--nthreads", "1",
                                    "--no-nanny", "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{i}")
                        for i in range(workers)]
        with distributed.Client(self.address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=60)

    def _start(self, *args):
        dask = Path(sys.executable).with_name("dask")
        log = open(self.folder / f"{args[0]}-{time.monotonic_ns()}.log", "w")
        return subprocess.Popen([str(dask), *map(str, args)], stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)

    def stop(self):
        # The workers first, then the scheduler: a worker sent SIGTERM while the scheduler closes too may hang in
        # its close (a CancelledError in distributed's plugin_remove) until it is killed, 30 s later.
        self._end(self.workers)
        self._end([self.scheduler])

    @staticmethod
    def _end(procs):
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
