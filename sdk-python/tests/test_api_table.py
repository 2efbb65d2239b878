"""The cross-language API table (docs/api.md) lists every public name of ``jobwire`` in its
Python column; these tests keep the two equal in both directions."""

from __future__ import annotations

import asyncio
import builtins
import inspect
import re
import types
from pathlib import Path
from typing import List, Set

import jobwire

_NAME = re.compile(r"^([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(?:\((\w+)=\))?$")


def _api_md() -> str:
    for d in Path(__file__).resolve().parents:
        p = d / "docs" / "api.md"
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise AssertionError("docs/api.md not found above the tests directory")


def _column(md: str, col: str) -> List[str]:
    names: List[str] = []
    idx = -1
    for raw in md.splitlines():
        line = raw.strip()
        if not line.startswith("|"):
            idx = -1
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if idx < 0:
            idx = cells.index(col) if col in cells else -1
            continue
        if idx >= len(cells) or cells[idx].startswith("---"):
            continue
        names += re.findall(r"`([^`]+)`", cells[idx])
    assert names, f"no {col} column in docs/api.md"
    return names


def _has_member(cls: object, member: str) -> bool:
    if hasattr(cls, member):
        return True
    if isinstance(cls, type):  # attributes set in __init__ (self.key: int = ...)
        try:
            src = inspect.getsource(cls)
        except (OSError, TypeError):
            return False
        return re.search(rf"self\.{member}\b\s*[:=]", src) is not None
    return False


def _public(cls: type) -> Set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_python_column_matches_exports() -> None:
    exported = set(jobwire.__all__)
    listed: Set[str] = set()
    listed_members: Set[str] = set()
    listed_kwargs: Set[str] = set()
    problems: List[str] = []
    for tok in _column(_api_md(), "Python"):
        m = _NAME.match(tok)
        if not m:
            continue
        head, member, kw = m.groups()
        if hasattr(builtins, head):  # int, dict: the language's, named for comparison
            continue
        listed.add(head)
        obj = getattr(jobwire, head, None)
        if obj is None:
            continue  # reported as extra below
        if member:
            listed_members.add(f"{head}.{member}")
            if not _has_member(obj, member):
                problems.append(f"docs/api.md lists {head}.{member}, but {head} has no {member}")
                continue
        if kw:
            target = getattr(obj, member) if member else obj
            listed_kwargs.add(f"{head}{'.' + member if member else ''}({kw}=)")
            if kw not in inspect.signature(target).parameters:
                problems.append(f"docs/api.md lists {tok}, but it has no parameter {kw}")
    missing = sorted(exported - listed)
    extra = sorted(listed - exported)
    # Every public method and property of the main classes, and every option of Client() and
    # Client.worker(), is in the table.
    for cls in (jobwire.Client, jobwire.Job, jobwire.Worker):
        missing += sorted(f"{cls.__name__}.{n}" for n in _public(cls) if f"{cls.__name__}.{n}" not in listed_members)
    for label, fn in (("Client", jobwire.Client.__init__), ("Client.worker", jobwire.Client.worker)):
        for p in inspect.signature(fn).parameters.values():
            if p.kind is p.KEYWORD_ONLY or (label == "Client.worker" and p.name == "handler"):
                if f"{label}({p.name}=)" not in listed_kwargs:
                    missing.append(f"{label}({p.name}=)")
    assert (missing, extra, problems) == ([], [], [])


def test_dir_has_no_public_name_outside_all() -> None:
    public = {n for n in dir(jobwire) if not n.startswith("_") and not isinstance(getattr(jobwire, n), types.ModuleType)}
    assert public - set(jobwire.__all__) == set()


def test_star_import_shadows_no_builtin_or_asyncio_name() -> None:
    clash = {n for n in jobwire.__all__ if not n.startswith("__") and (hasattr(builtins, n) or n in asyncio.__all__)}
    assert clash == set()
    ns: dict = {}
    exec("from asyncio import *\nfrom jobwire import *", ns)  # noqa: S102
    assert ns["CancelledError"] is asyncio.CancelledError
