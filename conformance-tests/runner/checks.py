"""Custom checks a scenario names under `checks:` (or as a `check:` step)
when the fact vocabulary is not enough. Each takes the running Case and
raises AssertionError (or facts.Unavailable when its source is missing)."""
from __future__ import annotations

import json
import statistics

from facts import Unavailable, metric_value


def _starts(case, worker=None):
    return case.events("job_start", worker)


def retries_count_down_with_backoff(case):
    """polling/fail-retries-backoff: the same key is delivered with retries
    3, 2, 1 and each redelivery comes >= ~the retry back-off after the
    previous failure's job_end."""
    starts = _starts(case)
    ends = case.events("job_end")
    assert [s["retries"] for s in starts] == [3, 2, 1], f"retries seen: {[s['retries'] for s in starts]}"
    for end, nxt in zip(ends, starts[1:]):
        gap = nxt["_rt"] - end["_rt"]
        assert gap >= 300, f"redelivered {gap:.0f} ms after the failure; retryBackOff was 400 ms"


def failure_message_mentions_cause(case):
    """polling/handler-exception-fails-job: the failed job's error message
    carries the handler's exception text."""
    failed = [j for j in case.jobs() if j.fail_count > 0]
    assert failed, "no failed job in the engine"
    for j in failed:
        assert "kaboom" in j.error_message, f"error message {j.error_message!r} lacks the cause 'kaboom'"
        assert len(j.error_message) <= 10000, "error message unbounded"


def job_variables_are_exactly_a_b(case):
    """polling/fetch-variables-subset."""
    starts = _starts(case)
    assert starts, "no job_start"
    for s in starts:
        keys = set(json.loads(s["variables"]))
        assert keys == {"a", "b"}, f"job {s['key']} ({s.get('activation')}) carried variables {sorted(keys)}"


def raw_variables_keep_int64_digits(case):
    """polling/int64-variables-lossless: the raw JSON handed to the handler
    still has every digit."""
    starts = _starts(case)
    assert starts, "no job_start"
    raw = starts[0]["variables"]
    assert "1152921504606846983" in raw and "-1152921504606846983" in raw, f"raw variables: {raw[:200]}"


def backoff_is_exponential_jittered_capped(case):
    """resilience/backoff-on-resource-exhausted: gaps between the rejected
    ActivateJobs (engine arrival timestamps) grow ~x1.6 from ~50 ms, are
    jittered and never exceed the 5 s cap."""
    since = case.marks["rejected"][0]
    ts = case.request_times("ActivateJobs", since)
    assert len(ts) >= 9, f"only {len(ts)} ActivateJobs after the fault"
    # the first request after the mark may be the already parked poll ending;
    # the 8 rejected ones are the first 8 that arrived after the fault
    rej = ts[:8]
    gaps = [b - a for a, b in zip(rej, rej[1:])]
    case.note(f"backoff gaps (ms): {gaps}")
    assert min(gaps) >= 35, f"a retry came {min(gaps)} ms after a RESOURCE_EXHAUSTED (no backoff?): {gaps}"
    assert gaps[-1] >= 3 * gaps[0], f"backoff does not grow exponentially: {gaps}"
    assert max(gaps) <= 5500, f"backoff exceeds the 5 s cap: {gaps}"
    ups = sum(1 for a, b in zip(gaps, gaps[1:]) if b > a)
    assert ups >= len(gaps) - 3, f"backoff is not increasing: {gaps}"
    ratios = [b / a for a, b in zip(gaps, gaps[1:]) if a > 0]
    assert statistics.pstdev(ratios) > 0.01, f"no jitter: every ratio equal {ratios}"


def failed_back_jobs_keep_retries(case):
    """lifecycle/unstarted-jobs-failed-back: at least 3 jobs were handed back
    by w1 and completed by w2 with their retries unchanged (3)."""
    jobs = case.jobs()
    done = [j for j in jobs if j.complete_count == 1 and j.retries == 3]
    assert len(done) >= 3, f"jobs completed with retries 3: {len(done)} (retries: {[j.retries for j in jobs]})"


REQUIRED_SPAN_ATTRS = ["jobwire.job.key", "jobwire.job.type", "jobwire.job.retries", "jobwire.process_instance.key",
                       "jobwire.bpmn_process_id", "jobwire.element_id", "jobwire.worker.name", "jobwire.activation"]


def spans_have_job_attributes(case):
    """observability/span-per-job."""
    name = f"process job {case.job_type}"
    spans = [s for s in case.events("span") if s.get("name") == name]
    keys = {s["key"] for s in _starts(case)}
    seen = set()
    for s in spans:
        a = s.get("attributes") or {}
        missing = [k for k in REQUIRED_SPAN_ATTRS if k not in a]
        assert not missing, f"span lacks {missing}: {a}"
        assert str(s.get("kind", "")).upper().endswith("CONSUMER"), f"span kind {s.get('kind')}"
        assert a["jobwire.job.type"] == case.job_type
        assert a["jobwire.bpmn_process_id"] == case.process_id
        assert a["jobwire.element_id"] == "task"
        assert a["jobwire.worker.name"] == "otel-worker"
        assert a["jobwire.activation"] in ("push", "poll")
        seen.add(str(a["jobwire.job.key"]))
    assert seen == keys, f"span job keys {sorted(seen)} != handled keys {sorted(keys)}"


def metric_instruments_present(case):
    """observability/metrics-emitted."""
    evs = case.events("metrics")
    assert evs, "no metrics event after worker_closed"
    names = {m.get("name") for e in evs for m in e.get("metrics", [])}
    for n in ("jobwire.worker.job.duration", "jobwire.worker.capacity.used", "jobwire.worker.poll.requests"):
        assert n in names, f"metric {n} missing (have {sorted(names)})"
    cnt = metric_value(evs, {"name": "jobwire.worker.job.duration"})
    assert cnt is not None and cnt >= 4, f"duration histogram count {cnt}"


def error_variables_reached_engine(case):
    """polling/throw-error-variables: the ThrowError code and variables
    arrived at the engine. Uses the admin job view (`error_code`,
    `error_variables`): as in Zeebe, error variables live on the catch
    event's scope and never reach the instance without output mappings, so
    CreateProcessInstanceWithResult cannot show them (Unavailable there)."""
    if not case.has_admin:
        raise Unavailable("error variables are only visible through the admin API")
    jobs = case.jobs()
    assert len(jobs) == 2, f"{len(jobs)} jobs"
    for j in jobs:
        assert j.error_code == "E42", f"job {j.key} error_code {j.error_code!r}"
        v = json.loads(j.error_variables or "{}")
        assert v == {"reason": "nope", "qty": 3}, f"job {j.key} error variables {v}"


def _activation_waits(case, keys=None):
    """(wait_ms, created_ms) of the first start of every job that carries
    `jwCreatedMs` (set by a closed-loop `create_instances`); with `keys` (a
    dict) also maps each wait to its job key there."""
    seen, out = set(), []
    for e in _starts(case):
        if e["key"] in seen:
            continue
        seen.add(e["key"])
        try:
            created = json.loads(e.get("variables") or "{}").get("jwCreatedMs")
        except ValueError:
            created = None
        if created is not None:
            out.append((float(e["t"]) - float(created), float(created)))
            if keys is not None:
                keys[len(out) - 1] = str(e["key"])
    return out


def activation_wait_bounded(case):
    """streaming/yielded-jobs-not-starved: under sustained overload no job
    waits for a worker (creation -> job_start) more than half the run (and
    more than 1.5 s, so a very short run on a fast machine cannot fail it). A
    starved job — yielded by the engine and never polled while the stream
    keeps the worker busy — waits until the load stops, i.e. about the whole
    run; a fair worker's longest wait is a fairness interval plus the time
    slots take to free, a small part of the run. Both scale with the
    machine's speed, so the ratio holds under load where a fixed bound in ms
    does not (measured: fair 0.14-0.47 of the run, starved 1.06)."""
    keys: dict = {}
    waits = _activation_waits(case, keys)
    assert len(waits) >= 100, f"only {len(waits)} stamped job starts"
    run_ms = max(c for _, c in waits) - min(c for _, c in waits)
    ws = sorted(w for w, _ in waits)
    worst, p99 = ws[-1], ws[int(len(ws) * 0.99) - 1]
    limit = max(run_ms / 2, 1500.0)  # a short run (fast machine) must not turn ordinary waits into starvation
    late = sum(1 for w in ws if w > limit)
    if late:  # what the engine did with the late jobs: yielded, activated, timed out?
        late_keys = [keys[i] for i, (w, _) in enumerate(waits) if w > limit][:5]
        try:
            info = {str(j.key): j for j in case.jobs()}
            for k in late_keys:
                j = info.get(k)
                if j is not None:
                    case.note(f"late job {k}: activations {j.activation_count}, yields {j.yield_count}, "
                              f"timeouts {j.timeout_count}, fails {j.fail_count} ({j.error_message[:80]!r})")
        except Exception as e:  # noqa: BLE001 - diagnostics only
            case.note(f"late jobs: no engine view ({e})")
    case.note(f"activation wait over {len(ws)} jobs, run {run_ms:.0f} ms: p50 {ws[len(ws) // 2]:.0f} ms, "
              f"mean {statistics.fmean(ws):.0f} ms, p99 {p99:.0f} ms, max {worst:.0f} ms "
              f"(max/run {worst / max(run_ms, 1):.2f}, {late} waited over half the run)")
    assert run_ms >= 3000, f"run lasted {run_ms:.0f} ms: too short to show starvation"
    assert late == 0, (f"{late} jobs waited more than half the {run_ms:.0f} ms run for a worker (max {worst:.0f} ms, "
                       f"p99 {p99:.0f} ms): yielded jobs starve while the stream keeps the worker busy")


def activation_wait_spread(case):
    """streaming/fairness-poll-collects-yielded: no job waits (creation -> job_start) more than
    SPREAD_MAX x the run's own mean wait. Starved jobs wait until the load stops while every other
    job's wait stays short, so the longest wait is many times the mean; a fair worker's waits are
    all of one kind (the queue ahead of each job), so its longest is a small multiple of the mean.
    Both scale with the machine's speed, so the ratio holds at any load (numbers in the scenario's
    README)."""
    waits = _activation_waits(case)
    assert len(waits) >= 100, f"only {len(waits)} stamped job starts"
    ws = sorted(w for w, _ in waits)
    run_ms = max(c for _, c in waits) - min(c for _, c in waits)
    mean, worst = statistics.fmean(ws), ws[-1]
    ratio = worst / max(mean, 1.0)
    over = sum(1 for w in ws if w > SPREAD_MAX * mean)
    case.note(f"activation wait over {len(ws)} jobs, run {run_ms:.0f} ms: p50 {ws[len(ws) // 2]:.0f} ms, "
              f"mean {mean:.0f} ms, max {worst:.0f} ms (max/mean {ratio:.1f}, {over} over {SPREAD_MAX:g} x mean, "
              f"max/run {worst / max(run_ms, 1):.2f})")
    assert ratio <= SPREAD_MAX, (f"{over} jobs waited more than {SPREAD_MAX:g} x the mean wait {mean:.0f} ms (max "
                                 f"{worst:.0f} ms, run {run_ms:.0f} ms): yielded jobs starve while the stream "
                                 "keeps the worker above the poll threshold")


SPREAD_MAX = 9.0


def push_wait_not_poll_paced(case):
    """streaming/push-without-long-polling: with a gateway that answers polls
    at once, jobs still come through the stream as they are pushed: the median
    wait from creation to the handler start stays under 500 ms. A worker whose
    stream reader is held back while its poller pauses reads about one pushed
    job per poll cycle, so every job waits for the 1 s fairness poll and the
    pause behind it (measured: Node before the fix, p50 1.6 s and 20 jobs/s;
    after, p50 12 ms and 1,463 jobs/s at load 1-3). The bound leaves 3x of the
    broken value's margin for a loaded machine, where the median of a
    working reader stayed under 100 ms."""
    waits = sorted(w for w, _ in _activation_waits(case))
    assert len(waits) >= 100, f"only {len(waits)} stamped job starts"
    p50, p99 = waits[len(waits) // 2], waits[int(len(waits) * 0.99) - 1]
    case.note(f"activation wait over {len(waits)} jobs: p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {waits[-1]:.0f} ms")
    assert p50 < 500, (f"median wait {p50:.0f} ms from creation to handler start (p99 {p99:.0f} ms): pushed jobs "
                       "wait for polls; the stream reader is held back while the poller pauses")


def tls_failure_logged(case):
    """transport/tls-wrong-ca-rejected, transport/tls-hostname-mismatch-rejected:
    the SDK refused the connection and said why (its log names the
    certificate problem), instead of connecting or failing silently."""
    log = case.workdir / "driver.log.stderr"
    text = log.read_text(errors="replace") if log.exists() else ""
    assert "certificate" in text.lower(), \
        f"the driver's log never mentions the certificate problem ({len(text)} bytes of stderr)"


def spans_parented_by_traceparent(case):
    """observability/traceparent-parenting: spans of jobs with a traceparent
    variable are children of that remote span; the others start new traces."""
    tp_trace, tp_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    name = f"process job {case.job_type}"
    spans = [s for s in case.events("span") if s.get("name") == name]
    assert spans and all("traceId" in s for s in spans), \
        "span events carry no traceId / parentSpanId (DRIVER-CONTRACT.md: span)"
    with_vars = {}
    for st in _starts(case):
        with_vars[str(st["key"])] = "traceparent" in json.loads(st.get("variables") or "{}")
    parented = other = 0
    for s in spans:
        key = str((s.get("attributes") or {}).get("jobwire.job.key"))
        if with_vars.get(key):
            assert s.get("traceId") == tp_trace and s.get("parentSpanId") == tp_span, \
                f"span of job {key} has trace {s.get('traceId')} parent {s.get('parentSpanId')}, want {tp_trace}/{tp_span}"
            parented += 1
        else:
            assert s.get("traceId") != tp_trace, f"span of job {key} (no traceparent) joined the caller's trace"
            other += 1
    assert parented == 2 and other == 1, f"{parented} parented and {other} other spans, want 2 and 1"


def job_keys_exact_above_2_53(case):
    """delivery/job-keys-above-2-53: every key the handler saw is exactly a
    job key of the engine, and some are above 2^53."""
    engine_keys = {int(j.key) for j in case.jobs()}
    seen = {int(str(e["key"])) for e in _starts(case)}
    assert seen, "no job_start"
    wrong = sorted(seen - engine_keys)
    assert not wrong, f"keys seen by the handler that the engine does not have (rounded?): {wrong[:5]}"
    big = [k for k in seen if k > 2 ** 53]
    assert big, f"no key above 2^53 among {sorted(seen)[:5]}… (engine partitions < 4?)"
    case.note(f"{len(big)} of {len(seen)} job keys above 2^53, all exact")


def failure_says_json_object(case):
    """polling/invalid-variables-rejected: the failed job's message says what
    is wrong: the variables must be an object."""
    failed = [j for j in case.jobs() if j.fail_count > 0]
    assert failed, "no failed job in the engine"
    for j in failed:
        msg = j.error_message.lower()
        assert "variables" in msg and "object" in msg, \
            f"error message {j.error_message!r} does not say the variables must be an object"


def client_secret_not_logged(case):
    """transport/oauth-secret-never-logged (and any OAuth case): the case's
    random client secret appears in none of the driver's stderr, the driver's
    event log (stdout) and the engine log."""
    secret = getattr(case.engine, "client_secret", None) if case.engine else None
    if not secret or secret == "secret":
        raise Unavailable("the engine has no random client secret (not an own --oauth engine)")
    looked = []
    for name in ("driver.log.stderr", "driver.log", "engine.log"):
        path = case.workdir / name
        if not path.exists():
            continue
        looked.append(name)
        text = path.read_text(errors="replace")
        assert secret not in text, f"the client secret appears in {name}"
    assert "driver.log.stderr" in looked and "engine.log" in looked, f"logs missing: only {looked}"


def token_outage_reported(case):
    """transport/oauth-token-endpoint-down: while the token endpoint was down
    (marks `down` .. `up`) the SDK made the outage visible: a `backoff` state
    or an `error` event, or a log line naming the token endpoint's answer (503 /
    temporarily_unavailable) or UNAUTHENTICATED."""
    if "down" not in case.marks or "up" not in case.marks:
        raise Unavailable("marks down/up missing")
    t0_ms, t1_ms = case.marks["down"][0], case.marks["up"][0] + 3000  # a failure may surface just after
    seen = []
    for e in case.events():
        if not (t0_ms <= float(e.get("_rt", 0)) <= t1_ms):
            continue
        if e.get("event") == "state" and e.get("state") == "backoff":
            seen.append("backoff state")
        if e.get("event") == "error":
            seen.append(f"error event {e.get('code')}")
    log = case.workdir / "driver.log.stderr"
    text = log.read_text(errors="replace").lower() if log.exists() else ""
    # (not "oauth"/"token": the job type names the scenario)
    for word in ("503", "temporarily_unavailable", "unauthenticated"):
        if word in text:
            seen.append(f"stderr mentions {word!r}")
            break
    assert seen, "nothing in the driver's events or log shows the token endpoint outage"
    case.note(f"token outage reported: {seen[:3]}")


def pad_round_trip_intact(case):
    """delivery/variables-near-and-over-4mb: the ~4 MB `pad` variable reached
    the handler whole (its job_start) and came back whole in the completed
    instance (completeEcho)."""
    want = None
    for c in case.data.get("steps") or []:
        if isinstance(c, dict) and "create_instances" in c and c["create_instances"].get("pad_bytes"):
            want = int(c["create_instances"]["pad_bytes"])
    assert want, "the scenario creates no padded instance"
    seen = [json.loads(e.get("variables") or "{}").get("pad") for e in _starts(case)]
    seen = [s for s in seen if s is not None]
    assert seen, "no job_start carried the pad variable"
    assert all(s == "x" * want for s in seen), \
        f"the handler saw a pad of {[len(s) for s in seen]} characters, want {want} x's"
    back = [json.loads(i.variables or "{}").get("pad") for i in case.instances()]
    back = [b for b in back if b is not None]
    assert back and all(b == "x" * want for b in back), \
        f"completed instance holds a pad of {[len(b) for b in back]} characters, want {want}"
    case.note(f"pad of {want} bytes delivered and completed intact")


def incident_names_size_limit(case):
    """delivery/variables-near-and-over-4mb: the job whose handler returned
    more than 4 MiB was failed with a message that says so (the incident an
    operator sees names the limit)."""
    failed = [j for j in case.jobs() if j.fail_count > 0]
    assert failed, "no failed job in the engine"
    for j in failed:
        assert "4 MiB" in j.error_message and "bytes" in j.error_message, \
            f"error message {j.error_message!r} does not name the size and the 4 MiB limit"
    case.note(f"incident message: {failed[0].error_message[:200]}")


def each_instance_echoes_its_sequence_number(case):
    """delivery/many-instances-round-trip: every instance completed with `echo` equal to its own
    sequence number (an integer beyond 2^53 that went through the SDK's parsed variables), each number
    exactly once: no job lost, none mixed up with another's, no digit rounded."""
    seq = getattr(case, "sequence", None)
    assert seq, "the scenario created no `sequence` instances"
    name = seq["name"]
    if case.has_admin:
        pb = case.clients.ad_pb
        done = [json.loads(i.variables or "{}") for i in case.instances()
                if i.state == pb.PROCESS_INSTANCE_STATE_COMPLETED]
    else:  # the with-result answers
        with case._wr_lock:
            done = [json.loads(h["variables"]) for h in case.with_result if h.get("ok")]
    bad = [v for v in done if v.get("echo") != int(v.get(f"{name}Text", -1)) or v.get(name) != v.get("echo")]
    assert not bad, f"{len(bad)} instances completed with another value than their own, e.g. {bad[0]}"
    got = sorted(int(v[f"{name}Text"]) for v in done)
    assert len(got) == len(set(got)), "an instance completed twice"
    missing = seq["values"] - set(got)
    assert not missing, f"{len(missing)} of {len(seq['values'])} instances did not complete"


# ------------------------------------------------------------- typed handlers, retry policy, middleware
# A derived fetchVariables list also names traceparent (docs/worker-semantics.md, Typed handlers).
ORDER_FIELDS = {"orderId", "amount", "traceparent"}


def _instance_vars(case):
    return {i.key: json.loads(i.variables or "{}") for i in case.instances()}


def typed_variables_are_exactly_order(case):
    """typed/fetch-variables-derived: the typed handler received exactly the
    fields of its input type and traceparent, on push and on poll alike."""
    starts = _starts(case)
    assert starts, "no job_start"
    for s in starts:
        keys = set(json.loads(s["variables"]))
        assert keys == ORDER_FIELDS, (f"job {s['key']} ({s.get('activation')}) carried variables {sorted(keys)}; "
                                      f"want the input type Order's fields and traceparent, {sorted(ORDER_FIELDS)}")


def engine_fetch_variables_are_order(case):
    """typed/fetch-variables-derived: the engine's record of the activation
    request shows the derived fetch-variables list, traceparent included (not
    'all', not filtered on the client after fetching everything)."""
    jobs = case.jobs()
    assert jobs, "no job in the engine"
    for j in jobs:
        assert not j.fetch_variables_all, f"job {j.key} was activated by a request that fetched every variable"
        assert set(j.fetch_variables) == ORDER_FIELDS, \
            f"job {j.key} was activated with fetchVariables {sorted(j.fetch_variables)}, want {sorted(ORDER_FIELDS)}"


def typed_receipts(case):
    """typed/fetch-variables-derived: the typed output (Receipt) completed each
    job: total = 2 x amount, channel from the typed custom header."""
    got = sorted((v.get("orderId"), v.get("total"), v.get("channel")) for v in _instance_vars(case).values())
    assert got == [("A-1", 42, "web"), ("A-2", 1, "web")], f"instance variables (orderId, total, channel): {got}"


def typed_spans_parented_by_traceparent(case):
    """typed/fetch-variables-derived: the typed worker's derived list fetched
    traceparent, so each job's span is a child of the caller's remote span
    (the same parent as observability/traceparent-parenting)."""
    tp_trace, tp_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    name = f"process job {case.job_type}"
    spans = [s for s in case.events("span") if s.get("name") == name]
    assert len(spans) == 2 and all("traceId" in s for s in spans), \
        f"{len(spans)} span events with a traceId, want 2 (DRIVER-CONTRACT.md: span)"
    for s in spans:
        key = (s.get("attributes") or {}).get("jobwire.job.key")
        assert s.get("traceId") == tp_trace and s.get("parentSpanId") == tp_span, \
            f"span of typed job {key} has trace {s.get('traceId')} parent {s.get('parentSpanId')}, want {tp_trace}/{tp_span}"


def invalid_input_never_reached_handler(case):
    """typed/invalid-input-fails-job: the invalid job was failed three times,
    never run, with a message naming the field; the valid one completed."""
    jobs = case.jobs()
    bad = [j for j in jobs if j.fail_count > 0]
    assert len(bad) == 1, f"expected one failed job, got {[(j.key, j.fail_count) for j in jobs]}"
    b = bad[0]
    started = {s["key"] for s in _starts(case)}
    assert str(b.key) not in started, f"the handler ran for job {b.key} whose input is invalid"
    assert b.fail_count == 3 and b.retries == 0 and b.incident_key, \
        f"invalid input must count against retries (3 fails, then an incident): fails {b.fail_count}, " \
        f"retries {b.retries}, incident {b.incident_key}"
    msg = b.error_message
    assert "invalid input" in msg and "amount" in msg, f"error message {msg!r} names neither 'invalid input' nor the field 'amount'"
    good = [v for v in _instance_vars(case).values() if v.get("orderId") == "OK-1"]
    assert good and good[0].get("total") == 10, f"the valid order's receipt: {good}"


def policy_backoff_reaches_engine(case):
    """typed/retry-policy-backoff: back-offs 300, 600, 1200 ms (exponential from
    the remaining retries): the last one on the engine, the gaps on the wire."""
    jobs = case.jobs()
    assert len(jobs) == 1, f"jobs: {len(jobs)}"
    j = jobs[0]
    assert j.last_retry_backoff_ms == 1200, \
        f"the last FailJob (retries 1 -> 0) carried retryBackOff {j.last_retry_backoff_ms} ms; the policy computes " \
        f"300 x 2^(3 - 1) = 1200 ms"
    starts, ends = _starts(case), case.events("job_end")
    assert [s["retries"] for s in starts] == [3, 2, 1], f"retries seen: {[s['retries'] for s in starts]}"
    for want, end, nxt in zip((300, 600), ends, starts[1:]):
        gap = nxt["_rt"] - end["_rt"]
        assert gap >= want - 60, f"redelivered {gap:.0f} ms after the failure; the policy's back-off was {want} ms"


def non_retryable_is_incident_default_policy_backs_off(case):
    """typed/non-retryable-incident."""
    jobs = case.jobs()
    inc = [j for j in jobs if j.incident_key]
    assert len(inc) == 1, f"incidents: {[(j.key, j.fail_count, j.retries) for j in jobs]}"
    n = inc[0]
    assert n.fail_count == 1 and n.retries == 0, \
        f"a non-retryable error must open the incident at the first failure: fails {n.fail_count}, retries {n.retries}"
    assert "card declined" in n.error_message, f"incident message {n.error_message!r}"
    other = [j for j in jobs if not j.incident_key]
    assert len(other) == 1 and other[0].fail_count >= 1, f"the ordinary failure: {[(j.key, j.fail_count) for j in other]}"
    o = other[0]
    want = {1: (900, 1100), 2: (1800, 2200)}.get(o.fail_count)
    assert want, f"the ordinary failure failed {o.fail_count} times"
    assert o.retries == 3 - o.fail_count, f"retries {o.retries} after {o.fail_count} failures"
    assert want[0] <= o.last_retry_backoff_ms <= want[1], \
        f"default policy: retryBackOff {o.last_retry_backoff_ms} ms after {o.fail_count} failure(s), want {want[0]}-{want[1]} ms"


def middleware_runs_outer_to_inner(case):
    """typed/middleware-order."""
    evs = case.events()
    by_key: dict = {}
    for e in evs:
        if e.get("event") == "middleware":
            by_key.setdefault((e.get("worker"), e.get("key")), []).append(
                f"{e['name']}:{e['phase']}" + (":error" if e.get("phase") == "after" and e.get("error") else ""))
        elif e.get("event") == "job_start":
            by_key.setdefault((e.get("worker"), e.get("key")), []).append("handler")
    w1 = {k: v for k, v in by_key.items() if k[0] == "w1"}
    w2 = {k: v for k, v in by_key.items() if k[0] == "w2"}
    ok_seq = ["outer:before", "inner:before", "handler", "inner:after", "outer:after"]
    bad_seq = ["outer:before", "inner:before", "inner:after:error", "outer:after:error"]
    seqs = sorted(w1.values())
    assert sorted([ok_seq, ok_seq, bad_seq]) == seqs, f"w1's middleware/handler order per job: {seqs}"
    guard_seq = ["outer:before", "guard:before", "outer:after:error"]
    assert list(w2.values()) == [guard_seq], f"w2 (guard raises): {list(w2.values())}"
    (wkey,) = [k[1] for k in w2]
    j = next((j for j in case.jobs() if str(j.key) == wkey), None)
    assert j is not None, f"job {wkey} not in the engine"
    assert j.fail_count == 1 and j.retries == 2 and not j.incident_key and j.complete_count == 0, \
        f"a raising middleware must fail the job like a handler (retries - 1): fails {j.fail_count}, " \
        f"retries {j.retries}, incident {j.incident_key}, completes {j.complete_count}"
    assert "denied by guard" in j.error_message, f"error message {j.error_message!r}"
