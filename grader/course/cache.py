"""A course's parsed YAML files, kept between runs as plain JSON.

Loading the bundled course parses about 30 YAML files (its exercises and their catalogues of
known mistakes): the largest part of loading a course, on every `grade check`. Parsing depends
only on a file's bytes and PyYAML's version, so what a parse gives is kept in the cache folder
(:func:`grader.base.cache_folder.cache_dir`) under a digest of both, as JSON, and decoded on the next
run instead of parsing again.

Plain data only, never pickle: the encoding below holds strings, numbers, booleans, None,
lists and the line-numbered mappings of grader/course/loader.py (``["d", line, keys, values]``), and
what is read back is checked node by node (types, shapes, depth, size); anything else is
parsed again from the YAML. A file is written whole or not at all (a temporary file renamed)
and made by ``mkstemp``: its owner's alone, as is the folder (0700), so a submission's uid in
the confined fallback cannot read a course's answer key from it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from functools import lru_cache

from grader.base.cache_folder import cache_dir, store_json

VERSION = b"course-yaml-1"
MAX_BYTES = 4 << 20     # a course file larger than this is parsed every run, never kept
MAX_DEPTH = 64


class LineDict(dict):
    """A YAML mapping with the line it starts on (grader/course/loader.py names its errors by line)."""

    line = 0


class _Invalid(Exception):
    pass


def _key(data: bytes) -> str:
    digest = hashlib.sha256(VERSION)
    digest.update(_parser_identity())
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


def encode(value, depth: int = 0):
    """``value`` as JSON-ready plain data; _Invalid when it holds anything else (a date, a set)."""
    if depth > MAX_DEPTH:
        raise _Invalid("too deep")
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if kind is list:
        return ["l", [encode(item, depth + 1) for item in value]]
    if kind in (dict, LineDict):
        keys, values = [], []
        for k, v in value.items():
            if type(k) not in (str, int, float, bool) and k is not None:
                raise _Invalid("a key that is not a scalar")
            keys.append(k)
            values.append(encode(v, depth + 1))
        line = value.line if kind is LineDict else None
        return ["d", line, keys, values]
    raise _Invalid(f"a {kind.__name__}")


def decode(data, depth: int = 0):
    """What :func:`encode` gave, rebuilt; _Invalid on anything it could not have given."""
    if depth > MAX_DEPTH:
        raise _Invalid("too deep")
    kind = type(data)
    if data is None or kind in (str, int, float, bool):
        return data
    if kind is not list or not data:
        raise _Invalid("not a node")
    tag = data[0]
    if tag == "l" and len(data) == 2 and type(data[1]) is list:
        return [decode(item, depth + 1) for item in data[1]]
    if tag == "d" and len(data) == 4 and type(data[2]) is list and type(data[3]) is list \
            and len(data[2]) == len(data[3]):
        line, keys, values = data[1], data[2], data[3]
        for k in keys:
            if type(k) not in (str, int, float, bool) and k is not None:
                raise _Invalid("a key that is not a scalar")
        if line is None:
            return {k: decode(v, depth + 1) for k, v in zip(keys, values)}
        if type(line) is not int or line < 0:
            raise _Invalid("a bad line")
        mapping = LineDict((k, decode(v, depth + 1)) for k, v in zip(keys, values))
        mapping.line = line
        return mapping
    raise _Invalid("an unknown node")


@lru_cache(maxsize=1)
def _parser_identity() -> bytes:
    """Which PyYAML parsed a kept file: its installed files' place, size and time (a stat, where
    importing yaml to read its version costs 30 ms a run that finds everything kept)."""
    spec = importlib.util.find_spec("yaml")
    origin = spec.origin if spec is not None and spec.origin else ""
    try:
        stat = os.stat(origin)
        return f"{origin}:{stat.st_size}:{stat.st_mtime_ns}".encode()
    except OSError:
        return origin.encode()


def cached_parse(data: bytes, parse, kind: str = "yaml"):
    """``parse()``'s result for a file of bytes ``data``: read back from the cache folder when a run
    kept it, else parsed and kept (when it is plain data) for the next run. ``kind`` names the parse
    (a course's YAML with line numbers, a student's answers without aliases): the same bytes parsed
    another way are kept apart."""
    folder = cache_dir()
    if folder is None or len(data) > MAX_BYTES:
        return parse()
    path = folder / f"{kind}-{_key(data)}.json"
    try:
        with open(path, encoding="utf-8") as fh:
            return decode(json.load(fh))
    except (OSError, ValueError, RecursionError, _Invalid):
        pass
    value = parse()
    try:
        encoded = encode(value)
    except _Invalid:
        return value
    store_json(path, encoded)
    return value
