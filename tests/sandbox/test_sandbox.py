"""Hostile submissions: each attack scores 0 on what it attacks, the rest keeps full
marks, the grader stays up with a valid report, and nothing outlives grading."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.sandbox.isolation import bwrap_path, probe_bwrap
from grader.submission.load import load_submission
from grader.report import check_message, json_data
from helpers.sandbox import ATTACKED, assert_contained, attack_folder, no_process_with, run_attack, scores

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


# ---------------------------------------------------------------- exits and crashes

@pytest.mark.parametrize("body", [
    "import sys\nsys.exit(0)",
    "import os\nos._exit(0)",
    "raise KeyboardInterrupt",
    "raise SystemExit(0)",
    "raise GeneratorExit",
    "import ctypes\nctypes.string_at(0)",
    "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)",
])
def test_exit_or_crash_at_import(fast_grader, tmp_path, body):
    assert_contained(run_attack(fast_grader, tmp_path, body, whole_file=True), attacked=("step", "scalar"))


@pytest.mark.parametrize("body", [
    "import sys\n    sys.exit(0)",
    "import os\n    os._exit(0)",
    "raise KeyboardInterrupt",
    "raise SystemExit(3)",
    "raise GeneratorExit",
    "import ctypes\n    ctypes.string_at(0)",
    "import sys\n    sys.setrecursionlimit(10**6)\n    def f(n):\n        return f(n + 1)\n    f(0)",
])
def test_exit_or_crash_in_a_call(fast_grader, tmp_path, body):
    code = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n    " + body + "\n"
    assert_contained(run_attack(fast_grader, tmp_path, code))


# ---------------------------------------------------------------- hangs

HANG_IGNORING_SIGNALS = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass
"""


def test_hang_at_import_with_signals_ignored(fast_grader, tmp_path):
    start = time.monotonic()
    result = run_attack(fast_grader, tmp_path, HANG_IGNORING_SIGNALS, whole_file=True)
    assert_contained(result, attacked=("step", "scalar"))
    assert time.monotonic() - start < 15


def test_hang_in_a_call_and_reading_stdin(fast_grader, tmp_path):
    code = """
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        import sys, signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        data = sys.stdin.read()          # EOF at once, never the grader's pipe
        while True:
            pass
    """
    start = time.monotonic()
    assert_contained(run_attack(fast_grader, tmp_path, code))
    assert time.monotonic() - start < 20


# ---------------------------------------------------------------- resources

@pytest.mark.parametrize("body", [
    "import numpy as np\n    big = np.ones(10**10)",                        # 80 GB: refused by RLIMIT_AS
    "junk = bytearray(6 * 2**30)",
    "import numpy as np\n    return np.zeros(10**8)",                        # 800 MB result: too large to send
    "return 'x' * (200 * 2**20)",                                            # a 200 MB string
    "print('x' * (100 * 2**20))",                                            # 100 MB of output
    "open('/tmp/big', 'wb').write(b'0' * (512 * 2**20))",                    # past the file-size limit
    "return [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",  # noqa: E501 -- a deeply nested literal, as a student writes it
])
def test_memory_output_and_file_bombs(fast_grader, tmp_path, body):
    code = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n    " + body + "\n"
    result = run_attack(fast_grader, tmp_path, code)
    assert_contained(result)
    assert len(result.exercises[0].output) < 10_000


def test_a_module_that_prints_past_the_capture_limit_still_imports(fast_grader, tmp_path):
    """Past the 16 MiB file-size limit of the capture, writes fail with EFBIG; the print must
    not raise into the student's import (it used to cost every exercise of the file)."""
    folder = copy_reference(tmp_path / "chatty")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\nfor _ in range(40):\n    print('x' * (2**20))\nimport sys\nsys.stderr.write('y' * 2**20)\n")
    result = fast_grader.grade(load_submission(folder, tmp_path / "work"), ["step"])
    step = result.exercises[0]
    assert step.score == step.max_score, [(c.name, check_message(c, "en")) for c in step.checks if not c.passed]
    assert "more bytes" in step.output and len(step.output) < 100_000


def test_fork_bomb_is_contained(fast_grader, tmp_path):
    code = """
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """
    start = time.monotonic()
    assert_contained(run_attack(fast_grader, tmp_path, code))
    assert time.monotonic() - start < 30


# ---------------------------------------------------------------- processes that try to survive

def test_children_and_daemons_do_not_outlive_grading(tmp_path):
    marker = f"survivor-{uuid.uuid4().hex}"
    code = f"""
    import os, sys
    def _daemon():
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)", "{marker}"])
            os._exit(0)
    _daemon()
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        _daemon()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)", "{marker}"])
        import numpy as np
        return np.tanh(x_t @ W_x + h_prev @ W_h + b)
    """
    with Grader(load_course(bundled_course_root()), isolation="sandbox") as grader:
        result = run_attack(grader, tmp_path, code, only=["step", "params"])
        assert no_process_with(marker)          # swept when the exercise's session closed
        params = scores(result)["params"]
        assert params[0] == params[1]
    assert no_process_with(marker)


# ---------------------------------------------------------------- looking for the answers

FIND_SOLUTIONS = f"""
import os
COURSE_FILES = {{"answers.yaml", "catalogue.yaml", "bptt.py", "birnn.py", "masking.py", "quiz.yaml"}}
def _steal():
    course = [{str(ROOT / "solutions")!r}, {str(ROOT / "exercises")!r}, {str(bundled_course_root() / "solutions")!r}]
    found = [p for p in course if os.path.exists(p)]
    for dirpath, dirnames, filenames in os.walk("/"):
        if dirpath.startswith(("/proc", "/sys", "/dev", "/submission")):
            dirnames[:] = []
            continue
        found += [os.path.join(dirpath, n) for n in filenames if n in COURSE_FILES]
    return found

def rnn_step(x_t, h_prev, W_x, W_h, b):
    found = _steal()
    if found:
        raise RuntimeError("FOUND " + repr(found))
    raise RuntimeError("NOTHING")
"""


def test_solutions_and_answer_key_are_not_on_the_sandbox_disk(fast_grader, tmp_path):
    step = fast_grader.course.exercises["step"]
    step.timeout = 60.0     # time to walk the whole visible file system
    try:
        result = run_attack(fast_grader, tmp_path, FIND_SOLUTIONS, only=["step"])
    finally:
        step.timeout = 1.0
    messages = [c.message.render("en") for c in result.exercises[0].checks if c.message]
    assert not any("FOUND" in m for m in messages), messages
    assert any("NOTHING" in m for m in messages)
    assert result.exercises[0].score == 0


def test_expected_values_are_not_in_memory_or_proc(fast_grader, tmp_path, monkeypatch):
    monkeypatch.setenv("CI_TOKEN", "s3cr3t-token-xyz")
    code = """
    import gc, os
    import numpy as np
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        leaks = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                for what in ("environ", "cmdline"):
                    try:
                        leaks.append(open(f"/proc/{pid}/{what}", "rb").read().decode(errors="replace"))
                    except OSError:
                        pass
                try:
                    with open(f"/proc/{pid}/mem", "rb") as fh:
                        leaks.append("mem readable " + pid)
                except OSError:
                    pass
        leaks.append(repr(dict(os.environ)))
        # Any array of the output's shape that is not an input would be an expected value.
        shape = (x_t.shape[0], W_h.shape[0])
        for obj in gc.get_objects():
            if isinstance(obj, np.ndarray) and obj.shape == shape and obj is not h_prev:
                return obj
        raise RuntimeError(" | ".join(leaks))
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    report = json.dumps(json_data(result, "en"))
    assert "s3cr3t" not in report and "mem readable 1" not in report
    assert result.exercises[0].score == 0


# ---------------------------------------------------------------- lying results

@pytest.mark.parametrize("body", [
    # an ndarray subclass whose comparisons and ufuncs all say "equal"
    """
    class Liar(np.ndarray):
        def __eq__(self, other): return np.ones(self.shape, bool)
        def __array_ufunc__(self, *a, **k): return np.zeros(self.shape)
        def __array_finalize__(self, obj): pass
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return np.zeros((x_t.shape[0], W_h.shape[0])).view(Liar)
    """,
    """
    class AlwaysEqual(float):
        def __eq__(self, other): return True
        __hash__ = float.__hash__
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return AlwaysEqual(0.0)
    """,
    """
    class Weird:
        def __eq__(self, other): return True
        def __array__(self, *a, **k): return np.zeros(3)
        def __reduce__(self): return (print, ("pwned",))
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return Weird()
    """,
    """
    import pickle
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return pickle.dumps(np.tanh(x_t @ W_x + h_prev @ W_h + b))
    """,
])
def test_lying_objects_and_pickles(fast_grader, tmp_path, body):
    code = "import numpy as np\n" + textwrap.dedent(body)
    assert_contained(run_attack(fast_grader, tmp_path, code))


def test_monkeypatching_numpy_math_and_builtins_changes_nothing_outside(fast_grader, tmp_path):
    code = """
    import builtins, math
    import numpy as np
    np.allclose = lambda *a, **k: True
    np.testing.assert_allclose = lambda *a, **k: None
    math.isclose = lambda *a, **k: True
    builtins.abs = lambda x: 0
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return np.zeros((x_t.shape[0], W_h.shape[0]))
    """
    result = run_attack(fast_grader, tmp_path, code)
    assert_contained(result)
    assert scores(result)["scalar"][0] == scores(result)["scalar"][1]   # same file, fresh child


# ---------------------------------------------------------------- fake reports

def run_cli(*args, timeout=300):
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def test_fake_results_on_stdout_raw_fds_and_the_output_file(tmp_path):
    output = tmp_path / "out" / "report.json"
    output.parent.mkdir()
    fake = json.dumps({"score": 158, "max_score": 158, "exercises": []})
    code = f"""
    import os, sys, time
    FAKE = {fake!r}
    print(FAKE)
    sys.stderr.write(FAKE)
    for fd in range(1, 64):
        try:
            os.write(fd, FAKE.encode())
        except OSError:
            pass
    for path in ({str(output)!r}, "/dev/tty", "/proc/1/fd/1"):
        try:
            with open(path, "w") as fh:
                fh.write(FAKE)
        except OSError:
            pass
    if os.fork() == 0:        # a survivor that writes again later
        time.sleep(2)
        for fd in range(1, 64):
            try:
                os.write(fd, FAKE.encode())
            except OSError:
                pass
        os._exit(0)
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        print(FAKE)
        os.write(1, FAKE.encode())
        return None
    """
    folder = attack_folder(tmp_path, code, whole_file=True)
    code_, out, err = run_cli("check", folder, "--format", "json", "--only", "step", "--only", "params")
    assert code_ == 1 and json.loads(out)["score"] == 8 and "158" not in out + err
    assert not output.exists()
    code_, out, err = run_cli("check", folder, "--format", "json", "--only", "step", "--only", "params",
                              "--output", output)
    time.sleep(3)
    report = json.loads(output.read_text())
    assert report["score"] == 8 and out == ""        # params only; the fake never landed


# ---------------------------------------------------------------- the grader and its files

def test_killing_the_worker_leaves_the_grader_running(fast_grader, tmp_path):
    code = """
    import os, signal
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        try:
            os.kill(-1, signal.SIGKILL)
        finally:
            os.kill(os.getppid(), signal.SIGKILL)
    """
    result = run_attack(fast_grader, tmp_path, code)
    assert_contained(result)
    assert scores(result)["scalar"][0] == scores(result)["scalar"][1]


def _tree_digest(*roots) -> str:
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def test_tampering_with_installed_files_course_and_submission(fast_grader, tmp_path):
    import numpy

    numpy_dir = Path(numpy.__file__).parent
    code = f"""
    import os, glob, shutil
    TARGETS = [{str(numpy_dir / '__init__.py')!r}, "/grader-worker/zygote.py", "/grader-worker/wire.py",
               {str(ROOT / 'solutions' / 'reference' / 'answers.yaml')!r}, __file__]
    for path in TARGETS + glob.glob("/submission/*/*"):
        for action in (lambda p: open(p, "a").write("# tampered"), os.remove,
                       lambda p: shutil.rmtree(os.path.dirname(p))):
            try:
                action(path)
            except Exception:
                pass
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        return None
    """
    folder = attack_folder(tmp_path, code)
    before = _tree_digest(numpy_dir, ROOT / "grader", ROOT / "solutions", folder)
    result = fast_grader.grade(load_submission(folder, tmp_path / "work"), ATTACKED)
    assert_contained(result)
    assert _tree_digest(numpy_dir, ROOT / "grader", ROOT / "solutions", folder) == before
    clean = fast_grader.grade(load_submission(copy_reference(tmp_path / "clean"), tmp_path / "w2"), ATTACKED)
    assert clean.score == clean.max_score   # the next submission is graded as before


def test_no_network_not_even_loopback(fast_grader, tmp_path):
    received = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(5)
    port = server.getsockname()[1]

    def accept():
        try:
            conn, _ = server.accept()
            received.append(conn.recv(100))
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    code = f"""
    import socket
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        s = socket.create_connection(("127.0.0.1", {port}), timeout=0.5)
        s.sendall(b"leak")
        return None
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    thread.join()
    server.close()
    assert received == [] and result.exercises[0].score == 0


def test_symlink_out_of_the_submission_is_not_followed(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "linked")
    (folder / "rnn_step.py").unlink()
    (folder / "rnn_step.py").symlink_to(ROOT / "solutions" / "reference" / "rnn_step.py")
    result = fast_grader.grade(load_submission(folder, tmp_path / "work"), ["step", "params"])
    assert scores(result)["step"][0] == 0 and scores(result)["params"][0] == 8


def test_isolation_is_stated_in_every_report(fast_grader, tmp_path):
    result = fast_grader.grade(load_submission(copy_reference(tmp_path / "r"), tmp_path / "w"), ["params"])
    assert json_data(result, "en")["isolation"] == "bubblewrap"
    assert probe_bwrap(tmp_path) == ""
