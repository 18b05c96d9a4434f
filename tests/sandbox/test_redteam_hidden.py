"""Red team, issue 10 breach 7: hidden checks must stay hidden.

A hidden check's inputs used to come from the published seed and the check code, both in
the wheel a student installs: anyone could recompute them and hard-code the answers. They
now come from a course secret that only the instructor's install holds (grader/course/secret.py);
visible checks keep the published seed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, copy_reference
from grader.checks.api import Context, Fail
from grader.course.loader import CourseError, bundled_course_root, load_course
from grader.sandbox.client import CallResult, StudentError
from grader.course.runtime import DEFAULT_SEED, CourseRuntime, module_name

SECRET_A = "a-first-course-secret-for-tests-0123456789"
SECRET_B = "another-course-secret-for-tests-9876543210"


# ---------------------------------------------------------------- what a check sends the student

class _ReferenceStudent:
    """StudentModule's interface over the reference, keeping every call a check makes."""

    def __init__(self, runtime, exercise):
        self.runtime, self.exercise = runtime, exercise
        self.calls: list[str] = []
        self.output, self.keep_output, self.on_skipped = [], True, None

    def call(self, func, *args, return_args=False, reuse_args=False, cache_as=None, **kwargs):
        self.calls.append(call_digest(func, args, kwargs))
        args, kwargs = copy.deepcopy((list(args), kwargs))
        try:
            with np.errstate(all="ignore"):
                value = self.runtime.reference_function(self.exercise.file, func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            raise StudentError({"kind": "exception", "type": type(exc).__name__, "message": str(exc)}) from None
        return CallResult(value=value, type_name=type(value).__name__, args_after=args, kwargs_after=kwargs)

    def batch(self, calls, return_args=False, cache_as=None):
        results = []
        for func, args, kwargs in calls:
            try:
                results.append(self.call(func, *args, **kwargs))
            except StudentError as exc:
                results.append(exc)
        return results


def canonical(value, digest):
    if isinstance(value, np.ndarray):
        digest.update(f"array{value.dtype.str}{value.shape}".encode() + np.ascontiguousarray(value).tobytes())
    elif isinstance(value, dict):
        digest.update(b"dict")
        for key in sorted(value, key=str):
            digest.update(repr(key).encode())
            canonical(value[key], digest)
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}{len(value)}".encode())
        for item in value:
            canonical(item, digest)
    else:
        digest.update(repr(value).encode())


def has_finite_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f" and bool(np.isfinite(value).any())
    if isinstance(value, dict):
        return any(has_finite_float(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_finite_float(v) for v in value)
    return isinstance(value, float) and np.isfinite(value)


def call_digest(func, args, kwargs) -> str:
    """The call's inputs as a digest, marked ``:drawn`` when they hold a finite float: only such
    inputs are too many to collide by chance (a drawn shape of NaN or a few small ints may)."""
    digest = hashlib.sha256(func.encode())
    canonical(list(args), digest)
    canonical(kwargs, digest)
    return digest.hexdigest() + (":drawn" if has_finite_float([args, kwargs]) else ":small")


def inputs_by_check(runtime) -> dict[tuple[str, str, bool], list[str]]:
    """Every code check of the course -> the inputs of the calls it makes, as digests."""
    checks = load_course(bundled_course_root()).registry.checks
    found = {}
    for exercise in runtime.course.exercises.values():
        if exercise.is_quiz:
            continue
        for spec in exercise.checks:
            student = _ReferenceStudent(runtime, exercise)
            try:
                checks[exercise.id][spec.id](Context(runtime, exercise, student))
            except Exception as exc:  # noqa: BLE001 -- the reference must pass every check
                raise AssertionError(f"the reference fails {exercise.id}.{spec.id}: {exc!r}") from exc
            found[(exercise.id, spec.id, spec.hidden)] = student.calls
    return found


def runtime_with(course, monkeypatch, secret: str) -> CourseRuntime:
    monkeypatch.setenv("GRADER_SECRET", secret)
    return CourseRuntime(course)


def hidden_calls(inputs) -> set[str]:
    """The hidden checks' calls whose inputs are drawn from far too many values to meet by chance."""
    return {call for (_, _, hidden), calls in inputs.items() if hidden for call in calls if call.endswith(":drawn")}


# ---------------------------------------------------------------- the breach

def test_hidden_inputs_follow_the_secret_and_visible_inputs_do_not(course, monkeypatch):
    first = inputs_by_check(runtime_with(course, monkeypatch, SECRET_A))
    second = inputs_by_check(runtime_with(course, monkeypatch, SECRET_B))
    assert first.keys() == second.keys()
    hidden = [key for key in first if key[2]]
    assert len(hidden) > 40
    for key in first:
        assert first[key], f"{key} makes no call"
        if key[2]:
            assert first[key] != second[key], f"hidden check {key[0]}.{key[1]} has the same inputs for two secrets"
        else:
            assert first[key] == second[key], f"visible check {key[0]}.{key[1]} depends on the secret"
    # not one call of a hidden check is the same under both secrets
    assert len(hidden_calls(first)) > 100
    assert not {c for key in hidden for c in first[key]} & {c for key in hidden for c in second[key]}


def test_the_published_code_and_seed_do_not_give_the_hidden_inputs(course, monkeypatch):
    """What a student can compute from the wheel: the checks seeded as the published code seeds them."""
    graded = hidden_calls(inputs_by_check(runtime_with(course, monkeypatch, SECRET_A)))

    def published_rng(ctx, tag):
        digest = hashlib.sha256(f"{DEFAULT_SEED}:{ctx.exercise.id}:{tag}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    monkeypatch.setattr(Context, "rng", published_rng)
    recomputed = hidden_calls(inputs_by_check(runtime_with(course, monkeypatch, SECRET_A)))
    assert graded and recomputed
    assert not graded & recomputed


def test_a_student_install_without_the_secret_draws_other_hidden_inputs(course, monkeypatch, tmp_path):
    instructor = inputs_by_check(runtime_with(course, monkeypatch, SECRET_A))
    monkeypatch.delenv("GRADER_SECRET", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "student-config"))
    student = inputs_by_check(CourseRuntime(course))
    assert not hidden_calls(instructor) & hidden_calls(student)
    assert {k: v for k, v in instructor.items() if not k[2]} == {k: v for k, v in student.items() if not k[2]}


def test_the_same_secret_gives_the_same_inputs_on_another_machine(course, monkeypatch, tmp_path):
    here = inputs_by_check(runtime_with(course, monkeypatch, SECRET_A))
    script = ("import json, sys\n"
              "sys.path[:0] = ['tests/sandbox', 'tests']\n"
              "from test_redteam_hidden import inputs_by_check\n"
              "from grader.course.loader import bundled_course_root, load_course\n"
              "from grader.course.runtime import CourseRuntime\n"
              "found = inputs_by_check(CourseRuntime(load_course(bundled_course_root())))\n"
              "print(json.dumps([[list(map(str, k)), v] for k, v in found.items()]))\n")
    env = {**os.environ, "GRADER_SECRET": SECRET_A, "PYTHONHASHSEED": "12345",
           "HOME": str(tmp_path / "elsewhere"), "XDG_CONFIG_HOME": str(tmp_path / "elsewhere" / ".config")}
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    there = {tuple(k): v for k, v in json.loads(proc.stdout)}
    assert there == {(e, c, str(h)): v for (e, c, h), v in here.items()}
    assert not (tmp_path / "elsewhere").exists()     # GRADER_SECRET given: nothing written


# ---------------------------------------------------------------- where the secret lives

def test_the_secret_is_created_private_on_first_use_and_kept(course, monkeypatch, tmp_path):
    from grader.course.secret import course_secret_fingerprint, secret_path

    monkeypatch.delenv("GRADER_SECRET", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = secret_path(course)
    assert path.parent == tmp_path / "config" / "rnn-grader" / "secrets"
    assert not path.exists()
    first = inputs_by_check(CourseRuntime(course))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    secret = path.read_text().strip()
    assert len(secret) >= 32
    assert inputs_by_check(CourseRuntime(course)) == first          # kept: the same inputs next time
    fingerprint = course_secret_fingerprint(course)
    assert fingerprint and secret not in fingerprint and fingerprint not in secret

    # Nothing shipped with the grader or the course holds the secret.
    package = Path(__import__("grader").__file__).parent
    for folder in (package, course.root / "exercises", course.root / "solutions"):
        for file in folder.rglob("*"):
            if file.is_file():
                assert secret.encode() not in file.read_bytes(), file


def test_a_secret_file_others_can_read_is_refused(course, monkeypatch, tmp_path):
    from grader.course.secret import secret_path

    monkeypatch.delenv("GRADER_SECRET", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    CourseRuntime(course)
    path = secret_path(course)
    path.chmod(0o644)
    with pytest.raises(CourseError, match="chmod 600"):
        CourseRuntime(course)
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SECRET"}
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(ROOT / "solutions" / "reference"),
                           "--only", "step", "--no-sandbox"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and str(path) in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_weak_secret_in_the_environment_is_refused(tmp_path):
    env = {**os.environ, "GRADER_SECRET": "1234"}
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(ROOT / "solutions" / "reference"),
                           "--only", "step", "--no-sandbox"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "GRADER_SECRET" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- what a course admin expects

def grade_cli(*args, secret: str, timeout=600):
    env = {**os.environ, "GRADER_SECRET": secret}
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_validate_passes_with_any_secret():
    for secret in (SECRET_A, SECRET_B):
        proc = grade_cli("validate", secret=secret)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
        assert " 0 problems" in proc.stdout


@pytest.fixture
def one_student_class(tmp_path):
    cls = tmp_path / "class"
    copy_reference(cls / "carol")
    target = cls / "carol" / "rnn_step.py"
    target.write_text(target.read_text() + "\n\n" + (ROOT / "solutions/mistakes/step/missing_bias.py").read_text())
    return cls


def class_run(cls: Path, book: Path, secret: str):
    proc = grade_cli("class", cls, "--jobs", "1", "--gradebook", book, "--no-sandbox", "--no-counterexamples",
                     "--format", "json", "--only", "step", secret=secret)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def attempt_checks(book: Path) -> list:
    with sqlite3.connect(book) as db:
        return db.execute("SELECT attempt_id, exercise, name, passed, score, hidden FROM checks"
                          " ORDER BY attempt_id, exercise, name").fetchall()


def test_same_secret_same_marks_and_the_secret_is_stored_nowhere(one_student_class, tmp_path):
    book = tmp_path / "book.sqlite"
    class_run(one_student_class, book, SECRET_A)
    book_b = tmp_path / "again.sqlite"
    class_run(one_student_class, book_b, SECRET_A)
    rows, again = attempt_checks(book), attempt_checks(book_b)
    assert rows == again
    assert any(hidden and not passed for _, _, _, passed, _, hidden in rows)   # the hidden checks really ran
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p.relative_to(tmp_path).parts[0] != "class"]
    assert any(p.suffix == ".md" for p in stored) and any(p.suffix == ".sqlite" for p in stored)
    for file in stored:
        assert SECRET_A.encode() not in file.read_bytes(), file


def test_a_new_secret_regrades_the_class(one_student_class, tmp_path):
    book = tmp_path / "book.sqlite"
    class_run(one_student_class, book, SECRET_A)
    out = class_run(one_student_class, book, SECRET_A)
    with sqlite3.connect(book) as db:
        assert db.execute("SELECT COUNT(*) FROM attempts").fetchone() == (1,)
    class_run(one_student_class, book, SECRET_B)
    with sqlite3.connect(book) as db:
        assert db.execute("SELECT COUNT(*) FROM attempts").fetchone() == (2,), out
        courses = [row[0] for row in db.execute("SELECT course FROM runs ORDER BY id")]
    assert courses[0] == courses[1] != courses[2]
    for text in courses:
        assert SECRET_A not in text and SECRET_B not in text


class _InProcessStudent(_ReferenceStudent):
    """The same interface over any module set: the reference or a known mistake."""

    def __init__(self, runtime, exercise, modules):
        super().__init__(runtime, exercise)
        self.modules = modules

    def call(self, func, *args, return_args=False, reuse_args=False, cache_as=None, **kwargs):
        args, kwargs = copy.deepcopy((list(args), kwargs))
        try:
            with np.errstate(all="ignore"):
                value = self.modules.function(module_name(self.exercise.file), func)(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            raise StudentError({"kind": "exception", "type": type(exc).__name__, "message": str(exc)}) from None
        return CallResult(value=value, type_name=type(value).__name__, args_after=args, kwargs_after=kwargs)


def passes(runtime, exercise, check_id, modules) -> bool:
    try:
        check = load_course(bundled_course_root()).registry.checks[exercise.id][check_id]
        check(Context(runtime, exercise, _InProcessStudent(runtime, exercise, modules)))
    except Fail:
        return False
    return True


def test_hidden_checks_catch_known_mistakes_with_many_secrets(course):
    """grade validate runs with two secrets; here, in process and cheaply, with twenty: the reference
    passes every hidden check and every known mistake fails the hidden checks its catalogue lists,
    whatever the secret (so no drawn input lets a mistake through)."""
    problems = []
    for n in range(20):
        runtime = CourseRuntime(course, secret=f"a-secret-for-many-runs-{n:04d}-0123456789".encode())
        for exercise in (e for e in course.exercises.values() if not e.is_quiz):
            hidden = [c.id for c in exercise.checks if c.hidden]
            problems += [f"secret {n}: the reference fails {exercise.id}.{c}" for c in hidden
                         if not passes(runtime, exercise, c, runtime.reference)]
            for mistake in exercise.mistakes:
                for variant in mistake.variants:
                    modules = runtime.mistake_modules(mistake, variant)
                    problems += [f"secret {n}: {variant.stem} passes {exercise.id}.{c}" for c in hidden
                                 if c in mistake.fails and passes(runtime, exercise, c, modules)]
    assert not problems, "\n".join(problems)
