"""Checks from inside Jupyter (CONTRACT section 10)::

    from grader.jupyter import check, check_all
    check("step")            # one exercise; lang="zh" for Chinese
    check_all()              # every exercise of the course

This module runs in the student's kernel, which is the student's process: it only reads the
kernel's input history (``In``, IPython's history manager) and shows the answer. The grading
happens in a trusted process of its own (grader/jupyter/session.py), started on the first
check and kept for the kernel's life (stopped at exit), which owns the sandboxed worker and
keeps it warm; the cells go to it as plain data (JSON lines). So the code graded is the code
this kernel ran, in the order it ran, not the file on disk, and it is graded as ``grade check``
grades the saved notebook.

The answer is displayed in the cell's output: a rich HTML block (``text/html``) with a plain-text
form (``text/plain``, what a terminal IPython shows). After a second without an answer, a
progress line shows which exercise is being graded, and the answer replaces it. Every failure
(no kit, unknown exercise, no sandbox, an endless loop, a cell that raised, the helper gone, an
interrupt) is one line; no traceback of the grader reaches the cell, and the kernel stays usable.

Only the standard library is imported here (IPython when a check runs): the setup cell is cheap.

The wing: this module (the kernel's side), the trusted grading process behind it
(grader/jupyter/session.py) and its HTML block (grader/jupyter/view.py). The session may
import the wings below grading and grading itself; this module imports none of them.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["check", "check_all"]

PROGRESS_AFTER = 1.0          # seconds without an answer before the progress line shows
ANSWER_TIMEOUT = 900.0        # seconds: past this the helper is stopped (the grader's own limits come first)
LANGS = ("en", "zh")

_helper = None


# ---------------------------------------------------------------- the public calls

def check(exercise, lang: str | None = None) -> None:
    """Grade exercise ``exercise`` (its id, e.g. "step") on the code this kernel has run, and
    show the result in the cell's output. ``lang``: "en" or "zh" (default: from the locale,
    as ``grade check``)."""
    if not isinstance(exercise, str) or not exercise.strip():
        _show_line("jupyter.bad_id", lang, example="step")
        return
    _run([exercise.strip()], lang, exercise.strip())


def check_all(lang: str | None = None) -> None:
    """Grade every exercise of the course on the code this kernel has run."""
    _run([], lang, None)


# ---------------------------------------------------------------- one check

def _run(only: list[str], lang: str | None, what: str | None) -> None:
    if lang is not None and lang not in LANGS:
        _show_line("jupyter.bad_lang", None, langs=", ".join(LANGS), given=repr(lang))
        return
    shell = _shell()
    if shell is None:
        _show_line("jupyter.not_ipython", lang)
        return
    request = {"cells": _history(shell), "only": only, "lang": lang, "name": _notebook_name(shell)}
    progress = _Progress(shell, lang, what)
    try:
        reply = _ask(request, progress)
    except KeyboardInterrupt:
        _stop_helper()
        reply = _line_reply("jupyter.interrupted", lang)
    except _HelperGone as gone:
        _stop_helper()
        reply = _line_reply(gone.key, lang, **gone.params)
    except Exception as exc:  # noqa: BLE001 -- one line in the cell, never a grader traceback
        _stop_helper()
        reply = _line_reply("jupyter.internal", lang, error=f"{type(exc).__name__}: {' '.join(str(exc).split())}")
    progress.finish(Feedback(reply))


def _ask(request: dict, progress) -> dict:
    global _helper
    if _helper is None or _helper.poll() is not None:
        _helper = _Helper()
    return _helper.ask(request, progress)


class _HelperGone(Exception):
    def __init__(self, key: str, **params):
        super().__init__(key)
        self.key, self.params = key, params


class _Helper:
    """The grading process (grader/jupyter/session.py), spoken to in JSON lines."""

    def __init__(self):
        self.log = tempfile.TemporaryFile()
        package_parent = str(Path(__file__).resolve().parents[2])   # the folder holding grader/
        # the kernel's folder is not on its path (a student's numpy.py or grader.py there is not imported):
        # only the folder this grader comes from is added, then the interpreter's own paths
        code = ("import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
                f"sys.path.insert(0, {package_parent!r}); "
                "from grader.jupyter.session import main; main()")
        env = dict(os.environ)
        env.pop("PYTHONSTARTUP", None)
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.log, env=env,
                                         start_new_session=True, close_fds=True)
        except OSError as exc:
            raise _HelperGone("jupyter.helper_failed", reason=exc.strerror or str(exc)) from None
        self.buffer = b""
        self.next_id = 0

    def poll(self):
        return self.proc.poll()

    def ask(self, request: dict, progress) -> dict:
        self.next_id += 1
        request = dict(request, id=self.next_id)
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _HelperGone("jupyter.helper_died", reason=self.reason()) from None
        deadline = time.monotonic() + ANSWER_TIMEOUT
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if message.get("id") != self.next_id:
                    continue                 # an answer to an interrupted request
                if "progress" in message:
                    progress.exercise = str(message["progress"])
                    continue
                return message
            now = time.monotonic()
            if now > deadline:
                raise _HelperGone("jupyter.timeout", seconds=int(ANSWER_TIMEOUT))
            ready, _, _ = select.select([fd], [], [], 0.25)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.proc.wait(timeout=5)
                    raise _HelperGone("jupyter.helper_died", reason=self.reason())
                self.buffer += chunk
            progress.tick()

    def reason(self) -> str:
        """The helper's last words (its standard error's last line), or how it ended."""
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - 2000))
            lines = [ln for ln in self.log.read().decode("utf-8", "replace").splitlines() if ln.strip()]
        except OSError:
            lines = []
        code = self.proc.poll()
        ended = f"exit code {code}" if code is not None and code >= 0 else (
            f"signal {-code}" if code is not None else "no answer")
        return f"{lines[-1].strip()[:200]}; {ended}" if lines else ended

    def stop(self, now: bool = False):
        """At the kernel's exit (``now`` False) the helper ends when its stdin closes; after an
        interrupt or a failure it may be grading: SIGTERM, which it turns into a clean exit (its
        worker and temporary folders go with it); SIGKILL if it does not end."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        for signal_it, wait in ((None, 0 if now else 2), (self.proc.terminate, 5), (self.proc.kill, None)):
            if signal_it is not None:
                signal_it()
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:
            self.proc.stdout.close()
        except OSError:
            pass
        self.log.close()


def _stop_helper(now: bool = True):
    global _helper
    helper, _helper = _helper, None
    if helper is not None:
        try:
            helper.stop(now)
        except Exception:  # noqa: BLE001 -- at exit or after a failure: nothing more to do
            pass


atexit.register(_stop_helper, False)


# ---------------------------------------------------------------- the kernel's side

def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _history(shell) -> list[list]:
    """[execution count, raw source] of every cell this kernel ran, in order (``In[n]``)."""
    manager = getattr(shell, "history_manager", None)
    raw = list(getattr(manager, "input_hist_raw", None) or shell.user_ns.get("In") or [])
    return [[n, str(source)] for n, source in enumerate(raw) if n >= 1 and isinstance(source, str)]


def _notebook_name(shell) -> str:
    """The notebook's file name where the front end tells it (Jupyter Server, VS Code), else ""."""
    for value in (shell.user_ns.get("__session__"), shell.user_ns.get("__vsc_ipynb_file__"),
                  os.environ.get("JPY_SESSION_NAME")):
        if isinstance(value, str) and value.lower().endswith(".ipynb"):
            return Path(value).name
    return ""


def _rich(shell) -> bool:
    return getattr(shell, "kernel", None) is not None


def _message(key: str, lang: str | None, **params) -> str:
    from grader.base.i18n import Message, default_language

    return Message(key, params).render(lang or default_language())


def _line_reply(key: str, lang: str | None, **params) -> dict:
    from grader.jupyter.view import line_html

    line = _message(key, lang, **params)
    return {"error": line, "html": line_html(line), "text": line + "\n"}


def _show_line(key: str, lang: str | None, **params) -> None:
    _display(Feedback(_line_reply(key, lang, **params)))


def _display(obj, **kwargs):
    try:
        from IPython.display import display
    except ImportError:          # plain Python without IPython: the text form
        print(repr(obj), flush=True)
        return None
    return display(obj, **kwargs)


class Feedback:
    """What a check shows: ``text/html`` in a notebook, ``text/plain`` elsewhere. ``score`` and
    ``max_score`` as ``grade check --only ID`` gives them (None after an error)."""

    def __init__(self, reply: dict):
        self.html = str(reply.get("html") or "")
        self.text = str(reply.get("text") or "")
        self.error = reply.get("error")
        self.score = reply.get("score")
        self.max_score = reply.get("max_score")

    def _repr_html_(self):
        return self.html

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.text.rstrip("\n"))

    def __repr__(self):
        return self.text.rstrip("\n")


class _ProgressLine:
    def __init__(self, line: str):
        self.line = line

    def _repr_html_(self):
        from grader.jupyter.view import line_html

        return line_html(self.line, failed=False)

    def __repr__(self):
        return self.line


class _Progress:
    """The progress line, shown once the answer takes more than a second; the answer replaces it."""

    def __init__(self, shell, lang, what):
        self.shell, self.lang, self.what = shell, lang, what
        self.start = time.monotonic()
        self.exercise = None
        self.handle = None
        self.shown_at = 0.0
        self.printed = False

    def line(self) -> str:
        what = self.what or self.exercise or _message("jupyter.all_exercises", self.lang)
        if self.what is None and self.exercise:
            what = f"{_message('jupyter.all_exercises', self.lang)} ({self.exercise})"
        return _message("jupyter.grading", self.lang, what=what, seconds=int(time.monotonic() - self.start))

    def tick(self):
        now = time.monotonic()
        if now - self.start < PROGRESS_AFTER or now - self.shown_at < 1.0:
            return
        self.shown_at = now
        try:
            if not _rich(self.shell):
                if not self.printed:
                    print(self.line(), flush=True)
                    self.printed = True
                return
            if self.handle is None:
                self.handle = _display(_ProgressLine(self.line()), display_id=True)
            else:
                self.handle.update(_ProgressLine(self.line()))
        except Exception:  # noqa: BLE001 -- a front end that cannot show it: the answer still comes
            pass

    def finish(self, feedback: Feedback):
        if self.handle is not None:
            try:
                self.handle.update(feedback)
                return
            except Exception:  # noqa: BLE001 -- shown below instead
                pass
        _display(feedback)
