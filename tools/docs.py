#!/usr/bin/env python3
"""The API reference of every SDK (make docs; make test-docs is the same with a JUnit report).

Runs each SDK's own script, one after the other (2 cores: no gain from running them at once):

  node    sdk-node/scripts/docs.sh     TypeDoc       -> build/docs/node/
  java    sdk-java/scripts/docs.sh     Javadoc       -> build/docs/java/
  java-test  sdk-java-test/scripts/docs.sh  Javadoc of jobwire-test -> build/docs/java-test/
  java-spring  sdk-java-spring/scripts/docs.sh  Javadoc of jobwire-spring-boot-starter -> build/docs/java-spring/
  python  sdk-python/scripts/docs.sh   pdoc          -> build/docs/python/
  go      sdk-go/scripts/docs.sh       go doc -all   -> build/docs/go/

Each script fails on any warning of its tool, an undocumented public member or a broken link.
Usage: docs.py [--junit FILE] [--only node,java,...]   exit 1 when any failed
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# colour codes and other control characters (not allowed in XML)
CONTROL = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|[\x00-\x08\x0b\x0c\x0e-\x1f]")
SDKS = {
    "node": "sdk-node/scripts/docs.sh",
    "java": "sdk-java/scripts/docs.sh",
    "java-test": "sdk-java-test/scripts/docs.sh",
    "java-spring": "sdk-java-spring/scripts/docs.sh",
    "python": "sdk-python/scripts/docs.sh",
    "go": "sdk-go/scripts/docs.sh",
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--junit", type=Path, help="write JUnit XML here (one test per SDK)")
    ap.add_argument("--only", help="comma-separated SDKs (default: all)")
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else list(SDKS)
    suite = ET.Element("testsuite", name="docs")
    failed = 0
    t_all = time.monotonic()
    for name in names:
        t0 = time.monotonic()
        p = subprocess.run(["bash", str(ROOT / SDKS[name])], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env={**os.environ, "NO_COLOR": "1"})
        dt = time.monotonic() - t0
        out = CONTROL.sub("", p.stdout).strip()
        case = ET.SubElement(suite, "testcase", classname="docs", name=name, time=f"{dt:.1f}")
        if p.returncode != 0:
            failed += 1
            f = ET.SubElement(case, "failure", message=f"{SDKS[name]} exited {p.returncode}")
            f.text = out
            print(f"docs {name}: FAILED ({dt:.0f}s)\n{out}")
        else:
            print(f"docs {name}: ok ({dt:.0f}s) -> build/docs/{name}/")
    suite.set("tests", str(len(names)))
    suite.set("failures", str(failed))
    suite.set("time", f"{time.monotonic() - t_all:.1f}")
    if a.junit:
        a.junit.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suite).write(a.junit, encoding="utf-8", xml_declaration=True)
    print(f"docs: {len(names) - failed} passed, {failed} failed ({time.monotonic() - t_all:.0f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
