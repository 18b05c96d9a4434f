"""Red team, issue 31 item 2: trusted work driven by a student's arguments is bounded.

A stand-in call (grader/grading/stand_ins.py) runs the course's reference on the arguments a student's
code passed. The course tests/courses/bounds has a reference that allocates by its argument
(``ramp(n)``: n float64) and loops by it (``harmonic(k)``: k steps). Before, a student whose
ramp and harmonic lost points had them answered by the reference inside the grading process:
``ramp(300_000_000)`` (a 16-byte call) made the grading process allocate 2.4 GB, and
``harmonic(10**12)`` kept it at 100% CPU with no end (the per-submission budget was checked only
between calls). Now such calls run in a helper process with a wall-clock and CPU limit, a memory
ceiling of its own and a bounded reply (grader/sandbox/trusted_calls.py), and the student's exercise
fails with a message naming the function and the limit. The same holds for a diagnosis that
replays calls built from a student's results (grader/grading/diagnose.py).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from grader.checks.api import Case, RecordedCall
from grader.course.loader import load_course
from grader.grading.diagnose import Diagnoser, run_outcome
from grader.course.runtime import CourseRuntime
from grader.sandbox.trusted_calls import MEMORY, REPLY_BYTES, Overrun, TrustedCalls

COURSE = Path(__file__).resolve().parents[1] / "courses" / "bounds"
REFERENCE = (COURSE / "solutions" / "reference" / "bounds.py").read_text(encoding="utf-8")
FULL = 12

# ramp and harmonic wrong (they lose points, so totals gets stand-ins for them); totals asks the
# stand-ins for 2.4 GB and 1e12 loops; double is right.
ATTACK = REFERENCE + textwrap.dedent('''

    def ramp(n):
        return np.arange(n, dtype=np.float64)            # steps of 1: loses ramp's points


    def harmonic(k):
        return 0.0                                       # loses harmonic's points


    def ramp_total(x):
        return float(x.sum() + ramp(300_000_000).sum())  # a stand-in: the reference's ramp


    def harmonic_total(x):
        return float(x.sum()) + harmonic(10 ** 12)       # a stand-in: the reference's harmonic
''')

# Only the endless loop: before, the grading process never came back from it.
LOOP = REFERENCE + textwrap.dedent('''

    def harmonic(k):
        return 0.0


    def harmonic_total(x):
        return float(x.sum()) + harmonic(10 ** 12)
''')

GRADING = textwrap.dedent('''
    import json, resource, sys, time
    from pathlib import Path
    from grader.course.loader import load_course
    from grader.grading.engine import Grader
    from grader.report import check_message
    from grader.submission.load import load_submission

    def peak():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) * 1024

    course = load_course(Path(sys.argv[1]))
    work = Path(sys.argv[2])
    out = {}
    with Grader(course, counterexamples=True) as grader:
        def grade(name):
            start = time.perf_counter()
            result = grader.grade(load_submission(work / name, work / f"w-{name}-{time.perf_counter()}"))
            return result, time.perf_counter() - start
        grade("correct")   # warm: the reference's results, the worker
        correct, out["before_seconds"] = grade("correct")
        out["before_score"] = correct.score
        out["peak_before"] = peak()
        attack, out["attack_seconds"] = grade("attack")
        out["peak_after"] = peak()
        out["attack"] = {e.id: [e.score, e.max_score] for e in attack.exercises}
        out["messages"] = {f"{e.id}.{c.name}": [c.message.key if c.message else None,
                                                 check_message(c, "en"), check_message(c, "zh")]
                           for e in attack.exercises for c in e.checks}
        again, out["after_seconds"] = grade("correct")
        out["after_score"] = again.score
        out["isolation"] = grader.isolation
    out["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))
''')


def _grade_in_a_process(tmp_path, attack=ATTACK, timeout=120, env=None):
    for name, text in (("correct", REFERENCE), ("attack", attack)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bounds.py").write_text(text, encoding="utf-8")
    script = tmp_path / "grade.py"
    script.write_text(GRADING, encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, str(script), str(COURSE), str(tmp_path)], capture_output=True,
                              text=True, timeout=timeout, cwd=tmp_path, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"grading the attack did not end within {timeout} s: a stand-in call is not bounded")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_stand_in_asked_for_gigabytes_and_endless_loops_is_stopped(tmp_path):
    """The issue's two attacks in one submission, in the default mode: the grading process's
    peak memory does not move, each call stops at its limit with a message naming the function
    and the limit (both languages), the other exercises keep their marks, and a correct
    submission graded after it in the same Grader gets full marks at the usual speed."""
    out = _grade_in_a_process(tmp_path)
    assert out["before_score"] == FULL and out["after_score"] == FULL, out
    # 2.4 GB before; a grading process of ~100 MiB now, whose peak the attack leaves as it was.
    assert out["peak_after"] - out["peak_before"] < 64 << 20, out
    assert out["maxrss"] < 1 << 30, out
    attack = out["attack"]
    assert attack["ramp"][0] < attack["ramp"][1] and attack["harmonic"][0] < attack["harmonic"][1]
    assert attack["double"] == [2, 2], attack
    assert attack["totals"] == [0, 5], attack
    key, en, zh = out["messages"]["totals.ramp_total"]
    assert key == "err.stand_in_memory", out["messages"]
    assert "`ramp`" in en and f"{MEMORY >> 20} MiB" in en and "ramp" in zh and f"{MEMORY >> 20} MiB" in zh
    key, en, zh = out["messages"]["totals.harmonic_total"]
    assert key == "err.stand_in_time", out["messages"]
    assert "`harmonic`" in en and "2 s" in en and "harmonic" in zh and "2 秒" in zh
    # Each call stops at its limit (2 s, and 5 s of stand-ins a submission): not at 300 s.
    assert out["attack_seconds"] < 30, out
    assert out["after_seconds"] < 3 * out["before_seconds"] + 2, out


def test_one_endless_loop_costs_its_own_exercise_a_few_seconds(tmp_path):
    """Before, the grading process spun in the reference's loop and never came back."""
    out = _grade_in_a_process(tmp_path, LOOP, timeout=90)
    assert out["attack"]["totals"] == [2, 5] and out["attack"]["ramp"] == [3, 3], out["attack"]
    assert out["messages"]["totals.harmonic_total"][0] == "err.stand_in_time"
    assert out["attack_seconds"] < 20, out
    assert out["before_score"] == out["after_score"] == FULL, out


# ---------------------------------------------------------------- the helper itself

@pytest.fixture
def runtime():
    return CourseRuntime(load_course(COURSE))


@pytest.fixture
def helper(runtime):
    calls = runtime.trusted_calls()
    yield calls
    calls.stop()


def _peak() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) * 1024


def _answer(frame: bytes):
    from grader.sandbox.worker import wire

    header, payload = int.from_bytes(frame[:4], "big"), int.from_bytes(frame[4:8], "big")
    assert len(frame) == 8 + header + payload
    return wire.unpack(frame[8:8 + header], frame[8 + header:])


def test_each_limit_stops_a_call_and_the_next_call_is_answered(helper):
    peak = _peak()
    assert _answer(helper.stand_in("bounds.py", "ramp", [3], {}))["value"].tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(Overrun) as memory:
        helper.stand_in("bounds.py", "ramp", [300_000_000], {})
    assert memory.value.kind == "memory" and memory.value.params() == {"limit": f"{MEMORY >> 20}"}
    start = time.monotonic()
    with pytest.raises(Overrun) as endless:
        helper.stand_in("bounds.py", "harmonic", [10 ** 12], {}, seconds=0.5)
    assert endless.value.kind == "time" and endless.value.params() == {"limit": "0.5"}
    assert time.monotonic() - start < 2.0
    with pytest.raises(Overrun) as large:   # 8 MB of answer
        helper.stand_in("bounds.py", "ramp", [1_000_000], {})
    assert large.value.kind == "reply" and large.value.limit == REPLY_BYTES
    assert _answer(helper.stand_in("bounds.py", "harmonic", [2], {}))["value"] == 1.5
    assert _peak() - peak < 32 << 20           # none of it in this process
    assert helper.started >= 3                 # killed (or ended) after the memory and time overruns


def test_an_exception_of_the_reference_is_its_answer_not_an_overrun(helper):
    answer = _answer(helper.stand_in("bounds.py", "harmonic", ["three"], {}))
    assert answer["stand_in"] is True and answer["error"][0] == "TypeError"


class _Functions:
    """A runtime whose reference is a few functions of this test (the helper is a fork: it has them)."""

    def __init__(self, **functions):
        self.functions = functions

    def reference_function(self, file, func):
        return self.functions[func]


def _blas_threads():
    """OpenBLAS's thread count in this process (None where numpy has no OpenBLAS of this name)."""
    import ctypes

    with open("/proc/self/maps", encoding="utf-8") as fh:
        paths = {p for p in (line.split()[-1] for line in fh if line.strip()) if "openblas" in p.lower() and ".so" in p}
    for path in paths:
        getter = getattr(ctypes.CDLL(path), "scipy_openblas_get_num_threads64_", None)
        if getter is not None:
            return getter()
    return None


def _limits():
    return {"cpu": resource.getrlimit(resource.RLIMIT_CPU), "as": resource.getrlimit(resource.RLIMIT_AS),
            "pid": os.getpid(), "pgid": os.getpgid(0), "blas": _blas_threads()}


def _crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def test_the_limits_are_the_kernels_not_the_helpers_good_will():
    calls = TrustedCalls(_Functions(limits=_limits, crash=_crash))
    try:
        got = _answer(calls.stand_in("x.py", "limits", [], {}, seconds=1.0))["value"]
        used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
        assert got["pid"] != os.getpid() and got["pgid"] == got["pid"]   # a process (group) of its own
        assert got["cpu"][0] != resource.RLIM_INFINITY and got["cpu"][0] <= used + 60
        assert got["as"][0] != resource.RLIM_INFINITY
        assert got["blas"] in (None, 1)          # one core a call: the others grade other students
        with pytest.raises(Overrun) as died:
            calls.stand_in("x.py", "crash", [], {})
        assert died.value.kind == "died" and died.value.params() == {"how": "SIGSEGV"}
        assert "pid" in _answer(calls.stand_in("x.py", "limits", [], {}))["value"]
    finally:
        calls.stop()


def test_a_helper_killed_between_calls_is_replaced_without_blaming_the_call():
    calls = TrustedCalls(_Functions(limits=_limits))
    try:
        first = _answer(calls.stand_in("x.py", "limits", [], {}))["value"]["pid"]
        os.kill(first, signal.SIGKILL)
        end = time.monotonic() + 10
        while Path(f"/proc/{first}/stat").read_text().split(")")[1].split()[0] != "Z" and time.monotonic() < end:
            time.sleep(0.01)   # dead (a zombie until the grader reaps it)
        second = _answer(calls.stand_in("x.py", "limits", [], {}))["value"]["pid"]
        assert second != first
    finally:
        calls.stop()


def test_a_forked_grading_process_starts_its_own_helper():
    """grade class forks its grading processes: one must never talk on its parent's pipes."""
    calls = TrustedCalls(_Functions(limits=_limits))
    try:
        parent_helper = _answer(calls.stand_in("x.py", "limits", [], {}))["value"]["pid"]
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = 0 if _answer(calls.stand_in("x.py", "limits", [], {}))["value"]["pid"] != parent_helper else 2
                calls.stop()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0
        assert _answer(calls.stand_in("x.py", "limits", [], {}))["value"]["pid"] == parent_helper
    finally:
        calls.stop()


# ---------------------------------------------------------------- diagnosis replays

def test_a_diagnosis_replays_a_students_arguments_in_the_helper(runtime, helper):
    """A check may build a call from a student's results (tinyrnn's training run passes the
    student's parameters on): such a case is not cached, and its replay on the reference and the
    known mistakes runs in the helper, within the same limits."""
    exercise = runtime.course.exercises["ramp"]
    diagnoser = Diagnoser(runtime)
    small = RecordedCall("ramp", Case((4,)), ("ok", np.arange(4.0), [4], {}))
    assert diagnoser._reference_outcome(exercise, small, "small")[1].tolist() == [0.0, 0.5, 1.0, 1.5]
    assert helper.started == 1
    huge = RecordedCall("ramp", Case((300_000_000,)), ("error", "MemoryError"))
    peak = _peak()
    with pytest.raises(Overrun):
        diagnoser._reference_outcome(exercise, huge, "huge")
    assert _peak() - peak < 32 << 20


def test_a_replay_stopped_at_a_limit_costs_the_diagnosis_only(runtime):
    """Even with GRADER_STRICT (the tests'), an overrun is the student's arguments, not a bug."""
    from grader.grading.engine import Grader

    grader = Grader(runtime.course, runtime=runtime, isolation="none")
    try:
        exercise = runtime.course.exercises["ramp"]
        huge = RecordedCall("ramp", Case((300_000_000,)), ("ok", np.zeros(3), [300_000_000], {}))
        assert grader._diagnose(exercise, [huge]) == []
    finally:
        grader.close()


def test_cached_cases_are_replayed_here_as_before(runtime):
    """The grader's own inputs (every case a check caches) stay in the grading process: no round trip."""
    exercise = runtime.course.exercises["ramp"]
    diagnoser = Diagnoser(runtime)
    case = Case((3,), shared=True)
    call = RecordedCall("ramp", case, ("ok", np.arange(3.0), [3], {}))
    assert diagnoser._reference_outcome(exercise, call, "k")[1].tolist() == [0.0, 0.5, 1.0]
    assert runtime.trusted_calls().started == 0
    assert run_outcome(runtime.reference_function("bounds.py", "ramp"), call)[1].tolist() == [0.0, 0.5, 1.0]



def test_a_checks_reference_on_a_students_results_runs_in_the_helper(runtime):
    """A course's Python check may ask for the reference's answer on a case it built from the
    student's results (``ctx.expected`` on a case not ``cached``): the course's code then runs on
    arguments the student chose, so in the helper. Here within limits it answers as before; asked
    for 2.4 GB it fails the check with the limit named, and the grading process does not grow."""
    from grader.checks.api import Context, Fail
    from grader.base.i18n import render

    exercise = runtime.course.exercises["ramp"]
    ctx = Context(runtime, exercise, None)
    assert ctx.expected("ramp", Case((4,))).tolist() == [0.0, 0.5, 1.0, 1.5]
    assert runtime.trusted_calls().started == 1
    peak = _peak()
    with pytest.raises(Fail) as failed:
        ctx.expected("ramp", Case((300_000_000,)))
    assert _peak() - peak < 32 << 20
    assert failed.value.message.key == "err.reference_memory"
    for lang in ("en", "zh"):
        text = render(failed.value.message.key, lang, **failed.value.message.params)
        assert "`ramp`" in text and "MiB" in text
    # the run's own cached cases stay in the grading process, as before
    started = runtime.trusted_calls().started
    assert ctx.expected("ramp", Case((3,), shared=True)).tolist() == [0.0, 0.5, 1.0]
    assert runtime.trusted_calls().started == started
    runtime.trusted_calls().stop()
