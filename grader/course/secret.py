"""The course secret: what hidden checks' inputs are drawn from, held by the instructor only.

Visible checks draw their inputs from a published seed (students see those inputs
anyway). Hidden checks draw theirs from a per-course secret that the wheel, the student
kit and the course folder never hold, so nobody can recompute them from the check code:

* ``GRADER_SECRET`` in the environment, when set: for CI, clusters and Gradescope,
  where several machines must draw the same hidden inputs;
* else ``$XDG_CONFIG_HOME/rnn-grader/secrets/<course>`` (``~/.config`` by default),
  created with 32 random bytes on first use, mode 0600 in a 0700 folder, and refused
  when others can read it.

A secret drawn per run and kept in the gradebook would put it wherever the gradebook
goes, and ``grade check`` has no gradebook at all: a kept secret gives the same
inputs, so the same marks, on every run and on every machine that holds it. Only a
one-way fingerprint of it (:func:`fingerprint`) is ever stored or shown.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
from pathlib import Path

from grader.course.loader import Course, bundled_course_root
from grader.base.errors import CourseError

SECRET_ENV = "GRADER_SECRET"
MIN_LENGTH = 16          # characters: a short secret could be guessed from the hidden inputs a student sees
MAX_FILE_BYTES = 4096


class SecretError(CourseError):
    """The course secret cannot be used; the message says where and what to do (exit code 2)."""


def course_secret(course: Course) -> bytes:
    """The secret hidden checks draw their inputs from: GRADER_SECRET, else the instructor's file."""
    value = os.environ.get(SECRET_ENV)
    if value is not None:
        return _checked(value.strip(), SECRET_ENV)
    return _read_or_create(secret_path(course))


def secret_named(name: str) -> bytes:
    """A Dask worker's secret for the client's course ``name`` (grader/classroom/cluster_worker.py):
    GRADER_SECRET, else that course's file on this machine. Never created here: a new one would
    draw other hidden inputs than the client's."""
    value = os.environ.get(SECRET_ENV)
    if value is not None:
        return _checked(value.strip(), SECRET_ENV)
    base = secret_path_base()
    try:
        return _read(base / name)
    except FileNotFoundError:
        raise SecretError(f"no course secret on this machine (no {SECRET_ENV}, no {base / name}): "
                          f"set {SECRET_ENV} to the client's secret on every worker") from None


def course_secret_fingerprint(course: Course) -> str:
    """The fingerprint of the course's secret: what a gradebook may store, so a new secret regrades."""
    return fingerprint(course_secret(course))


def fingerprint(secret: bytes) -> str:
    """Names a secret without revealing it (HMAC, one way)."""
    return hmac.new(secret, b"rnn-grader secret fingerprint", hashlib.sha256).hexdigest()[:16]


def hidden_seed(secret: bytes, exercise_id: str, tag: str) -> int:
    """The seed of one hidden case family: 256 bits no student can derive without the secret."""
    digest = hmac.new(secret, f"hidden:{exercise_id}:{tag}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "little")


def secret_path(course: Course) -> Path:
    return secret_path_base() / course_name(course)


def secret_path_base() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME", "")
    # XDG: a relative XDG_CONFIG_HOME is invalid
    base = Path(config) if config and Path(config).is_absolute() else Path.home() / ".config"
    return base / "rnn-grader" / "secrets"


def course_name(course: Course) -> str:
    """The course's secret file name: ``bundled`` for the bundled course (whichever copy, repository
    or wheel), else its folder's name, so moving a course keeps its secret."""
    root = Path(course.root).resolve()
    try:
        if root == bundled_course_root().resolve():
            return "bundled"
    except CourseError:
        pass
    return re.sub(r"[^A-Za-z0-9._-]", "_", root.name).lstrip(".") or "course"


def _checked(text: str, where: str) -> bytes:
    if len(text) < MIN_LENGTH:
        raise SecretError(f"{where}: the course secret must be at least {MIN_LENGTH} characters "
                          f"(for example: python -c 'import secrets; print(secrets.token_hex(32))')")
    return text.encode("utf-8", "surrogateescape")


def _read_or_create(path: Path) -> bytes:
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    _create(path)
    return _read(path)


def _read(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SecretError(f"cannot read the course secret {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SecretError(f"the course secret {path} is not a regular file")
        if info.st_mode & 0o077:
            raise SecretError(f"the course secret {path} can be read by others (mode "
                              f"{stat.S_IMODE(info.st_mode):04o}): run chmod 600 {path}")
        data = os.read(fd, MAX_FILE_BYTES)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise SecretError(f"the course secret {path} is not text") from None
    return _checked(text, str(path))


def _create(path: Path) -> None:
    """A new random secret, written whole before it appears (another grader may race us)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (secrets.token_hex(32) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)        # fails if another grader created it first: theirs is kept
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
    except OSError as exc:
        raise SecretError(f"cannot create the course secret {path}: {exc.strerror or exc} "
                          f"(set {SECRET_ENV} or XDG_CONFIG_HOME)") from None
