"""Turn a Jupyter notebook into one importable Python module.

The code cells are concatenated in order, ONE output line per input line, so
a line of the generated module maps back to (cell, line in cell) by a plain
list lookup. Cells are numbered 1-based over *all* cells of the notebook
(markdown and raw included), i.e. "cell 4" is the fourth cell from the top,
which is what a student scrolling through the notebook counts.

IPython syntax is neutralised without shifting lines:

* line magics (`%matplotlib inline`), shell lines (`!pip install numpy`),
  help lines (`np.dot?`, `??x`), auto-magics without `%` (`pip install x`,
  `ls`), and `x = !ls` / `x = %who_ls` become a comment at top level or
  `pass` at the same indentation inside a block (a `pass` could precede a
  later `from __future__` import, a comment cannot break anything);
  `%time stmt` keeps `stmt`; a magic continued with a trailing backslash
  blanks its continuation lines;
* `%%time` / `%%capture` cells keep their body (the magic line becomes a
  comment); every other cell magic (`%%bash`, `%%writefile`, `%%timeit`,
  `%%html`, ...) blanks the whole cell;
* only the start of a logical line is inspected: continuation lines and the
  inside of (triple-quoted) strings are never touched;
* a cell that still does not compile on its own is commented out, as in
  Jupyter, where a cell with a syntax error simply does not run; the
  student gets a note. A late `from __future__` import is commented out.

`get_ipython()` and `display()` are left alone; the worker provides no-op
builtins for them.

This runs in the trusted grader, so its work is linear in the notebook and
bounded: the file (50 MiB), its JSON items (counted before parsing: a million),
its code cells (10 000) and their code (256K characters, a budget for parsing
it here; a .py file may be larger as only the worker compiles it). Late
`from __future__` imports are found in one scan, not one compilation each.
Each cell is checked once and the module once: small cells are compiled,
larger ones only parsed with their scopes checked (`symtable`), because
compile() takes quadratic time on many identical functions or lambdas (their
code objects collide in its constant table).

Why one file of this size: turning cells into one module and mapping every line back to its
cell are one job; the bounds above (cells, sizes, the quadratic-compile guard) protect that
same conversion.
"""

from __future__ import annotations

import ast
import json
import re
import symtable
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from grader.base.errors import SubmissionError
from grader.base.i18n import Message
from grader.submission.notes import note

MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024
MAX_JSON_ITEMS = 1_000_000       # brackets and commas: about the objects json.loads would build
MAX_CODE_CELLS = 10_000
MAX_CODE_CHARS = 256 * 1024      # all code cells together
COMPILE_CHECK_CHARS = 4096       # a cell this small is compiled to check it; a larger one is parsed
MAX_JOIN_FIXES = 3               # cells dropped because they clash with the ones before

#: cell magics whose body is ordinary Python that runs in the user namespace
KEEP_BODY_CELL_MAGICS = {"time", "capture"}

#: line magics too common and harmless to mention to the student
QUIET_MAGICS = {
    "matplotlib", "config", "load_ext", "reload_ext", "unload_ext", "autoreload",
    "aimport", "time", "timeit", "precision", "xmode", "pprint", "who", "whos",
    "who_ls", "lsmagic", "pwd", "history", "pdb", "magic", "quickref",
    "colors", "page", "pinfo", "pinfo2", "psearch", "autocall", "automagic",
    "notebook", "env", "doctest_mode", "clear", "ls", "ll",
}

#: names IPython runs as magics even without `%` (automagic is on by default)
AUTOMAGICS = {
    "pip", "conda", "mamba", "cd", "ls", "ll", "pwd", "clear", "cat", "mkdir",
    "rmdir", "rm", "cp", "mv", "less", "more", "man", "env", "history",
    "matplotlib", "load_ext", "reload_ext", "autoreload", "aimport", "time",
    "timeit", "run", "who", "whos", "who_ls", "reset", "pylab", "store",
    "alias", "bookmark", "dhist", "pushd", "popd", "pycat", "lsmagic",
    "config", "xmode", "precision", "pdb", "prun", "load", "sx", "system",
    "tb", "xdel", "pinfo", "pinfo2", "psearch", "ldir", "lf", "lk", "lx",
}

_ASSIGN_ESCAPE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<lhs>[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*(?P<esc>[!%])(?P<cmd>.*)$"
)
_FUTURE_IMPORT = re.compile(r"from\s+__future__\s+import\b")
_STRINGS_ONLY = re.compile(r'(?:[rRuU]?""\s*)+')   # a statement of string literals (blanked by _Scanner)
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAGIC_NAME = re.compile(r"%{1,2}\s*([\w.\-]*)")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class ConvertedNotebook:
    source: str                                   # the module text (ends with "\n" unless empty)
    line_map: list[tuple[int, int]]               # index = module line - 1 -> (cell 1-based, line 1-based)
    notes: list[Message] = field(default_factory=list)   # in the student's language (submission_notes.note)


# ---------------------------------------------------------------------------
# reading

def read_notebook(path: Path, label: str | None = None):
    """Read `path` as an nbformat v4 notebook; SubmissionError if it is broken or too big."""
    path = Path(path)
    label = label or path.name
    data = _read_bytes(path, label)
    _check_json_items(data, label)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"broken notebook {label}: not UTF-8 text ({exc.reason})") from None
    nb = _parse(text, label)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise SubmissionError(f"broken notebook {label}: it has no list of cells")
    return nb


def _read_bytes(path: Path, label: str) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SubmissionError(f"cannot read notebook {label}: {exc.strerror}") from None
    if size > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(
            f"notebook {label} is larger than {MAX_NOTEBOOK_BYTES // (1024 * 1024)} MiB; clear its outputs"
        )
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_NOTEBOOK_BYTES + 1)
    except OSError as exc:
        raise SubmissionError(f"cannot read notebook {label}: {exc.strerror}") from None


def _check_json_items(data: bytes, label: str) -> None:
    """Refuse JSON that would parse into millions of objects (20 MiB of `{},` make 550 MB of dicts).

    Every value after the first of a list or object follows a comma, and every list or object
    opens with a bracket; those inside strings count too, which only errs on the safe side."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(f"notebook {label} is larger than {MAX_NOTEBOOK_BYTES // (1024 * 1024)} MiB; "
                              f"clear its outputs")
    items = data.count(b",") + data.count(b"[") + data.count(b"{")
    if items > MAX_JSON_ITEMS:
        raise SubmissionError(f"notebook {label} has more than {MAX_JSON_ITEMS} JSON items; "
                              f"that is not one homework notebook (clear its outputs)")


def _parse(text: str, label: str):
    """The notebook as plain dicts and lists; nbformat only upgrades older versions."""
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SubmissionError(f"broken notebook {label}: not valid JSON ({_one_line(exc)})") from None
    if isinstance(raw, dict) and raw.get("nbformat") == 4:
        return raw     # conversion reads dicts: no NotebookNode copy of the whole document
    import nbformat
    from nbformat import reader as nbreader

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # reader.reads + convert: like nbformat.read(as_version=4) but
            # without logging schema complaints that do not matter here.
            nb = nbreader.reads(text)
            return nbformat.convert(nb, 4)
    except (json.JSONDecodeError, nbreader.NotJSONError) as exc:
        raise SubmissionError(f"broken notebook {label}: not valid JSON ({_one_line(exc)})") from None
    except Exception as exc:  # NBFormatError, KeyError, ... for JSON that is not a notebook
        raise SubmissionError(f"broken notebook {label}: {_one_line(exc) or type(exc).__name__}") from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] + ("..." if len(text) > 200 else "")


# ---------------------------------------------------------------------------
# a tiny scanner: where do logical lines start?

class _Scanner:
    """Tracks brackets, strings spanning lines and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.string: str | None = None   # the open quote of a string spanning lines
        self.cont = False                # previous line ended with a backslash

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.string is None and not self.cont

    @property
    def clean(self) -> bool:
        return self.at_statement_start

    def feed(self, line: str) -> str:
        """Consume one physical line; return its code with strings blanked and the comment cut."""
        code: list[str] = []
        i, n = 0, len(line)
        self.cont = False
        while i < n:
            if self.string is not None:
                q = self.string
                closed = False
                while i < n:
                    c = line[i]
                    if c == "\\":
                        i += 2
                        continue
                    if line.startswith(q, i):
                        i += len(q)
                        closed = True
                        break
                    i += 1
                if closed:
                    self.string = None
                    code.append('""')
                elif len(q) == 1 and not line.endswith("\\"):
                    self.string = None  # unterminated one-line string: a syntax error, resync
                continue
            c = line[i]
            if c == "#":
                break
            if c in "'\"":
                if line.startswith(c * 3, i):
                    self.string = c * 3
                    i += 3
                else:
                    self.string = c
                    i += 1
                continue
            if c == "\\" and i == n - 1:
                self.cont = True
                break
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            code.append(c)
            i += 1
        return "".join(code)


def _code_of(line: str) -> tuple[str, bool]:
    """Code part of a line read from a statement start, and whether it is complete."""
    s = _Scanner()
    code = s.feed(line)
    return code, s.clean


def _compiles(src: str) -> bool:
    """Whether one line is Python (parsed, never compiled: see the module docstring)."""
    return _parse_error(src) is None


# ---------------------------------------------------------------------------
# transforming one cell

def _split_lines(source: str) -> list[str]:
    """Lines exactly as the Python tokenizer counts them (\\n, \\r\\n, \\r)."""
    if not source:
        return []
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _neutral(indent: str, original: str) -> str:
    """What replaces an IPython-only line: a comment at top level, `pass` in a block."""
    text = original.strip()
    if indent:
        return f"{indent}pass  # {text}"
    return f"# {text}"


def _short(text: str, limit: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def transform_cell(lines: list[str]) -> tuple[list[str], list[tuple[int | None, Message]]]:
    """Neutralise IPython syntax in one code cell.

    Returns the new lines (same number) and events `(line_in_cell or None, message)`
    worth telling the student.
    """
    out = list(lines)
    events: list[tuple[int | None, Message]] = []
    n = len(lines)
    first = next((k for k, ln in enumerate(lines) if ln.strip()), None)
    start = 0
    if first is not None and lines[first].lstrip().startswith("%%"):
        m = _MAGIC_NAME.match(lines[first].lstrip())
        name = m.group(1) if m else ""
        if name in KEEP_BODY_CELL_MAGICS:
            out[first] = f"# {lines[first].strip()}"
            start = first + 1
        else:
            out = [""] * n
            out[first] = f"# {lines[first].strip()}  (cell magic: cell skipped by the grader)"
            events.append((None, Message("note.nb_cell_magic", name=name)))
            return out, events

    scanner = _Scanner()
    k = start
    while k < n:
        line = lines[k]
        if scanner.at_statement_start and line.strip():
            replaced, event, is_code = _transform_statement_line(line)
            if replaced is not None:
                out[k] = replaced
                if event:
                    events.append((k + 1, event))
                if is_code:
                    scanner.feed(replaced)      # `%time x = f(` may go on
                else:
                    # a magic / shell line continued with backslashes
                    # swallows its continuation lines
                    while line.endswith("\\") and k + 1 < n:
                        k += 1
                        line = lines[k]
                        out[k] = ""
                k += 1
                continue
        scanner.feed(line)
        k += 1
    return out, events


def _transform_statement_line(line: str) -> tuple[str | None, Message | None, bool]:
    """Handle a physical line that starts a logical line.

    Returns (replacement or None for plain Python, note or None, whether the
    replacement is live code).
    """
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]

    # x = !ls   /   x = %who_ls
    m = _ASSIGN_ESCAPE.match(line)
    if m:
        targets = [t.strip() for t in m.group("lhs").split(",")]
        shell = m.group("esc") == "!"
        command = _short(m.group("esc") + m.group("cmd"))
        what = "shell" if shell else "magic"
        if len(targets) == 1:
            value = "[]" if shell else "None"
            new = f"{indent}{targets[0]} = {value}  # {stripped}"
            return new, Message(f"note.nb_{what}_not_run_set", command=command, target=targets[0], value=value), False
        return _neutral(indent, line), Message(f"note.nb_{what}_not_run", command=command), False

    if stripped.startswith("!"):
        return _neutral(indent, line), Message("note.nb_shell_line", line=_short(stripped)), False

    if stripped.startswith("%"):
        return _magic_line(indent, stripped, line)

    # help: `obj?`, `obj??`, `?obj`
    code, complete = _code_of(stripped)
    code = code.strip()
    if complete and (code.startswith("?") or code.endswith("?")):
        return _neutral(indent, line), None, False

    # autocall escapes: `/f a`, `,f a b`, `;f a b`
    if stripped[:1] in ("/", ",", ";") and not _compiles(stripped):
        return _neutral(indent, line), Message("note.nb_ipython_line", line=_short(stripped)), False

    # automagic: `pip install numpy`, `ls`, `cd data`
    w = _WORD.match(stripped)
    if w and w.group(0) in AUTOMAGICS and complete:
        if stripped.strip() == w.group(0) or not _compiles(stripped.strip()):
            return _magic_line(indent, "%" + stripped, line)
    return None, None, False


def _magic_line(indent: str, magic: str, original: str) -> tuple[str, Message | None, bool]:
    m = _MAGIC_NAME.match(magic)
    name = m.group(1) if m else ""
    rest = magic[m.end():].strip() if m else ""
    if name == "time" and not magic.startswith("%%") and rest:
        return f"{indent}{rest}", None, True    # `%time x = f()` still assigns x
    if name in QUIET_MAGICS:
        return _neutral(indent, original), None, False
    shown = _short(original)
    if name in ("pip", "conda", "mamba"):
        return _neutral(indent, original), Message("note.nb_install", command=shown), False
    return _neutral(indent, original), Message("note.nb_magic", command=shown), False


# ---------------------------------------------------------------------------
# the whole notebook

def convert_notebook(nb, label: str = "notebook") -> ConvertedNotebook:
    """Concatenate the code cells of `nb` (nbformat v4) into one module."""
    out_lines: list[str] = []
    line_map: list[tuple[int, int]] = []
    notes: list[Message] = []
    spans: dict[int, tuple[int, int]] = {}      # cell -> [start, end) in out_lines

    lang = ""
    try:
        lang = str(nb.get("metadata", {}).get("kernelspec", {}).get("language", "") or "")
    except AttributeError:
        pass
    if lang and not lang.lower().startswith("python"):
        notes.append(note("note.nb_kernel_language", notebook=label, language=lang))

    window = _FutureWindow()
    for number, source in code_cells(nb, label):
        lines = _split_lines(source)
        if lines and lines[0].startswith("\ufeff"):
            lines[0] = lines[0][1:]
        new, events = transform_cell(lines)
        new = inert_checks(new)
        for where, text in events:
            notes.append(_cell_note(number, where, text))
        before = window.copy()
        late = drop_late_futures(new, window)
        # Jupyter compiles every cell on its own: a cell with a syntax error
        # just does not run. Mirror that instead of failing the whole module.
        err = _syntax_error("\n".join(new) + "\n") if new else None
        if err is not None:
            lineno, msg = err
            new = [_commented(ln) for ln in lines]
            window = before                        # a skipped cell ends nothing
            notes.append(_cell_note(number, lineno, Message("note.nb_cell_skipped", error=msg)))
        else:
            notes.extend(_cell_note(number, k, Message("note.nb_late_future")) for k in late)
        spans[number] = (len(out_lines), len(out_lines) + len(new))
        out_lines.extend(new)
        line_map.extend((number, k) for k in range(1, len(new) + 1))

    _drop_clashing_cells(out_lines, line_map, spans, notes)
    source = "\n".join(out_lines) + ("\n" if out_lines else "")
    return ConvertedNotebook(source=source, line_map=line_map, notes=notes)


# the in-notebook check (grader/jupyter/__init__.py): its cells are the student's questions, not their work

CHECK_FUNCTIONS = ("check", "check_all")
_CHECK_HINT = re.compile(r"\b(?:check|check_all)\s*\(|grader\.jupyter")


def inert_checks(lines: list[str]) -> list[str]:
    """The lines with the in-notebook check's own statements commented out: the setup import
    (``from grader.jupyter import check, check_all``, ``import grader.jupyter``) and every call
    ``check("step")`` / ``check_all()`` / ``gj.check(...)`` with constant arguments, each a
    top-level statement alone on its lines. They ask the grader for feedback; run in the sandbox
    they would import the grader (absent there) and stop their cell. Line numbers are kept."""
    text = "\n".join(lines)
    if not _CHECK_HINT.search(text):
        return lines
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body = ast.parse(text + "\n").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return lines       # the converter reports the cell as it is
    out = list(lines)
    for k, statement in enumerate(body):
        before = body[k - 1].end_lineno if k else 0
        after = body[k + 1].lineno if k + 1 < len(body) else len(lines) + 1
        alone = before < statement.lineno and statement.end_lineno < after
        if alone and statement.col_offset == 0 and _is_check_statement(statement):
            for index in range(statement.lineno - 1, min(statement.end_lineno, len(lines))):
                out[index] = "# " + lines[index] if lines[index].strip() else lines[index]
    return out


def _is_check_statement(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.ImportFrom):
        return statement.level == 0 and statement.module == "grader.jupyter"
    if isinstance(statement, ast.Import):
        return all(alias.name == "grader.jupyter" for alias in statement.names)
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    call = statement.value
    func = call.func
    if isinstance(func, ast.Name):
        named = func.id in CHECK_FUNCTIONS
    else:
        named = isinstance(func, ast.Attribute) and func.attr in CHECK_FUNCTIONS and _dotted(func.value)
    return named and all(isinstance(a, ast.Constant) for a in call.args) and all(
        k.arg is not None and isinstance(k.value, ast.Constant) for k in call.keywords)


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _cell_note(cell: int, line: int | None, text: Message) -> Message:
    """A note on one cell ("cell 3, line 2: ..."), in the student's language."""
    if line:
        return note("note.nb_cell_line", cell=cell, line=line, text=text)
    return note("note.nb_cell", cell=cell, text=text)


def code_cells(nb, label: str) -> list[tuple[int, str]]:
    """(cell number, source) of every code cell, within the caps; lone surrogates (valid JSON,
    not valid UTF-8) become U+FFFD so the module can be written."""
    cells: list[tuple[int, str]] = []
    total = 0
    for number, cell in enumerate(nb.get("cells", []), start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        source = _SURROGATE.sub("\ufffd", str(source))
        total += len(source)
        cells.append((number, source))
        if len(cells) > MAX_CODE_CELLS:
            raise SubmissionError(f"notebook {label} has more than {MAX_CODE_CELLS} code cells; "
                                  f"that is not one homework notebook")
        if total > MAX_CODE_CHARS:
            raise SubmissionError(f"notebook {label} holds more than {MAX_CODE_CHARS} characters of code; "
                                  f"that is not one homework notebook (hand in .py files)")
    return cells


def _drop_clashing_cells(out_lines, line_map, spans, notes) -> None:
    """Cells that compile alone can still clash when joined (a `from __future__` import changing
    the syntax of later cells): drop them one at a time, a few times at most. The module is only
    parsed here; the worker reports whatever is left."""
    for _ in range(MAX_JOIN_FIXES):
        err = _parse_error("\n".join(out_lines) + "\n")
        if err is None or not err[0] or not (1 <= err[0] <= len(out_lines)):
            return
        lineno, msg = err
        cell, in_cell = line_map[lineno - 1]
        a, b = spans[cell]
        if all(ln.startswith("#") or not ln.strip() for ln in out_lines[a:b]):
            return  # pragma: no cover - nothing left to drop
        for k in range(a, b):
            out_lines[k] = _commented(out_lines[k])
        notes.append(_cell_note(cell, in_cell, Message("note.nb_cell_skipped", error=msg)))


# ---------------------------------------------------------------------------
# late `from __future__` imports

@dataclass
class _FutureWindow:
    """Where the module stands for `from __future__` imports: they are allowed only before any
    other statement but a first docstring."""

    open: bool = True
    first: bool = True          # no statement yet: a docstring may come

    def copy(self) -> "_FutureWindow":
        return _FutureWindow(self.open, self.first)


def drop_late_futures(lines: list[str], window: _FutureWindow) -> list[int]:
    """Neutralise, in place, the `from __future__` imports of one cell that Python would reject
    as late (after `window`, which moves on); their line numbers in the cell. One scan of the cell."""
    late: list[int] = []
    scanner = _Scanner()
    k, n = 0, len(lines)
    while k < n:
        if not (scanner.at_statement_start and lines[k].strip()):
            scanner.feed(lines[k])
            k += 1
            continue
        start = k
        code = [scanner.feed(lines[k])]
        k += 1
        while not scanner.at_statement_start and k < n:
            code.append(scanner.feed(lines[k]))
            k += 1
        statement = " ".join(code).strip()
        if not statement:
            continue                                    # a comment line
        indented = lines[start][:1] in (" ", "\t")
        if _FUTURE_IMPORT.match(statement):
            if window.open and not indented:
                window.first = False
                window.open = ";" not in statement       # `...; x = 1` ends the window
                continue
            late.append(start + 1)
            line = lines[start]
            lines[start] = _neutral(line[: len(line) - len(line.lstrip())], line)
            for j in range(start + 1, k):
                lines[j] = _commented(lines[j])
            continue
        if window.first and not indented and _STRINGS_ONLY.fullmatch(statement):
            window.first = False                        # the module's docstring
            continue
        window.open = window.first = False
    return late


# ---------------------------------------------------------------------------
# syntax checks

def _commented(line: str) -> str:
    return "# " + line if line.strip() else ""


def _syntax_error(src: str) -> tuple[int | None, str] | None:
    """The syntax error of a cell: compiled when small (exact), else parsed (linear)."""
    if len(src) <= COMPILE_CHECK_CHARS:
        return _error_of(lambda: compile(src, "<cell>", "exec", dont_inherit=True))
    return _parse_error(src)


def _parse_error(src: str) -> tuple[int | None, str] | None:
    """Parse errors and scope errors (symtable): everything compile() finds except the errors of
    its last stage ('return' outside a function, a late `from __future__` import...), in linear time."""
    return _error_of(lambda: symtable.symtable(src, "<cell>", "exec"))


def _error_of(check) -> tuple[int | None, str] | None:
    try:
        check()
    except SyntaxError as exc:
        return exc.lineno, f"{type(exc).__name__}: {exc.msg}"
    except ValueError as exc:  # null bytes
        return None, f"SyntaxError: {exc}"
    except (RecursionError, MemoryError):   # nested too deeply for the compiler
        return None, "SyntaxError: too deeply nested"
    return None


def notebook_to_module(path: Path, label: str | None = None) -> ConvertedNotebook:
    """Read and convert in one go."""
    label = label or Path(path).name
    return convert_notebook(read_notebook(path, label), label)


# ---------------------------------------------------------------------------
# the cells as the worker runs them

@dataclass
class NotebookCells:
    """A converted notebook as the worker runs it: one cell at a time, in order, in one namespace,
    a cell that raises stopped and the next one run (Jupyter's "run all" with errors allowed).

    ``spans``: (first line, last line, cell) of each code cell with code, in module lines
    (1-based, inclusive). ``first_lines``: each cell's first line of code, for the report.
    ``defines`` / ``deletes``: the names each cell binds or deletes at module level, read from
    its syntax tree (never run here), so that a function that is missing can be traced to the
    cell that should have defined it."""

    spans: list[tuple[int, int, int]]
    first_lines: dict[int, str] = field(default_factory=dict)
    defines: dict[int, set[str]] = field(default_factory=dict)
    deletes: dict[int, set[str]] = field(default_factory=dict)
    uncompiled: set[int] = field(default_factory=set)   # cells commented out: they do not compile

    def wire(self) -> list[list[int]]:
        """The spans as the worker's import request carries them."""
        return [[first, last, cell] for first, last, cell in self.spans]

    def defining(self, name: str) -> list[int]:
        """The cells that bind ``name`` at module level, in order (those that do not compile too)."""
        return sorted(cell for cell, names in self.defines.items() if name in names)

    def deleting(self, name: str) -> list[int]:
        return sorted(cell for cell, names in self.deletes.items() if name in names)


MAX_SHOWN_LINE = 60
_TOP_DEF = re.compile(r"(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")


def notebook_cells(source: str, line_map: list[tuple[int, int]]) -> NotebookCells:
    """The cells of the module ``source`` that convert_notebook wrote with ``line_map`` (the
    private copy, after grader/grading/graded_work.py rewrote leftover imports: same lines)."""
    lines = source.split("\n")
    spans: list[tuple[int, int, int]] = []
    for number, (cell, _) in enumerate(line_map, start=1):
        if spans and spans[-1][2] == cell and spans[-1][1] == number - 1:
            spans[-1] = (spans[-1][0], number, cell)
        else:
            spans.append((number, number, cell))
    result = NotebookCells(spans=[])
    for first, last, cell in spans:
        text = lines[first - 1:last]
        code = [ln for ln in text if ln.strip() and not ln.lstrip().startswith("#")]
        if not code:       # nothing to run: comments, or a cell commented out as it does not compile
            bare = [ln[2:] if ln.startswith("# ") else ln for ln in text]
            defined = {m.group(1) for ln in bare if (m := _TOP_DEF.match(ln))}
            if defined and _parse_error("\n".join(bare) + "\n") is not None:
                result.uncompiled.add(cell)
                result.first_lines[cell] = _short(next(ln for ln in bare if ln.strip()), MAX_SHOWN_LINE)
                result.defines[cell] = defined
            continue
        result.spans.append((first, last, cell))
        result.first_lines[cell] = _short(code[0], MAX_SHOWN_LINE)
        result.defines[cell], result.deletes[cell] = _bound_names("\n".join(text) + "\n")
    return result


def _bound_names(text: str) -> tuple[set[str], set[str]]:
    """Names a cell binds and deletes at module level (inside if/for/while/with/try too)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    defines: set[str] = set()
    deletes: set[str] = set()

    def targets(node, into):
        if isinstance(node, ast.Name):
            into.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element, into)
        elif isinstance(node, ast.Starred):
            targets(node.value, into)

    def visit(body):
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defines.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    targets(target, defines)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                targets(stmt.target, defines)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                defines.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
            elif isinstance(stmt, ast.Delete):
                for target in stmt.targets:
                    targets(target, deletes)
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef)):
                    visit(inner)
            for handler in getattr(stmt, "handlers", None) or ():
                visit(handler.body)

    visit(tree.body)
    return defines, deletes
