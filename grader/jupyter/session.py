"""The trusted grading process behind the in-notebook check (grader/jupyter/__init__.py).

The kernel is the student's process: nothing of the grading may run there. On the first
``check()`` the kernel starts this process (``python -c ... main()``, its own session, so a
kernel interrupt does not reach it) and keeps it for the kernel's life; it owns the course,
the :class:`grader.grading.engine.Grader` and so the sandboxed worker, kept warm between checks.

The wire is plain data, one JSON object a line. The kernel sends
``{"id": N, "cells": [[execution count, source], ...], "only": [ids], "lang": "en"|"zh"|null,
"name": notebook name}``; this process answers ``{"id": N, "progress": exercise}`` while it
grades, then ``{"id": N, "html": ..., "text": ..., "score": ..., "max_score": ...}`` or
``{"id": N, "error": one line, "html": ..., "text": ...}``. It ends when the kernel closes its
stdin (the kernel exited). Its own standard output is the wire alone: anything printed in this
process goes to its standard error.

The cells become a notebook whose cell n is ``In[n]``, graded exactly as ``grade check`` grades
a saved notebook (grader/submission/load.py load_submission, Grader.grade): the same conversion
(magics and ``!shell`` inert, check cells inert: grader/submission/notebook.py inert_checks), sandbox,
checks, stand-ins and marks. Lines are named by execution count, ``cell [7], line 3``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from dataclasses import fields
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.base.i18n import LANGUAGES, Message, default_language
from grader.submission.load import Submission

MAX_NAME = 120


class KernelSubmission(Submission):
    """A submission made of a kernel's input history: its lines are named by execution count."""

    def describe_line(self, module: str, line: int) -> str:
        lmap = self.line_maps.get(module)
        if lmap is not None and 1 <= line <= len(lmap):
            cell, in_cell = lmap[line - 1]
            return f"cell [{cell}], line {in_cell}"
        return super().describe_line(module, line)


def kernel_submission(submission: Submission) -> KernelSubmission:
    return KernelSubmission(**{f.name: getattr(submission, f.name) for f in fields(Submission) if f.init})


def ranges(numbers: list[int]) -> str:
    """[2], [4]-[6], [9]: execution counts, runs shortened."""
    out, start, prev = [], None, None
    for n in numbers + [None]:
        if start is not None and (n is None or n != prev + 1):
            out.append(f"[{start}]" if start == prev else f"[{start}]–[{prev}]")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ", ".join(out)


def notebook_name(name) -> str:
    name = Path(str(name or "")).name[:MAX_NAME]
    return name if name.lower().endswith(".ipynb") and len(name) > 6 else ""


class Session:
    def __init__(self, write):
        self.write = write
        self.course = None
        self.grader = None
        self.warning: Message | None = None

    # ------------------------------------------------------------------ the grader, made once
    def ensure_grader(self):
        if self.grader is not None:
            return
        from grader.course.loader import bundled_course_root, load_course
        from grader.grading.engine import Grader

        course = load_course(bundled_course_root())
        grader = Grader(course, isolation="auto")
        isolation = grader.worker.isolation
        if not isolation.confined:
            self.warning = Message("jupyter.not_sandboxed", reason=isolation.reason)
        elif not isolation.sandboxed:
            self.warning = Message("jupyter.other_confinement", reason=isolation.reason, name=isolation.name)
        self.course, self.grader = course, grader

    def close(self):
        if self.grader is not None:
            self.grader.close()
            self.grader = None

    @property
    def messages(self):
        """The course's catalogue (None, the package's, until the course is loaded)."""
        return self.course.messages if self.course is not None else None

    # ------------------------------------------------------------------ one request
    def handle(self, request: dict) -> dict:
        lang = request.get("lang") or default_language()
        lang = lang if lang in LANGUAGES else "en"
        try:
            return self.grade(request, lang)
        except Exception as exc:  # noqa: BLE001 -- one line in the cell, never a traceback
            from grader.base.errors import BadInput, CourseError, SubmissionError

            traceback.print_exc()
            reason = " ".join(str(exc).split()) or type(exc).__name__
            if isinstance(exc, CourseError) and self.course is None:
                return error(Message("jupyter.no_kit", reason=reason), lang, self.messages)
            if isinstance(exc, (SubmissionError, BadInput)):
                return error(Message("jupyter.bad_submission", reason=reason), lang, self.messages)
            return error(Message("jupyter.internal", error=f"{type(exc).__name__}: {reason}"), lang, self.messages)

    def grade(self, request: dict, lang: str) -> dict:
        import nbformat

        from grader.jupyter.view import html_block, text_block
        from grader.sandbox.isolation import closed_files, students_read_by_permissions
        from grader.submission.load import load_submission
        from grader.report.view import build

        self.ensure_grader()
        only = [str(x) for x in request.get("only") or []]
        unknown = [x for x in only if x not in self.course.exercises]
        if unknown:
            return error(Message("jupyter.unknown_exercise", id=unknown[0], ids=", ".join(self.course.exercises)), lang,
                         self.messages)
        cells = {int(n): str(source) for n, source in request.get("cells") or [] if int(n) >= 1}
        if not cells:
            return error(Message("jupyter.no_cells"), lang, self.messages)
        from grader.submission.notebook import MAX_CODE_CELLS, MAX_CODE_CHARS

        if len(cells) > MAX_CODE_CELLS or sum(map(len, cells.values())) > MAX_CODE_CHARS:
            # a long session re-runs its cells many times: the history outgrows one homework notebook
            return error(Message("jupyter.too_much_code", cells=len(cells)), lang, self.messages)
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        # cell n of the notebook is In[n]: the report's cell numbers are the execution counts
        nb.cells = [nbformat.v4.new_code_cell(cells.get(n, "")) for n in range(1, max(cells) + 1)]
        name = notebook_name(request.get("name")) or self.course.info.notebook or "notebook.ipynb"
        with closed_files(students_read_by_permissions("auto")), \
                temporary_folder("jupyter") as tmp:
            (Path(tmp) / "in").mkdir()
            path = Path(tmp) / "in" / name
            nbformat.write(nb, str(path))
            submission = kernel_submission(load_submission(path, Path(tmp) / "copy"))
            graded = sorted(graded_cells(submission))
            if not graded:
                return error(Message("jupyter.no_cells"), lang, self.messages)
            result = self.grader.grade(submission, only, progress=Told(self.write, request.get("id")))
        result.source = name      # not the temporary copy: the notebook this kernel runs
        view = build(result, lang, self.messages)
        lines = [m.render(lang, self.messages) for m in (self.warning,) if m is not None]
        lines.append(Message("jupyter.graded_cells", cells=ranges(graded) or "—").render(lang, self.messages))
        return {"html": html_block(view, lines), "text": text_block(view, lines),
                "score": result.score, "max_score": result.max_score}


def graded_cells(submission) -> set[int]:
    """The cells with code left once the notebook is converted (check cells and blank ones are not)."""
    try:
        source = (submission.root / submission.modules["submission"]).read_text(encoding="utf-8")
    except (OSError, KeyError, UnicodeDecodeError):
        return set()
    lmap = submission.line_maps.get("submission", [])
    code = set()
    for index, line in enumerate(source.split("\n")[:len(lmap)]):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            code.add(lmap[index][0])
    return code


class Told:
    """Grader.grade's progress: each exercise as it starts, sent to the kernel."""

    def __init__(self, write, request_id):
        self.write, self.id = write, request_id

    def start(self, total):
        pass

    def begin(self, name):
        self.write({"id": self.id, "progress": str(name)})

    def advance(self, name):
        pass


def error(message: Message, lang: str, messages=None) -> dict:
    """``messages``: the course's catalogue (None: the package's, where no course is loaded)."""
    from grader.jupyter.view import line_html

    line = message.render(lang, messages)
    return {"error": line, "html": line_html(line), "text": line + "\n"}


def main() -> None:
    wire = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)                      # a stray print of this process never reaches the wire
    sys.stdout = sys.stderr

    def write(obj: dict) -> None:
        wire.write(json.dumps(obj, ensure_ascii=True) + "\n")
        wire.flush()

    def terminated(signum, frame):
        raise SystemExit(0)          # unwinds: the temporary folders and the worker are cleaned up

    signal.signal(signal.SIGTERM, terminated)
    session = Session(write)
    try:
        for raw in sys.stdin.buffer:
            try:
                request = json.loads(raw)
            except ValueError:
                continue
            reply = session.handle(request)
            reply["id"] = request.get("id")
            write(reply)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        session.close()


if __name__ == "__main__":
    main()
