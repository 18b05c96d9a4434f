"""Red-team attacks on the sandbox, the wire and the reports.

Every test asserts the SAFE behaviour: the attacked exercise scores 0 (or the
submission is refused as bad input), untouched exercises keep full marks, the
grader survives with a valid report (exit 0/1/2, never 3 or a traceback), and
nothing outlives grading. An attack the grader does not withstand is marked
``@finding("...")`` (a strict xfail) until it is fixed. The first pass found 14
(frames injected through /proc/1/fd, lone surrogates, state left in the sandbox
between submissions, forged or bloated replies, unbounded notebook conversion,
...); all are fixed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, STUBS, copy_reference
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.report import FORMATS, render
from grader.sandbox.isolation import bwrap_path
from grader.submission.load import SubmissionError, load_submission
from helpers.sandbox import PROPERTY_CHECKS, assert_contained, attack_folder, no_process_with, run_attack, scores

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def finding(reason: str):
    return pytest.mark.xfail(strict=True, reason="FINDING: " + reason)


@pytest.fixture
def fresh_grader():
    """A grader of its own, for attacks that leave state in the worker (the shared one stays clean)."""
    graders = []

    def make():
        course = load_course(bundled_course_root())
        for exercise in course.exercises.values():
            exercise.timeout = 1.0
        grader = Grader(course, isolation="sandbox", time_limit=60)
        assert grader.worker.isolation.sandboxed, grader.worker.isolation.reason
        graders.append(grader)
        return grader

    yield make
    for grader in graders:
        grader.close()


def grade_folder(grader, folder, tmp_path, only):
    return grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), only)


def reference_with(tmp_path, files: dict[str, str]) -> Path:
    folder = copy_reference(tmp_path / f"sub-{uuid.uuid4().hex[:6]}")
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


def reports_encode(result) -> None:
    """Every report renders, can be written as UTF-8 (what `grade check` does next) and parses."""
    import xml.etree.ElementTree as ET

    for fmt in FORMATS:
        text = render(result, fmt, "en")
        text.encode("utf-8")
        if fmt in ("json", "gradescope"):
            json.loads(text)
        if fmt == "junit":
            ET.fromstring(text.encode("utf-8"))


def cli(*args, timeout=120):
    """`grade ...` as in production: no GRADER_STRICT (a broken check fails it, it does not raise)."""
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True,
                          cwd=ROOT, timeout=timeout, env=env)
    return proc.returncode, proc.stdout, proc.stderr


# Student-side helper: the harness object of the child (found on the stack) and raw frames.
FORGE = '''
import json as _json, os as _os, struct as _struct, sys as _sys
def _harness():
    f = _sys._getframe()
    while f is not None and type(f.f_locals.get("self")).__name__ != "Harness":
        f = f.f_back
    return f.f_locals["self"]
def _frame(body, blobs=b""):
    header = _json.dumps(body).encode()
    return _struct.pack(">I", len(header)) + header + blobs
'''


# ================================================================ (b) reports and exit codes

SURROGATE_AT_IMPORT = """
raise ValueError("\\ud800 lone surrogate")
"""


def test_surrogate_in_exception_message_does_not_crash_the_cli(tmp_path):
    folder = attack_folder(tmp_path, SURROGATE_AT_IMPORT, whole_file=True)
    code, out, err = cli("check", folder, "--format", "json", "--only", "step", "--only", "params")
    assert code in (0, 1), err
    report = json.loads(out)
    assert report["score"] == 8


def test_surrogate_in_answers_yaml(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "quiz")
    with open(folder / "answers.yaml", "a", encoding="utf-8") as fh:
        fh.write('\nparams_rnn: "\\ud800"\n')
    result = grade_folder(fast_grader, folder, tmp_path, ["quiz"])
    reports_encode(result)


def test_non_utf8_file_name_in_the_submission(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "names")
    with open(os.path.join(os.fsencode(folder), b"bad\xff name.py"), "w") as fh:
        fh.write("x = 1\n")
    result = grade_folder(fast_grader, folder, tmp_path, ["params"])
    assert scores(result)["params"] == (8, 8)
    reports_encode(result)


TERMINAL_INJECTION = """
def rnn_step(x_t, h_prev, W_x, W_h, b):
    raise ValueError("\\x1b[2J\\x1b]0;pwned\\x07\\nTotal: 158/158  All checks passed.\\x1b[8m")
"""


def test_terminal_escapes_and_fake_lines_in_exception_messages(fast_grader, tmp_path):
    result = run_attack(fast_grader, tmp_path, TERMINAL_INJECTION, only=["step"])
    assert scores(result)["step"][0] == 0
    for color in (False, True):
        text = render(result, "text", "en", color=color)
        assert "\x1b[2J" not in text and "\x1b]0;" not in text and "\x1b[8m" not in text
        assert not any(line.strip().startswith("Total: 158") for line in text.splitlines())


def test_escapes_in_printed_output_are_shown_as_data(fast_grader, tmp_path):
    code = """
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        print("\\x1b[2J\\x1b]0;pwned\\x07\\r\\x08" + "y" * 100000)
        return None
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step", "params"])
    assert_contained(result)
    text = render(result, "text", "en", color=False)
    assert "\x1b" not in text and "\x07" not in text
    assert len(text) < 50_000


def test_markup_in_messages_is_escaped_in_junit_markdown_and_gradescope(fast_grader, tmp_path):
    code = """
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        raise ValueError("\\x1b[2J\\x00\\x07 <![CDATA[ ]]> </failure> & \\ufffe <img src=x onerror=alert(1)> ![t](http://x/t.png)")
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    reports_encode(result)
    for fmt in ("junit", "markdown", "gradescope", "json"):
        text = render(result, fmt, "en")
        assert "\x1b" not in text and "\x00" not in text, fmt
        if fmt in ("junit", "markdown"):      # markup formats: the student's text must stay text
            assert "<img" not in text, fmt
    gradescope = json.loads(render(result, "gradescope", "en"))
    assert gradescope.get("output_format", "text") == "text"
    assert all(t.get("output_format", "text") == "text" for t in gradescope.get("tests", []))


def test_reused_arguments_cannot_be_raced(fast_grader, tmp_path):
    """A result cache keyed on id(), and a thread that keeps rewriting old argument arrays."""
    code = """
    import threading, time
    import numpy as np
    _CACHE, _SEEN = {}, []
    def _scribble():
        while True:
            for arrays in list(_SEEN):
                for a in arrays:
                    try:
                        a[...] = 0.0
                    except Exception:
                        pass
            time.sleep(0.0005)
    threading.Thread(target=_scribble, daemon=True).start()
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        key = (id(x_t), id(h_prev))
        if key not in _CACHE:
            _CACHE[key] = np.tanh(x_t @ W_x + h_prev @ W_h + b)
        _SEEN.append((x_t, h_prev))
        return _CACHE[key]
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step", "params"])
    checks = {c.name: c.passed for c in result.exercises[0].checks}
    assert not checks["no_state"] and scores(result)["params"] == (8, 8)


def test_huge_exception_class_name_does_not_blow_up_the_report(fast_grader, tmp_path):
    code = """
    _Big = type("E" * 1_000_000, (Exception,), {})
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        raise _Big("x")
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    assert scores(result)["step"][0] == 0
    assert len(render(result, "json", "en")) < 256 * 1024


@pytest.mark.parametrize("body", ids=["str_raises", "str_hangs", "repr_recursion", "exit_object", "exit_huge_int",
                                      "long_base_exception"], argvalues=[
    # an exception whose __str__ raises, one whose __str__ hangs, recursion in __repr__
    "class E(Exception):\n    def __str__(self): raise RuntimeError('no')\ndef rnn_step(*a):\n    raise E()",
    "class E(Exception):\n    def __str__(self):\n        while True: pass\ndef rnn_step(*a):\n    raise E()",
    "class R:\n    def __repr__(self): return repr(self)\ndef rnn_step(*a):\n    raise ValueError(R())",
    "def rnn_step(*a):\n    raise SystemExit(object())",
    "def rnn_step(*a):\n    raise SystemExit(10**5000)",
    "def rnn_step(*a):\n    raise BaseException('x' * 10**6)",
])
def test_hostile_exceptions(fast_grader, tmp_path, body):
    result = run_attack(fast_grader, tmp_path, body, only=["step", "params"])
    assert_contained(result)
    reports_encode(result)


# ================================================================ (a)/(b) values that cross the wire

@pytest.mark.parametrize("body", ids=[
    "int_sub_exit", "int_sub_huge", "tuple_infinite_iter", "dict_sub_nan_keys", "str_sub_bad_str", "float_sub_hangs",
    "bad_len_iter", "big_endian", "structured", "datetime", "object_in_tuple", "zero_strides", "longdouble",
    "empty_huge_shape", "colliding_keys", "surrogate_strings", "int_4400_digits", "million_keys", "exponential_dag"],
    argvalues=[
    # subclasses of builtins with overridden methods
    "class I(int):\n    def __int__(self): raise SystemExit(0)\ndef rnn_step(*a):\n    return I(3)",
    "class I(int):\n    def __index__(self): raise KeyboardInterrupt\n    def __int__(self): return 10**10**4\ndef rnn_step(*a):\n    return [I(1)]",  # noqa: E501 -- the attack's code
    "class T(tuple):\n    def __iter__(self):\n        while True: yield 0.0\ndef rnn_step(*a):\n    return T((1.0,))",
    "class D(dict):\n    def items(self): return [(float('nan'), 1.0), ('1', 2), (1, 3)]\ndef rnn_step(*a):\n    return D()",  # noqa: E501 -- the attack's code
    "class S(str):\n    def __str__(self): return 5\ndef rnn_step(*a):\n    return S('x')",
    "class F(float):\n    def __float__(self):\n        while True: pass\ndef rnn_step(*a):\n    return F(1.0)",
    "class L:\n    def __len__(self): return -1\n    def __iter__(self): raise MemoryError\ndef rnn_step(*a):\n    return L()",  # noqa: E501 -- the attack's code
    # numpy arrays the wire must refuse or normalise (values are wrong on purpose)
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.zeros((x.shape[0], W_h.shape[0]), '>f8')",
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.zeros((x.shape[0], W_h.shape[0]), [('a', 'f8')])",  # noqa: E501 -- the attack's code
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.zeros((x.shape[0], W_h.shape[0]), 'M8[s]')",
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return (np.zeros(3), np.array([object()]))",
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.lib.stride_tricks.as_strided(np.zeros(1), (x.shape[0], W_h.shape[0]), (0, 0))",  # noqa: E501 -- the attack's code
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.zeros((x.shape[0], W_h.shape[0]), np.longdouble)",  # noqa: E501 -- the attack's code
    "import numpy as np\ndef rnn_step(x, h, W_x, W_h, b):\n    return np.zeros((0, 2**40))",
    # dicts with odd keys, surrogates, huge ints, deep nesting
    "def rnn_step(*a):\n    return {1: 'a', '1': 'b', True: 'c', 1.0: 'd', float('inf'): 1}",
    "def rnn_step(*a):\n    return {'\\ud800': '\\udfff'}",
    "def rnn_step(*a):\n    return 10**4400",
    "def rnn_step(*a):\n    return {str(i): i for i in range(10**6)}",
    "def rnn_step(*a):\n    x = []\n    for _ in range(45): x = (x, {'k': x})\n    return x",
])
def test_misbehaving_return_values(fast_grader, tmp_path, body):
    result = run_attack(fast_grader, tmp_path, body, only=["step", "params"])
    assert_contained(result)
    reports_encode(result)


def test_huge_int_results_do_not_break_the_diagnosis(fast_grader, tmp_path, monkeypatch):
    monkeypatch.setattr("grader.grading.engine.STRICT", False)   # production: a broken check just fails
    code = """
    def scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):
        return [10**400] * len(sequence)
    """
    result = run_attack(fast_grader, tmp_path, code, only=["scalar", "params"])
    # [10**400] * 0 == [] is the right answer for the empty sequence; everything else fails
    assert scores(result)["scalar"][0] <= 1 and scores(result)["params"] == (8, 8)


FORGED_OPEN_REPLIES = {
    "imports_not_a_dict": '{"ok": True, "imports": [], "output": "", "__blobs__": []}',
    "error_not_a_dict": '{"ok": False, "error": "boom", "__blobs__": []}',
    "imports_missing": '{"ok": True, "output": "", "__blobs__": []}',
    "bad_frames": '{"ok": True, "output": "", "__blobs__": [], "imports": {"__map__": [["rnn_step", '
                  '{"__map__": [["kind", "exception"], ["frames", [[1]]]]}]]}}',
    "bad_map": '{"ok": True, "output": "", "__blobs__": [], "imports": {"__map__": 5}}',
    "bad_float": '{"ok": True, "output": "", "__blobs__": [], "imports": {"__float__": []}}',
    "shape_overflow": '{"ok": True, "output": "", "__blobs__": [0], "imports": {"__nd__": [0, "<f8", '
                      '[4294967296, 4294967296]]}}',
    "shape_too_big": '{"ok": True, "output": "", "__blobs__": [0], "imports": {"__nd__": [0, "<f8", '
                     '[100000000000000000000000]]}}',
}


@pytest.mark.parametrize("name", sorted(FORGED_OPEN_REPLIES))
def test_forged_reply_to_open(fast_grader, tmp_path, name):
    code = FORGE + f"""
_os.write(_harness().reply_fd, _frame({FORGED_OPEN_REPLIES[name]}))
_os._exit(0)
"""
    result = run_attack(fast_grader, tmp_path, code, whole_file=True)
    assert_contained(result, attacked=("step", "scalar"))


def test_garbled_frames_during_calls_are_contained(fast_grader, tmp_path):
    """Frames forged for calls: garbage, negative and oversized blob tables, a thread writing later."""
    code = FORGE + f"_COUNTER = '/tmp/redteam-counter-{uuid.uuid4().hex}'\n" + """
import threading, time
# _COUNTER lives in the sandbox's /tmp: it survives the children the grader restarts
def rnn_step(x_t, h_prev, W_x, W_h, b):
    h = _harness()
    n = len(open(_COUNTER).read()) if _os.path.exists(_COUNTER) else 0
    open(_COUNTER, "a").write("x")
    _N = [n + 1]
    if _N[0] == 1:
        def later():
            time.sleep(0.05)
            _os.write(h.reply_fd, _frame({"ok": True, "value": 0, "__blobs__": []}) * 3)
        threading.Thread(target=later, daemon=True).start()
    elif _N[0] == 5:
        _os.write(h.reply_fd, b"\\xff" * 64)
    elif _N[0] == 6:
        _os.write(h.reply_fd, _frame({"ok": True, "__blobs__": [-5]}))
    elif _N[0] == 7:
        _os.write(h.reply_fd, _frame({"ok": True, "__blobs__": [2**62]}))
    return None
"""
    result = run_attack(fast_grader, tmp_path, code, only=["step", "params"])
    assert_contained(result)


def test_reply_decoding_is_bounded_in_the_grader(tmp_path):
    code = FORGE + """
_N = [0]
_BIG = []
def rnn_step(x_t, h_prev, W_x, W_h, b):
    h = _harness()
    _N[0] += 1
    if _N[0] <= 1:
        if not _BIG:
            n = (15 << 20) // 3
            header = ('{"ok": true, "type": "list", "output": "", "__blobs__": [], "value": ['
                      + "[]," * n + '[]]}').encode()
            _BIG.append(_struct.pack(">I", len(header)) + header)
        _os.write(h.reply_fd, _BIG[0])
        h.reply = lambda message: h.__dict__.pop("reply", None)   # the real reply is not sent
        return None
    raise ValueError("no")
"""
    folder = attack_folder(tmp_path, code)
    script = f"""
import os, re, sys
sys.path.insert(0, {str(ROOT / 'tests')!r})
from grader.course.loader import bundled_course_root, load_course
from grader.grading.engine import Grader
from grader.submission.load import load_submission
def peak_kib():     # VmHWM: ru_maxrss would start at the peak of the pytest process that started this one
    with open("/proc/self/status") as fh:
        return int(re.search(r"VmHWM:\\s*(\\d+)", fh.read()).group(1))
course = load_course(bundled_course_root())
course.exercises["step"].timeout = 5.0
with Grader(course, isolation="sandbox", time_limit=60) as grader:
    base = peak_kib()
    result = grader.grade(load_submission({str(folder)!r}, {str(tmp_path / 'w')!r}), ["step"])
    grown = peak_kib() - base
print(int(result.score), grown // 1024)
"""
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    score, grown_mb = map(int, proc.stdout.split())
    assert score == 0
    assert grown_mb < 200, f"the grader grew by {grown_mb} MB for one reply"


# ================================================================ (a) reaching the grader's pipes

PROC1_COLLUSION = """
import json, os, struct

_CALLS = []
_N = __N__          # the calls the params exercise makes (its checks are public)

def _frame(body):
    header = json.dumps(dict(body, __blobs__=[])).encode()
    return struct.pack(">II", len(header), 0) + header

def _reply(value):
    return _frame({"ok": True, "value": value, "type": "int", "aliases": [], "args_after": [],
                   "kwargs_after": {"__map__": []}, "output": "", "elapsed": 0.0})

def _count(input_size, hidden_size, output_size=0, num_layers=1, bidirectional=False, double_bias=False):
    H, dirs, biases, total = int(hidden_size), 2 if bidirectional else 1, 2 if double_bias else 1, 0
    for layer in range(int(num_layers)):
        n_in = int(input_size) if layer == 0 else H * dirs
        total += dirs * (n_in * H + H * H + biases * H)
    if output_size > 0:
        total += H * dirs * int(output_size) + int(output_size)
    return int(total)

def count_rnn_params(*args, **kwargs):
    value = _count(*args, **kwargs)
    _CALLS.append((args, kwargs))
    if len(_CALLS) == _N:
        # If bubblewrap's pid 1 held the grader's pipes (as its fds 0 and 1, once), and /proc/1/fd
        # is open to the sandbox user, these frames would land in the grader's pipe and stay there
        # after every process of this submission is killed.
        frames = [_reply(value), _frame({"ok": True, "error": None, "output": ""})]   # the next import
        frames += [_reply(_count(*a, **k)) for a, k in _CALLS]      # the NEXT submission's calls
        fd = os.open("/proc/1/fd/1", os.O_WRONLY)
        os.write(fd, b"".join(frames))
    return value
"""


def params_calls(grader, tmp_path, monkeypatch) -> int:
    """How many calls grading the params exercise makes (the colluder knows it from the public suite):
    the frames the grader reads, less the reply to the import."""
    from grader.sandbox.worker import wire

    count, original = [0], wire.Reader.recv

    def counting(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(wire.Reader, "recv", counting)
        result = grade_folder(grader, copy_reference(tmp_path / "count"), tmp_path, ["params"])
    assert scores(result)["params"][0] == scores(result)["params"][1]
    assert count[0] > 1
    return count[0] - 1


PROC1_FINDING = ("bubblewrap's pid 1 keeps the grader's stdin/stdout pipes and /proc/1/fd is open to the sandbox "
                 "user: a submission writes frames straight into the grader's reply pipe; they outlive its "
                 "processes, so with one warm worker (grade class) they answer the NEXT submission's calls: "
                 "a stub that raises NotImplementedError scores full marks")


def test_frames_injected_through_proc1_do_not_reach_another_submission(fast_grader, fresh_grader, tmp_path,
                                                                        monkeypatch):
    colluder_code = PROC1_COLLUSION.replace("__N__", str(params_calls(fast_grader, tmp_path, monkeypatch)))
    grader = fresh_grader()
    colluder = reference_with(tmp_path, {"param_count.py": colluder_code})
    first = grade_folder(grader, colluder, tmp_path, ["params"])
    assert scores(first)["params"] == (8, 8)
    stubs = tmp_path / "stubs"
    shutil.copytree(STUBS, stubs)
    second = grade_folder(grader, stubs, tmp_path, ["params"])
    assert scores(second)["params"][0] == 0


def test_grade_class_colluder_cannot_score_for_the_next_student(fast_grader, tmp_path, monkeypatch):
    colluder_code = PROC1_COLLUSION.replace("__N__", str(params_calls(fast_grader, tmp_path, monkeypatch)))
    klass = tmp_path / "class"
    klass.mkdir()
    reference_with(tmp_path, {"param_count.py": colluder_code}).rename(klass / "a_colluder")
    shutil.copytree(STUBS, klass / "b_friend")
    code, out, err = cli("class", klass, "--only", "params", "--jobs", "1", "--format", "json",
                         "--gradebook", tmp_path / "book.sqlite", "--feedback", "none")
    assert code == 0, err
    got = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert got["a_colluder"] == 8
    assert got["b_friend"] == 0


@pytest.mark.parametrize("how", ["message", "entry_name"])
def test_grade_class_survives_a_hostile_student(tmp_path, how):
    klass = tmp_path / "class"
    klass.mkdir()
    mallory = "mallory" if how == "message" else os.fsdecode(b"mallory\xff")
    for name in ("alice", mallory, "zed"):
        copy_reference(klass / name)
    if how == "message":
        (klass / mallory / "param_count.py").write_text(
            'def count_rnn_params(*a, **k):\n    raise ValueError("\\ud800")\n')
    code, out, err = cli("class", klass, "--only", "params", "--jobs", "1", "--format", "json",
                         "--gradebook", tmp_path / "book.sqlite")
    assert code == 0, err
    got = {s["student"]: s["score"] for s in json.loads(out)["submissions"]}
    assert got["alice"] == 8 and got["zed"] == 8 and len(got) == 3


def test_zygote_is_not_ptraceable_and_its_fds_are_closed(fast_grader, tmp_path):
    code = """
    import ctypes, os
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        zygote = os.getppid()
        libc = ctypes.CDLL(None, use_errno=True)
        found = []
        if libc.ptrace(16, zygote, 0, 0) == 0:                 # PTRACE_ATTACH
            found.append("ptrace")
        for path in (f"/proc/{zygote}/fd/0", f"/proc/{zygote}/fd/1", f"/proc/{zygote}/mem",
                     f"/proc/{zygote}/environ"):
            try:
                open(path, "rb").close()
                found.append(path)
            except OSError:
                pass
        for fd in range(3, 256):                                  # anything but our own pipes?
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if "socket" in target or target.startswith("/") and "tmp" not in target:
                found.append(f"{fd}->{target}")
        raise RuntimeError("FOUND " + repr(found) if found else "NOTHING")
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    messages = [c.message.render("en") for c in result.exercises[0].checks if c.message]
    assert any("NOTHING" in m for m in messages), messages


@pytest.mark.parametrize("body", ids=["stop_zygote", "stop_all", "term_zygote", "kill_init"], argvalues=[
    "import os, signal\n    os.kill(os.getppid(), signal.SIGSTOP)",
    "import os, signal\n    os.kill(-1, signal.SIGSTOP)",
    "import os, signal\n    os.kill(os.getppid(), signal.SIGTERM)",
    "import os, signal\n    os.kill(1, signal.SIGKILL)",
])
def test_signals_to_the_zygote_and_init(fast_grader, tmp_path, body):
    code = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n    " + body + "\n    return None\n"
    start = time.monotonic()
    result = run_attack(fast_grader, tmp_path, code)
    assert_contained(result)
    assert scores(result)["scalar"][0] == scores(result)["scalar"][1]
    assert time.monotonic() - start < 40


# ================================================================ (a)/(c) state that survives a submission

def test_planted_module_does_not_reach_the_next_submission(fresh_grader, tmp_path):
    import numpy

    site = Path(numpy.__file__).resolve().parent.parent
    grader = fresh_grader()
    planter = attack_folder(tmp_path, f"""
    import os
    for d in ({str(site)!r}, "/root", "/"):
        try:
            with open(os.path.join(d, "tqdm.py"), "w") as fh:
                fh.write("import numpy\\nnumpy.tanh = lambda x: x * 0\\n")
        except OSError:
            pass
    """, whole_file=True)
    grade_folder(grader, planter, tmp_path, ["step"])
    victim = attack_folder(tmp_path, """
    try:
        import tqdm
    except ImportError:
        tqdm = None
    """, whole_file=True)
    result = grade_folder(grader, victim, tmp_path, ["step"])
    assert scores(result)["step"] == (11, 11)


def test_files_do_not_survive_into_the_next_submission(fresh_grader, tmp_path):
    grader = fresh_grader()
    writer = attack_folder(tmp_path, """
    import os
    for d in ("/tmp", "/dev/shm", "/dev", "/"):
        try:
            with open(os.path.join(d, "left-behind"), "wb") as fh:
                fh.write(b"x")
        except OSError:
            pass
    for i in range(8):                                  # 8 x 16 MB: twice the cap of /tmp
        with open(f"/dev/shm/big{i}", "wb") as fh:
            fh.write(b"\\0" * (16 << 20))
    """, whole_file=True)
    grade_folder(grader, writer, tmp_path, ["step"])
    probe = attack_folder(tmp_path, """
    import os
    _left = [p for p in ("/tmp/left-behind", "/dev/shm/left-behind", "/dev/left-behind", "/left-behind",
                         "/dev/shm/big7") if os.path.exists(p)]
    if _left:
        raise RuntimeError("LEFT " + repr(_left))
    """, whole_file=True)
    result = grade_folder(grader, probe, tmp_path, ["step"])
    assert scores(result)["step"] == (11, 11), result.exercises[0].problem


def test_full_tmp_does_not_break_the_next_submission(fresh_grader, tmp_path):
    grader = fresh_grader()
    filler = attack_folder(tmp_path, """
    i = 0
    try:
        while i < 100:
            with open(f"/tmp/fill{i}", "wb") as fh:
                fh.write(b"\\0" * (8 << 20))
            i += 1
    except OSError:
        pass
    """, whole_file=True)
    grade_folder(grader, filler, tmp_path, ["step"])
    honest = attack_folder(tmp_path, 'print("demo output " * 2000)', whole_file=False)
    result = grade_folder(grader, honest, tmp_path, ["step"])
    assert scores(result)["step"] == (11, 11), result.exercises[0].problem


# ================================================================ (b)/(c) resources, processes, leftovers

@pytest.mark.parametrize("body", ids=[
    "raise_rlimits", "memory_in_many_processes", "sigalrm", "atexit_hang", "printing_thread", "closed_stdio",
    "closed_harness_fds", "patched_wire_and_json"], argvalues=[
    # rlimits cannot be raised again
    "import resource\n    for which in (resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_CPU):\n        try: resource.setrlimit(which, (-1, -1))\n        except (ValueError, OSError): pass\n    b'1' * (6 * 2**30)",  # noqa: E501 -- the attack's code
    # memory in many processes (each under its own RLIMIT_AS)
    "import os, time\n    for i in range(12):\n        if os.fork() == 0:\n            b = b'1' * (1500 << 20)\n            time.sleep(30)\n            os._exit(0)\n    time.sleep(30)",  # noqa: E501 -- the attack's code
    # SIGALRM, atexit, threads and closed or replaced standard streams
    "import signal\n    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(SystemExit(0)))\n    signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)\n    return None",  # noqa: E501 -- the attack's code
    "import atexit, time\n    atexit.register(lambda: time.sleep(3600))\n    raise SystemExit(0)",
    "import threading, time, sys\n    threading.Thread(target=lambda: [print('x' * 1000) or time.sleep(0.001) for _ in range(10**6)], daemon=True).start()\n    return None",  # noqa: E501 -- the attack's code
    "import os, sys\n    sys.stdout.close()\n    sys.stderr = None\n    os.close(1)\n    os.close(2)\n    return None",
    "import os\n    for fd in range(3, 64):\n        try: os.close(fd)\n        except OSError: pass\n    return None",
    # sys.modules tampering: the harness's own wire helper and json
    "import sys\n    sys.modules['_grader_wire'].pack = lambda m: b'\\0\\0\\0\\2{}'\n    sys.modules['json'].dumps = lambda *a, **k: '[]'\n    return None",  # noqa: E501 -- the attack's code
])
def test_resources_signals_and_interpreter_tampering(fast_grader, tmp_path, body):
    code = "def rnn_step(x_t, h_prev, W_x, W_h, b):\n    " + body + "\n"
    start = time.monotonic()
    result = run_attack(fast_grader, tmp_path, code)
    assert_contained(result)
    assert scores(result)["scalar"][0] == scores(result)["scalar"][1]
    assert time.monotonic() - start < 40


def test_no_unix_sockets_to_the_outside(fast_grader, tmp_path):
    """Abstract unix sockets are per network namespace; UDP to loopback goes nowhere."""
    name = f"redteam-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(1)
    server.settimeout(4)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.2)
    received = []

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
        for attempt in (lambda: socket.socket(socket.AF_UNIX).connect("\\0{name}"),
                        lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", {udp.getsockname()[1]}))):
            try:
                attempt()
            except OSError:
                pass
        return None
    """  # noqa: E501 -- the attack's code
    try:
        result = run_attack(fast_grader, tmp_path, code, only=["step"])
    finally:
        thread.join()
        server.close()
    try:
        received.append(udp.recv(100))
    except OSError:
        pass
    udp.close()
    assert received == [] and all(c.name in PROPERTY_CHECKS for c in result.exercises[0].checks if c.passed)


def test_cli_leaves_no_process_exchange_folder_or_cgroup(tmp_path):
    marker = f"lingerer-{uuid.uuid4().hex}"
    folder = attack_folder(tmp_path, f"""
    import os, sys
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)", "{marker}"])
        os._exit(0)
    for d in ("/tmp", "/dev/shm", "/"):
        try:
            open(os.path.join(d, "{marker}"), "w").write("x")
        except OSError:
            pass
    exchange = [line.split()[3] for line in open("/proc/self/mountinfo") if " /submission " in line]
    raise RuntimeError("EXCHANGE=" + exchange[0] + "=")
    """, whole_file=True)
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}
    proc = subprocess.Popen([sys.executable, "-m", "grader", "check", str(folder), "--format", "json",
                             "--only", "step", "--only", "params"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    report = json.loads(out)
    assert report["score"] == 8
    exchange = report["exercises"][0]["problem"].split("EXCHANGE=")[1].split("=")[0]
    assert exchange.startswith("/") and not Path(exchange).exists()
    assert not any(Path(d, marker).exists() for d in ("/tmp", "/dev/shm", "/"))
    assert no_process_with(marker)
    for pattern in (f"pids/rnn-grader-{proc.pid}-*", f"memory/**/rnn-grader-{proc.pid}-*",
                    f"unified/**/rnn-grader-{proc.pid}-*", f"rnn-grader-{proc.pid}-*"):
        assert not list(Path("/sys/fs/cgroup").glob(pattern))


def test_hidden_check_inputs_are_not_printed_into_the_report(fast_grader, tmp_path):
    code = """
    import numpy as np
    _N = [0]
    def rnn_step(x_t, h_prev, W_x, W_h, b):
        _N[0] += 1
        if 7 <= _N[0] <= 12:          # the calls of random_shapes, a hidden check (the suite is public)
            print(f"x00={x_t[0, 0]:.12f}")
        return np.tanh(x_t @ W_x + h_prev @ W_h + b)
    """
    result = run_attack(fast_grader, tmp_path, code, only=["step"])
    assert scores(result)["step"] == (11, 11)
    # the hidden check random_shapes draws B, d, H at random: its inputs must not show up anywhere
    from grader.checks.api import Context

    ctx = Context(fast_grader.runtime, fast_grader.course.exercises["step"], None, hidden=True)
    hidden = ctx.cases_with_expected("random", "rnn_step", lambda rng: [])
    text = render(result, "text", "en")
    assert hidden
    for case, _ in hidden:
        assert f"x00={case.args[0][0, 0]:.12f}" not in text


# ================================================================ (b) conversion time: notebooks, zips, answers

def notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, str(path))
    return path


@pytest.mark.parametrize("cell", ["x = " + "-" * 100_000 + "1", "x = a" + ".a" * 200_000], ids=["unary", "attributes"])
def test_notebook_with_a_deeply_nested_expression(tmp_path, cell):
    path = notebook(tmp_path / "deep.ipynb", "import numpy as np", cell)
    try:
        load_submission(path, tmp_path / "work")
    except SubmissionError:
        pass


def test_notebook_with_many_late_future_imports_converts_quickly(tmp_path):
    path = notebook(tmp_path / "future.ipynb", "x = 1\n" + "from __future__ import annotations\n" * 20_000)
    script = (f"from grader.submission.load import load_submission\n"
              f"load_submission(__import__('pathlib').Path({str(path)!r}), {str(tmp_path / 'work')!r})\n")
    try:
        subprocess.run([sys.executable, "-c", script], cwd=ROOT, timeout=10, capture_output=True)
    except subprocess.TimeoutExpired:
        pytest.fail("converting the notebook took more than 10 s")


def test_notebook_and_zip_tricks_at_conversion_time(fast_grader, tmp_path):
    """Magics, shell escapes, cell magics writing files, odd zip entries: nothing runs or escapes."""
    marker = tmp_path / "ran"
    path = notebook(tmp_path / "hw.ipynb",
                    f"!touch {marker}\n%system touch {marker}\nx = !touch {marker}",
                    f"%%bash\ntouch {marker}",
                    f"%%writefile {marker}\nowned",
                    "import numpy as np\nANSWERS = {'params_rnn': 32}")
    result = fast_grader.grade(load_submission(path, tmp_path / "nb"), ["params", "quiz"])
    assert not marker.exists()
    reports_encode(result)
    zpath = tmp_path / "weird.zip"
    outside = tmp_path / "outside.py"
    with zipfile.ZipFile(zpath, "w") as zf:
        for name in ("rnn_step.py", "param_count.py", "answers.yaml"):
            zf.write(ROOT / "solutions" / "reference" / name, name)
        zf.writestr("../outside.py", "x = 1")
        zf.writestr("/abs.py", "x = 1")
        zf.writestr("new\nline.py", "x = 1")
        zf.writestr("\u202etxt.py", "x = 1")
        link = zipfile.ZipInfo("link.py")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, str(ROOT / "solutions" / "reference" / "bptt.py"))
    result = fast_grader.grade(load_submission(zpath, tmp_path / "zip"), ["params"])
    assert scores(result)["params"] == (8, 8) and not outside.exists()
    reports_encode(result)


def test_deeply_nested_folders_in_a_zip(fast_grader, tmp_path):
    path = tmp_path / "deep.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name in ("rnn_step.py", "param_count.py", "answers.yaml"):
            zf.write(ROOT / "solutions" / "reference" / name, name)
        zf.writestr("a/" * 1200 + "x.py", "x = 1\n")
    try:
        submission = load_submission(path, tmp_path / "work")
    except SubmissionError:
        return
    result = fast_grader.grade(submission, ["params"])
    assert scores(result)["params"] == (8, 8)


@pytest.mark.parametrize("content", ids=["python_tag", "alias", "deep", "odd_scalars", "unknown_tag", "too_big",
                                         "a_list", "control_bytes"], argvalues=[
    "step_equation: !!python/object/apply:os.system ['touch /tmp/redteam-yaml-owned']\n",
    "a: &x [1]\nb: [*x, *x]\n",
    "step_equation: " + "[" * 20_000 + "]" * 20_000 + "\n",
    "params_rnn: .nan\nbptt_memory: .inf\n? [1, 2]\n: x\nnull: 1\n1: 2\n2001-12-14: !!binary aGVsbG8=\n",
    "step_equation: !custom-tag {a: 1}\n",
    "# " + "x" * (300 * 1024) + "\n",
    "- just\n- a list\n",
    "\ufeff\x00\x01",
])
def test_answers_yaml_tricks(fast_grader, tmp_path, content):
    folder = copy_reference(tmp_path / "yaml")
    (folder / "answers.yaml").write_text(content, encoding="utf-8")
    result = grade_folder(fast_grader, folder, tmp_path, ["quiz"])
    assert result.score < result.max_score
    assert not Path("/tmp/redteam-yaml-owned").exists()
    reports_encode(result)


def test_answers_yaml_with_a_huge_integer(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "yaml")
    with open(folder / "answers.yaml", "a", encoding="utf-8") as fh:
        fh.write("\nparams_rnn: " + "9" * 5000 + "\n")
    result = grade_folder(fast_grader, folder, tmp_path, ["quiz"])
    assert result.score < result.max_score
    reports_encode(result)
