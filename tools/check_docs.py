#!/usr/bin/env python3
"""User docs are for users: no commit hashes and no references to our issues.

Reads the user pages (docs/*.md, the README at the root and of every SDK, every
example's README) and fails on:
- a commit hash: a word of 7 to 40 hex digits with at least one letter and one
  digit (not part of a longer word or a dashed name: Go pseudo-versions and
  generated names pass);
- a reference to one of our issues: "issue 12", "issue #12", "issues 3, 5",
  "(#12)", "item 4 of issue ...";
- a broken relative link: a Markdown link or link definition whose target file
  (relative to the page) does not exist, or whose #anchor names no heading of
  the target page (GitHub's heading ids). Web links are not fetched.
Measurements, issue numbers and hashes belong in engineering pages (engine
STATUS, sdk-*/MEASUREMENTS.md, bench results, conformance-tests/*.md).

Usage: check_docs.py [FILE ...]   exit 0 clean, 1 with findings
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HASH = re.compile(r"(?<![\w\-./@])(?=(?:[0-9]*[a-f]){2})(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w\-])")
ISSUE = re.compile(r"\bissues?\s+#?\d+\b|\(#\d+\)|(?<![\w/])#\d{1,4}\b", re.I)
# upstream projects' issues and PRs are facts users may follow: "camunda/camunda #4700", "pyzeebe #667"
UPSTREAM = re.compile(r"(?:\b[\w.-]+/[\w.-]+|\bpyzeebe|\bspring-zeebe|\bzeebe-[\w-]+|\bcamunda-[\w-]+)\s+(#\d+(?:,\s*#\d+)*)",
                      re.I)
# [text](target), ![alt](target), and link definitions "[name]: target"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)")
INLINE_CODE = re.compile(r"`[^`]*`")


def anchors(page: Path) -> set[str]:
    """GitHub's ids of a Markdown page's headings: lower case, punctuation dropped, spaces to
    dashes, "-1", "-2" ... for repeats."""
    seen: dict[str, int] = {}
    out = set()
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link in a heading: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(path: Path, line: str) -> list[str]:
    """The relative links of one line of path whose target or anchor does not exist."""
    out = []
    for m in LINK.finditer(INLINE_CODE.sub("", line)):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            out.append(f"broken link: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
            out.append(f"broken link: {target} (no such heading)")
    return out


def user_pages() -> list[Path]:
    files = subprocess.run(["git", "ls-files", "docs/*.md", "README.md", "sdk-*/README.md", "examples/**/README.md",
                            "examples/README.md"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / f for f in files]


def findings(path: Path) -> list[str]:
    out = []
    in_code = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        for m in HASH.finditer(line):
            out.append(f"{path.relative_to(ROOT)}:{n}: looks like a commit hash: {m.group(0)}")
        if in_code:
            continue
        for b in broken_links(path, line):
            out.append(f"{path.relative_to(ROOT)}:{n}: {b}")
        upstream_spans = [m.span(1) for m in UPSTREAM.finditer(line)]
        for m in ISSUE.finditer(line):
            if any(a <= m.start() < b for a, b in upstream_spans):
                continue
            out.append(f"{path.relative_to(ROOT)}:{n}: refers to an issue: {m.group(0)!r}")
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or user_pages()
    bad = [f for p in paths for f in findings(p)]
    for b in bad:
        print(b)
    print(f"check_docs: {len(paths)} user pages, {len(bad)} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
