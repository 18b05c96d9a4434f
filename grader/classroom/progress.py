"""A progress bar with an ETA, on a terminal only (rich): students of `grade class`, exercises
of `grade check` (whose exercise under way shows while it runs: an endless loop is not silence)."""

from __future__ import annotations

import sys

from typing import TYPE_CHECKING

from grader.report.escaping import visible

if TYPE_CHECKING:   # rich is imported only when a bar is drawn: `grade check` off a terminal never needs it
    from rich.console import Console


class _Quiet:
    def start(self, total):
        pass

    def begin(self, name):
        pass

    def advance(self, student):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Bar(_Quiet):
    def __init__(self, console: Console | None = None):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 console=console or Console(file=sys.stderr), transient=True)
        self.task = None

    def start(self, total):
        self.task = self.progress.add_task("grading", total=total)

    def begin(self, name):
        """``name`` is being graded now (the bar advances when it is done)."""
        if self.task is not None:
            self.progress.update(self.task, description=f"grading {label(name)}")

    def advance(self, student):
        if self.task is not None:
            self.progress.update(self.task, advance=1, description=f"grading {label(student)}")

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)


def label(student: str) -> str:
    """A student name as the bar shows it: escapes visible, never rich markup (a name like
    ``[/]`` would stop the run), short."""
    from rich.markup import escape

    return escape(visible(student, keep="")[:24])


def make_progress(console: Console | None = None):
    """A bar on stderr when it is a terminal (or on ``console``), else nothing."""
    if console is not None:
        return _Bar(console)
    return _Bar() if sys.stderr.isatty() else _Quiet()
