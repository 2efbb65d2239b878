#!/usr/bin/env python3
"""One version for every jobwire package: the VERSION file at the root.

    version.py --check      fails when a package carries another version
    version.py --set 0.2.0  writes the version into VERSION and every package

The places: sdk-node/package.json, sdk-python/src/jobwire/__init__.py
(__version__), sdk-java/pom.xml (the project's own version), sdk-go/client.go
(const Version), the SDK and engine versions the Go test kit requires
(sdk-go/jobwiretest/go.mod), and the POMs that depend on the Java SDK (root aggregator,
examples, conformance and bench drivers).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (file, regex whose group 1 is the version)
PLACES = [
    ("sdk-node/package.json", r'^  "version": "([^"]+)"'),
    ("sdk-node-nestjs/package.json", r'^  "version": "([^"]+)"'),
    ("sdk-node-nestjs/package.json", r'^    "@jobwire/sdk": "\^([^"]+)"'),
    ("sdk-python/src/jobwire/__init__.py", r'^__version__ = "([^"]+)"'),
    ("sdk-go/client.go", r'^const Version = "([^"]+)"'),
    # the Go test kit requires the SDK and the engine of its own release
    ("sdk-go/jobwiretest/go.mod", r'^\tgithub\.com/jobwire/jobwire/sdk-go v(\S+)$'),
    ("sdk-go/jobwiretest/go.mod", r'^\tgithub\.com/jobwire/jobwire/engine-reference v(\S+)$'),
    ("sdk-java/pom.xml", r'<artifactId>jobwire-sdk</artifactId>\s*<version>([^<]+)</version>'),
    ("sdk-java-test/pom.xml", r'<artifactId>jobwire-test</artifactId>\s*<version>([^<]+)</version>'),
    ("sdk-java-spring/pom.xml", r'<artifactId>jobwire-spring-boot-starter</artifactId>\s*<version>([^<]+)</version>'),
    ("packaging/engine/java/pom.xml", r'<artifactId>jobwire-engine</artifactId>\s*<version>([^<]+)</version>'),
    ("pom.xml", r'<artifactId>jobwire-build</artifactId>\s*<version>([^<]+)</version>'),
    ("examples/java/pom.xml", r'<artifactId>jobwire-sdk</artifactId>\s*<version>([^<]+)</version>'),
    ("conformance-tests/drivers/java/pom.xml", r'<artifactId>jobwire-sdk</artifactId>\s*<version>([^<]+)</version>'),
    ("bench/drivers/java/pom.xml", r'<artifactId>jobwire-sdk</artifactId>\s*<version>([^<]+)</version>'),
]


def found(rel: str, rx: str) -> tuple[str, re.Match | None]:
    text = (ROOT / rel).read_text(encoding="utf-8")
    return text, re.search(rx, text, re.M)


def check(want: str) -> list[str]:
    bad = []
    for rel, rx in PLACES:
        _, m = found(rel, rx)
        if not m:
            bad.append(f"{rel}: no version found (pattern {rx!r})")
        elif m.group(1) != want:
            bad.append(f"{rel}: {m.group(1)} (VERSION says {want})")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true")
    g.add_argument("--set")
    a = ap.parse_args()
    if a.set:
        if not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", a.set):
            print(f"version.py: {a.set!r} is not a semantic version", file=sys.stderr)
            return 2
        (ROOT / "VERSION").write_text(a.set + "\n")
        for rel, rx in PLACES:
            text, m = found(rel, rx)
            if m:
                (ROOT / rel).write_text(text[: m.start(1)] + a.set + text[m.end(1):], encoding="utf-8")
    want = (ROOT / "VERSION").read_text().strip()
    bad = check(want)
    for b in bad:
        print("version.py:", b, file=sys.stderr)
    if not bad:
        print(f"version {want}: every package agrees")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
