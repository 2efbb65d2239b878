"""No import cycle between the modules of the jobwire package (grimp, BSD-2-Clause).

Every import statement grimp finds counts: module level, inside ``if TYPE_CHECKING:`` (a
circle hidden from the interpreter is still a circle in the design) and inside functions. The
one allowance is listed in ALLOWED: a lazy read of the package version at first use."""

from __future__ import annotations

from typing import Dict, Iterable, List, Set, Tuple

import grimp

PACKAGE = "jobwire"

ALLOWED: Set[Tuple[str, str]] = {
    # _telemetry reads jobwire.__version__ inside a function, when the instruments are first made.
    ("jobwire._telemetry", "jobwire"),
}


def _edges(graph: grimp.ImportGraph, modules: Iterable[str]) -> Dict[str, Set[str]]:
    mods = set(modules)
    out: Dict[str, Set[str]] = {}
    for m in mods:
        out[m] = {t for t in graph.find_modules_directly_imported_by(m) if t in mods and (m, t) not in ALLOWED}
    return out


def find_cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (or a module importing itself),
    each as a sorted list (Tarjan, iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    found: List[List[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: List[Tuple[str, List[str]]] = [(root, sorted(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, todo = work[-1]
            if todo:
                w = todo.pop()
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, sorted(edges.get(w, ()))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp: List[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in edges.get(v, ()):
                    found.append(sorted(comp))
    return found


def _describe(graph: grimp.ImportGraph, comp: List[str]) -> str:
    lines = [" <-> ".join(comp)]
    for a in comp:
        for b in comp:
            if a != b and graph.direct_import_exists(importer=a, imported=b):
                for d in graph.get_import_details(importer=a, imported=b):
                    lines.append(f"    {a}:{d['line_number']} {d['line_contents']}")
    return "\n".join(lines)


def test_no_import_cycles_in_the_package() -> None:
    graph = grimp.build_graph(PACKAGE, cache_dir=None, exclude_type_checking_imports=False)
    modules = graph.find_descendants(PACKAGE) | {PACKAGE}
    assert f"{PACKAGE}.worker" in modules and f"{PACKAGE}.job" in modules  # the graph is the real package
    cycles = find_cycles(_edges(graph, modules))
    assert not cycles, "import cycles:\n" + "\n".join(_describe(graph, c) for c in cycles)


def test_cycle_finder_sees_cycles() -> None:
    # The finder itself can fail: a direct circle, a longer one, a self-import; a chain is no cycle.
    assert find_cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"a"}}) == [["a"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    # And through grimp's graph, the way the package test reads it.
    g = grimp.ImportGraph()
    for m in ("p", "p.x", "p.y", "p.z"):
        g.add_module(m)
    g.add_import(importer="p.x", imported="p.y")
    g.add_import(importer="p.y", imported="p.x")
    g.add_import(importer="p.z", imported="p.x")
    assert find_cycles(_edges(g, {"p", "p.x", "p.y", "p.z"})) == [["p.x", "p.y"]]
