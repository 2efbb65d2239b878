"""camunda-saas connects a worker to a Camunda 8 SaaS cluster (or any Zeebe gateway
behind OAuth) with client credentials, prints the cluster topology and handles jobs
of JOB_TYPE until Ctrl-C.

Create an API client in the Camunda console (scope Zeebe) and export what it shows:

    export ZEEBE_ADDRESS=<cluster-id>.<region>.zeebe.camunda.io:443
    export ZEEBE_CLIENT_ID=...  ZEEBE_CLIENT_SECRET=...
    export ZEEBE_AUTHORIZATION_SERVER_URL=https://login.cloud.camunda.io/oauth/token   # the default
    export ZEEBE_TOKEN_AUDIENCE=zeebe.camunda.io                                       # the default
    python main.py

``Client()`` alone would read the same variables; the options are spelled out here
to show them. TLS is on because the address is not loopback.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from typing import Any, Dict

from jobwire import Client, Job, OAuthOptions, UnauthenticatedError


def must(name: str) -> str:
    v = os.environ.get(name)
    if not v:
        print(f"{name} is not set (see the docstring at the top of main.py)", file=sys.stderr)
        raise SystemExit(2)
    return v


def log(msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


async def main() -> int:
    address = must("ZEEBE_ADDRESS")
    oauth = OAuthOptions(
        client_id=must("ZEEBE_CLIENT_ID"),
        client_secret=must("ZEEBE_CLIENT_SECRET"),
        authorization_server_url=os.environ.get("ZEEBE_AUTHORIZATION_SERVER_URL", "https://login.cloud.camunda.io/oauth/token"),
        audience=os.environ.get("ZEEBE_TOKEN_AUDIENCE", "zeebe.camunda.io"),
    )
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with Client(address=address, oauth=oauth) as client:
        try:
            topo = await client.topology()  # fetches a token, then calls the gateway
        except UnauthenticatedError as e:
            print(f"the gateway refused the token: check the client id, secret and audience ({e})", file=sys.stderr)
            return 1
        log(f"connected to {address}: gateway {topo.gateway_version}, {len(topo.brokers)} broker(s), {topo.partitions_count} partition(s)")

        job_type = os.environ.get("JOB_TYPE", "hello")

        async def handler(job: Job) -> Dict[str, Any]:
            log(f"job {job.key} of process {job.bpmn_process_id}")
            return {"handledBy": "jobwire-python"}

        client.worker(job_type, handler)
        log(f"handling {job_type} jobs; Ctrl-C to stop")
        await stop.wait()
        await client.close(10)  # stops taking jobs, lets running handlers finish
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
