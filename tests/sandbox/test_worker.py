"""The worker boundary on its own: children, timeouts, crashes, captured output."""

from __future__ import annotations

import time

import numpy as np
import pytest

from grader.sandbox.client import StudentError, StudentModule, Worker

MODULE = '''
import os, sys, time
import numpy as np
print("imported")
def double(x):
    return 2 * x
def modify(a):
    a += 1
def hang():
    while True:
        pass
def crash():
    os._exit(5)
def kill_self():
    import signal
    os.kill(os.getpid(), signal.SIGKILL)
def read_stdin():
    return sys.stdin.read()
def odd():
    return object()
def env():
    return dict(os.environ)
def nap(seconds):
    time.sleep(seconds)
    return seconds
def stop_reading(*args):
    import signal, threading
    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGSTOP)).start()
    return 0
COUNT = [0]
def counter():
    COUNT[0] += 1
    return COUNT[0]
'''


@pytest.fixture(scope="module")
def worker():
    with Worker() as w:
        yield w


@pytest.fixture
def student(worker, tmp_path):
    (tmp_path / "mod.py").write_text(MODULE)
    with worker.staged(tmp_path) as root:
        yield lambda timeout=2.0: StudentModule(worker, root, "mod", timeout)


def test_calls_return_plain_arrays_and_report_mutation(student):
    s = student()
    assert s.open() is None
    result = s.call("double", np.arange(3.0), return_args=True)
    assert np.array_equal(result.value, [0.0, 2.0, 4.0])
    result = s.call("modify", np.zeros(2), return_args=True)
    assert np.array_equal(result.args_after[0], [1.0, 1.0])
    assert "imported" in "".join(s.output)


def test_timeout_then_fresh_child(student):
    s = student(timeout=0.3)
    start = time.monotonic()
    with pytest.raises(StudentError) as info:
        s.call("hang")
    assert info.value.kind == "timeout" and time.monotonic() - start < 3
    assert s.call("double", 2).value == 4   # a new child answers


@pytest.mark.parametrize("func, kind, how", [("crash", "crash", {"exit_code": 5}),
                                            ("kill_self", "crash", {"signal": "SIGKILL"}),
                                            ("odd", "bad_return", {})])
def test_crashes_and_bad_returns(student, func, kind, how):
    s = student()
    with pytest.raises(StudentError) as info:
        s.call(func)
    assert info.value.kind == kind
    assert how.items() <= info.value.error.items()     # how it died, for the student
    assert s.call("double", 1).value == 2


def test_stdin_is_empty_and_env_is_clean(student, monkeypatch):
    s = student()
    assert s.call("read_stdin").value == ""
    env = s.call("env").value
    assert "GRADER_SECRET" not in env and env.get("OPENBLAS_NUM_THREADS") == "1"


def test_exercises_share_the_child_with_fresh_modules_and_each_submission_starts_fresh(worker, tmp_path):
    (tmp_path / "mod.py").write_text(MODULE)
    with worker.staged(tmp_path) as root:
        first, second = StudentModule(worker, root, "mod", 2.0), StudentModule(worker, root, "mod", 2.0)
        assert first.call("counter").value == 1
        assert first.call("counter").value == 2
        sessions = worker.sessions
        assert second.call("counter").value == 1     # the module afresh for each exercise...
        assert worker.sessions == sessions           # ...in the same child
        assert "imported" in "".join(second.output)
    with worker.staged(tmp_path) as root:
        assert StudentModule(worker, root, "mod", 2.0).call("counter").value == 1


def test_a_warning_from_a_library_is_captured_again_for_the_next_exercise_in_the_child(worker, tmp_path):
    # numpy warns from its own module, whose __warningregistry__ outlives the student's modules.
    (tmp_path / "mod.py").write_text("import numpy as np\ndef empty_mean():\n    return float(np.mean(np.zeros(0)))\n")
    with worker.staged(tmp_path) as root:
        for _ in range(2):
            s = StudentModule(worker, root, "mod", 2.0)
            sessions = worker.sessions
            assert np.isnan(s.call("empty_mean").value)
            assert "Mean of empty slice" in "".join(s.output)
        assert worker.sessions == sessions   # both in one child


@pytest.mark.parametrize("change", [
    "np.seterr(all='raise')",
    "np.tanh = lambda x: x",
    "import signal; signal.signal(signal.SIGALRM, lambda *a: None)",
    "import signal; signal.signal(signal.SIGUSR1, signal.SIG_IGN)",
    "import signal; signal.setitimer(signal.ITIMER_REAL, 100.0)",
    "import signal; signal.alarm(100)",
    "import threading; threading.Thread(target=time.sleep, args=(30,), daemon=True).start()",
    "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])",
    "os.chdir('/')",
    "sys.setrecursionlimit(50)",
    "import warnings; warnings.simplefilter('error')",
    "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))",
    "KEEP.append(np.ones(40 << 20))",
    "os.environ['OMP_NUM_THREADS'] = '8'",
    "sys.stdout = open(os.devnull, 'w')",
    "import builtins; builtins.helper = len",
])
def test_an_exercise_that_changes_the_process_sends_the_next_to_a_fresh_child(worker, tmp_path, change):
    (tmp_path / "mod.py").write_text(MODULE + f"KEEP = []\ndef change():\n    {change}\n")
    with worker.staged(tmp_path) as root:
        first = StudentModule(worker, root, "mod", 5.0)
        assert first.call("counter").value == 1
        first.call("change")
        tainted, sessions = worker.tainted, worker.sessions
        second = StudentModule(worker, root, "mod", 5.0)
        assert second.call("counter").value == 1      # a fresh import in a fresh child
        assert worker.tainted == tainted + 1 and worker.sessions == sessions + 1


def test_an_exercise_that_leaves_the_process_alone_keeps_the_child(worker, tmp_path):
    # struct was imported before the fork and is not watched: a student module put in its place goes
    # with the student's modules, and the next exercise imports the library again
    (tmp_path / "helper.py").write_text("NAME = 'helper'\n")
    (tmp_path / "mod.py").write_text(MODULE + "def harmless():\n    import json, collections, helper\n"
                                               "    with np.errstate(all='ignore'):\n        np.ones(3) / 0\n"
                                               "    sys.modules['struct'] = helper\n"
                                               "    return json.dumps([1])\n"
                                               "def which():\n    import struct\n"
                                               "    return getattr(struct, 'NAME', 'struct')\n")
    with worker.staged(tmp_path) as root:
        first = StudentModule(worker, root, "mod", 5.0)
        first.call("counter")
        first.call("harmless")
        assert first.call("which").value == "helper"
        tainted, sessions = worker.tainted, worker.sessions
        second = StudentModule(worker, root, "mod", 5.0)
        assert second.call("counter").value == 1 and second.call("which").value == "struct"
        assert worker.tainted == tainted and worker.sessions == sessions


def test_a_crash_costs_the_call_and_the_next_import_is_fresh(student):
    s = student()
    assert s.call("counter").value == 1
    with pytest.raises(StudentError):
        s.call("crash")
    assert s.call("counter").value == 1


def test_a_child_that_stops_reading_costs_only_its_timeout(student, tmp_path):
    s = student(timeout=0.5)
    s.call("stop_reading")
    time.sleep(0.2)
    start = time.monotonic()
    with pytest.raises(StudentError) as info:   # 16 MiB of input: more than a pipe holds
        s.call("double", np.zeros(2 << 20))
    assert info.value.kind == "timeout" and time.monotonic() - start < 5
    assert s.call("double", 3).value == 6


def test_gives_up_after_repeated_failures(student):
    s = student(timeout=0.2)
    kinds = []
    for _ in range(4):
        with pytest.raises(StudentError) as info:
            s.call("crash")
        kinds.append(info.value.kind)
    assert kinds == ["crash", "crash", "crash", "gave_up"]


def test_a_batch_stops_at_the_submission_deadline(worker, tmp_path):
    """Each call is within its own time limit, but the batch as a whole is not."""
    (tmp_path / "mod.py").write_text(MODULE)
    with worker.staged(tmp_path) as root:
        s = StudentModule(worker, root, "mod", 1.0, deadline=time.monotonic() + 1.2)
        s.open()
        start = time.monotonic()
        results = s.batch([("nap", (0.3,), {})] * 10)
        took = time.monotonic() - start
    kinds = [r.kind if isinstance(r, StudentError) else "ok" for r in results]
    assert took < 2.5, took
    assert kinds[0] == "ok" and "time_limit" in kinds and kinds.count("ok") < 6, kinds


@pytest.mark.parametrize("isolation", ["sandbox", "none"])
def test_a_stopped_worker_is_reaped_whole_so_its_cpu_time_counts(tmp_path, isolation):
    """Stopping a worker is an orderly exit: the zygote reaps its child, bubblewrap reaps the zygote,
    the grader reaps bubblewrap. So the CPU time student code spent is counted to the grader's
    process tree (RUSAGE_CHILDREN), as the benchmarks read it; a kill of bubblewrap would orphan
    the sandbox and lose it."""
    import resource

    (tmp_path / "busy.py").write_text("def spin():\n    n = 0\n    for i in range(6_000_000):\n        n += i\n"
                                      "    return n\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with Worker(isolation=isolation) as worker:
        with worker.staged(tmp_path) as root:
            module = StudentModule(worker, root, "busy", 20.0)
            assert module.call("spin").value == sum(range(6_000_000))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    counted = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert counted > 0.15, counted      # the loop alone takes about 0.3 s of CPU
