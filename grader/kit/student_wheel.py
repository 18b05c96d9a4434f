"""The student wheel: the grader as a kit installs it, without what only the instructor holds.

The instructor's install (``pip install .`` or ``pip install -e .``) carries the
course's ``solutions/``: the reference files, the known-mistake implementations and
the quiz answer key. The student wheel is the same distribution (same name, version,
dependencies and entry points, read from the installed metadata) holding instead:

* every file of the installed ``grader`` package, compiled files and the bundled
  ``_course/`` aside;
* the released course's ``exercises/`` (the YAML and the stubs) as ``grader/_course/exercises/``;
* the kit's precomputed grading data (``grader.kit.data.write_kit_data``) as ``grader/_course/kit/``.

It is written here with the standard library, not built with hatchling: a wheel is a
specified zip (PEP 427: files, ``*.dist-info/{METADATA,WHEEL,entry_points.txt,RECORD}``),
and ``grade release`` must build it from any instructor install, a plain wheel with no
source tree and no build backend, on a machine without network.

pytest is a plain requirement of the student wheel (in the instructor's, only of the
``test`` extra): the kit's ``pytest.ini`` requires the grader's plugin, so every student
install runs pytest, and a requirement cannot be forgotten as an extra can
(``pip install the.whl`` without ``[kit]``; brackets after a file name are also
a shell glob, and not every tool accepts them).
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.metadata
import io
import os
import re
import tempfile
import zipfile
from pathlib import Path

from packaging.utils import canonicalize_name

from grader.base.errors import CourseError
from grader.kit.requirement_markers import (marker_extras, marker_text, marker_tree, parsed_requirement, with_marker,
                                        without_extra, without_marker)

DISTRIBUTION = "rnn-grader"
PACKAGE = "grader"
COURSE_FOLDER = f"{PACKAGE}/_course"
WHEEL_TAG = "py3-none-any"
PYTEST_FALLBACK = "pytest>=7.4"     # the plugin's need, if the installed metadata names no pytest at all
ZIP_TIME = (1980, 1, 1, 0, 0, 0)    # fixed: the same course and grader give the same wheel, byte for byte
COMPILED_SUFFIXES = (".pyc", ".pyo")
# Headers not copied from the instructor's metadata: replaced, or naming files this wheel does not hold.
REPLACED_HEADERS = {"requires-dist", "description", "license-file"}
NO_KIT_DATA = ("This grader has no grader.kit.data.write_kit_data yet: the release precomputed no grading data.\n")
DESCRIPTION = """\
The rnn-grader for a student kit: `grade check` and the kit's `pytest`.
It holds the exercises and their stubs, and no reference solution, known-mistake
implementation or answer key: those stay with the instructor's install.
"""


class StudentWheelError(CourseError):
    """The student wheel cannot be built from this install (bad input, exit code 2)."""


def build_student_wheel(course, out_dir: Path) -> Path:
    """Write the student wheel of ``course`` into ``out_dir``; returns its path."""
    dist = installed_distribution()
    files = package_files() | course_files(course) | kit_data_files(course)
    refuse_solution_copies(course, files)
    name = normalized_name(dist.metadata["Name"])
    version = dist.version.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    files |= {f"{info}/METADATA": metadata(dist).encode("utf-8"),
              f"{info}/WHEEL": wheel_file(dist).encode("utf-8"),
              f"{info}/entry_points.txt": entry_points(dist).encode("utf-8")}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{version}-{WHEEL_TAG}.whl"
    write_wheel(path, files, f"{info}/RECORD")
    return path


def rebuild_installed_wheel(out_dir: Path) -> Path:
    """The instructor's own wheel, written back from an install that has no source tree to
    build from (``pip install .``, or from a wheel): the installed package with its bundled
    course, solutions and all, and the installed metadata as it is. The Gradescope bundle
    ships it: its containers grade as the instructor does."""
    dist = installed_distribution()
    package = Path(importlib.import_module(PACKAGE).__file__).resolve().parent
    files = {f"{PACKAGE}/{rel}": data for rel, data in folder_files(package)}
    name = normalized_name(dist.metadata["Name"])
    version = dist.version.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    files |= {f"{info}/METADATA": (dist.read_text("METADATA") or "").encode("utf-8"),
              f"{info}/WHEEL": wheel_file(dist).encode("utf-8"),
              f"{info}/entry_points.txt": entry_points(dist).encode("utf-8")}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{version}-{WHEEL_TAG}.whl"
    write_wheel(path, files, f"{info}/RECORD")
    return path


# ---------------------------------------------------------------- what goes in

def installed_distribution() -> importlib.metadata.Distribution:
    try:
        return importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise StudentWheelError(f"{DISTRIBUTION} is not installed here (pip install . or pip install -e .): "
                                "the student wheel copies the installed metadata") from None


def package_files() -> dict[str, bytes]:
    """The installed grader package, whatever its install: the folder ``import grader`` reads."""
    package = Path(importlib.import_module(PACKAGE).__file__).resolve().parent
    return {f"{PACKAGE}/{rel}": data for rel, data in folder_files(package)
            if rel.split("/", 1)[0] != "_course"}        # the bundled course: its solutions stay here


def course_files(course) -> dict[str, bytes]:
    """The released course's exercises/ (YAML and stubs): the course the student's grade check loads."""
    exercises = Path(course.exercises_dir)
    if not exercises.is_dir():
        raise StudentWheelError(f"{exercises}: the course has no exercises folder")
    return {f"{COURSE_FOLDER}/exercises/{rel}": data for rel, data in folder_files(exercises)}


def kit_data_files(course) -> dict[str, bytes]:
    """The grading data the release precomputes for the kit (grader.kit.data), or a note that there is none."""
    writer = kit_data_writer()
    if writer is None:
        return {f"{COURSE_FOLDER}/kit/README": NO_KIT_DATA.encode("utf-8")}
    with tempfile.TemporaryDirectory(prefix="rnn-grader-kit-") as folder:
        writer(course, Path(folder))
        return {f"{COURSE_FOLDER}/kit/{rel}": data for rel, data in folder_files(Path(folder))}


def kit_data_writer():
    try:
        module = importlib.import_module(f"{PACKAGE}.kit.data")
    except ModuleNotFoundError as exc:
        if exc.name != f"{PACKAGE}.kit.data":
            raise
        return None
    return getattr(module, "write_kit_data", None)


def folder_files(folder: Path) -> list[tuple[str, bytes]]:
    """(relative posix path, content) of every file under ``folder``, in a stable order; caches,
    compiled files and hidden files (editor and OS leftovers) are not part of a release."""
    found = []
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or name.endswith(COMPILED_SUFFIXES):
                continue
            path = Path(current) / name
            if path.is_file():
                found.append((path.relative_to(folder).as_posix(), path.read_bytes()))
    return found


def refuse_solution_copies(course, files: dict[str, bytes]) -> None:
    """No file of the wheel may be a copy of one under solutions/ (a reference copied into
    stubs/, a symlinked folder): a release that would hand one out stops instead."""
    solutions = Path(course.root) / "solutions"
    if not solutions.is_dir():
        return
    # The mistakes' catalogues (titles, explanations, hints) are the kit's to name mistakes with.
    secret = {hashlib.sha256(data).digest(): f"solutions/{rel}" for rel, data in folder_files(solutions)
              if data.strip() and not rel.endswith("/catalogue.yaml")}
    for archive_name, data in files.items():
        origin = secret.get(hashlib.sha256(data).digest())
        if origin is not None:
            raise StudentWheelError(f"the student wheel would hold {archive_name}, a copy of the course's "
                                    f"{origin}; remove it from the released files")


# ---------------------------------------------------------------- dist-info

def normalized_name(name: str) -> str:
    """The distribution name as wheel file names spell it (rnn-grader -> rnn_grader)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def requirements(dist) -> list[str]:
    """The installed Requires-Dist, with the test extra's pytest made a plain requirement.

    Read with ``packaging`` (PEP 508), as pip reads them. A pytest the instructor requires without
    a marker leaves everything as it is. Otherwise the pytest requirements of one extra (``test``
    when it names one, else the first extra a pytest requirement names) lose the extra from their
    marker and keep the rest: ``pytest>=8.0; extra == "test" and python_version >= "3.10"`` becomes
    ``pytest>=8.0; python_version >= "3.10"``, each of several branches kept. Only when no extra
    names a pytest is the plugin's own need (``pytest>=7.4``) added. A pytest limited by a marker
    without an extra stays too."""
    found = list(dist.requires or [])
    parsed = {line: parsed_requirement(line) for line in found}
    pytest = [line for line in found if parsed[line] is not None and canonicalize_name(parsed[line].name) == "pytest"]
    if any(parsed[line].marker is None for line in pytest):
        return found
    extras = [name for line in pytest for name in marker_extras(parsed[line].marker)]
    under_extra = [line for line in pytest if marker_extras(parsed[line].marker)]
    promoted = []
    if extras:
        chosen = "test" if "test" in extras else extras[0]
        for line in under_extra:
            requirement = without_extra(parsed[line], chosen)
            if requirement is not None and requirement not in promoted:
                promoted.append(requirement)
    return [line for line in found if line not in under_extra] + (promoted or [PYTEST_FALLBACK])


def pytest_requirement() -> str:
    """The pytest a kit installs beside a grader published elsewhere (``--grader-requirement``): one
    argument of the kit's ``pip install`` line. The instructor's pytest (:func:`requirements`),
    its marker kept (values in single quotes: the line is double-quoted for sh, cmd and PowerShell
    alike); where the instructor's pytest is several requirements each under its own marker (one
    per Python version), one argument cannot hold them: the plugin's own need, which holds
    everywhere."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return PYTEST_FALLBACK
    pytest = [r for r in map(parsed_requirement, requirements(dist)) if r and canonicalize_name(r.name) == "pytest"]
    plain = [r for r in pytest if r.marker is None]
    if plain:
        return str(plain[0])
    if len(pytest) == 1:
        requirement = pytest[0]
        return with_marker(requirement, without_marker(requirement),
                           marker_text(marker_tree(requirement.marker), quote="'"))
    return PYTEST_FALLBACK


def metadata(dist) -> str:
    """The instructor's METADATA headers (name, version, summary, Python, extras...), these
    requirements, and a description of the student build."""
    lines = []
    for key, value in dist.metadata.items():
        if key.lower() not in REPLACED_HEADERS:
            lines.append(f"{key}: {folded(value)}")
    lines += [f"Requires-Dist: {r}" for r in requirements(dist)]
    return "\n".join(lines) + "\n\n" + DESCRIPTION


def folded(value: str) -> str:
    """A header value on several lines keeps its continuation lines indented (RFC 822)."""
    return "\n       ".join(str(value).splitlines())


def wheel_file(dist) -> str:
    return ("Wheel-Version: 1.0\n"
            f"Generator: rnn-grader student_wheel ({dist.version})\n"
            "Root-Is-Purelib: true\n"
            f"Tag: {WHEEL_TAG}\n")


def entry_points(dist) -> str:
    """The installed entry points, as they are (the ``grade`` script, the ``pytest11`` plugin)."""
    text = dist.read_text("entry_points.txt")
    if text:
        return text
    groups: dict[str, list[str]] = {}
    for point in dist.entry_points:
        groups.setdefault(point.group, []).append(f"{point.name} = {point.value}")
    return "".join(f"[{group}]\n" + "\n".join(lines) + "\n\n" for group, lines in groups.items())


# ---------------------------------------------------------------- the zip

def record_hash(data: bytes) -> str:
    """PEP 376/427: sha256, urlsafe base64 without padding."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def write_wheel(path: Path, files: dict[str, bytes], record_name: str) -> None:
    """The package files first, then .dist-info, RECORD last (PEP 427), written whole before
    the wheel appears under its name."""
    info = record_name.rsplit("/", 1)[0] + "/"
    names = sorted(n for n in files if not n.startswith(info)) + sorted(n for n in files if n.startswith(info))
    record = io.StringIO()
    for name in names:
        record.write(f"{name},{record_hash(files[name])},{len(files[name])}\n")
    record.write(f"{record_name},,\n")
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name in names:
            add(wheel, name, files[name])
        add(wheel, record_name, record.getvalue().encode("utf-8"))
    os.replace(partial, path)


def add(wheel: zipfile.ZipFile, name: str, data: bytes) -> None:
    entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    entry.external_attr = 0o644 << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    wheel.writestr(entry, data)
