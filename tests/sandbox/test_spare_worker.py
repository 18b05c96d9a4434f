"""The worker `grade check` starts before it loads the course (grader/sandbox/launch.py): its hello
is bubblewrap's probe, the first Worker of the same settings takes it, and nothing of it is left
behind when no Worker does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import grader.sandbox.isolation as isolation
import grader.sandbox.launch as launch
from conftest import REFERENCE, copy_reference, full_marks, run_grade
from grader.cli import cli
from grader.grading.engine import Grader
from grader.sandbox.client import Limits, Worker
from grader.submission.load import load_submission

pytestmark = pytest.mark.skipif(isolation.bwrap_path() is None, reason="bubblewrap is not installed")


@pytest.fixture
def fresh_process_state(monkeypatch):
    """As in a new `grade` process: no probe answer, no spare (restored afterwards)."""
    monkeypatch.setattr(isolation, "_ANSWER", [])
    monkeypatch.setattr(isolation, "_HELLO", [])
    monkeypatch.setattr(launch, "_SPARES", [])
    yield
    launch.discard_spares()


def no_probe(monkeypatch):
    def probe(_exchange):
        raise AssertionError("bubblewrap was probed although the worker said hello")
    monkeypatch.setattr(isolation, "probe_bwrap", probe)


def test_the_worker_started_first_is_the_probe_and_grades(fresh_process_state, monkeypatch, course, tmp_path):
    no_probe(monkeypatch)
    launch.start_spare(hidden=[course.root])
    spare = launch._SPARES[0]
    assert isolation.sandbox_unavailable() == ""          # its hello, no probe
    with Grader(course) as grader:
        assert grader.worker._proc is spare.proc           # taken, not started again
        assert grader.worker.isolation.sandboxed
        result = grader.grade(load_submission(REFERENCE, tmp_path / "work"), ["step"])
    assert full_marks(result)
    assert launch._SPARES == [] and not spare.exchange.exists()


def test_a_worker_of_other_settings_starts_its_own_and_the_spare_is_killed(fresh_process_state, monkeypatch, course):
    no_probe(monkeypatch)
    launch.start_spare(hidden=[course.root])
    spare = launch._SPARES[0]
    proc = spare.proc
    with Worker(limits=Limits(processes=32), hidden=[course.root]) as worker:
        assert worker.isolation.sandboxed                 # the spare's hello still answered the probe
        assert worker._proc is not proc
    assert proc.poll() is not None and not spare.exchange.exists()


def test_a_spare_that_never_says_hello_leaves_the_answer_to_the_probe(fresh_process_state, monkeypatch, course,
                                                                       tmp_path):
    probed = []
    real_probe = isolation.probe_bwrap
    monkeypatch.setattr(isolation, "probe_bwrap", lambda exchange: probed.append(1) or real_probe(exchange))
    # a worker that dies at once, as one would where bubblewrap cannot make its namespaces
    real_command = launch.worker_command
    monkeypatch.setattr(launch, "worker_command", lambda _isolation: [sys.executable, "-c", "raise SystemExit(78)"])
    launch.start_spare(hidden=[course.root])
    monkeypatch.setattr(launch, "worker_command", real_command)
    spare = launch._SPARES[0]
    assert isolation.sandbox_unavailable() == "" and probed == [1]   # this machine's bubblewrap works
    with Grader(course) as grader:                       # so the worker is bubblewrap's, started anew
        assert grader.worker._proc is None or grader.worker._proc is not spare.proc
        result = grader.grade(load_submission(REFERENCE, tmp_path / "work"), ["step"])
    assert grader.worker.isolation.sandboxed and full_marks(result)
    assert not spare.exchange.exists()


def test_a_monkeypatched_unavailable_sandbox_is_not_overruled_by_a_spare(fresh_process_state, monkeypatch, course):
    launch.start_spare(hidden=[course.root])
    spare = launch._SPARES[0]
    monkeypatch.setattr(isolation, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    with Worker(hidden=[course.root]) as worker:
        assert not worker.isolation.sandboxed
    assert spare.proc is None and not spare.exchange.exists()


def test_grade_check_leaves_no_worker_and_no_folder_behind_when_it_grades_nothing(tmp_path):
    # the submission cannot be loaded: the spare started, and no Worker took it
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code, out, err = run_grade("check", tmp_path / "missing-folder", env={**os.environ, "TMPDIR": str(tmp)})
    assert code == 2 and "Traceback" not in err
    assert list(tmp.glob("grade-exchange-*")) == []


def test_grade_check_that_grades_ends_with_nothing_left_and_its_whole_report(tmp_path):
    """`grade check` ends without the interpreter's teardown (grader/cli.py quick_exit): what it
    registered at exit still runs, and the report is written whole."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    folder = copy_reference(tmp_path / "sub")
    code, out, err = run_grade("check", folder, "--format", "json", env={**os.environ, "TMPDIR": str(tmp)})
    assert code == 0, err
    assert json.loads(out)["score"] == json.loads(out)["max_score"]
    assert list(tmp.iterdir()) == []


def test_grade_check_starts_one_sandboxed_interpreter(fresh_process_state, monkeypatch, tmp_path):
    """The probe is the worker: one bubblewrap for the whole `grade check`, and no probe."""
    no_probe(monkeypatch)
    started = []
    real_popen = subprocess.Popen

    def popen(argv, *args, **kwargs):
        started.append(argv)
        return real_popen(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    folder = copy_reference(tmp_path / "sub")
    result = CliRunner().invoke(cli, ["check", str(folder), "--only", "step", "--format", "json"])
    assert result.exit_code == 0, result.output
    bwraps = [argv for argv in started if Path(str(argv[0])).name == "bwrap"]
    assert len(bwraps) == 1, started
