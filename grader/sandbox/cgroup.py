"""A best-effort process and memory ceiling for one sandbox, in a cgroup (v2 or v1 hierarchy).

RLIMIT_NPROC does not bind processes that are root outside their user namespace, which is
what bubblewrap makes of them when the grader runs as root: where a cgroup hierarchy is
writable, the worker's process joins a cgroup of its own between fork and exec
(grader/sandbox/isolation.py: worker_preexec), whose limits bind the whole sandbox.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


class Cgroup:
    """A best-effort process and memory ceiling for one sandbox (v2 or v1 hierarchy)."""

    def __init__(self, pids_max: int, memory_max: int):
        self.pids_max, self.memory_max = pids_max, memory_max
        self.dirs: list[Path] = []
        name = f"rnn-grader-{os.getpid()}-{id(self):x}"
        unified = Path("/sys/fs/cgroup")
        if (unified / "cgroup.controllers").exists():
            self._make(unified / _own_cgroup("") / name, {"pids.max": pids_max, "memory.max": memory_max})
        else:
            self._make(Path("/sys/fs/cgroup/pids") / _own_cgroup("pids") / name, {"pids.max": pids_max})
            self._make(Path("/sys/fs/cgroup/memory") / _own_cgroup("memory") / name,
                       {"memory.limit_in_bytes": memory_max})

    def _make(self, directory: Path, limits: dict):
        _remove_stale(directory.parent)
        try:
            directory.mkdir()
        except OSError:
            return
        try:
            for key, value in limits.items():
                (directory / key).write_text(str(value))
        except OSError:
            self._remove(directory)
            return
        self.dirs.append(directory)

    @property
    def active(self) -> bool:
        return bool(self.dirs)

    def enter(self):
        """Called in the child between fork and exec: move it (and so the sandbox) in."""
        for directory in self.dirs:
            try:
                (directory / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                pass

    def close(self):
        for directory in self.dirs:
            self._remove(directory)
        self.dirs = []

    @staticmethod
    def _remove(directory: Path, patience: float = 2.0):
        """Kill whatever is left inside, then remove the group (it must be empty first)."""
        deadline = time.monotonic() + patience
        pause = 0.0005      # killed processes leave within a millisecond or two: look again soon, then less often
        while True:
            try:
                for pid in (directory / "cgroup.procs").read_text().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except OSError:
                        pass
                directory.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(pause)
                pause = min(pause * 2, 0.01)


def _remove_stale(parent: Path):
    """Groups left by graders that were killed (kill -9) before they could clean up."""
    try:
        entries = list(parent.glob("rnn-grader-*"))
    except OSError:
        return
    for directory in entries:
        try:
            owner = int(directory.name.split("-")[2])
        except (IndexError, ValueError):
            continue
        if not Path(f"/proc/{owner}").exists():
            Cgroup._remove(directory, patience=0.2)


def _own_cgroup(controller: str) -> str:
    """This process's cgroup path within a hierarchy (v1 controller name, or '' for v2)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if (controller == "" and controllers == "") or controller in controllers.split(","):
                return path.lstrip("/")
    except OSError:
        pass
    return ""
