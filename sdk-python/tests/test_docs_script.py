"""scripts/docs.py (make docs): it finds an undocumented public member and a broken link."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pdoc")
import pdoc.doc  # noqa: E402


def _docs_script() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "docs.py"
    spec = importlib.util.spec_from_file_location("jobwire_docs_script", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_finds_undocumented_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "planted_docs_pkg.py").write_text(
        '"""A module."""\n'
        "from dataclasses import dataclass\n\n"
        "def bare(): pass\n\n"
        "def _private(): pass\n\n"
        "@dataclass\n"
        "class Point:\n"
        '    """A point."""\n'
        "    x: int\n"
        '    """Documented."""\n'
        "    y: int\n\n"
        "    def norm(self) -> int:\n"
        "        return self.x\n\n"
        "class Naked(Exception):\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _docs_script().undocumented(pdoc.doc.Module.from_name("planted_docs_pkg"))
    sys.modules.pop("planted_docs_pkg", None)
    assert sorted(found) == sorted([
        "function planted_docs_pkg.bare",
        "variable planted_docs_pkg.Point.y",
        "function planted_docs_pkg.Point.norm",
        "class planted_docs_pkg.Naked",
    ]), found


def test_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#there">ok</a><a href="b.html#gone">x</a>'
                                     '<a href="c.html">y</a><a href="#top">self</a><a href="https://example.org/z">web</a>')
    (tmp_path / "b.html").write_text('<section id="there"></section><a href="a.html">back</a>')
    bad = _docs_script().broken_links(tmp_path)
    assert sorted(bad) == ["a.html: b.html#gone (no such anchor)", "a.html: c.html (no such page)"], bad


def test_class_docstrings_must_be_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "planted_docs_pkg2.py").write_text(
        '"""A module."""\n'
        "from dataclasses import dataclass\n\n"
        "@dataclass\n"
        "class Bare:\n"
        "    x: int = 0\n"
        '    """Documented."""\n\n'
        "class Documented(Exception):\n"
        '    """Its own."""\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _docs_script().undocumented(pdoc.doc.Module.from_name("planted_docs_pkg2"))
    sys.modules.pop("planted_docs_pkg2", None)
    assert found == ["class planted_docs_pkg2.Bare"], found
