"""Reports: the results model (``results``, the one type between grading and every output),
the one view built from it (``view``), the rule for showing student text (``escaping``) and
one writer per format, each a thin function of the view. May import: ``grader.base``.

:data:`WRITERS` is the one table of formats, by name: each format's module declares its
:class:`Writer` (how one submission is written, how a class is: ``grade class --format``) as
``WRITER``, and is imported when the format is first used. ``render(result, fmt, lang, color,
messages=...)`` builds the view once, with the course's messages, and returns the report as a
string; ``write_atomically`` puts it in a file only the trusted process writes.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader.report.view import SubmissionView, build


@dataclass(frozen=True)
class Writer:
    """A format's writer, declared as ``WRITER`` by its own module (:data:`WRITER_MODULES`)."""

    one: Callable[..., str]              # (view, **options) -> the report of one submission
    suffix: str                          # of a file holding one report
    many: Callable[..., str] | None = None   # (ClassView) -> the report of a class (None: not a class format)
    colored: bool = False                # ``one`` takes ``color`` (the others are never coloured)


def class_writer(name: str) -> Callable[..., str]:
    """A class's report by grader/report/class_formats.py's function ``name``, imported when first used."""
    def write(class_view):
        from grader.report import class_formats
        return getattr(class_formats, name)(class_view)
    return write


# Each format by name -> its module of grader/report/, which declares its Writer as WRITER; a
# module is imported when its format is first used (`grade check` imports one writer, not all).
WRITER_MODULES = {"text": "text", "json": "json_report", "junit": "junit", "gradescope": "gradescope",
                  "markdown": "markdown", "html": "html"}    # html: feedback files (`grade class --feedback html`)


class _Writers(Mapping):
    def __getitem__(self, fmt: str) -> Writer:
        return importlib.import_module(f"grader.report.{WRITER_MODULES[fmt]}").WRITER

    def __iter__(self):
        return iter(WRITER_MODULES)

    def __len__(self) -> int:
        return len(WRITER_MODULES)


WRITERS: Mapping[str, Writer] = _Writers()
# What `--format` offers (CONTRACT section 5).
FORMATS = ("text", "json", "junit", "gradescope", "markdown")


def render(result, fmt: str, lang: str, color: bool = False, verbose: bool = False, messages=None) -> str:
    """``verbose``: the text report shows every check (``grade check --verbose``); other formats always do.
    ``messages``: the course's catalogue (``Course.messages``; None: the package's)."""
    return render_view(build(result, lang, messages), fmt, color,
                       **({"verbose": True} if verbose and fmt == "text" else {}))


def render_view(view: SubmissionView, fmt: str, color: bool = False, **options) -> str:
    writer = WRITERS[fmt]
    return writer.one(view, **({"color": color} if writer.colored else {}), **options)


def write_atomically(path: Path, content: str) -> None:
    """Write via a temporary file and a rename: readers never see half a report."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def check_message(check, lang: str, messages=None) -> str:
    """The message a report shows for one check (the view decides it), from ``messages`` (the
    course's catalogue; None: the package's)."""
    from grader.report.view import check_view
    return check_view(check, lang, messages).message


def json_data(graded, lang: str, messages=None) -> dict:
    """`grade check --format json`'s object for a whole result, or one check's part of it, in ``lang``
    (its messages from ``messages``, the course's catalogue; None: the package's)."""
    from grader.report.json_report import check_data, report_data
    from grader.report.results import CheckResult
    from grader.report.view import check_view
    if isinstance(graded, CheckResult):
        return check_data(check_view(graded, lang, messages))
    return report_data(build(graded, lang, messages))
