"""Red team, breach 4: the answer key in students' hands.

The wheel `pip install .` builds holds ``solutions/`` (the reference files, the known
mistakes, the quiz answer key), so a kit that shipped it would hand them out. `grade
release` ships the student wheel instead (grader/kit/student_wheel.py); these tests open it
as a student would, install it without this repository, and run the kit with it.
"""

from __future__ import annotations

import ast
import base64
import configparser
import email.parser
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from grader.cli import main
from grader.kit.release import WORKFLOW_PATH

SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
ANSWER_KEY = SOLUTIONS / "reference" / "answers.yaml"
STUB_ANSWERS = EXERCISES / "stubs" / "answers.yaml"
DIST = importlib.metadata.distribution("rnn-grader")
WHEEL_NAME = f"rnn_grader-{DIST.version}-py3-none-any.whl"
INFO = f"rnn_grader-{DIST.version}.dist-info"


# ---------------------------------------------------------------- the released kit and its wheel

@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "kit"
    assert main(["release", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def wheel(kit) -> zipfile.ZipFile:
    found = sorted((kit / "wheels").glob("*.whl"))
    assert [p.name for p in found] == [WHEEL_NAME]
    with zipfile.ZipFile(found[0]) as archive:
        yield archive


def texts(archive: zipfile.ZipFile, suffixes: tuple[str, ...]) -> dict[str, str]:
    return {n: archive.read(n).decode("utf-8") for n in archive.namelist() if n.endswith(suffixes)}


def function_bodies(source: str) -> set[str]:
    """Every function's body, docstring aside, normalised by the AST (layout and comments do not matter)."""
    bodies = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body = body[1:]
            if body:
                bodies.add(ast.unparse(ast.Module(body=body, type_ignores=[])))
    return bodies


def answer_pairs_in(data, key: dict) -> int:
    """The most answer-key (question, answer) pairs any one mapping inside ``data`` holds."""
    if isinstance(data, dict):
        here = sum(1 for k, v in data.items() if k in key and v is not None and v == key[k])
        return max([here, *(answer_pairs_in(v, key) for v in data.values())])
    if isinstance(data, list):
        return max([0, *(answer_pairs_in(v, key) for v in data)])
    return 0


def test_the_kit_ships_the_student_wheel_and_installs_from_it(kit):
    assert (kit / "wheels" / WHEEL_NAME).is_file()
    install = f"pip install wheels/{WHEEL_NAME}"
    readme = (kit / "README.md").read_text(encoding="utf-8")
    english, chinese = readme.split("## 中文", 1)
    assert install in english and install in chinese.split("## Exercises", 1)[0]
    assert "pip install rnn-grader" not in readme          # no index has it
    workflow = yaml.safe_load((kit / WORKFLOW_PATH).read_text(encoding="utf-8"))
    step = next(s for s in workflow["jobs"]["grade"]["steps"] if s.get("name") == "Install the grader")
    assert step["run"].strip() == f"python -m pip install wheels/{WHEEL_NAME}"


def test_the_wheel_holds_no_solutions_folder(wheel):
    names = wheel.namelist()
    assert not [n for n in names if n.startswith("grader/_course/solutions") or "/solutions/" in n]
    # known mistakes travel only as the kit's records of their results, and their catalogue's texts
    kit = "grader/_course/kit/"
    assert not [n for n in names if ("mistakes/" in n or n.endswith("catalogue.yaml")) and not n.startswith(kit)]
    assert not [n for n in names if n.startswith(kit) and not n.endswith((".rec", "/catalogue.yaml"))]
    assert f"{kit}reference.rec" in names


def leaked_bodies(archive: zipfile.ZipFile) -> dict[str, list[str]]:
    """The archive's .py files that hold a function body of the reference or of a known mistake."""
    secret = set()
    for path in SOLUTIONS.rglob("*.py"):
        secret |= function_bodies(path.read_text(encoding="utf-8"))
    assert len(secret) > 50                                   # the reference and the mistakes, all of them
    leaked = {name: sorted(function_bodies(source) & secret) for name, source in texts(archive, (".py",)).items()}
    return {name: bodies for name, bodies in leaked.items() if bodies}


def answer_key_leaks(archive: zipfile.ZipFile) -> list[str]:
    """The archive's files that hold the quiz answer key: any answers file but the stubs' template,
    a copy of the key, or a YAML/JSON mapping with a few of its answers under their questions."""
    key = yaml.safe_load(ANSWER_KEY.read_text(encoding="utf-8"))
    key_bytes, template = ANSWER_KEY.read_bytes(), STUB_ANSWERS.read_bytes()
    leaks = [n for n in archive.namelist()
             if n.rsplit("/", 1)[-1] in ("answers.yaml", "answers.yml") and archive.read(n) != template]
    leaks += [n for n in archive.namelist() if archive.read(n) == key_bytes]
    for name, source in texts(archive, (".yaml", ".yml", ".json")).items():
        data = json.loads(source) if name.endswith(".json") else yaml.safe_load(source)
        if answer_pairs_in(data, key) >= 3:
            leaks.append(name)
    return sorted(set(leaks))


def test_no_python_file_holds_a_reference_or_known_mistake_body(wheel):
    assert not leaked_bodies(wheel)


def test_no_answer_key_in_any_form(wheel):
    assert not answer_key_leaks(wheel)
    answers_files = [n for n in wheel.namelist() if n.rsplit("/", 1)[-1] == "answers.yaml"]
    assert answers_files == ["grader/_course/exercises/stubs/answers.yaml"]


def test_these_checks_catch_the_instructors_wheel(tmp_path):
    """What `pip install .` installs (grader/_course/solutions/): the checks above find every leak in it."""
    instructor = tmp_path / "instructor.whl"
    with zipfile.ZipFile(instructor, "w") as archive:
        for folder, prefix in ((EXERCISES, "grader/_course/exercises"), (SOLUTIONS, "grader/_course/solutions")):
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    archive.write(path, f"{prefix}/{path.relative_to(folder).as_posix()}")
    with zipfile.ZipFile(instructor) as archive:
        leaked = leaked_bodies(archive)
        assert {f"grader/_course/solutions/reference/{p.name}" for p in (SOLUTIONS / "reference").glob("*.py")} \
            <= set(leaked)
        assert any("/mistakes/" in name for name in leaked)
        assert answer_key_leaks(archive) == ["grader/_course/solutions/reference/answers.yaml"]


def test_record_lists_every_file_with_its_sha256(wheel):
    record = wheel.read(f"{INFO}/RECORD").decode("utf-8").splitlines()
    rows = dict((line.split(",", 1)[0], line.split(",", 1)[1]) for line in record)
    assert set(rows) == set(wheel.namelist())
    assert rows.pop(f"{INFO}/RECORD") == ","
    for name, row in rows.items():
        digest, size = row.split(",")
        data = wheel.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == f"sha256={expected}" and int(size) == len(data), name
    assert record[-1].startswith(f"{INFO}/RECORD,")          # RECORD last, dist-info after the package


def test_metadata_is_the_installed_distribution_with_pytest_for_the_kit(wheel):
    meta = email.parser.Parser().parsestr(wheel.read(f"{INFO}/METADATA").decode("utf-8"))
    assert meta["Name"] == DIST.metadata["Name"] and meta["Version"] == DIST.version
    requires = meta.get_all("Requires-Dist")
    plain = [r for r in DIST.requires if ";" not in r]
    assert plain and set(plain) <= set(requires)
    assert any(r.startswith("pytest") and ";" not in r for r in requires)   # the kit's pytest needs it
    wheel_file = wheel.read(f"{INFO}/WHEEL").decode("utf-8")
    assert "Wheel-Version: 1.0" in wheel_file and "Root-Is-Purelib: true" in wheel_file
    assert "Tag: py3-none-any" in wheel_file


def test_entry_points_are_the_grade_script_and_the_pytest_plugin(wheel):
    points = configparser.ConfigParser()
    points.read_string(wheel.read(f"{INFO}/entry_points.txt").decode("utf-8"))
    assert points["console_scripts"]["grade"] == "grader.cli:main"
    assert points["pytest11"]["rnn_grader"] == "grader.kit.pytest_plugin"


def test_the_wheel_holds_the_grader_the_exercises_and_the_stubs(wheel):
    names = set(wheel.namelist())
    package = ROOT / "grader"
    sources = {f"grader/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")
               if "__pycache__" not in p.parts and "_course" not in p.relative_to(package).parts}
    assert sources <= names
    for path in EXERCISES.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            name = f"grader/_course/exercises/{path.relative_to(EXERCISES).as_posix()}"
            assert wheel.read(name) == path.read_bytes(), name
    assert any(n.startswith("grader/_course/kit/") for n in names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_a_stub_that_is_a_copy_of_the_reference_stops_the_release(tmp_path):
    """An instructor who copied a reference file over a stub would hand it out: the release stops."""
    course = tmp_path / "course"
    shutil.copytree(EXERCISES, course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOLUTIONS, course / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(SOLUTIONS / "reference" / "masking.py", course / "exercises" / "stubs" / "masking.py")
    proc = subprocess.run([sys.executable, "-m", "grader", "release", str(tmp_path / "kit"), "--course", str(course)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert "solutions/reference/masking.py" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "kit" / "wheels").exists() or not list((tmp_path / "kit" / "wheels").glob("*.whl"))


# ---------------------------------------------------------------- a grader published elsewhere

def test_a_grader_requirement_is_installed_instead_of_a_shipped_wheel(tmp_path):
    kit = tmp_path / "kit"
    assert main(["release", str(kit), "--grader-requirement", "rnn-grader==0.1.0"]) == 0
    assert not (kit / "wheels").exists()
    workflow = yaml.safe_load((kit / WORKFLOW_PATH).read_text(encoding="utf-8"))
    step = next(s for s in workflow["jobs"]["grade"]["steps"] if s.get("name") == "Install the grader")
    command = step["run"].strip()
    assert command.startswith('python -m pip install rnn-grader==0.1.0 "pytest')
    readme = (kit / "README.md").read_text(encoding="utf-8")
    assert readme.count(command.removeprefix("python -m ")) == 2           # English and Chinese


def test_a_requirement_on_two_lines_is_bad_input(tmp_path, capsys):
    assert main(["release", str(tmp_path / "kit"), "--grader-requirement", "rnn-grader\nrm -rf ~"]) == 2
    err = capsys.readouterr().err
    assert "line break" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "kit").exists()


# ---------------------------------------------------------------- installing it

def test_the_wheel_installs_and_imports_without_this_repository(kit, tmp_path):
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target),
                           str(kit / "wheels" / WHEEL_NAME)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not (target / "grader" / "_course" / "solutions").exists()
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import grader, grader.cli;"
              "from grader.course.loader import load_course; from pathlib import Path;"
              "course = load_course(Path(grader.__file__).parent / '_course');"
              "print(grader.__file__); print(len(course.exercises))")
    proc = subprocess.run([sys.executable, "-c", script, str(target)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    location, count = proc.stdout.split()
    assert Path(location).is_relative_to(target)
    assert int(count) == len([p for p in EXERCISES.glob("*.yaml") if p.name != "course.yaml"])


def test_a_plain_wheel_install_builds_the_same_student_wheel(tmp_path):
    """An instructor who installed the grader's wheel (no source tree: the course in grader/_course/)."""
    site = tmp_path / "site"
    ignore = shutil.ignore_patterns("__pycache__", "_course")
    shutil.copytree(ROOT / "grader", site / "grader", ignore=ignore)
    shutil.copytree(EXERCISES, site / "grader" / "_course" / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOLUTIONS, site / "grader" / "_course" / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / INFO
    info.mkdir()
    for name in ("METADATA", "entry_points.txt"):
        (info / name).write_text(DIST.read_text(name), encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import grader;"
              "from grader.course.loader import bundled_course_root, load_course;"
              "from grader.kit.student_wheel import build_student_wheel;"
              "assert Path(grader.__file__).is_relative_to(sys.argv[1]), grader.__file__;"
              "root = bundled_course_root(); assert root == Path(sys.argv[1]) / 'grader' / '_course', root;"
              "print(build_student_wheel(load_course(root), Path(sys.argv[2])))")
    proc = subprocess.run([sys.executable, "-c", script, str(site), str(tmp_path / "out")], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(proc.stdout.strip()) as built:
        names = built.namelist()
        assert "grader/_course/exercises/stubs/rnn_step.py" in names and "grader/cli.py" in names
        assert not [n for n in names if "solutions" in n]
        assert not [n for n in names if "mistakes" in n and not n.endswith((".rec", "/catalogue.yaml"))]
        assert "grader/_course/kit/reference.rec" in names
        assert built.read("grader/_course/exercises/stubs/answers.yaml") == STUB_ANSWERS.read_bytes()


# ---------------------------------------------------------------- a student's machine, end to end

@pytest.fixture(scope="module")
def student_venv(kit, tmp_path_factory) -> Path:
    """A fresh virtual environment outside the repository with the kit's install line (the
    dependencies from the index), as a student or their CI makes it: one per test session."""
    venv = tmp_path_factory.mktemp("student") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"wheels/{WHEEL_NAME}"],
                          cwd=kit, capture_output=True, text=True, timeout=900, env=student_env(kit))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return venv


def student_env(home: Path) -> dict:
    """No trace of this repository or of the instructor: no PYTHONPATH, no course secret, own config."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GRADER_SECRET", "PYTEST_ADDOPTS") and not k.startswith("PYTEST_")}
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    return env


@pytest.fixture
def student_kit(kit, tmp_path) -> Path:
    folder = tmp_path / "my-rnn-homework"
    shutil.copytree(kit, folder)
    return folder


def grade_line(proc) -> str:
    return (proc.stdout + proc.stderr)[-3000:]


def test_the_student_install_imports_the_grader_outside_the_repository(student_venv, student_kit):
    python = student_venv / "bin" / "python"
    script = "import grader, pytest, numpy; from pathlib import Path; print(Path(grader.__file__).resolve())"
    proc = subprocess.run([str(python), "-c", script], cwd=student_kit, capture_output=True, text=True, timeout=120,
                          env=student_env(student_kit))
    assert proc.returncode == 0, proc.stderr
    location = Path(proc.stdout.strip())
    assert location.is_relative_to(student_venv.resolve()) and not location.is_relative_to(ROOT)
    assert not (location.parent / "_course" / "solutions").exists()


def visible_points() -> float:
    from grader.course.loader import bundled_course_root, load_course
    course = load_course(bundled_course_root())
    return sum(c.points for e in course.exercises.values() if not e.is_quiz for c in e.checks if not c.hidden)


def test_grade_check_grades_the_stubs_in_the_kit(student_venv, student_kit):
    proc = subprocess.run([str(student_venv / "bin" / "grade"), "check", ".", "--lang", "en"], cwd=student_kit,
                          capture_output=True, text=True, timeout=600, env=student_env(student_kit))
    output = grade_line(proc)
    assert "Traceback" not in output, output
    assert proc.returncode == 1, output                          # graded, failing: the stubs
    assert f"Total: 0/{visible_points():g}" in output, output
    assert "Graded by your instructor only" in proc.stdout, output    # hidden checks and the quiz
    assert "Isolation: bubblewrap" in proc.stdout, output             # the student install sandboxes too


def finish(kit: Path) -> Path:
    """The student did every exercise: the reference's files in place of the stubs."""
    for path in (SOLUTIONS / "reference").glob("*.py"):
        shutil.copyfile(path, kit / path.name)
    return kit


def test_a_finished_kit_passes_grade_check_and_pytest(student_venv, student_kit):
    finish(student_kit)
    env = student_env(student_kit)
    proc = subprocess.run([str(student_venv / "bin" / "grade"), "check", ".", "--lang", "en"], cwd=student_kit,
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, grade_line(proc)
    assert f"Total: {visible_points():g}/{visible_points():g}" in proc.stdout
    proc = subprocess.run([str(student_venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"],
                          cwd=student_kit, capture_output=True, text=True, timeout=600, env=env)
    output = grade_line(proc)
    assert proc.returncode == 0, output
    assert "skipped" in output and "graded by your instructor only" in output, output
    assert f"score: {visible_points():g}/{visible_points():g}" in proc.stdout, output


def test_pytest_runs_in_the_kit_with_the_grader_plugin(student_venv, student_kit):
    proc = subprocess.run([str(student_venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=student_kit, capture_output=True, text=True, timeout=600, env=student_env(student_kit))
    output = grade_line(proc)
    assert "Missing required plugins" not in output, output   # the wheel registered the pytest11 plugin
    assert proc.returncode == 1, output                       # the stubs fail their checks
    assert "failed" in output and f"score: 0/{visible_points():g}" in proc.stdout, output


# ---------------------------------------------------------------- the instructor's commands in a student install

def grade_in(venv: Path, kit: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "grade"), *args], cwd=kit, capture_output=True, text=True,
                          timeout=timeout, env=student_env(kit))


INSTRUCTOR_ONLY = {
    "class": ["class", "."],
    "validate": ["validate"],
    "release": ["release", "released-kit"],
    "gradescope-bundle": ["gradescope-bundle", "autograder.zip"],
}


@pytest.mark.parametrize("command", sorted(INSTRUCTOR_ONLY))
def test_an_instructors_command_is_refused_in_one_line(student_venv, student_kit, command):
    """A TA who installed the kit's wheel: the command says at once that it needs the instructor's
    install (no FileNotFoundError halfway through, no autograder zip without hidden checks)."""
    proc = grade_in(student_venv, student_kit, *INSTRUCTOR_ONLY[command])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"grade: grade {command} needs the instructor's install: this is a student kit's")
    assert "pip install ." in lines[0] and "--course" in lines[0]
    assert not (student_kit / "released-kit").exists() and not (student_kit / "autograder.zip").exists()
    assert not list(student_kit.glob("*.gradebook.sqlite")) and not list(student_kit.parent.glob("*.gradebook.sqlite"))


def test_what_a_student_install_can_do_still_works(student_venv, student_kit):
    proc = grade_in(student_venv, student_kit, "list", "--lang", "en")
    assert proc.returncode == 0 and "total" in proc.stdout, proc.stderr
    for flag in ("--help", "--version"):
        proc = grade_in(student_venv, student_kit, flag)
        assert proc.returncode == 0 and proc.stdout and not proc.stderr, proc.stderr
    proc = grade_in(student_venv, student_kit, "check", ".", "--lang", "en", "--only", "step", timeout=600)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, grade_line(proc)    # the stub fails
    # grouping a download needs no course
    proc = grade_in(student_venv, student_kit, "class", ".", "--dry-run")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, grade_line(proc)
    # a gradebook's commands need only the gradebook (none here): not refused as the instructor's
    proc = grade_in(student_venv, student_kit, "export", "--csv", "grades.csv", "--gradebook", "none.sqlite")
    assert proc.returncode == 2 and "no such gradebook" in proc.stderr and "instructor" not in proc.stderr


def test_an_instructors_course_folder_given_is_graded_in_a_student_install(student_venv, student_kit, tmp_path):
    """--course with exercises/ and solutions/: the instructor's course, reference, answer key and
    secret, whichever install reads it (the grader's code is the same in both wheels)."""
    course = tmp_path / "course"
    shutil.copytree(EXERCISES, course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOLUTIONS, course / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    submissions = tmp_path / "submissions"
    (submissions / "alice").mkdir(parents=True)
    shutil.copyfile(SOLUTIONS / "reference" / "rnn_step.py", submissions / "alice" / "rnn_step.py")
    proc = grade_in(student_venv, student_kit, "class", str(submissions), "--course", str(course), "--only", "step",
                    "--no-sandbox", "--jobs", "1", "--feedback", "none", "--format", "json",
                    "--no-counterexamples", timeout=600)
    assert proc.returncode == 0, grade_line(proc)
    assert (tmp_path / "submissions.gradebook.sqlite").is_file()
    [alice] = json.loads(proc.stdout)["submissions"]
    [step] = alice["exercises"]
    from grader.course.loader import load_course

    expected = load_course(course).exercises["step"]
    assert any(c.hidden for c in expected.checks)
    # every check of step passed, the hidden ones too: graded from the reference with a secret
    assert [c["name"] for c in step["checks"]] == [c.id for c in expected.checks]
    assert all(c["passed"] for c in step["checks"]) and step["score"] == step["max_score"] == expected.max_score


def test_a_kit_course_folder_given_to_an_instructors_command_is_refused(student_venv, capsys):
    kit_course = next(student_venv.glob("lib/python*/site-packages/grader/_course"))
    assert (kit_course / "kit" / "reference.rec").is_file()
    assert main(["validate", "--course", str(kit_course)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is a student kit's course (no solutions/)" in err, err
