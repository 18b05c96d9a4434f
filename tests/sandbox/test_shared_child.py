"""Plain code shares one worker child; anything else keeps a fresh child per exercise.

A submission whose every file passes grader/sandbox/plain_code.py (it cannot leave state outside its
own modules, which every exercise imports afresh) has its exercises graded in one child, as
before issue 10, with process_state's checks between them and every hidden check after every
visible one. Marks are the same either way.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from conftest import copy_reference
from grader.grading import engine
from grader.course.loader import bundled_course_root, load_course
from grader.sandbox.plain_code import shares_one_child
from grader.sandbox.isolation import bwrap_path
from grader.submission.load import load_submission
from grader.grading.validate import mistake_folder
from helpers.sandbox import scores

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


def graded(grader, folder, tmp_path, only=()):
    before = grader.worker.sessions
    result = grader.grade(load_submission(folder, tmp_path / f"work-{uuid.uuid4().hex[:6]}"), only)
    return result, grader.worker.sessions - before


def requests_in_order(monkeypatch):
    from grader.sandbox import client as runner

    seen = []
    original = runner.Worker.exchange

    def exchange(self, message, *args, **kwargs):
        if message is not None and message.get("op") == "import":
            seen.append((message.get("slot"), bool(message.get("fresh", True))))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(runner.Worker, "exchange", exchange)
    return seen


def test_the_reference_is_plain_and_graded_in_one_child(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "ref")
    assert shares_one_child(load_submission(folder, tmp_path / "probe"))
    result, sessions = graded(fast_grader, folder, tmp_path)
    assert result.score == result.max_score
    assert sessions == 1


def test_code_that_could_leave_state_gets_a_fresh_child_per_exercise(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "risky")
    with open(folder / "rnn_step.py", "a", encoding="utf-8") as fh:
        fh.write("\nimport collections\n")
    assert not shares_one_child(load_submission(folder, tmp_path / "probe"))
    result, sessions = graded(fast_grader, folder, tmp_path)
    assert result.score == result.max_score
    code_exercises = [e for e in result.exercises if not fast_grader.course.exercises[e.id].is_quiz]
    assert sessions >= len(code_exercises)


def test_a_file_that_is_not_checked_python_keeps_the_fresh_children(tmp_path):
    # An extension module in the root the worker imports from (loading keeps only the
    # submission's sources, so put it where the worker would find it).
    submission = load_submission(copy_reference(tmp_path / "with-extension"), tmp_path / "probe")
    assert shares_one_child(submission)
    (Path(submission.root) / "helper.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    assert not shares_one_child(submission)


def test_in_one_child_every_hidden_check_comes_after_every_visible_one(fast_grader, tmp_path, monkeypatch):
    seen = requests_in_order(monkeypatch)
    graded(fast_grader, copy_reference(tmp_path / "ref"), tmp_path)
    first_hidden = next(i for i, (_, fresh) in enumerate(seen) if not fresh)
    assert all(not fresh for _, fresh in seen[first_hidden:]), seen


def test_sharing_or_not_gives_the_same_marks(fast_grader, tmp_path, monkeypatch):
    course = load_course(bundled_course_root())
    variants = [(m, v) for e in course.exercises.values() for m in e.mistakes for v in m.variants][::6]
    for mistake, variant in variants:
        folder = mistake_folder(course, mistake, variant, tmp_path / f"{mistake.id}-{variant.stem}")
        monkeypatch.setattr(engine, "shares_one_child", lambda submission: True)
        shared, sessions = graded(fast_grader, folder, tmp_path)
        monkeypatch.setattr(engine, "shares_one_child", lambda submission: False)
        alone, _ = graded(fast_grader, folder, tmp_path)
        assert scores(shared) == scores(alone), mistake.id
        assert [d.id for e in shared.exercises for d in e.diagnoses] == \
            [d.id for e in alone.exercises for d in e.diagnoses], mistake.id
