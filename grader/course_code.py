"""A course's own Python: the check modules in ``exercises/checks/``.

They are the instructor's code, trusted like the grader (they run in the grading process,
never in the sandbox). The folder is imported as a package of its own, under a name made
from its path, so two courses in one process never share a module, and its modules import
each other relatively (``from . import data``). While they are imported, ``@check``
registers into this course's :class:`~grader.checks.Registry`. A module may also give the
counterexample search, per function, an input builder (``BUILDERS``), argument names
(``ARG_NAMES``) and names of the result's parts (``RESULT_NAMES``).

A course without ``exercises/checks/`` has only checks declared in its YAML.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
import traceback
from pathlib import Path

from grader.checks import Registry, registering

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
    for attribute, target in (("BUILDERS", registry.builders), ("ARG_NAMES", registry.arg_names),
                              ("RESULT_NAMES", registry.result_names)):
        value = getattr(module, attribute, None)
        if isinstance(value, dict):
            target.update(value)


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
