"""The JSON report of CONTRACT section 5."""

from __future__ import annotations

import json


def render_json(result, lang: str) -> str:
    return escape_invisible(json.dumps(result.to_json(lang), ensure_ascii=False, indent=2)) + "\n"


def escape_invisible(encoded: str) -> str:
    """JSON text with every character a terminal may act on (DEL, C1 controls such as U+009B,
    bidi overrides, line separators, lone surrogates; json.dumps(ensure_ascii=False) leaves
    them raw) written as a ``\\uXXXX`` escape: the values parse back unchanged. Outside
    strings, json.dumps writes only printable characters and newlines."""
    if encoded.replace("\n", "").isprintable():
        return encoded       # the usual case, without a Python loop
    return "".join(c if c.isprintable() or c == "\n" else _escape(c) for c in encoded)


def _escape(c: str) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000      # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
