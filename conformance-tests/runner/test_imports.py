"""No import cycle among the runner's modules, checked with grimp.

The runner's modules import each other by plain names (``import case``,
``from harness import SUITE``), found on sys.path, not as submodules of a
package. grimp builds graphs of packages, so the check lays out every runner
module as a one-file top-level package of the same name (``case/__init__.py``
linking to ``case.py``) in a scratch folder: each plain-name import then
resolves to exactly the module it loads at run time. Imports inside functions
count too (a deferred import is still a cycle). The graph is built in a child
interpreter (-I) whose sys.path holds only that folder and the stdlib and site-packages, since this process has
already imported the runner's modules as plain modules.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = textwrap.dedent("""
    import itertools, json, os, sys
    sys.path.insert(0, os.getcwd())  # -I left out the cwd: the folder of one-file packages only
    import grimp
    mods = sys.argv[1:]
    graph = grimp.build_graph(*mods, cache_dir=None)
    edges = sorted((a, b) for a in mods for b in graph.find_modules_directly_imported_by(a) if b in mods)
    cycles, seen = [], set()
    for a, b in itertools.combinations(mods, 2):
        there, back = graph.find_shortest_chain(a, b), graph.find_shortest_chain(b, a)
        if there and back:
            ring = list(there) + list(back[1:-1])
            i = ring.index(min(ring))
            ring = ring[i:] + ring[:i]  # one way to write each cycle
            if tuple(ring) not in seen:
                seen.add(tuple(ring))
                cycles.append(ring + ring[:1])
    print(json.dumps({"edges": edges, "cycles": cycles}))
""")


def runner_modules(folder: Path = HERE) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.py"))


def import_graph(folder: Path, tmp: Path) -> dict:
    """{"edges": [[importer, imported]...], "cycles": [[a, ..., b, ..., a]...]} over folder/*.py."""
    mods = runner_modules(folder)
    for m in mods:
        (tmp / m).mkdir()
        (tmp / m / "__init__.py").symlink_to(folder / f"{m}.py")
    out = subprocess.run([sys.executable, "-I", "-c", SCRIPT, *mods], cwd=tmp, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"grimp failed: {out.stderr[-2000:]}"
    return json.loads(out.stdout)


def test_runner_has_no_import_cycle(tmp_path):
    g = import_graph(HERE, tmp_path)
    # the graph sees the runner's own imports (a check that sees nothing would pass anything)
    assert ["execute", "case"] in g["edges"] and ["case", "checks"] in g["edges"], g["edges"]
    assert not g["cycles"], "import cycles among the runner's modules: " + "; ".join(
        " -> ".join(c) for c in g["cycles"])
