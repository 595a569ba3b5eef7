"""The package's floors hold (issue 22): read from the code's own imports (ast: absolute and relative, at module
level and inside functions, ``TYPE_CHECKING`` blocks included -- a type-only import is a dependency all the same).

* a model package (a folder of ``crane_models/models/``) imports no other model package;
* ``fmi/`` imports nothing of ``models/`` (the FMI layer takes the FMUs and their data as arguments);
* each floor imports only itself and the floors below it, in the order of :data:`FLOORS`, written once here;
* no two modules import each other, directly or through others (every cycle is named);
* no module is longer than :data:`MAX_LINES` lines (Python, and the C sources and headers of the package).

Not counted as an edge: importing a package's submodule does not count as importing the package's
``__init__`` (Python runs it, but the code depends on the submodule, not on the package's re-exports).
"""
from __future__ import annotations

import ast
from pathlib import Path

import crane_models

PACKAGE = Path(crane_models.__file__).resolve().parent  # the checkout's package, or the installed copy
NAME = PACKAGE.name

# The floors from the ground up; a module imports its own floor and the ones below it only. The package's own
# ``__init__`` is its face, outside the floors: it re-exports public names of several floors, and any module may
# read ``__version__`` from it (its cycles are still checked).
FLOORS = ("integration", "core", "fmi", "models", "simulation", "analysis", "app")
# The project's limit for one module (developers' guide: "modules under ~400 lines").
MAX_LINES = 400
# Old import paths kept for users (README, docs, examples, benchmarks): modules that only re-export names from
# their new home, which may sit above them. Each is checked to hold nothing but imports, and no module of the
# package may import it: the package itself follows the floors.
OLD_PATHS = {
    "fmi.build": "build_fmu, build_all and the FMI build's names, from their homes since issue 22",
    "fmi.registry": "SPECS, from models.registry since issue 22",
}


def module_name(path: Path) -> str:
    """crane_models/core/kane.py -> core.kane; crane_models/core/__init__.py -> core; the package's -> ''."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_files() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in it: ``from .x import y`` gives ``x.y`` when ``y``
    is a module, else ``x``; absolute imports of ``crane_models`` count the same as relative ones."""
    own = module_name(path)
    package = own.split(".") if own else []
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name[len(NAME) + 1:] for a in node.names if a.name.split(".")[0] == NAME]
            found.update(t for t in targets if t in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not node.module or node.module.split(".")[0] != NAME:
                    continue
                base = node.module[len(NAME) + 1:]
            else:
                head = package[:len(package) - (node.level - 1)]
                base = ".".join(head + ([node.module] if node.module else []))
            for alias in node.names:
                child = f"{base}.{alias.name}".lstrip(".")
                found.add(child if child in modules else base)
    return found - {own}


def import_graph() -> dict[str, set[str]]:
    files = python_files()
    return {name: imported_modules(path, set(files)) for name, path in files.items()}


def floor_of(module: str) -> int:
    """The index of the module's floor in FLOORS."""
    top = module.split(".")[0]
    assert top in FLOORS, f"crane_models.{module} belongs to no floor: add its folder to FLOORS"
    return FLOORS.index(top)


def model_package(module: str) -> str | None:
    """``models.knuckle_boom.crane`` -> ``knuckle_boom``; None for a module outside a model package (the models
    folder's own modules, e.g. its registry)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "models" else None


def test_every_module_belongs_to_a_floor():
    assert not [m for m in python_files() if m and m.split(".")[0] not in FLOORS]


def test_no_model_package_imports_another():
    graph = import_graph()
    crossings = [f"{m} imports {t}" for m, targets in graph.items() for t in sorted(targets)
                 if model_package(m) and model_package(t) and model_package(m) != model_package(t)]
    assert not crossings, "\n".join(crossings)


def test_the_fmi_layer_imports_no_model():
    graph = import_graph()
    found = [f"{m} imports {t}" for m, targets in graph.items() for t in sorted(targets)
             if m.split(".")[0] == "fmi" and m not in OLD_PATHS and t.split(".")[0] == "models"]
    assert not found, "\n".join(found)


def test_each_floor_imports_only_the_floors_below():
    graph = import_graph()
    upward = [f"{m} (floor {FLOORS[floor_of(m)]}) imports {t} (floor {FLOORS[floor_of(t)]})"
              for m, targets in graph.items() if m and m not in OLD_PATHS for t in sorted(targets)
              if t and floor_of(t) > floor_of(m)]
    assert not upward, "\n".join(upward)


def test_old_paths_only_re_export_and_nothing_imports_them():
    files, graph = python_files(), import_graph()
    for name in OLD_PATHS:
        body = ast.parse(files[name].read_text()).body
        code = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr, ast.Assign))
                or isinstance(n, ast.Assign) and [t.id for t in n.targets if isinstance(t, ast.Name)] != ["__all__"]]
        assert not code, f"{name} is an old path: imports and __all__ only"
    importers = [f"{m} imports {t}" for m, targets in graph.items() for t in targets if t in OLD_PATHS]
    assert not importers, "\n".join(importers)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm), each as a list."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_cycle_finder_finds_a_cycle():
    """The finder itself: a three-module loop and a two-module one are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"], ["d", "e"]]


def test_no_import_cycles():
    cycles = import_cycles(import_graph())
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def long_files(patterns: tuple) -> list[str]:
    return [f"{p.relative_to(PACKAGE).as_posix()}: {n} lines" for pattern in patterns
            for p in sorted(PACKAGE.rglob(pattern)) if "__pycache__" not in p.parts
            and (n := len(p.read_text().splitlines())) > MAX_LINES]


def test_python_modules_stay_under_the_limit():
    too_long = long_files(("*.py",))
    assert not too_long, "\n".join(too_long)


def test_c_files_stay_under_the_limit():
    """The kernel's and the runtime's C sources and headers (their floors: tests/test_c_layout.py)."""
    too_long = long_files(("*.c", "*.h"))
    assert not too_long, "\n".join(too_long)
