"""Trusted, private imports of the course's own Python files.

The reference and every known mistake are sets of modules with the student
file names (``layers``, ``losses``...) that import each other by those
names. :class:`ModuleSet` executes them in private namespaces, so several
sets (the reference, each mistake) live side by side in one process without
touching ``sys.modules``. Only course files are loaded this way, never
student code.
"""

from __future__ import annotations

import builtins
import types
from pathlib import Path


# Compiled course modules by (file, source). The reference and every known mistake's set
# import the same reference files, and a lone `grade check` that looks for mistakes loads
# dozens of sets: each file is compiled once per process, not once per set. Code objects
# are immutable; each set still executes its own copy of the module.
_COMPILED: dict[tuple[str, str], types.CodeType] = {}


def module_name(file: str) -> str:
    """The module of a course file (``layers.py`` -> ``layers``)."""
    return file[:-3] if file.endswith(".py") else file


class ModuleSet:
    def __init__(self, folder: Path, overrides: dict[str, str] | None = None):
        """``overrides`` maps a module name to source appended to its file's source."""
        self.folder = Path(folder)
        self.overrides = overrides or {}
        self._modules: dict[str, types.ModuleType] = {}
        self._builtins = dict(vars(builtins), __import__=self._import)

    def source(self, name: str) -> str:
        path = self.folder / f"{name}.py"
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        extra = self.overrides.get(name)
        return text + ("\n\n" + extra if extra else "")

    def has(self, name: str) -> bool:
        return (self.folder / f"{name}.py").exists() or name in self.overrides

    def get(self, name: str) -> types.ModuleType:
        if name not in self._modules:
            module = types.ModuleType(name)
            module.__file__ = str(self.folder / f"{name}.py")
            module.__builtins__ = self._builtins
            self._modules[name] = module   # before exec: import cycles resolve like Python's
            source = self.source(name)
            code = _COMPILED.get((module.__file__, source))
            if code is None:
                code = _COMPILED[module.__file__, source] = compile(source, module.__file__, "exec")
            exec(code, module.__dict__)  # noqa: S102 -- course files are trusted
        return self._modules[name]

    def function(self, module: str, name: str):
        return getattr(self.get(module), name)

    def _import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in self._modules or (level == 0 and self.has(name)):
            return self.get(name)
        return builtins.__import__(name, globals, locals, fromlist, level)
