"""``grade gradescope-bundle OUT.zip``: Gradescope's autograder zip.

Gradescope wants a zip with ``setup.sh`` and an executable ``run_autograder`` at
its root (https://gradescope-autograders.readthedocs.io/en/latest/specs/): the
zip is unpacked into ``/autograder/source``, ``setup.sh`` runs once as root when
the image is built, and ``run_autograder`` runs for every submission (in
``/autograder/submission``) and must leave ``/autograder/results/results.json``.

The zip holds:

* ``setup.sh``: apt-installs python3, pip, venv and bubblewrap, and pip-installs
  the grader's wheel into ``/autograder/venv`` (dependencies from PyPI);
* ``run_autograder``: ``grade check /autograder/submission --format gradescope
  --output /autograder/results/results.json``; without bubblewrap the grader's own
  fallback confines student code (grader/sandbox/isolation.py), and ``/autograder/source`` is
  closed to other users first; it always exits 0 and writes a score-0 results.json with the reason
  when the grader could not grade. ``AUTOGRADER_ROOT`` moves ``/autograder``;
* the wheel, built from this grader's source tree (``pip wheel --no-deps``), so it
  is exactly the grader and bundled course in use. An install without a source tree
  (``pip install .``, or from a wheel) writes the installed package and metadata back
  into a wheel instead (``grader.kit.student_wheel.rebuild_installed_wheel``);
* with ``--course DIR``: ``course/`` (the course's ``exercises/`` and
  ``solutions/``), which ``run_autograder`` passes as ``--course``.

Both scripts are templates in ``grader/kit/templates/gradescope/``.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.course.loader import bundled_course_root
from grader.base.errors import BadInput, CourseError

TEMPLATES = Path(__file__).resolve().parent / "templates" / "gradescope"
PROJECT_NAME = "rnn-grader"
EXECUTABLE = 0o100755 << 16      # a regular file, rwxr-xr-x, in a zip entry's external attributes
REGULAR = 0o100644 << 16


def project_root() -> Path | None:
    """The grader's source tree (the checkout with pyproject.toml), or None for an install
    from a wheel or a plain ``pip install .``."""
    try:
        root = bundled_course_root()
    except CourseError:
        return None
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or not (root / "grader" / "__init__.py").is_file() \
            or f'name = "{PROJECT_NAME}"' not in pyproject.read_text(encoding="utf-8", errors="replace"):
        return None
    return root


def grader_wheel(dest: Path) -> Path:
    """The grader as installed here: built from its source tree, or written back from the install."""
    root = project_root()
    if root is not None:
        return build_wheel(root, dest)
    from grader.kit.student_wheel import StudentWheelError, rebuild_installed_wheel
    try:
        return rebuild_installed_wheel(dest)
    except StudentWheelError as exc:
        raise BadInput(str(exc)) from None


def build_wheel(root: Path, dest: Path) -> Path:
    """``pip wheel --no-deps`` of the source tree into ``dest``; returns the wheel."""
    try:
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                               "--disable-pip-version-check", "-w", str(dest), str(root)],
                              capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BadInput(f"could not build the grader's wheel: {exc}") from None
    wheels = sorted(dest.glob("*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        why = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise BadInput(f"could not build the grader's wheel (pip wheel exited {proc.returncode}): {why}")
    return wheels[0]


def render_template(name: str, **values: str) -> str:
    content = (TEMPLATES / name).read_text(encoding="utf-8")
    for key, value in values.items():
        content = content.replace(f"@@{key}@@", value)
    return content


def course_files(course_dir: Path) -> list[tuple[str, Path]]:
    """(name in the zip, file) for the course's exercises/ and solutions/."""
    files = []
    for folder in ("exercises", "solutions"):
        base = course_dir / folder
        if not base.is_dir():
            raise BadInput(f"{course_dir} has no {folder}/ folder")
        for path in sorted(base.rglob("*")):
            if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts:
                files.append((f"course/{path.relative_to(course_dir).as_posix()}", path))
    return files


def build_bundle(out: Path, course_dir: Path | None = None, lang: str = "en") -> list[str]:
    """Write the autograder zip to ``out``; returns the names in it."""
    out = Path(out)
    if out.is_dir():
        raise BadInput(f"{out} is a folder; name the zip file to write")
    if not out.parent.is_dir():
        raise BadInput(f"no such folder: {out.parent}")
    extra = course_files(Path(course_dir)) if course_dir is not None else []
    with temporary_folder("bundle") as tmp:
        wheel = grader_wheel(Path(tmp))
        entries = [
            ("setup.sh", render_template("setup.sh", WHEEL=wheel.name).encode(), EXECUTABLE),
            ("run_autograder", render_template("run_autograder", LANG=lang).encode(), EXECUTABLE),
            (wheel.name, wheel.read_bytes(), REGULAR),
            # Every container of this autograder must draw the same hidden inputs: a secret of the
            # bundle's own, never the instructor's (without bubblewrap, student code can read it).
            ("secret", secrets.token_hex(32).encode() + b"\n", REGULAR),
        ] + [(name, path.read_bytes(), REGULAR) for name, path in extra]
        fd, partial = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
        os.close(fd)
        try:
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                for name, data, mode in entries:
                    info = zipfile.ZipInfo(name, date_time=_now())
                    info.external_attr = mode
                    info.compress_type = zipfile.ZIP_DEFLATED
                    zf.writestr(info, data)
            os.replace(partial, out)
        except BaseException:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise
    return [name for name, _, _ in entries]


def _now():
    import time
    return time.localtime()[:6]
