"""Loading submissions: folders, single files, notebooks, zips (grader.submission.load)."""

from __future__ import annotations

import io
import os
import stat
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell  # noqa: E402

from grader.submission.notebook import transform_cell  # noqa: E402
from grader.submission.safezip import safe_extract  # noqa: E402
from grader.submission.load import Submission, SubmissionError, load_submission, note_text  # noqa: E402

MiB = 1024 * 1024


def notes_of(sub) -> list[str]:
    """The submission's notes in English, without the report's "Note: "."""
    return [note_text(m) for m in sub.messages]

RNN_STEP = """import numpy as np


def rnn_step(x_t, h_prev, W_x, W_h, b):
    return np.tanh(x_t @ W_x + h_prev @ W_h + b)
"""

RNN_FORWARD = """import numpy as np
from rnn_step import rnn_step


def rnn_forward(X, W_x, W_h, b, h0=None):
    B, T, _ = X.shape
    h = np.zeros((B, W_h.shape[0])) if h0 is None else h0
    out = []
    for t in range(T):
        h = rnn_step(X[:, t], h, W_x, W_h, b)
        out.append(h)
    return np.stack(out, axis=1)
"""


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file under `folder` (symlinks not followed)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(folder).as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def make_zip(path: Path, entries: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def run_in(root: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


# ---------------------------------------------------------------------------
# folders

def test_folder_with_files_importing_each_other(tmp_path):
    src = tmp_path / "alice"
    write(src / "rnn_step.py", RNN_STEP)
    write(src / "rnn_forward.py", RNN_FORWARD)
    write(src / "answers.yml", "params_rnn: 32\n")
    write(src / "helpers" / "util.py", "K = 3\n")
    write(src / "__pycache__" / "rnn_step.cpython-311.pyc", b"\x00junk")
    write(src / ".ipynb_checkpoints" / "old-checkpoint.py", "x = 1\n")
    write(src / ".hidden.py", "x = 1\n")
    write(src / "rnn-step copy.py", "x = 1\n")
    write(src / "huge.py", "#" * (MiB + 10) + "\n")
    write(src / "README.md", "hello\n")

    sub = load_submission(src, tmp_path / "work")

    assert sub.kind == "folder"
    assert sub.source == src
    assert sub.root == tmp_path / "work" / "submission"
    assert sub.modules == {"rnn_step": Path("rnn_step.py"), "rnn_forward": Path("rnn_forward.py")}
    assert sub.single_module is None
    assert sub.answers_file == sub.root / "answers.yaml"
    assert sub.answers_file.read_text() == "params_rnn: 32\n"
    assert sub.module_for("rnn_step.py") == "rnn_step"
    assert sub.module_for("rnn_forward.py") == "rnn_forward"
    assert sub.module_for("bptt.py") is None
    assert sub.line_maps == {}
    # copied: top-level modules and subfolders; not copied: caches, hidden, huge
    copied = sorted(p.relative_to(sub.root).as_posix() for p in sub.root.rglob("*") if p.is_file())
    assert copied == ["answers.yaml", "helpers/util.py", "rnn-step copy.py", "rnn_forward.py", "rnn_step.py"]
    assert any("rnn-step copy.py" in n and "module name" in n for n in notes_of(sub))
    assert any("huge.py" in n and "1 MiB" in n for n in notes_of(sub))
    assert sub.describe_line("rnn_forward", 12) == "rnn_forward.py, line 12"

    # the copy really imports, including the cross-file import
    r = run_in(sub.root, "import numpy as np, rnn_forward;"
               "X=np.ones((2,3,4)); print(rnn_forward.rnn_forward(X, np.eye(4), np.eye(4)*0.5, np.zeros(4)).shape)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(2, 3, 4)"


def test_folder_originals_unchanged(tmp_path):
    src = tmp_path / "bob"
    write(src / "rnn_step.py", b"\xef\xbb\xbf# \xe4\xb8\xad\xe6\x96\x87\r\nx = 1\r\n")
    write(src / "masking.py", b"# caf\xe9\rx = 2\r")
    write(src / "answers.yaml", b"tf_rnn_useless: false\r\n")
    old = os.stat(src / "rnn_step.py").st_mtime_ns - 10_000_000_000
    for p in src.iterdir():
        os.utime(p, ns=(old, old))
    before = snapshot(src)

    sub = load_submission(src, tmp_path / "work")
    load_submission(src, tmp_path / "work")  # a second run into the same workdir

    assert snapshot(src) == before
    assert sorted(p.name for p in src.iterdir()) == ["answers.yaml", "masking.py", "rnn_step.py"]
    assert (sub.root / "rnn_step.py").read_bytes() == "# 中文\nx = 1\n".encode()
    assert (sub.root / "answers.yaml").read_bytes() == b"tf_rnn_useless: false\n"


def test_folder_latin1_gbk_and_coding_cookie(tmp_path):
    src = tmp_path / "s"
    write(src / "latin.py", b"# d\xe9fini ici\nx = 'caf\xe9'\n")
    write(src / "gbk.py", "# 循环神经网络\nmsg = '隐藏状态'\n".encode("gbk"))
    write(src / "cookie.py", "# -*- coding: gbk -*-\ns = '参数共享'\n".encode("gbk"))
    sub = load_submission(src, tmp_path / "work")

    assert (sub.root / "latin.py").read_text(encoding="utf-8") == "# défini ici\nx = 'café'\n"
    assert any(n.startswith("latin.py:") and "latin-1" in n for n in notes_of(sub))
    assert (sub.root / "gbk.py").read_text(encoding="utf-8") == "# 循环神经网络\nmsg = '隐藏状态'\n"
    assert any(n.startswith("gbk.py:") and "GBK" in n for n in notes_of(sub))
    # the cookie now has to say utf-8, on the same line
    assert (sub.root / "cookie.py").read_text(encoding="utf-8") == "# -*- coding: utf-8 -*-\ns = '参数共享'\n"
    r = run_in(sub.root, "import cookie, gbk, latin; print(cookie.s, gbk.msg, latin.x)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "参数共享 隐藏状态 café"


def test_folder_symlinks(tmp_path):
    outside = write(tmp_path / "secret" / "secret.py", "TOKEN = 1\n")
    src = tmp_path / "carol"
    write(src / "rnn_step.py", RNN_STEP)
    write(src / "real" / "impl.py", "Y = 2\n")
    try:
        (src / "leak.py").symlink_to(outside)
        (src / "leakdir").symlink_to(outside.parent, target_is_directory=True)
        (src / "alias.py").symlink_to(src / "rnn_step.py")
        (src / "real" / "loop").symlink_to(src, target_is_directory=True)
    except (OSError, NotImplementedError):
        pytest.skip("symlinks not supported here")

    sub = load_submission(src, tmp_path / "work")

    assert "leak" not in sub.modules
    assert not (sub.root / "leak.py").exists()
    assert not (sub.root / "leakdir").exists()
    assert not any(p.name == "secret.py" for p in sub.root.rglob("*"))
    assert any("leak.py" in n and "outside" in n for n in notes_of(sub))
    assert any("leakdir" in n and "outside" in n for n in notes_of(sub))
    # a link inside the folder is an ordinary file; the copy is a real file
    assert sub.modules["alias"] == Path("alias.py")
    assert not (sub.root / "alias.py").is_symlink()
    assert (sub.root / "alias.py").read_text() == RNN_STEP
    assert (sub.root / "real" / "impl.py").exists()


def test_a_folder_reached_through_a_link_stages_as_through_its_real_path(tmp_path):
    """Real paths are derived from the folder's own (only a link is resolved on its own): a path
    through a linked parent stages the same files and notes, and a work folder inside the
    submission is still never staged."""
    outside = write(tmp_path / "secret" / "secret.py", "TOKEN = 1\n")
    src = tmp_path / "store" / "erin"
    write(src / "rnn_step.py", RNN_STEP)
    write(src / "pkg" / "impl.py", "Y = 2\n")
    try:
        (tmp_path / "via").symlink_to(tmp_path / "store", target_is_directory=True)
        (src / "leak.py").symlink_to(outside)
        (src / "pkg" / "alias.py").symlink_to(src / "rnn_step.py")
    except (OSError, NotImplementedError):
        pytest.skip("symlinks not supported here")

    staged = {}
    for how, path in (("real", src), ("linked", tmp_path / "via" / "erin")):
        sub = load_submission(path, path / "work")     # the work folder inside the submission
        staged[how] = (sorted(p.relative_to(sub.root).as_posix() for p in sub.root.rglob("*")),
                       notes_of(sub), sub.modules)
    assert staged["real"] == staged["linked"]
    files, notes, modules = staged["real"]
    assert files == ["pkg", "pkg/alias.py", "pkg/impl.py", "rnn_step.py"]
    assert any("leak.py" in n and "outside" in n for n in notes)
    assert modules == {"rnn_step": Path("rnn_step.py")}


def test_folder_descends_into_single_subfolder(tmp_path):
    src = tmp_path / "dave"
    write(src / "readme.txt", "my homework\n")
    write(src / "hw3" / "code" / "rnn_step.py", RNN_STEP)
    write(src / "hw3" / "code" / "answers.yaml", "params_rnn: 32\n")
    sub = load_submission(src, tmp_path / "work")
    assert sub.kind == "folder"
    assert sub.modules == {"rnn_step": Path("rnn_step.py")}
    assert (sub.root / "rnn_step.py").read_text() == RNN_STEP
    assert sub.answers_file == sub.root / "answers.yaml"
    assert any("hw3/code" in n for n in notes_of(sub))


def test_folder_with_only_a_notebook_is_a_notebook(tmp_path):
    src = tmp_path / "erin"
    src.mkdir()
    nb = new_notebook(cells=[new_code_cell("def rnn_step(x, h, a, b, c):\n    return x")])
    nbformat.write(nb, str(src / "hw.ipynb"))
    write(src / "answers.yaml", "params_rnn: 32\n")
    sub = load_submission(src, tmp_path / "work")
    assert sub.kind == "notebook"
    assert sub.single_module == "submission"
    assert sub.module_for("rnn_step.py") == "submission"
    assert sub.answers_file is None               # a notebook answers in its ANSWERS dict
    assert any("answers.yaml ignored" in n for n in notes_of(sub))
    assert "def rnn_step" in (sub.root / "submission.py").read_text()


def test_folder_with_py_ignores_notebook_and_several_notebooks_fail(tmp_path):
    src = tmp_path / "f"
    write(src / "rnn_step.py", RNN_STEP)
    nbformat.write(new_notebook(), str(src / "scratch.ipynb"))
    sub = load_submission(src, tmp_path / "w1")
    assert sub.kind == "folder"
    assert any("scratch.ipynb" in n for n in notes_of(sub))

    two = tmp_path / "g"
    two.mkdir()
    nbformat.write(new_notebook(), str(two / "a.ipynb"))
    nbformat.write(new_notebook(), str(two / "b.ipynb"))
    with pytest.raises(SubmissionError, match="several notebooks"):
        load_submission(two, tmp_path / "w2")


def test_empty_folder(tmp_path):
    src = tmp_path / "empty"
    write(src / "notes.txt", "nothing\n")
    write(src / "__pycache__" / "x.pyc", b"")
    with pytest.raises(SubmissionError) as info:
        load_submission(src, tmp_path / "work")
    msg = str(info.value)
    assert msg.startswith("nothing to grade in ") and "no .py, .ipynb or answers.yaml" in msg
    assert "\n" not in msg
    (tmp_path / "truly_empty").mkdir()
    with pytest.raises(SubmissionError, match="nothing to grade"):
        load_submission(tmp_path / "truly_empty", tmp_path / "work")


def test_missing_path_and_unsupported_suffix(tmp_path):
    with pytest.raises(SubmissionError, match=r"^no such file or folder: .*nope\.py$"):
        load_submission(tmp_path / "nope.py", tmp_path / "work")
    bad = write(tmp_path / "hw.rar", b"Rar!")
    with pytest.raises(SubmissionError) as info:
        load_submission(bad, tmp_path / "work")
    msg = str(info.value)
    assert "'.rar'" in msg and "hw.rar" in msg
    for supported in (".py", ".ipynb", ".zip"):
        assert supported in msg


# ---------------------------------------------------------------------------
# single files

def test_single_file_bom_crlf_chinese(tmp_path):
    text = ("# 第一题：RNN 单步更新\r\n"
            "import numpy as np\r\n"
            "\r\n"
            "def rnn_step(x_t, h_prev, W_x, W_h, b):\r\n"
            "    # 隐藏状态 h_t = tanh(...)\r\n"
            "    return np.tanh(x_t @ W_x + h_prev @ W_h + b)\r\n"
            "ANSWERS = {'tf_rnn_useless': '错'}\r\n")
    original = b"\xef\xbb\xbf" + text.encode("utf-8")
    src = write(tmp_path / "my homework.py", original)
    mtime = src.stat().st_mtime_ns

    sub = load_submission(src, tmp_path / "work")

    assert sub.kind == "file"
    assert sub.single_module == "submission"
    assert sub.modules == {"submission": Path("submission.py")}
    assert sub.module_for("rnn_step.py") == "submission"
    assert sub.module_for("bptt.py") == "submission"
    assert sub.answers_file is None
    data = (sub.root / "submission.py").read_bytes()
    assert data == text.replace("\r\n", "\n").encode("utf-8")
    assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data
    assert data.count(b"\n") == original.count(b"\n") == 7
    assert "隐藏状态" in data.decode("utf-8")
    assert src.read_bytes() == original and src.stat().st_mtime_ns == mtime
    assert sub.describe_line("submission", 6) == "my homework.py, line 6"
    compile(data, "submission.py", "exec")


def test_single_file_bare_cr_and_too_big(tmp_path):
    src = write(tmp_path / "a.py", b"x = 1\ry = 2\r")
    sub = load_submission(src, tmp_path / "work")
    assert (sub.root / "submission.py").read_bytes() == b"x = 1\ny = 2\n"
    big = write(tmp_path / "big.py", b"#" * (MiB + 1))
    with pytest.raises(SubmissionError, match="big.py.*1 MiB"):
        load_submission(big, tmp_path / "work")


# ---------------------------------------------------------------------------
# notebooks

def _homework_notebook():
    return new_notebook(cells=[
        new_markdown_cell("# 作业\n说明"),                                   # cell 1
        new_code_cell("%matplotlib inline\nimport numpy as np\n!pip install numpy\nfiles = !ls"),  # cell 2
        new_code_cell("%%time\n"                                              # cell 3
                      "def rnn_step(x_t, h_prev, W_x, W_h, b):\n"
                      "    return np.tanh(x_t @ W_x + h_prev @ W_h + b)\n"
                      "%time y = rnn_step(np.ones((1, 2)), np.zeros((1, 2)), np.eye(2), np.eye(2), np.zeros(2))"),
        new_code_cell("%%bash\necho hello\nfor i in 1 2; do echo $i; done"),  # cell 4
        new_raw_cell("raw text"),                                            # cell 5
        new_code_cell("np.tanh?\n"                                           # cell 6
                      "doc = '''\n%not a magic\n!not shell\n'''\n"
                      "z = (4\n% 3)\n"
                      "if True:\n    %timeit rnn_step\n"
                      "display(z)\n"
                      "ANSWERS = {'params_rnn': 32}"),
        new_code_cell("%%writefile helper.py\nprint('x')"),                  # cell 7
        new_code_cell("def broken(:\n    pass"),                              # cell 8
        new_code_cell("def scalar_rnn(seq, w_x=1.0, w_h=0.5, b=0.0):\n"      # cell 9
                      "    out, s = [], 0.0\n"
                      "    for v in seq:\n"
                      "        s = float(np.tanh(w_x * v + w_h * s + b))\n"
                      "        out.append(s)\n"
                      "    return out"),
    ])


def test_notebook_conversion_and_line_maps(tmp_path):
    nb_path = tmp_path / "hw.ipynb"
    nbformat.write(_homework_notebook(), str(nb_path))
    before = nb_path.read_bytes()

    sub = load_submission(nb_path, tmp_path / "work")

    assert nb_path.read_bytes() == before
    assert sub.kind == "notebook"
    assert sub.single_module == "submission"
    assert sub.modules == {"submission": Path("submission.py")}
    assert sub.module_for("masking.py") == "submission"
    source = (sub.root / "submission.py").read_text(encoding="utf-8")
    compile(source, "submission.py", "exec")
    lines = source.split("\n")[:-1]
    lmap = sub.line_maps["submission"]
    assert len(lmap) == len(lines)

    cells = _homework_notebook().cells
    expected = [(i, k) for i, c in enumerate(cells, 1) if c.cell_type == "code"
                for k in range(1, len(c.source.split("\n")) + 1)]
    assert lmap == expected
    # every kept Python line sits where the map says it came from
    for (cell, k), line in zip(lmap, lines):
        original = cells[cell - 1].source.split("\n")[k - 1]
        if line == original:
            continue
        assert (line.strip() == "" or line.lstrip().startswith("#") or "pass" in line
                or line.startswith("files = []") or line == "y = " + original.split("y = ", 1)[-1]), (cell, k, line)

    def where(text):
        return lmap[lines.index(text)]

    assert where("def rnn_step(x_t, h_prev, W_x, W_h, b):") == (3, 2)
    assert where("%not a magic") == (6, 3)        # inside a string: untouched
    assert where("% 3)") == (6, 7)                # a continuation line: untouched
    assert where("display(z)") == (6, 10)
    assert where("def scalar_rnn(seq, w_x=1.0, w_h=0.5, b=0.0):") == (9, 1)
    assert lines[lmap.index((2, 1))] == "# %matplotlib inline"
    assert lines[lmap.index((6, 9))] == "    pass  # %timeit rnn_step"
    assert lines[lmap.index((4, 2))] == "" and lines[lmap.index((7, 2))] == ""
    assert lines[lmap.index((8, 1))].startswith("#")

    line_no = lines.index("    return out") + 1
    assert sub.describe_line("submission", line_no) == "hw.ipynb, cell 9, line 6"
    assert sub.describe_line("submission", 1) == "hw.ipynb, cell 2, line 1"
    assert sub.describe_path(sub.root / "submission.py", line_no) == "hw.ipynb, cell 9, line 6"

    notes = " | ".join(notes_of(sub))
    assert "cell 2, line 3" in notes and "!pip install numpy" in notes
    assert "cell 4" in notes and "%%bash" in notes
    assert "cell 7" in notes and "%%writefile" in notes
    assert "cell 8, line 1" in notes and "SyntaxError" in notes
    assert "matplotlib" not in notes            # harmless magics are not worth a note

    # the module runs (the worker supplies display/get_ipython)
    r = run_in(sub.root, "import builtins; builtins.display = lambda *a, **k: None;"
               "import submission as s; print(s.y.shape, s.files, s.ANSWERS, round(s.scalar_rnn([1.0])[0], 4))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(1, 2) [] {'params_rnn': 32} 0.7616"


def test_transform_cell_keeps_line_count_and_python():
    cell = ["x = 1", "  # %comment", "s = 'a?'", "%%time", "y = [1", "  % 2,", "]",
            "pip install numpy", "ls", "time = 3", "%load_ext autoreload \\", "   more", "?x"]
    out, events = transform_cell(cell)
    assert len(out) == len(cell)
    assert out[:3] == cell[:3] and out[4:7] == cell[4:7] and out[9] == "time = 3"
    assert out[7].startswith("#") and out[8].startswith("#") and out[12].startswith("#")
    assert out[3].startswith("#") and out[10].startswith("#") and out[11] == ""
    assert any("pip install numpy" in text.render("en") for _, text in events)
    compile("\n".join(out), "cell", "exec")


def test_broken_notebooks(tmp_path):
    not_json = write(tmp_path / "a.ipynb", "{ this is not json")
    with pytest.raises(SubmissionError, match=r"^broken notebook .*a\.ipynb: "):
        load_submission(not_json, tmp_path / "work")
    not_nb = write(tmp_path / "b.ipynb", '{"hello": [1, 2, 3]}')
    with pytest.raises(SubmissionError, match=r"^broken notebook .*b\.ipynb: "):
        load_submission(not_nb, tmp_path / "work")
    binary = write(tmp_path / "c.ipynb", b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(SubmissionError, match=r"^broken notebook .*c\.ipynb: "):
        load_submission(binary, tmp_path / "work")


# ---------------------------------------------------------------------------
# zips

def test_zip_nested_top_folder(tmp_path):
    z = make_zip(tmp_path / "sub.zip", {
        "alice_hw/": b"",
        "alice_hw/rnn_step.py": RNN_STEP,
        "alice_hw/rnn_forward.py": RNN_FORWARD.replace("\n", "\r\n"),
        "alice_hw/answers.yaml": "params_rnn: 32\n",
        "__MACOSX/alice_hw/._rnn_step.py": b"\x00\x05\x16\x07",
        "alice_hw/.DS_Store": b"\x00\x00",
    })
    before = z.read_bytes()
    sub = load_submission(z, tmp_path / "work")
    assert z.read_bytes() == before
    assert sub.kind == "zip:folder"
    assert sub.modules == {"rnn_forward": Path("rnn_forward.py"), "rnn_step": Path("rnn_step.py")}
    assert sub.answers_file == sub.root / "answers.yaml"
    assert b"\r" not in (sub.root / "rnn_forward.py").read_bytes()
    assert not any("__MACOSX" in n or "DS_Store" in n for n in notes_of(sub))
    assert not any("MACOSX" in str(p) for p in (tmp_path / "work").rglob("*"))
    r = run_in(sub.root, "import rnn_forward")
    assert r.returncode == 0, r.stderr


def test_zip_single_file_and_notebook(tmp_path):
    z = make_zip(tmp_path / "one.zip", {"folder/my_rnn.py": RNN_STEP})
    sub = load_submission(z, tmp_path / "w1")
    assert sub.kind == "zip:file"
    assert sub.single_module == "submission"
    assert (sub.root / "submission.py").read_text() == RNN_STEP
    assert sub.describe_line("submission", 4) == "my_rnn.py, line 4"

    buf = io.StringIO()
    nbformat.write(new_notebook(cells=[new_markdown_cell("hi"), new_code_cell("%pylab\nA = 1")]), buf)
    z2 = make_zip(tmp_path / "nb.zip", {"hw/homework.ipynb": buf.getvalue()})
    sub2 = load_submission(z2, tmp_path / "w2")
    assert sub2.kind == "zip:notebook"
    assert sub2.line_maps["submission"] == [(2, 1), (2, 2)]
    assert sub2.describe_line("submission", 2) == "homework.ipynb, cell 2, line 2"

    z3 = make_zip(tmp_path / "badnb.zip", {"x.ipynb": "nope"})
    with pytest.raises(SubmissionError, match=r"^broken notebook x\.ipynb"):
        load_submission(z3, tmp_path / "w3")


def test_zip_traversal_and_absolute_paths(tmp_path):
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("rnn_step.py", RNN_STEP)
        for name in ("../evil.py", "/abs.py", "ok/../../evil2.py", "C:/win.py", "..\\evil3.py"):
            info = zipfile.ZipInfo("placeholder")
            info.filename = name          # bypass any normalisation by zipfile
            zf.writestr(info, "PWNED = 1\n")
    dest = tmp_path / "deep" / "work" / "out"
    notes = [note_text(m) for m in safe_extract(z, dest)]
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == ["rnn_step.py"]
    for name in ("evil.py", "evil2.py", "evil3.py", "abs.py", "win.py"):
        assert not list(tmp_path.rglob(name)), name
    assert not Path("/abs.py").exists()
    assert len(notes) == 5
    assert any("../evil.py" in n for n in notes) and any("/abs.py" in n for n in notes)

    sub = load_submission(z, tmp_path / "work")
    assert sub.kind == "zip:file"
    assert len([n for n in notes_of(sub) if "skipped" in n]) == 5


def test_zip_symlink_and_device_entries(tmp_path):
    z = tmp_path / "links.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("rnn_step.py", RNN_STEP)
        zf.writestr("answers.yaml", "params_rnn: 32\n")
        link = zipfile.ZipInfo("link.py")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        dev = zipfile.ZipInfo("dev.py")
        dev.create_system = 3
        dev.external_attr = (stat.S_IFCHR | 0o644) << 16
        zf.writestr(dev, "")
    sub = load_submission(z, tmp_path / "work")
    assert sub.kind == "zip:folder"
    assert set(sub.modules) == {"rnn_step"}
    for base in (tmp_path / "work" / "unzipped", sub.root):
        assert not os.path.lexists(base / "link.py")
        assert not os.path.lexists(base / "dev.py")
    assert any("link.py" in n and "symbolic link" in n for n in notes_of(sub))
    assert any("dev.py" in n and "special file" in n for n in notes_of(sub))


def test_corrupt_zip(tmp_path):
    fake = write(tmp_path / "hw.zip", b"this is not a zip at all")
    with pytest.raises(SubmissionError, match=r"^corrupt zip hw\.zip: "):
        load_submission(fake, tmp_path / "work")
    good = make_zip(tmp_path / "trunc.zip", {"rnn_step.py": RNN_STEP * 50})
    data = good.read_bytes()
    truncated = write(tmp_path / "trunc2.zip", data[: len(data) // 2])
    with pytest.raises(SubmissionError, match=r"^corrupt zip trunc2\.zip"):
        load_submission(truncated, tmp_path / "work")
    # damaged member data: the CRC check fails while reading
    damaged = bytearray(data)
    off = 30 + len("rnn_step.py") + 5
    damaged[off:off + 8] = b"\x00" * 8
    bad = write(tmp_path / "crc.zip", bytes(damaged))
    with pytest.raises(SubmissionError, match=r"^corrupt zip crc\.zip"):
        load_submission(bad, tmp_path / "work")


def test_zip_bomb_single_member(tmp_path):
    z = make_zip(tmp_path / "bomb.zip", {"bomb.py": b"0" * (11 * MiB)})
    assert z.stat().st_size < 100_000              # highly compressible
    with pytest.raises(SubmissionError, match="bomb.py.*10 MiB"):
        load_submission(z, tmp_path / "work")
    assert not (tmp_path / "work" / "unzipped" / "bomb.py").exists()


def test_zip_bomb_total_size(tmp_path):
    z = make_zip(tmp_path / "many.zip", {f"f{i}.py": b"1" * (9 * MiB) for i in range(6)})
    with pytest.raises(SubmissionError, match="50 MiB"):
        load_submission(z, tmp_path / "work")


def test_zip_bomb_with_lying_sizes(tmp_path):
    """Declared sizes say 100 bytes; the member really inflates to 20 MiB."""
    z = make_zip(tmp_path / "liar.zip", {"liar.py": b"A" * (20 * MiB)})
    data = bytearray(z.read_bytes())
    real = struct.pack("<I", 20 * MiB)
    fake = struct.pack("<I", 100)
    # local header: uncompressed size at offset 22; central directory: at offset 24
    assert data[22:26] == real
    data[22:26] = fake
    cd = data.index(b"PK\x01\x02")
    assert data[cd + 24:cd + 28] == real
    data[cd + 24:cd + 28] = fake
    liar = write(tmp_path / "liar2.zip", bytes(data))
    dest = tmp_path / "out"
    with pytest.raises(SubmissionError):
        safe_extract(liar, dest, max_file_bytes=1 * MiB)
    assert sum(p.stat().st_size for p in dest.rglob("*") if p.is_file()) <= 1 * MiB


def test_zip_streaming_cap_counts_real_bytes(tmp_path, monkeypatch):
    """Even if the declared size were trusted, extraction stops at the cap."""
    z = make_zip(tmp_path / "s.zip", {"a.py": b"B" * (3 * MiB)})
    real_open = zipfile.ZipFile.infolist

    def lying_infolist(self):
        infos = real_open(self)
        for info in infos:
            info.file_size = 10            # what the headers claim
        return infos

    monkeypatch.setattr(zipfile.ZipFile, "infolist", lying_infolist)
    monkeypatch.setattr(zipfile.ZipExtFile, "_read1", _unbounded_read1(zipfile.ZipExtFile._read1))
    dest = tmp_path / "out"
    with pytest.raises(SubmissionError, match="a.py.*1 MiB"):
        safe_extract(z, dest, max_file_bytes=1 * MiB)
    assert not (dest / "a.py").exists()


def _unbounded_read1(original):
    """A reader that ignores the declared size, like a less careful unzip library."""
    def read1(self, n):
        self._left = 1 << 40
        self._expected_crc = None
        return original(self, n)
    return read1


def test_zip_too_many_entries(tmp_path):
    z = make_zip(tmp_path / "lots.zip", {f"d/f{i}.txt": b"" for i in range(2001)})
    with pytest.raises(SubmissionError, match="2001 entries"):
        load_submission(z, tmp_path / "work")


def test_zip_gbk_file_names(tmp_path):
    class GbkInfo(zipfile.ZipInfo):
        def _encodeFilenameFlags(self):
            return self.filename.encode("gbk"), self.flag_bits & ~0x800

    z = tmp_path / "cn.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr(GbkInfo("作业/rnn_step.py"), RNN_STEP)
        zf.writestr(GbkInfo("作业/answers.yaml"), "params_rnn: 32\n")
    sub = load_submission(z, tmp_path / "work")
    assert sub.kind == "zip:folder"
    assert set(sub.modules) == {"rnn_step"}
    assert (tmp_path / "work" / "unzipped" / "作业" / "rnn_step.py").exists()
    assert any("作业" in n for n in notes_of(sub))


def test_submission_dataclass_helpers(tmp_path):
    sub = Submission(source=tmp_path, kind="folder", root=tmp_path, modules={"RNN_Step": Path("RNN_Step.py")},
                     single_module=None, answers_file=None, line_maps={"nb": [(3, 1), (3, 2)]}, notes=[])
    assert sub.module_for("rnn_step.py") == "RNN_Step"
    assert sub.module_for("readout.py") is None
    assert sub.describe_line("RNN_Step", 7) == "RNN_Step.py, line 7"
    assert sub.describe_line("nb", 2) == "notebook cell 3, line 2"
    assert sub.describe_line("pkg.util", 1) == "pkg/util.py, line 1"


def test_notebook_late_future_import_is_dropped_not_the_cell(tmp_path):
    nb = new_notebook(cells=[
        new_code_cell("%matplotlib inline\nfrom __future__ import annotations\nimport numpy as np"),
        new_code_cell("A = 1\nfrom __future__ import annotations\nB = 2"),
    ])
    nbformat.write(nb, str(tmp_path / "f.ipynb"))
    sub = load_submission(tmp_path / "f.ipynb", tmp_path / "work")
    lines = (sub.root / "submission.py").read_text().split("\n")
    assert lines[:6] == ["# %matplotlib inline", "from __future__ import annotations", "import numpy as np",
                         "A = 1", "# from __future__ import annotations", "B = 2"]
    assert notes_of(sub) == ["cell 2, line 2: a `from __future__` import that is not at the top was ignored"]
