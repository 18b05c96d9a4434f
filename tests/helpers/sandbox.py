"""Building and reading attacks on the sandbox: tests/sandbox/test_sandbox*.py and test_redteam_*.py."""

from __future__ import annotations

import os
import textwrap
import time
import uuid
from pathlib import Path

import grader.sandbox.isolation as isolation
from conftest import copy_reference
from grader.submission.load import load_submission

ATTACKED = ["step", "scalar", "params"]     # step and scalar live in rnn_step.py; params is untouched

# What grading falls back to when bubblewrap is made unavailable (the no_bwrap fixture)
FALLBACK = isolation.fallback_isolation("bubblewrap made unavailable", None)


def attack_folder(tmp_path, body: str, whole_file: bool = False) -> Path:
    """The reference, with rnn_step.py replaced (whole_file) or its rnn_step overridden by ``body``."""
    folder = copy_reference(tmp_path / f"attack-{uuid.uuid4().hex[:6]}")
    path = folder / "rnn_step.py"
    reference = path.read_text()
    code = textwrap.dedent(body)
    path.write_text(code + "\n" + reference if whole_file else reference + "\n\n" + code)
    return folder


def run_attack(grader, tmp_path, body, whole_file=False, only=ATTACKED):
    folder = attack_folder(tmp_path, body, whole_file)
    return grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), only)


def scores(result):
    return {e.id: (e.score, e.max_score) for e in result.exercises}


# Checks that judge only a property (grader/checks/api.py): an attack that returns zeros of the right
# shape without touching its inputs has those properties, and may keep their points.
PROPERTY_CHECKS = {"shape_dtype", "inputs_unchanged", "no_state"}


def assert_contained(result, attacked=("step",)):
    got = scores(result)
    for exercise in result.exercises:
        if exercise.id in attacked:
            earned = [c.name for c in exercise.checks if c.passed and c.name not in PROPERTY_CHECKS]
            assert earned == [], (exercise.id, earned, got)
    for ex_id in ("params",):
        assert got[ex_id][0] == got[ex_id][1], (ex_id, got)


def no_process_with(marker: str, within: float = 5.0) -> bool:
    """No process has ``marker`` in its command line, at the latest ``within`` seconds from now. The grader
    kills what a submission left and does not wait for it (grader/sandbox/worker/zygote.py, discard): a killed
    process can still be listed for a moment, longer on a busy machine (two test workers, say)."""
    deadline = time.monotonic() + within
    while True:
        if not _processes_with(marker.encode()):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _processes_with(marker: bytes) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
    return found


# ---------------------------------------------------------------- without bubblewrap

def submit(tmp_path: Path, attack: str) -> Path:
    """The reference, whose rnn_step.py first runs ``attack`` at import: what it prints is
    the step exercise's output in the report."""
    folder = copy_reference(tmp_path / f"student-{uuid.uuid4().hex[:6]}")
    path = folder / "rnn_step.py"
    path.write_text(textwrap.dedent(attack) + "\n" + path.read_text())
    return folder


def output_of(grader, folder: Path, tmp_path: Path) -> str:
    result = grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), ["step"])
    step = result.exercises[0]
    assert step.score == step.max_score, [c.message for c in step.checks if not c.passed]
    assert result.isolation == FALLBACK.name
    return "".join(step.output)


def force_user_mode(monkeypatch, mounts: bool):
    """Bubblewrap and Landlock made unavailable: the ``user`` mode, with or without private mounts."""
    monkeypatch.setattr(isolation, "sandbox_unavailable", lambda: "bubblewrap made unavailable")
    monkeypatch.setattr(isolation, "another_uid_can_run_python", lambda: True)
    monkeypatch.setattr(isolation, "landlock_available", lambda: 0)
    if not mounts:
        monkeypatch.setattr(isolation, "private_mounts_unavailable", lambda: "mounts made unavailable")
    else:
        assert isolation.private_mounts_unavailable() == "", "this machine cannot make private mounts"
