"""Writes the SDK x scenario matrix as Markdown and HTML."""
from __future__ import annotations

import html
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


def write(out: Path, rows: list[dict], target: str, wall: float):
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
    unchecked = [(r["sdk"], r["scenario"], u) for r in rows for u in r.get("unchecked") or []]
    if unchecked:
        md += ["", "## Expectations not checked on this target", ""]
        md += [f"- {s} `{sc}`: {u}" for s, sc, u in unchecked]
    (out / "matrix.md").write_text("\n".join(md) + "\n")

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
    (out / "matrix.html").write_text("\n".join(h) + "\n")
