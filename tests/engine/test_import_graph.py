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
* ``grader/sandbox/worker/``'s modules run inside the sandbox, where ``zygote.py`` is started by
  path and puts its own folder first on ``sys.path``: there ``import wire`` is
  ``grader/sandbox/worker/wire.py``, the file the trusted side imports as ``grader.sandbox.worker.wire``.
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
SCRIPT_FOLDERS = ("sandbox.worker",)


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
    """The graph is built as the docstring says (else the tests above could pass on nothing)."""
    graph = import_graph()
    assert "grader.base.errors" in graph["grader.cli"]                            # module level
    assert "grader.course.loader" in graph["grader.kit.pytest_plugin"]             # inside a function
    assert "grader.sandbox.worker.wire" in graph["grader.sandbox.worker.zygote"]   # `import wire`, by path
    assert "grader.report.json_report" in graph["grader.report"]                   # a submodule, inside a function
    assert "grader.report" in graph["grader.classroom.gradebook"]                  # a package's __init__ runs first
    assert "grader.report" not in graph["grader.report.text"]                      # ... but not the importer's own
    modules = module_files()
    relative = ast.parse("from .outcomes import StudentError\nfrom . import compare").body
    path = modules["grader.checks.api"]
    assert imported_names(relative[0], "grader.checks.api", path, modules)[0] == "grader.checks.outcomes"
    assert "grader.checks.compare" in imported_names(relative[1], "grader.checks.api", path, modules)


def test_a_cycle_is_found_and_shown():
    graph = {"a": {"b": 3}, "b": {"c": 7}, "c": {"a": 1}, "d": {"a": 2}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None


# ---------------------------------------------------------------- the wings and their walls

# Which wing may import which (docs/architecture.md draws it). A wing's modules may import their
# own wing and the wings listed here, nothing else: a lower wing never reaches up.
MAY_IMPORT = {
    "base":       set(),
    "report":     {"base"},
    "submission": {"base", "report"},
    "checks":     {"base", "report"},
    "quiz":       {"base", "report"},
    "sandbox":    {"base", "checks"},
    "course":     {"base", "checks", "quiz", "sandbox"},
    "grading":    {"base", "report", "submission", "checks", "quiz", "sandbox", "course"},
    "kit":        {"base", "report", "submission", "checks", "quiz", "sandbox", "course", "grading"},
    "classroom":  {"base", "report", "submission", "checks", "quiz", "sandbox", "course", "grading"},
    "jupyter":    {"base", "report", "submission", "checks", "quiz", "sandbox", "course", "grading"},
    "cli":        {"base", "report", "submission", "checks", "quiz", "sandbox", "course", "grading", "kit",
                   "classroom", "jupyter"},
    "__main__":   {"cli"},
}
# Top-level modules of grader/ besides the wings: the package itself, the command and
# `python -m grader`, plus two old import paths of the check API kept for courses written
# against them (each one line: grader.checks.compare / grader.checks.choices).
TOP_LEVEL = {"grader", "grader.cli", "grader.__main__", "grader.compare", "grader.choices"}
SHIMS = {"grader.compare": "checks", "grader.choices": "checks"}
# A course's check code is written against grader.checks: none of the transport.
CHECKS_MAY_NOT_IMPORT = {"grader.sandbox.client", "grader.sandbox.trusted_calls", "grader.grading"}


def wing_of(module: str) -> str:
    if module in SHIMS:
        return SHIMS[module]
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "grader"


def test_every_module_lives_in_a_wing():
    wings = set(MAY_IMPORT) - {"cli", "__main__"}
    stray = [m for m in module_files() if m not in TOP_LEVEL and wing_of(m) not in wings]
    assert not stray, f"modules outside every wing (give each a wing in grader/): {stray}"


def arrows_across_walls(graph: dict[str, dict[str, int]]) -> list[tuple[str, str, int]]:
    """(importer, imported, line) of every import from one wing into a wing it may not import."""
    return [(name, target, line) for name, targets in graph.items() if name != "grader"
            for target, line in targets.items()
            if target != "grader" and wing_of(name) != wing_of(target)
            and wing_of(target) not in MAY_IMPORT.get(wing_of(name), ())]


def test_no_wing_imports_another_it_may_not():
    modules = module_files()
    wrong = [f"  {name} -> {target}   ({modules[name].relative_to(PACKAGE.parent)}, line {line})"
             for name, target, line in arrows_across_walls(import_graph())]
    assert not wrong, "imports across a wall (tests/engine/test_import_graph.py MAY_IMPORT):\n" + "\n".join(wrong)


def test_the_wings_stand_at_most_ten_layers_tall():
    """Drawn by wing, the longest chain of imports is short: the shape is visible."""
    height: dict[str, int] = {}

    def layer(wing: str) -> int:
        if wing not in height:
            height[wing] = 1 + max((layer(w) for w in MAY_IMPORT[wing]), default=0)
        return height[wing]
    assert max(layer(w) for w in MAY_IMPORT) <= 10


def test_check_code_does_not_import_the_transport():
    graph = import_graph()
    leaks = [(m, t) for m in graph if wing_of(m) == "checks" for t in graph[m]
             if any(t == bad or t.startswith(bad + ".") for bad in CHECKS_MAY_NOT_IMPORT)]
    assert not leaks


def test_the_wall_test_sees_a_wrong_arrow():
    """The rule above fails on an arrow up (else it could pass on nothing), and lets a wing's own
    imports and the ones its row allows through."""
    graph = {"grader.checks.api": {"grader.grading.engine": 7, "grader.checks.compare": 3, "grader.base.errors": 2},
             "grader.sandbox.worker.zygote": {"grader.sandbox.worker.wire": 5},
             "grader.grading.engine": {"grader.course.loader": 9}}
    assert arrows_across_walls(graph) == [("grader.checks.api", "grader.grading.engine", 7)]


def test_class_grading_finds_the_reference_without_validate():
    """`grade class` grades the reference once per run from the course's own folders
    (grader/course/solution_folders.py), not through `grade validate`'s module."""
    graph = import_graph()
    assert "grader.grading.validate" not in graph["grader.classroom.class_run"]
    assert "grader.course.solution_folders" in graph["grader.classroom.class_run"]


def test_the_old_paths_of_the_check_api_still_load_a_course_written_against_them():
    from grader import checks, choices, compare
    from grader.checks import choices as new_choices, compare as new_compare
    from grader.checks.api import Case, Context, check

    assert (choices.builder, choices.integers, choices.lists) == (new_choices.builder, new_choices.integers,
                                                                  new_choices.lists)
    assert (compare.compare, compare.same) == (new_compare.compare, new_compare.same)
    assert (checks.Case, checks.Context, checks.check) == (Case, Context, check)
