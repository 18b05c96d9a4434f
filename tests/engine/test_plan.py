"""The exercise plans: recorded once on the reference, run in one request per exercise,
taken in order by the checks. Grading with and without them gives the same verdicts."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import copy_reference
from grader.grading.engine import Grader
from grader.grading.plan import Plan, record_plan
from grader.sandbox.client import Worker
from grader.submission.load import load_submission

STUDENTS = {
    "reference": {},
    # wrong in one exercise: its failing checks stop early, later checks must still get their own results
    "missing_bias": {"rnn_step.py": """
        import numpy as np
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            return np.tanh(x_t @ W_x + h_prev @ W_h)
        """},
    # dies on some inputs only: the rest of the plan is not run and later calls go on their own
    "crashes_on_batch_of_two": {"rnn_step.py": """
        import os
        import numpy as np
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            if x_t.shape[0] == 2:
                os._exit(3)
            return np.tanh(x_t @ W_x + h_prev @ W_h + b)
        """},
    # raises on some inputs
    "raises_on_square": {"rnn_step.py": """
        import numpy as np
        def rnn_step(x_t, h_prev, W_x, W_h, b):
            if W_h.shape[0] == W_x.shape[0]:
                raise ValueError("square")
            return np.tanh(x_t @ W_x + h_prev @ W_h + b)
        """},
}


def _folder(tmp_path: Path, name: str) -> Path:
    folder = copy_reference(tmp_path / name)
    for file, text in STUDENTS[name].items():
        (folder / file).write_text(textwrap.dedent(text))
    return folder


def _verdicts(result):
    return {(e.id, c.name): (c.passed, c.score, c.message.key if c.message else None)
            for e in result.exercises for c in e.checks}


@pytest.fixture(scope="module")
def unplanned(course):
    """A grader that never plans: every check's call is its own round trip."""
    with Grader(course, counterexamples=False) as g:
        g.plan = lambda exercise: Plan((), ())
        yield g


@pytest.mark.parametrize("name", list(STUDENTS))
def test_planned_and_unplanned_grading_agree(grader, unplanned, tmp_path, name):
    folder = _folder(tmp_path, name)
    planned = grader.grade(load_submission(folder, tmp_path / "a"), ["step", "scalar", "params"])
    plain = unplanned.grade(load_submission(folder, tmp_path / "b"), ["step", "scalar", "params"])
    assert _verdicts(planned) == _verdicts(plain)
    if name == "reference":
        assert planned.score == planned.max_score
    else:
        assert 0 < planned.exercises[0].score < planned.exercises[0].max_score


def test_a_plan_is_every_shared_call_the_checks_make(grader, course):
    for exercise in course.exercises.values():
        if exercise.is_quiz:
            continue
        plan = record_plan(grader.runtime, exercise, grader.checks)
        assert plan.visible, exercise.id
        assert bool(plan.hidden) == any(spec.hidden for spec in exercise.checks), exercise.id
        plan = plan.visible + plan.hidden
        assert all(step.case.shared for step in plan)
        if any(spec.id == "no_state" for spec in exercise.checks):   # A, then B and A on the same objects
            assert [step.reuse_args for step in plan].count(True) >= 2, exercise.id


def test_a_reference_submission_costs_two_requests_per_exercise(grader, tmp_path, monkeypatch):
    """Visible checks: one request imports the module (after the check that the child is
    clean) and runs their plan; hidden checks, last: the same again."""
    requests = []
    original = Worker.exchange

    def counting(self, message, *args, **kwargs):
        if message is not None:          # None: reading the rest of the replies
            requests.append(message.get("op"))
        return original(self, message, *args, **kwargs)

    grader.grade(load_submission(copy_reference(tmp_path / "warm"), tmp_path / "w0"))
    monkeypatch.setattr(Worker, "exchange", counting)
    result = grader.grade(load_submission(copy_reference(tmp_path / "ref"), tmp_path / "w1"))
    assert result.score == result.max_score
    code = [e for e in grader.course.exercises.values() if not e.is_quiz]
    with_hidden = sum(1 for e in code if any(spec.hidden for spec in e.checks))
    assert requests.count("import") == len(code) + with_hidden
    # and the quiz, when its answers live in a module
    assert len(requests) <= len(code) + with_hidden + 1, [r for r in requests if r != "import"]


LEAKY = """
import numpy as np
SEEN = []

def rnn_step(x_t, h_prev, W_x, W_h, b):
    SEEN.append(x_t.shape)
    import builtins, os
    builtins.__dict__.setdefault("stash", []).append(x_t.shape)
    with open("/tmp/stash", "a") as fh:
        fh.write(repr(x_t.shape))
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)

def scalar_rnn(xs, w_x, w_h, b=0.0, h0=0.0):
    import builtins, os
    print("SEEN", SEEN, getattr(builtins, "stash", None), os.path.exists("/tmp/stash"))
    h, out = float(h0), []
    for x in xs:
        h = float(np.tanh(w_x * x + w_h * h + b))
        out.append(h)
    return out
"""


def test_hidden_inputs_reach_nothing_that_is_shown(grader, tmp_path):
    """The red team's leak: step's calls stashed in a global, builtins or /tmp, printed by scalar.
    Hidden checks run last, and every exercise starts from fresh modules and an empty /tmp."""
    folder = copy_reference(tmp_path / "leaky")
    reference = (folder / "rnn_step.py").read_text()
    (folder / "rnn_step.py").write_text(reference + "\n" + LEAKY)
    result = grader.grade(load_submission(folder, tmp_path / "w"), ["step", "scalar"])
    scalar = result.exercises[1]
    assert "SEEN" in scalar.output
    assert "SEEN []" in scalar.output and "True" not in scalar.output, scalar.output
