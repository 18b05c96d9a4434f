"""`grade check --watch`: regrades on every save, only what changed and what depends on it,
survives a syntax error, and Ctrl-C leaves no process behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from conftest import ROOT, copy_reference

STATUS = re.compile(r"^\[watch\] graded (.*) in [0-9.]+ s;")


class Watch:
    """A `grade check --watch` process whose output is read line by line in a thread."""

    def __init__(self, folder: Path, *extra: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "check", str(folder), "--watch", "--watch-interval", "0.05",
             "--no-counterexamples", *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def rounds(self) -> list[list[str]]:
        """Per grading round so far: the exercise ids it graded."""
        return [m.group(1).split(", ") for line in list(self.lines) if (m := STATUS.match(line))]

    def wait_rounds(self, n: int, timeout: float = 120) -> list[list[str]]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.rounds()) >= n:
                return self.rounds()
            assert self.proc.poll() is None, (self.lines, self.proc.stderr.read())
            time.sleep(0.05)
        raise AssertionError(f"no round {n}: {self.lines[-20:]}")

    def report_since(self, n: int) -> str:
        """The text printed after round ``n``'s status line."""
        seen, out = 0, []
        for line in list(self.lines):
            if STATUS.match(line):
                seen += 1
                continue
            if seen >= n:
                out.append(line)
        return "\n".join(out)

    def descendants(self) -> list[psutil.Process]:
        return psutil.Process(self.proc.pid).children(recursive=True)

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=60)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def folder(tmp_path):
    return copy_reference(tmp_path / "sub")


def save(path: Path, text: str) -> None:
    """A save an editor makes: new content, and a modification time that surely differs."""
    path.write_text(text, encoding="utf-8")
    later = time.time() + 1
    os.utime(path, (later, later))


def touch_later(path: Path, seconds: float) -> None:
    stamp = path.stat().st_mtime + seconds
    os.utime(path, (stamp, stamp))


def test_a_file_saved_twice_is_regraded_twice_and_alone(folder):
    watch = Watch(folder, "--only", "step", "--only", "forward", "--only", "params")
    try:
        assert watch.wait_rounds(1)[0] == ["step", "forward", "params"]
        target = folder / "param_count.py"
        original = target.read_text(encoding="utf-8")
        save(target, original + "\n\ndef count_rnn_params(*args, **kwargs):\n    return 0\n")
        assert watch.wait_rounds(2)[1] == ["params"]           # only the exercise of that file
        report = watch.report_since(1)
        total = int(re.search(r"Total: (\d+)/32", report).group(1))
        assert 24 <= total < 32                                # params lost points, step and forward kept theirs
        assert "\nstep " in report and "\nforward " in report
        save(target, original)
        touch_later(target, 2)
        assert watch.wait_rounds(3)[2] == ["params"]
        assert "Total: 32/32" in watch.report_since(2)
    finally:
        watch.close()


def test_a_changed_dependency_regrades_what_imports_it(folder):
    watch = Watch(folder, "--only", "step", "--only", "forward", "--only", "params")
    try:
        watch.wait_rounds(1)
        touch_later(folder / "rnn_step.py", 2)     # rnn_forward.py imports rnn_step
        assert watch.wait_rounds(2)[1] == ["step", "forward"]
        touch_later(folder / "rnn_forward.py", 4)  # nothing graded here imports rnn_forward
        assert watch.wait_rounds(3)[2] == ["forward"]
    finally:
        watch.close()


def test_a_syntax_error_mid_watch_is_reported_then_fixed(folder):
    watch = Watch(folder, "--only", "step")
    try:
        watch.wait_rounds(1)
        target = folder / "rnn_step.py"
        original = target.read_text(encoding="utf-8")
        save(target, original + "\ndef broken(:\n")
        watch.wait_rounds(2)
        broken = watch.report_since(1)
        assert "Total: 0/" in broken and ("SyntaxError" in broken or "syntax" in broken.lower())
        assert watch.proc.poll() is None                       # still watching
        save(target, original)
        touch_later(target, 3)
        watch.wait_rounds(3)
        assert "All checks passed" in watch.report_since(2)
    finally:
        watch.close()


def test_ctrl_c_ends_the_watch_with_no_process_left(folder):
    watch = Watch(folder, "--only", "step")
    try:
        watch.wait_rounds(1)
        children = watch.descendants()
        assert children, "the warm worker runs while watching"
        pids = [child.pid for child in children]
        code = watch.interrupt()
        assert code == 0, watch.proc.stderr.read()
        time.sleep(0.2)
        alive = [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        assert alive == []
        assert "Traceback" not in watch.proc.stderr.read()
    finally:
        watch.close()


def test_watch_refuses_a_non_folder_and_other_formats(folder):
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(folder / "rnn_step.py"), "--watch"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    done = subprocess.run([sys.executable, "-m", "grader", "check", str(folder), "--watch", "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
