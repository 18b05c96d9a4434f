"""What of a submission is graded, decided with the course (load_submission does not know it).

:func:`prepare` runs at the start of ``Grader.grade``, so ``grade check``, ``grade class``,
the kit's ``pytest`` and every other caller see the same decisions:

* **The notebook or the .py files.** A folder (or zip) holding ``.py`` files and a
  notebook is graded from its ``.py`` files (grader/submission/load.py), unless the course's
  ``.py`` files there are all unchanged stubs and the notebook holds work: then the
  notebook is graded, as if handed in alone. That is the student kit worked on in its
  notebook. Where both were changed the ``.py`` files are graded, as before, and the
  report says so, naming the changed files. The choice is made for the whole submission,
  not per file: a notebook defines every function in one namespace and a folder's files
  import each other, so mixing them would grade code together that never ran together.
  "Unchanged" is decided against the course's own stubs (``course.stubs_dir``, which the
  student wheel carries too), as text (line endings and trailing blanks aside) or as a
  syntax tree (comments and layout aside), or, for a kit of an older release of the
  course, by shape: nothing but imports, docstrings and functions whose body is
  ``raise NotImplementedError`` (or ``pass``, ``...``). A notebook holds no work when its
  code is the released notebook's or has that same shape (``ANSWERS`` with empty values).
  The quiz of a notebook graded this way comes from its ``ANSWERS`` dict, unless the
  folder's ``answers.yaml`` holds answers (some value not the template's and not empty).
* **A leftover import of a course file.** A single ``.py`` or a notebook is graded on its
  own, so ``from <course file> import <function>`` (kept from a folder's files, or written
  because the kit's folder has that ``.py``) names a module the submission does not have.
  In the private copy such a statement (on its own physical lines) is replaced, line count
  kept, by one using the submission's own functions: ``from M import f`` becomes ``pass``
  (``f`` is the file's own, looked up when called), ``from M import f as g`` binds ``g``
  to a forwarder to ``f``, ``import M [as N]`` imports the submission's own module under
  that name. The report says where and asks to delete the line. Any other form (an
  ``importlib`` call) still fails with ModuleNotFoundError, reported by
  :func:`grader.grading.worker_errors.submission_import_message` with the same advice.

Student text is only tokenized and parsed here, never run; sources larger than a stub
file could be are taken to hold work without being parsed.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import replace
from pathlib import Path

from grader.base.errors import SubmissionError
from grader.base.i18n import Message
from grader.submission.load import Submission, declare_utf8, set_aside_note
from grader.submission.notes import note

WHAT_WAS_GRADED = ("note.graded_notebook", "note.graded_notebook_yaml", "note.graded_py_files")   # said first
MAX_PARSED = 256 * 1024      # characters: a source larger than this holds work (stubs are a few KiB)
MAX_NOTEBOOKS = 4            # a folder's notebooks looked at (the course's own name first)
MAX_IMPORT_NOTES = 8         # leftover imports named one by one in the report
MAX_NAMED_FILES = 4          # changed .py files named in a note
SHOWN_STATEMENT = 80         # characters of an import statement quoted in a note


def prepare(submission: Submission, course) -> Submission:
    """The submission as it will be graded (see the module docstring). Its copy (``root``) may be
    changed in place; the originals never are."""
    if submission.notebooks and submission.single_module is None:
        submission = _notebook_or_files(submission, course)
    if submission.single_module is not None:
        submission = _own_imports(submission, course)
    return submission


def course_modules(course) -> list[str]:
    """The module names of the course's student .py files (without ``.py``)."""
    return [f[:-3] for f in course.student_files() if f.endswith(".py")]


# ---------------------------------------------------------------- the notebook or the .py files

def _notebook_or_files(submission: Submission, course) -> Submission:
    from grader.submission.notebook import notebook_to_module

    changed = []      # the course's .py files here that are not their stub
    for file in (f"{m}.py" for m in course_modules(course)):
        module = submission.module_for(file)
        if module is not None and not py_unchanged(submission.root / submission.modules[module],
                                                   course.stubs_dir / file):
            changed.append(submission.file_of(file))
    wanted = course.info.notebook.lower()
    ordered = sorted(submission.notebooks, key=lambda nb: (nb[0].lower() != wanted, nb[0]))
    ordered = ordered[:1] if changed else ordered[:MAX_NOTEBOOKS]   # with changed .py files: only for the note
    worked, notes = [], []
    for rel, real, label in ordered:
        try:
            converted = notebook_to_module(real, label)
        except SubmissionError as exc:
            notes.append(note("note.notebook_unreadable", notebook=rel, reason=str(exc)))
            continue
        if not notebook_unchanged(converted.source, lambda: _released_code(course)):
            worked.append((rel, converted))
    if not worked:
        return replace(submission, messages=submission.messages + notes)
    names = [rel for rel, _ in worked]
    if changed:
        shown = ", ".join(changed[:MAX_NAMED_FILES]) + (", ..." if len(changed) > MAX_NAMED_FILES else "")
        set_aside = [set_aside_note(rel) for rel in names]
        kept = [n for n in submission.messages if n not in set_aside]
        message = Message("note.graded_py_files", changed=shown, notebook=names[0])
        return replace(submission, messages=[message, *kept, *notes])
    chosen = [w for w in worked if w[0].lower() == wanted] or (worked if len(worked) == 1 else [])
    if not chosen:
        message = Message("note.notebooks_ambiguous", notebooks=", ".join(names))
        return replace(submission, messages=[message, *submission.messages, *notes])
    return _grade_notebook(submission, course, *chosen[0], notes)


def _grade_notebook(submission: Submission, course, rel: str, converted, notes: list[Message]) -> Submission:
    """The submission with the notebook `rel` graded in place of its .py files."""
    root = submission.root
    quiz = next((e for e in course.exercises.values() if e.is_quiz), None)
    use_yaml = (submission.answers_file is not None and quiz is not None
                and answers_hold_work(submission.answers_file, course.stubs_dir / quiz.file))
    # The folder's other files stay in the copy, as they are beside the notebook in Jupyter (a
    # helper module it imports); only the notebook's module is added, so preparing again decides alike.
    (root / "submission.py").write_text(declare_utf8(converted.source), encoding="utf-8", newline="\n")
    others = [(set_aside_note(nb), note("note.notebook_other_graded", notebook=nb, graded=rel))
              for nb, _, _ in submission.notebooks]
    kept = [next((other for aside, other in others if aside == n), n)
            for n in submission.messages if n != set_aside_note(rel)]
    key = "note.graded_notebook_yaml" if use_yaml else "note.graded_notebook"
    return replace(
        submission, kind="zip:notebook" if submission.kind.startswith("zip:") else "notebook",
        modules={"submission": Path("submission.py")}, single_module="submission",
        answers_file=submission.answers_file if use_yaml else None,
        line_maps={"submission": converted.line_map},
        display_names={"submission": rel}, rejected={}, notebooks=[],
        messages=[Message(key, notebook=rel), *kept, *notes, *converted.notes])


def py_unchanged(copy: Path, stub: Path) -> bool:
    """Whether the student's .py (its normalised copy) is the course's stub: the same text or
    syntax tree, or, whatever the stub, nothing but unimplemented functions."""
    try:
        text = copy.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if len(text) > MAX_PARSED:
        return False
    try:
        stub_text = stub.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        stub_text = None
    if stub_text is not None:
        if _lines(text) == _lines(stub_text):
            return True
        if len(text) > 2 * len(stub_text) + 4096:    # far longer than the stub: something was written
            return holds_no_work(text)
        mine, theirs = _tree(text), _tree(stub_text)
        if mine is not None and theirs is not None and ast.dump(mine) == ast.dump(theirs):
            return True
    return holds_no_work(text)


def notebook_unchanged(source: str, released) -> bool:
    """Whether a converted notebook's code holds no work, or is the released notebook's
    (``released()``: its code lines, or None)."""
    if holds_no_work(source):
        return True
    lines = released()
    return lines is not None and _lines(source) == lines


_RELEASED: dict[str, list[str] | None] = {}    # course root -> the code lines of its released notebook


def _released_code(course) -> list[str] | None:
    """The code lines of the notebook ``grade release`` writes for this course (once per process)."""
    key = str(course.root)
    if key not in _RELEASED:
        try:
            from grader.course.notebook import build_notebook
            from grader.submission.notebook import convert_notebook

            _RELEASED[key] = _lines(convert_notebook(build_notebook(course), course.info.notebook).source)
        except Exception:  # noqa: BLE001 -- a course without stubs: the shape test alone decides
            _RELEASED[key] = None
    return _RELEASED[key]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


def _tree(text: str) -> ast.Module | None:
    if len(text) > MAX_PARSED:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def holds_no_work(text: str) -> bool:
    """Nothing but imports, docstrings, ``pass``, functions that are not implemented, the
    in-notebook check's calls (``check("step")``) and an ``ANSWERS`` dict with empty answers: a
    stub or the released notebook, in any version."""
    tree = _tree(text)
    return tree is not None and all(_no_work(stmt) for stmt in tree.body)


def _no_work(stmt: ast.stmt) -> bool:
    from grader.submission.notebook import _is_check_statement

    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if _is_check_statement(stmt):
        return True            # the kit's in-notebook check cells (grader/jupyter/__init__.py): questions, not work
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True            # a docstring, or ...
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body = stmt.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        return not stmt.decorator_list and len(body) <= 1 and all(_unimplemented(s) for s in body)
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == "ANSWERS" and isinstance(stmt.value, ast.Dict)):
        return all(_empty_literal(v) for v in stmt.value.values)
    return False


def _unimplemented(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        return True
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _empty_literal(node, depth: int = 0) -> bool:
    """None, '', or a list or mapping of such (the template of a question with parts)."""
    if isinstance(node, ast.Constant):
        return node.value is None or node.value == ""
    if depth > 3:
        return False
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_empty_literal(e, depth + 1) for e in node.elts)
    return isinstance(node, ast.Dict) and all(_empty_literal(v, depth + 1) for v in node.values)


def _empty(value, depth: int = 0) -> bool:
    if value is None or value == "":
        return True
    if depth > 3:
        return False
    if isinstance(value, list):
        return all(_empty(v, depth + 1) for v in value)
    return isinstance(value, dict) and all(_empty(v, depth + 1) for v in value.values())


def answers_hold_work(path: Path, template: Path) -> bool:
    """Whether a folder's answers.yaml holds an answer (a value neither empty nor the template's);
    one that cannot be read was written in, and holds work."""
    from grader.submission.answers import MAX_ANSWERS_BYTES, load_answers

    try:
        data = path.read_bytes()
        if len(data) > MAX_ANSWERS_BYTES:
            return True
        answers = load_answers(data.decode("utf-8-sig"))
    except Exception:  # noqa: BLE001 -- broken YAML: the quiz reports it
        return True
    try:
        given = load_answers(template.read_text(encoding="utf-8")) or {}
    except Exception:  # noqa: BLE001
        given = {}
    if answers is None:
        return False
    if not isinstance(answers, dict):
        return True
    given = given if isinstance(given, dict) else {}
    return any(not _empty(value) and value != given.get(key) for key, value in answers.items())


# ---------------------------------------------------------------- leftover imports of course files

def _own_imports(submission: Submission, course) -> Submission:
    module = submission.single_module
    path = submission.root / submission.modules[module]
    names = set(course_modules(course)) - {module}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return submission
    new_text, found = rewrite_course_imports(text, names, module)
    if not found:
        return submission
    path.write_text(new_text, encoding="utf-8", newline="\n")
    file = submission.display_names.get(module, "submission.py")
    if len(found) == 1:
        line, statement, imported = found[0]
        message = Message("note.course_import", where=submission.describe_line(module, line), statement=statement,
                          module=imported, file=file)
    else:          # one note for them all: "`from M import f` (cell 6, line 5); ..."
        shown = [f"`{statement}` ({submission.describe_line(module, line).removeprefix(file + ', ')})"
                 for line, statement, _ in found[:MAX_IMPORT_NOTES]]
        if len(found) > MAX_IMPORT_NOTES:
            shown.append(f"+{len(found) - MAX_IMPORT_NOTES}")
        message = Message("note.course_imports", imports="; ".join(shown), file=file)
    # Right after what was graded (said first), before the loader's smaller notes: it changes what runs.
    first = [m for m in submission.messages[:1] if m.key in WHAT_WAS_GRADED]
    return replace(submission, messages=[*first, message, *submission.messages[len(first):]])


def rewrite_course_imports(text: str, names: set[str], own: str) -> tuple[str, list[tuple[int, str, str]]]:
    """`text` with each import of a module in `names` replaced as the module docstring says, and
    (line, statement, module) of each. Lines keep their number; text that does not tokenize, or
    a statement over several lines that shares its last one with more code, is left as it is."""
    alternatives = "|".join(map(re.escape, sorted(names)))
    if not names or not re.search(r"\b(?:from|import)\b[^\n]*\b(?:" + alternatives + r")\b", text):
        return text, []          # the cheap test first: no line that could import one
    try:
        statements = list(_import_statements(text))
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return text, []
    lines = text.split("\n")
    found = []
    for (row, col), (end_row, end_col), words in reversed(statements):
        replacement, imported = _replacement(words, names, own)
        if replacement is None:
            continue
        rest = lines[end_row - 1][end_col:]
        if end_row != row and rest.strip() and not rest.strip().startswith("#"):
            continue
        head = lines[row - 1][:col]
        if end_row == row:
            lines[row - 1] = head + replacement + rest
        else:
            lines[row - 1] = head + replacement
            for k in range(row, end_row):
                lines[k] = ""
            lines[end_row - 1] = rest.strip() and rest    # a comment after the closing bracket
        statement = re.sub(r"\s+([,.)])|([(.])\s+", lambda m: m.group(1) or m.group(2), " ".join(words))
        if len(statement) > SHOWN_STATEMENT:
            statement = statement[:SHOWN_STATEMENT] + "..."
        found.append((row, statement, imported))
    found.reverse()
    return "\n".join(lines), found


_SKIPPED = (tokenize.NL, tokenize.COMMENT)


def _import_statements(text: str):
    """(start, end, words) of every import statement of `text`: its first and last token's
    positions, and its tokens' strings (comments and line breaks left out)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    depth, at_start, k = 0, True, 0
    while k < len(tokens):
        tok = tokens[k]
        if tok.type in _SKIPPED:
            k += 1
            continue
        if at_start and depth == 0 and tok.type == tokenize.NAME and tok.string in ("import", "from"):
            j, inner = k, 0           # to the statement's last token: before a NEWLINE or `;` outside brackets
            while j + 1 < len(tokens):
                nxt = tokens[j + 1]
                if nxt.type == tokenize.OP and nxt.string in "([{":
                    inner += 1
                elif nxt.type == tokenize.OP and nxt.string in ")]}":
                    inner -= 1
                elif inner <= 0 and (nxt.type in (tokenize.NEWLINE, tokenize.ENDMARKER)
                                     or (nxt.type == tokenize.OP and nxt.string == ";")):
                    break
                j += 1
            part = [t for t in tokens[k:j + 1] if t.type not in _SKIPPED]
            yield tok.start, part[-1].end, [t.string for t in part]
            k, at_start = j + 1, False
            continue
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(depth - 1, 0)
        at_start = (tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
                    or (depth == 0 and tok.type == tokenize.OP and tok.string in (";", ":")))
        k += 1


def _replacement(words: list[str], names: set[str], own: str) -> tuple[str | None, str]:
    """The text that replaces one import statement, and the course module it imports; (None, "")
    when it imports none, or in a form left alone."""
    if words[0] == "import":
        parts, imported, k = [], "", 1
        while k < len(words):
            dotted = words[k]
            k += 1
            while k + 1 < len(words) and words[k] == ".":
                dotted, k = f"{dotted}.{words[k + 1]}", k + 2
            alias = None
            if k + 1 < len(words) and words[k] == "as":
                alias, k = words[k + 1], k + 2
            if dotted in names:
                parts.append(f"import {own} as {alias or dotted}")
                imported = imported or dotted
            else:
                parts.append(f"import {dotted}" + (f" as {alias}" if alias else ""))
            if k < len(words) and words[k] != ",":
                return None, ""          # a form not understood: leave it
            k += 1
        return ("; ".join(parts), imported) if imported else (None, "")
    # from M import ...
    if len(words) < 4 or words[1] not in names or words[2] != "import":
        return None, ""              # another module, a relative import, or M.sub
    rest = [w for w in words[3:] if w not in ("(", ")")]
    if rest == ["*"]:
        return "pass", words[1]
    binds, k = [], 0
    while k < len(rest):
        name, alias = rest[k], rest[k]
        k += 1
        if k + 1 < len(rest) and rest[k] == "as":
            alias, k = rest[k + 1], k + 2
        if not (name.isidentifier() and alias.isidentifier()) or (k < len(rest) and rest[k] != ","):
            return None, ""
        k += 1
        if alias != name:
            binds.append(f"{alias} = lambda *args, **kwargs: {name}(*args, **kwargs)")
    return ("; ".join(binds) if binds else "pass"), words[1]


