"""A loaded submission as plain data, so it can travel to a machine without the student's files.

``grade class --scheduler`` loads every submission on the client, as a local run does (the
same loader, the same notes), and sends the Dask worker what the loader produced: the files
of its private copy, the notebooks it set aside, and the fields of :class:`Submission`, as
strings, bytes, numbers, lists and dicts only. The worker writes the files into a folder of
its own and grades exactly what a local run would have graded; no shared filesystem.
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.base.i18n import Message
from grader.submission.load import Submission

MiB = 1 << 20
MAX_PACKED_BYTES = 64 * MiB     # the loader keeps far less (1 MiB per source file); this bounds a task


class TooLarge(Exception):
    """The loaded submission is more than one task may carry."""


def pack(submission: Submission) -> dict:
    root = Path(submission.root)
    files, total = {}, 0

    def add(name: str, path: Path) -> None:
        nonlocal total
        size = os.path.getsize(path)
        total += size
        if total > MAX_PACKED_BYTES:
            raise TooLarge(f"the loaded submission holds more than the {MAX_PACKED_BYTES // MiB} MiB "
                           "a cluster task may carry")
        files[name] = path.read_bytes()

    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            add("root/" + path.relative_to(root).as_posix(), path)
    notebooks = []
    for i, (name, real, label) in enumerate(submission.notebooks):
        add(f"set-aside/{i}.ipynb", Path(real))
        notebooks.append((name, f"set-aside/{i}.ipynb", label))
    return {
        "files": files,
        "kind": submission.kind,
        "modules": {m: Path(p).as_posix() for m, p in submission.modules.items()},
        "single_module": submission.single_module,
        "answers_file": _relative(submission.answers_file, root),
        "line_maps": {m: [list(pair) for pair in lines] for m, lines in submission.line_maps.items()},
        "notes": list(submission.notes),
        "display_names": dict(submission.display_names),
        "rejected": {m: _plain(msg) for m, msg in submission.rejected.items()},
        "notebooks": notebooks,
        "messages": [_plain(m) for m in submission.messages],
    }


def unpack(packed: dict, folder: Path, source: str) -> Submission:
    """The submission ``pack`` described, its files written under ``folder`` (fresh, private)."""
    folder = Path(folder)
    for name, data in packed["files"].items():
        target = (folder / name).resolve()
        if not target.is_relative_to(folder.resolve()) or not name.startswith(("root/", "set-aside/")):
            raise ValueError(f"a packed file outside its folder: {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    root = folder / "root"
    root.mkdir(exist_ok=True)
    return Submission(
        source=Path(source), kind=packed["kind"], root=root,
        modules={m: Path(p) for m, p in packed["modules"].items()},
        single_module=packed["single_module"],
        answers_file=root / packed["answers_file"] if packed["answers_file"] is not None else None,
        line_maps={m: [tuple(pair) for pair in lines] for m, lines in packed["line_maps"].items()},
        notes=list(packed["notes"]),
        display_names=dict(packed["display_names"]),
        rejected={m: _message(msg) for m, msg in packed["rejected"].items()},
        notebooks=[(name, folder / file, label) for name, file, label in packed["notebooks"]],
        messages=[_message(m) for m in packed["messages"]],
    )


def _relative(path, root: Path) -> str | None:
    return None if path is None else Path(path).relative_to(root).as_posix()


def _plain(value):
    """A message (whose parameters may be messages) as lists and dicts."""
    if isinstance(value, Message):
        return {"message": value.key, "params": {k: _plain(v) for k, v in value.params.items()}}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _message(value):
    if isinstance(value, dict) and set(value) == {"message", "params"}:
        return Message(value["message"], {k: _message(v) for k, v in value["params"].items()})
    if isinstance(value, list):
        return [_message(v) for v in value]
    return value
