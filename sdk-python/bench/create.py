"""Creates N instances of a process (K in flight), each with its creation time in variable t0 (epoch s)."""

from __future__ import annotations

import asyncio
import sys
import time

from jobwire import Client


async def main(address: str, pid: str, n: int, k: int) -> None:
    async with Client(address=address) as client:
        sem = asyncio.Semaphore(k)

        async def one() -> None:
            async with sem:
                await client.create_process_instance(pid, variables={"t0": time.time()})

        await asyncio.gather(*(one() for _ in range(n)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
