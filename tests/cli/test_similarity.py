"""``grade similarity`` (CONTRACT section 11): planted copies (renamed, reordered, recommented)
are ranked first among independent solutions, file by file; the kit's stub code everyone was
given is not counted; single files and notebooks are compared as a whole; the CSV and the HTML
page (escaped, under a strict Content-Security-Policy) are written; no mark changes."""

from __future__ import annotations

import csv
import io
import json
import keyword
import random
import re
import time
import tokenize

import pytest

from conftest import ROOT, STUBS, run_grade as run
from grader.course.loader import load_course
from grader.classroom.similarity import collect, compare, fingerprints

# Six tasks, each solvable in several independent ways: an independent student picks a way per task.
STYLES = {
    "mean": [
        "def mean(values):\n    total = 0.0\n    for v in values:\n        total += v\n"
        "    return total / len(values)\n",
        "def mean(values):\n    return sum(values) / len(values) if values else 0.0\n",
        "def mean(xs):\n    import numpy as np\n    arr = np.asarray(xs, dtype=float)\n    return float(arr.mean())\n",
    ],
    "variance": [
        "def variance(values, ddof=0):\n    m = sum(values) / len(values)\n    sq = [(v - m) ** 2 for v in values]\n"
        "    return sum(sq) / (len(values) - ddof)\n",
        "def variance(data, ddof=0):\n    n = 0\n    mean = 0.0\n    m2 = 0.0\n    for x in data:\n        n += 1\n"
        "        delta = x - mean\n        mean += delta / n\n        m2 += delta * (x - mean)\n"
        "    return m2 / (n - ddof)\n",
        "def variance(values, ddof=0):\n    import numpy as np\n"
        "    return float(np.var(np.asarray(values), ddof=ddof))\n",
    ],
    "normalize": [
        "def normalize(rows):\n    out = []\n    for row in rows:\n        s = sum(row)\n"
        "        out.append([x / s if s else 0.0 for x in row])\n    return out\n",
        "def normalize(matrix):\n    import numpy as np\n    m = np.asarray(matrix, dtype=float)\n"
        "    sums = m.sum(axis=1, keepdims=True)\n    sums[sums == 0] = 1.0\n    return m / sums\n",
        "def normalize(rows):\n    result = [list(r) for r in rows]\n    i = 0\n    while i < len(result):\n"
        "        total = float(sum(result[i])) or 1.0\n        for j in range(len(result[i])):\n"
        "            result[i][j] = result[i][j] / total\n        i += 1\n    return result\n",
    ],
    "moving_average": [
        "def moving_average(values, window):\n    out = []\n    for i in range(len(values) - window + 1):\n"
        "        out.append(sum(values[i:i + window]) / window)\n    return out\n",
        "def moving_average(xs, k):\n    import numpy as np\n    kernel = np.ones(k) / k\n"
        "    return np.convolve(np.asarray(xs, dtype=float), kernel, mode='valid')\n",
        "def moving_average(seq, width):\n    acc = [0.0]\n    for v in seq:\n        acc.append(acc[-1] + v)\n"
        "    return [(acc[i + width] - acc[i]) / width for i in range(len(seq) - width + 1)]\n",
    ],
    "histogram": [
        "def histogram(values, bins, low, high):\n    counts = [0] * bins\n    width = (high - low) / bins\n"
        "    for v in values:\n        if low <= v < high:\n            counts[int((v - low) // width)] += 1\n"
        "    return counts\n",
        "def histogram(data, n_bins, lo, hi):\n    import numpy as np\n"
        "    counts, _ = np.histogram(data, bins=n_bins, range=(lo, hi))\n    return counts.tolist()\n",
        "def histogram(values, bins, low, high):\n"
        "    edges = [low + (high - low) * i / bins for i in range(bins + 1)]\n"
        "    result = []\n    for a, b in zip(edges, edges[1:]):\n"
        "        result.append(len([v for v in values if a <= v < b]))\n    return result\n",
    ],
    "matrix_power": [
        "def matrix_power(m, p):\n    import numpy as np\n    return np.linalg.matrix_power(np.asarray(m), p)\n",
        "def matrix_power(m, p):\n    import numpy as np\n    result = np.eye(len(m))\n"
        "    base = np.asarray(m, dtype=float)\n"
        "    while p:\n        if p & 1:\n            result = result @ base\n        base = base @ base\n"
        "        p >>= 1\n    return result\n",
        "def matrix_power(a, n):\n    import numpy as np\n    out = np.identity(np.shape(a)[0])\n"
        "    for _ in range(n):\n        out = np.dot(out, a)\n    return out\n",
    ],
}
KEEP = set(dir(__builtins__)) | {"np", "numpy", "float", "int", "len", "sum", "range", "zip", "list"}


def independent(rng: random.Random) -> str:
    """A solution written on its own: a way per task, in an order of its own, with comments of its own."""
    tasks = list(STYLES)
    rng.shuffle(tasks)
    parts = [f"# my solution {rng.randint(0, 999)}\n"]
    for task in tasks:
        parts.append(f"# {task}: {rng.choice(['first try', 'works', 'see notes', 'TODO tidy'])}\n"
                     + rng.choice(STYLES[task]))
    return "\n\n".join(parts)


def disguised(source: str, rng: random.Random) -> str:
    """A copy with every local name renamed, the functions reordered, the comments replaced and
    the blank lines changed: what a student who copies does to hide it."""
    names = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) and tok.string not in KEEP:
            names.setdefault(tok.string, f"q{len(names)}_{rng.randint(10, 99)}")
    renamed = source
    for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
        renamed = re.sub(rf"\b{re.escape(old)}\b", new, renamed)
    functions = re.split(r"\n(?=def )", re.sub(r"#[^\n]*", "", renamed))
    head, functions = functions[0], functions[1:]
    rng.shuffle(functions)
    return head + "\n\n\n" + "\n\n\n".join(f"# part {i}, all mine\n" + f.strip() + "\n"
                                           for i, f in enumerate(functions))


@pytest.fixture
def planted(tmp_path):
    """Eighteen students: twelve independent, three pairs where the second copied the first
    (disguised); everyone also hands in the untouched stub rnn_step.py, identical for all."""
    rng = random.Random(35)
    cls = tmp_path / "class"
    sources = {f"s{n:02d}": independent(rng) for n in range(15)}
    copies = {"c_a": "s03", "c_b": "s07", "c_c": "s11"}
    for copier, original in copies.items():
        sources[copier] = disguised(sources[original], rng)
    stub = (STUBS / "rnn_step.py").read_text()
    for student, source in sources.items():
        (cls / student).mkdir(parents=True)
        (cls / student / "solution.py").write_text(source)
        (cls / student / "rnn_step.py").write_text(stub)
    return cls, copies


def test_planted_copies_rank_first_and_stubs_do_not_count(planted, tmp_path):
    cls, copies = planted
    out_csv, out_html = tmp_path / "pairs.csv", tmp_path / "pairs.html"
    code, out, err = run("similarity", cls, "--csv", out_csv, "--html", out_html, "--threshold", "0.6")
    assert code == 0, err
    with open(out_csv, encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["student_a", "student_b", "file", "similarity"]
    top = {tuple(sorted((r["student_a"], r["student_b"]))) for r in rows[:3]}
    assert top == {tuple(sorted(pair)) for pair in copies.items()}
    assert all(r["file"] == "solution.py" for r in rows[:3])
    assert min(float(r["similarity"]) for r in rows[:3]) > 0.8
    assert all(float(r["similarity"]) < float(rows[2]["similarity"]) for r in rows[3:])
    sims = [float(r["similarity"]) for r in rows]
    assert sims == sorted(sims, reverse=True) and all(0 <= s <= 1 for s in sims)
    # the stub everyone handed in unchanged is no pair at all
    assert not [r for r in rows if r["file"] == "rnn_step.py"]
    # the same class again (another process, another string hash salt): the same CSV
    code, out, err = run("similarity", cls, "--csv", tmp_path / "again.csv")
    assert code == 0 and (tmp_path / "again.csv").read_bytes() == out_csv.read_bytes(), err
    page = out_html.read_text()
    assert "default-src 'none'" in page and "<script" not in page
    assert page.count('class="hit"') > 20          # the matching lines highlighted
    # and within them the copied characters (copydetect's slices), the stub's never
    marked = re.findall(r"<mark>(.*?)</mark>", page)
    assert len(marked) > 20 and "return" in "".join(marked) and "rnn_step" not in page
    assert "c_a" in page and "s03" in page


def test_the_stub_would_count_without_the_course_stubs(planted, tmp_path):
    """The same class compared without knowing the stubs: the stub is everyone's code, which the
    common-code rule also drops; two students alone with the stub are flagged without the course's stubs."""
    cls, _ = planted
    submissions = collect(cls, tmp_path)
    pair = {s: submissions[s] for s in ("s00", "s01")}
    alone = [(p.file, p.similarity) for p in compare(pair, course=None)]
    assert ("rnn_step.py", 1.0) in alone
    assert "rnn_step.py" not in [p.file for p in compare(pair, course=load_course(ROOT))]


def test_renaming_and_comments_change_no_fingerprint():
    source = STYLES["variance"][1]
    renamed = source.replace("data", "xs").replace("delta", "d").replace("m2", "acc")
    assert set(fingerprints(source)) == set(fingerprints("# hi\n" + renamed.replace("\n", "  # c\n", 2)))
    assert fingerprints("def f(:\n") == {}        # what does not tokenize gives nothing, never raises


def test_single_files_and_notebooks_are_compared_whole(tmp_path):
    rng = random.Random(7)
    cls = tmp_path / "class"
    cls.mkdir()
    original = independent(rng)
    (cls / "folder").mkdir()
    (cls / "folder" / "solution.py").write_text(original)
    notebook = {"cells": [{"cell_type": "markdown", "source": "# mine"},
                          {"cell_type": "code", "source": disguised(original, rng).splitlines(True)}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (cls / "nb.ipynb").write_text(json.dumps(notebook))
    (cls / "other.py").write_text(independent(rng))
    code, out, err = run("similarity", cls, "--csv", tmp_path / "p.csv")
    assert code == 0, err
    with open(tmp_path / "p.csv", encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    assert (rows[0]["student_a"], rows[0]["student_b"], rows[0]["file"]) == ("folder", "nb", "(whole submission)")
    assert float(rows[0]["similarity"]) > 0.8


def test_names_are_escaped_and_bad_input_is_one_line(tmp_path):
    cls = tmp_path / "class"
    rng = random.Random(3)
    source = independent(rng)
    for name in ("<img src=x onerror=alert(1)>", "=cmd()"):
        (cls / name).mkdir(parents=True)
        (cls / name / "solution.py").write_text(source + "\nx = '<script>alert(2)</script>'\n")
    code, _, err = run("similarity", cls, "--csv", tmp_path / "p.csv", "--html", tmp_path / "p.html")
    assert code == 0, err
    page = (tmp_path / "p.html").read_text()
    assert "<img" not in page and "<script>" not in page and "&lt;script&gt;" in page
    assert "'=cmd()" in (tmp_path / "p.csv").read_text(encoding="utf-8-sig")
    code, _, err = run("similarity", tmp_path / "nope")
    assert code == 2 and "no such folder" in err and len(err.strip().splitlines()) == 1


def own_code(rng: random.Random, name: str) -> str:
    """A function nobody else writes: random arithmetic over random names, as a token stream unlike any other."""
    lines = [f"def {name}(a, b, c):"]
    for _ in range(8):
        terms = [rng.choice(["a", "b", "c", "a[0]", "b.T", str(rng.randint(2, 99))]) for _ in range(4)]
        ops = [rng.choice(["+", "-", "*", "/", "@", "**", "%"]) for _ in range(3)]
        expr = terms[0] + "".join(f" {op} {t}" for op, t in zip(ops, terms[1:]))
        lines.append(f"    {rng.choice('abc')} = {expr}")
    lines.append("    return a")
    return "\n".join(lines) + "\n"


SHARED = ("def smooth(signal, passes):\n    out = list(signal)\n    for _ in range(passes):\n"
          "        out = [out[0]] + [(out[i - 1] + 2 * out[i] + out[i + 1]) / 4 for i in range(1, len(out) - 1)]"
          " + [out[-1]]\n    return out\n")


def test_published_code_and_code_most_share_are_not_counted(tmp_path):
    """--ignore: the code the course published is not counted; code that more than ten
    submissions share is common code (MOSS's -m 10), while the same code shared by two is a pair."""
    rng = random.Random(11)
    cls = tmp_path / "class"
    published = tmp_path / "published.py"
    published.write_text(SHARED)
    for n in range(12):            # twelve students use the published helper, each with code of their own
        (cls / f"p{n:02d}").mkdir(parents=True)
        (cls / f"p{n:02d}" / "work.py").write_text(own_code(rng, "mine") + "\n\n" + SHARED)
    helper = own_code(rng, "helper")   # two of them also share a helper nobody else has
    for student in ("p03", "p08"):
        path = cls / student / "work.py"
        path.write_text(path.read_text() + "\n\n" + helper)
    for extra in ([], ["--ignore", published]):
        code, out, err = run("similarity", cls, "--csv", tmp_path / "p.csv", *extra)
        assert code == 0, err
        with open(tmp_path / "p.csv", encoding="utf-8-sig") as fh:
            rows = list(csv.DictReader(fh))
        # the pair first; the helper is half their own code; what else pairs is chance (a few operators alike)
        assert (rows[0]["student_a"], rows[0]["student_b"], rows[0]["file"]) == ("p03", "p08", "work.py"), rows[:3]
        assert float(rows[0]["similarity"]) > 0.45
        assert all(float(r["similarity"]) < 0.3 for r in rows[1:]), (extra, rows[:3])
    # two students alone with the published helper: a pair, unless the course says it published it
    two = tmp_path / "two"
    for student in ("x", "y"):
        (two / student).mkdir(parents=True)
        (two / student / "work.py").write_text(own_code(rng, "mine") + "\n\n" + SHARED)
    alike = []
    for extra in ([], ["--ignore", published]):
        code, out, err = run("similarity", two, "--csv", tmp_path / "two.csv", *extra)
        assert code == 0, err
        with open(tmp_path / "two.csv", encoding="utf-8-sig") as fh:
            alike.append(max([float(r["similarity"]) for r in csv.DictReader(fh)], default=0.0))
    assert alike[0] > 0.4 and alike[1] < 0.3, alike
    code, _, err = run("similarity", two, "--ignore", tmp_path / "nope.py")
    assert code == 2 and "--ignore: no such file" in err and len(err.strip().splitlines()) == 1


def test_odd_and_tiny_classes_give_no_pairs_and_no_traceback(tmp_path):
    """A class of one; empty, one-character, non-UTF-8 and broken-notebook files; two identical
    files too short to tell copying from chance: exit 0, nothing flagged."""
    one = tmp_path / "one"
    (one / "solo").mkdir(parents=True)
    (one / "solo" / "solution.py").write_text(independent(random.Random(1)))
    code, out, err = run("similarity", one, "--csv", tmp_path / "one.csv", "--html", tmp_path / "one.html")
    assert code == 0 and out.startswith("1 submissions, 0 pairs"), (out, err)
    odd = tmp_path / "odd"
    for student in ("a", "b", "c", "d"):
        (odd / student).mkdir(parents=True)
        (odd / student / "tiny.py").write_text("x = np.tanh(h @ W + b)\n")      # the same, but one line
        (odd / student / "empty.py").write_text("")
        (odd / student / "one.py").write_text("x")
        (odd / student / "latin.py").write_bytes("s = 'caf\xe9'\n".encode("latin-1") * 3)
        (odd / student / "nb.ipynb").write_text('{"cells": [')
    (odd / "e.ipynb").write_text("not a notebook")
    code, out, err = run("similarity", odd, "--csv", tmp_path / "odd.csv", "--html", tmp_path / "odd.html")
    assert code == 0 and "0 pairs" in out, (out, err)
    rows = (tmp_path / "odd.csv").read_text(encoding="utf-8-sig").splitlines()
    assert rows == ["student_a,student_b,file,similarity"]


def test_without_the_similarity_extra_one_line_and_exit_2(tmp_path):
    """copydetect is an optional extra: without it (simulated: sys.modules["copydetect"] = None)
    grade similarity names the extra in one line and exits 2; the rest of grade never imports it."""
    import subprocess
    import sys

    cls = tmp_path / "class"
    (cls / "a").mkdir(parents=True)
    (cls / "a" / "solution.py").write_text(independent(random.Random(2)))
    program = ("import sys; sys.modules['copydetect'] = None\n"
               "from grader.cli import main\n"
               "sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", program, "similarity", str(cls), "--csv", str(tmp_path / "p.csv")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == ("grade: grade similarity needs the similarity extra: "
                                   "pip install 'rnn-grader[similarity]'"), proc.stderr
    assert not (tmp_path / "p.csv").exists()
    proc = subprocess.run([sys.executable, "-c", program, "check", "solutions/reference/rnn_step.py", "--only", "step",
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    exercise = json.loads(proc.stdout)["exercises"][0]
    assert exercise["score"] == exercise["max_score"] > 0, proc.stderr     # grading needs no copydetect


def test_three_hundred_submissions_in_seconds(tmp_path):
    rng = random.Random(300)
    cls = tmp_path / "class"
    for n in range(300):
        (cls / f"s{n:03d}").mkdir(parents=True)
        (cls / f"s{n:03d}" / "solution.py").write_text(independent(rng))
    start = time.perf_counter()
    code, _, err = run("similarity", cls, "--csv", tmp_path / "p.csv")
    assert code == 0, err
    assert time.perf_counter() - start < 30


def test_the_page_renders_in_headless_chromium_and_nothing_planted_runs(planted, tmp_path):
    """The page in a real browser: the pairs side by side with their lines highlighted, and a
    student's planted markup (in a name and in the code) only text, never an element."""
    import os
    import subprocess
    from pathlib import Path

    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and Chromium is not installed", pytrace=False)
        pytest.skip("Chromium is not installed")
    cls, copies = planted
    evil = cls / "<img src=x onerror=document.title='pwned'>"
    evil.mkdir()
    source = (cls / "s03" / "solution.py").read_text()
    (evil / "solution.py").write_text(source + "\nnote = '</pre><script>document.title=\"pwned\"</script>'\n")
    page = tmp_path / "pairs.html"
    code, _, err = run("similarity", cls, "--html", page, "--threshold", "0.6")
    assert code == 0, err
    proc = subprocess.run([str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", f"--user-data-dir={tmp_path / 'profile'}",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    dom = proc.stdout
    assert "<title>Similarity report</title>" in dom, proc.stderr[-2000:]
    assert "pwned" not in dom.split("</title>")[0]          # no script ran to change the title
    assert "<script" not in dom and "<img" not in dom
    assert dom.count('<table class="pair">') >= 4          # three planted pairs, and the planted name's copy
    assert dom.count('class="hit"') > 40
