#!/usr/bin/env python3
"""Counts test results written by every suite into .test-results/.

Understands: `go test -json` streams (*.gojson), JUnit XML (*.xml: pytest,
Maven Surefire, jest-junit), and Jest JSON (*.jest.json). Prints one line per
suite and a closing `N passed, N failed, N skipped` line.

Usage: testsum.py DIR [SUITE]   (with SUITE, counts only files SUITE.* / SUITE/)
"""
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count_gojson(path):
    p = f = s = 0
    for line in path.read_text(errors="replace").splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not ev.get("Test"):
            continue
        a = ev.get("Action")
        if a == "pass":
            p += 1
        elif a == "fail":
            f += 1
        elif a == "skip":
            s += 1
    return p, f, s


def count_junit(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return 0, 1, 0
    p = f = s = 0
    for tc in root.iter("testcase"):
        if tc.find("failure") is not None or tc.find("error") is not None:
            f += 1
        elif tc.find("skipped") is not None:
            s += 1
        else:
            p += 1
    return p, f, s


def count_jest(path):
    d = json.loads(path.read_text())
    return d.get("numPassedTests", 0), d.get("numFailedTests", 0), d.get("numPendingTests", 0) + d.get("numTodoTests", 0)


def count_file(path):
    name = path.name
    if name.endswith(".gojson"):
        return count_gojson(path)
    if name.endswith(".jest.json"):
        return count_jest(path)
    if name.endswith(".xml"):
        return count_junit(path)
    return 0, 0, 0


def suite_counts(d: Path, suite: str):
    tot = [0, 0, 0]
    files = list(d.glob(f"{suite}.*"))
    if (d / suite).is_dir():
        files += [x for x in (d / suite).rglob("*") if x.is_file()]
    for x in files:
        for i, v in enumerate(count_file(x)):
            tot[i] += v
    return tot


def main():
    d = Path(sys.argv[1])
    if len(sys.argv) > 2:
        p, f, s = suite_counts(d, sys.argv[2])
        print(f"{p} {f} {s}")
        return
    raise SystemExit("usage: testsum.py DIR SUITE")


if __name__ == "__main__":
    main()
