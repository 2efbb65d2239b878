"""Scenario loading and interpretation: the vocabulary documented in
conformance-tests/README.md.

A scenario is data (scenario.yaml). ``Case`` runs its steps against one SDK
driver and evaluates *facts* from three sources: the engine's admin view,
the fault proxy's counters and the driver's events.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from facts import ScenarioError, Unavailable, max_concurrent, metric_value  # noqa: F401  (also used as case.Unavailable, ...)
from harness import SUITE

SCEN_DIR = SUITE / "scenarios"

# ---------------------------------------------------------------- vocabulary
TOP_KEYS = {"name", "summary", "pain", "requires", "engine", "engine_args", "tls", "oauth", "proxy",
            "driver_env", "deploy", "timeout_s", "steps", "expect", "checks", "notes", "cluster"}
STEP_KINDS = {"start_worker", "stop_worker", "release", "create_instances", "sleep", "wait_until", "expect",
              "mark", "fault", "proxy", "restart_engine", "check", "stop_broker", "start_broker", "restart_gateway",
              "await_creation", "call", "deploy"}
# the driver's `call` command (DRIVER-CONTRACT.md, Client commands): method -> request fields
CALL_METHODS = {
    "evaluateDecision": {"decisionId", "decisionKey", "variables", "tenantId"},
    "modifyProcessInstance": {"processInstanceKey", "activate", "terminate"},
    "migrateProcessInstance": {"processInstanceKey", "targetProcessDefinitionKey", "mappings"},
    "deleteResource": {"resourceKey"},
    "broadcastSignal": {"signalName", "variables", "tenantId"},
}
# values known only at run time, resolved when a `call` step runs (and in conditions when checked):
#   ${process:V} / ${process:ID:V}  process definition key of the case's process (or ID), version V, deployed by the case
#   ${decision:ID}  decision key;  ${drg:ID}  decision requirements key (deployed by the case)
#   ${instance:N}   key of the N-th instance the case created (0-based)
#   ${element:N:E}  key of the one live element instance of element E in instance N (admin view)
#   ${call:ID:F}    field F of the result of the earlier call ID
PLACEHOLDER_RE = re.compile(r"\$\{(process|decision|drg|instance|element|call):([^}]*)\}")
# facts about a call: calls.<id>.ok / .code / .errorType / .message / .result.<field> / .output (decisionOutput parsed)
CALL_FACT_RE = re.compile(r"^calls\.(?P<id>[A-Za-z0-9_-]+)\.(?P<name>ok|code|errorType|message|result|output)"
                          r"(?:\.(?P<field>[A-Za-z0-9_]+))?$")
CLUSTER_STEPS = {"stop_broker", "start_broker", "restart_gateway"}
CAPABILITIES = {"admin", "proxy", "restart", "tls", "oauth", "long_polling", "streaming", "timers", "cluster"}
ADMIN_FAULTS = {"reject", "latency", "stall_streams", "clear", "reset_streams"}
REJECT_KEYS = {"method", "code", "count", "message", "after_apply"}
PROXY_ACTIONS = {"goaway", "rst", "end", "stall", "unstall", "delay", "drop", "unimplemented", "clear", "pings",
                 "blackhole"}
BEHAVIOR_STEPS = {"sleep", "block", "extendTimeout", "complete", "completeEcho", "completePad", "fail", "throwError", "crash",
                  "failNonRetryable"}
WORKER_OPTIONS = {"workerName", "maxJobsActive", "concurrency", "jobTimeoutMs", "requestTimeoutMs",
                  "pollIntervalMs", "streamEnabled", "streamTimeoutMs", "fetchVariables", "autoExtend",
                  "retryBackOffMs", "typed", "retryPolicy", "middleware"}
OPS = {"eq", "ne", "gte", "lte", "gt", "lt", "in"}

FACT_RE = re.compile(r"^(?P<src>instances|jobs|streams|long_polls|requests|proxy|driver)\.(?P<name>[A-Za-z_]+)"
                     r"(?:\[(?P<filt>[^\]]*)\])?$")
FACTS = {
    "instances": {"completed", "active", "incident", "canceled", "total", "max_completion_count", "var", "var_any",
                  "elements", "element_var", "version", "definition_key"},
    "jobs": {"activatable", "activated", "failed_backoff", "incident", "completed", "error_thrown", "canceled",
             "total", "max_complete_count", "timeouts", "yields", "activations", "fails",
             "max_activation_count", "min_retries", "max_activated", "var"},
    "streams": {"open", "pushed", "yielded"},
    "long_polls": {"parked"},
    "requests": {"count"},
    "proxy": None,  # any counter the proxy's /stats reports
    "driver": {"job_start", "job_end", "max_concurrent", "distinct_keys", "duplicate_starts", "errors",
               "states", "last_state", "worker_closed_ms", "worker_closed", "spans", "metric", "events"},
}
ADMIN_SOURCES = {"instances", "jobs", "streams", "long_polls", "requests"}


# ------------------------------------------------------------------ loading
@dataclass
class Scenario:
    name: str
    path: Path
    data: dict
    requires: list = field(default_factory=list)

    @property
    def area(self):
        return self.name.split("/")[0]


def load_all() -> list[Scenario]:
    out = []
    for f in sorted(SCEN_DIR.glob("*/*/scenario.yaml")):
        data = yaml.safe_load(f.read_text())
        name = f"{f.parent.parent.name}/{f.parent.name}"
        out.append(Scenario(name=name, path=f.parent, data=data, requires=list(data.get("requires") or [])))
    return out


def parse_filters(s: str | None) -> dict:
    if not s:
        return {}
    out = {}
    for part in s.split(","):
        k, _, v = part.partition("=")
        out[k.strip()] = v.strip()
    return out


def validate(sc: Scenario) -> list[str]:
    """Returns a list of problems (empty when the scenario follows the vocabulary)."""
    d, errs = sc.data, []
    if not isinstance(d, dict):
        return ["scenario.yaml is not a mapping"]
    for k in d:
        if k not in TOP_KEYS:
            errs.append(f"unknown top-level key {k!r}")
    if d.get("name") != sc.name:
        errs.append(f"name {d.get('name')!r} != folder {sc.name!r}")
    for c in d.get("requires") or []:
        if c not in CAPABILITIES:
            errs.append(f"unknown capability {c!r}")
    readme = sc.path / "README.md"
    if not readme.exists():
        errs.append("README.md missing")
    else:
        text = readme.read_text()
        for part in (f"# {sc.name}", "**Spec.**", "**Pain guarded.**"):
            if part not in text:
                errs.append(f"README.md lacks {part!r}")
    for k in ("summary", "pain"):
        if not d.get(k):
            errs.append(f"{k!r} missing")
    for b in d.get("deploy") or []:
        if not (sc.path / b).exists():
            errs.append(f"deploy file {b} missing")
    if d.get("engine", "shared") not in ("shared", "own", "cluster"):
        errs.append("engine must be shared, own or cluster")
    if isinstance(d.get("proxy"), dict) and not set(d["proxy"]) <= {"max_concurrent_streams"}:
        errs.append("proxy: takes true or {max_concurrent_streams: N}")
    if d.get("tls") not in (None, False, True, "wrong_ca", "wrong_host", "mtls", "mtls_no_client_cert"):
        errs.append("tls must be true, wrong_ca, wrong_host, mtls or mtls_no_client_cert")
    if (d.get("tls") or d.get("oauth") or "restart" in (d.get("requires") or [])) and d.get("engine") != "own":
        errs.append("tls/oauth/restart scenarios need `engine: own`")
    if ("cluster" in (d.get("requires") or [])) != (d.get("engine") == "cluster"):
        errs.append("`engine: cluster` and `requires: [cluster]` go together")
    if d.get("engine") == "cluster" and (d.get("tls") or d.get("oauth") or d.get("engine_args")):
        errs.append("the cluster target has no tls/oauth/engine_args")
    if "cluster" in d and (not isinstance(d["cluster"], dict) or not set(d["cluster"]) <= {"gateways", "brokers",
                                                                                            "partitions"}):
        errs.append("cluster: takes {gateways, brokers, partitions}")
    import checks as checks_mod
    names = list(d.get("checks") or [])
    call_ids: set = set()
    for i, st in enumerate(d.get("steps") or []):
        if not isinstance(st, dict) or len(st) != 1:
            errs.append(f"step {i}: must be a one-key mapping")
            continue
        (kind, arg), = st.items()
        if kind not in STEP_KINDS:
            errs.append(f"step {i}: unknown step {kind!r}")
        if kind == "start_worker":
            for o in (arg.get("options") or {}):
                if o not in WORKER_OPTIONS:
                    errs.append(f"step {i}: unknown worker option {o!r}")
            errs += [f"step {i}: {e}" for e in _validate_behavior(arg.get("behavior") or [])]
        if kind == "create_instances":
            hs = arg.get("handler_sleep_ms")
            if hs is not None and not (isinstance(hs, list) and len(hs) == 2 and all(isinstance(x, int) for x in hs)
                                       and 0 <= hs[0] <= hs[1]):
                errs.append(f"step {i}: handler_sleep_ms must be [lo, hi] ms with 0 <= lo <= hi, not {hs!r}")
            for inst in arg.get("instances") or [arg.get("variables") or {}]:
                if "jwBehavior" in inst:
                    errs += [f"step {i}: {e}" for e in _validate_behavior(inst["jwBehavior"])]
        if kind in ("wait_until", "expect"):
            errs += [f"step {i}: {e}" for e in _validate_facts({k: v for k, v in arg.items() if k != "timeout_s"})]
        if kind == "fault":
            key = arg if isinstance(arg, str) else next(iter(arg))
            if key not in ADMIN_FAULTS:
                errs.append(f"step {i}: unknown admin fault {key!r}")
            if "admin" not in (d.get("requires") or []):
                errs.append(f"step {i}: admin faults need `requires: [admin]`")
        if kind == "proxy":
            key = arg if isinstance(arg, str) else next(iter(arg))
            if key not in PROXY_ACTIONS:
                errs.append(f"step {i}: unknown proxy action {key!r}")
            if not d.get("proxy"):
                errs.append(f"step {i}: proxy steps need `proxy: true`")
        if kind == "restart_engine" and "restart" not in (d.get("requires") or []):
            errs.append(f"step {i}: restart_engine needs `requires: [restart]`")
        if kind in CLUSTER_STEPS and "cluster" not in (d.get("requires") or []):
            errs.append(f"step {i}: {kind} needs `requires: [cluster]`")
        if kind == "check":
            names.append(arg)
        if kind == "fault" and isinstance(arg, dict) and isinstance(arg.get("reject"), dict):
            extra = set(arg["reject"]) - REJECT_KEYS
            if extra:
                errs.append(f"step {i}: unknown reject fields {sorted(extra)}")
        if kind == "call":
            errs += [f"step {i}: {e}" for e in _validate_call(arg, call_ids)]
            if isinstance(arg, dict) and arg.get("id"):
                call_ids.add(str(arg["id"]))
        if kind == "deploy":
            files = arg if isinstance(arg, list) else [arg]
            for b in files:
                if not (sc.path / str(b)).exists():
                    errs.append(f"step {i}: deploy file {b} missing")
        if kind == "create_instances" and ("definition" in arg or "expect_code" in arg):
            if "admin" not in (d.get("requires") or []):
                errs.append(f"step {i}: create_instances by definition needs `requires: [admin]`")
        if kind in ("wait_until", "expect"):
            errs += [f"step {i}: {e}" for e in _validate_call_facts(arg, call_ids)]
    errs += _validate_facts(d.get("expect") or {})
    errs += _validate_call_facts(d.get("expect") or {}, call_ids)
    if any(m.group(1) == "element" for m in PLACEHOLDER_RE.finditer(json.dumps(d.get("steps") or []))) \
            and "admin" not in (d.get("requires") or []):
        errs.append("${element:...} reads the admin view: needs `requires: [admin]`")
    for n in names:
        if not callable(getattr(checks_mod, n, None)):
            errs.append(f"check {n!r} is not a function in runner/checks.py")
    return errs


def _validate_call(arg, known: set) -> list[str]:
    if not isinstance(arg, dict) or not arg.get("id") or arg.get("method") not in CALL_METHODS:
        return [f"call takes {{id, method, request, timeout_s}} with method one of {sorted(CALL_METHODS)}: {arg!r}"]
    errs = []
    extra = set(arg) - {"id", "method", "request", "timeout_s"}
    if extra:
        errs.append(f"call {arg['id']}: unknown keys {sorted(extra)}")
    if str(arg["id"]) in known:
        errs.append(f"call id {arg['id']} used twice")
    req = arg.get("request") or {}
    if not isinstance(req, dict):
        return errs + [f"call {arg['id']}: request must be a mapping"]
    bad = set(req) - CALL_METHODS[arg["method"]]
    if bad:
        errs.append(f"call {arg['id']}: {arg['method']} has no request fields {sorted(bad)}")
    for m in PLACEHOLDER_RE.finditer(json.dumps(req)):
        if m.group(1) == "call" and m.group(2).split(":")[0] not in known:
            errs.append(f"call {arg['id']}: ${{call:{m.group(2)}}} names no earlier call")
    return errs


def _validate_call_facts(facts: dict, known: set) -> list[str]:
    errs = []
    for k in facts:
        m = CALL_FACT_RE.match(k)
        if m and m["id"] not in known:
            errs.append(f"fact {k}: no earlier call step has id {m['id']}")
        if m and m["name"] == "result" and not m["field"]:
            errs.append(f"fact {k}: name the result field (calls.<id>.result.<field>)")
    return errs


def _validate_behavior(steps) -> list[str]:
    errs = []
    for s in steps:
        if not isinstance(s, dict) or len(s) != 1 or next(iter(s)) not in BEHAVIOR_STEPS:
            errs.append(f"bad behaviour step {s!r}")
    return errs


def _validate_facts(facts: dict) -> list[str]:
    errs = []
    for k, cond in facts.items():
        if CALL_FACT_RE.match(k):
            continue
        m = FACT_RE.match(k)
        if not m:
            errs.append(f"bad fact {k!r}")
            continue
        allowed = FACTS[m["src"]]
        if allowed is not None and m["name"] not in allowed:
            errs.append(f"unknown fact {k!r}")
        if isinstance(cond, dict) and not set(cond) <= OPS:
            errs.append(f"bad condition for {k}: {cond!r}")
    return errs


def substitute(obj, subs: dict):
    if isinstance(obj, str):
        for k, v in subs.items():
            obj = obj.replace("${" + k + "}", v)
        return obj
    if isinstance(obj, list):
        return [substitute(x, subs) for x in obj]
    if isinstance(obj, dict):
        return {substitute(k, subs): substitute(v, subs) for k, v in obj.items()}
    return obj


def compare(actual, cond) -> bool:
    if isinstance(cond, dict):
        ok = True
        for op, v in cond.items():
            if op == "eq":
                ok &= actual == v
            elif op == "ne":
                ok &= actual != v
            elif op == "in":
                ok &= actual in v
            else:
                if actual is None:
                    return False
                ok &= {"gte": actual >= v, "lte": actual <= v, "gt": actual > v, "lt": actual < v}[op]
        return ok
    return actual == cond


# ---------------------------------------------------------------- the case
class Case:
    """One scenario run for one SDK. Owns the driver, optionally its own
    engine and a proxy; evaluates facts."""

    def __init__(self, sc: Scenario, sdk: str, target, workdir: Path, uid: str, run_id: str = ""):
        self.sc, self.sdk, self.target, self.workdir = sc, sdk, target, workdir
        short = sc.name.split("/")[1][:24].strip("-")
        if run_id:  # a shared gateway: every name starts with the run's prefix
            self.job_type = f"jwc-{run_id}-{short}-{sdk}-{uid}"
            self.process_id = f"jwc-{run_id}-p-{short}-{sdk}-{uid}"
        else:
            self.job_type = f"jw-{short}-{sdk}-{uid}"
            self.process_id = f"p-{short}-{sdk}-{uid}"
        self.subs = {"jobType": self.job_type, "processId": self.process_id}
        self.data = substitute(sc.data, self.subs)
        self.clients = None
        self.engine = None
        self.cluster = None
        self.proxy = None
        self.driver = None
        self.marks: dict[str, tuple[float, dict]] = {}
        self.proxy_marks: dict[str, dict] = {}
        self.log: list[str] = []
        self.results: list[tuple[str, object, object, str]] = []  # (fact, cond, actual, verdict)
        self.unchecked: list[str] = []
        self.with_result: list = []   # (thread, holder) for no-admin instance tracking
        self.created = 0
        self.background: list = []  # (thread, errors, count) of create_instances background: true
        self._wr_lock = threading.Lock()
        self.t0 = time.time() * 1000
        self.samples: list[tuple[float, dict]] = []   # (epoch ms, {worker name: activated jobs, "*": all})
        self._sampling = False
        self.calls: dict[str, dict] = {}     # call id -> its call_result event
        self.deployed: list[dict] = []       # what the case deployed: {"kind", "id", "version", "key", ...}
        self.instance_keys: list[int] = []   # instances the runner created, in order
        self.instance_pids: dict[int, str] = {}  # their process ids

    # ----------------------------------------------------------- helpers
    @property
    def has_admin(self):
        return self.target.has_admin

    def note(self, msg):
        self.log.append(f"{time.time() * 1000 - self.t0:8.0f}ms {msg}")

    def events(self, kind=None, worker=None, since=None):
        evs = self.driver.snapshot() if self.driver else []
        return [e for e in evs if (kind is None or e.get("event") == kind)
                and (worker is None or e.get("worker") == worker)
                and (since is None or e["_rt"] >= since)]

    def _need_admin(self):
        if not self.has_admin:
            raise Unavailable("no admin API on this target")

    def jobs(self, job_type: str | None = None, variables: bool = False):
        self._need_admin()
        pb = self.clients.ad_pb
        r = self.clients.a("ListJobs", pb.ListJobsRequest(type=job_type or self.job_type, include_jobs=True,
                                                          include_variables=variables))
        return list(r.jobs)

    def instances(self, process_id: str | None = None, elements: bool = False):
        self._need_admin()
        pb = self.clients.ad_pb
        r = self.clients.a("ListProcessInstances",
                           pb.ListProcessInstancesRequest(bpmn_process_id=process_id or self.process_id,
                                                          include_instances=True, include_elements=elements))
        return list(r.instances)

    # ------------------------------------------------ client commands
    def record_deployment(self, resp):
        """Remembers the keys a DeployResource answer carries (for the ${process:..} placeholders)."""
        for dep in resp.deployments:
            kind = dep.WhichOneof("Metadata")
            m = getattr(dep, kind)
            if kind == "process":
                self.deployed.append({"kind": "process", "id": m.bpmnProcessId, "version": m.version,
                                      "key": m.processDefinitionKey})
            elif kind == "decision":
                self.deployed.append({"kind": "decision", "id": m.dmnDecisionId, "version": m.version,
                                      "key": m.decisionKey, "drg": m.decisionRequirementsKey})
            elif kind == "decisionRequirements":
                self.deployed.append({"kind": "drg", "id": m.dmnDecisionRequirementsId, "version": m.version,
                                      "key": m.decisionRequirementsKey})
            self.note(f"deployed {kind} {self.deployed[-1] if kind != 'form' else ''}")

    def resolve(self, obj, wait_s: float = 10.0):
        """Replaces the run-time placeholders (PLACEHOLDER_RE) in a request or condition."""
        if isinstance(obj, list):
            return [self.resolve(x, wait_s) for x in obj]
        if isinstance(obj, dict):
            return {k: self.resolve(v, wait_s) for k, v in obj.items()}
        if not isinstance(obj, str) or "${" not in obj:
            return obj
        return PLACEHOLDER_RE.sub(lambda m: str(self._placeholder(m.group(1), m.group(2), wait_s)), obj)

    def _placeholder(self, kind: str, arg: str, wait_s: float):
        def deployed(k, ident, version=None):
            hits = [d for d in self.deployed if d["kind"] == k and d["id"] == ident
                    and (version is None or d["version"] == version)]
            if not hits:
                raise ScenarioError(f"${{{kind}:{arg}}}: the case deployed no {k} {ident!r}"
                                    + (f" version {version}" if version is not None else "")
                                    + f" (deployed: {self.deployed})")
            return max(hits, key=lambda d: d["version"])["key"]
        if kind == "process":
            ident, _, ver = arg.rpartition(":")
            return deployed("process", ident or self.process_id, int(ver))
        if kind == "decision":
            return deployed("decision", arg)
        if kind == "drg":
            return deployed("drg", arg)
        if kind == "instance":
            i = int(arg)
            if i >= len(self.instance_keys):
                raise ScenarioError(f"${{instance:{arg}}}: the case created {len(self.instance_keys)} instances")
            return self.instance_keys[i]
        if kind == "element":
            n, _, elem = arg.partition(":")
            key = self._placeholder("instance", n, wait_s)
            end = time.monotonic() + wait_s
            while True:
                found = [e.key for i in self.instances(self.instance_pids.get(key), elements=True) if i.key == key
                         for e in i.active_elements if e.element_id == elem]
                if len(found) == 1:
                    return found[0]
                if len(found) > 1:
                    raise AssertionError(f"${{element:{arg}}}: {len(found)} live instances of {elem} in {key}")
                if time.monotonic() > end:
                    raise AssertionError(f"${{element:{arg}}}: no live instance of {elem} in instance {key} "
                                         f"after {wait_s:.0f} s")
                time.sleep(0.1)
        if kind == "call":
            cid, _, field_ = arg.partition(":")
            c = self.calls.get(cid)
            if not c or not c.get("ok"):
                raise AssertionError(f"${{call:{arg}}}: call {cid} did not succeed: {c}")
            return (c.get("result") or {})[field_]
        raise ScenarioError(kind)


    def streams(self):
        self._need_admin()
        r = self.clients.a("ListStreams", self.clients.ad_pb.ListStreamsRequest())
        return [s for s in r.streams if s.type == self.job_type]

    def long_polls(self):
        self._need_admin()
        r = self.clients.a("ListLongPolls", self.clients.ad_pb.ListLongPollsRequest())
        return [p for p in r.long_polls if p.type == self.job_type]

    def request_counts(self) -> dict:
        """{(method, code): count} summed over peers, plus (method, None)."""
        self._need_admin()
        r = self.clients.a("GetRequestCounts", self.clients.ad_pb.GetRequestCountsRequest())
        out: dict = {}
        for c in r.counts:
            out[(c.method, None)] = out.get((c.method, None), 0) + c.count
            for code, n in c.by_code.items():
                out[(c.method, code)] = out.get((c.method, code), 0) + n
        return out

    def request_times(self, method: str, since: float | None = None) -> list[int]:
        """Arrival times (epoch ms) of `method` requests from every peer, sorted."""
        self._need_admin()
        r = self.clients.a("GetRequestCounts", self.clients.ad_pb.GetRequestCountsRequest(method=method))
        since = self.t0 if since is None else since
        ts = sorted(t for c in r.counts if c.method == method for t in c.timestamps if t >= since)
        return ts

    def mark(self, name):
        base = self.request_counts() if self.has_admin else {}
        self.marks[name] = (time.time() * 1000, base)
        if self.proxy:
            self.proxy_marks[name] = self.proxy.stats()

    # ----------------------------------------------------------- facts
    def fact(self, key: str):
        cm = CALL_FACT_RE.match(key)
        if cm:
            return self._fact_call(cm["id"], cm["name"], cm["field"])
        m = FACT_RE.match(key)
        if not m:
            raise ScenarioError(f"bad fact {key!r}")
        src, name, f = m["src"], m["name"], parse_filters(m["filt"])
        if src in ADMIN_SOURCES and not self.has_admin:
            if src == "instances" and name in ("completed", "total", "var"):
                return self._fact_instances_noadmin(name, f)
            raise Unavailable(f"{key}: no admin API on this target")
        return getattr(self, f"_fact_{src}")(name, f)

    def _state_name(self, enum_cls, v, prefix):
        return enum_cls.Name(v)[len(prefix):].lower()

    def _fact_call(self, cid, name, field_):
        c = self.calls.get(cid)
        if c is None:
            raise AssertionError(f"calls.{cid}: no call_result for call {cid} (the step did not run)")
        if name == "ok":
            return bool(c.get("ok"))
        if name in ("code", "errorType", "message"):
            return c.get(name)
        res = c.get("result") or {}
        if name == "output":
            raw = res.get("decisionOutput")
            return json.loads(raw) if isinstance(raw, str) and raw else raw
        return res.get(field_)

    def _fact_instances(self, name, f):
        # filters: process=<bpmn process id> (default the case's), instance=<N: the N-th created>,
        # element=<id> (elements, element_var), name=<variable> (var, var_any, element_var)
        insts = self.instances(f.get("process"), elements=name in ("elements", "element_var"))
        if "instance" in f:
            key = self._placeholder("instance", f["instance"], 0)
            insts = [i for i in insts if i.key == key]
        pb = self.clients.ad_pb
        states = [self._state_name(pb.ProcessInstanceState, i.state, "PROCESS_INSTANCE_STATE_") for i in insts]
        if name == "total":
            return len(insts)
        if name == "elements":
            return sum(1 for i in insts for e in i.active_elements if e.element_id == f.get("element", e.element_id))
        if name == "element_var":
            return _collapse([json.loads(e.variables or "{}").get(f["name"]) for i in insts
                              for e in i.active_elements if e.element_id == f["element"]])
        if name == "var_any":
            return _collapse([json.loads(i.variables or "{}").get(f["name"]) for i in insts])
        if name == "version":
            return _collapse([i.version for i in insts])
        if name == "definition_key":
            return _collapse([str(i.process_definition_key) for i in insts])
        if name == "max_completion_count":
            return max((i.completion_count for i in insts), default=0)
        if name == "var":
            vals = [json.loads(i.variables or "{}").get(f["name"]) for i in insts
                    if states[insts.index(i)] == "completed"]
            return _collapse(vals)
        return states.count(name)

    def _fact_instances_noadmin(self, name, f):
        with self._wr_lock:
            done = [h for h in self.with_result if h.get("done")]
        if name == "total":
            return self.created
        if name == "completed":
            return sum(1 for h in done if h.get("ok"))
        vals = [json.loads(h["variables"]).get(f["name"]) for h in done if h.get("ok")]
        return _collapse(vals)

    # ------------------------------------------------- continuous sampling
    def wants_sampling(self) -> bool:
        """True when a fact needs the engine's view sampled during the case."""
        return "jobs.max_activated" in json.dumps(self.data)

    def start_sampling(self, every_s: float = 0.05):
        """Samples, every 50 ms until teardown, how many jobs of the case's type
        the engine holds ACTIVATED for each worker name: capacity measured on
        the engine's side (jobs held, whatever the SDK runs or reports)."""
        self._need_admin()
        self._sampling = True
        pb = self.clients.ad_pb

        def loop():
            while self._sampling:
                try:
                    counts: dict = {"*": 0}
                    for j in self.jobs():
                        if j.state == pb.JOB_STATE_ACTIVATED:
                            counts["*"] += 1
                            counts[j.worker] = counts.get(j.worker, 0) + 1
                    self.samples.append((time.time() * 1000, counts))
                except Exception:  # noqa: BLE001  (the engine may be restarting)
                    pass
                time.sleep(every_s)
        threading.Thread(target=loop, daemon=True, name="jw-sampler").start()

    def stop_sampling(self):
        self._sampling = False

    def _fact_jobs(self, name, f):
        if name == "max_activated":
            since = self.marks[f["since"]][0] if "since" in f else 0
            key = f.get("worker", "*")
            vals = [c.get(key, 0) for t, c in self.samples if t >= since]
            return max(vals) if vals else None
        jobs = self.jobs(f.get("type"), variables=name == "var")
        pb = self.clients.ad_pb
        if name == "var":  # the variable as each live job's element instance sees it (a list if they differ)
            return _collapse([json.loads(j.variables).get(f["name"]) for j in jobs if j.variables])
        if name == "total":
            return len(jobs)
        if name == "max_complete_count":
            return max((j.complete_count for j in jobs), default=0)
        if name == "max_activation_count":
            return max((j.activation_count for j in jobs), default=0)
        if name == "min_retries":
            return min((j.retries for j in jobs), default=None)
        if name in ("timeouts", "yields", "activations", "fails"):
            attr = {"timeouts": "timeout_count", "yields": "yield_count", "activations": "activation_count",
                    "fails": "fail_count"}[name]
            return sum(getattr(j, attr) for j in jobs)
        return sum(1 for j in jobs if self._state_name(pb.JobState, j.state, "JOB_STATE_") == name)

    def _fact_streams(self, name, f):
        ss = self.streams()
        if name == "open":
            return len(ss)
        return sum(getattr(s, "jobs_" + name) for s in ss)

    def _fact_long_polls(self, name, f):
        return len(self.long_polls())

    def _fact_requests(self, name, f):
        counts = self.request_counts()
        method, code = f.get("method"), f.get("code")
        base = self.marks[f["since"]][1] if "since" in f else self.marks["__start__"][1]

        def total(d):
            return sum(v for (m, c), v in d.items() if (method is None or m == method) and c == code)
        return total(counts) - total(base)

    def _fact_proxy(self, name, f):
        if not self.proxy:
            raise Unavailable("no proxy in this case")
        st = self.proxy.stats()
        if name not in st:
            raise ScenarioError(f"proxy reports no counter {name!r} (has {sorted(st)})")

        def pick(stats):
            v = stats.get(name, 0)
            if isinstance(v, dict):
                if "method" in f:
                    return v.get(f["method"], 0)
                return sum(v.values())
            return v
        if "since" in f:
            return pick(st) - pick(self.proxy_marks[f["since"]])
        return pick(st)

    def _fact_driver(self, name, f):
        since = self.marks[f["since"]][0] if "since" in f else None
        w = f.get("worker")
        if name == "job_start":
            evs = self.events("job_start", w, since)
            if "activation" in f:
                evs = [e for e in evs if e.get("activation") == f["activation"]]
            return len(evs)
        if name == "job_end":
            evs = self.events("job_end", w, since)
            if "outcome" in f:
                evs = [e for e in evs if e.get("outcome") == f["outcome"]]
            return len(evs)
        if name == "max_concurrent":
            return max_concurrent(self.events(None, w, since))
        if name == "distinct_keys":
            return len({e["key"] for e in self.events("job_start", w, since)})
        if name == "duplicate_starts":
            keys = [e["key"] for e in self.events("job_start", w, since)]
            return len(keys) - len(set(keys))
        if name == "errors":
            evs = self.events("error", w, since)
            if "code" in f:
                evs = [e for e in evs if e.get("code") == f["code"]]
            return len(evs)
        if name == "states":
            evs = self.events("state", w, since)
            if "state" in f:
                evs = [e for e in evs if e.get("state") == f["state"]]
            return len(evs)
        if name == "last_state":
            evs = self.events("state", w, since)
            return evs[-1]["state"] if evs else None
        if name == "worker_closed":
            return len(self.events("worker_closed", w, since))
        if name == "worker_closed_ms":
            evs = self.events("worker_closed", w, since)
            return evs[-1].get("durationMs") if evs else None
        if name == "spans":
            evs = self.events("span", None, since)
            if "name" in f:
                evs = [e for e in evs if e.get("name") == f["name"]]
            return len(evs)
        if name == "metric":
            return metric_value(self.events("metrics", None, since), f)
        if name == "events":
            return len(self.events(f.get("event"), w, since))
        raise ScenarioError(f"unknown driver fact {name}")

    def check_facts(self, facts: dict, record=True) -> list[str]:
        """Evaluates facts; returns failure lines. Unavailable facts are noted."""
        fails = []
        for k, cond in facts.items():
            try:
                actual = self.fact(k)
            except Unavailable as e:
                if record:
                    self.unchecked.append(f"{k}: {e}")
                    self.results.append((k, cond, None, "unchecked"))
                continue
            if "${" in json.dumps(cond):
                cond = self.resolve(cond, 0)
                if isinstance(actual, int) and isinstance(cond, str) and cond.isdigit():
                    cond = int(cond)
            ok = compare(actual, cond)
            if record:
                self.results.append((k, cond, actual, "ok" if ok else "FAIL"))
            if not ok:
                fails.append(f"{k}: expected {cond!r}, got {actual!r}")
        return fails

    def wait_until(self, facts: dict, timeout_s: float):
        end = time.monotonic() + timeout_s
        usable = {}
        for k, v in facts.items():
            try:
                self.fact(k)
                usable[k] = v
            except Unavailable as e:
                self.unchecked.append(f"wait_until {k}: {e}")
        last = []
        while True:
            last = self.check_facts(usable, record=False)
            if not last:
                self.note(f"wait_until {list(usable)} ok")
                return
            if time.monotonic() > end:
                raise AssertionError(f"wait_until timed out after {timeout_s}s: " + "; ".join(last))
            if self.driver and self.driver.proc.poll() is not None:
                raise AssertionError(f"driver exited (code {self.driver.proc.returncode}) during wait_until: "
                                     + "; ".join(last))
            time.sleep(0.1)


def _collapse(vals):
    if not vals:
        return None
    first = vals[0]
    return first if all(v == first for v in vals) else vals
