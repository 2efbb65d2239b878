#!/usr/bin/env python3
"""The runnable blocks of a documentation page (the getting-started pages).

A fenced code block is marked by an HTML comment on the line right before its
opening fence (invisible in rendered Markdown):

  <!-- test: file PATH -->  the block is a file; write it to PATH in the project folder
  <!-- test: shell -->      commands, run in order in the project folder (one shell
                            session: `cd`, `export` and `. .venv/bin/activate` carry on)
  <!-- test: engine -->     one command that starts the engine and keeps running
  <!-- test: worker -->     one command that starts the worker and keeps running until
                            SIGTERM or Ctrl-C
  <!-- test: parse -->      not run, but must parse (python, xml, js, go, json)
  <!-- test: skip REASON -->  not run and not parsed, for the REASON given

tools/release/test_getting_started.py runs the pages' blocks as a newcomer
would; every fenced block of those pages carries a mark.

Usage: docpages.py PAGE      lists the blocks of PAGE with their marks
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

KINDS = ("file", "shell", "engine", "worker", "parse", "skip")
MARK = re.compile(r"^<!--\s*test:\s*(\S+)\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")


@dataclass
class Block:
    line: int          # 1-based line of the opening fence
    lang: str          # the fence's info string ("" if none)
    text: str          # the block's content, ending with a newline
    kind: str | None   # the mark's kind, None for an unmarked block
    arg: str           # the mark's argument (file path, skip reason), "" if none

    def commands(self) -> list[str]:
        """The block's command lines, without blank lines and comments."""
        out = []
        for ln in self.text.splitlines():
            ln = ln.strip()
            if ln and not ln.startswith("#"):
                out.append(ln)
        return out


class PageError(ValueError):
    pass


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the page, with its mark (if any). Raises PageError on
    a mark that is not right before a fence, an unknown kind, a file or skip mark
    without its argument, or an unclosed fence."""
    lines = Path(path).read_text().splitlines()
    out: list[Block] = []
    i = 0
    pending: tuple[str, str, int] | None = None
    while i < len(lines):
        ln = lines[i]
        m = MARK.match(ln.strip())
        if m:
            kind, arg = m[1], m[2]
            if kind not in KINDS:
                raise PageError(f"{path}:{i + 1}: unknown mark kind {kind!r} (one of {', '.join(KINDS)})")
            if kind in ("file", "skip") and not arg:
                raise PageError(f"{path}:{i + 1}: `test: {kind}` needs {'a path' if kind == 'file' else 'a reason'}")
            if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
                raise PageError(f"{path}:{i + 1}: a test mark must be right before a code fence")
            pending = (kind, arg, i + 1)
            i += 1
            continue
        f = FENCE.match(ln)
        if f:
            fence, lang = f[1], f[2]
            body = []
            j = i + 1
            while j < len(lines) and not lines[j].startswith(fence[0] * len(fence)):
                body.append(lines[j])
                j += 1
            if j >= len(lines):
                raise PageError(f"{path}:{i + 1}: unclosed code fence")
            kind, arg = (pending[0], pending[1]) if pending else (None, "")
            out.append(Block(line=i + 1, lang=lang, text="\n".join(body) + "\n", kind=kind, arg=arg))
            pending = None
            i = j + 1
            continue
        i += 1
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        for b in blocks(Path(argv[1])):
            print(f"{b.line:5d}  {b.kind or 'UNMARKED':7s} {b.arg:32s} {b.lang}")
    except PageError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
