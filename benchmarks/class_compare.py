"""`grade class` of one synthetic class, this tree against an older release, side by side.

Throughput: one class of N submissions (benchmarks/class_bench.py's ``make_class``: a third
the reference, the rest every known mistake of this tree's catalogue in turn) is graded by
whole `grade class DIR --jobs 2` processes with the default settings (sandbox on,
counterexamples on, markdown feedback files, text report), a fresh gradebook each time,
alternately by the old code (``git archive OLD`` extracted to a temporary folder, run with
PYTHONPATH set to it) and by this tree, both from a working directory outside the repository
and each with a cache folder of its own (GRADER_CACHE_DIR). One untimed run of each comes
first, so every timed run is the default path of a machine that has graded before (drawn
cases kept, bytecode compiled). The table gives the median wall time of ROUNDS runs of each,
submissions per second, the median CPU time of each run's process tree (user and system, every
descendant that was waited for) and the ratios. On a shared machine the wall-clock ratio of one
session moves with the other work (three sessions on 2026-12-06 gave 0.57x, 1.11x and 0.81x); the
CPU ratio moves far less: quote both, with the load average the script prints.

Results: the gradebooks of the first timed run of each are read (attempts.result, the
language-neutral result both versions store) and compared per student and exercise: the
exercise's problem, its score, each check's outcome (passed, score, max score, message), each
check's counterexample and the named mistakes (the student's diagnoses and, where the version
has them, the ones named for the instructor only). Every version's later rounds are compared
with its first too (a result that varies from run to run would make any comparison moot).

Each version grades with its own bundled course (exercises/ and solutions/ of its commit):
that is what a user of each release runs. The courses differ; the script says where (checks
whose definition or whose texts changed, mistakes and implementations added). A difference in
named mistakes where this tree names a mistake the old catalogue has no id for, or names the
planted mistake of a student whose implementation (a variant file) the old catalogue does not
have, is counted apart as catalogue growth and listed with that explanation; every other
difference is counted and listed as a difference.

    python benchmarks/class_compare.py [--n 300] [--rounds 3] [--old 2110c4a] [--keep DIR]
"""

from __future__ import annotations

import argparse
import collections
import difflib
import hashlib
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from class_bench import CORRECT_SHARE, make_class  # noqa: E402
from grader.course.loader import bundled_course_root, load_course  # noqa: E402

TEXT_FIELDS = ("title", "hint", "statement", "explanation")   # course texts: not graded outcomes


# ---------------------------------------------------------------- the two versions

def extract(commit: str, dest: Path) -> Path:
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def version_env(code: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADER_CACHE_DIR")}
    env.update(PYTHONPATH=str(code), GRADER_CACHE_DIR=str(cache))
    return env


def imported_from(env: dict, cwd: Path) -> Path:
    done = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"],
                          env=env, cwd=cwd, check=True, capture_output=True, text=True)
    return Path(done.stdout.strip()).parent.parent


def grade_class(cls: Path, jobs: int, run_dir: Path, env: dict, cwd: Path) -> tuple[float, float]:
    """One whole default `grade class` process into a fresh gradebook: its wall time, and the CPU time
    (user and system) of it and every descendant that was waited for (the grading processes, their
    sandboxed workers and helpers), which depends less on what else the machine runs."""
    run_dir.mkdir(parents=True)
    with open(run_dir / "report.txt", "wb") as out, open(run_dir / "stderr.txt", "wb") as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "grader", "class", str(cls), "--jobs", str(jobs),
                               "--gradebook", str(run_dir / "gradebook.sqlite")],
                              env=env, cwd=cwd, stdout=out, stderr=err)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"grade class failed ({done.returncode}) in {run_dir}: see stderr.txt there")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# ---------------------------------------------------------------- the class and its planted mistakes

def folder_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def planted(cls: Path, templates: Path) -> dict[str, tuple[str, Path] | None]:
    """Each student's planted mistake (its id and implementation file), None for the reference:
    make_class's templates m<i> are this tree's variants in catalogue order."""
    course = load_course(bundled_course_root())
    variants = [(m.id, v) for e in course.exercises.values() for m in e.mistakes for v in m.variants]
    by_digest = {folder_digest(templates / "reference"): None}
    for i, variant in enumerate(variants):
        by_digest[folder_digest(templates / f"m{i:03d}")] = variant
    return {entry.name: by_digest[folder_digest(entry)] for entry in cls.iterdir()}


# ---------------------------------------------------------------- the courses

def catalogue(root: Path) -> dict[str, dict]:
    ids = {}
    for path in sorted((root / "solutions" / "mistakes").glob("*/catalogue.yaml")):
        ids.update(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    return ids


def exercise_checks(root: Path) -> dict[str, dict[str, dict]]:
    out = {}
    for path in sorted((root / "exercises").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "checks" in data and "id" in data:
            out[data["id"]] = {c["id"]: c for c in data["checks"] if isinstance(c, dict) and "id" in c}
    return out


def without_texts(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k not in TEXT_FIELDS}


def course_differences(old: Path, new: Path) -> list[str]:
    """Where the old commit's bundled course and this tree's differ, in the terms grading sees."""
    lines = []
    old_checks, new_checks = exercise_checks(old), exercise_checks(new)
    for ex in sorted(set(old_checks) | set(new_checks)):
        a, b = old_checks.get(ex, {}), new_checks.get(ex, {})
        if set(a) != set(b):
            lines.append(f"{ex}: checks added {sorted(set(b) - set(a))}, removed {sorted(set(a) - set(b))}")
        rules = [c for c in sorted(set(a) & set(b)) if without_texts(a[c]) != without_texts(b[c])]
        texts = [c for c in sorted(set(a) & set(b)) if c not in rules and a[c] != b[c]]
        if rules:
            lines.append(f"{ex}: checks whose definition (points, hidden, kind, inputs...) differs: {rules}")
        if texts:
            lines.append(f"{ex}: checks whose title or hint texts differ (outcomes unaffected): {texts}")
    for path in sorted({p.relative_to(new) for p in (new / "exercises" / "checks").glob("*.py")}
                       | {p.relative_to(old) for p in (old / "exercises" / "checks").glob("*.py")}):
        a, b = old / path, new / path
        if not a.exists() or not b.exists():
            lines.append(f"{path}: only in {'this tree' if b.exists() else 'the old commit'}")
            continue
        changed = [line[2:] for line in difflib.ndiff(a.read_text().splitlines(), b.read_text().splitlines())
                   if line.startswith(("- ", "+ "))]
        if changed:
            paths_only = all(x.lstrip().startswith(("from ", "import ")) or "grader/" in x for x in changed)
            lines.append(f"{path}: {len(changed)} line(s) removed or added, "
                         f"{'import paths and their mentions only' if paths_only else 'code'}")
    old_cat, new_cat = catalogue(old), catalogue(new)
    added = sorted(set(new_cat) - set(old_cat))
    if added:
        lines.append(f"mistakes added to the catalogue ({len(added)}): {', '.join(added)}")
    if set(old_cat) - set(new_cat):
        lines.append(f"mistakes removed from the catalogue: {sorted(set(old_cat) - set(new_cat))}")
    changed = sorted(m for m in set(old_cat) & set(new_cat) if without_texts(old_cat[m]) != without_texts(new_cat[m]))
    if changed:
        lines.append(f"catalogue entries whose rules (fails, silent, implementations...) differ: {', '.join(changed)}")
    implementations = sorted(str(p.relative_to(new / "solutions" / "mistakes"))
                             for p in (new / "solutions" / "mistakes").glob("*/*.py")
                             if not (old / p.relative_to(new)).exists())
    if implementations:
        lines.append(f"mistake implementations added ({len(implementations)}): {', '.join(implementations)}")
    return lines


# ---------------------------------------------------------------- the results

def gradebook(path: Path) -> dict[str, dict]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT student, score, max_score, result FROM attempts ORDER BY id").fetchall()
    return {student: {"score": score, "max": max_score, "result": json.loads(result)}
            for student, score, max_score, result in rows}


def outcomes(entry: dict) -> dict[str, dict]:
    """Per exercise, what grading decided: no timings, no course texts."""
    out = {"(total)": {"score": (entry["score"], entry["max"])}}
    for ex in entry["result"]["exercises"]:
        checks = {c["name"]: {"passed": c["passed"], "score": c["score"], "max_score": c["max_score"],
                              "message": c["message"], "counterexample": c["counterexample"]}
                  for c in ex["checks"]}
        out[ex["id"]] = {
            "problem": ex["problem"], "output": ex["output"],
            "score": (sum(c["score"] for c in ex["checks"]), sum(c["max_score"] for c in ex["checks"])),
            "checks": checks,
            "named": sorted(d["id"] for d in ex["diagnoses"]),
            "named_hidden": sorted(ex.get("hidden_diagnoses", [])),
        }
    return out


ABSENT = "(absent)"


def flatten(book: dict) -> dict[tuple[str, str, str], object]:
    """(student, exercise, what) -> value, for every outcome compared."""
    flat = {}
    for student, entry in book.items():
        for ex, got in outcomes(entry).items():
            for key in ("score", "problem", "output", "named", "named_hidden"):
                if key in got:
                    flat[student, ex, key] = got[key]
            for name, check in got.get("checks", {}).items():
                for key in ("passed", "score", "max_score", "message", "counterexample"):
                    flat[student, ex, f"check {name} {key}"] = check[key]
    return flat


def differences(a: dict, b: dict) -> list[tuple[str, str, str, object, object]]:
    """(student, exercise, what, a's, b's) for every outcome that differs (ABSENT: not graded there)."""
    fa, fb = flatten(a), flatten(b)
    return [(*key, fa.get(key, ABSENT), fb.get(key, ABSENT)) for key in sorted(set(fa) | set(fb))
            if fa.get(key, ABSENT) != fb.get(key, ABSENT)]


def moved_to_hidden(diffs) -> tuple[list, list]:
    """Pairs a mistake named to the student by the old code and, for the same student and exercise,
    to the instructor only by the new (hidden_diagnoses, commit 421bad0, issue 31 item 5: a mistake
    only hidden checks show is no longer named to the student). Returns (moves, the rest)."""
    named = {(d[0], d[1]): d for d in diffs if d[2] == "named"}
    hidden = {(d[0], d[1]): d for d in diffs if d[2] == "named_hidden"}
    moves, paired = [], set()
    for key, d in named.items():
        h = hidden.get(key)
        if h and set(d[3]) - set(d[4]) == set(h[4]) - set(h[3]) and set(d[3]) | set(h[3]) == set(d[4]) | set(h[4]):
            moves.append((key[0], key[1], "named to the student -> to the instructor only", d[3], h[4]))
            paired.update({id(d), id(h)})
    return moves, [d for d in diffs if id(d) not in paired]


def growth_reason(diff, plants, old_ids: set[str], old_root: Path) -> str | None:
    """Why a difference in named mistakes is catalogue growth, or None if it is not."""
    student, ex, what, old_value, new_value = diff
    if what not in ("named", "named_hidden"):
        return None
    old_named, new_named = set(old_value), set(new_value)
    if old_named - new_named:
        return None                                   # the old catalogue named something this one does not
    extra = new_named - old_named
    unknown = {m for m in extra if m not in old_ids}
    if extra == unknown:
        return f"names {sorted(unknown)}, mistake(s) added to the catalogue since the old commit"
    plant = plants.get(student)
    if plant is not None:
        mistake, variant = plant
        relative = variant.relative_to(ROOT / "solutions" / "mistakes")
        if extra <= {mistake} | unknown and not (old_root / "solutions" / "mistakes" / relative).exists():
            return (f"names the planted {mistake}, whose implementation {relative} was added since the old "
                    f"commit (the old catalogue has the id but no implementation that behaves like this one)")
    return None


def short(value, width: int = 150) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= width else text[:width - 3] + "..."


def show(diffs, plants, limit: int):
    """Differences (student, exercise, what, old, new), or such pairs (difference, why)."""
    for item in diffs[:limit]:
        diff, why = item if len(item) == 2 else (item, None)
        student, ex, what, a, b = diff
        plant = plants.get(student)
        planted_as = f"{plant[0]} ({plant[1].name})" if plant else "the reference"
        print(f"  {student} [{planted_as}] {ex}: {what}")
        print(f"      old: {short(a)}")
        print(f"      new: {short(b)}")
        if why:
            print(f"      why: {why}")
    if len(diffs) > limit:
        print(f"  ... and {len(diffs) - limit} more")


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="submissions in the class")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each version")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--old", default="2110c4a", help="the release to compare with")
    parser.add_argument("--new", default="tree",
                        help="what to compare it with: tree (this working tree, default), a commit (git archive), "
                             "or a folder holding a copy of the repository")
    parser.add_argument("--correct", type=float, default=CORRECT_SHARE, help="share of correct submissions")
    parser.add_argument("--show", type=int, default=8, help="differences listed of each kind")
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and keep it: gradebooks, reports")
    parser.add_argument("--compare-only", type=Path, metavar="DIR",
                        help="grade nothing: compare the gradebooks a --keep DIR run left (same --rounds)")
    args = parser.parse_args()
    if args.compare_only:
        tmp = args.compare_only
        compare(args, tmp, tmp / "old-code", planted(tmp / "a" / "class", tmp / "a" / "templates"))
        return
    if args.keep:
        args.keep.mkdir(parents=True)
        run(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="class-compare-") as tmp:
            run(args, Path(tmp))


def run(args, tmp: Path):
    old_root = extract(args.old, tmp / "old-code")
    if args.new == "tree":
        new_root = ROOT
    elif Path(args.new).is_dir():
        new_root = Path(args.new).resolve()
    else:
        new_root = extract(args.new, tmp / "new-code")
    for root in {old_root, new_root}:   # bytecode compiled, as after an install (PYTHONDONTWRITEBYTECODE may be set)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "grader")], check=True,
                       capture_output=True)
    cls = make_class(tmp / "a", args.n, args.correct)
    plants = planted(cls, tmp / "a" / "templates")
    cwd = tmp / "cwd"
    cwd.mkdir()
    envs = {"old": version_env(old_root, tmp / "cache-old"), "new": version_env(new_root, tmp / "cache-new")}
    for name, env in envs.items():
        where = imported_from(env, cwd)
        expected = old_root if name == "old" else new_root
        if where.resolve() != expected.resolve():
            raise SystemExit(f"the {name} version imports grader from {where}, not {expected}")
    warm = {name: grade_class(cls, args.jobs, tmp / f"warm-{name}", env, cwd)[0] for name, env in envs.items()}
    times, cpu = collections.defaultdict(list), collections.defaultdict(list)
    for r in range(args.rounds):
        for name in (("old", "new") if r % 2 == 0 else ("new", "old")):   # alternate who goes first
            seconds, cpu_seconds = grade_class(cls, args.jobs, tmp / f"{name}-{r}", envs[name], cwd)
            times[name].append(seconds)
            cpu[name].append(cpu_seconds)
    load = os.getloadavg()

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "grader"],
                           capture_output=True, text=True).stdout.strip()
    if args.new == "tree":
        new_is = f"this working tree at {commit}{' with uncommitted changes under grader/' if dirty else ''}"
    else:
        new_is = f"{args.new} ({'a copy' if new_root != tmp / 'new-code' else 'git archive'})"
    print(f"grade class, {args.n} synthetic submissions ({args.correct:.0%} correct), --jobs {args.jobs}, default "
          f"settings (sandbox on, counterexamples on, markdown feedback), fresh gradebook each run, "
          f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"old: {args.old} (git archive), new: {new_is}; each with its own bundled course")
    print(f"untimed first run of each (fills its drawn-case cache): old {warm['old']:.1f} s, new {warm['new']:.1f} s")
    print(f"load average at the end (1, 5, 15 min): {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
          f"on {os.cpu_count()} CPUs (above the CPU count: other work was running)")
    print(f"{'':6} {'median s':>9} {'subs/s':>8} {'CPU s':>7}   runs (wall s, in order)")
    for name in ("old", "new"):
        median = statistics.median(times[name])
        print(f"{name:6} {median:>9.2f} {args.n / median:>8.2f} {statistics.median(cpu[name]):>7.1f}   "
              f"{', '.join(f'{t:.2f}' for t in times[name])}")
    ratio = statistics.median(times["old"]) / statistics.median(times["new"])
    print(f"throughput ratio new/old: {ratio:.2f}x (target >= 1.5x: {'met' if ratio >= 1.5 else 'not met'}); "
          f"CPU time ratio old/new: {statistics.median(cpu['old']) / statistics.median(cpu['new']):.2f}x")
    print()

    print(f"the courses ({args.old}'s bundled course against this tree's):")
    for line in course_differences(old_root, new_root) or ["identical"]:
        print(f"  {line}")
    print()

    compare(args, tmp, old_root, plants)


def compare(args, tmp: Path, old_root: Path, plants: dict):
    """The gradebooks of the timed runs in ``tmp``, old against new and each version's runs against each other."""
    envs = ("old", "new")
    books = {name: [gradebook(tmp / f"{name}-{r}" / "gradebook.sqlite") for r in range(args.rounds)]
             for name in envs}
    varies = set()     # (student, exercise, what) whose value differs between runs of one version
    for name in envs:
        unstable = [d for r in range(1, args.rounds) for d in differences(books[name][0], books[name][r])]
        varies |= {d[:3] for d in unstable}
        verdict = ("not checked (one run)" if args.rounds < 2 else "yes" if not unstable
                   else f"NO, {len(unstable)} differences between its first run and a later one")
        print(f"{name}: its {args.rounds} runs' results agree with each other: {verdict}")
        show(unstable, plants, args.show)
    everything = differences(books["old"][0], books["new"][0])
    flat = {name: [flatten(book) for book in books[name]] for name in envs}
    varying = [d for d in everything if d[:3] in varies]
    moves, diffs = moved_to_hidden([d for d in everything if d[:3] not in varies])
    old_ids = set(catalogue(old_root))
    reasons = [growth_reason(d, plants, old_ids, old_root) for d in diffs]
    growth = [(d, why) for d, why in zip(diffs, reasons) if why]
    other = [d for d, why in zip(diffs, reasons) if not why]
    compared = sum(len(outcomes(e)) - 1 for e in books["new"][0].values())
    print(f"old against new: {len(books['old'][0])} and {len(books['new'][0])} students, {compared} "
          f"student-exercises compared (score, problem, each check's passed/score/message/counterexample, "
          f"named mistakes)")
    print(f"differences: {len(other) + len(moves)}, of which {len(moves)} a mistake named to the instructor only "
          f"where the old code named it to the student (shown apart below); plus {len(growth)} explained by "
          f"catalogue growth, and {len(varying)} in outcomes that vary from run to run within a version")
    by_kind = collections.Counter(d[2] if not d[2].startswith("check ") else "check " + d[2].split()[-1]
                                  for d in other)
    if by_kind:
        print(f"  by kind: {dict(sorted(by_kind.items()))}")
    show(other, plants, args.show)
    if varying:
        print("outcomes that vary between runs of one version (listed above); whether some run of each gave "
              "the same value:")
        for d in varying[:args.show]:
            olds, news = ({json.dumps(f.get(d[:3], ABSENT), sort_keys=True) for f in flat[n]} for n in ("old", "new"))
            print(f"  {d[0]} {d[1]}: {d[2]}: {len(olds)} value(s) in the old runs, {len(news)} in the new, "
                  f"{'a common one' if olds & news else 'NONE in common'}")
        if len(varying) > args.show:
            print(f"  ... and {len(varying) - args.show} more")
    if moves:
        print("a mistake only hidden checks show, named to the student by the old code and to the instructor "
              "only (hidden_diagnoses) by the new: a deliberate change since the old commit (421bad0, issue 31 "
              "item 5: nothing of a hidden input shows through diagnosis); still a difference in what the "
              "student is told:")
        show(moves, plants, args.show)
    if growth:
        print("explained by catalogue growth (this tree names what the old catalogue cannot):")
        show(growth, plants, args.show)


if __name__ == "__main__":
    main()
