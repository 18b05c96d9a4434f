"""``grade similarity DIR``: pairs of submissions whose code is more alike than chance.

Winnowing (Schleimer, Wilkerson and Aiken, "Winnowing: local algorithms for document
fingerprinting", SIGMOD 2003: the algorithm of MOSS and of copydetect) over the tokens of
Python's own ``tokenize``:

* every identifier becomes ``V``, every string ``S``, every number ``N``; comments, blank lines
  and line breaks are dropped (indentation is kept as INDENT/DEDENT): renamed variables,
  changed comments and whitespace change nothing;
* each run of ``K`` tokens is hashed, and in each window of ``W`` consecutive hashes the
  smallest is kept: any run of ``K + W - 1`` tokens two files share yields a shared
  fingerprint, wherever it sits in either file, so reordered functions still match;
* fingerprints of the kit's stubs (``exercises/stubs``: the code everyone was given) and of
  ``--ignore`` files are removed, and so is every fingerprint that more than ten submissions
  share (MOSS's default ``-m 10``: what many solutions write is common code, not copying);
* the similarity of two files is the share of the smaller one's fingerprints that the other
  holds (0 to 1); pairs are found through an index from fingerprint to files, so only files
  that share something are compared.

Why not copydetect itself: it imports matplotlib.pyplot, tqdm and jinja2 when imported (its
HTML report draws plots), which would make matplotlib a dependency of the grader, and its
tokenizer (pygments) keeps Python keywords and names apart less precisely than ``tokenize``.
The algorithm is the same; pyproject.toml says so beside the dependencies.

Each ``.py`` file of a submission (and each notebook's code cells, as the notebook's file) is
compared with the same-named file of the others; a single-file or notebook submission is
compared as a whole with every other submission's code as a whole. The output ranks pairs,
most similar first, as CSV (``student_a,student_b,file,similarity``) and as an HTML page with
the matching lines highlighted side by side. It flags; it never changes a mark.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import tempfile
import tokenize
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

K = 8                      # tokens a fingerprint covers
W = 8                      # window: a match of K + W - 1 = 15 tokens is always found
MIN_FINGERPRINTS = 6       # smaller files are not compared (too little to tell copying from chance)
COMMON_MAX = 10            # a fingerprint in more submissions than this is common code, not copying (MOSS's -m)
WHOLE = "(whole submission)"
MAX_FILE_BYTES = 1 << 20


@dataclass
class Document:
    student: str
    file: str
    source: str
    prints: dict[int, list[tuple[int, int]]] = field(default_factory=dict)   # hash -> [(first line, last line)]


@dataclass
class Pair:
    student_a: str
    student_b: str
    file: str
    similarity: float
    a: Document
    b: Document
    shared: set = field(default_factory=set)


def tokens(source: str) -> list[tuple[str, int, int]]:
    """(normalised token, first line, last line) of Python source; what does not tokenize ends the list."""
    import keyword

    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            kind = tok.type
            if kind in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if kind == tokenize.NAME:
                text = tok.string if keyword.iskeyword(tok.string) else "V"
            elif kind == tokenize.STRING or kind in _FSTRING_TYPES:
                text = "S"
            elif kind == tokenize.NUMBER:
                text = "N"
            elif kind == tokenize.INDENT:
                text = ">"
            elif kind == tokenize.DEDENT:
                text = "<"
            else:
                text = tok.string
            out.append((text, tok.start[0], tok.end[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError):
        pass
    return out


_FSTRING_TYPES = {getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                  if hasattr(tokenize, name)}


def fingerprints(source: str) -> dict[int, list[tuple[int, int]]]:
    """The winnowed fingerprints of ``source``: hash -> the line spans of its occurrences. A k-gram's
    hash is the hash of its tuple of token numbers (ints hash alike in every process)."""
    toks = tokens(source)
    if len(toks) < K:
        return {}
    ids = [_TOKEN_IDS.get(text) or _token_id(text) for text, _, _ in toks]
    hashes = [hash(tuple(ids[i:i + K])) for i in range(len(ids) - K + 1)]
    chosen: dict[int, list[tuple[int, int]]] = {}
    last = -1
    for start in range(max(1, len(hashes) - W + 1)):
        window = hashes[start:start + W]
        # the rightmost minimum (the paper's rule): a window sliding on keeps the same pick
        at = start + len(window) - 1 - window[::-1].index(min(window))
        if at != last:
            last = at
            chosen.setdefault(hashes[at], []).append((toks[at][1], toks[at + K - 1][2]))
    return chosen


_TOKEN_IDS: dict[str, int] = {}


def _token_id(text: str) -> int:
    """A token's number, the same in every process (the fingerprints of a run may be made in several)."""
    number = _TOKEN_IDS[text] = zlib.crc32(text.encode("utf-8", "surrogateescape")) | 1
    return number


def fingerprint_all(sources: list[str]) -> list[dict]:
    """:func:`fingerprints` of many sources, on every core when there are many."""
    if len(sources) < 200 or (os.cpu_count() or 1) < 2:
        return [fingerprints(source) for source in sources]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    jobs = min(os.cpu_count() or 1, 8)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(fingerprints, sources, chunksize=max(1, len(sources) // (jobs * 4))))


def notebook_code(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        cells = [c for c in data.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
        parts = []
        for cell in cells:
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            # IPython magics and shell lines are not Python
            parts.append("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
        return "\n\n".join(parts)
    except (OSError, ValueError, AttributeError):
        return ""


def read_code(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return ""
        if path.suffix.lower() == ".ipynb":
            return notebook_code(path)
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
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
    from grader.classroom import find_entries
    from grader.errors import SubmissionError
    from grader.safezip import safe_extract

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


def boilerplate(course, ignore) -> tuple[dict[str, set], set]:
    """Fingerprints not counted: the stubs (per file name, and all of them for whole submissions) and ``--ignore``."""
    per_file: dict[str, set] = {}
    everything: set = set()
    stubs = Path(course.stubs_dir) if course is not None else None
    if stubs is not None and stubs.is_dir():
        for file in stubs.rglob("*"):
            if file.is_file() and file.suffix.lower() in (".py", ".ipynb"):
                prints = set(fingerprints(read_code(file)))
                per_file[file.relative_to(stubs).as_posix()] = prints
                everything |= prints
    if course is not None:
        from grader.kit_notebook import build_notebook

        try:
            notebook = build_notebook(course)
            code = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "code")
            everything |= set(fingerprints(code))
            per_file[course.info.notebook] = set(fingerprints(code))
        except Exception:  # noqa: BLE001 -- a course without a notebook: its stubs are enough
            pass
    for file in ignore or ():
        everything |= set(fingerprints(read_code(Path(file))))
    return per_file, everything


def compare(submissions: dict[str, tuple[dict[str, str], bool]], course=None, ignore=()) -> list[Pair]:
    """Every pair of documents that share fingerprints, most similar first."""
    per_file_stub, every_stub = boilerplate(course, ignore)
    groups: dict[str, list[Document]] = defaultdict(list)
    singles = {student for student, (_, single) in submissions.items() if single}
    docs = []
    for student, (files, single) in submissions.items():
        if not single:
            docs += [Document(student, name, code) for name, code in files.items()]
        if singles:     # a single-file or notebook submission is compared as a whole with everyone
            docs.append(Document(student, WHOLE, "\n\n".join(f"# {name}\n{code}" for name, code in files.items())))
    for doc, prints in zip(docs, fingerprint_all([doc.source for doc in docs])):
        skip = every_stub if doc.file == WHOLE else \
            per_file_stub.get(doc.file, set()) | per_file_stub.get(Path(doc.file).name, set()) | every_stub
        doc.prints = {h: spans for h, spans in prints.items() if h not in skip}
        groups[doc.file].append(doc)
    pairs = []
    for name, docs in groups.items():
        pairs += _pairs(name, docs, singles if name == WHOLE else None)
    pairs.sort(key=lambda p: (-p.similarity, p.file, p.student_a, p.student_b))
    return pairs


def _pairs(name: str, docs: list[Document], singles: set | None) -> list[Pair]:
    index: dict[int, list[int]] = defaultdict(list)
    for number, doc in enumerate(docs):
        for h in doc.prints:
            index[h].append(number)
    common = COMMON_MAX
    shared: dict[tuple[int, int], set] = defaultdict(set)
    for h, holders in index.items():
        if len(holders) > common:
            continue                       # what most solutions write: chance
        for i, a in enumerate(holders):
            for b in holders[i + 1:]:
                shared[(a, b)].add(h)
    out = []
    for (a, b), hashes in shared.items():
        da, db = docs[a], docs[b]
        if singles is not None and da.student not in singles and db.student not in singles:
            continue                       # two folders: compared file by file
        counted_a = {h for h in da.prints if len(index[h]) <= common}
        counted_b = {h for h in db.prints if len(index[h]) <= common}
        smaller = min(len(counted_a), len(counted_b))
        if smaller < MIN_FINGERPRINTS:
            continue
        first, second = sorted((da, db), key=lambda d: d.student)
        out.append(Pair(first.student, second.student, name, round(len(hashes) / smaller, 4), first, second, hashes))
    return out


# ---------------------------------------------------------------- output

def write_csv(pairs: list[Pair], path: Path) -> None:
    from grader.export import text_cell
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
pre span.hit{background:#ffe08a}
h2{font-size:1.05rem;margin-top:1.5rem}
.meta{color:#555}
"""


def _esc(text) -> str:
    from grader.escaping import visible

    return html.escape(visible(str(text)), quote=True)


def _lines_hit(doc: Document, hashes: set) -> set[int]:
    hit = set()
    for h in hashes:
        for first, last in doc.prints.get(h, ()):
            hit.update(range(first, last + 1))
    return hit


def _code(doc: Document, hashes: set) -> str:
    hit = _lines_hit(doc, hashes)
    rows = []
    for number, line in enumerate(doc.source.splitlines()[:2000], start=1):
        mark = ' class="hit"' if number in hit else ""
        rows.append(f"<span{mark}>{number:4d}  {_esc(line)}</span>")
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
             f"{len(shown)} at or above {threshold:g} shown. It flags; it never changes a mark. / "
             f"仅供提示，不改变任何成绩。</p>"]
    for p in shown:
        parts.append(f"<h2>{_esc(p.student_a)} — {_esc(p.student_b)} · {_esc(p.file)} · {p.similarity:.0%}</h2>")
        parts.append(f'<table class="pair"><tr><td>{_code(p.a, p.shared)}</td><td>{_code(p.b, p.shared)}</td>'
                     "</tr></table>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def run_similarity(directory: Path, course, csv_path, html_path, ignore, threshold: float, top: int) -> list[str]:
    """``grade similarity``: what it prints; the CSV and the page written where asked."""
    from grader.report import write_atomically

    with tempfile.TemporaryDirectory(prefix="grade-similarity-") as work:
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
