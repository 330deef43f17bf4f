"""An HTTP front end keeping its own connections to a server's workers, run as its own process
by the tests: one server, whose base and patch routes each reach the workers over a pool of
kept connections of their own (nginx's two `upstream` blocks with `keepalive` in front of one
server, an HTTP load balancer with a pool per route or listener).

    python front_end.py --to PORT [--to PORT ...] [--mirror PORT] [--pin]

listens on a free loopback port, prints it on stdout, and answers `/ROUTE/PATH` (ROUTE any
first path segment: `http://127.0.0.1:PORT/base`, `.../patch`) from `PATH` of a worker. Each
route keeps its connections: a request takes the route's first idle one, and only where none
is idle opens another, to the next `--to` port in turn (a server of several workers hands each
new connection to one of them: `--to` once for a real `uvicorn --workers N`, or once per
single-worker process to hand them out in a fixed order). So one request at a time keeps a
route on the worker its first connection reached, and the client's `Connection: close` is
not passed on (it is the client's connection's, not the upstream's). `--mirror PORT` also sends
every request to 127.0.0.1:PORT, before answering, its answer dropped (traffic shadowing:
nginx's `mirror`, Envoy's request mirroring): that server, another one, then counts every
request this one's workers count. `--pin` opens every connection of the Nth route first asked
to the Nth `--to` port (in turn): the base's route reaches one worker only and the patch's
another, the worst the kernel's choice can do (oneserver75).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import socket
import sys
from typing import Any

import httpx
import uvicorn

_PASSED = ("content-type", "accept", "authorization")


class Route:
    """One route's kept connections: each an httpx client of one connection to one worker."""

    def __init__(self, ports: itertools.cycle[int]) -> None:
        self._ports = ports
        self._idle: list[httpx.AsyncClient] = []

    async def send(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Any:
        if self._idle:
            connection = self._idle.pop(0)
        else:
            connection = httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{next(self._ports)}",
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                timeout=30,
            )
        try:
            return await connection.request(method, path, headers=headers, content=body)
        finally:
            self._idle.append(connection)


def app_for(ports: list[int], mirror: int | None, pin: bool = False) -> Any:
    cycle = itertools.cycle(ports)
    routes: dict[str, Route] = {}
    shadow = Route(itertools.cycle([mirror])) if mirror is not None else None

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        parts = scope["path"].split("/", 2)
        name, rest = parts[1], parts[2] if len(parts) > 2 else ""
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {
            k.decode(): v.decode() for k, v in scope["headers"] if k.decode().lower() in _PASSED
        }
        query = scope["query_string"].decode()
        path = f"/{rest}" + (f"?{query}" if query else "")
        if name not in routes:
            own = itertools.cycle([ports[len(routes) % len(ports)]]) if pin else cycle
            routes[name] = Route(own)
        route = routes[name]
        if shadow is not None:
            await shadow.send(scope["method"], path, headers, body)
        answer = await route.send(scope["method"], path, headers, body)
        kept = [(b"content-type", answer.headers.get("content-type", "text/plain").encode())]
        await send({"type": "http.response.start", "status": answer.status_code, "headers": kept})
        await send({"type": "http.response.body", "body": answer.content})

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--to", type=int, action="append", required=True)
    parser.add_argument("--mirror", type=int)
    parser.add_argument("--pin", action="store_true")
    args = parser.parse_args()
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)  # connections wait in the backlog until uvicorn serves them
    sys.stdout.write(f"{listening.getsockname()[1]}\n")
    sys.stdout.flush()
    config = uvicorn.Config(
        app_for(args.to, args.mirror, args.pin), log_level="warning", access_log=False
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[listening]))


if __name__ == "__main__":
    main()
