"""`grade check` on a terminal shows which exercise is being graded (issue 13, item 4):
an endless loop in one exercise is no longer silence until the end."""

from __future__ import annotations

import io

from rich.console import Console

from conftest import copy_reference
from grader.classroom.progress import make_progress
from grader.submission.load import load_submission


class Recorder:
    def __init__(self):
        self.events = []

    def start(self, total):
        self.events.append(("start", total))

    def begin(self, name):
        self.events.append(("begin", name))

    def advance(self, name):
        self.events.append(("advance", name))


def test_each_exercise_is_announced_before_it_runs_and_counted_after(grader, tmp_path):
    recorder = Recorder()
    result = grader.grade(load_submission(copy_reference(tmp_path / "ref"), tmp_path / "w"), ["step", "forward"],
                          progress=recorder)
    assert result.score == result.max_score
    assert recorder.events == [("start", 2), ("begin", "step"), ("advance", "step"),
                               ("begin", "forward"), ("advance", "forward")]


def test_the_bar_names_the_exercise_under_way(grader, tmp_path):
    shown = io.StringIO()
    console = Console(file=shown, force_terminal=True, width=100)
    with make_progress(console) as progress:
        seen = []
        original = progress.begin

        def begin(name):
            original(name)
            seen.append(progress.progress.tasks[0].description)
        progress.begin = begin
        grader.grade(load_submission(copy_reference(tmp_path / "ref"), tmp_path / "w"), ["step", "scalar"],
                     progress=progress)
        assert progress.progress.tasks[0].completed == 2 and progress.progress.tasks[0].total == 2
    assert seen == ["grading step", "grading scalar"]


def test_no_bar_when_stderr_is_not_a_terminal(capsys):
    quiet = make_progress()          # pytest's captured stderr is not a terminal
    assert not hasattr(quiet, "progress")
