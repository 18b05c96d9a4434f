"""``grade similarity`` on a class of N submissions of the bundled course (issue 35: seconds for 300).

Each student folder holds every file of the course, each file taken from one of three
independent implementations (solutions/reference, tests/impls/einsum, tests/impls/loops) with
its own local names renamed, and the stubs' answers.yaml; three pairs are planted copies
(renamed, functions reordered, comments replaced). Prints the wall time of the whole command
(a process of its own, as an instructor runs it: importing copydetect, fingerprinting every file
with it on every core, comparing, writing the CSV and the page), its CPU time, the machine's load
average (other work on the machine stretches the wall time), the pairs found and where the
planted pairs rank. Needs the similarity extra (copydetect).

    python benchmarks/similarity_bench.py [--n 300]
"""

from __future__ import annotations

import argparse
import csv
import io
import keyword
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "solutions" / "reference", ROOT / "tests" / "impls" / "einsum", ROOT / "tests" / "impls" / "loops"]
KEEP = set(dir(__builtins__)) | {"np", "numpy", "math"}


def renamed(source: str, rng: random.Random) -> str:
    names = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) and tok.string not in KEEP \
                and not tok.string.startswith(("rnn_", "count_", "bptt", "birnn", "clip", "mask", "readout",
                                               "tiny", "Tiny", "gradient", "forward", "loss", "backward")):
            names.setdefault(tok.string, f"v{len(names)}_{rng.randint(0, 999)}")
    for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
        source = re.sub(rf"(?<![.\w]){re.escape(old)}\b", new, source)
    return source


OPERATORS = ["+", "-", "*", "/", "@", "**", "//", "%"]


def expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(["t0", "t1", "t2", str(rng.randint(1, 9)), "t0[0]", "t1.T"])
    return f"({expression(rng, depth - 1)} {rng.choice(OPERATORS)} {expression(rng, depth - 1)})"


def own_helper(rng: random.Random) -> str:
    """What one student writes that no other does: a helper of random structure (random expression
    trees: as a token stream, after every name became V, no two students' helpers are alike)."""
    lines = ["def check_shapes(t0, t1, t2):"]
    for _ in range(8):
        target = rng.choice(["t0", "t1", "t2"])
        if rng.random() < 0.3:
            lines.append(f"    if {expression(rng, 2)} > {rng.randint(0, 9)}:")
            lines.append(f"        {target} = {expression(rng, 3)}")
        else:
            lines.append(f"    {target} = {expression(rng, 3)}")
    lines.append("    return t0")
    return "\n".join(lines) + "\n"


def disguised(source: str, rng: random.Random) -> str:
    parts = re.split(r"\n(?=def )", re.sub(r"#[^\n]*", "", renamed(source, rng)))
    head, functions = parts[0], parts[1:]
    rng.shuffle(functions)
    return head + "\n\n" + "\n\n".join("# mine\n" + f.strip() + "\n" for f in functions)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(35)
    files = sorted(p.name for p in SOURCES[0].glob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        cls = Path(tmp) / "class"
        students = [f"s{i:03d}" for i in range(args.n)]
        for student in students:
            folder = cls / student
            folder.mkdir(parents=True)
            for name in files:
                # the course's functions as one of three implementations write them (common code),
                # and a helper of the student's own
                (folder / name).write_text(renamed((rng.choice(SOURCES) / name).read_text() + "\n\n"
                                                   + own_helper(rng), rng))
        planted = [(students[i], students[i + 1]) for i in (10, 50, 90)]
        for original, copier in planted:
            for name in files:
                (cls / copier / name).write_text(disguised((cls / original / name).read_text(), rng))
        out = Path(tmp) / "pairs.csv"
        load = os.getloadavg()
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "grader", "similarity", str(cls), "--csv", str(out),
                        "--html", str(Path(tmp) / "pairs.html")], check=True, capture_output=True)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        with open(out, encoding="utf-8-sig") as fh:
            rows = list(csv.DictReader(fh))
        ranks = {}
        for rank, row in enumerate(rows):
            key = tuple(sorted((row["student_a"], row["student_b"])))
            ranks.setdefault(key, rank)
        print(f"{args.n} submissions x {len(files)} files: {seconds:.2f} s wall, {cpu:.2f} s CPU (all processes), "
              f"{len(rows)} pairs sharing code; {os.cpu_count()} cores, load average before "
              f"{load[0]:.1f}, after {os.getloadavg()[0]:.1f}")
        for pair in planted:
            print(f"  planted {pair}: first ranked {ranks.get(tuple(sorted(pair)))}")
        planted_keys = {tuple(sorted(p)) for p in planted}
        others = [r["similarity"] for r in rows if tuple(sorted((r["student_a"], r["student_b"]))) not in planted_keys]
        print(f"  most similar independent pair: {others[0] if others else '-'}")


if __name__ == "__main__":
    main()
