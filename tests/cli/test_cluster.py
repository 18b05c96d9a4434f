"""`grade class --scheduler` (issue 17, CONTRACT section 9): a real Dask scheduler and workers on
loopback grade a class exactly as local processes do; a worker killed with -9 mid-run loses
nothing; a submission that kills every worker trying it is that student's failure only; a worker
that cannot grade as asked stops the run with one line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import (ROOT, STUBS, copy_reference, notebook_from_source, run_grade as run, single_file_source,
                      with_mistake, zip_folder)
from grader.report.results import SubmissionResult
from grader.sandbox.isolation import bwrap_path
from grader.report import json_data
from helpers.dask_cluster import DaskProcesses

distributed = pytest.importorskip("distributed")
needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
MISTAKES = ROOT / "solutions" / "mistakes"

# Kills the nearest ancestor that is a Dask worker process (the trusted grader, without the sandbox).
KILL_MY_WORKER = """
import os, signal
def _kill_the_grading_worker():
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmdline = fh.read()
        if b"spawn_main" in cmdline or b"dask" in cmdline:
            os.kill(pid, signal.SIGKILL)
            return
        with open(f"/proc/{pid}/stat") as fh:
            pid = int(fh.read().rsplit(")", 1)[1].split()[1])
_kill_the_grading_worker()
"""


def make_class(folder: Path, copies: int = 1) -> Path:
    """Every kind of entry: folders right and wrong, a stub, a single file, a notebook, a zip, a
    folder whose notebook is graded instead of its unchanged stubs, a file that does not compile."""
    folder.mkdir(parents=True)
    for n in range(copies):
        tag = f"-{n}" if copies > 1 else ""
        copy_reference(folder / f"alice{tag}")
        shutil.copytree(STUBS, folder / f"bob{tag}")
        with_mistake(copy_reference(folder / f"carol{tag}"), "rnn_step.py", MISTAKES / "step/missing_bias.py")
        (folder / f"dave{tag}.py").write_text((ROOT / "tests/impls/single_file.py").read_text())
        notebook_from_source(single_file_source(), folder / f"erin{tag}.ipynb")
        wrong = with_mistake(copy_reference(folder.parent / f"frank-src{tag}"), "bptt.py",
                             MISTAKES / "bptt/grads_not_reset.py")
        zip_folder(wrong, folder / f"frank{tag}.zip")
        shutil.copytree(STUBS, folder / f"gina{tag}")
        notebook_from_source(single_file_source(), folder / f"gina{tag}" / "homework.ipynb")
        broken = copy_reference(folder / f"hank{tag}")
        (broken / "masking.py").write_text("def sequence_mask(lengths, T:\n")
        with_mistake(copy_reference(folder / f"ivan{tag}"), "tiny_rnn.py", MISTAKES / "tinyrnn/ascent.py")
    (folder / "notes.txt").write_text("not a submission")
    return folder


def graded_rows(book: Path) -> dict:
    """Per student, the latest attempt as the gradebook keeps it, timings left out."""
    with sqlite3.connect(book) as db:
        rows = db.execute("SELECT id, student, score, max_score, isolation, result FROM attempts "
                          "WHERE id IN (SELECT MAX(id) FROM attempts GROUP BY student)").fetchall()
        out = {}
        for attempt, student, score, max_score, isolation, stored in rows:
            result = SubmissionResult.from_data(json.loads(stored))
            en, zh = json_data(result, "en"), json_data(result, "zh")
            checks = db.execute("SELECT exercise, name, passed, score, max_score, hidden FROM checks "
                                "WHERE attempt_id = ? ORDER BY rowid", (attempt,)).fetchall()
            mistakes = db.execute("SELECT exercise, mistake FROM diagnoses WHERE attempt_id = ? ORDER BY rowid",
                                  (attempt,)).fetchall()
            out[student] = (score, max_score, isolation, untimed(en), untimed(zh),
                            checks, mistakes)
        return out


def untimed(report):
    if isinstance(report, dict):
        return {k: untimed(v) for k, v in report.items() if k not in ("seconds", "elapsed", "graded_at")}
    if isinstance(report, list):
        return [untimed(v) for v in report]
    return report


def skipped_rows(book: Path) -> set:
    with sqlite3.connect(book) as db:
        return set(db.execute("SELECT entry, reason FROM skipped").fetchall())


@pytest.fixture(scope="module")
def secret_env():
    return {**os.environ, "GRADER_SECRET": "a-cluster-test-secret-0123456789abcdef"}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    return make_class(tmp_path_factory.mktemp("cluster") / "class")


@pytest.fixture(scope="module")
def local_run(klass, tmp_path_factory, secret_env):
    book = tmp_path_factory.mktemp("local") / "book.sqlite"
    code, out, err = run("class", klass, "--jobs", "2", "--gradebook", book, "--format", "json", env=secret_env)
    assert code == 0, err      # hank's broken file costs its exercises; every student is graded
    return book, json.loads(out), err


@pytest.fixture
def dask_processes(tmp_path, secret_env):
    started = []

    def start(workers=2, env=None):
        procs = DaskProcesses(tmp_path, workers, env or secret_env)
        started.append(procs)
        return procs

    yield start
    for procs in started:
        procs.stop()


def attempt_count(book: Path) -> int:
    try:
        with sqlite3.connect(book, timeout=30) as db:
            return db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


# ================================================================ the same results as a local run

@needs_bwrap
def test_a_dask_cluster_grades_a_class_exactly_as_local_processes(klass, local_run, dask_processes, tmp_path,
                                                                    secret_env):
    local_book, local_json, local_err = local_run
    cluster = dask_processes(workers=2)
    book = tmp_path / "book.sqlite"
    code, out, err = run("class", klass, "--scheduler", cluster.address, "--gradebook", book, "--format", "json",
                         env=secret_env)
    assert code == 0 and "Traceback" not in err, err
    remote, local = graded_rows(book), graded_rows(local_book)
    assert set(remote) == {"alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan"}
    assert remote == local                      # scores, verdicts, diagnoses, both reports
    assert skipped_rows(book) == skipped_rows(local_book)
    assert untimed(json.loads(out)) == untimed(local_json)
    assert remote["alice"][0] == remote["alice"][1] and remote["bob"][0] == 0
    assert ("step", "step.missing_bias") in remote["carol"][6]
    assert ("bptt", "bptt.grads_not_reset") in remote["frank"][6]
    assert remote["gina"][0] == remote["gina"][1]      # its notebook was sent along and graded
    # The same feedback files, and a rerun on the cluster grades nothing unchanged.
    local_feedback = {p.name: p.read_text() for p in (local_book.parent / "class.feedback").iterdir()}
    remote_feedback = {p.name: p.read_text() for p in (book.parent / "class.feedback").iterdir()}
    assert remote_feedback.keys() == local_feedback.keys()
    assert "step.missing_bias" in remote_feedback["carol.md"]
    code, out, err = run("class", klass, "--scheduler", cluster.address, "--gradebook", book, env=secret_env)
    assert code == 0 and "0 graded now, 9 unchanged" in out, (out, err)


def test_a_local_cluster_and_the_python_api(klass, local_run, tmp_path, secret_env, monkeypatch):
    """A LocalCluster (one process per worker) through grade_class itself; no sandbox needed."""
    from grader.classroom.class_run import grade_class
    from grader.classroom.cluster import DaskPool
    from grader.course.loader import bundled_course_root, load_course
    from grader.classroom.gradebook import Gradebook

    monkeypatch.setenv("GRADER_SECRET", secret_env["GRADER_SECRET"])
    course = load_course(bundled_course_root())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        pool = DaskPool(cluster.scheduler_address, course, only=("step", "quiz"), isolation="none")
        # Each worker builds its warm grader as soon as it has the plugin, before any task, and its
        # statistical profiler stays off while the plugin is there.
        warm = pool.client.run(warmed_without_a_task)
        assert list(warm.values()) == [(True, False)] * 2, warm
        with Gradebook(tmp_path / "book.sqlite") as book:
            run_ = grade_class(course, klass, book, jobs=1, only=("step", "quiz"), isolation="none", cluster=pool)
        with distributed.Client(cluster.scheduler_address) as client:   # the warm graders were stopped
            plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
            profiling = client.run(lambda dask_worker: dask_worker.periodic_callbacks["profile"].is_running())
        assert len(plugins) == 2 and not any(n.startswith("rnn-grader") for names in plugins.values()
                                             for n in names), plugins
        assert all(profiling.values()), profiling
    assert sorted(run_.graded) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan"]
    rows = graded_rows(tmp_path / "book.sqlite")
    assert rows["carol"][6] == [("step", "step.missing_bias")]
    assert rows["alice"][0] == rows["alice"][1] and rows["bob"][0] == 0
    assert {e["id"] for e in rows["alice"][3]["exercises"]} == {"step", "quiz"}


def warmed_without_a_task(dask_worker):
    [plugin] = [p for name, p in dask_worker.plugins.items() if name.startswith("rnn-grader-")]
    plugin.building.join(120)
    return plugin.grader is not None, dask_worker.periodic_callbacks["profile"].is_running()


def test_two_runs_on_one_cluster_each_keep_their_own_warm_graders(klass, tmp_path, secret_env, monkeypatch):
    """Two clients at once (other exercises each): each run's plugin has a name of its own, so the
    second does not replace the first's warm graders, and the first's end leaves the second's."""
    from grader.classroom.class_run import grade_class
    from grader.classroom.cluster import DaskPool
    from grader.course.loader import bundled_course_root, load_course
    from grader.classroom.gradebook import Gradebook

    monkeypatch.setenv("GRADER_SECRET", secret_env["GRADER_SECRET"])
    course = load_course(bundled_course_root())
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        pools = {only: DaskPool(cluster.scheduler_address, course, only=(only,), isolation="none",
                                counterexamples=False) for only in ("step", "params")}
        for only, pool in pools.items():
            with Gradebook(tmp_path / f"{only}.sqlite") as book:
                run_ = grade_class(load_course(bundled_course_root()), klass, book, jobs=1, only=(only,),
                                   isolation="none", counterexamples=False, cluster=pool)
            assert not run_.failed, run_.failed
            rows = graded_rows(tmp_path / f"{only}.sqlite")
            assert {e["id"] for e in rows["alice"][3]["exercises"]} == {only}
            assert rows["alice"][0] == rows["alice"][1] > 0


@needs_bwrap
def test_submissions_graded_in_batches_are_graded_as_by_local_processes(klass, local_run, tmp_path, secret_env,
                                                                        monkeypatch):
    """Several submissions per task (here 4, 4 and 1), on a loopback LocalCluster through the Python
    API: the same scores, verdicts, diagnoses and reports as the local run of --jobs 2."""
    from grader.classroom import cluster as cluster_module
    from grader.classroom.class_run import grade_class
    from grader.classroom.cluster import DaskPool
    from grader.course.loader import bundled_course_root, load_course
    from grader.classroom.gradebook import Gradebook

    monkeypatch.setenv("GRADER_SECRET", secret_env["GRADER_SECRET"])
    sizes = []
    monkeypatch.setattr(cluster_module, "batch_size", lambda left, workers: sizes.append(min(4, left)) or sizes[-1])
    course = load_course(bundled_course_root())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        pool = DaskPool(cluster.scheduler_address, course)
        with Gradebook(tmp_path / "book.sqlite") as book:
            run_ = grade_class(course, klass, book, jobs=1, cluster=pool)
    assert sizes == [4, 4, 1] and not run_.failed, (sizes, run_.failed)
    assert graded_rows(tmp_path / "book.sqlite") == graded_rows(local_run[0])


def test_batches_shrink_to_single_submissions_as_the_class_runs_out():
    from grader.classroom.cluster import MAX_BATCH, batch_size

    for n, workers in ((1, 1), (9, 2), (120, 2), (1000, 16), (100_000, 256)):
        left, sizes = n, []
        while left:
            sizes.append(batch_size(left, workers))
            left -= sizes[-1]
        assert max(sizes) <= MAX_BATCH and sizes[-workers:] == [1] * min(workers, len(sizes)), (n, workers, sizes)
        assert sizes == sorted(sizes, reverse=True)
    assert batch_size(120, 2) == MAX_BATCH


# ================================================================ workers that die

@needs_bwrap
def test_a_worker_killed_with_minus_9_mid_run_loses_nothing(tmp_path, local_run, dask_processes, secret_env):
    klass = make_class(tmp_path / "big", copies=3)
    cluster = dask_processes(workers=2)
    book = tmp_path / "book.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "grader", "class", str(klass), "--scheduler", cluster.address,
                             "--gradebook", str(book)], cwd=ROOT, env=secret_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while attempt_count(book) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.killpg(cluster.workers[0].pid, signal.SIGKILL)       # mid-run: 27 submissions, 2 done
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "Traceback" not in err and "not graded" not in err, err
    assert attempt_count(book) == 27           # every submission graded, once
    rows, local = graded_rows(book), graded_rows(local_run[0])
    for student, (score, max_score, isolation, _, _, checks, mistakes) in rows.items():
        same = local[student.rsplit("-", 1)[0]]     # its reports name it otherwise
        assert (score, max_score, isolation, checks, mistakes) == (same[0], same[1], same[2], same[5], same[6])


def test_a_submission_that_kills_every_worker_is_that_students_failure(tmp_path, secret_env):
    klass = tmp_path / "class"
    klass.mkdir()
    copy_reference(klass / "alice")
    killer = copy_reference(klass / "mallory")
    (killer / "rnn_step.py").write_text((killer / "rnn_step.py").read_text() + KILL_MY_WORKER)
    book = tmp_path / "book.sqlite"
    # One task per worker at a time, and a task is given up after 2 workers died running it.
    settings = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}
    import dask
    with dask.config.set(settings), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
            env={"GRADER_SECRET": secret_env["GRADER_SECRET"]}) as cluster:
        code, out, err = run("class", klass, "--scheduler", cluster.scheduler_address, "--gradebook", book,
                             "--no-sandbox", "--only", "step", env=secret_env)
    assert code == 1 and "Traceback" not in err, err
    assert "not graded mallory: its grading worker died every time it was tried" in err
    rows = graded_rows(book)
    assert set(rows) == {"alice"} and rows["alice"][0] == rows["alice"][1]
    assert any(entry == "mallory" and "died" in reason for entry, reason in skipped_rows(book))


def test_a_batch_that_kills_every_worker_is_graded_again_one_submission_per_task(tmp_path, secret_env,
                                                                                monkeypatch):
    """Alice and mallory in one task: mallory's code kills the worker each time, so the batch comes
    back as KilledWorker; each is then sent alone, alice is graded and only mallory is not."""
    from grader.classroom import cluster as cluster_module
    from grader.classroom.class_run import grade_class
    from grader.classroom.cluster import WORKER_KILLED, DaskPool
    from grader.course.loader import bundled_course_root, load_course
    from grader.classroom.gradebook import Gradebook

    klass = tmp_path / "class"
    klass.mkdir()
    copy_reference(klass / "alice")
    killer = copy_reference(klass / "mallory")
    (killer / "rnn_step.py").write_text((killer / "rnn_step.py").read_text() + KILL_MY_WORKER)
    monkeypatch.setenv("GRADER_SECRET", secret_env["GRADER_SECRET"])
    monkeypatch.setattr(cluster_module, "batch_size", lambda left, workers: 2)
    course = load_course(bundled_course_root())
    settings = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}
    import dask
    with dask.config.set(settings), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
            env={"GRADER_SECRET": secret_env["GRADER_SECRET"]}) as cluster:
        pool = DaskPool(cluster.scheduler_address, course, only=("step",), isolation="none")
        with Gradebook(tmp_path / "book.sqlite") as book:
            run_ = grade_class(course, klass, book, jobs=1, only=("step",), isolation="none", cluster=pool)
    assert run_.graded == ["alice"] and run_.failed == [("mallory", WORKER_KILLED)], (run_.graded, run_.failed)
    rows = graded_rows(tmp_path / "book.sqlite")
    assert set(rows) == {"alice"} and rows["alice"][0] == rows["alice"][1]


# ================================================================ refusing, one line, exit 2

def test_a_worker_with_another_secret_refuses_and_the_run_stops(klass, tmp_path, secret_env):
    worker_env = {**secret_env, "GRADER_SECRET": "another-secret-entirely-0123456789"}
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None,
                                  env={"GRADER_SECRET": worker_env["GRADER_SECRET"]}) as cluster:
        code, out, err = run("class", klass, "--scheduler", cluster.scheduler_address, "--gradebook",
                             tmp_path / "book.sqlite", "--no-sandbox", "--only", "step", env=secret_env)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "refuses to grade: its course secret is not the client's" in lines[0], err
    assert attempt_count(tmp_path / "book.sqlite") == 0


def test_a_worker_without_a_sandbox_refuses_unless_the_run_allows_it(tmp_path, monkeypatch, secret_env):
    from grader.classroom.cluster_worker import Refused, WarmGrader, grader_digest, pack_course
    from grader.course.loader import bundled_course_root, load_course
    from grader.course.secret import course_name, course_secret_fingerprint

    monkeypatch.setenv("GRADER_SECRET", secret_env["GRADER_SECRET"])
    monkeypatch.setattr("grader.sandbox.isolation.confinement_unavailable", lambda: "bubblewrap is not installed")
    course = load_course(bundled_course_root())
    settings = {"course": pack_course(course.root), "course_name": course_name(course),
                "secret_fingerprint": course_secret_fingerprint(course), "grader_digest": grader_digest(),
                "isolation": "sandbox", "counterexamples": False, "only": ("params",), "feedback": None}

    class FakeWorker:
        address = "tcp://127.0.0.1:1"

    plugin = WarmGrader(settings)
    plugin.setup(FakeWorker())
    with pytest.raises(Refused, match="no sandbox .bubblewrap is not installed.; install bubblewrap"):
        plugin.warm()
    allowed = WarmGrader({**settings, "isolation": "none"})
    allowed.setup(FakeWorker())
    try:
        assert not allowed.warm().worker.isolation.sandboxed      # graded, plainly
    finally:
        asyncio.run(allowed.teardown(FakeWorker()))


def test_an_unreachable_scheduler_is_one_line_and_exit_2(klass, tmp_path):
    code, out, err = run("class", klass, "--scheduler", "tcp://127.0.0.1:9", "--gradebook", tmp_path / "b.sqlite")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert not (tmp_path / "b.sqlite").exists() or attempt_count(tmp_path / "b.sqlite") == 0


def test_without_the_cluster_extra_the_option_says_what_to_install(monkeypatch):
    from grader.classroom.cluster import ClusterError, DaskPool

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ClusterError, match=r"pip install 'rnn-grader\[cluster\]'"):
        DaskPool("tcp://127.0.0.1:9", course=None)


# ================================================================ what travels

def test_a_packed_submission_is_plain_data_and_unpacks_to_the_same_submission(klass, tmp_path):
    from grader.submission.packed import pack, unpack
    from grader.submission.load import load_submission

    for entry in ("alice", "dave.py", "erin.ipynb", "frank.zip", "gina", "hank"):
        loaded = load_submission(klass / entry, tmp_path / f"w-{entry}")
        packed = pack(loaded)
        assert plain(packed), entry
        again = unpack(packed, tmp_path / f"u-{entry}", entry)
        for field in ("kind", "modules", "single_module", "line_maps", "notes", "display_names", "rejected",
                      "messages"):
            assert getattr(again, field) == getattr(loaded, field), (entry, field)
        assert [(n, Path(p).read_bytes(), label) for n, p, label in again.notebooks] == \
               [(n, Path(p).read_bytes(), label) for n, p, label in loaded.notebooks]
        for module, file in loaded.modules.items():
            assert (again.root / file).read_bytes() == (loaded.root / file).read_bytes()
    with pytest.raises(ValueError):
        unpack({**packed, "files": {"root/../../escape.py": b""}}, tmp_path / "evil", "evil")


def plain(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(plain(v) for v in value)
    return value is None or isinstance(value, (str, bytes, int, float, bool))


def test_the_grader_digest_is_the_same_installed_or_checked_out_and_changes_with_the_code(tmp_path, monkeypatch):
    """An installed wheel carries the bundled course in grader/_course; a checkout does not.
    Workers started by `dask worker` import the installed copy, the client may run the checkout."""
    import grader
    from grader.classroom.cluster_worker import grader_digest

    checkout = grader_digest()
    installed = tmp_path / "site-packages" / "grader"
    shutil.copytree(Path(grader.__file__).parent, installed, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "exercises", installed / "_course" / "exercises")
    monkeypatch.setattr(grader, "__file__", str(installed / "__init__.py"))
    assert grader_digest() == checkout
    (installed / "compare.py").write_text((installed / "compare.py").read_text() + "\n# other code\n")
    assert grader_digest() != checkout
