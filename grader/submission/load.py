"""Load what a student handed in (CONTRACT.md section 2) into a private copy.

`load_submission(path, workdir)` accepts a folder, a single `.py`, a Jupyter
notebook or a `.zip` of any of these, and produces a normalised copy in
`workdir/"submission"` that the worker imports from. The originals are only
ever read.

Decisions worth knowing:

* Folders (and unpacked zips) are "descended" while they hold no `.py`,
  `.ipynb` or `answers.yaml` at the top and exactly one subfolder (students
  often hand in `alice/hw3/...`).
* A folder with `.py` files is a folder submission even when it also holds a
  notebook (the notebook is set aside in `Submission.notebooks`, with a note;
  the grader, which knows the course, grades it instead when the course's
  `.py` files are unchanged stubs: grader/grading/graded_work.py); one with no `.py`
  and exactly one notebook is a notebook submission; several notebooks and no
  `.py` is an error (we would have to guess).
* A zip whose content is exactly one `.py` (and no answers file) is a single
  file ("zip:file"); a plain folder is always a folder submission.
* `answers.yaml`, `answers.yml` (any letter case) at the top level is copied
  as `root/answers.yaml`. Next to a lone notebook it is ignored (with a
  note): per the contract a notebook answers in its `ANSWERS` dict.
* Every copied `.py` / `answers.yaml` is normalised: BOM dropped (UTF-16
  with a BOM converted), CRLF/CR -> LF, decoded as its PEP 263 coding cookie
  says, else UTF-8, else GBK (only when it looks like real Chinese text),
  else latin-1, and written as UTF-8. Nothing else changes, so line numbers
  stay exact.
* Only the encodings students' editors write are accepted in a coding cookie
  (`ACCEPTED_ENCODINGS`: UTF-8, ASCII, latin-1, cp1252, GBK/GB2312/GB18030,
  Big5). Any other (punycode decodes in quadratic time, rot-13 is no text
  encoding, utf-7 hides code) refuses that file only: its copy is a stub that
  fails to import with the reason, `Submission.rejected` holds the message,
  and the other files grade normally.
* The copy is UTF-8 and says so: a cookie on line 1 or 2 naming anything else
  is rewritten to `utf-8` (same line), so the worker, which imports the copy
  with Python's own decoding, reads exactly the text decoded here.
* What is worth telling the student (a folder used, a file skipped, an encoding
  converted) is a note in `Submission.messages`: a :class:`Message`, shown in the
  student's language (:func:`note`, grader/submission/notes.py). At most `MAX_NOTES`
  notes are kept, then one that counts the rest.
* Skipped: hidden files and folders, `__pycache__`, `__MACOSX`,
  `node_modules`, `site-packages`, virtual environments (a `pyvenv.cfg`),
  files over 1 MiB, and symlinks resolving outside the submission.

Why one file of this size: the four forms a submission takes (folder, file, notebook, zip)
end in the same private, normalised copy, and the rules above (which file is which, what is
skipped, how names and encodings are normalised) must hold for all four alike; notebooks,
zips and notes have modules of their own.
"""

from __future__ import annotations

import codecs
import keyword
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from grader.base.errors import SubmissionError
from grader.base.i18n import Message
from grader.submission.forms import ANSWERS_NAMES, NOTEBOOK, NOTHING_TO_GRADE, SOURCE_SUFFIXES, form_of, unsupported
from grader.submission.notes import note, note_text

MiB = 1024 * 1024
MAX_SOURCE_BYTES = 1 * MiB          # per copied .py / answers file
MAX_SCANNED_ENTRIES = 20000         # a folder this big is not a homework submission
MAX_DESCEND = 8
_IGNORED_DIRS = {"__pycache__", "__MACOSX", "node_modules", "site-packages"}
_IGNORED_FILES = {"Thumbs.db", "desktop.ini"}
MAX_NOTES = 20                      # notes kept for the report; the rest are only counted


@dataclass
class Submission:
    source: Path                 # what the user gave
    kind: str                    # "folder" | "file" | "notebook" | "zip:folder" | "zip:file" | "zip:notebook"
    root: Path                   # a private normalised copy inside `workdir`; the worker imports from here
    modules: dict[str, Path]     # module name -> file (relative to root) of every importable student .py
    single_module: str | None    # for a single .py or notebook: the module that defines everything
    answers_file: Path | None    # folder submissions: root/answers.yaml if present
    # notebooks: module -> per line (index = line-1) its (cell 1-based, line in cell)
    line_maps: dict[str, list[tuple[int, int]]]
    # plain-text notes, shown as they are (the loader's own are keyed, in messages)
    notes: list[str] = field(default_factory=list)
    display_names: dict[str, str] = field(default_factory=dict)  # module -> the file name the student knows
    # module -> why its file was refused (its exercises fail with it)
    rejected: dict[str, Message] = field(default_factory=dict)
    # folders: the top-level notebooks set aside for the .py files, as (name, file to read, label for
    # messages); grader/grading/graded_work.py grades one instead where the .py files are unchanged stubs
    notebooks: list[tuple[str, Path, str]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)        # keyed notes for the report, in the student's language
    _cells: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def cells(self, module: str):
        """A notebook module's cells as the worker runs them (grader/submission/notebook.py NotebookCells),
        read from the private copy once; None for a module that is not a notebook."""
        if module not in self.line_maps:
            return None
        if module not in self._cells:
            from grader.submission.notebook import notebook_cells

            try:
                source = (self.root / self.modules[module]).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError, KeyError):
                source = ""
            self._cells[module] = notebook_cells(source, self.line_maps[module])
        return self._cells[module]

    def note_texts(self, lang: str = "en") -> list[str]:
        """The notes as the report shows them in ``lang``."""
        return [m.render(lang) for m in (*self.messages, *(Message("note.submission", text=n) for n in self.notes))]

    def module_for(self, filename: str) -> str | None:
        """The module that should define the functions of student file `filename` (e.g. "layers.py").

        Folder -> "layers" if layers.py exists (an unambiguous letter-case
        variant such as Layers.PY also counts) else None; single file or
        notebook -> single_module.
        """
        if self.single_module is not None:
            return self.single_module
        stem = Path(filename).stem if filename.endswith(".py") else filename
        if stem in self.modules:
            return stem
        folded = [m for m in self.modules if m.lower() == stem.lower()]
        return folded[0] if len(folded) == 1 else None

    def file_of(self, filename: str) -> str:
        """The file the student handed in that should hold course file `filename`: the single
        .py or notebook's own name ("homework.ipynb"), else `filename` as the folder spells it."""
        module = self.module_for(filename)
        return filename if module is None else self._display(module)

    def describe_line(self, module: str, line: int) -> str:
        """'layers.py, line 12' or for notebooks 'homework.ipynb, cell 4, line 2'."""
        lmap = self.line_maps.get(module)
        if lmap is not None:
            name = self.display_names.get(module)
            shown = f"{name}, cell" if name else "notebook cell"
            if 1 <= line <= len(lmap):
                cell, in_cell = lmap[line - 1]
                return f"{shown} {cell}, line {in_cell}"
            return f"{name or 'notebook'}, line {line}"
        return f"{self._display(module)}, line {line}"

    def describe_path(self, path: str | Path, line: int) -> str:
        """Like describe_line, from a file path (e.g. a traceback's filename)."""
        try:
            real = Path(path).resolve()
            rel = real.relative_to(self.root.resolve())
        except (OSError, ValueError):
            return f"{Path(path).name}, line {line}"
        for module, file in self.modules.items():
            if Path(file) == rel:
                return self.describe_line(module, line)
        return f"{rel.as_posix()}, line {line}"

    def _display(self, module: str) -> str:
        if module in self.display_names:
            return self.display_names[module]
        if module in self.modules:
            return Path(self.modules[module]).as_posix()
        return module.replace(".", "/") + ".py"


# ---------------------------------------------------------------------------
# entry point

def load_submission(path: Path, workdir: Path) -> Submission:
    """Load and normalise a submission (see the module docstring)."""
    try:
        submission = _load_submission(path, workdir)
    except RecursionError:
        raise SubmissionError(f"{path}: folders or code nested too deeply to be a submission") from None
    except MemoryError:
        raise SubmissionError(f"{path}: too large to load") from None
    submission.messages = capped_notes(submission.messages)
    return submission


def capped_notes(notes: list[Message], limit: int = MAX_NOTES) -> list[Message]:
    """The first `limit` notes and one counting the rest: a report stays readable and small."""
    if len(notes) <= limit:
        return notes
    return notes[:limit] + [note("note.more_notes", count=len(notes) - limit)]


def _load_submission(path: Path, workdir: Path) -> Submission:
    source = Path(path)
    shown = str(path)
    if not source.exists():
        raise SubmissionError(f"no such file or folder: {shown}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    root = workdir / "submission"
    unzipped = workdir / "unzipped"
    real_source = os.path.realpath(source)
    for private in (root, unzipped):
        if _inside(real_source, os.path.realpath(private)):
            raise ValueError(f"the submission {shown} lies inside the grader's work folder {private}")
    _fresh_dir(root)

    if source.is_dir():
        skip = {os.path.realpath(workdir)}
        return _load_content(source, Path(real_source), root, source, "", [], skip, shown)

    if not source.is_file():
        raise SubmissionError(f"{shown} is not a regular file or folder")
    form = form_of(source)
    if form is None:
        raise SubmissionError(unsupported(source.suffix, shown))
    return globals()[form.loader](source, shown, root, unzipped)     # grader/submission/forms.py FORMS


# ---------------------------------------------------------------------------
# one file handed in (the loaders of grader/submission/forms.py FORMS)

def _load_py_file(source: Path, shown: str, root: Path, unzipped: Path) -> Submission:
    notes: list[Message] = []
    refused: dict[str, Message] = {}
    data = _read_single(source, shown)
    _write_source(data, root / "submission.py", source.name, notes, refused, python=True)
    return Submission(
        source=source, kind="file", root=root,
        modules={"submission": Path("submission.py")}, single_module="submission",
        answers_file=None, line_maps={}, messages=notes,
        display_names={"submission": source.name}, rejected=_by_module(refused, {"submission": source.name}),
    )


def _load_notebook_file(source: Path, shown: str, root: Path, unzipped: Path) -> Submission:
    return _load_notebook(source, source.name, shown, root, source, "notebook", [], None)


def _load_zip_file(source: Path, shown: str, root: Path, unzipped: Path) -> Submission:
    from grader.submission.safezip import safe_extract

    _fresh_dir(unzipped)
    notes = safe_extract(source, unzipped)
    return _load_content(unzipped, Path(os.path.realpath(unzipped)), root, source, "zip:", notes,
                         set(), f"zip {source.name}")


# ---------------------------------------------------------------------------
# folders (and unpacked zips)

def _load_content(top: Path, boundary: Path, root: Path, source: Path, prefix: str,
                  notes: list[Message], skip: set[str], shown: str) -> Submission:
    """Classify the content of folder `top` and copy it into `root`."""
    boundary_real = str(boundary)
    folder = top
    rel_prefix = ""
    for _ in range(MAX_DESCEND):
        files, dirs = _list_top(folder, boundary_real, skip)
        if any(_is_relevant(f.name) for f in files) or len(dirs) != 1:
            break
        folder = dirs[0]
        rel_prefix += folder.name + "/"
    if rel_prefix:
        notes.append(note("note.used_folder", folder=rel_prefix.rstrip("/")))

    entries = _walk(folder, boundary_real, skip, notes, shown)
    py = [(rel, real) for rel, real in entries if rel.endswith(".py")]
    top_py = [(rel, real) for rel, real in py if "/" not in rel]
    notebooks = [(rel, real) for rel, real in entries if "/" not in rel and rel.lower().endswith(NOTEBOOK)]
    answers = _pick_answers([(rel, real) for rel, real in entries if "/" not in rel], notes)

    if not py:
        if len(notebooks) == 1:
            rel, real = notebooks[0]
            if answers is not None:
                # CONTRACT section 2: a notebook answers the quiz in its ANSWERS dict
                notes.append(note("note.answers_beside_notebook", file=answers[0]))
            label = f"{rel} (in {shown})" if prefix else str(Path(shown) / rel_prefix / rel)
            return _load_notebook(real, rel, label, root, source, prefix + "notebook", notes, None)
        if len(notebooks) > 1:
            names = ", ".join(sorted(rel for rel, _ in notebooks))
            raise SubmissionError(f"{shown} holds several notebooks ({names}) and no .py file; hand in one")
        if answers is None:
            raise SubmissionError(f"nothing to grade in {shown}: "
                                  + _why_empty(notes, NOTHING_TO_GRADE))

    refused: dict[str, Message] = {}
    if prefix == "zip:" and len(py) == 1 and len(top_py) == 1 and answers is None:
        rel, real = top_py[0]
        for nb_rel, _ in notebooks:
            notes.append(note("note.notebook_beside_py", notebook=nb_rel))
        _copy_source(real, root / "submission.py", rel, notes, python=True, refused=refused)
        return Submission(
            source=source, kind="zip:file", root=root,
            modules={"submission": Path("submission.py")}, single_module="submission",
            answers_file=None, line_maps={}, messages=notes, display_names={"submission": rel},
            rejected=_by_module(refused, {"submission": rel}),
        )

    for nb_rel, _ in notebooks:
        notes.append(set_aside_note(nb_rel))
    modules: dict[str, Path] = {}
    display: dict[str, str] = {}
    for rel, real in py:
        if not _copy_source(real, root / rel, rel, notes, python=True, refused=refused):
            continue
        if rel in dict(top_py):
            stem = rel[:-3]
            if stem.isidentifier() and not keyword.iskeyword(stem):
                modules[stem] = Path(rel)
                display[stem] = rel
            else:
                notes.append(note("note.bad_module_name", file=rel))
    answers_file = _copy_answers(answers, root, notes) if answers is not None else None
    if not modules and answers_file is None:
        if not top_py:
            deeper = ", ".join(rel for rel, _ in py[:3]) + (", ..." if len(py) > 3 else "")
            default = f"no .py file at the top level (found {deeper})"
        else:
            default = "no usable .py file"
        raise SubmissionError(f"nothing to grade in {shown}: " + _why_empty(notes, default))
    return Submission(
        source=source, kind=prefix + "folder", root=root, modules=modules, single_module=None,
        answers_file=answers_file, line_maps={}, messages=notes, display_names=display,
        rejected=_by_module(refused, display),
        notebooks=[(rel, real, f"{rel} (in {shown})" if prefix else str(Path(shown) / rel_prefix / rel))
                   for rel, real in notebooks],
    )


def set_aside_note(notebook: str) -> Message:
    """The note of a folder's notebook that is not graded because its .py files are."""
    return note("note.notebook_set_aside", notebook=notebook)


def _by_module(refused: dict[str, Message], display: dict[str, str]) -> dict[str, Message]:
    """The refusals (keyed by file) of the files that are graded modules, keyed by module."""
    return {module: refused[rel] for module, rel in display.items() if rel in refused}


def _load_notebook(nb_path: Path, name: str, label: str, root: Path, source: Path, kind: str,
                   notes: list[Message], answers_file: Path | None) -> Submission:
    """`name`: the notebook as the student knows it; `label`: how error messages name it."""
    from grader.submission.notebook import notebook_to_module

    converted = notebook_to_module(nb_path, label)
    # a cell's coding cookie on line 1 or 2 would make the worker decode the UTF-8 copy otherwise
    (root / "submission.py").write_text(declare_utf8(converted.source), encoding="utf-8", newline="\n")
    return Submission(
        source=source, kind=kind, root=root,
        modules={"submission": Path("submission.py")}, single_module="submission",
        answers_file=answers_file, line_maps={"submission": converted.line_map},
        messages=notes + converted.notes, display_names={"submission": name},
    )


def _why_empty(notes: list[Message], default: str) -> str:
    if not notes:
        return default
    return "; ".join(note_text(n) for n in notes[:3]) + ("; ..." if len(notes) > 3 else "")


def _is_relevant(name: str) -> bool:
    low = name.lower()
    return low.endswith(SOURCE_SUFFIXES) or low in ANSWERS_NAMES


def _ignored(name: str) -> bool:
    return name.startswith(".") or name in _IGNORED_DIRS or name in _IGNORED_FILES


def _list_top(folder: Path, boundary: str, skip: set[str]) -> tuple[list[Path], list[Path]]:
    """Regular files and folders directly in `folder` that matter (symlinks inside the boundary followed)."""
    files: list[Path] = []
    dirs: list[Path] = []
    try:
        it = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise SubmissionError(f"cannot read folder {folder}: {exc.strerror}") from None
    folder_real = os.path.realpath(folder)
    for entry in it:
        if _ignored(entry.name):
            continue
        link = entry.is_symlink()
        real = os.path.realpath(entry.path) if link else os.path.join(folder_real, entry.name)
        if link and not _inside(real, boundary):
            continue
        if real in skip:
            continue
        if os.path.isdir(real):
            if not _is_venv(real):
                dirs.append(Path(entry.path))
        elif os.path.isfile(real):
            files.append(Path(entry.path))
    return files, dirs


def _is_venv(path: str) -> bool:
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


MAX_DEPTH = 32   # folder nesting a submission may have


def _walk(folder: Path, boundary: str, skip: set[str], notes: list[Message], shown: str) -> list[tuple[str, Path]]:
    """All regular files under `folder` as (posix path relative to folder, real path to read)."""
    result: list[tuple[str, Path]] = []
    count = 0

    def visit(directory: str, rel: str, ancestors: frozenset[str]) -> None:
        nonlocal count
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            notes.append(note("note.unreadable", path=rel or ".", reason=str(exc.strerror)))
            return
        for entry in entries:
            count += 1
            if count > MAX_SCANNED_ENTRIES:
                raise SubmissionError(
                    f"{shown} holds more than {MAX_SCANNED_ENTRIES} files and folders; "
                    f"is it really one submission?")
            name = entry.name
            if _ignored(name):
                continue
            relname = rel + name
            link = entry.is_symlink()
            # `directory` is a real path and scandir never names "." or "..": only a link moves
            real = os.path.realpath(entry.path) if link else entry.path
            if real in skip:
                continue
            if link:
                if not _inside(real, boundary):
                    notes.append(note("note.link_outside", path=relname))
                    continue
                if not os.path.exists(real):
                    if _is_relevant(name):
                        notes.append(note("note.broken_link", path=relname))
                    continue
            if os.path.isdir(real):
                if real in ancestors or _is_venv(real):
                    continue
                if len(ancestors) > MAX_DEPTH:
                    notes.append(note("note.too_deep", path=relname, depth=MAX_DEPTH))
                    continue
                visit(real, relname + "/", ancestors | {real})
            elif os.path.isfile(real):
                result.append((relname, Path(real)))

    start = os.path.realpath(folder)
    visit(start, "", frozenset({start}))
    return result


def _pick_answers(top_files: list[tuple[str, Path]], notes: list[Message]) -> tuple[str, Path] | None:
    found = [(rel, real) for rel, real in top_files if rel.lower() in ANSWERS_NAMES]
    if not found:
        return None
    order = {name: i for i, name in enumerate(ANSWERS_NAMES)}     # answers.yaml first
    found.sort(key=lambda item: (order.get(item[0], 2), item[0]))
    for rel, _ in found[1:]:
        notes.append(note("note.answers_duplicate", file=rel, used=found[0][0]))
    return found[0]


def _copy_answers(answers: tuple[str, Path], root: Path, notes: list[Message]) -> Path | None:
    rel, real = answers
    target = root / "answers.yaml"
    if _copy_source(real, target, rel, notes, python=False):
        return target
    return None


# ---------------------------------------------------------------------------
# copying with normalisation

# PEP 263 as CPython's tokenizer reads it: `coding[:=]` in a comment-only line, the name ASCII.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_COOKIE_TEXT = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)

#: Coding cookies accepted (normalised name -> the codec that decodes the file): what students'
#: editors write. UTF-8 (a BOM is dropped before), ASCII, latin-1 and cp1252 (Western Windows),
#: GBK with its subset GB2312 and GB18030 (Chinese Windows; GB2312 is read as GBK, which editors
#: save under that label), Big5 and cp950 (traditional Chinese). Each is ASCII-compatible (a
#: newline stays a newline), decodes bytes to text in linear time, in C. Anything else is refused.
ACCEPTED_ENCODINGS = {
    "utf-8": "utf-8", "utf8": "utf-8", "u8": "utf-8", "utf8-sig": "utf-8", "cp65001": "utf-8",
    "ascii": "ascii", "us-ascii": "ascii", "646": "ascii",
    "latin-1": "latin-1", "latin1": "latin-1", "latin": "latin-1", "l1": "latin-1", "iso-8859-1": "latin-1",
    "iso8859-1": "latin-1", "iso-latin-1": "latin-1", "8859": "latin-1", "cp819": "latin-1",
    "cp1252": "cp1252", "windows-1252": "cp1252",
    "gbk": "gbk", "cp936": "gbk", "936": "gbk", "ms936": "gbk", "windows-936": "gbk",
    "gb2312": "gbk", "euc-cn": "gbk", "euccn": "gbk", "gb2312-1980": "gbk", "gb2312-80": "gbk",
    "gb18030": "gb18030", "gb18030-2000": "gb18030",
    "big5": "big5", "big5-tw": "big5", "csbig5": "big5", "cp950": "cp950", "ms950": "cp950",
}
# CPython reads `utf-8-*` as utf-8 and `latin-1-*` (and its spellings) as latin-1
_ACCEPTED_PREFIXES = (("utf-8-", "utf-8"), ("latin-1-", "latin-1"), ("iso-8859-1-", "latin-1"),
                      ("iso-latin-1-", "latin-1"))
ACCEPTED_SHOWN = "utf-8, ascii, latin-1, cp1252, gbk, gb2312, gb18030, big5"
_MAX_SHOWN_NAME = 40


def accepted_encoding(name: str) -> str | None:
    """The codec for a cookie's encoding name, or None when it is not accepted."""
    key = name.lower().replace("_", "-")
    if key in ACCEPTED_ENCODINGS:
        return ACCEPTED_ENCODINGS[key]
    return next((codec for prefix, codec in _ACCEPTED_PREFIXES if key.startswith(prefix)), None)


@dataclass
class _Cookie:
    name: str          # the encoding name as written
    line: int          # 1 or 2
    text: str          # the whole line, for the message


class UnacceptedEncoding(Exception):
    """A coding cookie names an encoding outside ACCEPTED_ENCODINGS."""

    def __init__(self, cookie: _Cookie):
        super().__init__(cookie.name)
        self.cookie = cookie

    @property
    def shown(self) -> str:
        name = self.cookie.name
        return name if len(name) <= _MAX_SHOWN_NAME else name[:_MAX_SHOWN_NAME] + "..."

    def message(self, rel: str) -> Message:
        return Message("err.source_encoding", file=rel, encoding=self.shown, accepted=ACCEPTED_SHOWN)

    def stub(self, rel: str, filename: str) -> str:
        """The copy of a refused file: it fails to import with the reason, in both languages, so a
        file importing it fails clearly too; the original text is never handed to the worker."""
        short = Message("err.source_encoding_short", file=rel, encoding=self.shown)
        reason = f"{short.render('en')} / {short.render('zh')}"
        where = (filename, self.cookie.line, 1, self.cookie.text[:200])
        return f"raise SyntaxError({reason!r}, {where!r})\n"


def _read_single(path: Path, shown: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise SubmissionError(f"cannot read {shown}: {exc.strerror}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{shown} is larger than 1 MiB; that is not a homework source file")
    return data


def _copy_source(src: Path, dest: Path, rel: str, notes: list[Message], *, python: bool,
                 refused: dict[str, Message] | None = None) -> bool:
    """Copy `src` to `dest`, normalised; False (with a note) if it was skipped."""
    try:
        size = os.stat(src).st_size
        if size > MAX_SOURCE_BYTES:
            notes.append(note("note.too_large", file=rel))
            return False
        with open(src, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        notes.append(note("note.unreadable", path=rel, reason=str(exc.strerror)))
        return False
    if len(data) > MAX_SOURCE_BYTES:
        notes.append(note("note.too_large", file=rel))
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    _write_source(data, dest, rel, notes, {} if refused is None else refused, python=python)
    return True


def _write_source(data: bytes, dest: Path, rel: str, notes: list[Message], refused: dict[str, Message], *,
                  python: bool) -> None:
    """Write the normalised text of `data` to `dest`, or the refusal stub (recorded in `refused`)."""
    try:
        text = normalise_text(data, rel, notes, python=python)
    except UnacceptedEncoding as exc:
        refused[rel] = exc.message(rel)
        notes.append(Message("note.submission", text=exc.message(rel)))
        text = exc.stub(rel, dest.name)
    with open(dest, "wb") as fh:
        fh.write(text.encode("utf-8"))


def _looks_like_gbk(text: str) -> bool:
    """GBK text really written in Chinese: every double-byte char has a high trail byte.

    Latin-1 text mis-decoded as GBK pairs an accented letter with the ASCII
    character after it (a trail byte below 0x80); real Chinese text almost
    never does.
    """
    saw = False
    for ch in text:
        if ord(ch) > 127:
            saw = True
            try:
                raw = ch.encode("gbk")
            except UnicodeEncodeError:
                return False
            if any(b < 0x80 for b in raw):
                return False
    return saw


def normalise_text(data: bytes, rel: str, notes: list[Message], *, python: bool = True) -> str:
    """Decode source bytes and normalise newlines; see the module docstring.

    Raises UnacceptedEncoding for a Python file whose coding cookie names an encoding that is not
    accepted. The text of a Python file declares no encoding but UTF-8, the encoding of its copy.
    """
    text = _decode(data, rel, notes, python=python)
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return declare_utf8(text) if python else text


def _decode(data: bytes, rel: str, notes: list[Message], *, python: bool) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            pass
        else:
            notes.append(note("note.utf16", file=rel))
            return text
    cookie = _coding_cookie(data) if python else None
    if cookie is not None:
        codec = accepted_encoding(cookie.name)
        if codec is None:
            raise UnacceptedEncoding(cookie)
        if codec != "utf-8":
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                pass     # the cookie is wrong about the bytes: guess, as without one
            else:
                notes.append(note("note.converted", file=rel, encoding=cookie.name))
                return text
    return _guess_decoding(data, rel, notes)


def _coding_cookie(data: bytes) -> _Cookie | None:
    """The cookie Python would obey: on line 1, or on line 2 below a blank or comment-only line."""
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n", 2)[:2]
    for number, line in enumerate(lines, start=1):
        m = _COOKIE.match(line)
        if m:
            return _Cookie(m.group(1).decode("ascii"), number, line.decode("latin-1"))
        code = line.lstrip(b" \t\f")
        if code and not code.startswith(b"#"):
            return None
    return None


def _guess_decoding(data: bytes, rel: str, notes: list[Message]) -> str:
    """UTF-8, else GBK when it looks like real Chinese text, else latin-1 (never fails)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        candidate = data.decode("gbk")
    except UnicodeDecodeError:
        candidate = None
    if candidate is not None and _looks_like_gbk(candidate):
        notes.append(note("note.read_as_gbk", file=rel))
        return candidate
    notes.append(note("note.read_as_latin1", file=rel))
    return data.decode("latin-1")


def declare_utf8(text: str) -> str:
    """`text` with every coding cookie of its first two lines saying utf-8 (same line, same count).

    The copy is written as UTF-8 and the worker imports it with Python's own decoding: a cookie
    saying anything else would make it read other text than the one checked here."""
    head = text.split("\n", 2)
    changed = False
    for idx in range(min(2, len(head))):
        m = _COOKIE_TEXT.match(head[idx])
        if m and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            head[idx] = head[idx][:m.start(1)] + "utf-8" + head[idx][m.end(1):]
            changed = True
    return "\n".join(head) if changed else text


# ---------------------------------------------------------------------------
# small helpers

def _inside(path: str, root: str) -> bool:
    root = root.rstrip(os.sep) or os.sep
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def _fresh_dir(path: Path) -> None:
    """Make `path` an empty directory (it is the grader's private folder)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.mkdir(parents=True)
