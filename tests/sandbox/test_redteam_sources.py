"""Red-team attacks on the trusted side's loading of a submission (issue 10, breach 5).

Source decoding and notebook conversion run in the grader itself, not in the
sandbox, so whatever a submission makes them do costs trusted CPU and memory,
and whatever they decide must be what the sandboxed worker later reads. Each
test below reproduces one attack: a coding cookie whose codec is slow
(punycode: quadratic), not a text encoding (rot-13: an internal error), unknown
or odd; a cookie that made the two sides read different text; notebooks that
made the conversion recompile a big cell once per fix, give one note per broken
cell, or explode in memory while being parsed.

Time and memory are measured in a subprocess (a timeout stops the old
behaviour early; its peak resident memory is its own), with bounds many times
above what the fixed code needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, copy_reference
from grader.report import render
from grader.sandbox.isolation import bwrap_path
from grader.submission.load import SubmissionError, load_submission, note_text

MiB = 1024 * 1024
REFERENCE = ROOT / "solutions" / "reference"
CHINESE = range(0x4E00, 0xA000)

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")


# ---------------------------------------------------------------------------- helpers

# The peak resident memory of this process image: VmHWM, as ru_maxrss would also count the peak of the
# (big) pytest process this one was forked from.
LOAD_SCRIPT = """
import json, re, sys, time
from pathlib import Path
import nbformat, grader.submission.notebook                     # imported before the baseline: both versions pay it
from grader.submission.load import SubmissionError, load_submission, note_text
def peak_kib():
    with open("/proc/self/status") as fh:
        return int(re.search(r"VmHWM:\\s*(\\d+)", fh.read()).group(1))
base = peak_kib()
start = time.monotonic()
try:
    sub = load_submission(Path(sys.argv[1]), Path(sys.argv[2]))
    out = {"notes": [note_text(m) for m in sub.messages],
           "rejected": {m: [msg.render("en"), msg.render("zh")] for m, msg in getattr(sub, "rejected", {}).items()}}
except SubmissionError as exc:
    out = {"error": str(exc)}
out["seconds"] = time.monotonic() - start
out["grown_mib"] = (peak_kib() - base) / 1024
print(json.dumps(out))
"""


def notes_of(sub) -> list[str]:
    """The submission's notes in English, without the report's "Note: "."""
    return [note_text(m) for m in sub.messages]


def load_in_subprocess(path: Path, workdir: Path, timeout: float) -> dict:
    """load_submission in a fresh interpreter: its outcome, seconds and memory grown while loading."""
    try:
        proc = subprocess.run([sys.executable, "-c", LOAD_SCRIPT, str(path), str(workdir)], cwd=ROOT,
                              capture_output=True, timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading {path.name} took more than {timeout} s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def cli(*args, timeout=180):
    env = {k: v for k, v in os.environ.items() if k != "GRADER_STRICT"}
    proc = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True,
                          cwd=ROOT, timeout=timeout, env=env, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def import_and_show(root: Path, module: str, name: str) -> str:
    """What the worker reads: Python's own import of the copy, in a fresh interpreter."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import {module}; print(ascii({module}.{name}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def write_notebook(path: Path, *sources: str, extra: dict | None = None) -> Path:
    """A v4 notebook written as plain JSON (nbformat.write validates: far too slow for 150 000 cells)."""
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in sources]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": dict(extra or {}), "cells": cells}
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def scores(result) -> dict:
    return {e.id: (e.score, e.max_score) for e in result.exercises}


def has_chinese(text: str) -> bool:
    return any(ord(c) in CHINESE for c in text)


# ---------------------------------------------------------------------------- coding cookies

PUNYCODE = b"# coding: punycode\n-" + b"a" * (MiB - 64)   # decoding it is quadratic: ~70 s of CPU


@needs_bwrap
def test_punycode_cookie_costs_no_trusted_cpu_and_fails_only_its_file(fast_grader, tmp_path):
    zpath = tmp_path / "slow.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in REFERENCE.glob("*.py"):
            if path.name != "rnn_step.py":
                zf.write(path, path.name)
        zf.writestr("rnn_step.py", PUNYCODE)
        for k in range(3):                                   # 49 of them fit under the zip caps
            zf.writestr(f"extra{k}.py", PUNYCODE)
    assert zpath.stat().st_size < 64 * 1024

    out = load_in_subprocess(zpath, tmp_path / "timed", timeout=60)
    assert out["seconds"] < 5, out["seconds"]
    en, zh = out["rejected"]["rnn_step"]
    assert "rnn_step.py" in en and "punycode" in en
    assert "rnn_step.py" in zh and "punycode" in zh and has_chinese(zh)
    assert any("extra1.py" in note and "punycode" in note for note in out["notes"])

    result = fast_grader.grade(load_submission(zpath, tmp_path / "work"), ["step", "params"])
    got = scores(result)
    assert got["step"][0] == 0 and got["params"][0] == got["params"][1] > 0
    step = next(e for e in result.exercises if e.id == "step")
    for lang in ("en", "zh"):
        shown = step.problem.render(lang)
        assert "rnn_step.py" in shown and "punycode" in shown, shown


@needs_bwrap
def test_rot13_cookie_is_a_per_file_failure_never_an_internal_error(tmp_path):
    folder = copy_reference(tmp_path / "rot")
    path = folder / "rnn_step.py"
    path.write_bytes(b"# coding: rot-13\n" + path.read_bytes())
    code, stdout, stderr = cli("check", folder, "--only", "step", "--only", "params", "--format", "json")
    assert code == 1, (code, stderr)
    assert "internal error" not in stderr
    report = json.loads(stdout)
    got = {e["id"]: e for e in report["exercises"]}
    assert got["step"]["score"] == 0 and got["params"]["score"] == got["params"]["max_score"]
    assert "rnn_step.py" in got["step"]["problem"] and "rot-13" in got["step"]["problem"]


REFUSED = ["rot-13", "rot13", "punycode", "klingon", "utf-7", "utf-16", "utf_32", "base64", "hex", "zlib",
           "idna", "undefined", "mbcs", "palmos", "x" * 5000]


@pytest.mark.parametrize("codec", REFUSED, ids=lambda c: c[:12])
def test_other_coding_cookies_are_refused_for_that_file_only(tmp_path, codec):
    src = tmp_path / "s"
    src.mkdir()
    (src / "rnn_step.py").write_bytes(f"#!/usr/bin/env python\n# -*- coding: {codec} -*-\nx = 1\n".encode())
    (src / "param_count.py").write_text("# coding: latin-1\ny = 2\n", encoding="utf-8")
    (src / "late.py").write_text(f"z = 3\n# coding: {codec}\n", encoding="utf-8")   # not a cookie for Python

    sub = load_submission(src, tmp_path / "work")
    assert set(sub.rejected) == {"rnn_step"}
    for lang in ("en", "zh"):
        shown = sub.rejected["rnn_step"].render(lang)
        assert "rnn_step.py" in shown and codec[:20] in shown and len(shown) < 600, shown
    assert has_chinese(sub.rejected["rnn_step"].render("zh"))
    assert len(sub.rejected["rnn_step"].params["encoding"]) < 100
    # the copy the worker would import fails with the same story, and nothing else is affected
    proc = subprocess.run([sys.executable, "-c", "import rnn_step"], cwd=sub.root, capture_output=True, text=True)
    assert proc.returncode != 0 and "SyntaxError" in proc.stderr and codec[:20] in proc.stderr
    assert import_and_show(sub.root, "param_count", "y") == "2"
    assert import_and_show(sub.root, "late", "z") == "3"


def test_a_refused_cookie_in_a_single_file_fails_its_exercises_not_the_run(tmp_path):
    path = tmp_path / "hw.py"
    path.write_bytes(b"# coding: rot13\n" + (REFERENCE / "param_count.py").read_bytes())
    sub = load_submission(path, tmp_path / "work")
    assert set(sub.rejected) == {"submission"}
    assert "hw.py" in sub.rejected["submission"].render("en")


# What the trusted side decoded must be what Python reads from the copy: the copy is UTF-8 and no
# cookie in it may say otherwise (a cookie the bytes do not match, a cookie in a UTF-16 file or in a
# notebook cell used to survive into the copy and change what the worker read).
AGREE = {
    "ascii_cookie_utf8_bytes": (b"# coding: ascii\ns = '\xc3\xa9t\xc3\xa9'\n", "\u00e9t\u00e9"),
    "gb2312_cookie_gbk_bytes": ("# -*- coding: gb2312 -*-\ns = '我們'\n".encode("gbk"), "我們"),
    "gbk_cookie_invalid_bytes": (b"# coding: gbk\ns = 'caf\xe9'\n", "caf\u00e9"),
    "utf16_with_cookie": ("# coding: latin-1\ns = 'été'\n".encode("utf-16"), "\u00e9t\u00e9"),
    "cookie_on_line_two": (b"\n# vim: set fileencoding=cp1252 :\ns = '\x80 \xe9'\n", "\u20ac \u00e9"),
}


@pytest.mark.parametrize("case", list(AGREE))
def test_a_cookie_cannot_make_the_worker_read_other_text(tmp_path, case):
    data, expected = AGREE[case]
    src = tmp_path / "s"
    src.mkdir()
    (src / "mod.py").write_bytes(data)
    sub = load_submission(src, tmp_path / "work")
    assert import_and_show(sub.root, "mod", "s") == ascii(expected)


@pytest.mark.parametrize("cookie", ["latin-1", "punycode", "rot-13", "utf-16"])
def test_a_cookie_in_a_notebook_cell_cannot_change_what_the_worker_reads(tmp_path, cookie):
    path = write_notebook(tmp_path / "nb.ipynb", f"# -*- coding: {cookie} -*-\ns = 'été'\n", "t = 1\n")
    sub = load_submission(path, tmp_path / "work")
    assert import_and_show(sub.root, "submission", "s") == ascii("été")


@needs_bwrap
def test_legitimate_latin1_cp1252_and_chinese_files_still_grade(fast_grader, tmp_path):
    folder = copy_reference(tmp_path / "legit")

    def recode(name, header, codec, comment):
        text = (folder / name).read_text(encoding="utf-8")
        (folder / name).write_bytes((header + comment + text).encode(codec))

    recode("rnn_step.py", "# -*- coding: latin-1 -*-\n", "latin-1", "# défini ici, café\n")
    recode("readout.py", "# coding: windows-1252\n", "cp1252", "# coût: 5 €\n")
    recode("param_count.py", "# -*- coding: gb2312 -*-\n", "gbk", "# 參數們：循环神经网络\n")   # GBK-only characters
    recode("masking.py", "", "gb18030", "# 掩码：隐藏状态\n")                                  # no cookie at all
    recode("bptt.py", "# coding: UTF_8\n", "utf-8", "# 反向传播\n")
    sub = load_submission(folder, tmp_path / "work")
    assert not sub.rejected
    result = fast_grader.grade(sub, ["step", "readout", "params", "masking", "bptt"])
    for exercise, (score, max_score) in scores(result).items():
        assert score == max_score > 0, (exercise, [c.message.render("en") for e in result.exercises
                                                   for c in e.checks if not c.passed][:3])


# ---------------------------------------------------------------------------- notebook conversion

def test_huge_notebook_cell_with_many_late_future_imports_is_bounded(tmp_path):
    """The issue's 6.7 MiB notebook: 111 s and 1.5 GB in conversion before."""
    cell = "x = 1\n" * 500_000 + "from __future__ import annotations\n" * 100_000
    path = write_notebook(tmp_path / "future.ipynb", cell)
    assert path.stat().st_size > 6 * MiB
    out = load_in_subprocess(path, tmp_path / "work", timeout=90)
    assert out["seconds"] < 30, out
    assert out["grown_mib"] < 400, out
    assert "error" in out and "future.ipynb" in out["error"] and "\n" not in out["error"], out


def test_late_future_imports_cost_linear_work(tmp_path, monkeypatch):
    """Under the size cap: every late import dropped in one pass, not one recompilation per import."""
    import symtable

    import grader.submission.notebook as notebook

    cell = "x = 1\n" * 2_000 + "from __future__ import annotations\n" * 2_000 + "y = 2\n"
    path = write_notebook(tmp_path / "future.ipynb", "from __future__ import annotations\nimport math\n",
                          cell, "z = 3\n")
    code_size = sum(len(s) for s in ("from __future__ import annotations\nimport math\n", cell, "z = 3\n"))
    seen = []
    real_compile, real_symtable = compile, symtable.symtable

    def counting_compile(source, *args, **kwargs):
        seen.append(len(source))
        return real_compile(source, *args, **kwargs)

    def counting_symtable(source, *args, **kwargs):
        seen.append(len(source))
        return real_symtable(source, *args, **kwargs)

    monkeypatch.setattr(notebook, "compile", counting_compile, raising=False)
    monkeypatch.setattr(symtable, "symtable", counting_symtable)
    sub = load_submission(path, tmp_path / "work")
    monkeypatch.undo()

    assert sum(seen) <= 4 * code_size, (len(seen), sum(seen), code_size)
    source = (sub.root / "submission.py").read_text(encoding="utf-8")
    lines = source.split("\n")
    assert lines[0] == "from __future__ import annotations"
    assert sum(1 for ln in lines if ln == "from __future__ import annotations") == 1
    assert sum(1 for ln in lines if ln == "# from __future__ import annotations") == 2_000
    compile(source, "submission.py", "exec", dont_inherit=True)
    assert len(notes_of(sub)) <= 21 and "more" in notes_of(sub)[-1]
    assert import_and_show(sub.root, "submission", "y") == "2"


def test_identical_lambdas_cost_no_quadratic_compilation(tmp_path):
    """compile() is quadratic in identical code objects (they collide in its constant table): 29 000
    `lambda:0` lines, 261K characters, took minutes of trusted CPU to check; parsing them takes a second."""
    path = write_notebook(tmp_path / "lambdas.ipynb", "lambda:0\n" * 29_000)
    out = load_in_subprocess(path, tmp_path / "work", timeout=120)
    assert out["seconds"] < 15, out
    assert "error" not in out and not out["notes"], out


def test_notebook_with_150000_broken_cells_is_refused_quickly(tmp_path):
    path = write_notebook(tmp_path / "broken.ipynb", *["x = (\n"] * 150_000)
    out = load_in_subprocess(path, tmp_path / "work", timeout=120)
    assert out["seconds"] < 30, out
    assert out["grown_mib"] < 400, out
    if "error" in out:
        assert "broken.ipynb" in out["error"] and len(out["error"]) < 300, out["error"]
    else:
        assert len(out["notes"]) <= 21, len(out["notes"])


@needs_bwrap
def test_notes_are_capped_and_the_report_stays_small(fast_grader, tmp_path):
    param_count = (REFERENCE / "param_count.py").read_text(encoding="utf-8")
    path = write_notebook(tmp_path / "many.ipynb", param_count, *[f"broken_{k} = (\n" for k in range(3000)])
    sub = load_submission(path, tmp_path / "work")
    assert len(notes_of(sub)) <= 21
    assert "2980" in notes_of(sub)[-1]                         # "... and 2980 more"
    result = fast_grader.grade(sub, ["params"])
    assert scores(result)["params"][0] == scores(result)["params"][1] > 0
    for fmt in ("text", "json", "markdown", "junit"):
        assert len(render(result, fmt, "en").encode("utf-8")) < 64 * 1024, fmt


def test_notes_of_a_zip_full_of_skipped_entries_are_capped(tmp_path):
    zpath = tmp_path / "noisy.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.write(REFERENCE / "param_count.py", "param_count.py")
        for k in range(1500):
            zf.writestr(f"../escape{k}.py", "x = 1\n")
    sub = load_submission(zpath, tmp_path / "work")
    assert len(notes_of(sub)) <= 21 and "1480" in notes_of(sub)[-1]


def test_notebook_json_bomb_is_refused_before_it_is_parsed(tmp_path):
    """20 MiB of `{},` parse into 7 million dicts (550 MB) before the cells are even looked at."""
    path = tmp_path / "bomb.ipynb"
    with open(path, "wb") as fh:
        fh.write(b'{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"x": [')
        fh.write(b"{}," * (20 * MiB // 3))
        fh.write(b"{}]}}")
    out = load_in_subprocess(path, tmp_path / "work", timeout=90)
    assert out["grown_mib"] < 200, out
    assert "error" in out and "bomb.ipynb" in out["error"] and len(out["error"]) < 300, out


def test_lone_surrogate_in_a_notebook_cell_is_no_internal_error(tmp_path):
    path = write_notebook(tmp_path / "sur.ipynb", "s = '\ud800'\nt = 1\n")
    sub = load_submission(path, tmp_path / "work")
    source = (sub.root / "submission.py").read_bytes().decode("utf-8")
    compile(source, "submission.py", "exec", dont_inherit=True)
    assert import_and_show(sub.root, "submission", "t") == "1"


def test_oversized_notebook_code_names_the_limit(tmp_path):
    path = write_notebook(tmp_path / "big.ipynb", "x = 1\n" * 100_000)
    with pytest.raises(SubmissionError, match=r"big\.ipynb.*code"):
        load_submission(path, tmp_path / "work")


def test_a_normal_notebook_still_converts_with_its_notes(tmp_path):
    path = write_notebook(tmp_path / "ok.ipynb", textwrap.dedent("""\
        import numpy as np
        def f(x):
            return x + 1
        """), "return 5\n", "def g(:\n    pass\n", "ANSWER = f(1)\n")
    sub = load_submission(path, tmp_path / "work")
    notes = " | ".join(notes_of(sub))
    assert "cell 2" in notes and "cell 3" in notes and "SyntaxError" in notes
    assert import_and_show(sub.root, "submission", "ANSWER") == "2"
