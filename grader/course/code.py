"""A course's own Python: the check modules in ``exercises/checks/``.

They are the instructor's code, trusted like the grader (they run in the grading process,
never in the sandbox). The folder is imported as a package of its own, under a name made
from its path, so two courses in one process never share a module, and its modules import
each other relatively (``from . import data``). While they are imported, ``@check``
registers into this course's :class:`~grader.checks.api.Registry`. A module may also give the
counterexample search, per function, an input builder (``BUILDERS``), argument names
(``ARG_NAMES``) and names of the result's parts (``RESULT_NAMES``).

A course without ``exercises/checks/`` has only checks declared in its YAML.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
import traceback
from pathlib import Path

from grader.checks.api import Registry, registering

CHECKS_FOLDER = "checks"
_loaded: dict[tuple, Registry] = {}   # per folder and file versions: a course is imported once


class CourseCodeError(Exception):
    """A check module fails to import: the message names its file and line."""


def load_course_code(exercises_dir: Path) -> Registry:
    folder = Path(exercises_dir).resolve() / CHECKS_FOLDER
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    key = (str(folder), tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in files))
    if key not in _loaded:
        _loaded[key] = _import(folder, files)
    return _loaded[key]


def _import(folder: Path, files: list[Path]) -> Registry:
    registry = Registry()
    if not files:
        return registry
    package = "grader_course_" + hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]   # an older version of the same folder's files
    init = folder / "__init__.py"
    if init.exists():
        spec = importlib.util.spec_from_file_location(package, init, submodule_search_locations=[str(folder)])
    else:   # a package with no __init__.py of its own
        spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
    with registering(registry):
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        _run(spec, module, init if init.exists() else None)
        for path in files:
            if path.name == "__init__.py":
                continue
            try:
                submodule = importlib.import_module(f"{package}.{path.stem}")
            except Exception as exc:  # noqa: BLE001 -- an instructor's module may raise anything
                raise CourseCodeError(_where(exc, folder, path)) from None
            _collect(registry, submodule)
    return registry


def _run(spec, module, init: Path | None):
    if init is None:
        return
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001
        raise CourseCodeError(_where(exc, init.parent, init)) from None


def _collect(registry: Registry, module) -> None:
    """A module's BUILDERS, ARG_NAMES and RESULT_NAMES, each checked: a value of the wrong type is a
    course error at the file and line that defines it, not an internal error in a student's grading."""
    for attribute, target in (("BUILDERS", registry.builders), ("ARG_NAMES", registry.arg_names),
                              ("RESULT_NAMES", registry.result_names)):
        if not hasattr(module, attribute):
            continue
        value = getattr(module, attribute)
        problem = _problem(attribute, value)
        if problem:
            path = Path(getattr(module, "__file__", "") or "?")
            raise CourseCodeError(f"{path}:{_line_of(path, attribute)}: {attribute} {problem}")
        target.update(value)


FORMATS = {
    "BUILDERS": "maps each function name to an input builder (grader.checks.choices: a @builder function called, "
                "e.g. {'f': f_case()})",
    "ARG_NAMES": "maps each function name to a tuple of its argument names, e.g. {'f': ('x', 'W')}",
    "RESULT_NAMES": "maps each function name to its result's name ('h_t') or a tuple of names, one per part of "
                    "a tuple result (('h_t', 'c_t'))",
}


def _problem(attribute: str, value) -> str | None:
    """What is wrong with a module's BUILDERS, ARG_NAMES or RESULT_NAMES, or None."""
    from grader.checks.choices import Builder

    def names(item):
        return isinstance(item, (tuple, list)) and all(isinstance(n, str) and n for n in item)

    good = {"BUILDERS": lambda v: isinstance(v, Builder),
            "ARG_NAMES": names,
            "RESULT_NAMES": lambda v: (isinstance(v, str) and v) or (names(v) and len(v) > 0)}[attribute]
    if not isinstance(value, dict):
        return f"must be a dict: it {FORMATS[attribute]} (got {type(value).__name__})"
    for func, item in value.items():
        if not isinstance(func, str):
            return f"has the key {func!r}: it {FORMATS[attribute]}"
        if not good(item):
            return f"gives {func!r} {item!r} ({type(item).__name__}): it {FORMATS[attribute]}"
    return None


def _line_of(path: Path, attribute: str) -> int:
    """The line that assigns ``attribute`` at the top of the module (0 if not found)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return 0
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == attribute for t in targets):
            return node.lineno
    return 0


def _where(exc: BaseException, folder: Path, path: Path) -> str:
    """'<file>:<line>: <error>' at the deepest frame inside the course's folder."""
    file, line = path, getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    if isinstance(exc, SyntaxError) and exc.filename:
        file = Path(exc.filename)
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve().parent == folder:
            file, line = Path(frame.filename), frame.lineno
    detail = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    return f"{file}:{line or 0}: cannot import the course's check module: {type(exc).__name__}: {detail}"
