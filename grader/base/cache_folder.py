"""The folder where runs keep what the next run can reuse (drawn counterexample cases, a course's
parsed YAML, the compiled seccomp program, a course run's test vectors and reference results), and
the one way a file is written there.

Where: ``GRADER_CACHE_DIR`` if set (empty: no cache), else ``$XDG_CACHE_HOME/rnn-grader`` or
``~/.cache/rnn-grader``. Everything is plain data (JSON, and raw numeric arrays beside it), owner-only,
written whole or not at all; a reader checks what it reads and computes again on anything else.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def cache_dir() -> Path | None:
    configured = os.environ.get("GRADER_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rnn-grader"


def store_json(path: Path, data) -> None:
    """``data`` kept as JSON in the cache folder (see :func:`store_bytes`)."""
    store_bytes(path, json.dumps(data, separators=(",", ":")).encode("utf-8"))


def store_bytes(path: Path, data: bytes) -> None:
    """``data`` kept in the cache folder, written whole or not at all: a run reading it
    while another writes sees the old file or none. Made by ``mkstemp`` in a 0700 folder, so its
    owner's alone (a submission's uid in the confined fallback reads nothing of it). Nothing is
    kept where the folder cannot be written (a read-only home): the next run computes again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".kept-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
