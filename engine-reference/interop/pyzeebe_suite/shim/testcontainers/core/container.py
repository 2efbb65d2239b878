"""`DockerContainer` that starts a local engine instead of a Docker image."""
import os
import re
import subprocess
import sys
import threading
import time

# dev: its listening line; cluster: the supervisor's ready line (its
# components print listening lines of their own before it).
_READY = {
    "dev": re.compile(r"listening on (127\.0\.0\.1):(\d+)"),
    "cluster": re.compile(r"jobwire-engine cluster ready: gateways (127\.0\.0\.1):(\d+)"),
}


class DockerContainer:
    def __init__(self, image, **kwargs):
        self.image = image
        self._proc = None
        self._port = None

    def with_envs(self, **envs):
        return self

    def with_exposed_ports(self, *ports):
        return self

    def waiting_for(self, strategy):
        return self

    def _engine(self):
        engine = os.environ.get("PYZEEBE_SUITE_ENGINE", "dev")
        if engine not in _READY:
            raise RuntimeError(f"PYZEEBE_SUITE_ENGINE={engine!r}: expected dev or cluster")
        return engine

    def _command(self):
        bin_ = os.environ["JOBWIRE_ENGINE_BIN"]
        if self._engine() == "dev":
            return [bin_, "dev", "--port", "0", "--exit-on-stdin-close", "--no-ui"]
        # The shape of the container their conftest asks for (camunda/zeebe with
        # its defaults: one broker, one partition; test_topology asserts a
        # cluster size of 1), as separate gateway and broker processes.
        return [bin_, "cluster", "--gateways", "1", "--brokers", "1", "--partitions", "1", "--base-port", "0",
                "--exit-on-stdin-close"]

    def start(self):
        # stdin stays open: the engine (and, for a cluster, every child) exits when it closes.
        ready = _READY[self._engine()]
        self._proc = subprocess.Popen(self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=sys.stderr, text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self._proc.stdout.readline()
            if not line:
                break
            m = ready.search(line)
            if m:
                self._port = int(m.group(2))
                # Keep reading its output so that the engine never blocks on a full pipe.
                threading.Thread(target=self._proc.stdout.read, daemon=True).start()
                self._wait_serving(deadline)
                return self
        self.stop()
        raise RuntimeError(f"{' '.join(self._command()[:2])} did not start")

    def _wait_serving(self, deadline):
        """Their wait strategy waits until the broker marks partition 1 healthy;
        here: until the gateway's grpc.health.v1 service says SERVING (a cluster
        gateway re-derives it from the topology every 100 ms, so it can lag the
        supervisor's ready line by that much)."""
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        with grpc.insecure_channel(f"127.0.0.1:{self._port}") as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            while time.time() < deadline:
                try:
                    r = stub.Check(health_pb2.HealthCheckRequest(service="gateway_protocol.Gateway"), timeout=5)
                    if r.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                time.sleep(0.02)
        self.stop()
        raise RuntimeError("the engine's gateway did not report SERVING")

    def stop(self):
        if self._proc is None:
            return
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=15)
        except Exception:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def get_container_host_ip(self):
        return "127.0.0.1"

    def get_exposed_port(self, port):
        return self._port
