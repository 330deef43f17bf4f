"""Client overhead of `k3diff sample` against an instant loopback server.

    python scripts/bench_sample.py [--requests 5120] [--concurrency 64]

Starts a minimal asyncio HTTP/1.1 server in its own process (it answers every POST with the same
completion at once), then measures, in this run:

1. baseline: a plain httpx loop, `concurrency` tasks POSTing and decoding the JSON;
2. k3diff: `run_sampling` in concurrent mode (retries, response parsing through the shared record
   model, one fsynced log line per sample with group commit, the summary read back).

Prints requests per second for both and their ratio. Target: >= 1,000 req/s at concurrency 64.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import socket
import tempfile
import time
from pathlib import Path

import httpx

from k3diff.sample import Mode, SampleOptions, run_sampling

COMPLETION = json.dumps(
    {
        "id": "cmpl-1",
        "object": "text_completion",
        "choices": [{"index": 0, "text": "instant answer", "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }
).encode()
RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    + str(len(COMPLETION)).encode()
    + b"\r\n\r\n"
    + COMPLETION
)
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"


class InstantServer(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            self.transport.write(RESPONSE if head.startswith("POST") else NOT_FOUND)


def serve(sock: socket.socket) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(InstantServer, sock=sock)
        await server.serve_forever()

    asyncio.run(main())


async def baseline(url: str, requests: int, concurrency: int) -> tuple[float, float]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    body = {"prompt": "p", "max_tokens": 2}
    async with httpx.AsyncClient(limits=limits) as client:
        remaining = [requests]

        async def worker() -> None:
            while remaining[0] > 0:
                remaining[0] -= 1
                response = await client.post(f"{url}/v1/completions", json=body)
                response.json()

        begin, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - begin, time.process_time() - cpu


def k3diff_run(url: str, requests: int, concurrency: int, workdir: Path) -> tuple[float, float]:
    prompts = workdir / "prompts.jsonl"
    records = 8
    prompts.write_text(
        "".join(
            json.dumps({"key": f"k{i}", "prompt": f"p{i}", "max_tokens": 2}) + "\n"
            for i in range(records)
        )
    )
    options = SampleOptions(
        base=url,
        patch=None,
        prompts=prompts,
        out=workdir / "out",
        repeats=requests // records,
        modes=(Mode.CONCURRENT,),
        concurrency=concurrency,
    )
    begin, cpu = time.perf_counter(), time.process_time()
    result = run_sampling(options)
    elapsed, cpu = time.perf_counter() - begin, time.process_time() - cpu
    assert result.ok and result.taken == requests, result
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5120)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--no-baseline", action="store_true", help="measure k3diff only")
    args = parser.parse_args()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = multiprocessing.Process(target=serve, args=(sock,), daemon=True)
    server.start()
    try:
        base_s = None
        if not args.no_baseline:
            base_s = asyncio.run(baseline(url, args.requests, args.concurrency))
        with tempfile.TemporaryDirectory(prefix="bench-sample-", dir=".") as tmp:
            k3_s = k3diff_run(url, args.requests, args.concurrency, Path(tmp))
    finally:
        server.terminate()
        server.join()
    n = args.requests
    print(f"requests={n} concurrency={args.concurrency} (wall: req/s; cpu: req per client CPU-s)")
    for name, figures in (("baseline httpx loop", base_s), ("k3diff sample", k3_s)):
        if figures is not None:
            wall, cpu = figures
            print(f"{name:20}: wall {n / wall:7.0f} req/s ({wall:.2f} s)  cpu {n / cpu:7.0f} req/s")
    if base_s is not None:
        print(f"ratio (wall)        : {base_s[0] / k3_s[0]:.2f}")


if __name__ == "__main__":
    main()
