"""Keepalive detects a blackholed connection (TCP up, every byte silently dropped, PINGs
too): a TCP relay on 127.0.0.1 in front of the reference engine stops forwarding the
worker's long-call connection (a parked poll and the push stream); the worker must notice within a few keepalive intervals,
reconnect (new connections pass) and handle jobs again."""

from __future__ import annotations

import asyncio
import time
from typing import List, Set

from jobwire import Client, Job, WorkerState
from conftest import one_task_bpmn, unique
from engine import Engine


class Relay:
    def __init__(self, upstream: str) -> None:
        self.host, port = upstream.rsplit(":", 1)
        self.port = int(port)
        self.holed: Set[int] = set()
        self.conns: List[int] = []
        self.address = ""

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.address = f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    def blackhole(self, first: int = 0) -> None:
        self.holed.update(c for c in self.conns if c >= first)

    async def _serve(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        cid = len(self.conns)
        self.conns.append(cid)
        ur, uw = await asyncio.open_connection(self.host, self.port)

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while True:
                    data = await r.read(65536)
                    if not data:
                        break
                    if cid not in self.holed:
                        w.write(data)
                        await w.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(cr, uw), pipe(ur, cw))

    async def stop(self) -> None:
        self.server.close()


def test_blackholed_connection_is_detected_by_keepalive(engine: Engine) -> None:
    async def go() -> None:
        relay = Relay(engine.address)
        await relay.start()
        try:
            async with Client(address=relay.address, keep_alive=1.0) as client:
                jt, pid = unique("hole"), unique("p")
                await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
                states: List[str] = []
                done: List[int] = []

                async def handler(job: Job) -> None:
                    done.append(job.key)

                first = len(relay.conns)  # the worker's long-call connection opens next
                w = client.worker(jt, handler, request_timeout=30)
                w.on_state(lambda s: states.append(s.value))
                await asyncio.sleep(0.5)
                assert w.state == WorkerState.STREAMING
                assert len(relay.conns) > first
                relay.blackhole(first)
                t0 = time.monotonic()
                while "backoff" not in states and time.monotonic() - t0 < 8:
                    await asyncio.sleep(0.05)
                assert "backoff" in states, f"blackhole not detected in 8 s: {states}"
                res = await client.create_process_instance_with_result(pid, request_timeout=20, timeout=30)
                assert res.process_instance_key > 0 and len(done) == 1
                await w.close(1)
        finally:
            await relay.stop()

    asyncio.run(asyncio.wait_for(go(), 60))
