"""Reports: one module per output format, each a function of the results.

``render(result, fmt, lang, color)`` returns the report as a string;
``write_atomically`` puts it in a file only the trusted process writes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FORMATS = ("text", "json", "junit", "gradescope", "markdown")


def render(result, fmt: str, lang: str, color: bool = False) -> str:
    if fmt == "json":
        from grader.report.json_report import render_json
        return render_json(result, lang)
    if fmt == "markdown":
        from grader.report.markdown import render_markdown
        return render_markdown(result, lang)
    if fmt == "junit":
        from grader.report.junit import render_junit
        return render_junit(result, lang)
    if fmt == "gradescope":
        from grader.report.gradescope import render_gradescope
        return render_gradescope(result, lang)
    from grader.report.text import render_text
    return render_text(result, lang, color=color)


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
