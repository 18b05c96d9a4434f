"""Reports: the results model (``results``, the one type between grading and every output),
the one view built from it (``view``), the rule for showing student text (``escaping``) and
one writer per format, each a thin function of the view. May import: ``grader.base``.

:data:`WRITERS` is the one table of formats: for each, how one submission is written and
how a class is (``grade class --format``). ``render(result, fmt, lang, color)`` builds the
view once and returns the report as a string; ``write_atomically`` puts it in a file only
the trusted process writes.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader.report.view import SubmissionView, build


@dataclass(frozen=True)
class Writer:
    one: Callable[..., str]              # (view[, color]) -> the report of one submission
    many: Callable[..., str] | None      # (ClassView) -> the report of a class (None: not a class format)
    suffix: str                          # of a file holding one report


def _text(view, color=False, verbose=False):
    from grader.report.text import render_text
    return render_text(view, color=color, verbose=verbose)


def _json(view, color=False):
    from grader.report.json_report import render_json
    return render_json(view)


def _markdown(view, color=False):
    from grader.report.markdown import render_markdown
    return render_markdown(view)


def _junit(view, color=False):
    from grader.report.junit import render_junit
    return render_junit(view)


def _gradescope(view, color=False):
    from grader.report.gradescope import render_gradescope
    return render_gradescope(view)


def _html(view, color=False, title=""):
    from grader.report.html import render_html
    return render_html(view, title=title)


def _class(name):
    def write(class_view):
        from grader.report import class_formats
        return getattr(class_formats, name)(class_view)
    return write


WRITERS = {
    "text": Writer(_text, _class("text"), ".txt"),
    "json": Writer(_json, _class("json"), ".json"),
    "junit": Writer(_junit, _class("junit"), ".xml"),
    "gradescope": Writer(_gradescope, _class("gradescope"), ".json"),
    "markdown": Writer(_markdown, _class("markdown"), ".md"),
    "html": Writer(_html, None, ".html"),      # feedback files (`grade class --feedback html`)
}
# What `--format` offers (CONTRACT section 5).
FORMATS = ("text", "json", "junit", "gradescope", "markdown")


def render(result, fmt: str, lang: str, color: bool = False, verbose: bool = False) -> str:
    """``verbose``: the text report shows every check (``grade check --verbose``); other formats always do."""
    return render_view(build(result, lang), fmt, color, **({"verbose": True} if verbose and fmt == "text" else {}))


def render_view(view: SubmissionView, fmt: str, color: bool = False, **options) -> str:
    return WRITERS[fmt].one(view, color=color, **options)


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


def check_message(check, lang: str) -> str:
    """The message a report shows for one check (the view decides it)."""
    from grader.report.view import check_view
    return check_view(check, lang).message


def json_data(graded, lang: str) -> dict:
    """`grade check --format json`'s object for a whole result, or one check's part of it, in ``lang``."""
    from grader.report.json_report import check_data, report_data
    from grader.report.results import CheckResult
    from grader.report.view import check_view
    if isinstance(graded, CheckResult):
        return check_data(check_view(graded, lang))
    return report_data(build(graded, lang))
