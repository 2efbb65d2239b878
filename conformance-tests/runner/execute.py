"""Runs one scenario for one SDK: sets up (own engine, proxy, driver),
executes the steps, evaluates the expectations and always tears down."""
from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from pathlib import Path

import checks
from case import Case, Scenario, Unavailable
from harness import SUITE, Clients, Cluster, Driver, Engine, Proxy

DRIVERS = SUITE / "drivers"
# reference columns: drivers for the official clients (run by `make conformance-peers`, never by default)
PEERS = SUITE / "peers"
SELFTEST_DRIVER = SUITE / "runner" / "selftest_driver.py"
DEFAULT_CASE_TIMEOUT_S = 90


def driver_command(sdk: str) -> list[str]:
    if sdk == "selftest":
        import sys
        return [sys.executable, "-u", str(SELFTEST_DRIVER)]
    if not (DRIVERS / sdk / "run").is_file() and (PEERS / sdk / "run").is_file():
        return [str(PEERS / sdk / "run")]
    return [str(DRIVERS / sdk / "run")]


class Target:
    """Where cases run: the shared reference engine (started lazily, once per
    session) or an external Zeebe-compatible gateway."""

    def __init__(self, workdir: Path, gateway_address: str | None, kind: str, capabilities: set[str],
                 settings=None):
        self.workdir = workdir
        self.external = gateway_address
        self.settings = settings  # harness.GatewaySettings of an external gateway (TLS, OAuth)
        self.kind = kind  # "reference" | "external"
        self.capabilities = capabilities
        self._engine: Engine | None = None
        self._clients: Clients | None = None
        self._lock = threading.Lock()

    @property
    def has_admin(self):
        return "admin" in self.capabilities

    def shared(self) -> tuple[str, Clients]:
        with self._lock:
            if self.external:
                if self._clients is None:
                    self._clients = Clients(self.external, admin=False, settings=self.settings)
                    self._clients.wait_ready(60)
                return self.external, self._clients
            if self._engine is not None and self._engine.alive() and not self._responsive():
                # a hung shared engine would fail every later case slowly: replace it
                self._engine.stop(kill=True)
            if self._engine is None or not self._engine.alive():
                if self._clients:
                    self._clients.close()
                self._engine = Engine(self.workdir, name="shared-engine").start()
                self._clients = Clients(self._engine.address)
                self._clients.wait_ready()
            return self._engine.address, self._clients

    def _responsive(self) -> bool:
        try:
            pb = self._clients.ad_pb
            self._clients.admin.ListJobs(pb.ListJobsRequest(type="jw-probe"), timeout=3)
            return True
        except Exception:  # noqa: BLE001
            return False

    def close(self):
        if self._clients:
            self._clients.close()
        if self._engine:
            self._engine.stop()


def base_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZEEBE_", "CAMUNDA_", "JOBWIRE_DRIVER_", "OTEL_"))}
    return env


class CaseTimeout(AssertionError):
    pass


def _on_alarm(signum, frame):
    raise CaseTimeout("case exceeded its time budget (scenario timeout_s); something hung")


def run_case(sc: Scenario, sdk: str, target: Target, workdir: Path, uid: str, run_id: str = "") -> Case:
    case = Case(sc, sdk, target, workdir, uid, run_id)
    d = case.data
    own_engine = d.get("engine", "shared")
    # a hard per-case budget, so a hung engine or driver cannot stall the matrix
    budget = float(d.get("timeout_s", DEFAULT_CASE_TIMEOUT_S))
    use_alarm = threading.current_thread() is threading.main_thread()
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        result = _run_case(case, sc, target, workdir, d, own_engine)
    except BaseException as e:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        teardown(case)
        if getattr(case, "cleanup_problem", None):
            e.add_note(f"clean-up: {case.cleanup_problem}")
            if isinstance(e, AssertionError) and e.args:
                e.args = (f"{e.args[0]}\nclean-up: {case.cleanup_problem}", *e.args[1:])
        raise
    if use_alarm:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    teardown(case)
    if getattr(case, "cleanup_problem", None):
        raise AssertionError(f"the case passed but its clean-up did not: {case.cleanup_problem}")
    return result


def _run_case(case, sc, target, workdir, d, own_engine) -> Case:
    sdk = case.sdk
    try:  # teardown happens in run_case, after the alarm is disarmed
        # ---------------------------------------------------------- engine
        ca_path = driver_ca = None
        if own_engine == "cluster":
            c = d.get("cluster") or {}
            case.cluster = Cluster(workdir, gateways=int(c.get("gateways", 2)), brokers=int(c.get("brokers", 3)),
                                   partitions=int(c.get("partitions", 6))).start()
            case.note(f"cluster started in {case.cluster.c.startup_seconds * 1000:.0f} ms: gateways "
                      f"{','.join(case.cluster.gateways)} admin {case.cluster.admin_address}")
            case.clients = Clients(case.cluster.gateways[0], admin_address=case.cluster.admin_address)
            case.clients.wait_ready()
            # the driver gets every gateway (comma-separated ZEEBE_ADDRESS: client-side round robin)
            address = ",".join(case.cluster.gateways)
        elif own_engine == "own":
            tls = None
            mode = d.get("tls")
            server_name = None
            client_ca = runner_cert = None
            if mode:
                from certs import make_ca_and_server_cert, make_client_cert, make_unrelated_ca
                # wrong_host: the certificate names only jobwire.invalid
                hosts = ["jobwire.invalid"] if mode == "wrong_host" else None
                ca_path, cert, key = make_ca_and_server_cert(workdir / "certs", hosts)
                tls = (str(cert), str(key))
                server_name = "jobwire.invalid" if mode == "wrong_host" else None
                # wrong_ca: the driver trusts an unrelated CA (the runner the right one)
                driver_ca = make_unrelated_ca(workdir / "certs") if mode == "wrong_ca" else ca_path
                if mode in ("mtls", "mtls_no_client_cert"):
                    # the engine requires client certificates from the case's CA;
                    # the runner has one, the driver too (mtls) or not
                    client_ca = str(ca_path)
                    runner_cert = make_client_cert(workdir / "certs", "jobwire-runner")
                    if mode == "mtls":
                        case.driver_client_cert = make_client_cert(workdir / "certs", "jobwire-worker")
            case.engine = Engine(workdir, extra_args=[str(a) for a in d.get("engine_args") or []], tls=tls,
                                 oauth=bool(d.get("oauth")), name="engine", client_ca=client_ca).start()
            case.clients = Clients(case.engine.address, ca_path=ca_path, oauth_url=case.engine.oauth_url,
                                   tls_server_name=server_name, client_secret=case.engine.client_secret,
                                   admin_token=case.engine.admin_token, client_cert=runner_cert)
            case.clients.wait_ready()
            address = case.engine.address
        else:
            address, case.clients = target.shared()
        case.gateway_address = address
        if target.has_admin:
            case.mark("__start__")
        # ----------------------------------------------------------- proxy
        if d.get("proxy"):
            popts = d["proxy"] if isinstance(d["proxy"], dict) else {}
            case.proxy = Proxy(address.split(",")[0], workdir / "proxy.log",
                               max_concurrent_streams=popts.get("max_concurrent_streams"))
            address = case.proxy.address
        # ---------------------------------------------------------- deploy
        for f in d.get("deploy") or []:
            _deploy_file(case, f)
        # ---------------------------------------------------------- driver
        env = base_env()
        env["ZEEBE_ADDRESS"] = address
        if target.external and target.settings is not None and own_engine == "shared":
            env.update(target.settings.driver_env())
        elif ca_path:
            env["ZEEBE_INSECURE_CONNECTION"] = "false"
            env["ZEEBE_CA_CERTIFICATE_PATH"] = str(driver_ca)
            cc = getattr(case, "driver_client_cert", None)
            if cc:
                env["ZEEBE_CLIENT_CERTIFICATE_PATH"] = str(cc[0])
                env["ZEEBE_CLIENT_PRIVATE_KEY_PATH"] = str(cc[1])
        else:
            env["ZEEBE_INSECURE_CONNECTION"] = "true"
        if case.engine and case.engine.oauth_url:
            env["ZEEBE_CLIENT_ID"] = "jobwire"
            env["ZEEBE_CLIENT_SECRET"] = case.engine.client_secret
            env["ZEEBE_AUTHORIZATION_SERVER_URL"] = case.engine.oauth_url
            env["ZEEBE_TOKEN_AUDIENCE"] = "zeebe-api"
        for k, v in (d.get("driver_env") or {}).items():
            env[k] = str(v)
        case.driver = Driver(driver_command(sdk), env, workdir / "driver.log")
        ready = case.driver.wait_event(lambda e: e["event"] == "ready", 120, "the driver's ready event")
        case.note(f"driver ready: {ready.get('sdk')} {ready.get('version')}")
        case.sdk_version = str(ready.get("version", ""))
        if case.has_admin and case.wants_sampling():
            case.start_sampling()
        # ----------------------------------------------------------- steps
        for i, st in enumerate(d.get("steps") or []):
            (kind, arg), = st.items()
            case.note(f"step {i}: {kind} {json.dumps(arg)[:160]}")
            STEPS[kind](case, arg)
        # ----------------------------------------------------------- final
        fails = case.check_facts(d.get("expect") or {})
        for name in d.get("checks") or []:
            try:
                getattr(checks, name)(case)
            except Unavailable as e:
                case.unchecked.append(f"check {name}: {e}")
            except AssertionError as e:
                fails.append(f"check {name}: {e}")
        if case.driver.bad_lines:
            fails.append(f"driver wrote {len(case.driver.bad_lines)} non-JSON stdout lines, e.g. "
                         f"{case.driver.bad_lines[0][:120]!r}")
        if fails:
            raise AssertionError("expectations failed:\n  " + "\n  ".join(fails))
        return case
    except CaseTimeout as e:
        case.note(str(e))
        raise


def teardown(case: Case):
    case.stop_sampling()
    if case.driver:
        rc = case.driver.close()
        case.note(f"driver exit code {rc}")
    if getattr(case, "faulted", False) and not case.engine and not case.cluster and case.clients:
        # a case that failed before its `fault: clear` must not leave rejections (an unconsumed
        # count) or latency on the shared engine for the cases after it
        try:
            case.clients.a("ClearFaults", case.clients.ad_pb.ClearFaultsRequest())
        except Exception as e:  # noqa: BLE001 - the next case's engine probe replaces a dead engine
            case.note(f"clearing faults failed: {e}")
    if case.target.external and not case.engine and not case.cluster and case.clients:
        try:
            clean_up_external(case)
        except Exception as e:  # noqa: BLE001
            case.note(f"clean-up failed: {e}")
            case.cleanup_problem = f"clean-up failed: {e}"
    if case.proxy:
        case.proxy.stop()
    if case.engine or case.cluster:
        if case.clients:
            case.clients.close()
    if case.engine:
        case.engine.stop()
    if case.cluster:
        case.cluster.stop()
    case.log_path = case.workdir / "case.log"
    case.log_path.write_text("\n".join(case.log) + "\n\nresults:\n" + "\n".join(
        f"  {r[3]:9} {r[0]} expected {r[1]!r} got {r[2]!r}" for r in case.results) + "\n")


def clean_up_external(case: Case, rounds: int = 10):
    """On an external gateway the runner has no admin API: it cancels every
    process instance of this case that may still run, and touches nothing
    else. It knows them from (a) the instance keys of the jobs the driver
    started (`processInstanceKey` in job_start), (b) a sweep that activates
    what is left of the case's own, unique job type, and skips (c) the ones a
    with-result call saw complete. NOT_FOUND on cancel means already ended."""
    import grpc
    end = time.monotonic() + 2  # answers already on their way (jobs completed just before the close)
    while time.monotonic() < end:
        with case._wr_lock:
            if all(h.get("done") for h in case.with_result):
                break
        time.sleep(0.05)
    completed = set()
    with case._wr_lock:
        for h in case.with_result:
            if h.get("ok") and h.get("key"):
                completed.add(int(h["key"]))
        not_completed = sum(1 for h in case.with_result if not h.get("ok"))
    keys = {int(e["processInstanceKey"]) for e in case.events("job_start") if e.get("processInstanceKey")}
    types = sorted({case.job_type} | {st["start_worker"].get("jobType") for st in case.data.get("steps") or []
                                      if "start_worker" in st and st["start_worker"].get("jobType")})
    stats = {"swept": 0, "cancelled": 0, "ended": 0}
    done: set = set()

    def sweep():
        for jt in types:
            for _ in range(rounds):
                jobs = case.clients.activate_jobs(jt)
                stats["swept"] += len(jobs)
                keys.update(j.processInstanceKey for j in jobs)
                if not jobs:
                    break

    def cancel():
        for k in sorted(keys - completed - done):
            try:
                case.clients.cancel_instance(k)
                stats["cancelled"] += 1
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                stats["ended"] += 1
            done.add(k)

    sweep()
    cancel()
    # every instance created and not seen completing must be cancelled (or found ended). One whose key
    # the runner never learnt has its job still activated for a closed worker (an SDK that did not hand
    # it back): it comes back when that activation times out, so the sweep goes on until the longest job
    # timeout the case set has passed (at most 30 s)
    unknown = not_completed - len(keys - completed)
    if unknown > 0:
        longest = max([int((st["start_worker"].get("options") or {}).get("jobTimeoutMs", 30000))
                       for st in case.data.get("steps") or [] if "start_worker" in st] or [30000])
        end = time.monotonic() + min(30.0, longest / 1000 + 2)
        case.note(f"clean-up: {unknown} instances not found yet; sweeping until their jobs time out "
                  f"({end - time.monotonic():.0f} s at most)")
        while unknown > 0 and time.monotonic() < end:
            sweep()
            cancel()
            unknown = not_completed - len(keys - completed)
            time.sleep(0.2)
    case.cancelled_instances = stats["cancelled"]
    case.note(f"clean-up: {stats['cancelled']} instances cancelled ({stats['ended']} had already ended, "
              f"{len(completed)} completed; {stats['swept']} leftover jobs of {', '.join(types)} swept)")
    if unknown > 0:
        case.cleanup_problem = (f"{unknown} instances of {case.process_id} could not be cancelled: their jobs are "
                                "still activated for a closed worker, so their keys are unknown; they remain "
                                "until cancelled in Operate")
        case.note(case.cleanup_problem)


# ------------------------------------------------------------------ steps
def _deploy_file(case: Case, f: str):
    text = (case.sc.path / f).read_text()
    for k, v in case.subs.items():
        text = text.replace("${" + k + "}", v)
    case.record_deployment(case.clients.deploy(f, text.encode()))
    case.note(f"deployed {f}")


def _deploy(case: Case, a):
    """`deploy: file` or `deploy: [files]`: deploys during the steps (e.g. a process's second version)."""
    for f in (a if isinstance(a, list) else [a]):
        _deploy_file(case, str(f))


def _call(case: Case, a):
    """`call: {id, method, request, timeout_s}`: the driver's `call` command (one client command through the
    SDK's public API); waits for its `call_result`. Run-time placeholders in `request` are resolved first."""
    cid = str(a["id"])
    req = case.resolve(a.get("request") or {})
    case.note(f"call {cid} {a['method']} {json.dumps(req)[:300]}")
    case.driver.send(cmd="call", id=cid, method=a["method"], request=req)
    ev = case.driver.wait_event(lambda e: e["event"] == "call_result" and str(e.get("id")) == cid,
                                float(a.get("timeout_s", 30)), f"call_result {cid}")
    case.calls[cid] = ev
    case.note(f"call_result {cid}: " + json.dumps({k: v for k, v in ev.items() if k not in ("t", "_rt")})[:400])


def _start_worker(case: Case, a):
    wid = a.get("id", "w1")
    case.driver.send(cmd="start_worker", id=wid, jobType=a.get("jobType", case.job_type),
                     options=a.get("options") or {}, behavior=a.get("behavior") or [])
    case.driver.wait_event(lambda e: e["event"] == "worker_started" and e.get("worker") == wid, 20,
                           f"worker_started {wid}")


def _stop_worker(case: Case, a):
    wid = a.get("id", "w1")
    tmo = int(a.get("timeoutMs", 5000))
    n = len(case.events("worker_closed", wid))
    case.driver.send(cmd="stop_worker", id=wid, timeoutMs=tmo)
    if a.get("wait", True):
        closed = case.driver.wait_event(lambda e: e["event"] == "worker_closed" and e.get("worker") == wid
                                        and len(case.events("worker_closed", wid)) > n, tmo / 1000 + 15,
                                        f"worker_closed {wid}")
        if str((case.data.get("driver_env") or {}).get("JOBWIRE_DRIVER_OTEL")) == "1":
            # the contract emits `metrics` right after each worker_closed
            try:
                case.driver.wait_event(lambda e: e["event"] == "metrics" and e["_rt"] >= closed["_rt"], 5,
                                       "metrics after worker_closed")
            except Exception as e:  # noqa: BLE001 - the expectations report the absence
                case.note(str(e))


def _release(case: Case, a):
    cmd = {"cmd": "release", "id": a.get("id", "w1")}
    if a.get("count") is not None:
        cmd["count"] = int(a["count"])
    case.driver.send(**cmd)


def _create_instances(case: Case, a):
    insts = a.get("instances") or [a.get("variables") or {}] * int(a.get("count", 1))
    if a.get("pad_bytes"):
        insts = [{**v, "pad": "x" * int(a["pad_bytes"])} for v in insts]
    if a.get("sequence"):
        # `sequence: {name: n, start: N}`: instance i gets n = N + i, its decimal text in nText and a
        # jwBehavior completing with {echo: N + i} (read through the SDK's parsed variables)
        name, start = a["sequence"].get("name", "n"), int(a["sequence"]["start"])
        insts = [{**v, name: start + i, f"{name}Text": str(start + i),
                  "jwBehavior": [{"complete": {"echo": start + i}}]} for i, v in enumerate(insts)]
        case.sequence = {"name": name, "values": {start + i for i in range(len(insts))}}
    if a.get("handler_sleep_ms"):
        # `handler_sleep_ms: [lo, hi]`: instance i's jwBehavior sleeps a duration drawn uniformly from
        # [lo, hi] ms (seeded: the same sequence every run), then completes; handlers that end at
        # scattered times keep a push worker's slots refilled one by one instead of in lockstep
        lo, hi = (int(x) for x in a["handler_sleep_ms"])
        rnd = random.Random(35)
        insts = [{**v, "jwBehavior": [{"sleep": rnd.randint(lo, hi)}, {"complete": {}}]} for v in insts]
    pid = a.get("process", case.process_id)
    if "definition" in a or "expect_code" in a:
        return _create_by_definition(case, a, insts)
    if a.get("background"):
        return _create_in_background(case, pid, insts, float(a.get("rate_per_s", 20)))
    if a.get("in_flight"):
        return _create_closed_loop(case, pid, insts, int(a["in_flight"]))
    for v in insts:
        if case.has_admin:
            r = case.clients.create_instance(pid, v)
            case.instance_keys.append(r.processInstanceKey)
            case.instance_pids[r.processInstanceKey] = pid
        else:
            holder = {"done": False}
            tmo = int(case.data.get("timeout_s", 60) * 1000)

            def call(v=v, holder=holder):
                try:
                    r = case.clients.create_instance_with_result(pid, v, tmo)
                    holder.update(ok=True, variables=r.variables or "{}", key=r.processInstanceKey)
                except Exception as e:  # noqa: BLE001
                    holder.update(ok=False, error=str(e))
                holder["done"] = True
            with case._wr_lock:
                case.with_result.append(holder)
            threading.Thread(target=call, daemon=True).start()
        case.created += 1


def _create_by_definition(case: Case, a, insts: list):
    """`create_instances: {definition: ${process:1}, expect_code: NOT_FOUND}`: creates by process definition
    key (the runner's own call); with `expect_code` the engine must refuse each creation with that code."""
    import grpc
    gw = case.clients.gw_pb
    key = int(case.resolve(str(a["definition"] if "definition" in a else "${process:1}")))
    want = a.get("expect_code")
    for v in insts:
        req = gw.CreateProcessInstanceRequest(processDefinitionKey=key, variables=json.dumps(v))
        try:
            r = case.clients._retry(lambda: case.clients.gw.CreateProcessInstance(req, timeout=10,
                                                                                   metadata=case.clients.md()))
        except grpc.RpcError as e:
            if want and e.code().name == want:
                case.note(f"create by definition {key}: {e.code().name} as expected")
                continue
            raise AssertionError(f"create by definition {key}: {e.code().name} {e.details()}"
                                 + (f", want {want}" if want else "")) from None
        if want:
            raise AssertionError(f"create by definition {key} succeeded (instance {r.processInstanceKey}), "
                                 f"want {want}")
        case.instance_keys.append(r.processInstanceKey)
        case.instance_pids[r.processInstanceKey] = r.bpmnProcessId
        case.created += 1


def _create_closed_loop(case: Case, pid: str, insts: list, in_flight: int):
    """`in_flight: K`: a closed loop, as a load test runs it — K instances at
    a time, each created with result and replaced when it completes, until
    every instance ran. Each instance carries `jwCreatedMs` (epoch ms at its
    creation), so checks can measure how long its job waited for a worker.
    The step returns when all completed (it fails on the first error)."""
    todo = list(enumerate(insts))
    lock = threading.Lock()
    errors: list = []
    tmo = int(case.data.get("timeout_s", 60) * 1000)

    def loop():
        while True:
            with lock:
                if not todo or errors:
                    return
                _, v = todo.pop(0)
            try:
                r = case.clients.create_instance_with_result(pid, {**v, "jwCreatedMs": int(time.time() * 1000)}, tmo)
            except Exception as e:  # noqa: BLE001
                with lock:
                    errors.append(str(e))
                return
            with lock:
                case.created += 1
            with case._wr_lock:  # the no-admin facts (instances.completed, instances.var) read these
                case.with_result.append({"done": True, "ok": True, "variables": r.variables or "{}",
                                         "key": r.processInstanceKey})
    threads = [threading.Thread(target=loop, daemon=True) for _ in range(max(1, in_flight))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise AssertionError(f"closed-loop creation failed: {errors[0]}")
    case.note(f"closed loop: {case.created} instances created, {in_flight} in flight")


def _create_in_background(case: Case, pid: str, insts: list, rate: float):
    """`background: true`: creation goes on (at `rate_per_s`) while the next
    steps run — e.g. across an engine restart; each creation retries
    transient errors (the runner's own retry budget). `await_creation` waits
    for the end; a creation that still failed fails that step."""
    errors: list = []

    def run():
        t0 = time.monotonic()
        for i, v in enumerate(insts):
            time.sleep(max(0.0, t0 + i / rate - time.monotonic()))
            try:
                case.clients.create_instance(pid, v)
            except Exception as e:  # noqa: BLE001
                errors.append(f"instance {i}: {e}")
                continue
            case.created += 1
    t = threading.Thread(target=run, daemon=True)
    case.background.append((t, errors, len(insts)))
    t.start()


def _await_creation(case: Case, a):
    a = a or {}
    end = time.monotonic() + float(a.get("timeout_s", 60))
    for t, errors, n in case.background:
        t.join(max(0.0, end - time.monotonic()))
        if t.is_alive():
            raise AssertionError(f"background creation of {n} instances still running at the timeout")
        if errors:
            raise AssertionError(f"{len(errors)} of {n} background creations failed, e.g. {errors[0]}")
    case.note(f"background creation done: {case.created} instances created")
    case.background.clear()


def _sleep(case: Case, ms):
    time.sleep(int(ms) / 1000.0)


def _wait_until(case: Case, a):
    a = dict(a)
    case.wait_until(a, float(a.pop("timeout_s", 15)))


def _expect(case: Case, a):
    fails = case.check_facts(a)
    if fails:
        raise AssertionError("expectation failed:\n  " + "\n  ".join(fails))


def _mark(case: Case, name):
    case.mark(name)


def _fault(case: Case, a):
    pb, c = case.clients.ad_pb, case.clients
    case.faulted = True
    if a == "clear" or (isinstance(a, dict) and "clear" in a):
        c.a("ClearFaults", pb.ClearFaultsRequest())
        return
    (kind, arg), = a.items()
    if kind == "reset_streams":
        r = c.a("ResetStreams", pb.ResetStreamsRequest(code=int(arg.get("code", 0)),
                                                       include_long_polls=bool(arg.get("include_long_polls"))))
        case.note(f"reset streams: {r.streams_closed} streams, {r.long_polls_closed} long polls")
        return
    if kind == "reject":
        # after_apply: the engine applies the command, then answers `code` (a lost answer)
        code = arg["code"]
        if isinstance(code, str) and not code.isdigit():  # a status name, e.g. UNAVAILABLE
            import grpc
            code = grpc.StatusCode[code].value[0]
        req = pb.InjectFaultRequest(reject=pb.RejectFault(method=arg.get("method", ""), code=int(code),
                                                          count=int(arg.get("count", 1)),
                                                          message=arg.get("message", "injected"),
                                                          after_apply=bool(arg.get("after_apply", False))))
    elif kind == "latency":
        req = pb.InjectFaultRequest(latency=pb.LatencyFault(method=arg.get("method", ""),
                                                            delay_ms=int(arg["delay_ms"])))
    elif kind == "stall_streams":
        req = pb.InjectFaultRequest(stall_streams=pb.StallStreamsFault(type=arg.get("type", case.job_type),
                                                                       duration_ms=int(arg["duration_ms"])))
    else:
        raise ValueError(kind)
    c.a("InjectFault", req)


def _proxy(case: Case, a):
    if isinstance(a, str):
        kind, arg = a, {}
    else:
        (kind, arg), = a.items()
        arg = arg or {}
    r = case.proxy.cmd(kind, **{k: v for k, v in arg.items()})
    case.note(f"proxy {kind}: {r}")


def _restart_engine(case: Case, a):
    a = a or {}
    case.engine.restart(down_ms=int(a.get("down_ms", 500)), kill=bool(a.get("kill", True)))
    case.note(f"engine restarted on {case.engine.address}")
    case.clients.wait_ready()


def _stop_broker(case: Case, a):
    a = a if isinstance(a, dict) else {"node": a}
    node = int(a.get("node", 1))
    case.cluster.stop_broker(node, graceful=bool(a.get("graceful", False)))
    case.note(f"broker {node} stopped ({'SIGTERM' if a.get('graceful') else 'SIGKILL'})")


def _start_broker(case: Case, a):
    a = a if isinstance(a, dict) else {"node": a}
    node = int(a.get("node", 1))
    case.cluster.start_broker(node)
    case.note(f"broker {node} restarted and healthy on every gateway")


def _restart_gateway(case: Case, a):
    a = a if isinstance(a, dict) else {"index": a}
    idx = int(a.get("index", 0))
    case.cluster.restart_gateway(idx, graceful=bool(a.get("graceful", False)))
    case.note(f"gateway {idx} ({case.cluster.gateways[idx]}) restarted "
              f"({'SIGTERM' if a.get('graceful') else 'SIGKILL'})")


def _check(case: Case, name):
    getattr(checks, name)(case)


STEPS = {"start_worker": _start_worker, "stop_worker": _stop_worker, "release": _release,
         "create_instances": _create_instances, "sleep": _sleep, "wait_until": _wait_until, "expect": _expect,
         "mark": _mark, "fault": _fault, "proxy": _proxy, "restart_engine": _restart_engine, "check": _check,
         "stop_broker": _stop_broker, "start_broker": _start_broker, "restart_gateway": _restart_gateway,
         "await_creation": _await_creation, "call": _call, "deploy": _deploy}
