"""The staff's small CSV files (``--submitted-at``, ``--extensions``, ``--roster``): two named
columns read from a file of bounded size, each bad line named in one clear line (exit 2)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from grader.base.errors import BadInput

CSV_LIMIT = 16 << 20       # bytes of one such file


def read_csv_rows(path: Path, columns: tuple[str, str], what: str) -> list[tuple[str, str]]:
    """The (student, value) rows of a CSV with a header naming ``columns`` (case and spaces ignored;
    a BOM, as spreadsheets write, accepted)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(CSV_LIMIT + 1)
    except OSError as exc:
        raise BadInput(f"{what} {path}: {exc.strerror or exc}") from None
    if len(data) > CSV_LIMIT:
        raise BadInput(f"{what} {path}: larger than {CSV_LIMIT >> 20} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"{what} {path}: not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text))
    header = [cell.strip().lower() for cell in next(reader, [])]
    missing = [c for c in columns if c not in header]
    if missing:
        raise BadInput(f"{what} {path}: no column {missing[0]!r} in the header (the columns are "
                       f"{', '.join(columns)})")
    at = [header.index(c) for c in columns]
    rows = []
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(at):
            raise BadInput(f"{what} {path}:{number}: the row has no {columns[1]!r}")
        rows.append((row[at[0]].strip(), row[at[1]].strip()))
    return rows
