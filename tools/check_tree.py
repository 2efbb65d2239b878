#!/usr/bin/env python3
"""Only sources in git: fails when a tracked file is an executable binary or a build output.

Checks every file `git ls-files` lists (or the paths given on the command line):

- content: native executables and libraries (ELF, Mach-O, PE/COFF, WebAssembly), Java class
  files, compiled Python (.pyc magic is covered by the name rule);
- names: compiled or packed outputs (*.class, *.jar, *.war, *.whl, *.tgz, *.so, *.dylib, *.dll,
  *.exe, *.o, *.a, *.pyc, *.test) and anything under a build-output folder (node_modules/,
  target/, dist/, build/, __pycache__/, .venv/, bin/ of a Go module or tool);
- size: a tracked file over 2 MiB (a generated artefact or a capture rather than a source).

Every finding names the file and why. Exceptions live in EXCEPTIONS below, each with its reason.

Usage: check_tree.py [--junit FILE] [--self-test] [--clean] [PATH ...]   exit 0 clean, 1 with findings
--self-test also proves the check catches a planted ELF binary, jar and node_modules file.
--clean also fails when `git status` is not clean: run last in `make test`, it proves the suites
wrote their outputs only to ignored folders.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

ROOT = Path(__file__).resolve().parents[1]
MAX_BYTES = 2 * 1024 * 1024

MAGIC = [
    (b"\x7fELF", "an ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O binary"),
    (b"\xce\xfa\xed\xfe", "a Mach-O binary"),
    (b"\xca\xfe\xba\xbe", "a Java class file or Mach-O universal binary"),
    (b"\x00asm", "a WebAssembly module"),
]
BUILD_SUFFIXES = (".class", ".jar", ".war", ".ear", ".whl", ".tgz", ".so", ".dylib", ".dll", ".exe",
                  ".o", ".obj", ".a", ".lib", ".pyc", ".pyo", ".test", ".egg")
BUILD_DIRS = {"node_modules", "target", "dist", "build", "__pycache__", ".venv", "venv", "bin",
              ".pytest_cache", ".gradle", ".mypy_cache", ".test-results", ".tools"}

# path -> why it may be tracked although a rule matches. Keep this empty unless a reviewer agrees.
EXCEPTIONS: dict[str, str] = {}


def _is_pe(head: bytes, path: Path) -> bool:
    if not head.startswith(b"MZ"):
        return False
    try:
        with open(path, "rb") as f:
            f.seek(0x3C)
            off = int.from_bytes(f.read(4), "little")
            if off <= 0 or off > 1 << 20:
                return False
            f.seek(off)
            return f.read(4) == b"PE\x00\x00"
    except OSError:
        return False


def findings_for(rel: str, path: Path) -> list[str]:
    if rel in EXCEPTIONS:
        return []
    out = []
    parts = rel.split("/")
    for d in parts[:-1]:
        if d in BUILD_DIRS:
            out.append(f"lies under a build-output folder '{d}/'")
            break
    if rel.endswith(BUILD_SUFFIXES):
        out.append(f"has a build-output suffix '{Path(rel).suffix}'")
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return out  # deleted in the work tree: git status shows that, not this check
    for magic, what in MAGIC:
        if head.startswith(magic):
            out.append(f"is {what} (magic bytes {magic.hex()})")
            break
    else:
        if _is_pe(head, path):
            out.append("is a Windows PE executable")
    if size > MAX_BYTES:
        out.append(f"is {size} bytes, over the {MAX_BYTES}-byte limit for a tracked source")
    return out


def tracked(root: Path) -> list[str]:
    r = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [p for p in r.stdout.decode().split("\0") if p]


def check(root: Path, paths: list[str]) -> dict[str, list[str]]:
    return {rel: f for rel in paths if (f := findings_for(rel, root / rel))}


def self_test() -> list[str]:
    """Plants an ELF binary, a jar and a node_modules file in a scratch repo; each must be caught."""
    errors = []
    with tempfile.TemporaryDirectory(prefix="jobwire-check-tree-") as tmp:
        t = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=t, check=True)
        (t / "src").mkdir()
        (t / "src" / "main.go").write_text("package main\n")
        with open(sys.executable, "rb") as f:  # a real ELF: the Python interpreter's first bytes
            (t / "proxy").write_bytes(f.read(4096))
        (t / "lib.jar").write_bytes(b"PK\x03\x04rest")
        (t / "node_modules" / "x").mkdir(parents=True)
        (t / "node_modules" / "x" / "index.js").write_text("1\n")
        subprocess.run(["git", "add", "-A"], cwd=t, check=True)
        got = check(t, tracked(t))
        for want in ("proxy", "lib.jar", "node_modules/x/index.js"):
            if want not in got:
                errors.append(f"self-test: planted {want} was not reported")
        if "src/main.go" in got:
            errors.append(f"self-test: a source file was reported: {got['src/main.go']}")
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--junit", help="write a JUnit XML report here")
    ap.add_argument("--self-test", action="store_true", help="also prove the check catches planted outputs")
    ap.add_argument("--clean", action="store_true", help="also fail when git status shows changed or "
                                                          "untracked files")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    paths = a.paths or tracked(ROOT)
    found = check(ROOT, paths)
    cases = [("tracked-files-are-sources", "\n".join(f"{p}: {'; '.join(w)}" for p, w in sorted(found.items())))]
    if a.clean:
        st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.strip()
        cases.append(("work-tree-clean-after-tests",
                      f"git status is not clean (a suite wrote outside ignored folders):\n{st}" if st else ""))
    if a.self_test:
        cases.append(("check-catches-planted-outputs", "\n".join(self_test())))
    for p, why in sorted(found.items()):
        print(f"tracked build output: {p} {'; '.join(why)} (remove it from git, or ignore its folder)",
              file=sys.stderr)
    for name, err in cases[1:]:
        if err:
            print(err, file=sys.stderr)
    if a.junit:
        os.makedirs(os.path.dirname(os.path.abspath(a.junit)), exist_ok=True)
        with open(a.junit, "w") as f:
            f.write(f'<testsuite name="tree" tests="{len(cases)}">\n')
            for name, err in cases:
                f.write(f'  <testcase classname="tree" name={quoteattr(name)}>')
                if err:
                    f.write(f'<failure message={quoteattr(err.splitlines()[0])}>{escape(err)}</failure>')
                f.write("</testcase>\n")
            f.write("</testsuite>\n")
    failed = any(err for _, err in cases)
    print(f"check_tree: {len(paths)} tracked files, {len(found)} build outputs; "
          + ", ".join(f"{n} {'FAILED' if e else 'ok'}" for n, e in cases[1:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
