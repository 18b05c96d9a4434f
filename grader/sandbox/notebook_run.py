"""A notebook's run in the worker, as the trusted side keeps track of it for one submission.

The worker runs a notebook's module cell by cell (grader/sandbox/worker/zygote.py ``run_cells``): a
cell that raises is stopped and the next one runs, as in Jupyter's "run all" with errors
allowed. Time is the trusted side's to keep (grader/sandbox/client.py): each cell announces itself
with a frame, and from then on it has its own budget (``cell_seconds``); the whole run has the
notebook's (``notebook_seconds``). A cell past its budget, or one that ends the child
(``os._exit``, a crash), costs that child: the run starts again in a fresh one without that
cell, and every later run of this submission (each exercise imports the notebook afresh)
leaves it out too, so every exercise is graded on the same namespace and a training loop
costs its budget once, not once per exercise. Where the notebook's budget runs out, the cell
that was running and every cell after it are left out likewise.

``stops`` collects, per cell, why it stopped (the first time it did): the report names each
once, at the top (grader/grading/engine.py), and a function that is missing is traced to the cell
that should have defined it (grader/grading/worker_errors.py).

Only plain data crosses: the spans, the cells left out, and the worker's descriptions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

DEFAULT_CELL_SECONDS = 10.0      # a cell's wall clock (course.yaml ``notebook_cell_seconds``)
DEFAULT_NOTEBOOK_SECONDS = 60.0  # a whole run of the notebook (course.yaml ``notebook_seconds``)
MAX_RERUNS = 8                   # fresh runs of one import after cells that cost the child
MAX_STOPS = 200                  # stopped cells remembered per submission


@dataclass
class NotebookRun:
    spans: list[list[int]]                 # [first line, last line, cell] (grader/submission/notebook.py NotebookCells)
    cell_seconds: float = DEFAULT_CELL_SECONDS
    notebook_seconds: float = DEFAULT_NOTEBOOK_SECONDS
    stops: dict[int, dict] = field(default_factory=dict)   # cell -> why it stopped (first time)
    skip: set[int] = field(default_factory=set)           # cells left out of every later run
    stop_at: int | None = None             # the cell where the notebook's budget ran out

    def request(self) -> dict:
        """What the worker's import request carries for this notebook."""
        message = {"cells": self.spans, "skip": sorted(self.skip)}
        if self.stop_at is not None:
            message["stop_at"] = self.stop_at
        return message

    def state(self) -> tuple:
        """What makes two runs' requests differ (the runner's frame cache key): the cells (another
        submission's notebook has others), those left out, where the notebook's budget ran out."""
        return tuple(map(tuple, self.spans)), tuple(sorted(self.skip)), self.stop_at

    def timeout(self, left: float) -> float:
        """The wall clock of one run: the notebook's budget, within what is left of the submission's."""
        return min(self.notebook_seconds, left)

    def record(self, stopped) -> None:
        """The cells a run reports stopped (each {"cell", "error"}), kept the first time."""
        if type(stopped) is not list:
            return
        for item in stopped:
            if type(item) is dict and type(item.get("cell")) is int and type(item.get("error")) is dict:
                self._stop(item["cell"], item["error"])

    def lost_child(self, cell: int, error: dict, notebook_budget: bool) -> None:
        """The run ended in ``cell``: past its budget (or the notebook's), or the child died."""
        kind = error.get("kind")
        if kind == "timeout" and notebook_budget:
            self.stop_at = cell if self.stop_at is None else min(self.stop_at, cell)
            later = sum(1 for _, _, c in self.spans if c > cell)
            self._stop(cell, {"kind": "notebook_budget", "seconds": self.notebook_seconds, "later": later})
            return
        self.skip.add(cell)
        if kind == "timeout":
            self._stop(cell, {"kind": "cell_budget", "seconds": self.cell_seconds})
        else:
            self._stop(cell, {"kind": "crash", **{k: error[k] for k in ("signal", "exit_code") if k in error}})

    def _stop(self, cell: int, error: dict) -> None:
        if cell not in self.stops and len(self.stops) < MAX_STOPS:
            self.stops[cell] = error

    def ordered(self) -> list[tuple[int, dict]]:
        return sorted(self.stops.items())


class CellClock:
    """The deadline of the reply a notebook's import owes, moved on by each cell's frame."""

    def __init__(self, run: NotebookRun):
        self.run = run
        self.cell: int | None = None          # the cell running now
        self.notebook_budget = False          # whether the deadline now is the notebook's

    def started(self, cell, overall: float) -> float:
        """A cell started (its frame came): the deadline for the next frame."""
        if type(cell) is int:
            self.cell = cell
        end = time.monotonic() + self.run.cell_seconds
        self.notebook_budget = end >= overall
        return min(end, overall)


def notebook_runs(submission, course) -> dict[str, NotebookRun]:
    """A run for each notebook module of ``submission`` (as grader/grading/graded_work.py prepared it),
    with the course's budgets."""
    info = getattr(course, "info", None)
    runs = {}
    for module in submission.line_maps:
        cells = submission.cells(module)
        if cells is None:
            continue
        runs[module] = NotebookRun(cells.wire(),
                                   getattr(info, "notebook_cell_seconds", DEFAULT_CELL_SECONDS),
                                   getattr(info, "notebook_seconds", DEFAULT_NOTEBOOK_SECONDS))
    return runs
