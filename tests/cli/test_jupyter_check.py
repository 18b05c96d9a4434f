"""Checks from inside Jupyter (issue 34, CONTRACT section 10), with a real kernel.

The released kit is installed in a virtual environment of its own (the kit's wheel, with
``--system-site-packages`` for NumPy, ipykernel and nbclient, so no index is needed), and the
kit's notebook runs end to end in an ipykernel of that environment, driven by nbclient: the
stubs (zero, and what to do), the reference pasted into the cells (full marks, the same as
``grade check`` on the saved notebook), a known mistake (named), a function redefined in a
later cell (the later one graded), an edit never saved (graded from the kernel), Chinese, an
unknown id, a cell that raised, a cell that loops, the grading process killed. The HTML block
is rendered in headless Chromium. The helper's failure modes without a kernel (no kit, no
sandbox) are tested on grader/jupyter/session.py directly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import nbformat
import pytest
import yaml

from conftest import REFERENCE, ROOT
from grader.cli import main
from grader.submission.notebook import convert_notebook, inert_checks

nbclient = pytest.importorskip("nbclient", reason="the test extra installs nbclient and ipykernel")
pytest.importorskip("ipykernel")

CHROMIUM = Path("/usr/bin/chromium")
MISSING_BIAS = (ROOT / "solutions" / "mistakes" / "step" / "missing_bias.py").read_text(encoding="utf-8")
SCORE = re.compile(r"data-score='([\d.]+)' data-max-score='([\d.]+)'")


# ---------------------------------------------------------------- the kit, installed, and its kernel

@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> dict:
    """The released kit, its wheel in a venv of its own, and a kernelspec running that venv's Python."""
    base = tmp_path_factory.mktemp("jupyter")
    out = base / "kit"
    assert main(["release", str(out)]) == 0
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    wheel = sorted((out / "wheels").glob("*.whl"))[0]
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                          capture_output=True, text=True, timeout=600, env=student_env(base))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    where = subprocess.run([str(python), "-c", "import grader; print(grader.__file__)"], capture_output=True,
                           text=True, cwd=base, env=student_env(base), check=True).stdout.strip()
    assert Path(where).is_relative_to(venv), where     # the kit's grader, not this repository's
    spec = base / "jupyter" / "kernels" / "kit"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "the kit", "language": "python"}), encoding="utf-8")
    return {"out": out, "venv": venv, "python": python, "jupyter_path": base / "jupyter", "base": base}


def student_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GRADER_SECRET", "PYTEST_ADDOPTS") and not k.startswith("PYTEST_")}
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["LANG"] = "C.UTF-8"
    return env


def execute(kit, nb, folder: Path, timeouts=None):
    """Run ``nb`` in the kit's kernel with ``folder`` as its working folder, errors allowed, as a
    student's Run All; ``timeouts``: source -> seconds after which the cell is interrupted."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(student_env(kit["base"]))
    os.environ["JUPYTER_PATH"] = str(kit["jupyter_path"])
    try:
        client = nbclient.NotebookClient(
            nb, kernel_name="kit", allow_errors=True, resources={"metadata": {"path": str(folder)}},
            timeout=600, interrupt_on_timeout=True,
            timeout_func=lambda cell: (timeouts or {}).get(cell.source, 600))
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb


def feedback(cell) -> tuple[str, str]:
    """The check's output in a cell: (text/html, text/plain)."""
    shown = [o for o in cell.outputs if o.get("output_type") in ("display_data", "execute_result")
             and "grader-check" in o.get("data", {}).get("text/html", "")]
    assert len(shown) == 1, cell.outputs
    data = shown[0]["data"]
    assert "Traceback" not in data["text/plain"] and not [o for o in cell.outputs if o.output_type == "error"]
    return data["text/html"], data["text/plain"]


def score(cell) -> tuple[float, float]:
    html, _ = feedback(cell)
    found = SCORE.search(html)
    assert found, html[:2000]
    return float(found.group(1)), float(found.group(2))


def check_cells(nb) -> dict[str, object]:
    return {m.group(1): c for c in nb.cells if c.cell_type == "code"
            for m in [re.fullmatch(r'check\("(\w+)"\)', c.source.strip())] if m}


def with_reference(nb):
    """The kit's notebook with the reference pasted into its code cells (as in test_notebook_cells)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        first = cell.source.split("\n", 1)[0]
        if re.fullmatch(r"# \w+\.py", first):
            cell.source = first + "\n" + (REFERENCE / first[2:]).read_text(encoding="utf-8")
        elif "ANSWERS = {" in cell.source:
            cell.source = "ANSWERS = " + repr(yaml.safe_load((REFERENCE / "answers.yaml").read_text(encoding="utf-8")))
    return nb


def grade_json(kit, path: Path, *only) -> dict:
    """``grade check PATH --format json`` with the kit's grader."""
    args = [str(kit["venv"] / "bin" / "grade"), "check", str(path), "--format", "json", "--lang", "en"]
    args += [a for x in only for a in ("--only", x)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=path.parent,
                          env=student_env(kit["base"]))
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads(proc.stdout)


def code_index(nb, cell) -> int:
    """The execution count nbclient gave ``cell`` (the code cells run in order from 1)."""
    return [c for c in nb.cells if c.cell_type == "code"].index(cell) + 1


# ---------------------------------------------------------------- the stubs

@pytest.fixture(scope="module")
def stubs_run(kit, tmp_path_factory):
    folder = tmp_path_factory.mktemp("stubs-kit")
    shutil.copytree(kit["out"], folder, dirs_exist_ok=True)
    nb = nbformat.read(str(folder / "rnn_exercises.ipynb"), as_version=4)
    return execute(kit, nb, folder), folder


def test_the_kit_notebook_starts_with_the_setup_cell_and_checks_each_exercise(kit):
    nb = nbformat.read(str(kit["out"] / "rnn_exercises.ipynb"), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code[0] == "from grader.jupyter import check, check_all" and code[-1] == "check_all()"
    ids = [m.group(1) for s in code for m in [re.fullmatch(r'check\("(\w+)"\)', s)] if m]
    course = yaml.safe_load((ROOT / "exercises" / "course.yaml").read_text(encoding="utf-8"))
    assert course["notebook"] == "rnn_exercises.ipynb"
    assert ids == [p for p in ["step", "scalar", "forward", "params", "masking", "readout", "bptt", "clipping",
                               "truncation", "gradient_flow", "birnn", "tinyrnn", "quiz"]]
    readme = (kit["out"] / "README.md").read_text(encoding="utf-8")
    for part in readme.split("## 中文")[0], readme.split("## 中文")[1]:
        first_code = part.index("```python")
        assert 'check("step")' in part[first_code:first_code + 200]
        assert first_code < part.index("grade check")          # the check cell is shown first


def test_the_stubs_show_zero_and_what_to_do(stubs_run):
    nb, _ = stubs_run
    cells = check_cells(nb)
    assert score(cells["step"])[0] == 0 and score(cells["step"])[1] > 0
    html, text = feedback(cells["step"])
    assert "rnn_step` is not implemented yet" in html           # each check says what to do
    # the text report says it too (or, for an exercise not started, where to begin)
    assert "`rnn_step` is not implemented yet" in text or "Where to begin: step" in text
    assert "✗" in html and "step" in text
    total = [c for c in nb.cells if c.source == "check_all()"][0]
    assert score(total)[0] == 0
    # the setup cell printed nothing and raised nothing
    setup = [c for c in nb.cells if c.cell_type == "code"][0]
    assert setup.outputs == []


def test_the_stubs_grade_as_grade_check_grades_the_saved_notebook(kit, stubs_run):
    nb, folder = stubs_run
    saved = grade_json(kit, folder / "rnn_exercises.ipynb")
    cells = check_cells(nb)
    for exercise in saved["exercises"]:
        assert score(cells[exercise["id"]]) == (exercise["score"], exercise["max_score"]), exercise["id"]
    assert "stopped" not in json.dumps(saved)       # the check cells are inert when the notebook is graded


# ---------------------------------------------------------------- the reference, then the cases

@pytest.fixture(scope="module")
def filled_run(kit, tmp_path_factory):
    """In the kit's folder, whose notebook on disk stays the stubs (never saved): the reference
    pasted into the cells, then a known mistake, the reference again, Chinese, an unknown id, a
    cell that raised, and the grading process killed."""
    folder = tmp_path_factory.mktemp("filled-kit")
    shutil.copytree(kit["out"], folder, dirs_exist_ok=True)
    nb = with_reference(nbformat.read(str(folder / "rnn_exercises.ipynb"), as_version=4))
    extra = {
        "mistake": MISSING_BIAS, "check_mistake": 'check("step")',
        "again": "def rnn_step(x_t, h_prev, W_x, W_h, b):\n    return np.tanh(x_t @ W_x + h_prev @ W_h + b)",
        "check_again": 'check("step")',
        "zh": 'check("step", lang="zh")', "unknown": 'check("no_such_exercise")',
        "raises": "print(my_scratch_variable)", "check_raised": 'check("step")',
        "kill": "import grader.jupyter as gj\ngj._helper.proc.kill()\ngj._helper.proc.wait()",
        "check_killed": 'check("forward")', "bad_lang": 'check("step", lang="fr")',
    }
    cells = {}
    for name, source in extra.items():
        cells[name] = nbformat.v4.new_code_cell(source)
        nb.cells.append(cells[name])
    start = time.perf_counter()
    execute(kit, nb, folder)
    return nb, cells, folder, time.perf_counter() - start


def test_the_reference_gets_full_marks_as_grade_check_gives_the_saved_notebook(kit, filled_run, tmp_path):
    nb, extra, _, _ = filled_run
    first_extra = nb.cells.index(extra["mistake"])
    saved = tmp_path / "rnn_exercises.ipynb"
    prefix = nbformat.v4.new_notebook(cells=nb.cells[:first_extra], metadata=nb.metadata)
    nbformat.write(prefix, str(saved))
    graded = grade_json(kit, saved)
    checks = check_cells(nbformat.v4.new_notebook(cells=nb.cells[:first_extra]))
    assert set(checks) == {e["id"] for e in graded["exercises"]} | {"quiz"}
    # the kit holds no answer key: the quiz is the instructor's, and the check says so as grade check does
    assert score(checks["quiz"]) == (0, 0) and "Graded by your instructor only: the quiz" in feedback(checks["quiz"])[1]
    for exercise in graded["exercises"]:
        assert exercise["score"] == exercise["max_score"] > 0, exercise
        assert score(checks[exercise["id"]]) == (exercise["score"], exercise["max_score"]), exercise["id"]
    total = [c for c in nb.cells[:first_extra] if c.source == "check_all()"][0]
    assert score(total) == (graded["score"], graded["max_score"])
    html, text = feedback(checks["step"])
    assert html.count("class='pass'>✓") >= 4 and "class='fail'" not in html
    # which cells were graded: those run so far, by execution count, the check cells left out
    assert "cells [2] (" in text
    graded = next(line for line in feedback(total)[1].splitlines() if line.startswith("Graded the code this kernel"))
    code = [code_index(nb, c) for c in nb.cells[:first_extra] if re.match(r"# \w+\.py|ANSWERS = ", c.source)]
    assert graded.split(": cells ")[1].split(" (")[0] == ", ".join(f"[{n}]" for n in code)


def test_a_known_mistake_is_named_and_a_later_definition_wins(kit, filled_run, tmp_path):
    nb, extra, _, _ = filled_run
    got, full = score(extra["check_mistake"])
    assert got < full
    html, text = feedback(extra["check_mistake"])
    assert "step.missing_bias" in html and "step.missing_bias" in text
    # the same as grade check on the notebook saved at that point
    saved = tmp_path / "rnn_exercises.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=nb.cells[:nb.cells.index(extra["check_mistake"]) + 1],
                                            metadata=nb.metadata), str(saved))
    graded = grade_json(kit, saved, "step")
    assert (graded["score"], graded["max_score"]) == (got, full)
    assert graded["exercises"][0]["diagnoses"] == ["step.missing_bias"]
    # redefined in a later cell: the later one is graded
    assert score(extra["check_again"]) == (full, full)
    again = code_index(nb, extra["again"])
    assert f"[{again}]" in feedback(extra["check_again"])[1]


def test_an_unsaved_edit_is_graded_from_the_kernel(kit, filled_run):
    nb, _, folder, _ = filled_run
    on_disk = grade_json(kit, folder / "rnn_exercises.ipynb", "step")
    assert on_disk["score"] == 0                          # the file on disk is still the stubs
    assert score(check_cells(nb)["step"]) == (on_disk["max_score"], on_disk["max_score"])


def test_chinese_output(filled_run):
    _, extra, _, _ = filled_run
    html, text = feedback(extra["zh"])
    assert "lang='zh'" in html and "一次状态更新" in text and "评测的是本内核运行过的代码" in text


def test_failure_modes_are_one_line_and_the_kernel_stays_usable(filled_run):
    nb, extra, _, _ = filled_run
    html, text = feedback(extra["unknown"])
    assert text.strip().count("\n") == 0 and "no_such_exercise" in text and "step, scalar" in text
    html, text = feedback(extra["bad_lang"])
    assert text.strip().count("\n") == 0 and "'fr'" in text
    # a cell that raised in the kernel: stopped in grading too, named by its execution count, nothing lost
    raised = code_index(nb, extra["raises"])
    got, full = score(extra["check_raised"])
    _, text = feedback(extra["check_raised"])
    assert got == full and f"cell [{raised}] stopped: NameError" in text
    assert f"cell [{raised}], line 1" in text
    # the grading process killed: the next check starts another one
    assert score(extra["check_killed"])[0] == score(extra["check_killed"])[1] > 0


def test_a_later_check_is_quick(filled_run):
    """A rough bound here (the machine is shared with other tests); benchmarks/jupyter_check.py
    measures the ratio to `python -c "import numpy"`."""
    _, _, _, elapsed = filled_run
    assert elapsed < 300


# ---------------------------------------------------------------- a cell that loops

def test_a_cell_that_loops_costs_its_budget_once(kit, tmp_path):
    folder = tmp_path / "kit"
    shutil.copytree(kit["out"], folder)
    nb = nbformat.v4.new_notebook()
    loop = "steps = 0\nwhile True:\n    steps += 1"
    interrupted = 'check("step", lang="en")'
    nb.cells = [nbformat.v4.new_code_cell(s) for s in (
        "from grader.jupyter import check, check_all", (REFERENCE / "rnn_step.py").read_text(encoding="utf-8"),
        loop, 'check("step")', "1 + 1", interrupted,
        "import grader.jupyter as gj\nprint(gj._helper is None, 2 + 2)")]
    # the student interrupts the loop in the kernel, and later a check (grading the loop takes its budget)
    execute(kit, nb, folder, timeouts={loop: 3, interrupted: 3})
    got, full = score(nb.cells[3])
    _, text = feedback(nb.cells[3])
    assert got == full and "cell [3] stopped: it ran past its time budget" in text
    assert nb.cells[4].outputs[0]["data"]["text/plain"] == "2"     # the kernel is usable
    html, text = feedback(nb.cells[5])
    assert text.strip() == "Check interrupted; the next check starts the grader afresh."
    assert nb.cells[6].outputs[0]["text"] == "True 4\n"           # the grading process was stopped


# ---------------------------------------------------------------- the check cells are inert when graded

def test_check_cells_are_inert_in_a_graded_notebook():
    lines = ["from grader.jupyter import check, check_all", 'check("step")', "def f():", '    check("x")',
             'x = 1; check("a")', 'check("step",', '      lang="zh")', "check(y)", "gj.check_all()",
             "import grader.jupyter as gj", "check_all()  # all"]
    assert inert_checks(lines) == [
        "# from grader.jupyter import check, check_all", '# check("step")', "def f():", '    check("x")',
        'x = 1; check("a")', '# check("step",', '#       lang="zh")', "check(y)", "# gj.check_all()",
        "# import grader.jupyter as gj", "# check_all()  # all"]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from grader.jupyter import check, check_all"),
                nbformat.v4.new_code_cell("def rnn_step(a):\n    return a\ncheck('step')"),
                nbformat.v4.new_code_cell("check_all()")]
    converted = convert_notebook(nb)
    assert converted.source == ("# from grader.jupyter import check, check_all\n"
                                "def rnn_step(a):\n    return a\n# check('step')\n# check_all()\n")
    assert converted.notes == [] and len(converted.line_map) == 5


def test_grade_check_of_a_notebook_with_check_cells_stops_no_cell(tmp_path, capsys):
    """On the old code, the setup cell stopped (no grader in the sandbox) and each check cell with it."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in (
        "from grader.jupyter import check, check_all", (REFERENCE / "rnn_step.py").read_text(encoding="utf-8"),
        'check("step")', "check_all()")]
    path = tmp_path / "work.ipynb"
    nbformat.write(nb, str(path))
    assert main(["check", str(path), "--only", "step", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["score"] == 11 and "stopped" not in out


# ---------------------------------------------------------------- the helper without a kernel

@pytest.fixture
def session():
    from grader.jupyter.session import Session

    sent = []
    made = Session(sent.append)
    yield made, sent
    made.close()


def reference_cells(*extra):
    return [[1, "from grader.jupyter import check, check_all"],
            [2, (REFERENCE / "rnn_step.py").read_text(encoding="utf-8")], *extra]


def test_no_kit_installed_is_one_line(session, monkeypatch):
    import grader.course.loader
    from grader.base.errors import CourseError

    def missing():
        raise CourseError("the bundled course is missing from this installation")

    monkeypatch.setattr(grader.course.loader, "bundled_course_root", missing)
    made, _ = session
    reply = made.handle({"id": 1, "cells": reference_cells(), "only": ["step"], "lang": "en"})
    assert reply["error"].startswith("No course is installed with this kernel's grader (the bundled course is missing")
    assert "\n" not in reply["text"].strip()


def test_no_sandbox_is_one_warning_line_and_still_grades(session, monkeypatch):
    import grader.sandbox.isolation

    monkeypatch.setattr(grader.sandbox.isolation, "sandbox_unavailable", lambda: "bwrap: not installed (test)")
    made, sent = session
    reply = made.handle({"id": 1, "cells": reference_cells([3, 'check("step")']), "only": ["step"], "lang": "en"})
    assert reply["score"] == reply["max_score"] == 11
    assert reply["text"].splitlines()[0].startswith("Warning: ") and "bwrap: not installed (test)" in reply["text"]
    assert "cells [2]" in reply["text"]
    assert {"id": 1, "progress": "step"} in sent            # the progress is told to the kernel


def test_no_code_run_yet_is_one_line(session):
    made, _ = session
    reply = made.handle({"id": 1, "cells": [[1, "from grader.jupyter import check"], [2, "check_all()"]],
                         "only": [], "lang": "zh"})
    assert reply["error"] == "本内核还没有运行过可评测的代码：先运行练习的代码单元格，再检查。"


def test_a_kernel_that_ran_too_much_code_says_to_restart(session):
    made, _ = session
    cell = "x = 1\n" * 20_000
    reply = made.handle({"id": 1, "cells": [[n, cell] for n in range(1, 4)], "only": ["step"], "lang": "en"})
    assert reply["error"].startswith("This kernel has run more code (3 cells) than one homework notebook holds")


def test_the_progress_line_shows_after_a_second_and_the_answer_replaces_it(monkeypatch):
    import grader.jupyter as gj

    shown = []

    class Handle:
        def update(self, obj):
            shown.append(("update", repr(obj)))

    def fake_display(obj, **kwargs):
        shown.append(("display", repr(obj)))
        return Handle() if kwargs.get("display_id") else None

    monkeypatch.setattr(gj, "_display", fake_display)
    notebook = type("Shell", (), {"kernel": object()})()
    progress = gj._Progress(notebook, "en", "step")
    progress.tick()
    assert shown == []                                      # under a second: nothing yet
    progress.start -= 1.5
    progress.tick()
    assert shown == [("display", "Grading step… 1 s")]
    progress.shown_at -= 1.0
    progress.start -= 1.0
    progress.tick()
    assert shown[-1] == ("update", "Grading step… 2 s")
    progress.finish(gj.Feedback({"html": "<div class='grader-check'></div>", "text": "step 11/11\n"}))
    assert shown[-1] == ("update", "step 11/11")          # the answer takes the progress line's place
    # a quick answer is displayed on its own; in a terminal the progress is one printed line
    shown.clear()
    gj._Progress(notebook, "zh", None).finish(gj.Feedback({"text": "ok"}))
    assert shown == [("display", "ok")]


def test_ranges():
    from grader.jupyter.session import ranges

    assert ranges([2, 3, 4, 7, 9, 10]) == "[2]–[4], [7], [9]–[10]"
    assert ranges([5]) == "[5]" and ranges([]) == ""


# ---------------------------------------------------------------- the block in a browser

def png_pixels(path: Path):
    """(width, height, rows of RGB tuples) of a non-interlaced 8-bit RGB/RGBA PNG (Chromium's screenshots)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[k:k + 3]) for k in range(0, stride, channels)])
        prev = line
    return width, height, rows


def test_the_block_renders_in_headless_chromium(session, tmp_path):
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and Chromium is not installed ({CHROMIUM})", pytrace=False)
        pytest.skip(f"Chromium is not installed ({CHROMIUM})")
    made, _ = session
    reply = made.handle({"id": 1, "cells": reference_cells([3, MISSING_BIAS + "\nprint('<b>hi</b>')"],
                                                          [4, 'check("step")']), "only": ["step"], "lang": "en"})
    assert 0 < reply["score"] < reply["max_score"]
    assert "<b>hi</b>" not in reply["html"] and "&lt;b&gt;hi&lt;/b&gt;" in reply["html"]
    # as a notebook front end embeds it: inside its page, next to other content the block's style must not touch
    page = tmp_path / "cell.html"
    page.write_text("<!doctype html><meta charset='utf-8'><body style='margin:0;background:#fff'>"
                    "<p id='other' style='font-size:30px'>other output</p>" + reply["html"] + "</body>",
                    encoding="utf-8")
    shot = tmp_path / "shot.png"
    proc = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                           "--window-size=1000,1400", page.as_uri()], capture_output=True, text=True, timeout=180)
    assert shot.is_file(), proc.stderr[-2000:]
    width, height, rows = png_pixels(shot)
    assert (width, height) == (1000, 1400)
    colours = {}
    for row in rows:
        for pixel in row:
            colours[pixel] = colours.get(pixel, 0) + 1

    def near(target, tolerance=40):
        return sum(n for p, n in colours.items() if all(abs(p[k] - target[k]) <= tolerance for k in range(3)))

    assert near((0x1a, 0x7f, 0x37)) > 30           # green ✓ of the passing checks
    assert near((0xcf, 0x22, 0x2e)) > 30           # red ✗ of the failing ones and the mistake's bar
    assert near((0x05, 0x50, 0xae)) > 30           # blue: the smallest counterexample
    assert near((0xff, 0xff, 0xff), 0) > 0.5 * width * height      # mostly the page's white
    inked = sum(n for p, n in colours.items() if sum(p) < 200)
    assert inked > 2000                            # text, not a blank page
