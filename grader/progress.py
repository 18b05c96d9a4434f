"""A progress bar with an ETA for `grade class`, on a terminal only (rich)."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class _Quiet:
    def start(self, total):
        pass

    def advance(self, student):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Bar(_Quiet):
    def __init__(self):
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 console=Console(file=sys.stderr), transient=True)
        self.task = None

    def start(self, total):
        self.task = self.progress.add_task("grading", total=total)

    def advance(self, student):
        if self.task is not None:
            self.progress.update(self.task, advance=1, description=f"grading {student[:24]}")

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)


def make_progress():
    return _Bar() if sys.stderr.isatty() else _Quiet()
