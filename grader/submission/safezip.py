"""Extract a student's .zip without trusting it.

`safe_extract` never writes outside `dest`:

* entries with absolute paths, drive letters or `..` components are skipped
  (with a note), and every target is checked to resolve inside `dest`;
* symbolic links and device/FIFO/socket entries (Unix mode in
  `external_attr`) are skipped (with a note); nothing is ever created as a
  link, and files are created with O_EXCL so an existing link is never
  followed;
* `__MACOSX/` and `.DS_Store` are ignored silently.

Limits (a breach raises `SubmissionError`): at most 2000 entries, 50 MiB
uncompressed in all, 10 MiB per file. Declared sizes are checked first, but
they can lie, so the bytes actually produced by the decompressor are counted
while reading and extraction stops as soon as a cap is passed.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
import zlib
from pathlib import Path

from grader.base.errors import SubmissionError
from grader.base.i18n import Message
from grader.submission.notes import note

MiB = 1024 * 1024
MAX_ENTRIES = 2000
MAX_TOTAL_BYTES = 50 * MiB
MAX_FILE_BYTES = 10 * MiB
_CHUNK = 64 * 1024

_IGNORED_DIRS = {"__MACOSX"}
_IGNORED_FILES = {".DS_Store"}
_DRIVE = re.compile(r"^[A-Za-z]:")


def _mib(n: int) -> str:
    return f"{n / MiB:g} MiB"


def _entry_name(info: zipfile.ZipInfo) -> str:
    """The entry's name, repairing the usual encoding mess.

    Zips made without the UTF-8 flag (Windows Explorer, old tools) store names
    in the creator's code page; zipfile then decodes them as cp437. Try UTF-8
    (macOS, Linux) and GBK (Chinese Windows) before keeping the cp437 text.
    """
    name = info.filename
    if info.flag_bits & 0x800:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    for enc in ("utf-8", "gbk"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            pass
    return name


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def safe_extract(
    zip_path: Path,
    dest: Path,
    *,
    max_entries: int = MAX_ENTRIES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> list[Message]:
    """Extract `zip_path` into `dest` (created if needed); return notes (messages).

    Raises SubmissionError for a corrupt / non-zip file, an encrypted entry,
    or when a limit is exceeded.
    """
    zip_path = Path(zip_path)
    dest = Path(dest)
    label = zip_path.name
    notes: list[Message] = []      # in the student's language (submission.note)

    try:
        zf = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile as exc:
        raise SubmissionError(f"corrupt zip {label}: {exc}") from None
    except (OSError, EOFError, ValueError) as exc:
        raise SubmissionError(f"corrupt zip {label}: {exc}") from None

    with zf:
        try:
            infos = zf.infolist()
        except Exception as exc:  # pragma: no cover - defensive
            raise SubmissionError(f"corrupt zip {label}: {exc}") from None
        if len(infos) > max_entries:
            raise SubmissionError(
                f"zip {label} has {len(infos)} entries; at most {max_entries} are accepted"
            )

        dest.mkdir(parents=True, exist_ok=True)
        dest_real = os.path.realpath(dest)

        # Decide what to extract, and check the declared sizes up front.
        plan: list[tuple[zipfile.ZipInfo, list[str], str, bool]] = []
        declared_total = 0
        seen: set[tuple[str, ...]] = set()
        for info in infos:
            name = _entry_name(info)
            shown = name
            name = name.replace("\\", "/")
            if "\x00" in name:
                notes.append(note("note.zip_invalid_name", entry=repr(shown)))
                continue
            if name.startswith("/") or _DRIVE.match(name):
                notes.append(note("note.zip_absolute", entry=shown))
                continue
            parts = [p for p in name.split("/") if p not in ("", ".")]
            if ".." in parts:
                notes.append(note("note.zip_outside", entry=shown))
                continue
            if not parts:
                continue
            if any(p in _IGNORED_DIRS for p in parts) or parts[-1] in _IGNORED_FILES:
                continue

            mode = (info.external_attr >> 16) & 0xFFFF
            ftype = stat.S_IFMT(mode)
            is_dir = info.is_dir() or ftype == stat.S_IFDIR
            if ftype and ftype not in (stat.S_IFREG, stat.S_IFDIR):
                notes.append(note("note.zip_link" if stat.S_ISLNK(mode) else "note.zip_special", entry=shown))
                continue
            if not is_dir and info.flag_bits & 0x1:
                raise SubmissionError(
                    f"zip {label}: entry {shown} is password-protected; zip it without a password"
                )
            key = tuple(parts)
            if key in seen:
                notes.append(note("note.zip_twice", entry=shown))
                continue
            seen.add(key)
            if not is_dir:
                if info.file_size > max_file_bytes:
                    raise SubmissionError(
                        f"zip {label}: entry {shown} is larger than {_mib(max_file_bytes)}"
                    )
                declared_total += info.file_size
                if declared_total > max_total_bytes:
                    raise SubmissionError(
                        f"zip {label} unpacks to more than {_mib(max_total_bytes)}"
                    )
            plan.append((info, parts, shown, is_dir))

        total = 0
        for info, parts, shown, is_dir in plan:
            target = os.path.join(dest_real, *parts)
            parent = target if is_dir else os.path.dirname(target)
            try:
                os.makedirs(parent, exist_ok=True)
            except OSError as exc:
                notes.append(note("note.zip_not_created", entry=shown, reason=str(exc.strerror)))
                continue
            if not _inside(os.path.realpath(parent), dest_real):  # pragma: no cover - defensive
                notes.append(note("note.zip_lands_outside", entry=shown))
                continue
            if is_dir:
                continue
            try:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except OSError as exc:
                notes.append(note("note.zip_not_created", entry=shown, reason=str(exc.strerror)))
                continue
            written = 0
            ok = False
            try:
                with os.fdopen(fd, "wb") as out, zf.open(info) as src:
                    while True:
                        chunk = src.read(_CHUNK)
                        if not chunk:
                            break
                        written += len(chunk)
                        total += len(chunk)
                        if written > max_file_bytes:
                            raise SubmissionError(
                                f"zip {label}: entry {shown} unpacks to more than {_mib(max_file_bytes)}"
                            )
                        if total > max_total_bytes:
                            raise SubmissionError(
                                f"zip {label} unpacks to more than {_mib(max_total_bytes)}"
                            )
                        out.write(chunk)
                ok = True
            except SubmissionError:
                raise
            except RuntimeError as exc:  # encryption and similar
                raise SubmissionError(f"zip {label}: entry {shown}: {exc}") from None
            except NotImplementedError as exc:
                raise SubmissionError(
                    f"zip {label}: entry {shown} uses an unsupported compression method ({exc})"
                ) from None
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                raise SubmissionError(f"corrupt zip {label}: entry {shown}: {exc}") from None
            finally:
                if not ok:
                    try:
                        os.unlink(target)
                    except OSError:
                        pass
    return notes
