"""``grade similarity DIR``: pairs of submissions whose code is more alike than chance.

The fingerprints and the overlap are copydetect's (an optional extra: ``pip install
'rnn-grader[similarity]'``; without it the command says so in one line and exits 2).
copydetect is a maintained implementation of MOSS's winnowing (Schleimer, Wilkerson and
Aiken, SIGMOD 2003), used by courses to check their submissions:

* ``CodeFingerprint(..., filter=True, language="py")`` tokenizes a file with pygments and
  replaces every variable and attribute name with ``V``, every function name with ``F``,
  every class name with ``O`` and every string with ``S``, and drops comments and
  whitespace: renamed variables, changed comments and whitespace change nothing. Every run
  of ``K`` filtered characters is hashed (with copydetect's default window of 1 every run is
  kept, so a shared run of ``K`` characters is found wherever it sits in either file:
  reordered functions still match, and the result is the same on every run).
* the code everyone was given is not counted: every fingerprint of the kit's stubs
  (``exercises/stubs``), of the kit's notebook and of ``--ignore`` files, taken as
  copydetect's ``CopyDetector`` takes boilerplate (every k-gram, unwinnowed).
* ``compare_files`` gives, for a pair, the share of each file's fingerprinted code found in
  the other and the copied regions (character slices of each file), shown side by side.

Three things are ours: a fingerprint that more than ``COMMON_MAX`` submissions share is common
code, not copying (MOSS's ``-m 10``); boilerplate and common fingerprints are removed from a
fingerprint once every file is fingerprinted (:func:`without`: copydetect 0.5's own
``boilerplate=`` argument, through ``np.intersect1d(..., assume_unique=True)`` on hashes that
repeat, also drops repeated occurrences of a student's own fingerprints, which shrinks their
coverage and their highlighted regions); and only files sharing a fingerprint are compared
(an index from fingerprint to files), so 300 submissions take seconds rather than the 45 000
comparisons per file copydetect's own ``CopyDetector`` would make. The similarity of a pair
is the larger of copydetect's two shares (0 to 1): a copy hidden inside a longer file is
still found. Files whose counted code is shorter than ``MIN_COVERAGE`` filtered characters
are not compared (too little to tell).

Each ``.py`` file of a submission (and a notebook's code cells as one source, converted by
``grader.submission.notebook``) is compared with the same-named file of the others; a single-file or
notebook submission is compared as a whole with every other submission's code as a whole.
The output ranks pairs, most similar first, as CSV (``student_a,student_b,file,similarity``)
and as an HTML page with the copied regions highlighted side by side. It flags; it never
changes a mark.
"""

from __future__ import annotations

import copy
import csv
import gc
import html
import io
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from grader.base.temp_folders import temporary_folder
from grader.base.errors import BadInput

K = 25                     # copydetect's noise threshold (its default): filtered characters a fingerprint covers
# copydetect's default guarantee threshold, equal to K: window 1, every k-gram kept. A wider window
# picks the smallest hash of each window, and Python salts string hashes per process (copydetect
# hashes with hash()): the pairs and their similarities would change from one run to the next.
GUARANTEE = 25
WINDOW = GUARANTEE - K + 1
MIN_COVERAGE = 100         # filtered characters of counted code a file needs to be compared (about 3 lines)
COMMON_MAX = 10            # a fingerprint in more submissions than this is common code, not copying (MOSS's -m)
WHOLE = "(whole submission)"
MAX_FILE_BYTES = 1 << 20
PAGE_LINES = 2000          # lines of a file the page shows
EXTRA_MISSING = "grade similarity needs the similarity extra: pip install 'rnn-grader[similarity]'"


def require_copydetect():
    """The copydetect module, or BadInput (one line, exit 2) naming the extra to install."""
    try:
        import copydetect
    except ImportError as exc:
        missing = getattr(exc, "name", None)
        # copydetect present but one of its own dependencies not: say which
        detail = "" if missing in (None, "copydetect") else f" (copydetect cannot import {missing})"
        raise BadInput(EXTRA_MISSING + detail) from None
    return copydetect


@dataclass
class Document:
    student: str
    file: str
    source: str
    print: object = None               # copydetect.CodeFingerprint (only the counted fingerprints once compared)


@dataclass
class Pair:
    student_a: str
    student_b: str
    file: str
    similarity: float
    a: Document
    b: Document
    slices_a: list = field(default_factory=list)   # [(start, end)] character ranges of a.source copied
    slices_b: list = field(default_factory=list)


# ---------------------------------------------------------------- fingerprints (copydetect)

def fingerprint(source: str, name: str = "code.py", k: int = K, window: int = WINDOW):
    """copydetect's fingerprint of Python ``source`` (names, strings, comments and whitespace
    filtered), its hashes made plain ints (the same values: they index faster and cross a
    process boundary cheaply)."""
    from copydetect import CodeFingerprint

    fp = CodeFingerprint(name, k, window, filter=True, language="py", fp=io.StringIO(source))
    fp.hash_idx = {int(h): [int(i) for i in idx] for h, idx in fp.hash_idx.items()}
    fp.hashes = set(fp.hash_idx)
    return fp


def fingerprints(source: str) -> dict[int, list[int]]:
    """The winnowed fingerprints of ``source``: hash -> where each occurrence starts in the filtered code."""
    return fingerprint(source).hash_idx


def every_kgram(source: str) -> set[int]:
    """All fingerprints of ``source``, not only the winnowed ones (as copydetect's CopyDetector
    takes boilerplate: any winnowed pick of a submission inside that code is removed)."""
    return fingerprint(source, window=1).hashes


def without(fp, drop: set):
    """``fp`` with the fingerprints in ``drop`` removed, every occurrence of the others kept, and
    its coverage counted again, as copydetect's ``boilerplate`` argument means to (after the fact:
    which fingerprints are common is known only once every file is fingerprinted)."""
    from copydetect.utils import get_token_coverage

    kept = copy.copy(fp)
    kept.hash_idx = {h: idx for h, idx in fp.hash_idx.items() if h not in drop}
    kept.hashes = set(kept.hash_idx)
    kept.token_coverage = get_token_coverage(kept.hash_idx, fp.k, len(fp.filtered_code))
    return kept


def fingerprint_all(sources: list[str]) -> list:
    """:func:`fingerprint` of many sources (each distinct text once), on every core when there
    are many. Forked workers share this process's string hash seed, so their hashes match ours."""
    import multiprocessing

    distinct = list(dict.fromkeys(sources))
    cores = min(os.cpu_count() or 1, 8)
    if len(distinct) < 200 or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        done = [fingerprint(source) for source in distinct]
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("fork")) as pool:
            done = list(pool.map(fingerprint, distinct, chunksize=max(1, len(distinct) // (cores * 4))))
    by_source = dict(zip(distinct, done))
    return [by_source[source] for source in sources]


# ---------------------------------------------------------------- reading the class

def read_code(path: Path) -> str:
    """A ``.py`` file's text, or a notebook's code cells as one source (as ``grade check`` runs
    them); what cannot be read is no code."""
    from grader.base.errors import SubmissionError
    from grader.submission.notebook import notebook_to_module

    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return ""
        if path.suffix.lower() == ".ipynb":
            return notebook_to_module(path).source
        return path.read_text(encoding="utf-8", errors="replace")
    except (OSError, SubmissionError):
        return ""


def submission_files(path: Path) -> tuple[dict[str, str], bool]:
    """(relative name -> code, is it a single file or notebook) of one entry; symbolic links never followed."""
    if path.is_file():
        return {path.name: read_code(path)}, True
    files = {}
    for file in sorted(path.rglob("*")):
        relative = file.relative_to(path)
        if file.is_symlink() or not file.is_file() or any(p.startswith((".", "__")) for p in relative.parts):
            continue
        if file.suffix.lower() in (".py", ".ipynb"):
            files[relative.as_posix()] = read_code(file)
    return files, False


def collect(directory: Path, work: Path) -> dict[str, tuple[dict[str, str], bool]]:
    """Every student's code: the entries of DIR as ``grade class`` names them (a zip unpacked safely)."""
    from grader.classroom.class_run import find_entries
    from grader.base.errors import SubmissionError
    from grader.submission.safezip import safe_extract

    entries, _ = find_entries(directory)
    out = {}
    for number, entry in enumerate(entries):
        path = entry.path
        if path.is_file() and path.suffix.lower() == ".zip":
            target = work / str(number)
            try:
                safe_extract(path, target)
            except (SubmissionError, OSError):
                continue
            path = target
        out[entry.student] = submission_files(path)
    return out


def boilerplate(course, ignore=()) -> set[int]:
    """The fingerprints not counted: every k-gram of the kit's stubs, of the code cells of the
    kit's notebook, and of the ``--ignore`` files."""
    sources = []
    stubs = Path(course.stubs_dir) if course is not None else None
    if stubs is not None and stubs.is_dir():
        sources += [read_code(file) for file in sorted(stubs.rglob("*"))
                    if file.is_file() and file.suffix.lower() in (".py", ".ipynb")]
    if course is not None:
        from grader.course.notebook import build_notebook
        from grader.submission.notebook import convert_notebook

        try:
            sources.append(convert_notebook(build_notebook(course)).source)
        except Exception:  # noqa: BLE001 -- a course without a notebook: its stubs are enough
            pass
    sources += [read_code(Path(file)) for file in ignore or ()]
    hashes: set[int] = set()
    for source in sources:
        hashes |= every_kgram(source)
    return hashes


# ---------------------------------------------------------------- comparing

def compare(submissions: dict[str, tuple[dict[str, str], bool]], course=None, ignore=()) -> list[Pair]:
    """Every pair of documents that share counted fingerprints, most similar first."""
    # millions of small containers (fingerprint -> where) and no cycles among them: the cyclic
    # garbage collector, run every 700 new containers, took a third of the time for 300 submissions
    paused = gc.isenabled()
    gc.disable()
    try:
        return _compare(submissions, course, ignore)
    finally:
        if paused:
            gc.enable()


def _compare(submissions, course, ignore) -> list[Pair]:
    groups: dict[str, list[Document]] = defaultdict(list)
    singles = {student for student, (_, single) in submissions.items() if single}
    docs = []
    for student, (files, single) in submissions.items():
        if not single:
            docs += [Document(student, name, code) for name, code in files.items()]
        if singles:     # a single-file or notebook submission is compared as a whole with everyone
            docs.append(Document(student, WHOLE, "\n\n".join(f"# {name}\n{code}" for name, code in files.items())))
    for doc, fp in zip(docs, fingerprint_all([doc.source for doc in docs])):
        doc.print = fp
        groups[doc.file].append(doc)
    given = boilerplate(course, ignore)
    pairs = []
    for name, group in groups.items():
        pairs += _pairs(name, group, singles if name == WHOLE else None, given)
    pairs.sort(key=lambda p: (-p.similarity, p.file, p.student_a, p.student_b))
    return pairs


def _pairs(name: str, docs: list[Document], singles: set | None, given: set[int]) -> list[Pair]:
    from copydetect import compare_files

    index: dict[int, list[int]] = defaultdict(list)
    for number, doc in enumerate(docs):
        for h in doc.print.hashes:
            index[h].append(number)
    drop = given | {h for h, holders in index.items() if len(holders) > COMMON_MAX}
    candidates: set[tuple[int, int]] = set()
    for h, holders in index.items():
        if 1 < len(holders) <= COMMON_MAX and h not in given:
            candidates.update((a, b) for i, a in enumerate(holders) for b in holders[i + 1:])
    for number in {number for pair in candidates for number in pair}:     # only what is compared
        doc = docs[number]
        if not doc.print.hashes.isdisjoint(drop):
            doc.print = without(doc.print, drop)
    out = []
    for a, b in candidates:
        da, db = docs[a], docs[b]
        if singles is not None and da.student not in singles and db.student not in singles:
            continue                       # two folders: compared file by file
        if min(da.print.token_coverage, db.print.token_coverage) < MIN_COVERAGE:
            continue
        overlap, shares, (slices_a, slices_b) = compare_files(da.print, db.print)
        if overlap <= 0:
            continue
        similarity = round(min(1.0, max(float(shares[0]), float(shares[1]))), 4)
        ranges_a, ranges_b = _ranges(slices_a, len(da.source)), _ranges(slices_b, len(db.source))
        if db.student < da.student:
            da, db, ranges_a, ranges_b = db, da, ranges_b, ranges_a
        out.append(Pair(da.student, db.student, name, similarity, da, db, ranges_a, ranges_b))
    return out


def _ranges(slices, length: int) -> list[tuple[int, int]]:
    """copydetect's slices (a 2 x N array of starts and ends in the unfiltered code) as sorted ranges."""
    if len(slices) == 0 or len(slices[0]) == 0:
        return []
    ranges = sorted((max(0, int(s)), min(length, int(e))) for s, e in zip(slices[0], slices[1]))
    return [(s, e) for s, e in ranges if s < e]


# ---------------------------------------------------------------- output

def write_csv(pairs: list[Pair], path: Path) -> None:
    from grader.classroom.export import text_cell
    from grader.report import write_atomically

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student_a", "student_b", "file", "similarity"])
    for p in pairs:
        writer.writerow([text_cell(p.student_a), text_cell(p.student_b), text_cell(p.file), f"{p.similarity:.4f}"])
    write_atomically(path, "\ufeff" + buffer.getvalue())


CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
table.pair{width:100%;border-collapse:collapse;table-layout:fixed;margin-bottom:2rem}
table.pair td{vertical-align:top;width:50%;border:1px solid #ccc;padding:0}
pre{margin:0;font-size:12px;overflow-x:auto}
pre span{display:block;padding:0 .4rem;white-space:pre}
pre span.hit{background:#fff3c4}
pre mark{background:#ffc94d;color:inherit}
h2{font-size:1.05rem;margin-top:1.5rem}
.meta{color:#555}
"""


def _esc(text, keep: str = "\n") -> str:
    from grader.report.escaping import visible

    return html.escape(visible(str(text), keep=keep), quote=True)


def _code(source: str, ranges: list[tuple[int, int]]) -> str:
    """The file's lines, numbered; a line holding copied code is a ``hit``, the copied characters ``<mark>``ed."""
    rows = []
    start, at = 0, 0                                   # at: the first range that may still reach this line
    for number, line in enumerate(source.split("\n")[:PAGE_LINES], start=1):
        end = start + len(line)
        while at < len(ranges) and ranges[at][1] <= start:
            at += 1
        parts, cursor, hit = [], start, False
        for s, e in ranges[at:]:
            if s >= end:
                break
            s, e = max(s, start), min(e, end)
            if s >= e:
                continue
            hit = True
            parts.append(_esc(source[cursor:s], keep="\t") + "<mark>" + _esc(source[s:e], keep="\t") + "</mark>")
            cursor = e
        parts.append(_esc(source[cursor:end], keep="\t"))
        mark = ' class="hit"' if hit else ""
        rows.append(f"<span{mark}>{number:4d}  {''.join(parts)}</span>")
        start = end + 1
    return "<pre>" + "".join(rows) + "</pre>"


def render_html(pairs: list[Pair], directory: str, threshold: float, top: int) -> str:
    shown = [p for p in pairs if p.similarity >= threshold][:top]
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             # nothing is fetched and nothing runs: only the inline style sheet
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
             "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">",
             "<title>Similarity report</title>", f"<style>{CSS}</style>", "</head>", "<body>",
             "<h1>Similarity report / 相似度报告</h1>",
             f'<p class="meta">{_esc(directory)}: {len(pairs)} pairs share code beyond the stubs; '
             f"{len(shown)} at or above {threshold:g} shown. Fingerprints and overlap by copydetect. "
             f"It flags; it never changes a mark. / 仅供提示，不改变任何成绩。</p>"]
    for p in shown:
        parts.append(f"<h2>{_esc(p.student_a)} — {_esc(p.student_b)} · {_esc(p.file)} · {p.similarity:.0%}</h2>")
        parts.append(f'<table class="pair"><tr><td>{_code(p.a.source, p.slices_a)}</td>'
                     f"<td>{_code(p.b.source, p.slices_b)}</td></tr></table>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def run_similarity(directory: Path, course, csv_path, html_path, ignore, threshold: float, top: int) -> list[str]:
    """``grade similarity``: what it prints; the CSV and the page written where asked."""
    from grader.report import write_atomically

    require_copydetect()
    with temporary_folder("similarity") as work:
        submissions = collect(Path(directory), Path(work))
        pairs = compare(submissions, course, ignore)
    if csv_path is not None:
        write_csv(pairs, csv_path)
    if html_path is not None:
        write_atomically(html_path, render_html(pairs, str(directory), threshold, top))
    lines = [f"{len(submissions)} submissions, {len(pairs)} pairs share code beyond the stubs"]
    for p in [p for p in pairs if p.similarity >= threshold][:top]:
        lines.append(f"  {p.similarity:.2f}  {p.student_a}  {p.student_b}  {p.file}")
    return lines
