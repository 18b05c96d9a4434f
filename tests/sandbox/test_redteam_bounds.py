"""Red team, trusted side of the worker boundary (issue 10, breaches 5 and 7).

- What a submission sends back is bounded: a reply over the per-call budget, or past the
  per-submission budget, is refused as that student's failure, and the grader process keeps
  only what its diagnosis needs. Measured: the grader's own peak memory in a real
  ``grade check`` process.
- A named mistake depends on visible checks' calls only: two submissions that behave alike on
  every visible input get the same diagnosis, whatever they do on hidden inputs. A mistake whose
  catalogue entry sets ``hidden_evidence: true`` is named from hidden calls too, for the instructor
  only (``hidden_diagnoses``; issue 31 item 5, tests/sandbox/test_redteam_hidden_diagnosis.py).
- State that one exercise's calls leave where process_state does not look (a module outside
  WATCHED_MODULES, the C environment through ctypes) does not reach the next exercise.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import uuid

import pytest

from conftest import ROOT, copy_reference
from grader.course.loader import MistakeSpec, bundled_course_root, load_course
from grader.base.i18n import Message
from grader.sandbox.client import Limits, StudentError, StudentModule, Worker
from grader.sandbox.isolation import bwrap_path
from grader.submission.load import load_submission
from helpers.sandbox import scores

GRADER_PEAK_BOUND = 192 << 20       # bytes of resident memory the grader process may reach (measured: 55-64)
GRADER_ADDRESS_SPACE = 3 << 30      # a regressed grader fails here instead of taking the machine
DTYPES = {"sequence_mask": "bool", "count_rnn_params": "int64"}   # every other function returns float64

# Runs one `grade check` and writes the process's own peak resident memory (not its children's):
# VmHWM of this process image. ru_maxrss would also count the peak of the pytest process this one
# was forked from (preexec_fn forces a fork), which late in the suite is larger than the bound.
PEAK_WRAPPER = """
import re, sys
from grader.cli import cli
try:
    cli.main(sys.argv[2:], prog_name="grade")
finally:
    with open("/proc/self/status") as status, open(sys.argv[1], "w") as fh:
        fh.write(str(int(re.search(r"VmHWM:\\s*(\\d+)", status.read()).group(1)) * 1024))
"""


def every_function_returns(tmp_path, nbytes: int):
    """The reference, with every graded function replaced by one returning ``nbytes`` of zeros
    of the function's own result dtype."""
    course = load_course(bundled_course_root())
    folder = copy_reference(tmp_path / f"bulk-{uuid.uuid4().hex[:6]}")
    for exercise in course.exercises.values():
        if exercise.is_quiz:
            continue
        lines = ["", "import numpy as _np"]
        for func in exercise.functions:
            dtype = DTYPES.get(func, "float64")
            lines += [f"def {func}(*args, **kwargs):",
                      f"    return _np.zeros({nbytes} // _np.dtype('{dtype}').itemsize, dtype='{dtype}')"]
        with open(folder / exercise.file, "a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return folder


def grade_check_peak(folder, tmp_path):
    """(exit code, JSON report, stderr, peak resident bytes of the grader process)."""
    out, peak = tmp_path / f"report-{uuid.uuid4().hex[:6]}.json", tmp_path / "peak"
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}

    def bounded():
        resource.setrlimit(resource.RLIMIT_AS, (GRADER_ADDRESS_SPACE, GRADER_ADDRESS_SPACE))

    proc = subprocess.run([sys.executable, "-c", PEAK_WRAPPER, str(peak), "check", str(folder), "--format", "json",
                           "--output", str(out), "--lang", "en"],
                          capture_output=True, cwd=ROOT, env=env, timeout=600, preexec_fn=bounded)
    report = json.loads(out.read_text()) if out.exists() else None
    return proc.returncode, report, proc.stderr.decode(errors="replace"), int(peak.read_text())


def assert_only_the_quiz_scores(report):
    """Only the quiz scores, and a check that the inputs were left unchanged where a call's
    result was accepted (these functions write into nothing: that check judges only that)."""
    for exercise in report["exercises"]:
        if exercise["id"] == "quiz":
            assert exercise["score"] == exercise["max_score"], exercise
        else:
            passed = [c["name"] for c in exercise["checks"] if c["passed"]]
            assert set(passed) <= {"inputs_unchanged"}, (exercise["id"], passed)
            assert exercise["score"] == sum(c["score"] for c in exercise["checks"] if c["passed"]), exercise["id"]


def first_messages(report):
    return {e["id"]: e["checks"][0]["message"] for e in report["exercises"] if e["id"] != "quiz"}


# ================================================================ (a) bounded replies

@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_huge_results_are_refused_per_call_and_the_grader_stays_small(tmp_path):
    """8 MiB from every call: each is refused on its own, no more is kept than for a small result."""
    code, report, err, peak = grade_check_peak(every_function_returns(tmp_path, 8 << 20), tmp_path)
    assert code == 1, err[-2000:]
    assert "Traceback" not in err
    assert_only_the_quiz_scores(report)
    for exercise, message in first_messages(report).items():
        assert "more than the 2 MiB one call may return" in message, (exercise, message)
    assert peak < GRADER_PEAK_BOUND, f"the grader reached {peak >> 20} MiB"


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_many_results_under_the_call_budget_stop_at_the_submission_budget(tmp_path):
    """1 MiB from every call, under the per-call budget: the submission's budget runs out, and the
    grader keeps no exercise's results past its diagnosis."""
    code, report, err, peak = grade_check_peak(every_function_returns(tmp_path, 1 << 20), tmp_path)
    assert code == 1, err[-2000:]
    assert "Traceback" not in err
    assert_only_the_quiz_scores(report)
    messages = first_messages(report)
    assert "more than the 2 MiB" not in messages["step"]     # the first calls were accepted...
    assert "add up to more than the 32 MiB" in messages["birnn"], messages["birnn"]   # ...the last were not
    assert peak < GRADER_PEAK_BOUND, f"the grader reached {peak >> 20} MiB"


BULKY = '''
import numpy as np
def bulky(n):
    return np.zeros(n)
def small():
    return 7
'''


def test_a_refused_reply_costs_only_its_call(tmp_path):
    """Refusing a reply reads it to its end without keeping it: the same child answers next."""
    (tmp_path / "mod.py").write_text(BULKY)
    with Worker(limits=Limits(reply_bytes=1 << 20, submission_reply_bytes=3 << 20)) as worker, \
            worker.staged(tmp_path) as root:
        student = StudentModule(worker, root, "mod", 5.0)
        assert student.call("small").value == 7
        sessions = worker.sessions
        with pytest.raises(StudentError) as refused:
            student.call("bulky", 1 << 18)          # 2 MiB
        assert refused.value.error == {"kind": "too_large", "scope": "call", "size": refused.value.error["size"],
                                       "limit": 1 << 20}
        assert refused.value.error["size"] > 2 << 20
        assert student.call("small").value == 7 and worker.sessions == sessions
        kinds = []
        for _ in range(5):                         # 0.75 MiB each, 3 MiB in all
            try:
                student.call("bulky", 3 << 15)
                kinds.append("ok")
            except StudentError as exc:
                kinds.append(exc.error.get("scope"))
        assert kinds == ["ok", "ok", "ok", "submission", "submission"], kinds
        assert student.call("small").value == 7    # small replies always pass
    for lang in ("en", "zh"):
        text = Message("err.too_large_call", name="f", size="8", limit="2").render(lang)
        assert "8" in text and "2" in text and "err." not in text


# ================================================================ (b) diagnosis from visible calls only

VISIBLE_STEP_SHAPES = {(3, 4, 5), (2, 3, 4), (4, 5, 2), (1, 1, 3), (3, 2, 1), (3, 4, 4), (2, 2, 2)}

MISSING_BIAS = """
import numpy as np
VISIBLE = {visible!r}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    shape = (x_t.shape[0], x_t.shape[1], W_h.shape[0])
    if {on_hidden_too} or shape in VISIBLE:
        return np.tanh(x_t @ W_x + h_prev @ W_h)          # the known mistake step.missing_bias
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)          # right on every other (hidden) input
"""


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_a_named_mistake_does_not_depend_on_hidden_inputs(fast_grader, tmp_path):
    """Same behaviour on every visible input, different on hidden ones: the same diagnosis. (Else
    whether the mistake is named tells the student a bit about the hidden inputs.)"""
    named = {}
    for on_hidden_too in (True, False):
        folder = copy_reference(tmp_path / f"bias-{on_hidden_too}")
        source = MISSING_BIAS.format(visible=VISIBLE_STEP_SHAPES, on_hidden_too=on_hidden_too)
        with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
            fh.write("\n" + source)
        result = fast_grader.grade(load_submission(folder, tmp_path / f"work-{on_hidden_too}"), ["step"])
        named[on_hidden_too] = [d.id for d in result.exercises[0].diagnoses]
    assert named[True] == ["step.missing_bias"]                # the control: the mistake is there
    assert named[False] == named[True], named


MISSING_BIAS_ON_HIDDEN = """
import numpy as np
VISIBLE = {visible!r}
def rnn_step(x_t, h_prev, W_x, W_h, b):
    shape = (x_t.shape[0], x_t.shape[1], W_h.shape[0])
    if shape in VISIBLE:
        return np.tanh(x_t @ W_x + h_prev @ W_h + b)          # right on every visible input
    return np.tanh(x_t @ W_x + h_prev @ W_h)                  # the bias missing on hidden ones
"""


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
def test_only_a_mistake_with_hidden_evidence_is_named_from_hidden_calls(fast_grader, tmp_path, monkeypatch):
    """A known mistake only hidden inputs show (it is right on every visible one), and a student who
    makes it: named to the instructor once the course lets that mistake be named from hidden calls
    (``hidden_evidence: true``), never without, and never to the student (issue 31 item 5); and no
    other mistake of the exercise is named."""
    source = MISSING_BIAS_ON_HIDDEN.format(visible=VISIBLE_STEP_SHAPES)
    variant = tmp_path / "bias_on_hidden.py"
    variant.write_text(source, encoding="utf-8")
    exercise = fast_grader.course.exercises["step"]
    mistake = MistakeSpec(id="step.bias_on_hidden", exercise="step", title={"en": "bias", "zh": "bias"},
                          explanation={"en": "", "zh": ""}, hint={"en": "", "zh": ""}, fails=[], variants=[variant])
    monkeypatch.setattr(exercise, "mistakes", [*exercise.mistakes, mistake])
    folder = copy_reference(tmp_path / "bias-hidden")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\n" + source)

    def named(tag):
        result = fast_grader.grade(load_submission(folder, tmp_path / f"work-{tag}"), ["step"])
        assert result.exercises[0].score < result.exercises[0].max_score    # the hidden checks caught it
        return [d.id for d in result.exercises[0].diagnoses], result.exercises[0].hidden_diagnoses

    assert named("without") == ([], [])
    mistake.hidden_evidence = True
    assert named("with") == ([], ["step.bias_on_hidden"])


# ================================================================ (c) no state from one exercise to the next

CARRIED = {
    # an attribute on a module process_state does not watch
    "module attribute": ("import collections; collections._rnn_seen = True",
                         "import collections; seen = getattr(collections, '_rnn_seen', False)"),
    # the C environment: os.environ (which process_state compares) never sees it
    "ctypes setenv": ("import ctypes; ctypes.CDLL(None).setenv(b'RNN_SEEN', b'1', 1)",
                      "import ctypes; libc = ctypes.CDLL(None); libc.getenv.restype = ctypes.c_char_p; "
                      "seen = libc.getenv(b'RNN_SEEN') is not None"),
}

CARRY = """
_right_scalar_rnn = scalar_rnn
def rnn_step(x_t, h_prev, W_x, W_h, b):
    {store}
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
def scalar_rnn(*args, **kwargs):
    {read}
    return _right_scalar_rnn(*args, **kwargs) if seen else [12345.0]
"""


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")
@pytest.mark.parametrize("where", list(CARRIED))
def test_state_left_by_one_exercise_does_not_reach_the_next(fast_grader, tmp_path, where):
    """step's calls leave a mark where process_state does not look; scalar (same file, graded next)
    is right only if it finds that mark. It must not find it."""
    store, read = CARRIED[where]
    folder = copy_reference(tmp_path / f"carry-{uuid.uuid4().hex[:6]}")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\nimport numpy as np\n" + textwrap.dedent(CARRY).format(store=store, read=read))
    result = fast_grader.grade(load_submission(folder, tmp_path / "work"), ["step", "scalar"])
    got = scores(result)
    assert got["step"][0] == got["step"][1], got            # step is right and leaves its mark...
    assert got["scalar"][0] == 0, got                       # ...which scalar never sees
