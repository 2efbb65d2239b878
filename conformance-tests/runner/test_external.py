"""The external-gateway lane's own tests: its connection settings (the ZEEBE_*
variables), and that a case run without the admin API cleans up after itself:
it cancels every instance it created that still runs and touches nothing it
did not create. The gateway here is the reference engine *with* its admin API,
which the lane does not use; the test uses it to look at what was left."""
from __future__ import annotations

import uuid

import pytest

import case as case_mod
import harness
from conftest import EXTERNAL_CAPS
from execute import Target, run_case

SAAS = {"ZEEBE_ADDRESS": "abc-123.bru-2.zeebe.camunda.io:443", "ZEEBE_CLIENT_ID": "my-id",
        "ZEEBE_CLIENT_SECRET": "very-secret-value", "ZEEBE_AUTHORIZATION_SERVER_URL": "https://login.cloud.camunda.io/oauth/token",
        "ZEEBE_TOKEN_AUDIENCE": "zeebe.camunda.io"}


def test_settings_saas_use_tls_and_oauth_and_never_show_the_secret():
    s = harness.GatewaySettings(SAAS)
    assert not s.problems() and s.oauth and not s.insecure
    env = s.driver_env()
    assert env["ZEEBE_INSECURE_CONNECTION"] == "false" and env["ZEEBE_CLIENT_SECRET"] == "very-secret-value"
    assert env["ZEEBE_AUTHORIZATION_SERVER_URL"] == SAAS["ZEEBE_AUTHORIZATION_SERVER_URL"]
    assert "very-secret-value" not in s.describe() and "system roots" in s.describe()
    # the official clients' defaults when only the credentials are given
    s2 = harness.GatewaySettings({k: v for k, v in SAAS.items() if k in ("ZEEBE_ADDRESS", "ZEEBE_CLIENT_ID",
                                                                          "ZEEBE_CLIENT_SECRET")})
    assert s2.auth_url == "https://login.cloud.camunda.io/oauth/token/" and not s2.audience
    assert "ZEEBE_TOKEN_AUDIENCE" not in s2.driver_env()


@pytest.mark.parametrize("env,insecure", [
    ({"ZEEBE_ADDRESS": "127.0.0.1:26500"}, True),                      # loopback, no credentials: plaintext
    ({"ZEEBE_ADDRESS": "zeebe.example.com:26500"}, False),             # anything else: TLS
    ({"ZEEBE_ADDRESS": "zeebe.example.com:26500", "ZEEBE_INSECURE_CONNECTION": "true"}, True),
    ({"ZEEBE_ADDRESS": "127.0.0.1:26500", "ZEEBE_INSECURE_CONNECTION": "false"}, False),
    ({"ZEEBE_ADDRESS": "grpc://zeebe.local:26500"}, True),
    ({"ZEEBE_ADDRESS": "grpcs://zeebe.local"}, False),
    ({"ZEEBE_ADDRESS": "zeebe-0:26500,zeebe-1:26500", "ZEEBE_INSECURE_CONNECTION": "true"}, True),
])
def test_settings_plaintext_or_tls(env, insecure):
    s = harness.GatewaySettings(env)
    assert s.insecure is insecure
    assert s.driver_env()["ZEEBE_INSECURE_CONNECTION"] == str(insecure).lower()


def test_settings_problems():
    assert harness.GatewaySettings({}).problems()
    assert harness.GatewaySettings({"ZEEBE_ADDRESS": "h:1", "ZEEBE_CLIENT_ID": "x"}).problems()
    assert harness.GatewaySettings({"ZEEBE_ADDRESS": "h:1", "ZEEBE_CA_CERTIFICATE_PATH": "/nonexistent"}).problems()


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    e = harness.Engine(tmp_path_factory.mktemp("external-gw")).start()
    yield e
    e.stop()


# Every scenario the external lane runs (some leave incidents or failing jobs unless the case cleans up).
LANE_SCENARIOS = [s.name for s in case_mod.load_all()
                  if set(s.requires) <= EXTERNAL_CAPS and s.data.get("engine", "shared") == "shared"]


def test_lane_runs_the_scenarios_that_need_only_a_gateway():
    assert {"polling/fail-retries-backoff", "polling/handler-exception-fails-job", "observability/metrics-emitted",
            "delivery/many-instances-round-trip", "lifecycle/close-hands-back-held-jobs"} <= set(LANE_SCENARIOS)
    assert len(LANE_SCENARIOS) >= 15


@pytest.mark.parametrize("name", LANE_SCENARIOS)
def test_case_on_an_external_gateway_cleans_up_only_its_own(name, engine, tmp_path):
    admin = harness.Clients(engine.address)  # the test's view, not the lane's
    try:
        # someone else's running instance on the same gateway, of a job type like ours
        other = "someone-elses-process-" + uuid.uuid4().hex[:6]
        other_type = "jwc-other-type-" + uuid.uuid4().hex[:6]
        admin.deploy("other.bpmn", harness.REPO.joinpath(
            "conformance-tests/scenarios/polling/complete-basic/process.bpmn").read_text()
            .replace("${processId}", other).replace("${jobType}", other_type).encode())
        other_key = admin.create_instance(other, {}).processInstanceKey

        settings = harness.GatewaySettings({"ZEEBE_ADDRESS": engine.address, "ZEEBE_INSECURE_CONNECTION": "true"})
        target = Target(tmp_path / "shared", engine.address, "external", set(EXTERNAL_CAPS), settings=settings)
        sc = next(s for s in case_mod.load_all() if s.name == name)
        holder = {}
        orig_case = case_mod.Case

        class Recording(orig_case):  # keeps the case object even when the scenario fails
            def __init__(self, *a, **kw):
                super().__init__(*a, **kw)
                holder["case"] = self
        import execute
        execute.Case = Recording
        try:
            run_case(sc, "selftest", target, tmp_path, uuid.uuid4().hex[:6], run_id="t" + uuid.uuid4().hex[:4])
        except AssertionError as e:
            # the selftest driver is not an SDK (no spans or metrics): the scenario may fail; its clean-up may not
            assert "clean-up" not in str(e), e
        finally:
            execute.Case = orig_case
            target.close()
        case = holder["case"]
        assert case.process_id.startswith("jwc-") and case.job_type.startswith("jwc-")
        assert not getattr(case, "cleanup_problem", None), case.cleanup_problem
        pb = admin.ad_pb
        insts = admin.a("ListProcessInstances", pb.ListProcessInstancesRequest(
            bpmn_process_id=case.process_id, include_instances=True)).instances
        assert insts, "the case created no instance"
        left = [i.key for i in insts if i.state not in (pb.PROCESS_INSTANCE_STATE_COMPLETED,
                                                         pb.PROCESS_INSTANCE_STATE_CANCELED)]
        assert not left, f"instances left running: {left}"
        mine = admin.a("ListProcessInstances", pb.ListProcessInstancesRequest(
            bpmn_process_id=other, include_instances=True)).instances
        assert [(i.key, i.state) for i in mine] == [(other_key, pb.PROCESS_INSTANCE_STATE_ACTIVE)], \
            "the case touched an instance it did not create"
        jobs = admin.a("ListJobs", pb.ListJobsRequest(type=other_type, include_jobs=True)).jobs
        assert [j.state for j in jobs] == [pb.JOB_STATE_ACTIVATABLE], "the case touched a job it did not create"
        admin.cancel_instance(other_key)
    finally:
        admin.close()


class _FakeClients:
    def __init__(self, leftover, later=()):
        self.leftover, self.cancelled, self.activated_types = list(leftover), [], []
        self.later = list(later)  # returned by the third activation: jobs whose activation timed out

    def activate_jobs(self, job_type):
        self.activated_types.append(job_type)
        out, self.leftover = self.leftover, []
        if len(self.activated_types) == 3:
            out, self.later = self.later, []
        return out

    def cancel_instance(self, key):
        self.cancelled.append(key)


def _fake_case(holders, starts, leftover=(), later=()):
    import threading
    from types import SimpleNamespace
    steps = [{"start_worker": {"id": "w1", "options": {"jobTimeoutMs": 300}}}]
    c = SimpleNamespace(_wr_lock=threading.Lock(), with_result=holders, job_type="jwc-r1-x-go-abc", process_id="p",
                        data={"steps": steps}, clients=_FakeClients(leftover, later), log=[])
    c.events = lambda kind=None: [{"event": "job_start", "processInstanceKey": str(k)} for k in starts]
    c.note = c.log.append
    return c


def test_clean_up_cancels_exactly_the_unfinished_instances_it_knows():
    from types import SimpleNamespace
    from execute import clean_up_external
    holders = [{"done": True, "ok": True, "key": 1}, {"done": True, "ok": False}, {"done": True, "ok": False}]
    c = _fake_case(holders, starts=[1, 2], leftover=[SimpleNamespace(processInstanceKey=3)])
    clean_up_external(c)
    assert sorted(c.clients.cancelled) == [2, 3]  # 1 completed: never touched
    assert c.clients.activated_types == ["jwc-r1-x-go-abc", "jwc-r1-x-go-abc"]  # only its own job type
    assert not getattr(c, "cleanup_problem", None)


def test_clean_up_reports_instances_it_cannot_cancel():
    from execute import clean_up_external
    holders = [{"done": True, "ok": True, "key": 1}] + [{"done": True, "ok": False} for _ in range(3)]
    c = _fake_case(holders, starts=[1, 2])  # two instances' jobs never seen, none left activatable
    clean_up_external(c)
    assert c.clients.cancelled == [2]
    assert "2 instances of p could not be cancelled" in c.cleanup_problem


def test_clean_up_waits_for_stranded_jobs_to_time_out():
    """An instance whose job an SDK kept at close (never started, never handed back) is found by the
    sweep once that job's activation times out, and cancelled."""
    from types import SimpleNamespace
    from execute import clean_up_external
    holders = [{"done": True, "ok": False}, {"done": True, "ok": False}]
    c = _fake_case(holders, starts=[2], later=[SimpleNamespace(processInstanceKey=7)])
    clean_up_external(c)
    assert sorted(c.clients.cancelled) == [2, 7]
    assert not getattr(c, "cleanup_problem", None)


def test_report_check_catches_wrong_skips(tmp_path):
    """external.check_report (run by the CI lane on its own report) fails a scenario that ran though
    the lane lacks what it needs, one skipped though runnable, and a missing row."""
    import json as _json

    import report as report_mod
    from external import check_report
    names = {"polling/complete-basic": [], "polling/invalid-variables-rejected": ["admin"],
             "streaming/reconnect-after-goaway": ["proxy", "streaming"]}
    good = [{"sdk": "go", "scenario": "polling/complete-basic", "status": "passed", "reason": "", "seconds": 1},
            {"sdk": "go", "scenario": "polling/invalid-variables-rejected", "status": "skipped",
             "reason": "needs admin (not offered by target external)", "seconds": 0},
            {"sdk": "go", "scenario": "streaming/reconnect-after-goaway", "status": "skipped",
             "reason": "needs proxy (not offered by target external)", "seconds": 0}]
    extra = {"gateway": "g", "run_id": "r", "capabilities": ["streaming"]}
    report_mod.write(tmp_path, good, "external", 1.0, extra=extra, name="report")
    assert check_report(tmp_path, ["go"], set(EXTERNAL_CAPS), list(names)) == []
    bad = [dict(good[0], status="skipped", reason="needs admin"), dict(good[1], status="passed", reason="")]
    report_mod.write(tmp_path, bad, "external", 1.0, extra=extra, name="report")
    problems = check_report(tmp_path, ["go"], set(EXTERNAL_CAPS), list(names))
    assert len(problems) == 3, problems
    assert _json.loads((tmp_path / "report.json").read_text())["run_id"] == "r"
