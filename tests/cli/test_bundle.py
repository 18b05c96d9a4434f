"""LMS outputs: the Gradescope autograder zip, and the student kit's GitHub Actions workflow."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

import grader.kit.gradescope_bundle
from conftest import ROOT, copy_reference
from grader.cli import main
from grader.kit.release import WORKFLOW_PATH, write_kit

GRADESCOPE_KEYS = {"score", "output", "visibility", "stdout_visibility", "tests"}
TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility"}


def project_name() -> str:
    return re.search(r'^name = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """`grade gradescope-bundle` run as a user would; returns the zip."""
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    proc = subprocess.run([sys.executable, "-m", "grader", "gradescope-bundle", str(out)], capture_output=True,
                          text=True, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def autograder(bundle, tmp_path_factory):
    """/autograder as Gradescope lays it out: the zip in source/ (modes kept), the wheel installed.

    setup.sh would apt-get install python and pip-install the wheel into /autograder/venv; here
    the wheel is installed offline with --no-deps (numpy & co. come from this environment), and
    venv/bin/grade is a two-line wrapper that puts it first on the path.
    """
    root = tmp_path_factory.mktemp("autograder")
    source = root / "source"
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(source)
        for info in zf.infolist():
            mode = info.external_attr >> 16
            if mode:
                os.chmod(source / info.filename, stat.S_IMODE(mode))
    wheel = next(source.glob("*.whl"))
    site = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--disable-pip-version-check", "--target", str(site), str(wheel)], check=True, timeout=300)
    bin_dir = root / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "grade"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" -m grader "$@"\n')
    wrapper.chmod(0o755)
    (root / "results").mkdir()
    return root


def run_autograder(root: Path, submission_from=None) -> tuple[subprocess.CompletedProcess, dict]:
    submission = root / "submission"
    if submission.exists():
        import shutil
        shutil.rmtree(submission)
    if submission_from is None:
        submission.mkdir()
    else:
        submission_from(submission)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root)}
    proc = subprocess.run([str(root / "source" / "run_autograder")], capture_output=True, text=True, env=env,
                          cwd=root, timeout=600)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return proc, results


def test_the_zip_has_gradescope_layout(bundle):
    with zipfile.ZipFile(bundle) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        wheels = [n for n in infos if n.endswith(".whl")]
        assert {"setup.sh", "run_autograder"} <= set(infos) and len(wheels) == 1
        assert all("/" not in n for n in infos)                 # everything at the root of the zip
        for name in ("setup.sh", "run_autograder"):
            assert (infos[name].external_attr >> 16) & 0o111, f"{name} is not executable"
        run_script = zf.read("run_autograder").decode()
        setup = zf.read("setup.sh").decode()
        wheel_names = zipfile.ZipFile(zf.open(wheels[0])).namelist()
    assert run_script.startswith("#!/usr/bin/env bash\n") and setup.startswith("#!/usr/bin/env bash\n")
    assert "results/results.json" in run_script and "--format gradescope" in run_script
    assert "/autograder" in run_script and "AUTOGRADER_ROOT" in run_script
    assert "--no-sandbox" not in run_script and "command -v bwrap" in run_script
    assert 'chmod -R go-rwx "$SOURCE"' in run_script
    assert run_script.rstrip().endswith("exit 0")
    assert wheels[0] in setup and "python3-pip" in setup and "bubblewrap" in setup and "pip install" in setup
    assert wheels[0].startswith(project_name().replace("-", "_") + "-")
    for script in (run_script, setup):
        subprocess.run(["bash", "-n"], input=script, text=True, check=True)
    # the wheel grades on its own: the course and the new modules travel inside it
    assert "grader/_course/solutions/reference/rnn_step.py" in wheel_names
    assert "grader/kit/templates/gradescope/run_autograder" in wheel_names


def test_the_bundle_brings_its_own_secret_for_hidden_inputs(bundle, autograder):
    """Every container of one autograder draws the same hidden inputs (the bundle's secret),
    and it is not the instructor's."""
    with zipfile.ZipFile(bundle) as zf:
        secret = zf.read("secret").decode().strip()
        script = zf.read("run_autograder").decode()
    assert len(secret) == 64 and secret != os.environ.get("GRADER_SECRET")
    assert 'export GRADER_SECRET' in script
    probe = autograder / "probe.sh"
    probe.write_text(script.split("args=(check", 1)[0] + 'printf %s "$GRADER_SECRET"\n')
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SECRET"}
    out = subprocess.run(["bash", str(probe)], capture_output=True, text=True, check=True, timeout=60,
                         env={**env, "AUTOGRADER_ROOT": str(autograder)}).stdout
    assert out == secret


def test_run_autograder_grades_the_reference_with_full_marks(autograder):
    probe = subprocess.run([str(autograder / "venv" / "bin" / "grade"), "--version"], capture_output=True, text=True)
    assert probe.returncode == 0
    where = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(autograder / "site")}, cwd=autograder)
    assert where.stdout.strip().startswith(str(autograder / "site"))      # the wheel's grader, not the checkout

    proc, results = run_autograder(autograder, copy_reference)
    assert proc.returncode == 0, proc.stderr
    assert GRADESCOPE_KEYS <= set(results)
    assert results["score"] == results["extra_data"]["max_score"] > 0
    assert results["tests"] and all(TEST_KEYS <= set(t) for t in results["tests"])
    assert all(t["status"] == "passed" for t in results["tests"])
    assert sum(t["max_score"] for t in results["tests"]) == results["score"]
    assert "grade exited with code 0" in proc.stdout


def test_run_autograder_always_exits_zero_and_explains(autograder):
    proc, results = run_autograder(autograder)          # an empty submission: bad input, exit 2
    assert proc.returncode == 0
    assert results["score"] == 0 and results["tests"] == []
    assert results["extra_data"]["grade_exit_code"] == 2
    assert results["output"].startswith("Your submission could not be graded:")

    def stubs_only(dest):
        import shutil
        shutil.copytree(ROOT / "exercises" / "stubs", dest)

    proc, results = run_autograder(autograder, stubs_only)        # graded, every check fails: exit 1
    assert proc.returncode == 0 and "grade exited with code 1" in proc.stdout
    assert results["score"] == 0 and results["tests"] and all(t["status"] == "failed" for t in results["tests"])


def test_run_autograder_without_bubblewrap_grades_confined(autograder, tmp_path):
    """No bwrap on the PATH (as in Gradescope's containers): the grader's fallback confines
    student code, the report says which, and the bundle's source is closed to others."""
    from grader.sandbox.isolation import fallback_isolation

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "mkdir", "rm", "chmod"):
        os.symlink(subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True,
                                  check=True).stdout.strip(), bin_dir / tool)
    submission = autograder / "submission"
    if submission.exists():
        import shutil
        shutil.rmtree(submission)
    copy_reference(submission)
    env = {**os.environ, "AUTOGRADER_ROOT": str(autograder), "PATH": str(bin_dir)}
    proc = subprocess.run(["bash", str(autograder / "source" / "run_autograder")], capture_output=True, text=True,
                          env=env, cwd=autograder, timeout=600)
    assert proc.returncode == 0
    assert "bubblewrap (bwrap) is missing" in proc.stdout
    results = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["extra_data"]["isolation"] == fallback_isolation("", None).name != "process"
    assert results["score"] == results["extra_data"]["max_score"]
    for path in [autograder / "source", *(autograder / "source").rglob("*")]:
        assert path.stat().st_mode & 0o077 == 0, path


def test_bundle_with_a_course_packs_it(tmp_path, monkeypatch):
    def fake_wheel(root, dest):
        wheel = dest / "rnn_grader-0.1.0-py3-none-any.whl"
        wheel.write_bytes(b"wheel")
        return wheel

    monkeypatch.setattr(grader.kit.gradescope_bundle, "build_wheel", fake_wheel)
    out = tmp_path / "ag.zip"
    assert main(["gradescope-bundle", str(out), "--course", str(ROOT), "--lang", "zh"]) == 0
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        script = zf.read("run_autograder").decode()
    assert {"course/exercises/step.yaml", "course/solutions/reference/rnn_step.py",
            "course/solutions/mistakes/step/catalogue.yaml"} <= names
    assert not any("__pycache__" in n for n in names)
    assert 'GRADE_LANG="zh"' in script and '"$SOURCE/course"' in script


def test_bundle_from_a_plain_install_ships_the_installed_grader(tmp_path):
    """After `pip install .` (no source tree: the course in grader/_course/) the bundle
    still builds, with the installed package, bundled course and metadata written back."""
    import importlib.metadata

    dist = importlib.metadata.distribution("rnn-grader")
    site = tmp_path / "site"
    shutil.copytree(ROOT / "grader", site / "grader", ignore=shutil.ignore_patterns("__pycache__", "_course"))
    for folder in ("exercises", "solutions"):
        shutil.copytree(ROOT / folder, site / "grader" / "_course" / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"rnn_grader-{dist.version}.dist-info"
    info.mkdir()
    for name in ("METADATA", "entry_points.txt"):
        (info / name).write_text(dist.read_text(name), encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    out = tmp_path / "ag.zip"
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import grader.kit.gradescope_bundle as b;"
              "assert b.project_root() is None; from grader.cli import main;"
              "sys.exit(main(['gradescope-bundle', sys.argv[2]]))")
    proc = subprocess.run([sys.executable, "-c", script, str(site), str(out)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as zf:
        wheel_name = next(n for n in zf.namelist() if n.endswith(".whl"))
        (tmp_path / wheel_name).write_bytes(zf.read(wheel_name))
    with zipfile.ZipFile(tmp_path / wheel_name) as wheel:
        names = set(wheel.namelist())
        assert {"grader/cli.py", "grader/_course/exercises/step.yaml", "grader/_course/solutions/reference/rnn_step.py",
                f"rnn_grader-{dist.version}.dist-info/RECORD"} <= names
        assert wheel.read(f"rnn_grader-{dist.version}.dist-info/METADATA").decode() == dist.read_text("METADATA")
        assert b"console_scripts" in wheel.read(f"rnn_grader-{dist.version}.dist-info/entry_points.txt")


# ---------------------------------------------------------------- the kit's GitHub Actions workflow

@pytest.fixture
def kit(tmp_path, course):
    folder = tmp_path / "kit"
    write_kit(course, folder)
    return folder


def test_the_kit_has_a_github_actions_workflow(kit):
    workflow = yaml.safe_load((kit / WORKFLOW_PATH).read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))        # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"push", "pull_request"}
    job = workflow["jobs"]["grade"]
    assert job["runs-on"] == "ubuntu-24.04"
    steps = job["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/checkout@") for u in uses)
    setup_python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert str(setup_python["with"]["python-version"]) == "3.11"
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "profile bwrap /usr/bin/bwrap flags=(unconfined)" in runs and "apparmor_parser -r" in runs
    # the grader comes from the wheel the kit ships (no package index has it), its dependencies from PyPI
    wheels = sorted(p.relative_to(kit).as_posix() for p in (kit / "wheels").glob("*.whl"))
    assert len(wheels) == 1 and f"python -m pip install {wheels[0]}" in runs
    assert f"pip install {project_name()}" not in runs
    assert "grade check . --format markdown --output grade.md" in runs
    assert '>> "$GITHUB_STEP_SUMMARY"' in runs
    # the AppArmor step is the security page's, word for word
    readme = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    profile = re.search(r"sudo tee /etc/apparmor.d/bwrap.*?sudo apparmor_parser -r /etc/apparmor.d/bwrap", readme, re.S)
    assert [line.strip() for line in profile.group(0).splitlines()] == \
        [line.strip() for line in re.search(r"sudo tee .*?apparmor_parser[^\n]*", runs, re.S).group(0).splitlines()]


@pytest.mark.parametrize("exit_code, job_fails", [(0, False), (1, False), (2, True), (3, True)])
def test_the_grade_step_fails_only_when_the_grader_could_not_grade(kit, tmp_path, exit_code, job_fails):
    """The workflow's Grade step, run with bash -e as Actions runs it, around a stand-in `grade`."""
    workflow = yaml.safe_load((kit / WORKFLOW_PATH).read_text(encoding="utf-8"))
    step = next(s for s in workflow["jobs"]["grade"]["steps"] if s.get("name") == "Grade")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "grade"
    fake.write_text(f'#!/bin/sh\nprintf "## report %s\\n" "$*" > grade.md\nexit {exit_code}\n')
    fake.chmod(0o755)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary)}
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=kit, env=env,
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode != 0) == job_fails, proc.stdout + proc.stderr
    assert summary.read_text() == "## report check . --format markdown --output grade.md\n"
