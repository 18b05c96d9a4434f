"""The download ``grade class`` was given, made ready to grade: DIR, or the zip unpacked with
grader/submission/safezip.py (limits fit for a class, and each entry's time kept: Moodle's only time),
grouped by grader/classroom/lms_layouts.py, each student's files staged under their restored names in a
private folder, and the grouping as printed before grading."""

from __future__ import annotations

import datetime as _dt
import shutil
import zipfile
from pathlib import Path

from grader.base.errors import BadInput, SubmissionError
from grader.submission.forms import is_zip
from grader.submission.notes import note
from grader.classroom.lms_layouts import (CLASS_ZIP_LIMITS, Grouping, StudentFiles, _hidden, _single_gradable, _walk,
                                          group)


class Download:
    """DIR or the zip, unpacked where needed (into ``work``, which the caller makes and removes),
    and the students' files staged under their restored names in ``work/staged``."""

    def __init__(self, source: Path, work: Path):
        self.source = Path(source)
        self.work = Path(work)
        self.times: dict[str, str] = {}
        self.unzip_notes: list = []
        if self.source.is_dir():
            self.root = self.source
        elif self.source.is_file() and is_zip(self.source):
            self.root = self.work / "download"
            self._unzip()
        else:
            raise BadInput(f"no such folder or .zip: {self.source}")

    def _unzip(self) -> None:
        from grader.submission.safezip import _entry_name, safe_extract

        try:
            self.unzip_notes = safe_extract(self.source, self.root, **CLASS_ZIP_LIMITS)
        except SubmissionError as exc:
            raise BadInput(str(exc)) from None
        try:
            with zipfile.ZipFile(self.source) as zf:
                for info in zf.infolist():
                    if not info.is_dir():
                        name = "/".join(p for p in _entry_name(info).replace("\\", "/").split("/") if p)
                        self.times[name] = _dt.datetime(*info.date_time).isoformat()
        except (zipfile.BadZipFile, OSError, ValueError):
            self.times = {}

    def group(self, layout: str) -> Grouping:
        """The students; what the zip held but was not unpacked (a path out of it, a link) is listed too."""
        from grader.submission.notes import note_text

        grouping = group(self.root, layout, self.times)
        for message in self.unzip_notes:
            inner = message.params.get("text")
            entry = inner.params.get("entry", "") if isinstance(inner, type(message)) else ""
            grouping.unmatched.append((str(entry), "not unpacked: " + note_text(message, "en")))
        for student in grouping.students:
            for name in [n for n in student.files if not usable_name(n)]:
                path = student.files.pop(name)
                where = path.relative_to(grouping.root).as_posix() if path.is_relative_to(grouping.root) else name
                grouping.unmatched.append((where, f"not a usable file name ({name!r})"))
        return grouping

    def stage(self, student: StudentFiles, index: int, layout: str) -> Path:
        """The path to grade for ``student``: its folder, its one submission file, or a private
        folder holding its files under their restored names. A folder of the ``folders`` and
        ``classroom`` layouts is graded as the folder it is (as always); in the LMS layouts a
        student whose only submission file is a .py, .ipynb or .zip is graded as that file."""
        if student.folder is not None:
            if layout in ("folders", "classroom"):
                return student.folder
            files = {rel: path for rel, path in _walk(student.folder) if not path.is_symlink()
                     and not _hidden(Path(rel)) and rel != "timestamp.txt"}
            single = _single_gradable(files)
            return files[single] if single else student.folder
        target = self.work / "staged" / str(index)
        target.mkdir(parents=True, exist_ok=True)
        for name, path in student.files.items():
            destination = target / name
            try:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination, follow_symlinks=False)
            except OSError as exc:      # "a" beside "a/b", a file that went away: that file only
                student.notes.append(note("note.unreadable", path=name, reason=exc.strerror or str(exc)))
        single = _single_gradable(student.files)
        return target / single if single else target


def usable_name(name: str) -> bool:
    """A relative name that stays inside the folder it is staged in."""
    parts = name.split("/")
    return bool(name) and all(part not in ("", ".", "..") for part in parts)


def describe(grouping: Grouping) -> list[str]:
    """The grouping as printed before grading: the layout, every student with their files, every unmatched file."""
    from grader.report.escaping import visible

    def shown(raw: str) -> str:     # bytes that are not UTF-8 as \xNN, as the gradebook keeps them
        return visible(raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"), keep="")

    lines = [f"layout: {grouping.layout} ({len(grouping.students)} students, "
             f"{len(grouping.unmatched)} unmatched files)"]
    lines += [f"  note: {remark}" for remark in grouping.remarks]
    for student in grouping.students:
        label = student.id if student.name in ("", student.id) else f"{student.id} ({student.name})"
        count = student.file_count()
        when = ""
        if student.time is not None:
            when = (f", submitted {student.time.at}" if student.time.at else
                    ", LATE" if student.time.late else ", on time (no time given)")
        members = ""
        if student.members:
            members = " with " + ", ".join(mid if name in ("", mid) else f"{mid} ({name})"
                                           for mid, name in student.members)
        lines.append(f"  {shown(label)}{shown(members)}: {count} file{'s' * (count != 1)}{shown(when)}")
        names = sorted(student.files) if student.folder is None else []
        if names:
            lines.append("    " + shown(", ".join(names)))
    for relative, why in grouping.unmatched:
        lines.append(f"  unmatched: {shown(relative)}: {shown(why)}")
    return lines
