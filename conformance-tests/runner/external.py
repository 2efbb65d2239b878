"""The external-gateway lane (`make conformance-external`, `conformance-tests/scripts/run.sh --external`).

Runs every scenario that needs neither the reference engine's admin API nor the
fault proxy, for every SDK driver, against one gateway: a Camunda 8 cluster
(SaaS or self-managed) named by the usual ZEEBE_* environment variables, or,
with --local-engine, a `jobwire-engine dev` this script starts with the admin
API off, TLS (certificates made here) and its OAuth token endpoint on: the CI
lane, which tests the lane itself, its skips and its report.

The SDK lanes run side by side (one pytest process per SDK, all against the same
gateway); the report is merged into $RESULTS/conformance-external/report.md,
.json and .html. Every process id and job type starts with the run id
(`jwc-<run id>-`); each case cancels the instances it created that still run.

usage: external.py [--local-engine] [--sdk go,node] [--jobs N] [pytest args...]
"""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import report  # noqa: E402
from conftest import available_sdks  # noqa: E402

SETTINGS_VARS = ("ZEEBE_ADDRESS", "ZEEBE_GRPC_ADDRESS", "ZEEBE_CLIENT_ID", "ZEEBE_CLIENT_SECRET",
                 "ZEEBE_AUTHORIZATION_SERVER_URL", "ZEEBE_TOKEN_AUDIENCE", "ZEEBE_TOKEN_SCOPE",
                 "ZEEBE_CA_CERTIFICATE_PATH", "ZEEBE_INSECURE_CONNECTION")


def start_local_engine(work: Path):
    """`jobwire-engine dev --no-admin` with TLS and OAuth; returns (engine, env for the lane)."""
    from certs import make_ca_and_server_cert
    ca, cert, key = make_ca_and_server_cert(work / "certs")
    eng = harness.Engine(work, extra_args=["--no-admin", "--no-fsync"], tls=(str(cert), str(key)), oauth=True,
                         name="gateway").start()
    env = {"ZEEBE_ADDRESS": eng.address, "ZEEBE_INSECURE_CONNECTION": "false", "ZEEBE_CA_CERTIFICATE_PATH": str(ca),
           "ZEEBE_CLIENT_ID": "jobwire", "ZEEBE_CLIENT_SECRET": eng.client_secret,
           "ZEEBE_AUTHORIZATION_SERVER_URL": eng.oauth_url, "ZEEBE_TOKEN_AUDIENCE": "zeebe-api"}
    return eng, env


def check_gateway(settings: harness.GatewaySettings, expect_no_admin: bool) -> str:
    """Fails fast (with the reason) when the gateway cannot be reached; with expect_no_admin, also
    proves the admin API is off (UNIMPLEMENTED), so the lane really runs without it."""
    import grpc
    c = harness.Clients(settings.address, settings=settings)
    c.admin = None
    try:
        c.wait_ready(30)
        note = "gateway reachable (Topology answered)"
        if expect_no_admin:
            _, _, ad_pb, ad_grpc = harness.ensure_stubs()
            try:
                ad_grpc.AdminServiceStub(c.channel).ListJobs(ad_pb.ListJobsRequest(type="x"), timeout=5,
                                                              metadata=c.md())
                raise SystemExit("external lane: the local engine answered an admin call; --no-admin did not work")
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise SystemExit(f"external lane: admin call: want UNIMPLEMENTED, got {e.code()}") from e
            note += "; admin API off (an admin call got UNIMPLEMENTED)"
        return note
    finally:
        c.close()


def check_report(out: Path, sdks: list[str], caps: set[str], scenario_filter: list[str]) -> list[str]:
    """The CI lane checks its own report: one row per SDK x scenario; a scenario runs exactly when
    the lane offers everything it needs, and every skip names the missing capabilities."""
    import case as case_mod
    data = __import__("json").loads((out / "report.json").read_text())
    rows = {(r["sdk"], r["scenario"]): r for r in data["rows"]}
    scen = [s for s in case_mod.load_all()
            if not scenario_filter or any(s.name == w or s.name.startswith(w.rstrip("/") + "/") for w in scenario_filter)]
    problems = []
    for sdk in sdks:
        for sc in scen:
            r = rows.get((sdk, sc.name))
            if r is None:
                problems.append(f"{sdk} {sc.name}: no row in the report")
                continue
            missing = [c for c in sc.requires if c not in caps]
            own = sc.data.get("engine", "shared") != "shared"
            if missing or own:
                if r["status"] != "skipped" or not r["reason"].startswith("needs ") or \
                        any(c not in r["reason"] for c in missing):
                    problems.append(f"{sdk} {sc.name}: needs {missing or 'its own engine'} but {r['status']} "
                                    f"({r['reason']})")
            elif r["status"] == "skipped":
                problems.append(f"{sdk} {sc.name}: skipped although the lane offers what it needs ({r['reason']})")
    for k in ("gateway", "run_id", "capabilities"):
        if not data.get(k):
            problems.append(f"report.json lacks {k}")
    return problems


def main(argv: list[str]) -> int:
    local = "--local-engine" in argv
    argv = [a for a in argv if a != "--local-engine"]
    sdks, jobs, rest = None, None, []
    it = iter(argv)
    for a in it:
        if a == "--sdk":
            sdks = [s for s in next(it).split(",") if s]
        elif a.startswith("--sdk="):
            sdks = [s for s in a.split("=", 1)[1].split(",") if s]
        elif a == "--jobs":
            jobs = int(next(it))
        else:
            rest.append(a)
    sdks = sdks or available_sdks()
    jobs = jobs or int(os.environ.get("CONFORMANCE_EXTERNAL_JOBS", "4"))
    results = Path(os.environ.get("RESULTS", str(harness.REPO / ".test-results")))
    out = results / "conformance-external"
    parts = out / "parts"
    import shutil
    shutil.rmtree(out, ignore_errors=True)
    parts.mkdir(parents=True)

    env = dict(os.environ)
    eng = None
    t0 = time.time()
    try:
        if local:
            for k in SETTINGS_VARS:
                env.pop(k, None)
            eng, lane_env = start_local_engine(out / "engine")
            env.update(lane_env)
            print(f"external lane: started jobwire-engine dev --no-admin with TLS and OAuth on {eng.address}",
                  flush=True)
        settings = harness.GatewaySettings(env)
        problems = settings.problems()
        if problems:
            print("external lane: " + "; ".join(problems) + "\n  set ZEEBE_ADDRESS (and for Camunda 8 SaaS "
                  "ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET, ZEEBE_AUTHORIZATION_SERVER_URL, ZEEBE_TOKEN_AUDIENCE); "
                  "see docs/conformance.md", file=sys.stderr)
            return 2
        try:
            note = check_gateway(settings, expect_no_admin=local)
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001 - unreachable, TLS or OAuth refused: say so, no traceback
            print(f"external lane: cannot reach or authenticate to {settings.describe()}: {e}", file=sys.stderr)
            return 2
        run_id = env.get("JOBWIRE_CONFORMANCE_RUN_ID") or \
            time.strftime("%m%d%H%M", time.gmtime()) + secrets.token_hex(2)[:3]
        env["JOBWIRE_CONFORMANCE_RUN_ID"] = run_id
        print(f"external lane: {settings.describe()}; {note}; run id {run_id}; SDKs {', '.join(sdks)} "
              f"({min(jobs, len(sdks))} at a time)", flush=True)

        py = sys.executable
        codes: dict[str, int] = {}
        sem = threading.Semaphore(max(1, jobs))

        def run(name: str, cmd: list[str]):
            p = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            for raw in p.stdout:
                sys.stdout.write(f"[{name}] {raw.decode('utf-8', 'replace')}")
                sys.stdout.flush()
            codes[name] = p.wait()

        def lane(sdk: str):
            with sem:
                run(sdk, [py, "-m", "pytest", "-q", "-rs", "test_conformance.py", "--external",
                          "--sdk", sdk, "--report-dir", str(parts / sdk), "--work-dir", str(parts / f"{sdk}-work"),
                          f"--junitxml={out / (sdk + '.xml')}", *rest])

        threads = [threading.Thread(target=lane, args=(s,)) for s in sdks]
        if local:
            # the lane's own tests, beside the SDK lanes (on an engine of their own, admin API on, to look
            # at what a case left): its settings, and that a case cancels what it created and only that
            threads.append(threading.Thread(target=run, args=("lane-tests", [
                py, "-m", "pytest", "-q", "test_external.py", f"--junitxml={out / 'lane-tests.xml'}"])))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        report.merge(out, [parts / s for s in sdks], name="report")
        if local:
            # the lane's report, checked (one JUnit case, counted with the lane)
            scen_filter = []
            for i, a in enumerate(rest):
                if a == "--scenario" and i + 1 < len(rest):
                    scen_filter = [x for x in rest[i + 1].split(",") if x]
                elif a.startswith("--scenario="):
                    scen_filter = [x for x in a.split("=", 1)[1].split(",") if x]
            from conftest import EXTERNAL_CAPS
            problems = check_report(out, sdks, set(EXTERNAL_CAPS), scen_filter)
            secret = env.get("ZEEBE_CLIENT_SECRET", "")
            if secret and any(secret in f.read_text() for f in out.glob("report.*")):
                problems.append("the report contains the OAuth client secret")
            from xml.sax.saxutils import escape
            body = f'<failure message="{escape(problems[0], {chr(34): "&quot;"})}">{escape(chr(10).join(problems))}</failure>' \
                if problems else ""
            (out / "report-check.xml").write_text(
                '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="external-lane-report" '
                f'tests="1" failures="{1 if problems else 0}"><testcase classname="external" name="report_rows_and_skips">'
                f'{body}</testcase></testsuite></testsuites>\n')
            for p_ in problems:
                print(f"external lane: report check: {p_}", file=sys.stderr)
            codes["report-check"] = 1 if problems else 0
        wall = time.time() - t0
        for s in [*sdks, *(["lane-tests", "report-check"] if local else [])]:
            print(f"external lane: {s}: exit {codes.get(s)}")
        print(f"external lane: {wall:.0f} s; report {out / 'report.md'}")
        return 0 if all(codes.get(s) == 0 for s in sdks) and codes.get("lane-tests", 0) == 0 \
            and codes.get("report-check", 0) == 0 else 1
    finally:
        if eng is not None:
            eng.stop()
        harness.kill_all()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
