"""Tests of the fault proxy itself, against a tiny in-process gRPC server
(a Gateway servicer that only exists to exercise the proxy)."""
from __future__ import annotations

import threading
import time
from concurrent import futures

import grpc
import pytest

from harness import Proxy, ensure_stubs

pb, pbg, _, _ = ensure_stubs()


class FakeGateway(pbg.GatewayServicer):
    def __init__(self):
        self.pushed = threading.Event()

    def Topology(self, request, context):
        return pb.TopologyResponse(clusterSize=1, gatewayVersion="proxy-test")

    def ActivateJobs(self, request, context):
        yield pb.ActivateJobsResponse(jobs=[pb.ActivatedJob(key=i + 1, type=request.type)
                                            for i in range(request.maxJobsToActivate)])

    def StreamActivatedJobs(self, request, context):
        i = 0
        while context.is_active():
            i += 1
            yield pb.ActivatedJob(key=i, type=request.type, variables="{}")
            time.sleep(0.05)


@pytest.fixture
def setup(tmp_path):
    server = grpc.server(futures.ThreadPoolExecutor(8))
    pbg.add_GatewayServicer_to_server(FakeGateway(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    proxy = Proxy(f"127.0.0.1:{port}", tmp_path / "proxy.log")
    ch = grpc.insecure_channel(proxy.address)
    stub = pbg.GatewayStub(ch)
    yield proxy, stub
    ch.close()
    proxy.stop()
    server.stop(0)


def test_relays_and_counts(setup):
    proxy, stub = setup
    for _ in range(3):
        assert stub.Topology(pb.TopologyRequest(), timeout=5).gatewayVersion == "proxy-test"
    jobs = [j for r in stub.ActivateJobs(pb.ActivateJobsRequest(type="t", maxJobsToActivate=4), timeout=5)
            for j in r.jobs]
    assert len(jobs) == 4
    st = proxy.stats()
    assert st["requests"]["Topology"] == 3
    assert st["requests"]["ActivateJobs"] == 1
    assert st["bytes_down"] > 0 and st["bytes_up"] > 0


def test_unimplemented_injection(setup):
    proxy, stub = setup
    proxy.cmd("unimplemented", method="StreamActivatedJobs", count=2)
    for _ in range(2):
        with pytest.raises(grpc.RpcError) as e:
            next(iter(stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="t"), timeout=5)))
        assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
    it = stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="t"), timeout=5)
    assert next(iter(it)).key == 1
    it.cancel()
    # the connection still works for everything else
    assert stub.Topology(pb.TopologyRequest(), timeout=5).clusterSize == 1
    assert proxy.stats()["unimplemented_sent"] == 2


def test_rst_stream_only_streams(setup):
    proxy, stub = setup
    call = stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="t"), timeout=10)
    it = iter(call)
    next(it)
    assert proxy.stats()["open_streams"].get("StreamActivatedJobs") == 1
    assert proxy.cmd("rst", method="StreamActivatedJobs")["streams"] == 1
    with pytest.raises(grpc.RpcError) as e:
        for _ in range(100):
            next(it)
    assert e.value.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE)
    assert stub.Topology(pb.TopologyRequest(), timeout=5).clusterSize == 1


def test_stall_holds_data_until_unstall(setup):
    proxy, stub = setup
    call = stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="t"), timeout=10)
    it = iter(call)
    next(it)
    proxy.cmd("stall", method="StreamActivatedJobs")
    time.sleep(0.2)  # let frames in flight arrive
    got = []
    t = threading.Thread(target=lambda: got.append(next(it)), daemon=True)
    drained = 0
    while True:  # drain whatever was already forwarded before the stall
        t.start()
        t.join(0.5)
        if t.is_alive():
            break
        drained += 1
        got.clear()
        t = threading.Thread(target=lambda: got.append(next(it)), daemon=True)
        assert drained < 20
    # the stream is silent, yet the connection answers (unary calls and PINGs)
    assert stub.Topology(pb.TopologyRequest(), timeout=5).clusterSize == 1
    assert proxy.stats()["held_frames"] > 0
    proxy.cmd("unstall")
    t.join(3)
    assert got, "stream did not resume after unstall"
    call.cancel()


def test_goaway_makes_client_reconnect(setup):
    proxy, stub = setup
    assert stub.Topology(pb.TopologyRequest(), timeout=5)
    assert proxy.cmd("goaway", grace_ms=50)["connections"] == 1
    time.sleep(0.3)
    assert stub.Topology(pb.TopologyRequest(), timeout=5)  # new connection
    st = proxy.stats()
    assert st["goaways"] == 1
    assert st["connections"] == 2


def test_drop_and_delay(setup):
    proxy, stub = setup
    assert stub.Topology(pb.TopologyRequest(), timeout=5)
    proxy.cmd("delay", ms=300)
    t0 = time.monotonic()
    stub.Topology(pb.TopologyRequest(), timeout=5)
    assert time.monotonic() - t0 >= 0.28
    proxy.cmd("clear")
    proxy.cmd("drop")
    time.sleep(0.1)
    stub.Topology(pb.TopologyRequest(), timeout=5, wait_for_ready=True)
    assert proxy.stats()["connections"] >= 2


def test_stall_existing_only(setup):
    proxy, stub = setup
    a = stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="a"), timeout=10)
    ita = iter(a)
    next(ita)
    assert proxy.cmd("stall", method="StreamActivatedJobs", existing="true")["streams"] == 1
    b = stub.StreamActivatedJobs(pb.StreamActivatedJobsRequest(type="b"), timeout=10)
    itb = iter(b)
    for _ in range(3):  # the new stream flows
        assert next(itb).type == "b"
    time.sleep(0.3)
    assert proxy.stats()["held_frames"] > 0
    a.cancel()  # the client gives up on the silent stream; held frames are dropped and credited
    b.cancel()
    time.sleep(0.2)
    assert proxy.stats()["held_frames"] == 0
