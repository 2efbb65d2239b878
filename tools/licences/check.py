#!/usr/bin/env python3
"""Licence check of every dependency tree in the repository.

Lists each tree's packages and licences with a maintained tool, normalises each licence to SPDX
and checks it against tools/licences/policy.yaml:

  Go modules     every go.mod             go-licenses report --include_tests (.tools/bin)
  npm trees      every package.json       license-checker-rseidelsohn (tools/node_modules)
  Python envs    policy python_environments  pip-licenses --python <venv> (.tools/venv)
  Maven trees    every pom.xml            org.codehaus.mojo:license-maven-plugin add-third-party
                                          (test scope included)

A tree that is not installed yet is installed the way its suite does it (npm ci, a venv from its
requirements, mvn install of sdk-java for the poms that use it). A vendor-terms licence (Zeebe
Community License, Camunda License, BSL, SSPL, Elastic License, Commons Clause) or an unknown one
is a violation; the message names the package, its licence and the tree that pulls it in.

  check.py                  check every tree, write .test-results/licences/, exit 1 on a violation
  check.py --docs           also write docs/licences.md (`make licences`)
  check.py --tree sdk-node  only the named trees (repeatable)
  check.py --pom FILE       check only this pom.xml (anywhere) as a tree of its own (repeatable)
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
POLICY = HERE / "policy.yaml"
# Pinned tools: go-licenses and pip-licenses / license-checker-rseidelsohn are pinned in
# tools/bootstrap.sh, tools/requirements.txt and tools/package.json; the Maven plugin here.
LICENSE_MAVEN_PLUGIN = "org.codehaus.mojo:license-maven-plugin:2.5.0"
GO_LICENSES = ROOT / ".tools" / "bin" / "go-licenses"
LICENSE_CHECKER = ROOT / "tools" / "node_modules" / ".bin" / "license-checker-rseidelsohn"
PIP_LICENSES = ROOT / ".tools" / "venv" / "bin" / "pip-licenses"
MAVEN_TEMPLATE = HERE / "maven-third-party.ftl"
NPM_ENV = {"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}

RANK = {"vendor": 0, "unknown": 1, "not-allowed": 2, "accepted": 3, "allowed": 4}


@dataclasses.dataclass
class Tree:
    ecosystem: str  # go | npm | python | maven
    name: str       # e.g. "sdk-node", "bench/drivers/java"
    path: Path      # the folder (Python: the venv)
    files: list = dataclasses.field(default_factory=list)  # Python: the files it installs from

    @property
    def id(self) -> str:
        return f"{self.ecosystem}:{self.name}"


@dataclasses.dataclass
class Package:
    name: str
    version: str
    reported: str          # the licence as the tool reported it
    spdx: str = ""         # normalised expression
    status: str = ""       # allowed | accepted | not-allowed | unknown | vendor
    note: str = ""         # override / acceptance reason


class ToolError(RuntimeError):
    pass


def load_policy(path: Path = POLICY) -> dict:
    with open(path) as f:
        p = yaml.safe_load(f)
    p["_allowed"] = set(p["allowed"])
    p["_known"] = set(p["allowed"]) | set(p.get("known_not_allowed", [])) | set(p["aliases"].values())
    p["_vendor"] = [(v["id"], re.compile(v["pattern"], re.I)) for v in p["vendor_terms"]]
    p["_aliases"] = {_key(k): v for k, v in p["aliases"].items()}
    p["_spdx_ci"] = {s.lower(): s for s in p["_known"]}
    return p


def _key(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().strip("*").strip()).lower()


# --- normalisation ---------------------------------------------------------------------------

def _leaf(text: str, policy: dict) -> tuple[str, str]:
    """One licence name -> (spdx id or text, status before per-package acceptance)."""
    t = _strip_parens(text)
    t = re.sub(r"\s+WITH\s+.*$", "", t)  # an exception only adds permissions
    t = t.rstrip("*").strip()            # license-checker marks a licence guessed from a file with *
    for vid, rx in policy["_vendor"]:
        if rx.search(t):
            return vid, "vendor"
    k = _key(t)
    if k in policy["_spdx_ci"]:
        s = policy["_spdx_ci"][k]
    elif k in policy["_aliases"]:
        s = policy["_aliases"][k]
    else:
        return t or "UNKNOWN", "unknown"
    return s, ("allowed" if s in policy["_allowed"] else "not-allowed")


def _split(expr: str, op: str) -> list[str] | None:
    """Split expr on a top-level operator regex (outside parentheses); None when it has none."""
    parts, depth, cur, i = [], 0, "", 0
    pat = re.compile(op)
    while i < len(expr):
        c = expr[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if depth == 0:
            m = pat.match(expr, i)
            if m:
                parts.append(cur)
                cur = ""
                i = m.end()
                continue
        cur += c
        i += 1
    parts.append(cur)
    return parts if len(parts) > 1 else None


def _strip_parens(e: str) -> str:
    e = e.strip()
    while e.startswith("(") and e.endswith(")"):
        depth = 0
        for i, c in enumerate(e):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(e) - 1:
                return e
        e = e[1:-1].strip()
    return e


def evaluate(reported: str, policy: dict, accept: set[str] = frozenset()) -> tuple[str, str]:
    """A reported licence (a name, an SPDX expression, or a list joined with | or ;) ->
    (normalised SPDX expression, status). OR takes the best alternative, AND the worst part."""
    expr = _strip_parens(reported or "")
    if not expr or _key(expr) in ("unknown", "unknown license", "unlicensed", "none", "custom"):
        return "UNKNOWN", "unknown"
    # vendor terms anywhere fail, even as one alternative of a choice or as a WITH clause
    for vid, rx in policy["_vendor"]:
        if rx.search(expr):
            return vid, "vendor"
    # the whole string may be one known name (with commas, "and", ...)
    whole = _leaf(expr, policy)
    if whole[1] != "unknown":
        return _accept(whole, accept)
    for op, best in ((r"\s+OR\s+", True), (r"\s*\|\s*", True), (r"\s+AND\s+", False), (r"\s*;\s*", False)):
        parts = _split(expr, op)
        if parts:
            res = [evaluate(p, policy, accept) for p in parts]
            pick = (max if best else min)(res, key=lambda r: RANK[r[1]])
            joiner = " OR " if best else " AND "
            text = joiner.join(f"({r[0]})" if (" OR " in r[0] or " AND " in r[0]) else r[0] for r in res)
            return text, pick[1]
    return _accept(whole, accept)


def _accept(leaf: tuple[str, str], accept: set[str]) -> tuple[str, str]:
    s, st = leaf
    if st in ("not-allowed", "unknown") and s in accept:
        return s, "accepted"
    return s, st


def is_own(tree: Tree, name: str, policy: dict) -> bool:
    return any(name.startswith(p) or name == p.rstrip(":") for p in policy["own"].get(tree.ecosystem, []))


def judge(tree: Tree, pkgs: list[Package], policy: dict) -> list[Package]:
    overrides = {(o["ecosystem"], o["package"]): o for o in policy.get("overrides", [])}
    accepted = {(a["ecosystem"], a["package"]): a for a in policy.get("accepted", [])}
    out = []
    for p in pkgs:
        if is_own(tree, p.name, policy):
            continue
        o = next((o for (e, n), o in overrides.items() if e == tree.ecosystem and
                  (p.name == n or (tree.ecosystem == "go" and p.name.startswith(n + "/")))), None)
        a = accepted.get((tree.ecosystem, p.name))
        reported = o["licence"] if o else p.reported
        p.spdx, p.status = evaluate(reported, policy, set(a["licences"]) if a else set())
        if o:
            p.note = f"override (reported: {p.reported or 'nothing'}): {o['reason']} {o.get('url', '')}".strip()
        elif p.status == "accepted":
            p.note = f"accepted: {a['reason']}"
        out.append(p)
    return sorted(out, key=lambda p: (p.name.lower(), p.version))


def violations(tree: Tree, pkgs: list[Package]) -> list[str]:
    why = {"vendor": "vendor terms (not open source)", "unknown": "unknown licence",
           "not-allowed": "not on the allow list of OSI licences"}
    return [f"{tree.id}: {p.name} {p.version} is licensed '{p.reported or 'nothing reported'}' -> {p.spdx}: "
            f"{why[p.status]} (pulled in by {tree.name})"
            for p in pkgs if p.status in why]


# --- discovery -------------------------------------------------------------------------------

def _tracked(pattern: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--", pattern], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def _excluded(path: Path, policy: dict) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == e or rel.startswith(e + "/") or f"/{e}/" in f"/{rel}" for e in policy["exclude_paths"])


def discover(policy: dict) -> list[Tree]:
    trees = []
    for eco, pattern in (("go", "*go.mod"), ("npm", "*package.json"), ("maven", "*pom.xml")):
        for f in _tracked(pattern):
            if f.name != {"go": "go.mod", "npm": "package.json", "maven": "pom.xml"}[eco] or _excluded(f, policy):
                continue
            d = f.parent
            trees.append(Tree(eco, d.relative_to(ROOT).as_posix() or ".", d))
    for env in policy["python_environments"]:
        trees.append(Tree("python", env["name"], ROOT / env["venv"], env["files"]))
    return trees


def uncovered_python_files(policy: dict) -> list[str]:
    covered = {f for env in policy["python_environments"] for f in env["files"]}
    found = set()
    for pat in ("*requirements*.txt", "*requirements*.lock", "*pyproject.toml"):
        found |= {p.relative_to(ROOT).as_posix() for p in _tracked(pat) if not _excluded(p, policy)
                  and re.fullmatch(r"requirements[\w.-]*\.(txt|lock)|pyproject\.toml", p.name)}
    return sorted(found - covered)


# --- listing ---------------------------------------------------------------------------------

def _run(cmd, cwd, env=None, what=""):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if r.returncode != 0:
        raise ToolError(f"{what or cmd[0]} failed in {cwd} (exit {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def _go_no_requires(d: Path) -> bool:
    """Whether the go.mod in d has no require directive: the module uses the standard library only."""
    return re.search(r"^require\b", (d / "go.mod").read_text(), re.M) is None


def _go_module(d: Path) -> str:
    m = re.search(r"^module\s+(\S+)", (d / "go.mod").read_text(), re.M)
    return m.group(1) if m else ""


def list_go(tree: Tree, policy: dict) -> list[Package]:
    tpl = tempfile.NamedTemporaryFile("w", suffix=".tpl", delete=False)
    tpl.write("{{range .}}{{.Name}}\t{{.Version}}\t{{.LicenseName}}\n{{end}}")
    tpl.close()
    ignore = sorted(set(policy["own"]["go"]) | {_go_module(tree.path)})
    try:
        r = _run([str(GO_LICENSES), "report", "--include_tests", f"--template={tpl.name}",
                  *[f"--ignore={i}" for i in ignore], "./..."], tree.path, what="go-licenses")
    finally:
        os.unlink(tpl.name)
    pkgs: dict[str, Package] = {}
    for line in r.stdout.splitlines():
        if not line.strip():
            continue
        name, version, lic = (line.split("\t") + ["", ""])[:3]
        lic = "" if lic == "Unknown" else lic
        pkgs[name] = Package(name, version if version not in ("", "Unknown") else "", lic)
    return list(pkgs.values())


def list_npm(tree: Tree, policy: dict) -> list[Package]:
    d = tree.path
    if (d / "package-lock.json").exists() and not (d / "node_modules" / ".package-lock.json").exists():
        _run(["npm", "ci", "--loglevel=error"], d, NPM_ENV, "npm ci")
    r = _run([str(LICENSE_CHECKER), "--start", str(d), "--json", "--excludePrivatePackages"], d,
             what="license-checker-rseidelsohn")
    data = json.loads(r.stdout or "{}")
    pkgs = []
    for key, info in data.items():
        name, _, version = key.rpartition("@")
        lic = info.get("licenses", "")
        if isinstance(lic, list):
            lic = " AND ".join(lic)
        pkgs.append(Package(name, version, lic))
    return pkgs


def ensure_venv(tree: Tree) -> None:
    py = tree.path / "bin" / "python"
    if py.exists():
        return
    _run(["python3", "-m", "venv", str(tree.path)], ROOT, what="venv")
    for f in tree.files:
        if f.endswith(".toml"):
            continue  # the project itself (ours); its dependencies are in the requirements
        _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(ROOT / f)],
             ROOT, what="pip install")


def list_python(tree: Tree, policy: dict) -> list[Package]:
    ensure_venv(tree)
    r = _run([str(PIP_LICENSES), f"--python={tree.path / 'bin' / 'python'}", "--format=json", "--from=mixed"],
             ROOT, what="pip-licenses")
    return [Package(p["Name"], p["Version"], "" if p["License"] == "UNKNOWN" else p["License"])
            for p in json.loads(r.stdout)]


def _maven_sdk_installed(artifact: str = "jobwire-sdk") -> bool:
    repo = Path(os.environ.get("HOME", "~")).expanduser() / ".m2" / "repository" / "io" / "jobwire" / artifact
    return any(repo.glob(f"*/{artifact}-*.jar"))


# our artifacts a pom may use besides the SDK, and the folder each is installed from (after the SDK)
OWN_MAVEN = {"jobwire-engine": "packaging/engine/java", "jobwire-test": "sdk-java-test",
             "jobwire-spring-boot-starter": "sdk-java-spring"}


def list_maven(tree: Tree, policy: dict, pom: Path | None = None) -> list[Package]:
    pom = pom or tree.path / "pom.xml"
    text = pom.read_text()
    uses_sdk = re.search(r"<dependency>\s*<groupId>io\.jobwire</groupId>\s*<artifactId>jobwire-sdk</artifactId>", text)
    own = [a for a in OWN_MAVEN if re.search(rf"<groupId>io\.jobwire</groupId>\s*<artifactId>{a}</artifactId>", text)]
    if "jobwire-test" in own and "jobwire-engine" not in own:
        own.insert(0, "jobwire-engine")  # the test kit depends on the engine's API
    if (uses_sdk or own) and not _maven_sdk_installed():
        # as the conformance and bench drivers do: the SDK into ~/.m2 first
        _run(["mvn", "-B", "-q", "install", "-DskipTests", "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true"],
             ROOT / "sdk-java", what="mvn install (sdk-java)")
    for a in own:  # then the test kit / engine API / starter the pom uses, when not installed yet
        if not _maven_sdk_installed(a):
            _run(["mvn", "-B", "-q", "install", "-DskipTests", "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true"],
                 ROOT / OWN_MAVEN[a], what=f"mvn install ({OWN_MAVEN[a]})")
    with tempfile.TemporaryDirectory() as out:
        _run(["mvn", "-B", "-q", "-f", str(pom), f"{LICENSE_MAVEN_PLUGIN}:add-third-party",
              f"-Dlicense.outputDirectory={out}", "-Dlicense.thirdPartyFilename=third-party.tsv",
              f"-Dlicense.fileTemplate={MAVEN_TEMPLATE}", "-Dlicense.excludedScopes=system",
              "-Dlicense.useMissingFile=false", "-Dlicense.unknownLicenseMessage=UNKNOWN"],
             pom.parent, what="license-maven-plugin")
        f = Path(out) / "third-party.tsv"
        lines = f.read_text().splitlines() if f.exists() else []
    pkgs = []
    for line in lines:
        cols = line.split("\t")
        if len(cols) < 4:
            continue
        g, a, v, lic = cols[:4]
        pkgs.append(Package(f"{g}:{a}", v, "" if lic.strip() in ("", "UNKNOWN") else lic.strip()))
    return pkgs


LISTERS = {"go": list_go, "npm": list_npm, "python": list_python, "maven": list_maven}


def check_tree(tree: Tree, policy: dict) -> tuple[list[Package], list[str]]:
    pkgs = judge(tree, LISTERS[tree.ecosystem](tree, policy), policy)
    if not pkgs and tree.ecosystem != "npm" and not (tree.ecosystem == "go" and _go_no_requires(tree.path)):
        # an npm tree may have no third-party package (tools' own package.json always has some), and
        # so may a Go module whose go.mod requires nothing (standard library only)
        raise ToolError(f"{tree.id}: the tool listed no package (is the tree installed?)")
    return pkgs, violations(tree, pkgs)


# --- output ----------------------------------------------------------------------------------

def write_report(results: dict, out_dir: Path, elapsed: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {tid: {"seconds": round(elapsed.get(tid, 0), 1),
                  "error": r.get("error"), "violations": r.get("violations", []),
                  "packages": [dataclasses.asdict(p) for p in r.get("packages", [])]}
            for tid, r in results.items()}
    (out_dir / "report.json").write_text(json.dumps(data, indent=1) + "\n")


def render_docs(trees: list[Tree], results: dict, policy: dict) -> str:
    L = ["# Third-party licences", "",
         "Generated by `make licences` (tools/licences/check.py) from the installed dependency trees; "
         "CI runs the same check (`make test-licences`) and fails on a violation. Do not edit by hand.", "",
         "jobwire itself is licensed under the Apache License 2.0 (LICENSE, NOTICE).", "",
         "## Policy", "",
         "Every package of every tree (Go modules, npm trees, Python environments, Maven trees with test scope) "
         "is listed by a maintained tool and its licence normalised to SPDX:", "",
         "| ecosystem | tool |", "| --- | --- |",
         "| Go | go-licenses (`report --include_tests`) |",
         "| npm | license-checker-rseidelsohn |",
         "| Python | pip-licenses |",
         f"| Maven | {LICENSE_MAVEN_PLUGIN.rsplit(':', 1)[0]} (`add-third-party`) |", "",
         "Allowed (OSI-approved): " + ", ".join(f"`{a}`" for a in policy["allowed"]) + ".", "",
         "Always refused (vendor terms): Zeebe Community License, Camunda License, Business Source License (BSL/BUSL), "
         "SSPL, Elastic License, Commons Clause. An unknown licence fails as well.", ""]
    if policy.get("overrides"):
        L += ["Corrections where a tool reports a licence vaguely or not at all:", "",
              "| package | licence | reason |", "| --- | --- | --- |"]
        L += [f"| {o['ecosystem']}: {o['package']} | {o['licence']} | {o['reason']} ({o.get('url', '')}) |"
              for o in policy["overrides"]]
        L.append("")
    if policy.get("accepted"):
        L += ["Accepted for one package only (recognised, not OSI-approved, not vendor terms):", "",
              "| package | licence | reason |", "| --- | --- | --- |"]
        L += [f"| {a['ecosystem']}: {a['package']} | {', '.join(a['licences'])} | {a['reason']} |"
              for a in policy["accepted"]]
        L.append("")
    L += ["## Summary", "", "| tree | packages | licences |", "| --- | --- | --- |"]
    for t in trees:
        r = results.get(t.id, {})
        pk = r.get("packages", [])
        counts: dict[str, int] = {}
        for p in pk:
            counts[p.spdx] = counts.get(p.spdx, 0) + 1
        summ = ", ".join(f"{k} ({v})" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        L.append(f"| {t.id} | {len(pk)} | {summ or r.get('error', '')} |")
    L.append("")
    seen: dict = {}
    for t in trees:
        r = results.get(t.id, {})
        L += [f"## {t.id}", ""]
        if t.ecosystem == "python":
            L += [f"Python environment `{t.path.relative_to(ROOT).as_posix()}` from " +
                  ", ".join(f"`{f}`" for f in t.files) + ".", ""]
        if r.get("error"):
            L += [f"Not listed: {r['error'].splitlines()[0]}", ""]
            continue
        if not r.get("packages"):
            L += ["No third-party packages.", ""]
            continue
        key = tuple((p.name, p.version, p.spdx) for p in r["packages"])
        if key in seen:
            L += [f"The same {len(key)} packages as {seen[key]}.", ""]
            continue
        seen[key] = t.id
        L += ["| package | version | licence |", "| --- | --- | --- |"]
        for p in r["packages"]:
            lic = p.spdx + (" (accepted)" if p.status == "accepted" else "") + (" (corrected)" if p.note.startswith("override") else "")
            L.append(f"| {p.name} | {p.version} | {lic} |")
        L.append("")
    return "\n".join(L)


def junit(results: dict, elapsed: dict, path: Path) -> None:
    from xml.sax.saxutils import escape, quoteattr
    cases = []
    for tid, r in results.items():
        body = ""
        if r.get("error"):
            body = f"<error message={quoteattr(r['error'].splitlines()[0][:200])}>{escape(r['error'])}</error>"
        elif r.get("violations"):
            body = f"<failure message={quoteattr(r['violations'][0][:300])}>{escape(chr(10).join(r['violations']))}</failure>"
        cases.append(f'  <testcase classname="licences" name={quoteattr(tid)} time="{elapsed.get(tid, 0):.1f}">{body}</testcase>')
    nf = sum(1 for r in results.values() if r.get("violations"))
    ne = sum(1 for r in results.values() if r.get("error"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="licences" tests="{len(cases)}" '
                    f'failures="{nf}" errors="{ne}">\n' + "\n".join(cases) + "\n</testsuite>\n")


def run(trees: list[Tree], policy: dict, log=print) -> tuple[dict, dict]:
    results, elapsed = {}, {}
    for t in trees:
        t0 = time.monotonic()
        try:
            pkgs, bad = check_tree(t, policy)
            results[t.id] = {"packages": pkgs, "violations": bad}
        except (ToolError, OSError, ValueError) as e:
            results[t.id] = {"error": str(e)}
        elapsed[t.id] = time.monotonic() - t0
        r = results[t.id]
        status = "ERROR" if r.get("error") else ("FAIL" if r["violations"] else "ok")
        log(f"licences: {t.id:45s} {len(r.get('packages', [])):4d} packages  {status}  {elapsed[t.id]:.1f}s")
        for v in r.get("violations", []):
            log(f"  VIOLATION {v}")
        if r.get("error"):
            log("  " + r["error"].replace("\n", "\n  "))
    return results, elapsed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", help="only this tree (name or ecosystem:name)")
    ap.add_argument("--pom", action="append", default=[], help="an extra pom.xml to check as a tree")
    ap.add_argument("--docs", action="store_true", help="write docs/licences.md")
    ap.add_argument("--junit", type=Path, help="write JUnit XML here (one test per tree)")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("RESULTS", ROOT / ".test-results")) / "licences")
    a = ap.parse_args(argv)
    policy = load_policy()
    trees = discover(policy)
    if a.tree:
        trees = [t for t in trees if t.name in a.tree or t.id in a.tree]
    elif a.pom:
        trees = []  # only the extra poms
    trees += [Tree("maven", f"extra:{p}", Path(p).resolve().parent) for p in a.pom]
    bad_files = uncovered_python_files(policy)
    if bad_files:
        print("licences: Python requirement files not covered by policy.yaml python_environments: " + ", ".join(bad_files))
    t0 = time.monotonic()
    results, elapsed = run(trees, policy)
    write_report(results, a.out, elapsed)
    if a.junit:
        junit(results, elapsed, a.junit)
    if a.docs:
        (ROOT / "docs" / "licences.md").write_text(render_docs(trees, results, policy))
    nv = sum(len(r.get("violations", [])) for r in results.values())
    ne = sum(1 for r in results.values() if r.get("error"))
    print(f"licences: {len(trees)} trees, {sum(len(r.get('packages', [])) for r in results.values())} packages, "
          f"{nv} violations, {ne} errors, {time.monotonic() - t0:.0f}s; report: {a.out / 'report.json'}")
    return 1 if (nv or ne or bad_files) else 0


if __name__ == "__main__":
    sys.exit(main())
