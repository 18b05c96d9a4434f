"""Times as the people and tools around a class write them (an LMS's export, nbgrader's
``timestamp.txt``, an instructor's ``--deadline``), read into ISO 8601."""

from __future__ import annotations

import datetime as _dt
import re


def parse_time(text: str) -> str | None:
    """An ISO 8601 time (a space instead of ``T``, a trailing ``UTC``/``Z`` zone, more than six
    digits of fraction accepted), or None. nbgrader writes ``2023-02-01 10:11:12.123456 UTC``."""
    text = " ".join(str(text).split())
    if not text:
        return None
    text = re.sub(r"\s*(UTC|GMT|Z)$", "+00:00", text)
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)
    text = re.sub(r"\s+([+-]\d\d:?\d\d)$", r"\1", text)
    try:
        return _dt.datetime.fromisoformat(text).isoformat()
    except ValueError:
        return None
