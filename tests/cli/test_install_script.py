"""scripts/install-system-packages, run against stand-ins for apt-get and python3: it asks
for what is missing (bubblewrap, libseccomp2, the venv module; with --ci, chromium) and
nothing when all is there."""

import os
import stat
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-system-packages"


def fake_bin(tmp_path, *, venv_works: bool, bwrap: bool) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"

    def tool(name, body):
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    tool("apt-get", f'echo "$@" >> {log}')
    tool("apt-cache", 'case "$2" in python3.*-venv) exit 0;; *) exit 1;; esac')
    tool("ldconfig", "echo 'libseccomp.so.2 (libc6,x86-64) => /lib/libseccomp.so.2'")
    tool("id", "echo 0")
    tool("python3", ('case "$*" in *ensurepip*) exit %d;; *) echo 3.11;; esac' % (0 if venv_works else 1)))
    if bwrap:
        tool("bwrap", "exit 0")
    for name in ("grep", "sh", "bash", "dirname"):   # what the script itself runs
        for where in ("/usr/bin", "/bin"):
            if os.path.exists(f"{where}/{name}"):
                (bin_dir / name).symlink_to(f"{where}/{name}")
                break
    return bin_dir


def run(tmp_path, *args, chromium: bool = False, **kw) -> str:
    bin_dir = fake_bin(tmp_path, **kw)
    browser = tmp_path / "chromium"        # a stand-in for /usr/bin/chromium, which this machine may have
    if chromium:
        browser.write_text("#!/bin/sh\n")
        browser.chmod(0o755)
    done = subprocess.run(["/bin/bash", str(SCRIPT), *args],
                          env={"PATH": str(bin_dir), "GRADER_TEST_CHROMIUM": str(browser)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    log = tmp_path / "apt.log"
    return log.read_text() if log.exists() else ""


def test_a_python_without_ensurepip_gets_the_venv_packages(tmp_path):
    installed = run(tmp_path, venv_works=False, bwrap=True)
    assert "install" in installed
    assert "python3-venv" in installed and "python3.11-venv" in installed


def test_nothing_is_installed_when_everything_is_there(tmp_path):
    assert run(tmp_path, venv_works=True, bwrap=True) == ""


def test_a_missing_bubblewrap_is_installed_without_the_venv_packages(tmp_path):
    installed = run(tmp_path, venv_works=True, bwrap=False)
    assert "bubblewrap" in installed and "venv" not in installed


def test_ci_installs_chromium_for_the_browser_test(tmp_path):
    installed = run(tmp_path, "--ci", venv_works=True, bwrap=True)
    assert "install -y -qq chromium" in installed
    assert installed.index("update") < installed.index("chromium")     # a fresh machine has no package lists


def test_ci_with_chromium_there_installs_nothing(tmp_path):
    assert run(tmp_path, "--ci", venv_works=True, bwrap=True, chromium=True) == ""


def test_without_ci_chromium_is_never_installed(tmp_path):
    installed = run(tmp_path, venv_works=True, bwrap=False)
    assert "bubblewrap" in installed and "chromium" not in installed
