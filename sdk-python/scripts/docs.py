"""API reference of the public ``jobwire`` package with pdoc (scripts/docs.sh, make docs).

Documents ``jobwire`` (the names in its ``__all__``), ``jobwire.sync``, the synchronous
facade, ``jobwire.testing``, the test kit, and ``jobwire.fastapi``, the FastAPI / Starlette
lifespan (public modules that ``jobwire.__all__`` does not
list); the private ``_``-modules are
left out. Fails, listing each problem, when

- pdoc warns (an annotation or a reference it cannot resolve, a member it cannot inspect),
- a public module, class, function, or a method, property or attribute of a public class has
  no docstring,
- a link in the written pages points to a page or an anchor that is not there.

Usage: python scripts/docs.py OUT_DIR
"""

from __future__ import annotations

import html.parser
import sys
import urllib.parse
import warnings
from pathlib import Path

import pdoc
import pdoc.doc
import pdoc.render


MODULES = ("jobwire", "jobwire.sync", "jobwire.testing", "jobwire.fastapi")


def _own_class_doc(cls: type) -> str:
    """The class's own docstring: not one inherited from a base (pdoc shows those), nor the
    signature ``Name(field: type, ...)`` that @dataclass writes when there is none."""
    doc = cls.__dict__.get("__doc__") or ""
    if doc.startswith(f"{cls.__name__}(") and hasattr(cls, "__dataclass_fields__"):
        return ""
    return doc.strip()


def undocumented(mod: pdoc.doc.Module) -> list[str]:
    """Public members of ``mod`` without a docstring: classes, functions, and the methods,
    properties and attributes each class defines itself (not those of its bases)."""
    out: list[str] = []
    if not mod.docstring.strip():
        out.append(f"module {mod.fullname}")
    for m in mod.members.values():
        if m.name.startswith("_"):
            continue
        if isinstance(m, pdoc.doc.Class):
            if not _own_class_doc(m.obj):
                out.append(f"class {m.fullname}")
            for c in m.own_members:
                if c.name.startswith("_") or c.taken_from[1].rpartition(".")[0] != m.taken_from[1]:
                    continue  # private, or defined by a base class
                if isinstance(c, (pdoc.doc.Function, pdoc.doc.Variable)) and not c.docstring.strip():
                    out.append(f"{type(c).__name__.lower()} {c.fullname}")
        elif isinstance(m, pdoc.doc.Function) and not m.docstring.strip():
            out.append(f"function {m.fullname}")
    return out


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, v in attrs:
            if k == "id" and v:
                self.ids.add(v)
            if k == "href" and v and tag == "a":
                self.hrefs.append(v)


def broken_links(out_dir: Path) -> list[str]:
    """Relative links of the written pages whose target page or anchor does not exist."""
    pages: dict[Path, _Links] = {}
    for page in out_dir.rglob("*.html"):
        p = _Links()
        p.feed(page.read_text(encoding="utf-8"))
        pages[page.resolve()] = p
    bad: list[str] = []
    for page, p in pages.items():
        for href in p.hrefs:
            u = urllib.parse.urlsplit(href)
            if u.scheme or u.netloc or href.startswith("data:"):
                continue
            target = (page.parent / urllib.parse.unquote(u.path)).resolve() if u.path else page
            if target not in pages:
                if not target.exists():
                    bad.append(f"{page.relative_to(out_dir.resolve())}: {href} (no such page)")
                continue
            if u.fragment and u.fragment not in pages[target].ids:
                bad.append(f"{page.relative_to(out_dir.resolve())}: {href} (no such anchor)")
    return bad


def main() -> int:
    out_dir = Path(sys.argv[1])
    pdoc.render.configure(docformat="restructuredtext", show_source=False, footer_text="jobwire")
    with warnings.catch_warnings():  # jobwire.sync is deprecated on purpose: its import warning is no docs problem
        warnings.simplefilter("ignore", DeprecationWarning)
        import jobwire.sync  # noqa: F401
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=out_dir)
        missing = [m for name in MODULES for m in undocumented(pdoc.doc.Module.from_name(name))]
    problems = [f"pdoc warning: {w.message}" for w in caught]
    problems += [f"no docstring: {m}" for m in missing]
    problems += [f"broken link: {b}" for b in broken_links(out_dir)]
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"sdk-python docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
