"""`grade check --watch`: the student's terminal loop.

One sandboxed worker (one :class:`grader.grading.engine.Grader`) for the whole session. The submission
folder's files are polled (modification time and size, every ``interval`` seconds: no new
dependency, and it works on every file system); on a change, only the exercises whose file
changed are graded again, with every exercise whose file imports a changed file (directly or
through other files of the submission), and the upstream exercises that lose points (their
functions are stood in for downstream, so a partial regrade gives what a full one would). The
report is redrawn in place (rich: the screen cleared, the text report and a status line
printed). Ctrl-C ends the loop; the Grader is closed, which ends the worker and its sandbox.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

from grader.base.errors import SubmissionError
from grader.grading.grade_path import grade_path
from grader.report.results import SubmissionResult
from grader.submission.forms import ANSWERS_SUFFIXES, SOURCE_SUFFIXES

WATCHED = (*SOURCE_SUFFIXES, *ANSWERS_SUFFIXES)     # grader/submission/forms.py
MAX_FILES = 500


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Each watched file of ``folder`` (its top level, as a submission's) by name: (mtime_ns, size)."""
    state = {}
    try:
        entries = sorted(folder.iterdir())[:MAX_FILES]
    except OSError:
        return state
    for entry in entries:
        if entry.suffix.lower() in WATCHED:
            try:
                info = entry.stat()
            except OSError:
                continue
            state[entry.name] = (info.st_mtime_ns, info.st_size)
    return state


def imports_of(path: Path) -> set[str]:
    """The top-level module names a student file imports (an unparsable file: none)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def dependencies(folder: Path, files: list[str]) -> dict[str, set[str]]:
    """For each .py file of the submission, every other file of it that it imports, transitively."""
    modules = {Path(name).stem: name for name in files if name.endswith(".py")}
    direct = {name: {modules[m] for m in imports_of(folder / name) if m in modules and modules[m] != name}
              for name in modules.values()}
    closed = {}
    for name in direct:
        seen, todo = set(), list(direct[name])
        while todo:
            other = todo.pop()
            if other not in seen:
                seen.add(other)
                todo.extend(direct.get(other, ()))
        closed[name] = seen
    return closed


def affected(course, selected: list, changed: set[str], folder: Path, files: list[str], results: dict) -> list[str]:
    """The ids to grade again after ``changed`` files: those whose file changed or imports a changed
    file, and the upstream exercises (of files they import) that lost points."""
    deps = dependencies(folder, files)
    hit = {e.id for e in selected if e.file in changed or deps.get(e.file, set()) & changed}
    upstream = set()
    for e in selected:
        if e.id in hit:
            for other in selected:
                if other.file in deps.get(e.file, ()) and other.id not in hit:
                    kept = results.get(other.id)
                    if kept is None or kept.score < kept.max_score:
                        upstream.add(other.id)
    return [e.id for e in selected if e.id in hit | upstream]


class Screen:
    """The report redrawn in place (a terminal: the screen cleared first), and a status line."""

    def __init__(self, console=None):
        from rich.console import Console

        self.console = console or Console(highlight=False, soft_wrap=True)

    def draw(self, report: str, status: str) -> None:
        if self.console.is_terminal:
            self.console.clear()
        from rich.text import Text

        self.console.print(Text.from_ansi(report.rstrip("\n")) if self.console.is_terminal else report.rstrip("\n"),
                           markup=False, highlight=False)
        self.console.print(status, markup=False, highlight=False)
        self.console.file.flush()


def watch(path: Path, course, grader, only, lang: str, interval: float = 0.5, verbose: bool = False,
          screen: Screen | None = None, rounds: int | None = None) -> None:
    """Grade ``path`` (a folder) with ``grader``, then again on every change until Ctrl-C (or
    ``rounds`` regrades, for tests)."""
    from grader.report import render

    screen = screen or Screen()
    color = screen.console.is_terminal
    selected = course.select(only)
    results: dict = {}
    base: SubmissionResult | None = None
    state = snapshot(path)
    ids = [e.id for e in selected]
    done = 0
    while True:
        started = time.perf_counter()
        problem = None
        try:
            result = grade_path(path, grader, ids)
        except SubmissionError as exc:
            problem = str(exc)
        else:
            base = result
            for exercise in result.exercises:
                results[exercise.id] = exercise
        if base is not None:
            merged = SubmissionResult(source=base.source, notes=base.notes, isolation=base.isolation,
                                      exercises=[results[e.id] for e in selected if e.id in results])
            report = render(merged, "text", lang, color=color, verbose=verbose, messages=course.messages)
        else:
            report = ""
        took = time.perf_counter() - started
        status = (f"[watch] graded {', '.join(ids)} in {took:.2f} s; "
                  f"watching {path} for changes (Ctrl-C to stop)")
        if problem:
            status = f"[watch] {problem}\n{status}"
        screen.draw(report, status)
        done += 1
        if rounds is not None and done > rounds:
            return
        while True:   # wait for a change
            time.sleep(interval)
            now = snapshot(path)
            if now != state:
                changed = {name for name in set(now) | set(state) if now.get(name) != state.get(name)}
                state = now
                ids = affected(course, selected, changed, path, list(now), results)
                if any(e.is_quiz and e.file in changed for e in selected):
                    ids = list(dict.fromkeys(ids))
                if ids:
                    break
