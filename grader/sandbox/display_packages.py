"""Display-only packages a course allows in graded code (course.yaml ``display_packages``).

Graded code may import the standard library and numpy; a course may allow more for display
only, such as matplotlib, so that a student's plotting cell runs instead of stopping. Where the
grader's environment has such a package, the sandbox binds it (and the packages it requires)
read-only, beside numpy (grader/sandbox/isolation.py), and under Landlock the child may read it; the
worker's child runs it with a non-interactive backend and its caches in its private /tmp
(grader/sandbox/worker/zygote.py). Where the environment lacks it, an import of it stops its cell with
a message saying so (grader/grading/worker_errors.py).

The packages are declared for the process (:func:`declare`, by grader/grading/engine.Grader) before
its Worker is made: one course is graded per process. A worker `grade check` started before the
course was loaded (grader/sandbox/launch.py) knows none; the Worker of a course that declares
installed ones does not take it, and starts its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_DECLARED: tuple[str, ...] = ()
_NEVER = {"numpy", "grader"}     # numpy is bound anyway; the grader never
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_DISTRIBUTIONS = 64           # a package's requirements followed at most this far


def declare(names) -> None:
    """The display-only packages of the course graded in this process."""
    global _DECLARED
    _DECLARED = tuple(dict.fromkeys(n for n in names if n not in _NEVER))


def declared() -> tuple[str, ...]:
    return _DECLARED


def bound_dirs() -> list[Path]:
    """The folders and files the sandbox binds for the declared packages that are installed."""
    return list(_dirs_of(_DECLARED))


@lru_cache(maxsize=None)
def _dirs_of(names: tuple[str, ...]) -> tuple[Path, ...]:
    if not names:
        return ()
    import importlib.metadata as metadata   # 17 ms: only for a course that declares packages

    providers = metadata.packages_distributions()
    todo = [d for name in names for d in providers.get(name, ())]
    seen: set[str] = set()
    found: list[Path] = []
    while todo and len(seen) < MAX_DISTRIBUTIONS:
        name = _normal(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        tops = _top_level(dist)
        if tops & _NEVER:
            continue
        for top in sorted(tops):
            path = Path(dist.locate_file(top))
            if path.exists():
                found.append(path.resolve())
        for requirement in dist.requires or ():
            if "extra ==" in requirement.replace("extra==", "extra =="):
                continue                  # an optional extra: not needed to import the package
            m = _NAME.match(requirement)
            if m:
                todo.append(m.group(0))
    return tuple(dict.fromkeys(found))


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _top_level(dist) -> set[str]:
    """The top-level entries a distribution installed into its folder: packages, modules, the
    folders of bundled libraries, its .dist-info (never a script in bin/ or a file outside)."""
    tops: set[str] = set()
    for file in dist.files or ():
        parts = Path(file).parts
        if not parts or parts[0] in ("..", "/") or parts[0].startswith(".") or parts[0] == "__pycache__":
            continue
        if len(parts) == 1 and not parts[0].endswith((".py", ".so", ".pth")):
            continue
        if parts[0].endswith(".pth"):
            continue
        tops.add(parts[0])
    return tops


def preload_arguments() -> list[str]:
    """The worker's argument naming the declared packages that are installed here: it imports
    them once, so each child starts with them (grader/sandbox/worker/zygote.py preload_display_packages)."""
    import importlib.util

    installed = [name for name in _DECLARED if importlib.util.find_spec(name) is not None]
    return [f"--preload={','.join(installed)}"] if installed else []
