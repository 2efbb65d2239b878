"""What the soak (soak.py) reads about a process: the RSS of its tree, and what a Java or Node
worker's RSS is made of (the JVM's native memory tracking, node-runtime.js)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path


def tree_rss_mb(pid: int) -> float:
    """RSS of pid and all its descendants (MB), from /proc."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError):
            pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024.0


def pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(q * len(s)))], 1)


# ---------------------------------------------------------------- what the RSS is made of
NODE_RUNTIME_JS = Path(__file__).with_name("node-runtime.js")
NMT_RE = re.compile(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", re.M)


def tree_pids(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read()
                kids.setdefault(int(st[st.rindex(")") + 2:].split()[1]), []).append(int(d))
            except (OSError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def java_pid(pid: int) -> int | None:
    for p in tree_pids(pid):
        try:
            if Path(f"/proc/{p}/comm").read_text().strip() == "java":
                return p
        except OSError:
            pass
    return None


def resident_kb(pid: int, lo: int, hi: int) -> int:
    """Resident KB of pid's mappings inside [lo, hi) (from /proc/<pid>/smaps)."""
    total, inside = 0, False
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", line)
                if m:
                    inside = int(m.group(1), 16) < hi and int(m.group(2), 16) > lo
                elif inside and line.startswith("Rss:"):
                    total += int(line.split()[1])
    except OSError:
        return 0
    return total


def java_runtime(pid: int) -> dict | None:
    """The JVM's own view (jcmd, read only): heap generations, metaspace, and with native memory
    tracking on, what is committed per category (MB)."""
    try:  # the jcmd of the JDK that runs the driver
        jcmd = str(Path(os.readlink(f"/proc/{pid}/exe")).with_name("jcmd"))
    except OSError:
        return None
    out: dict = {"t": time.time()}
    try:
        h = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=30).stdout
        n = subprocess.run([jcmd, str(pid), "VM.native_memory", "summary"], capture_output=True, text=True,
                           timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for name, key in (("new generation", "young"), ("tenured generation", "old"), ("Metaspace", "metaspace")):
        m = re.search(re.escape(name) + r"\s+(?:total (\d+)K, used (\d+)K|used (\d+)K, committed (\d+)K)", h)
        if m:
            if m.group(1):
                out[key + "_committed_mb"], out[key + "_used_mb"] = round(int(m.group(1)) / 1024, 1), round(int(m.group(2)) / 1024, 1)
            else:
                out[key + "_used_mb"], out[key + "_committed_mb"] = round(int(m.group(3)) / 1024, 1), round(int(m.group(4)) / 1024, 1)
    # the Java heap's resident part: the pages of its reserved range the JVM has touched so far (an
    # eden that is touched only as allocation reaches it grows the RSS until its first full cycle)
    lo_hi = [int(x, 16) for x in re.findall(r"generation\s+total \d+K, used \d+K \[(0x[0-9a-f]+), 0x[0-9a-f]+, (0x[0-9a-f]+)\)", h)
             for x in x]
    if lo_hi:
        out["heap_resident_mb"] = round(resident_kb(pid, min(lo_hi), max(lo_hi)) / 1024, 1)
    nmt = {cat.strip(): round(int(c) / 1024, 1) for cat, _r, c in NMT_RE.findall(n)}
    if nmt:
        out["nmt_committed_mb"] = nmt
    return out if len(out) > 1 else None


def node_runtime(path: Path, t_start: float) -> list[dict]:
    """The Node driver's own samples (tools/soak/node-runtime.js), one row per minute: heap used at its
    lowest in the minute (just after a GC: the live heap), heap size, code, external, RSS (MB)."""
    rows: dict[int, dict] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    for ln in lines:
        try:
            x = json.loads(ln)
        except ValueError:
            continue
        m = int((x["t"] / 1000.0 - t_start) // 60)
        if m < 0:
            continue
        r = rows.setdefault(m, {"minute": m, "heap_used_min_mb": 1e9, "old_used_min_mb": 1e9})
        r["heap_used_min_mb"] = min(r["heap_used_min_mb"], round(x["heapUsed"] / 1024, 1))
        r["old_used_min_mb"] = min(r["old_used_min_mb"], round(x["oldUsed"] / 1024, 1))
        r["heap_total_mb"] = round(x["heapTotal"] / 1024, 1)
        r["code_used_mb"] = round(x["codeUsed"] / 1024, 1)
        r["external_mb"] = round(x["external"] / 1024, 1)
        r["rss_mb"] = round(x["rss"] / 1024, 1)
    return [rows[m] for m in sorted(rows)]
