"""No import cycle between the grader's modules.

Every module under ``grader/`` is parsed with ``ast`` (nothing is imported) and each
import statement is an edge to the grader modules it loads, wherever the statement is:
at module level, inside a function or method (a lazy import), a class, or an ``if``
(``TYPE_CHECKING`` included). A lazy import that closes a loop still ties the modules of
that loop together; making it lazy only hides the tangle until the first call.

What an import statement loads:

* ``import grader.a.b`` and ``from grader.a.b import name``: ``grader.a.b``, the packages
  above it (their ``__init__`` runs first) except the importer's own packages (already
  loaded before it), and ``grader.a.b.name`` when that is a module;
* relative imports (``from .x import y``, ``from . import x``) resolved against the
  importer's package;
* ``grader/worker/``'s modules run inside the sandbox, where ``zygote.py`` is started by
  path and puts its own folder first on ``sys.path``: there ``import wire`` is
  ``grader/worker/wire.py``, the file the trusted side imports as ``grader.worker.wire``.
  A plain import of a sibling file in that folder is an edge to that module.

Imports by a name computed at run time (``importlib.import_module(...)``) are not
import statements and are not seen.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "grader"
# Folders whose modules are started by path with the folder itself on sys.path, so they
# import their siblings by plain names.
SCRIPT_FOLDERS = ("worker",)


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the grader package."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def own_package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imported_names(node: ast.AST, name: str, path: Path, modules: dict[str, Path]) -> list[str]:
    """The dotted names an import statement asks for (whether or not they are grader modules)."""
    package = own_package(name, path)
    script_folder = package.split(".", 1)[1] if "." in package else ""
    siblings = {m.rsplit(".", 1)[1] for m in modules if m.startswith(package + ".")} \
        if script_folder in SCRIPT_FOLDERS else set()

    def absolute(target: str) -> str:
        if target.split(".", 1)[0] in siblings:
            return f"{package}.{target}"
        return target

    if isinstance(node, ast.Import):
        return [absolute(alias.name) for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = package.split(".")
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = absolute(node.module)
    return [source] + [f"{source}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {grader module it imports: line of the first statement that does}."""
    modules = module_files()
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        own = set(ancestors(name))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in imported_names(node, name, path, modules):
                for loaded in [*ancestors(target), target]:
                    if loaded in modules and loaded != name and loaded not in own:
                        graph[name].setdefault(loaded, node.lineno)
    return graph


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None (depth-first search, iterative)."""
    state: dict[str, int] = {}          # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        state[start] = 1
        stack = [iter(sorted(graph[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(following) == 1:
                return path[path.index(following):] + [following]
            elif following not in state:
                state[following] = 1
                path.append(following)
                stack.append(iter(sorted(graph[following])))
    return None


def describe(cycle: list[str], graph: dict[str, dict[str, int]]) -> str:
    modules = module_files()
    return "\n".join(f"  {a} -> {b}   ({modules[a].relative_to(PACKAGE.parent)}, line {graph[a][b]})"
                     for a, b in zip(cycle, cycle[1:]))


def test_no_import_cycle_between_grader_modules():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle:\n" + describe(cycle, graph)


def test_the_graph_sees_lazy_relative_and_worker_imports():
    """The graph is built as the docstring says (else the test above could pass on nothing)."""
    graph = import_graph()
    assert "grader.errors" in graph["grader.cli"]                   # module level
    assert "grader.course" in graph["grader.pytest_plugin"]         # inside a function
    assert "grader.notebook" in graph["grader.submission"]          # relative, inside a function
    assert "grader.worker.wire" in graph["grader.worker.zygote"]    # `import wire`, by path in the sandbox
    assert "grader.report.json_report" in graph["grader.results"]   # a submodule, inside a function...
    assert "grader.report" in graph["grader.results"]               # ... imports the package above it too
    assert "grader.report" not in graph["grader.report.text"]       # ... but not the importer's own


def test_a_cycle_is_found_and_shown():
    graph = {"a": {"b": 3}, "b": {"c": 7}, "c": {"a": 1}, "d": {"a": 2}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None
