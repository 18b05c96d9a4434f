"""Student text shown as data: the one rule every output uses.

Messages quote student code, exception texts, file and student names; what the
student's code printed is shown too. Control and other non-printable characters
(ANSI codes, NUL, bidi overrides, lone surrogates, XML-illegal U+FFFE) in them
become visible escapes such as ``\\x1b``, so they are never terminal, layout or
markup commands. Each format then escapes its own markup (HTML entities, Markdown
punctuation, XML) on top.
"""

from __future__ import annotations


def visible(raw, keep: str = "\n") -> str:
    """``raw`` with every non-printable character but those in ``keep`` written as an escape;
    ``\\r\\n`` counts as a newline."""
    raw = str(raw).replace("\r\n", "\n")
    if raw.isprintable() or (keep and raw.translate(_DROP[keep]).isprintable()):
        return raw   # the usual case, without a Python loop
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in raw)


def one_line(raw) -> str:
    """Names (students', files', zip entries') as terminal text: one line, every control
    character (newlines included) a visible escape."""
    return visible(raw, keep="")


class _Drop(dict):
    """str.translate tables that delete the characters a caller keeps, one per ``keep``."""

    def __missing__(self, keep):
        table = self[keep] = {ord(c): None for c in keep}
        return table


_DROP = _Drop()


def plain(text, limit: int = 300) -> str:
    """Student-supplied text for a message parameter: one line, control characters visible, bounded."""
    text = str(text)[:limit * 2]
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "..."
