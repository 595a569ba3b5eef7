"""The C floors (issue 22): the kernel's and the FMI runtime's translation units call each other in one direction.

Read from the sources, no compiler needed: which ``.c`` file defines each function or variable it shares (not
``static``), which other ``.c`` files use it, and which header includes which. The C lists of sources,
``core/native/entry_points.SOURCES`` and the runtime's ``SOURCES`` / ``FMI3_SOURCES``, are ordered from the bottom
floor up (numerics and the platform first, the entry points' callers last), and that order is the rule: a file uses
only what files listed before it define. A circle of translation units breaks it too, and is named on its own
because it is the worse fault. Headers include each other without a circle. (The ~400-line limit for ``.c`` and
``.h`` files is tests/test_architecture.py's.)

The scan is a regex over the sources with comments, strings and preprocessor lines removed, which this code's
style makes exact: every function definition starts in column 0 (``type name(...) {``), statements are indented.
platform_posix.c and platform_windows.c define the same functions (one compiles to nothing on each OS family): a
file never depends on another for a name it defines itself, and a user of ``plat_*`` depends on both."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from crane_models.core.native import entry_points
from crane_models.fmi import runtime

KERNEL = Path(entry_points.__file__).resolve().parent
RUNTIME = Path(runtime.__file__).resolve().parent

# (folder, one build's sources bottom-up, what the list is called in the project)
BUILDS = [(KERNEL, entry_points.SOURCES, "core/native/entry_points.SOURCES"),
          (RUNTIME, runtime.SOURCES, "fmi/runtime SOURCES"),
          (RUNTIME, runtime.FMI3_SOURCES, "fmi/runtime FMI3_SOURCES")]

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_PREPROCESSOR = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
# a definition at file scope: column 0, not static, a return type, the name, the parameters, the body's brace
_FUNCTION = re.compile(r"^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{",
                       re.M)
# a variable at file scope with an initializer: column 0, not static, `type name[...] = ...`
_VARIABLE = re.compile(r"^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*=",
                       re.M)
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def code_of(path: Path) -> str:
    """The C code of a file without comments, string and character literals, and preprocessor lines."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text())
    return _PREPROCESSOR.sub("", _LITERAL.sub('""', text))


def shared_names(code: str) -> set[str]:
    """The functions and variables a file defines for other files (not static)."""
    return set(_FUNCTION.findall(code)) | set(_VARIABLE.findall(code))


def unit_dependencies(folder: Path, sources) -> dict[str, dict[str, list[str]]]:
    """{file: {file it uses: [the names it uses from there]}} over one build's sources."""
    code = {name: code_of(folder / name) for name in sources}
    defined = {name: shared_names(text) for name, text in code.items()}
    graph = {}
    for name, text in code.items():
        used = set(_IDENTIFIER.findall(text)) - defined[name]
        graph[name] = {other: sorted(used & names) for other, names in defined.items()
                       if other != name and used & names}
    return graph


def find_cycle(graph: dict) -> list | None:
    """One circle of the directed graph {node: iterable of nodes} as [a, b, ..., a], or None."""
    state, path = {}, []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def include_graph(folder: Path) -> dict[str, set[str]]:
    """{file: headers it includes with quotes} over the folder's .c and .h files."""
    return {p.name: set(_INCLUDE.findall(p.read_text())) for p in sorted([*folder.glob("*.c"), *folder.glob("*.h")])}


@pytest.mark.parametrize("folder,sources,label", BUILDS, ids=["kernel", "runtime-fmi2", "runtime-fmi3"])
def test_no_circle_of_translation_units(folder, sources, label):
    graph = unit_dependencies(folder, sources)
    cycle = find_cycle(graph)
    assert cycle is None, "translation units call each other in a circle: " + " -> ".join(
        f"{a} ({', '.join(graph[a][b])})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


@pytest.mark.parametrize("folder,sources,label", BUILDS, ids=["kernel", "runtime-fmi2", "runtime-fmi3"])
def test_every_file_calls_only_the_floors_below(folder, sources, label):
    """The list is ordered bottom-up: each file uses names of files listed before it only."""
    graph = unit_dependencies(folder, sources)
    upward = [f"{name} uses {', '.join(names)} of {other}, listed after it"
              for i, name in enumerate(sources) for other, names in graph[name].items()
              if sources.index(other) > i]
    assert not upward, f"calls up the floors of {label}:\n" + "\n".join(upward)


@pytest.mark.parametrize("folder", [KERNEL, RUNTIME], ids=["kernel", "runtime"])
def test_headers_include_each_other_without_a_circle(folder):
    graph = include_graph(folder)
    missing = sorted(f"{name} includes {h}" for name, heads in graph.items() for h in heads if h not in graph)
    assert not missing, "includes of headers not in the folder: " + "; ".join(missing)
    headers = {name: heads for name, heads in graph.items() if name.endswith(".h")}
    cycle = find_cycle(headers)
    assert cycle is None, "headers include each other in a circle: " + " -> ".join(cycle)


def test_the_scan_sees_the_definitions_the_binding_relies_on():
    """The regex finds what the kernel's binding calls (entry_points.EXPORTS, each defined once) and the runtime's
    shared helpers, so that a graph without edges cannot pass for a clean one."""
    kernel = {name: shared_names(code_of(KERNEL / name)) for name in entry_points.SOURCES}
    for export in entry_points.EXPORTS:
        assert sum(export in names for names in kernel.values()) == 1, export
    fmi3 = set().union(*(shared_names(code_of(RUNTIME / name)) for name in runtime.FMI3_SOURCES))
    assert {"checked3", "core_call_slave", "core_build_var_table", "search_python", "py_api", "TYPE3_NAMES"} <= fmi3
    assert any(unit_dependencies(KERNEL, entry_points.SOURCES).values())


@pytest.mark.parametrize("headers,sources", [(runtime.HEADERS, runtime.SOURCES),
                                             (runtime.FMI3_HEADERS, runtime.FMI3_SOURCES)], ids=["fmi2", "fmi3"])
def test_runtime_header_lists_cover_what_the_sources_include(headers, sources):
    """The runtime's build cache is keyed by a hash of SOURCES + HEADERS (fmi/runtime: source_hash): a header the
    sources include but the list forgets would leave a stale runtime in the cache after an edit."""
    graph = include_graph(RUNTIME)
    seen, todo = set(), [h for s in sources for h in graph[s]]
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo.extend(graph[h])
    assert sorted(seen - set(headers)) == []
