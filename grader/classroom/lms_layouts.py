"""What an LMS hands over, grouped into one entry per student (``grade class DIR_OR_ZIP``).

``grade class`` takes a class's submissions as the LMS's bulk download gives them: a folder,
or the zip itself (unpacked with grader/submission/safezip.py, with limits fit for a class). Each layout
below recognises its own download and groups its files by student: the LMS's own id is the
key, the display name is kept beside it, the original file names are restored, the time
the layout carries is read, and every file that matches no student is listed (never
dropped). docs/instructors.md ("LMS downloads") says where each convention comes from.

* ``canvas``: "Download Submissions" is one zip of loose files named
  ``name[_LATE]_userid_attachmentid_original`` (``LATE_anon_ID_attachmentid_original`` when
  the assignment is anonymous; ``name_userid_text.html`` / ``_link.html`` for text and URL
  entries). ``name`` is the sortable name, lower-cased, every non-word character removed.
  A file the student uploaded again carries ``-1``, ``-2`` before its extension.
* ``moodle``: "Download all submissions": ``Full Name_participantid_assignsubmission_file_``
  folders (the default since Moodle 3.1), or the flat variant with the file name appended.
* ``gradescope``: "Export Submissions": ``submission_metadata.yml`` names each
  ``submission_ID`` folder's submitters and its time.
* ``classroom``: GitHub Classroom's repositories, ``assignment-username`` each.
* ``nbgrader``: ``submitted/<student>/<assignment>/`` with ``timestamp.txt``.
* ``folders``: a folder (or ``.py``, ``.ipynb``, ``.zip``) per student, as always.
* ``regex:PATTERN``: a named regular expression (``student``, ``file``, optional ``time``)
  matched against each file's path inside DIR, like nbgrader's ``zip_collect``.

The download itself (DIR or the zip unpacked, the students' files staged under their
restored names) and the printed grouping are grader/classroom/lms_download.py.

Why one file of this size: it is the one table of what ``grade class`` recognises. Each
layout is a small recogniser and grouper over the same few helpers (walking a download
without following links, hidden names, times, the single submission file); one file per
layout would spread that table, and what detection weighs against what, over seven files.

Nothing here runs student code or trusts a name: every path stays inside DIR, symbolic
links are never followed, and names are shown as visible text by the caller.
"""

from __future__ import annotations

import csv
import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from grader.base.errors import BadInput
from grader.base.i18n import Message
from grader.submission.forms import ANSWERS_NAMES, is_submission_file
from grader.submission.notes import note
from grader.classroom.times import parse_time

LAYOUTS = ("auto", "canvas", "moodle", "gradescope", "classroom", "nbgrader", "folders")
SYSTEM_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini", "__MACOSX"}
# A class's download is larger than one student's zip (grader/submission/safezip.py's defaults).
CLASS_ZIP_LIMITS = {"max_entries": 100_000, "max_total_bytes": 2 << 30, "max_file_bytes": 64 << 20}


@dataclass
class SubmissionTime:
    """When a student handed in, as far as the download says."""

    at: str | None          # ISO 8601 (with its offset where the source gives one), or None: no time
    source: str             # where it was read: "Canvas LATE marker", "nbgrader timestamp.txt", ...
    precision: str          # what it is worth: "seconds", "minutes", "none: late or not only", ...
    late: bool | None = None    # what the LMS itself said (Canvas), where it says it


@dataclass
class StudentFiles:
    """One student (or one group submission) of a download."""

    id: str                                  # the LMS's id: the gradebook's key
    name: str                                # the display name, as the LMS wrote it
    files: dict[str, Path] = field(default_factory=dict)   # restored relative name -> file in the download
    folder: Path | None = None               # a folder of the download graded as it is (no renaming needed)
    time: SubmissionTime | None = None
    notes: list[Message] = field(default_factory=list)     # for this student's feedback
    members: list[tuple[str, str]] = field(default_factory=list)   # more (id, name): a group submission
    email: str = ""
    emails: dict[str, str] = field(default_factory=dict)   # every member's e-mail (Gradescope), by id
    submission: str = ""                     # the LMS's own submission id, where it has one

    def file_count(self) -> int:
        if self.folder is not None and self.folder.is_file():     # a plain folder's .py, .ipynb or .zip entry
            return 1
        if self.folder is not None:
            return sum(1 for p in self.folder.rglob("*") if p.is_file() and not p.is_symlink()
                       and not _hidden(p.relative_to(self.folder)))
        return len(self.files)


@dataclass
class Grouping:
    layout: str
    root: Path                                # the folder the layout was read from
    students: list[StudentFiles]
    unmatched: list[tuple[str, str]]          # (path inside the download, why)
    remarks: list[str] = field(default_factory=list)   # about the whole download (e.g. what its times are worth)


# ---------------------------------------------------------------- helpers

def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part in SYSTEM_NAMES for part in relative.parts)


def _walk(root: Path):
    """Every regular file under ``root`` (no symbolic link followed), sorted, as (relative posix path, path)."""
    out = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            out.append((path.relative_to(root).as_posix(), path))
        for name in dirs:
            path = Path(folder) / name
            if path.is_symlink():
                out.append((path.relative_to(root).as_posix(), path))
    return out


def _unmatched_reason(relative: str, path: Path, why: str) -> str:
    if path.is_symlink():
        return "a symbolic link"
    if _hidden(Path(relative)):
        from grader.classroom.gradebook import SYSTEM_ENTRY
        return SYSTEM_ENTRY
    return why


def _time_precision(raw: str) -> str:
    """What a time as written is worth: "sub-second", "seconds", "minutes" or "days"."""
    match = re.search(r"\d{1,2}:\d\d(:\d\d(\.\d+)?)?", raw)
    if not match:
        return "days"
    return "sub-second" if match.group(2) else "seconds" if match.group(1) else "minutes"


def _lone_folder(root: Path) -> Path | None:
    entries = [p for p in root.iterdir() if not _hidden(Path(p.name))]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() else None


def _descend(root: Path, layout: str) -> tuple[Path, str]:
    """(the folder the download lies in, its layout): an unpacked download often holds one
    folder holding everything, so a layout not found in ``root`` is looked for in that folder."""
    current = root
    for _ in range(3):
        chosen = detect(current)
        if chosen != "folders" and layout in ("auto", chosen):
            return current, chosen
        inner = _lone_folder(current)
        if inner is None:
            break
        current = inner
    return (root, "folders") if layout == "auto" else (root, layout)


def _single_gradable(files: dict[str, Path]) -> str | None:
    """The one file that is a whole submission (a .py, .ipynb or .zip), when it is the only gradable file."""
    gradable = [name for name in files if is_submission_file(name)]
    relevant = [name for name in files if is_submission_file(name) or Path(name).name.lower() in ANSWERS_NAMES]
    if len(gradable) == 1 and len(relevant) == 1 and "/" not in gradable[0]:
        return gradable[0]
    return None


# ---------------------------------------------------------------- Canvas

# name[_LATE]_userid_attachmentid_original (canvas-lms lib/content_zipper.rb: get_filename,
# add_upload_submission; the name is the sortable name, lower-cased, non-word characters removed).
# The name part is taken as it comes (a folder unpacked by a tool that did not decode UTF-8 holds other bytes).
CANVAS_FILE = re.compile(r"^(?:(?P<name>[^/]*?)_)??(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<att>\d+)_(?P<file>.+)$",
                         re.DOTALL)
CANVAS_ANON = re.compile(r"^(?:(?P<late>LATE)_)?(?P<uid>anon_[A-Za-z0-9]+)_(?P<att>\d+)_(?P<file>.+)$", re.DOTALL)
CANVAS_TEXT = re.compile(r"^(?:(?P<name>[^/]*?)_)??(?:(?P<late>LATE)_)?(?P<uid>\d+|anon_[A-Za-z0-9]+)"
                         r"_(?P<file>text\.html|link\.html)$", re.DOTALL)
# Canvas makes a name unique with -1, -2 ... before the extension (Attachment.make_unique_filename).
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<n>[1-9]\d*)(?P<ext>(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*)?$",
                         re.DOTALL)


def canvas_match(name: str) -> dict | None:
    for pattern in (CANVAS_ANON, CANVAS_FILE, CANVAS_TEXT):     # an upload named text.html is an upload
        match = pattern.match(name)
        if match:
            found = match.groupdict()
            found.setdefault("name", None)
            found.setdefault("att", "0")
            return found
    return None


def restored_name(name: str) -> tuple[str, int]:
    """(the name without Canvas's ``-N``, N) -- N is 0 for a name without one."""
    match = RESUBMITTED.match(name)
    if not match:
        return name, 0
    return match["stem"] + (match["ext"] or ""), int(match["n"])


def group_canvas(root: Path, times: dict) -> Grouping:
    students: dict[str, StudentFiles] = {}
    versions: dict[str, dict[str, list]] = {}
    unmatched, late_of = [], {}
    for relative, path in _walk(root):
        found = canvas_match(relative) if "/" not in relative and not path.is_symlink() else None
        if found is None or _hidden(Path(relative)):
            unmatched.append((relative, _unmatched_reason(relative, path, "not named as Canvas names a submission")))
            continue
        uid = found["uid"]
        student = students.setdefault(uid, StudentFiles(uid, found["name"] or uid))
        late_of[uid] = late_of.get(uid, False) or bool(found["late"])
        original, number = restored_name(found["file"])
        versions.setdefault(uid, {}).setdefault(original, []).append((int(found["att"]), number, found["file"], path))
    for uid, student in students.items():
        for original, uploads in sorted(versions[uid].items()):
            uploads.sort()
            _, _, latest_name, latest = uploads[-1]
            student.files[original] = latest
            if len(uploads) > 1:
                student.notes.append(note("note.lms_resubmitted", file=original, used=latest_name,
                                          count=len(uploads), names=", ".join(u[2] for u in uploads)))
            elif latest_name != original:
                student.notes.append(note("note.lms_renamed", file=latest_name, name=original))
        student.time = SubmissionTime(None, "Canvas LATE marker", "none: late or not only", late=late_of[uid])
    remarks = ["Canvas's file names carry no submission time, only a LATE marker: "
               "give times with --submitted-at where the late policy needs them"]
    return Grouping("canvas", root, sorted(students.values(), key=lambda s: s.id), unmatched, remarks)


def looks_canvas(root: Path) -> int:
    names = [p.name for p in root.iterdir() if p.is_file() and not _hidden(Path(p.name))]
    return sum(1 for n in names if canvas_match(n)) if names else 0


# ---------------------------------------------------------------- Moodle

# mod/assign/locallib.php download_submissions: clean_filename(fullname . '_' . uniqueid) . '_'
# . 'assignsubmission' . '_' . plugin . '_' (a folder), or with the file name appended (flat).
MOODLE = re.compile(r"^(?P<name>.*?)_(?P<uid>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)$", re.DOTALL)
MOODLE_WORKSHEET_ID = "Identifier"
MOODLE_WORKSHEET_TIME = "Last modified (submission)"
MOODLE_TIME_FORMATS = ("%A, %d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M", "%d %B %Y, %I:%M %p", "%d/%m/%Y, %H:%M")


def group_moodle(root: Path, times: dict) -> Grouping:
    students: dict[str, StudentFiles] = {}
    unmatched = []
    for relative, path in _walk(root):
        top, _, inside = relative.partition("/")
        match = MOODLE.match(top) if not path.is_symlink() and not _hidden(Path(relative)) else None
        if match is None or (inside and match["rest"]) or (not inside and not match["rest"]):
            if relative.lower().endswith(".csv") and "/" not in relative and _worksheet_rows(path) is not None:
                continue          # the grading worksheet: read below for times
            unmatched.append((relative, _unmatched_reason(relative, path, "not named as Moodle names a submission")))
            continue
        uid = match["uid"]
        student = students.setdefault(uid, StudentFiles(uid, match["name"]))
        name = inside or match["rest"]
        if name in student.files:
            unmatched.append((relative, f"a second file {name} for participant {uid}"))
            continue
        student.files[name] = path
    remarks = _moodle_times(root, students, times)
    return Grouping("moodle", root, sorted(students.values(), key=lambda s: int(s.id)), unmatched, remarks)


def _worksheet_rows(path: Path) -> list[dict] | None:
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    if not rows or MOODLE_WORKSHEET_ID not in rows[0] or MOODLE_WORKSHEET_TIME not in rows[0]:
        return None
    return rows


def _moodle_times(root: Path, students: dict, times: dict) -> list[str]:
    worksheet = {}
    for path in sorted(root.glob("*.csv")):
        for row in _worksheet_rows(path) or []:
            ident = re.sub(r"\D", "", row.get(MOODLE_WORKSHEET_ID) or "")
            worksheet[ident] = ((row.get(MOODLE_WORKSHEET_TIME) or "").strip(),
                                (row.get("Email address") or "").strip())
    for uid, student in students.items():
        stamp, student.email = worksheet.get(uid, ("", ""))
        at = _moodle_time(stamp)
        if at is not None:
            student.time = SubmissionTime(at, "Moodle grading worksheet", "minutes, the worksheet's time zone")
            continue
        stamps = [times[str(p.relative_to(root).as_posix())] for p in student.files.values()
                  if p.relative_to(root).as_posix() in times]
        if stamps:
            student.time = SubmissionTime(max(stamps), "zip entry times of Moodle's download",
                                          "2 seconds, no time zone (local time of Moodle's server)")
    if worksheet:
        return ["times from Moodle's grading worksheet (to the minute)"]
    if times:
        return ["times from the zip's entries (Moodle's upload times, 2-second steps, no time zone); "
                "a grading worksheet CSV in the download gives them to the minute"]
    return ["an unpacked Moodle download carries no submission time: grade the zip itself, "
            "or put Moodle's grading worksheet CSV beside the folders"]


def _moodle_time(text: str) -> str | None:
    if not text or text == "-":
        return None
    for fmt in MOODLE_TIME_FORMATS:
        try:
            return _dt.datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    return parse_time(text)


def looks_moodle(root: Path) -> int:
    return sum(1 for p in root.iterdir() if MOODLE.match(p.name))


# ---------------------------------------------------------------- Gradescope

class _RubyTolerantLoader(yaml.SafeLoader):
    """Gradescope's YAML is written by Ruby: ``!ruby/object:BigDecimal`` and the like become plain values."""


def _ruby_value(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


_RubyTolerantLoader.add_multi_constructor("!ruby/", _ruby_value)
_RubyTolerantLoader.add_multi_constructor("!", _ruby_value)


def _symbol(record: dict, key: str):
    """Gradescope's keys are Ruby symbols: ``:name`` (or plain ``name`` in hand-made files)."""
    for candidate in (f":{key}", key):
        if candidate in record:
            return record[candidate]
    return None


def group_gradescope(root: Path, times: dict) -> Grouping:
    meta_path = root / "submission_metadata.yml"
    try:
        meta = yaml.load(meta_path.read_text(encoding="utf-8"), Loader=_RubyTolerantLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BadInput(f"{meta_path}: not a readable Gradescope submission_metadata.yml ({exc})") from None
    if not isinstance(meta, dict):
        raise BadInput(f"{meta_path}: not a Gradescope submission_metadata.yml (no submissions in it)")
    students, unmatched, used = [], [], set()
    for folder_name, record in sorted(meta.items(), key=lambda kv: str(kv[0])):
        folder = root / str(folder_name)
        if not isinstance(record, dict) or not folder.is_dir() or folder.is_symlink():
            continue
        submitters = [s for s in (_symbol(record, "submitters") or []) if isinstance(s, dict)]
        people = []
        for person in submitters:
            sid = str(_symbol(person, "sid") or "").strip()
            email = str(_symbol(person, "email") or "").strip()
            name = str(_symbol(person, "name") or "").strip()
            key = sid or email or name
            if key:
                people.append((key, name or key, email))
        if not people:
            continue
        used.add(folder.name)
        created = _symbol(record, "created_at")
        at = created.isoformat() if isinstance(created, _dt.datetime) else parse_time(str(created or ""))
        first, *others = people
        student = StudentFiles(first[0], first[1], folder=folder, email=first[2],
                               submission=str(folder_name).removeprefix("submission_"),
                               members=[(key, name) for key, name, _ in others],
                               emails={key: email for key, _, email in people})
        if at:
            student.time = SubmissionTime(at, "Gradescope submission_metadata.yml", _time_precision(str(created)))
        students.append(student)
    for path in sorted(root.iterdir()):
        if path.name == meta_path.name or path.name in used:
            continue
        files = [path] if not path.is_dir() or path.is_symlink() else [p for _, p in _walk(path)]
        for file in files:
            relative = file.relative_to(root).as_posix()
            unmatched.append((relative, _unmatched_reason(relative, file, "not a submission that "
                                                          "submission_metadata.yml names")))
    return Grouping("gradescope", root, students, unmatched,
                    ["times from submission_metadata.yml (Gradescope's created_at, with its offset)"])


# ---------------------------------------------------------------- GitHub Classroom

def _classroom_prefix(names: list[str]) -> str:
    prefix = os.path.commonprefix(names) if len(names) > 1 else ""
    return prefix[:prefix.rfind("-") + 1] if "-" in prefix else ""


def group_classroom(root: Path, times: dict) -> Grouping:
    folders = [p for p in sorted(root.iterdir()) if p.is_dir() and not p.is_symlink() and not _hidden(Path(p.name))]
    prefix = _classroom_prefix([p.name for p in folders])
    students, unmatched = [], []
    for path in sorted(root.iterdir()):
        relative = path.name
        if path in folders and (prefix or len(folders) == 1) and path.name != prefix:
            username = path.name[len(prefix):] if prefix else path.name.split("-", 1)[-1]
            students.append(StudentFiles(username, username, folder=path))
        else:
            unmatched.append((relative, _unmatched_reason(relative, path, "not an assignment-username repository")))
    remarks = ["GitHub Classroom repositories: commit dates are set by whoever commits, so no time is read; "
               "give times with --submitted-at"]
    if prefix:
        remarks.insert(0, f"repositories of the assignment {prefix.rstrip('-')!r}")
    return Grouping("classroom", root, students, unmatched, remarks)


def looks_classroom(root: Path) -> bool:
    folders = [p for p in root.iterdir() if p.is_dir() and not _hidden(Path(p.name))]
    return (len(folders) >= 2 and bool(_classroom_prefix([p.name for p in folders]))
            and all((p / ".git").exists() for p in folders))


# ---------------------------------------------------------------- nbgrader

def _nbgrader_root(root: Path) -> Path | None:
    if (root / "submitted").is_dir():
        return root / "submitted"
    folders = [p for p in root.iterdir() if p.is_dir() and not _hidden(Path(p.name))]
    if folders and all(any((a / "timestamp.txt").is_file() for a in f.iterdir() if a.is_dir()) for f in folders):
        return root
    return None


def read_timestamp(folder: Path, source: str) -> tuple[SubmissionTime | None, Message | None]:
    """``folder/timestamp.txt`` (nbgrader's convention, CONTRACT section 11), and a note if it is unreadable."""
    path = folder / "timestamp.txt"
    if not path.is_file() or path.is_symlink():
        return None, None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:200]
    except OSError:
        text = ""
    first = text.strip().splitlines()[0] if text.strip() else ""
    at = parse_time(first)
    if at is None:
        return None, note("note.lms_bad_timestamp", text=text.strip()[:60])
    return SubmissionTime(at, source, _time_precision(first)), None


def group_nbgrader(root: Path, times: dict) -> Grouping:
    submitted = _nbgrader_root(root)
    if submitted is None:
        raise BadInput(f"{root}: not an nbgrader course folder (no submitted/<student>/<assignment>/)")
    assignments = sorted({a.name for s in submitted.iterdir() if s.is_dir() and not s.is_symlink()
                          for a in s.iterdir() if a.is_dir() and not a.is_symlink() and not _hidden(Path(a.name))})
    if len(assignments) > 1:
        raise BadInput(f"{submitted}: several nbgrader assignments ({', '.join(assignments)}); "
                       "grade one at a time (a folder holding only that assignment's submissions)")
    students, unmatched = [], []
    for student_dir in sorted(submitted.iterdir()):
        relative = student_dir.relative_to(root).as_posix()
        folder = student_dir / assignments[0] if assignments else None
        if student_dir.is_symlink() or not student_dir.is_dir() or folder is None or not folder.is_dir() \
                or _hidden(Path(student_dir.name)):
            unmatched.append((relative, _unmatched_reason(relative, student_dir, "no assignment folder inside")))
            continue
        student = StudentFiles(student_dir.name, student_dir.name, folder=folder)
        student.time, problem = read_timestamp(folder, "nbgrader timestamp.txt")
        if problem is not None:
            student.notes.append(problem)
        students.append(student)
    remark = f"nbgrader assignment {assignments[0]!r}" if assignments else "no nbgrader assignment found"
    return Grouping("nbgrader", root, students, unmatched,
                    [remark + "; times from each timestamp.txt (as precise as it is written)"])


# ---------------------------------------------------------------- plain folders

def group_folders(root: Path, times: dict) -> Grouping:
    """Today's rule (grader/classroom/class_run.py: find_entries): each entry of DIR is one student."""
    from grader.classroom.class_run import find_entries

    entries, skipped = find_entries(root)
    students = []
    for entry in entries:
        student = StudentFiles(entry.student, entry.student, folder=entry.path)
        if entry.path.is_dir():
            student.time, problem = read_timestamp(entry.path, "timestamp.txt")
            if problem is not None:
                student.notes.append(problem)
        students.append(student)
    return Grouping("folders", root, students, list(skipped))


# ---------------------------------------------------------------- regex:PATTERN

REGEX_ALIASES = {"student": ("student", "student_id"), "file": ("file", "file_id", "notebook_id"),
                 "time": ("time", "timestamp")}


def compile_pattern(pattern: str) -> re.Pattern:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise BadInput(f"--layout regex: not a regular expression ({exc})") from None
    names = set(compiled.groupindex)
    for group in ("student", "file"):
        if not names & set(REGEX_ALIASES[group]):
            raise BadInput(f"--layout regex: the pattern has no named group (?P<{group}>...)")
    return compiled


def _group(match: re.Match, group: str) -> str | None:
    for name in REGEX_ALIASES[group]:
        if name in match.re.groupindex and match[name] is not None:
            return match[name]
    return None


def group_regex(root: Path, times: dict, pattern: re.Pattern) -> Grouping:
    students: dict[str, StudentFiles] = {}
    versions: dict[str, dict[str, list]] = {}
    unmatched = []
    for relative, path in _walk(root):
        match = pattern.match(relative) if not path.is_symlink() and not _hidden(Path(relative)) else None
        student_id = _group(match, "student") if match else None
        file = _group(match, "file") if match else None
        if not student_id or not file:
            unmatched.append((relative, _unmatched_reason(relative, path, "the pattern does not match it")))
            continue
        if not Path(file).suffix and Path(relative).suffix:
            file += Path(relative).suffix          # nbgrader's file_id may leave the extension out
        file = "/".join(part for part in file.replace("\\", "/").split("/") if part not in ("", ".", ".."))
        if not file:
            unmatched.append((relative, "the pattern's file group leaves no usable file name"))
            continue
        stamp = _group(match, "time")
        at = parse_time(stamp) if stamp else None
        student = students.setdefault(student_id, StudentFiles(student_id, student_id))
        versions.setdefault(student_id, {}).setdefault(file, []).append((at or "", relative, path, stamp or ""))
        if stamp and at is None:
            student.notes.append(note("note.lms_bad_timestamp", text=stamp[:60]))
    for student_id, student in students.items():
        latest_times = []
        for file, uploads in sorted(versions[student_id].items()):
            uploads.sort()
            at, latest_name, latest, stamp = uploads[-1]
            student.files[file] = latest
            if at:
                latest_times.append((at, stamp))
            if len(uploads) > 1:
                student.notes.append(note("note.lms_resubmitted", file=file, used=latest_name, count=len(uploads),
                                          names=", ".join(u[1] for u in uploads)))
        if latest_times:
            latest, stamp = max(latest_times)
            student.time = SubmissionTime(latest, "the pattern's time group", _time_precision(stamp))
    return Grouping("regex", root, sorted(students.values(), key=lambda s: s.id), unmatched)


# ---------------------------------------------------------------- detection and the table

LAYOUT_TABLE = {
    "canvas": group_canvas,
    "moodle": group_moodle,
    "gradescope": group_gradescope,
    "classroom": group_classroom,
    "nbgrader": group_nbgrader,
    "folders": group_folders,
}


def detect(root: Path) -> str:
    """The layout of the download in ``root`` (after descending into a lone folder)."""
    if (root / "submission_metadata.yml").is_file():
        return "gradescope"
    if _nbgrader_root(root) is not None:
        return "nbgrader"
    entries = [p for p in root.iterdir() if not _hidden(Path(p.name))]
    if entries:
        canvas, moodle = looks_canvas(root), looks_moodle(root)
        if canvas and canvas * 2 >= len(entries) and canvas >= moodle:
            return "canvas"
        if moodle and moodle * 2 >= len(entries):
            return "moodle"
    if looks_classroom(root):
        return "classroom"
    return "folders"


def check_layout(layout: str) -> str:
    if layout in LAYOUTS:
        return layout
    if layout.startswith("regex:"):
        compile_pattern(layout[len("regex:"):])
        return layout
    raise BadInput(f"--layout {layout!r}: choose one of {', '.join(LAYOUTS)} or regex:PATTERN")


def group(root: Path, layout: str = "auto", times: dict | None = None) -> Grouping:
    """The students of the download unpacked (or found) in ``root``; ``times``: zip entry times by path."""
    times = times or {}
    layout = check_layout(layout)
    if layout.startswith("regex:"):
        return group_regex(root, times, compile_pattern(layout[len("regex:"):]))
    if layout == "folders":
        return group_folders(root, times)       # exactly as always: DIR itself, no descending
    inner, chosen = _descend(root, layout)
    if chosen == "folders":
        return group_folders(root, times)
    if inner != root:       # zip times are keyed by the path inside the zip
        prefix = inner.relative_to(root).as_posix() + "/"
        times = {name[len(prefix):]: at for name, at in times.items() if name.startswith(prefix)}
    if chosen == "gradescope" and not (inner / "submission_metadata.yml").is_file():
        raise BadInput(f"{root}: no submission_metadata.yml (Gradescope's export names its submitters there)")
    return LAYOUT_TABLE[chosen](inner, times)
