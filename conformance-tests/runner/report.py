"""Writes the SDK x scenario matrix as Markdown and HTML."""
from __future__ import annotations

import html
import json
import sys
import time
from pathlib import Path

SYMBOL = {"passed": "passed", "failed": "FAILED", "skipped": "skipped", "expected-failure": "expected-failure"}


def _cell(r):
    s = SYMBOL.get(r["status"], r["status"])
    if r["status"] in ("skipped", "expected-failure", "failed") and r.get("reason"):
        s += f" ({r['reason']})"
    elif r["status"] == "passed" and r.get("reason"):
        s += f" ({r['reason']})"
    return s


def read_matrix_md(path: Path) -> tuple[str, dict]:
    """Reads a matrix.md this module wrote: (its "Generated ..." line, {(sdk, scenario): status})."""
    text = path.read_text()
    gen = next((ln for ln in text.splitlines() if ln.startswith("Generated ")), "")
    out, sdks = {}, None
    for ln in text.splitlines():
        if ln.startswith("| scenario |"):
            cols = [c.strip() for c in ln.strip("|").split("|")]
            sdks = cols[1::2]
        elif sdks and ln.startswith("| `"):
            cols = [c.strip() for c in ln.strip().strip("|").split(" | ")]
            sc = cols[0].strip("`")
            for i, sdk in enumerate(sdks):
                cell = cols[1 + 2 * i] if 1 + 2 * i < len(cols) else "—"
                status = cell.split(" (")[0].strip()
                out[(sdk, sc)] = {"FAILED": "failed"}.get(status, status)
    return gen, out


def _comparison(rows: list[dict], compare: Path) -> list[str]:
    """Scenario by scenario: where an official client (a column of `rows`) does not pass and the
    jobwire SDKs of `compare` (a matrix.md of `make conformance`) do."""
    gen, ref = read_matrix_md(compare)
    jw = sorted({sdk for sdk, _ in ref})
    peers = sorted({r["sdk"] for r in rows})
    by = {(r["sdk"], r["scenario"]): r for r in rows}
    md = ["", "## Where the official clients fail and jobwire passes", "",
          f"jobwire columns from `{compare.name}` of the reference-engine matrix ({gen.removeprefix('Generated ')}). "
          "A cell names the official client's outcome: *fails* (known-failing with the client's reason, or "
          "FAILED), *cannot* (skipped: the client cannot express the scenario). Scenarios every official "
          "client passes are not listed.", "",
          "| scenario | jobwire (" + ", ".join(jw) + ") | " + " | ".join(peers) + " |",
          "|---|---|" + "---|" * len(peers)]
    tally = {p: 0 for p in peers}
    for sc in sorted({r["scenario"] for r in rows}):
        jws = [ref.get((s, sc), "—") for s in jw]
        jcell = "all passed" if jws and all(x == "passed" for x in jws) else ", ".join(f"{s}: {x}" for s, x in zip(jw, jws))
        cells, any_bad = [], False
        for p in peers:
            r = by.get((p, sc))
            if r is None:
                cells.append("—")
                continue
            st = r["status"]
            if st == "passed":
                cells.append("passes")
                continue
            any_bad = True
            word = {"expected-failure": "fails", "failed": "FAILED", "skipped": "cannot"}.get(st, st)
            if st != "skipped" and all(x == "passed" for x in jws):
                tally[p] += 1
            cells.append(f"{word}: {r.get('reason', '')}".replace("|", "\\|").replace("\n", " "))
        if any_bad:
            md.append(f"| `{sc}` | {jcell} | " + " | ".join(cells) + " |")
    md += ["", "Scenarios an official client runs and fails while every jobwire SDK passes: " +
           ", ".join(f"{p} {n}" for p, n in tally.items()) + "."]
    return md


def write(out: Path, rows: list[dict], target: str, wall: float, compare: Path | str | None = None,
          extra: dict | None = None, name: str = "matrix"):
    """Writes <name>.md, <name>.json and <name>.html into out. extra (an external gateway's run):
    {"gateway": its description (never a secret), "run_id": the prefix of every name the run
    created, "capabilities": what the target offers}."""
    extra = extra or {}
    out.mkdir(parents=True, exist_ok=True)
    sdks = sorted({r["sdk"] for r in rows})
    scenarios = sorted({r["scenario"] for r in rows})
    by = {(r["sdk"], r["scenario"]): r for r in rows}
    counts = {s: {k: 0 for k in SYMBOL} for s in sdks}
    versions = {s: sorted({r.get("version") for r in rows if r["sdk"] == s and r.get("version")}) for s in sdks}
    for r in rows:
        counts[r["sdk"]][r["status"]] = counts[r["sdk"]].get(r["status"], 0) + 1
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())

    md = [f"# Conformance matrix ({target})", "",
          f"Generated {stamp} by `conformance-tests/runner` in {wall:.0f} s. "
          "Skips are never counted as passes.", "",
          *([f"Gateway: {extra['gateway']}. Run id `{extra.get('run_id', '')}`: every process id and job type "
             f"this run created starts with `jwc-{extra.get('run_id', '')}-`. Capabilities offered: "
             f"{', '.join(extra.get('capabilities') or []) or 'none'}; a scenario needing another one is "
             "skipped and names it.", ""] if extra.get("gateway") else []),
          *(["**No SDK driver found** under `conformance-tests/drivers/*/run`: nothing to run.", ""]
            if not rows else []),
          "| SDK | driver version | passed | failed | skipped | expected-failure | seconds |",
          "|---|---|---|---|---|---|---|"]
    for s in sdks:
        c = counts[s]
        secs = sum(r["seconds"] for r in rows if r["sdk"] == s)
        md.append(f"| {s} | {', '.join(versions[s])} | {c['passed']} | {c['failed']} | {c['skipped']} | "
                  f"{c['expected-failure']} | {secs:.0f} |")
    md += ["", "| scenario | " + " | ".join(f"{s} | {s} s" for s in sdks) + " |",
           "|---|" + "---|---|" * len(sdks)]
    for sc in scenarios:
        cells = []
        for s in sdks:
            r = by.get((s, sc))
            if r is None:
                cells += ["—", ""]
            else:
                cells += [_cell(r).replace("|", "\\|").replace("\n", " "), f"{r['seconds']:.1f}"]
        md.append(f"| `{sc}` | " + " | ".join(cells) + " |")
    skips: dict = {}
    for r in rows:
        if r["status"] == "skipped":
            skips.setdefault(r.get("reason", ""), set()).add(r["scenario"])
    if skips:
        md += ["", "## Skipped, and why", "",
               "| reason | scenarios |", "|---|---|"]
        md += [f"| {reason.replace('|', '/')} | {len(sc)}: {', '.join(f'`{x}`' for x in sorted(sc))} |"
               for reason, sc in sorted(skips.items(), key=lambda kv: -len(kv[1]))]
    unchecked = [(r["sdk"], r["scenario"], u) for r in rows for u in r.get("unchecked") or []]
    if unchecked:
        md += ["", "## Expectations not checked on this target", ""]
        md += [f"- {s} `{sc}`: {u}" for s, sc, u in unchecked]
    comparison = _comparison(rows, Path(compare)) if compare and Path(compare).is_file() and rows else []
    md += comparison
    (out / f"{name}.md").write_text("\n".join(md) + "\n")
    (out / f"{name}.json").write_text(json.dumps({"target": target, "wall": wall, **extra, "rows": rows},
                                                indent=1) + "\n")

    color = {"passed": "#d4f7d4", "failed": "#f7d4d4", "skipped": "#eeeeee", "expected-failure": "#f7efd0"}
    h = ["<!doctype html><meta charset=utf-8><title>jobwire conformance</title>",
         "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px}"
         "table{border-collapse:collapse}td.num{text-align:right}</style>",
         f"<h1>Conformance matrix ({html.escape(target)})</h1>",
         f"<p>Generated {stamp} in {wall:.0f} s. Skips are never counted as passes.</p>",
         "<table><tr><th>SDK</th><th>driver version</th><th>passed</th><th>failed</th><th>skipped</th>"
         "<th>expected-failure</th><th>seconds</th></tr>"]
    for s in sdks:
        c = counts[s]
        secs = sum(r["seconds"] for r in rows if r["sdk"] == s)
        h.append(f"<tr><td>{html.escape(s)}</td><td>{html.escape(', '.join(versions[s]))}</td>"
                 f"<td class=num>{c['passed']}</td><td class=num>{c['failed']}</td>"
                 f"<td class=num>{c['skipped']}</td><td class=num>{c['expected-failure']}</td>"
                 f"<td class=num>{secs:.0f}</td></tr>")
    h.append("</table><br><table><tr><th>scenario</th>" +
             "".join(f"<th>{html.escape(s)}</th><th>s</th>" for s in sdks) + "</tr>")
    for sc in scenarios:
        h.append(f"<tr><td><code>{html.escape(sc)}</code></td>")
        for s in sdks:
            r = by.get((s, sc))
            if r is None:
                h.append("<td>—</td><td></td>")
                continue
            title = html.escape(r.get("detail", "") or r.get("reason", ""))
            h.append(f"<td style='background:{color.get(r['status'], '#fff')}' title='{title}'>"
                     f"{html.escape(_cell(r))}</td><td class=num>{r['seconds']:.1f}</td>")
        h.append("</tr>")
    h.append("</table>")
    for ln in comparison:  # the same section, as a table
        if ln.startswith("## "):
            h.append(f"<h2>{html.escape(ln[3:])}</h2>")
        elif ln.startswith("|---"):
            continue
        elif ln.startswith("| scenario"):
            h.append("<table><tr>" + "".join(f"<th>{html.escape(c.strip())}</th>" for c in ln.strip("| ").split(" | ")) + "</tr>")
        elif ln.startswith("| `"):
            h.append("<tr>" + "".join(f"<td>{html.escape(c.strip())}</td>" for c in ln.strip("| ").split(" | ")) + "</tr>")
        elif ln:
            h.append(("</table>" if ln.startswith("Scenarios") else "") + f"<p>{html.escape(ln)}</p>")
    (out / f"{name}.html").write_text("\n".join(h) + "\n")


def merge(out: Path, parts: list[Path], compare: Path | None = None, name: str = "matrix"):
    """One report from several runs' matrix.json (e.g. one run per peer column, run side by side)."""
    rows, wall, target, extra = [], 0.0, "?", {}
    for p in parts:
        f = p / "matrix.json"
        if not f.is_file():
            print(f"report.py: {f} missing (that run wrote no report)", file=sys.stderr)
            continue
        d = json.loads(f.read_text())
        rows += d["rows"]
        wall = max(wall, d["wall"])
        target = d["target"]
        extra = {k: d[k] for k in ("gateway", "run_id", "capabilities") if k in d} or extra
    write(out, rows, target, wall, compare, extra=extra, name=name)


def publish(src: Path, dst: Path):
    """The published matrix (`make conformance-report`): the run's report without the per-case
    log paths, which point into that machine's $RESULTS."""
    d = json.loads((src / "matrix.json").read_text())
    rows = [{k: v for k, v in r.items() if k != "log"} for r in d["rows"]]
    extra = {k: d[k] for k in ("gateway", "run_id", "capabilities") if k in d}
    write(dst, rows, d["target"], d["wall"], extra=extra)


if __name__ == "__main__":
    if sys.argv[1:2] == ["publish"] and len(sys.argv) == 4:  # python report.py publish RUN_DIR OUT_DIR
        publish(Path(sys.argv[2]), Path(sys.argv[3]))
        sys.exit(0)
    # python report.py merge OUT_DIR PART_DIR... [--compare matrix.md] [--name report]
    a = sys.argv[1:]
    cmp_ = None
    name = "matrix"
    if "--name" in a:
        i = a.index("--name")
        name = a[i + 1]
        del a[i:i + 2]
    if "--compare" in a:
        i = a.index("--compare")
        cmp_ = Path(a[i + 1])
        del a[i:i + 2]
    if not a or a[0] != "merge" or len(a) < 3:
        sys.exit("usage: report.py merge OUT_DIR PART_DIR... [--compare matrix.md]")
    merge(Path(a[1]), [Path(x) for x in a[2:]], cmp_, name)
