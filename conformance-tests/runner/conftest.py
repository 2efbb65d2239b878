"""pytest wiring for the conformance runner: options, the SDK x scenario
parametrization, the shared target and the matrix report."""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import case as case_mod  # noqa: E402
import harness  # noqa: E402
import report  # noqa: E402
from execute import DRIVERS, PEERS, Target  # noqa: E402

REFERENCE_CAPS = {"admin", "proxy", "restart", "tls", "oauth", "long_polling", "streaming", "timers"}
# an external gateway (a Camunda 8 cluster, or `jobwire-engine dev --no-admin`): no admin API, no fault
# proxy, no engine of the runner's own (restart, tls/oauth/mtls variants, cluster faults)
EXTERNAL_CAPS = {"long_polling", "streaming", "timers"}


def pytest_addoption(parser):
    g = parser.getgroup("jobwire conformance")
    g.addoption("--sdk", default="", help="comma-separated SDK drivers (default: every drivers/<lang>/run); "
                                          "'selftest' runs the runner's own Python reference driver")
    g.addoption("--scenario", default="", help="comma-separated scenario names or prefixes (e.g. polling/)")
    g.addoption("--shard", default="", help="K/N: only every N-th selected scenario, starting at the K-th (1-based), "
                                            "so N runs side by side share the matrix (scripts/run.sh lanes)")
    g.addoption("--gateway-address", default="", help="HOST:PORT of an external Zeebe-compatible gateway; "
                                                      "cases needing admin/faults are skipped")
    g.addoption("--external", action="store_true", help="run against the external gateway of the ZEEBE_* "
                                                        "environment variables (address, TLS, OAuth); cases "
                                                        "needing admin/faults are skipped")
    g.addoption("--external-caps", default=",".join(sorted(EXTERNAL_CAPS)),
                help="capabilities the external gateway offers (default: %(default)s)")
    g.addoption("--run-id", default="", help="prefix of every process id and job type this run creates "
                                             "(default: a fresh one)")
    g.addoption("--target-name", default="", help="label for the target in the report (e.g. external)")
    g.addoption("--no-cluster", action="store_true", help="do not offer the multi-process cluster "
                                                          "(`engine: cluster` scenarios are skipped)")
    g.addoption("--compare-report", default="", help="a jobwire matrix (matrix.md of `make conformance`) to set "
                                                     "the official clients' columns beside (conformance-peers)")
    g.addoption("--report-dir", default="", help="where matrix.md/.html/.json go (default $RESULTS/conformance-report)")
    g.addoption("--work-dir", default="", help="logs and data of each case (default $RESULTS/conformance)")


def available_sdks():
    if not DRIVERS.is_dir():
        return []
    return sorted(p.name for p in DRIVERS.iterdir() if (p / "run").is_file() and os.access(p / "run", os.X_OK))


def available_peers():
    """The official clients' drivers (peers/<name>/run): reference columns, only on request (--sdk peers)."""
    if not PEERS.is_dir():
        return []
    return sorted(p.name for p in PEERS.iterdir() if (p / "run").is_file() and os.access(p / "run", os.X_OK))


def _selected(config):
    sdks = [s for s in config.getoption("--sdk").split(",") if s] or available_sdks()
    sdks = [x for s in sdks for x in (available_peers() if s == "peers" else [s])]
    wanted = [s for s in config.getoption("--scenario").split(",") if s]
    scen = [s for s in case_mod.load_all()
            if not wanted or any(s.name == w or s.name.startswith(w.rstrip("/") + "/") for w in wanted)]
    shard = config.getoption("--shard")
    if shard:
        k, n = (int(x) for x in shard.split("/"))
        if not 1 <= k <= n:
            raise pytest.UsageError(f"--shard {shard}: want K/N with 1 <= K <= N")
        scen = scen[k - 1::n]
    return sdks, scen


def pytest_generate_tests(metafunc):
    if "matrix_case" in metafunc.fixturenames:
        sdks, scen = _selected(metafunc.config)
        params = [pytest.param((sdk, s), id=f"{sdk}:{s.name}") for sdk in sdks for s in scen]
        if not params:
            params = [pytest.param(None, id="no-sdk-driver",
                                   marks=pytest.mark.skip(reason="no SDK driver found under conformance-tests/drivers"))]
        metafunc.parametrize("matrix_case", params)
    if "scenario" in metafunc.fixturenames:
        scen = case_mod.load_all()
        metafunc.parametrize("scenario", scen, ids=[s.name for s in scen])


@pytest.fixture(scope="session")
def work_dir(request):
    wd = request.config.getoption("--work-dir") or os.path.join(
        os.environ.get("RESULTS", str(harness.REPO / ".test-results")), "conformance-work")
    p = Path(wd)
    if p.exists():
        shutil.rmtree(p, ignore_errors=True)
    p.mkdir(parents=True, exist_ok=True)
    return p


@pytest.fixture(scope="session")
def target(request, work_dir):
    gw = request.config.getoption("--gateway-address")
    settings = None
    if request.config.getoption("--external"):
        settings = harness.GatewaySettings()
        problems = settings.problems()
        if problems:
            pytest.exit("external gateway: " + "; ".join(problems), returncode=4)
        gw = settings.address
    elif gw:
        settings = harness.GatewaySettings({"ZEEBE_ADDRESS": gw, "ZEEBE_INSECURE_CONNECTION": "true"})
    if gw:
        caps = {c for c in request.config.getoption("--external-caps").split(",") if c}
        kind = request.config.getoption("--target-name") or "external"
    else:
        caps = set(REFERENCE_CAPS)
        kind = "reference"
        # scenarios with `engine: cluster` start their own multi-process cluster
        if harness.cluster_supported() and not request.config.getoption("--no-cluster"):
            caps.add("cluster")
    t = Target(work_dir / "shared", gw or None, kind, caps, settings=settings)
    (work_dir / "shared").mkdir(exist_ok=True)
    request.config._jw_target = t
    yield t
    t.close()
    harness.kill_all()


def load_expectations(sdk: str) -> dict:
    f = HERE.parent / "expectations" / f"{sdk}.yaml"
    if f.exists():
        return yaml.safe_load(f.read_text()) or {}
    return {}


# ------------------------------------------------------------------ report
def report_dir(config) -> Path:
    d = config.getoption("--report-dir")
    return Path(d) if d else Path(os.environ.get("RESULTS", str(harness.REPO / ".test-results"))) / "conformance-report"


def run_id(config) -> str:
    """Every process id and job type of this run starts with it (plus the case's own random part), so a
    shared cluster tells this run's processes apart from anything else deployed there."""
    if not getattr(config, "_jw_run_id", None):
        config._jw_run_id = config.getoption("--run-id") or os.environ.get("JOBWIRE_CONFORMANCE_RUN_ID") or \
            time.strftime("%m%d%H%M", time.gmtime()) + os.urandom(2).hex()[:3]
    return config._jw_run_id


def pytest_configure(config):
    config._jw_rows = {}
    config._jw_t0 = time.time()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    info = getattr(item, "_jw", None)
    if info is None:
        return
    key = (info["sdk"], info["scenario"])
    rows = item.config._jw_rows
    row = rows.setdefault(key, {"sdk": info["sdk"], "scenario": info["scenario"], "status": "passed",
                                "reason": "", "seconds": 0.0, "unchecked": []})
    if rep.when == "call" or (rep.when == "setup" and not rep.passed):
        row["seconds"] = round(getattr(item, "_jw_seconds", rep.duration), 1)
        if rep.skipped and hasattr(rep, "wasxfail"):
            row["status"], row["reason"] = "expected-failure", rep.wasxfail
        elif rep.skipped:
            row["status"] = "skipped"
            row["reason"] = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            row["reason"] = row["reason"].removeprefix("Skipped: ")
        elif rep.failed:
            row["status"] = "failed"
            msg = str(rep.longrepr.reprcrash.message) if hasattr(rep.longrepr, "reprcrash") and \
                rep.longrepr.reprcrash else str(rep.longrepr)
            row["reason"] = " ".join(x.strip() for x in msg.splitlines())[:300] if msg else ""
            row["detail"] = msg[:2000]
        elif hasattr(rep, "wasxfail"):
            row["status"], row["reason"] = "passed", f"unexpectedly passed (listed: {rep.wasxfail})"
        row["unchecked"] = getattr(item, "_jw_unchecked", [])
        row["version"] = getattr(item, "_jw_version", "")
        row["log"] = getattr(item, "_jw_log", "")


def pytest_sessionfinish(session, exitstatus):
    rows = getattr(session.config, "_jw_rows", {})
    ran_matrix = any(getattr(i, "originalname", "") == "test_scenario" for i in session.items)
    if not rows and not ran_matrix:
        return
    t = getattr(session.config, "_jw_target", None)
    extra = {}
    if t is not None and t.settings is not None:
        extra = {"gateway": t.settings.describe(), "run_id": run_id(session.config),
                 "capabilities": sorted(t.capabilities)}
    report.write(report_dir(session.config), list(rows.values()),
                 target=t.kind if t else "?", wall=time.time() - session.config._jw_t0,
                 compare=session.config.getoption("--compare-report") or None, extra=extra)
