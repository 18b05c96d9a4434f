"""The test suite cleans up after itself: a session leaves no cache folder in TMPDIR."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["one process", "xdist"])
def test_a_test_session_leaves_no_cache_folder_behind(tmp_path, workers):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_CACHE_DIR", "PYTEST_XDIST_WORKER")}
    env["TMPDIR"] = str(tmp)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers,
                           "tests/engine/test_i18n.py"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert [p.name for p in tmp.iterdir() if p.name.startswith("grader-test-cache-")] == []
