"""Fair marks: a mistake costs points where it is, not in every exercise that calls it
(grader/grading/stand_ins.py). Once an exercise lost points, later exercises are graded with its
functions answered by the reference, from the trusted side."""

from __future__ import annotations

import os

import numpy as np
import pytest

from conftest import ROOT, copy_reference, single_file_source
from grader.grading import engine
from grader.grading.run import SubmissionRun
from grader.course.loader import bundled_course_root, load_course
from grader.course.runtime import module_name
from grader.submission.load import load_submission
from grader.grading.stand_ins import MAX_CALLS, StandInAnswers, answer_stand_in, stand_ins_for
from grader.sandbox.worker import wire
from grader.report import check_message

FULL = sum(c.points for e in load_course(bundled_course_root()).exercises.values() for c in e.checks)


def scores(result):
    return {e.id: (e.score, e.max_score) for e in result.exercises}


def lost(result):
    return {e.id for e in result.exercises if e.score < e.max_score}


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def no_bias(tmp_path):
    folder = copy_reference(tmp_path / "no_bias")
    edit(folder / "rnn_step.py", "return np.tanh(x_t @ W_x + h_prev @ W_h + b)",
         "return np.tanh(x_t @ W_x + h_prev @ W_h)")
    return folder


def test_a_wrong_rnn_step_costs_only_the_step_exercise(grade, no_bias):
    """The issue's case: without stand-ins the score fell from 165 (of 165 then) to 74 over eight exercises."""
    result = grade(no_bias)
    assert lost(result) == {"step"}, scores(result)
    step = next(e for e in result.exercises if e.id == "step")
    assert "step.missing_bias" in [d.id for d in step.diagnoses]
    assert result.score == FULL - step.max_score + step.score


def test_without_stand_ins_the_mistake_cascades(grade, no_bias, monkeypatch):
    """The same submission graded with the student's own rnn_step everywhere: proves the
    test above measures the stand-ins (and GRADER_STAND_INS=0 switches them off)."""
    monkeypatch.setattr(engine, "STAND_INS", False)
    result = grade(no_bias)
    assert {"step", "forward", "bptt", "truncation", "birnn", "masking", "readout", "tinyrnn"} <= lost(result)


def test_a_wrong_rnn_forward_costs_only_forward(grade, tmp_path):
    folder = copy_reference(tmp_path / "forward")
    edit(folder / "rnn_forward.py", "        Hs[:, t] = h\n", "        Hs[:, t] = h\n        h = 0.5 * h\n")
    result = grade(folder)
    assert lost(result) == {"forward"}, scores(result)


def test_a_wrong_masked_forward_costs_only_masking(grade, tmp_path):
    folder = copy_reference(tmp_path / "masked")
    edit(folder / "masking.py", "        h = np.where(valid, h_new, h)\n", "        h = h_new\n")
    result = grade(folder)
    assert lost(result) == {"masking"}, scores(result)


def test_a_file_that_does_not_import_costs_only_its_own_exercises(grade, tmp_path):
    folder = copy_reference(tmp_path / "broken")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\ndef broken(:\n")
    result = grade(folder)
    assert lost(result) == {"step", "scalar"}, scores(result)


def test_a_missing_file_costs_only_its_own_exercises(grade, tmp_path):
    folder = copy_reference(tmp_path / "missing")
    (folder / "rnn_step.py").unlink()
    result = grade(folder)
    assert lost(result) == {"step", "scalar"}, scores(result)


def test_a_helper_call_the_reference_cannot_take_runs_the_students_own(grade, tmp_path):
    """Their rnn_step takes an extra argument their rnn_forward passes: the stand-in hands that
    call back to their own function rather than failing forward for it."""
    folder = copy_reference(tmp_path / "extra")
    edit(folder / "rnn_step.py", "def rnn_step(x_t, h_prev, W_x, W_h, b):",
         "def rnn_step(x_t, h_prev, W_x, W_h, b, scale=1.0):")
    edit(folder / "rnn_step.py", "return np.tanh(x_t @ W_x + h_prev @ W_h + b)",
         "return np.tanh(scale * (x_t @ W_x + h_prev @ W_h + b)) + 0.0 * (scale == 2.0)")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:   # wrong at T == 1 only: step loses
        fh.write("\n_rnn_step = rnn_step\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b, scale=1.0):\n"
                 "    return _rnn_step(x_t, h_prev, W_x, W_h, b, scale) * (1.0 if x_t.shape[0] != 1 else 0.5)\n")
    edit(folder / "rnn_forward.py", "h = rnn_step(X[:, t], h, W_x, W_h, b)",
         "h = rnn_step(X[:, t], h, W_x, W_h, b, scale=1.0)")
    result = grade(folder)
    assert "step" in lost(result)
    assert "forward" in lost(result)   # their own rnn_step, with its bug, answered that call
    edit(folder / "rnn_forward.py", "h = rnn_step(X[:, t], h, W_x, W_h, b, scale=1.0)",
         "h = rnn_step(X[:, t], h, W_x, W_h, b)")
    assert "forward" not in lost(grade(folder))


def test_a_wrong_call_to_a_stand_in_fails_with_the_exception(grade, no_bias):
    folder = no_bias
    edit(folder / "rnn_forward.py", "h = rnn_step(X[:, t], h, W_x, W_h, b)", "h = rnn_step(X[:, t], h, W_h, W_x, b)")
    forward = next(e for e in grade(folder, ["step", "forward"]).exercises if e.id == "forward")
    assert forward.score < forward.max_score
    messages = " ".join(check_message(c, "en") for c in forward.checks if not c.passed)
    assert "ValueError" in messages, messages


def test_correct_code_gets_no_stand_ins(grade, tmp_path):
    assert grade(copy_reference(tmp_path / "ref")).score == FULL


# ---------------------------------------------------------------- the trusted side bounds what it answers

def test_only_functions_of_other_lost_exercises_are_stood_in(course):
    step, forward, scalar = course.exercises["step"], course.exercises["forward"], course.exercises["scalar"]
    assert stand_ins_for(course, forward, {"step"}, module_name) == (("rnn_step", "rnn_step", "patch"),)
    assert stand_ins_for(course, forward, {"step"}, module_name, {"rnn_step"}) == (("rnn_step", "rnn_step", "empty"),)
    assert stand_ins_for(course, step, {"step"}, module_name) == ()          # never an exercise's own function
    # same file, other exercise
    assert stand_ins_for(course, scalar, {"step"}, module_name) == (("rnn_step", "rnn_step", "patch"),)
    assert stand_ins_for(course, forward, {"quiz"}, module_name) == ()


def answer(handler, request, allowed):
    """What the child reads back: the frame answer_stand_in writes, through a pipe."""
    read_end, write_end = os.pipe()
    os.write(write_end, answer_stand_in(handler, request, allowed))
    os.close(write_end)
    try:
        return wire.Reader(read_end).recv()
    finally:
        os.close(read_end)


@pytest.fixture
def answers(course):
    from grader.course.runtime import CourseRuntime
    return StandInAnswers(CourseRuntime(course), course)


def test_the_reference_answers_an_allowed_call(answers):
    rng = np.random.default_rng(0)
    x, h, wx, wh, b = (rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(3, 4)),
                       rng.normal(size=(4, 4)), rng.normal(size=4))
    got = answer(answers, {"ok": True, "stand_in": ["rnn_step", "rnn_step"], "args": [x, h, wx, wh, b], "kwargs": {}},
                 (("rnn_step", "rnn_step", "patch"),))
    assert got["stand_in"] is True
    np.testing.assert_allclose(got["value"], np.tanh(x @ wx + h @ wh + b))


@pytest.mark.parametrize("request_, allowed", [
    ({"stand_in": ["rnn_step", "rnn_step"], "args": [], "kwargs": {}}, ()),                       # not installed
    ({"stand_in": ["bptt", "rnn_backward"], "args": [], "kwargs": {}}, (("rnn_step", "rnn_step", "patch"),)),
    ({"stand_in": "rnn_step", "args": [], "kwargs": {}}, (("rnn_step", "rnn_step", "patch"),)),
    ({"stand_in": ["rnn_step", "rnn_step"], "args": {}, "kwargs": {}}, (("rnn_step", "rnn_step", "patch"),)),
])
def test_anything_else_is_refused(answers, request_, allowed):
    got = answer(answers, {"ok": True, **request_}, allowed)
    assert got["error"] == ["RuntimeError", "no such function"]


def test_a_call_the_reference_cannot_bind_falls_back_to_the_students_function(answers):
    got = answer(answers, {"ok": True, "stand_in": ["rnn_step", "rnn_step"], "args": [1, 2], "kwargs": {"scale": 2}},
                 (("rnn_step", "rnn_step", "patch"),))
    assert got == {"stand_in": True, "fallback": True}


def test_huge_arguments_fall_back_and_calls_are_capped(answers):
    big = np.zeros(1 << 19)   # 4 MiB
    got = answer(answers, {"ok": True, "stand_in": ["rnn_step", "rnn_step"], "args": [big, big, big, big, big],
                           "kwargs": {}},
                 (("rnn_step", "rnn_step", "patch"),))
    assert got.get("fallback") is True
    answers.calls = MAX_CALLS
    got = answer(answers, {"ok": True, "stand_in": ["rnn_step", "rnn_step"], "args": [1, 2, 3, 4, 5], "kwargs": {}},
                 (("rnn_step", "rnn_step", "patch"),))
    assert got["error"][0] == "RuntimeError"


def test_a_reference_error_comes_back_as_that_exception(answers):
    got = answer(answers, {"ok": True, "stand_in": ["rnn_step", "rnn_step"],
                           "args": [np.ones((2, 3)), np.ones((2, 4)), np.ones((5, 4)), np.ones((4, 4)), np.ones(4)],
                           "kwargs": {}},
                 (("rnn_step", "rnn_step", "patch"),))
    assert got["error"][0] == "ValueError"


# ---------------------------------------------------------------- red team: asking the reference for oneself

FORGE = '''
import gc as _gc


def _ask(module, func, *args):
    harness = next(o for o in _gc.get_objects() if type(o).__name__ == "Harness")
    return harness.stand_in(module, func, None)(*args)

'''


def test_a_student_cannot_ask_the_reference_for_the_exercise_being_graded(grade, tmp_path):
    """The child's stand-in machinery is reachable from student code; the trusted side answers
    only what the request installed, never the graded exercise's own functions."""
    folder = copy_reference(tmp_path / "forge")
    (folder / "rnn_step.py").write_text(FORGE + "def rnn_step(x_t, h_prev, W_x, W_h, b):\n"
                                        "    return _ask('rnn_step', 'rnn_step', x_t, h_prev, W_x, W_h, b)\n"
                                        "\ndef scalar_rnn(sequence, w_x=1.0, w_h=0.5, b=0.0):\n    return []\n",
                                        encoding="utf-8")
    step = next(e for e in grade(folder, ["scalar", "step"]).exercises if e.id == "step")
    assert step.score == 0, [(c.name, c.passed) for c in step.checks]
    assert "no such function" in " ".join(check_message(c, "en") for c in step.checks)


def test_a_later_exercise_cannot_ask_for_its_own_function_either(grade, no_bias):
    (no_bias / "rnn_forward.py").write_text(FORGE + "def rnn_forward(X, W_x, W_h, b, h0=None):\n"
                                            "    return _ask('rnn_forward', 'rnn_forward', X, W_x, W_h, b, h0)\n",
                                            encoding="utf-8")
    forward = next(e for e in grade(no_bias, ["step", "forward"]).exercises if e.id == "forward")
    assert forward.score == 0


# ---------------------------------------------------------------- however the call is made

def test_the_report_says_which_function_was_stood_in(grade, no_bias):
    result = grade(no_bias)
    forward = next(e for e in result.exercises if e.id == "forward")
    assert [n.key for n in forward.notes] == ["note.stand_in"]
    assert forward.notes[0].params == {"functions": "rnn_step", "exercises": "step"}
    assert "Graded with a correct rnn_step" in forward.notes[0].render("en")
    assert next(e for e in result.exercises if e.id == "step").notes == []
    params = next(e for e in result.exercises if e.id == "params")   # calls no rnn_step: no note
    assert params.notes == []



def test_a_right_function_over_a_wrong_one_is_stood_in_whole(grade, no_bias, monkeypatch):
    """forward keeps its points with a stand-in for rnn_step inside: later exercises then stand in
    rnn_forward itself (one trusted round trip per call instead of one per time step), while a
    function that never leant on a stand-in (softmax) stays the student's. The marks are the same,
    and the note still names the function the student must fix."""
    asked = []
    answer = StandInAnswers.__call__

    def recording(self, module, func, args, kwargs, calling=None):
        asked.append((self.exercise, calling, func))
        return answer(self, module, func, args, kwargs, calling)

    monkeypatch.setattr(StandInAnswers, "__call__", recording)
    result = grade(no_bias, ["step", "forward", "readout", "tinyrnn"])
    assert lost(result) == {"step"}, scores(result)
    tiny = [(calling, func) for exercise, calling, func in asked if exercise == "tinyrnn"]
    assert ("tiny_rnn_forward", "rnn_forward") in tiny
    assert {calling for calling, func in tiny if func == "rnn_step"} == {"sample"}   # its own direct calls
    assert "softmax" not in {func for _, func in tiny}
    note = next(e for e in result.exercises if e.id == "tinyrnn").notes[0]
    assert note.params == {"functions": "rnn_step", "exercises": "step"}


def test_the_note_names_what_a_stood_in_function_leant_on(course):
    answers = StandInAnswers(runtime=None, course=course)
    answers.used = {"tinyrnn": {"rnn_forward", "softmax"}, "forward": {"rnn_step"}}
    answers.leant = {("forward", "rnn_forward"): {"rnn_step"}}
    note = answers.note("tinyrnn", {"forward": {"rnn_forward"}})
    assert note.params == {"functions": "rnn_step, softmax", "exercises": "readout, step"}
    assert answers.note("tinyrnn").params["functions"] == "rnn_forward, softmax"   # forward lost points

@pytest.mark.parametrize("spelling", [
    ("from rnn_step import rnn_step", "h = rnn_step(X[:, t], h, W_x, W_h, b)"),
    ("import rnn_step as step_module", "h = step_module.rnn_step(X[:, t], h, W_x, W_h, b)"),
    ("from rnn_step import rnn_step as cell", "h = cell(X[:, t], h, W_x, W_h, b)"),
])
def test_every_way_of_calling_the_dependency(grade, no_bias, spelling):
    importing, calling = spelling
    edit(no_bias / "rnn_forward.py", "from rnn_step import rnn_step", importing)
    edit(no_bias / "rnn_forward.py", "h = rnn_step(X[:, t], h, W_x, W_h, b)", calling)
    assert lost(grade(no_bias, ["step", "forward"])) == {"step"}


def test_a_dependency_passed_as_a_default_argument_or_closed_over(grade, no_bias):
    edit(no_bias / "rnn_forward.py", "def rnn_forward(X, W_x, W_h, b, h0=None):",
         "def _unroll(step):\n    def run(X, W_x, W_h, b, h0=None, cell=step):\n        return _forward(X, W_x, W_h, b, h0, cell, step)\n"  # noqa: E501 -- the student's code
         "    return run\n\n\ndef _forward(X, W_x, W_h, b, h0, cell, step):\n    assert cell is step\n"
         "    B, T, _ = X.shape\n    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0\n    Hs = np.zeros((B, T, W_h.shape[0]))\n"  # noqa: E501 -- the student's code
         "    for t in range(T):\n        h = cell(X[:, t], h, W_x, W_h, b)\n        Hs[:, t] = h\n    return Hs\n\n\n"
         "rnn_forward = _unroll(rnn_step)\n\n\ndef _unused(X, W_x, W_h, b, h0=None):")
    assert lost(grade(no_bias, ["step", "forward"])) == {"step"}


def test_a_single_file_submission(grade, tmp_path, no_bias):
    """One module holds every function: the stand-in replaces rnn_step in that module's globals."""
    parts = []
    for name in ("rnn_step", "rnn_forward", "param_count", "masking", "readout", "bptt", "gradient_flow", "birnn",
                 "tiny_rnn"):
        text = (no_bias / f"{name}.py").read_text(encoding="utf-8")
        parts.append("\n".join(line for line in text.splitlines() if not line.startswith("from ")))
    single = tmp_path / "all.py"
    single.write_text("\n\n".join(parts), encoding="utf-8")
    result = grade(single)
    assert lost(result) - {"quiz"} == {"step"}, scores(result)


def test_what_a_later_exercise_learns_from_the_reference_never_reaches_the_earlier_one(grade, no_bias):
    """The attack of issue 12: forward's code asks the stand-in for rnn_step on every input it can
    think of and leaves the answers where step's code could look (a file in /tmp, a module global
    of rnn_step, an environment variable); step's rnn_step returns them when it finds any. Step is
    wholly graded (hidden checks included) before any stand-in exists, and each exercise gets a
    fresh child and /tmp: it still loses its points. The same with plain code in one child."""
    with open(no_bias / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\n_wrong = rnn_step\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n"
                 "    import os, pickle\n"
                 "    try:\n        with open('/tmp/answers.pkl', 'rb') as f:\n            return pickle.load(f)[x_t.tobytes()]\n"  # noqa: E501 -- the student's code
                 "    except Exception:\n        pass\n"
                 "    if os.environ.get('STOLEN'):\n        return _wrong(x_t, h_prev, W_x, W_h, b) * 0 + 1\n"
                 "    return _wrong(x_t, h_prev, W_x, W_h, b)\n")
    with open(no_bias / "rnn_forward.py", "a", encoding="utf-8") as fh:
        fh.write("\n_real_forward = rnn_forward\n\ndef rnn_forward(X, W_x, W_h, b, h0=None):\n"
                 "    import os, pickle\n    Hs = _real_forward(X, W_x, W_h, b, h0)\n"
                 "    os.environ['STOLEN'] = '1'\n"
                 "    with open('/tmp/answers.pkl', 'wb') as f:\n"
                 "        pickle.dump({X[:, t].tobytes(): Hs[:, t] for t in range(X.shape[1])}, f)\n"
                 "    return Hs\n")
    result = grade(no_bias, ["step", "forward", "scalar"])
    step = next(e for e in result.exercises if e.id == "step")
    assert step.score < step.max_score and not any(c.passed for c in step.checks if c.name == "matches_reference")
    assert "forward" not in lost(result)


# ------------------------------------------------------------------ bugs only hidden checks see

OVERFLOWING_STEP = (ROOT / "solutions/mistakes/step/manual_tanh_overflow.py").read_text(encoding="utf-8")
OVERFLOWING_FORWARD = (ROOT / "solutions/mistakes/forward/manual_tanh_overflow.py").read_text(encoding="utf-8")


def with_code(folder, file, code):
    with open(folder / file, "a", encoding="utf-8") as fh:
        fh.write("\n\n" + code)
    return folder


def test_a_bug_only_hidden_checks_see_costs_only_its_own_exercise(grade, tmp_path):
    """A hand-written tanh overflowing at pre-activations of 1e3 fails only step's hidden
    tanh_bounds; the hidden extreme-value checks of forward, masking, bptt, truncation and the
    capstone call rnn_step too, and are graded with a correct one."""
    folder = with_code(copy_reference(tmp_path / "s"), "rnn_step.py", OVERFLOWING_STEP)
    result = grade(folder)
    assert lost(result) == {"step"}, scores(result)
    step = next(e for e in result.exercises if e.id == "step")
    assert [c.name for c in step.checks if not c.passed] == ["tanh_bounds"]
    forward = next(e for e in result.exercises if e.id == "forward")
    assert [(n.key, n.params) for n in forward.notes] == [("note.stand_in", {"functions": "rnn_step",
                                                                             "exercises": "step"})]
    folder = with_code(copy_reference(tmp_path / "f"), "rnn_forward.py", OVERFLOWING_FORWARD)
    assert lost(grade(folder)) == {"forward"}


def test_without_hidden_stand_ins_the_hidden_only_bug_cascades(grade, tmp_path, monkeypatch):
    """Proves the test above measures the hidden checks' stand-ins."""
    monkeypatch.setattr(SubmissionRun, "stand_in_hidden_losses", lambda self, exercise, student: False)
    folder = with_code(copy_reference(tmp_path / "s"), "rnn_step.py", OVERFLOWING_STEP)
    assert {"step", "forward", "bptt", "truncation", "tinyrnn"} <= lost(grade(folder))


def test_a_hidden_only_bug_in_one_file_or_without_the_sandbox(grade, tmp_path, course):
    """Plain code in one file shares one child, where every hidden check runs last; without the
    sandbox too: an earlier exercise's hidden checks still run before a later one's."""
    single = tmp_path / "all.py"
    single.write_text(single_file_source() + "\n\n" + OVERFLOWING_STEP, encoding="utf-8")
    assert lost(grade(single)) == {"step"}
    folder = with_code(copy_reference(tmp_path / "s"), "rnn_step.py", OVERFLOWING_STEP)
    with engine.Grader(course, isolation="none", counterexamples=False) as unsandboxed:
        result = unsandboxed.grade(load_submission(folder, tmp_path / "work-none"))
    assert lost(result) == {"step"}, scores(result)


def test_what_a_later_hidden_check_learns_never_reaches_the_exercise_with_the_hidden_bug(grade, tmp_path):
    """The attack of issue 12 where the dependency loses only hidden points: forward's code,
    given a correct rnn_step in its hidden checks, leaves what it learns where step's code could
    look; step's overflowing rnn_step returns it when it finds any. Step is wholly graded before
    any exercise after it runs, in one file (one child, hidden checks last) as in a folder."""
    thief_step = OVERFLOWING_STEP + (
        "\n_overflowing = rnn_step\n\ndef rnn_step(x_t, h_prev, W_x, W_h, b):\n"
        "    import os, pickle\n"
        "    try:\n        with open('/tmp/answers.pkl', 'rb') as f:\n            return pickle.load(f)[x_t.tobytes()]\n"  # noqa: E501 -- the student's code
        "    except Exception:\n        pass\n"
        "    if os.environ.get('STOLEN'):\n        return np.tanh(x_t @ W_x + h_prev @ W_h + b)\n"
        "    return _overflowing(x_t, h_prev, W_x, W_h, b)\n")
    thief_forward = (
        "\n_real_forward = rnn_forward\n\ndef rnn_forward(X, W_x, W_h, b, h0=None):\n"
        "    import os, pickle\n    Hs = _real_forward(X, W_x, W_h, b, h0)\n"
        "    os.environ['STOLEN'] = '1'\n"
        "    with open('/tmp/answers.pkl', 'wb') as f:\n"
        "        pickle.dump({X[:, t].tobytes(): Hs[:, t] for t in range(X.shape[1])}, f)\n"
        "    return Hs\n")
    folder = copy_reference(tmp_path / "thief")
    with_code(folder, "rnn_step.py", thief_step)
    with_code(folder, "rnn_forward.py", thief_forward)
    single = tmp_path / "thief.py"
    single.write_text(single_file_source(folder), encoding="utf-8")
    for submission in (folder, single):
        result = grade(submission, ["step", "forward", "bptt"])
        step = next(e for e in result.exercises if e.id == "step")
        assert [c.name for c in step.checks if not c.passed] == ["tanh_bounds"], scores(result)
        assert lost(result) == {"step"}, scores(result)


def test_every_known_mistake_docks_only_its_own_exercise(grade, course, tmp_path):
    """Issue 12's 'done when', over the whole catalogue: the reference with any one known mistake
    (every variant) loses points in that mistake's exercise and nowhere else. A check whose
    failure reaches other exercises' visible checks (an rnn_step writing into h_prev breaks
    every caller's results) is visible itself, so the stand-ins can act on it."""
    from grader.grading.validate import mistake_folder

    docked = []
    for exercise in course.exercises.values():
        for mistake in exercise.mistakes:
            for i, variant in enumerate(mistake.variants):
                folder = mistake_folder(course, mistake, variant, tmp_path / f"{mistake.id}-{i}")
                others = lost(grade(folder)) - {exercise.id}
                if others:
                    docked.append((mistake.id, i, sorted(others)))
    assert docked == []
