"""Whether a run's base and patch are one server, however their URLs are spelled (server71).

`k3diff sample` records in its header where each side's URL connects (`connects_to`: the URL
normalised, and the addresses its host resolved to when the run started, as the client connects
to them); every reader decides from the header alone, never resolving anything itself:
`k3diff sample`'s note, triage's hold (`k3diff.triage.oneserver`), the bundle's sentence and
telemetry's drains of one server.

Two sides are one server when their ports and path prefixes agree and their hosts share an
address, the host name itself counting as one (a header whose addresses were edited apart does
not part two spellings of one name). Normalised: scheme and host case, the scheme's default
port, a trailing slash and an OpenAI-SDK `/v1` suffix (`http://localhost:8000` is
`http://LOCALHOST:8000/v1/`). Every loopback address (127.0.0.0/8, ::1), the any-address
(0.0.0.0, ::: a client connecting to it reaches this host) and `localhost` are this host, one
address: 127.0.0.1 and 127.0.0.2 on one port are read as one server (a server bound to the
any-address answers both; two processes bound to each on one port are rare, and reading them as
one holds a run, never passes one). A host name with no address recorded (a log written before
`connects_to`, or a name that did not resolve) is only itself. A front end that routes two host
names (virtual hosts) on one address and port to two builds reads as one server; a path prefix
tells routes apart (`http://gw/base` is not `http://gw/patch`). The OpenAI-style `/v1/models`
`created` of vLLM and SGLang is the time of the request, not of the server, so it tells
nothing; what addresses cannot tell (one server bound to the any-address reached by loopback
and by its LAN address, a DNS alias, a forwarder) the servers' own request counters can: the
header's `server_identity` (`k3diff.sample.identity`, samples72), and one it says is one server
is one server whatever the URLs.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from k3diff.errors import UsageError
from k3diff.sample.credentials import redacted_url
from k3diff.sample.sidefields import sides_differ

RESOLVE_TIMEOUT = 5.0
"""Seconds `connects_to` waits for the sides' host names to resolve, both together."""

THIS_HOST = "this host"
"""The address every loopback address, the any-address and `localhost` read as."""

_DEFAULT_PORTS = {"http": 80, "https": 443}

IDENTITY_FIELD = "server_identity"
"""The header field of what the servers' own counters said (`k3diff.sample.identity`)."""
IDENTITY_ONE, IDENTITY_TWO, IDENTITY_UNCHECKED = "one-server", "two-servers", "unchecked"
"""Its `result`s: the base's server counted the patch's requests, it did not, not checked."""
IDENTITY_RESULTS = (IDENTITY_ONE, IDENTITY_TWO, IDENTITY_UNCHECKED)


@dataclass(frozen=True)
class Place:
    """Where one side's URL connects: its host's addresses, port and path prefix."""

    addresses: frozenset[str]
    """The host and each address recorded for it, as `address_name` reads them (`THIS_HOST`
    for loopback)."""
    port: int | None
    """The port, the scheme's default where the URL names none (None: an unknown scheme)."""
    path: str
    """The path prefix without a trailing slash or `/v1` ('' for the root)."""


@dataclass(frozen=True)
class OneServer:
    """Base and patch URLs that connect to one server."""

    base: str
    """The base URL as the header names it."""
    patch: str
    """The patch URL as the header names it."""
    where: str
    """Where both connect: 'loopback port 8000', '10.0.0.5 port 443', 'gw port 80/base'."""

    @property
    def urls(self) -> str:
        """'http://a:1 and http://b:1', or the one URL where both are spelled alike."""
        return self.base if self.base == self.patch else f"{self.base} and {self.patch}"


def normalised(url: str) -> str:
    """`scheme://host:port/path`: scheme and host in lower case, the scheme's default port
    named, no user, query or fragment, no trailing slash or `/v1` (the URL itself where it
    cannot be split)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = port if port is not None else _DEFAULT_PORTS.get(scheme)
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port is None else f"{shown}:{port}"
    return f"{scheme}://{netloc}{_prefix(parts.path)}"


def _prefix(path: str) -> str:
    """The path without its dot segments (the HTTP client sends `/x/../v1` as `/v1`: before,
    review71c, `http://h:1/x/..` read as another route of `http://h:1`), a trailing slash or
    a `/v1` suffix."""
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            kept = kept[:-1] if len(kept) > 1 else kept
        elif segment != ".":
            kept.append(segment)
    root = "/".join(kept).rstrip("/")
    return root[: -len("/v1")].rstrip("/") if root.endswith("/v1") else root


def address_name(address: str) -> str:
    """An address as one server's: `THIS_HOST` for loopback, the any-address and
    `localhost`, an IPv4-mapped IPv6 address as IPv4, an IP in its compressed form (a
    link-local one with its zone, `fe80::1%eth0`: the same address on two interfaces is two
    hosts; any other's zone dropped), and any other name in lower case."""
    name = address.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return THIS_HOST
    bare, _, zone = name.partition("%")
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        return name
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:
        return THIS_HOST
    # The zone as written, as the HTTP client reads it (httpx connects `[fe80::1%eth0]` and
    # passes RFC 6874's `%25eth0` on as zone `25eth0`, which does not resolve).
    return f"{ip}%{zone}" if zone and ip.is_link_local else str(ip)


def connects_to(urls: Mapping[str, str], timeout: float = RESOLVE_TIMEOUT) -> dict[str, Any]:
    """Per side, `{"url": normalised URL, "addresses": [...]}`: the addresses its host
    resolves to (`socket.getaddrinfo`, as the client resolves it), in its order, both sides
    resolved together within `timeout` seconds (a resolver stuck past it is left behind in a
    daemon thread, never waited for); `error` says why a side has none."""
    results: dict[str, list[str] | Exception] = {}

    def resolve(side: str, url: str) -> None:
        try:
            results[side] = _resolve(url)
        except (OSError, UnicodeError, ValueError) as exc:
            results[side] = exc

    threads = [
        threading.Thread(target=resolve, args=item, name="k3diff-resolve", daemon=True)
        for item in urls.items()
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    found: dict[str, Any] = {}
    for side, url in urls.items():
        entry: dict[str, Any] = {"url": normalised(url), "addresses": []}
        result = results.get(side)
        if result is None:
            entry["error"] = f"not resolved within {timeout:g} s"
        elif isinstance(result, Exception):
            entry["error"] = str(result)[:200] or type(result).__name__
        else:
            entry["addresses"] = result
        found[side] = entry
    return found


def _resolve(url: str) -> list[str]:
    """The addresses `url`'s host resolves to, an IPv6 one with its scope (`fe80::1%2`:
    getaddrinfo gives the zone apart, as the interface's index)."""
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    if not host:
        return []
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(_scoped(info[4]) for info in found))


def _scoped(sockaddr: tuple[Any, ...]) -> str:
    address = str(sockaddr[0])
    scope = sockaddr[3] if len(sockaddr) == 4 else 0
    return f"{address}%{scope}" if scope and "%" not in address else address


def place(url: str, recorded: Any = None) -> Place:
    """Where `url` connects: its host, and the addresses recorded for it (a `connects_to`
    entry). The host counts whatever was recorded: one name is one server, so a header whose
    addresses were edited apart does not part two spellings of one URL."""
    parts = urlsplit(normalised(url))
    try:
        port = parts.port
    except ValueError:
        port = None
    addresses = recorded.get("addresses") if isinstance(recorded, dict) else None
    named = [a for a in addresses if isinstance(a, str)] if isinstance(addresses, list) else []
    hosts = [parts.hostname or url, *named]
    return Place(frozenset(address_name(a) for a in hosts), port, parts.path)


def one_server(run: Mapping[str, Any]) -> OneServer | None:
    """The base and patch URLs of a header's `run` object where they connect to one server
    (whatever their request fields: `side_params` is the caller's to weigh), else None."""
    servers = run.get("servers")
    if not isinstance(servers, dict):
        return None
    base, patch = servers.get("base"), servers.get("patch")
    if not isinstance(base, str) or not isinstance(patch, str):
        return None
    recorded = run.get("connects_to")
    recorded = recorded if isinstance(recorded, dict) else {}
    one, other = place(base, recorded.get("base")), place(patch, recorded.get("patch"))
    shared = one.addresses & other.addresses
    urls = redacted_url(base)[:200], redacted_url(patch)[:200]
    if one.port != other.port or one.path != other.path or not shared:
        counted = counted_as_one(run)
        return None if counted is None else OneServer(*urls, counted)
    host = "loopback" if THIS_HOST in shared else sorted(shared)[0]
    port = "" if one.port is None else f" port {one.port}"
    return OneServer(*urls, f"{host}{port}{one.path}")


def counted_as_one(run: Mapping[str, Any]) -> str | None:
    """'counted by one server: the base's ... counted ...' where the header's `server_identity` says the
    base's server counted the requests sent to the patch, else None."""
    identity = run.get(IDENTITY_FIELD)
    if not isinstance(identity, dict) or identity.get("result") != IDENTITY_ONE:
        return None
    why = identity.get("why")
    return "counted by one server" + (f": {why[:300]}" if isinstance(why, str) else "")


def identity_unchecked(run: Mapping[str, Any]) -> str | None:
    """Why the header's `server_identity` could not tell one server from two (None where it
    told, or where the header records no check: a log written before samples72)."""
    identity = run.get(IDENTITY_FIELD)
    if not isinstance(identity, dict) or identity.get("result") != IDENTITY_UNCHECKED:
        return None
    why = identity.get("why")
    return why[:300] if isinstance(why, str) else "no reason recorded"


def refuse_unheld_one_server(log: str, logged: Mapping[str, Any], run: Mapping[str, Any]) -> None:
    """UsageError where a resumed run finds base and patch one server by their addresses and
    the log's header, which a resume keeps, does not (review72c: before, `sample` said triage
    held the run, and triage read the kept header and passed, exit 0). One found by their own
    counters is not refused: the resume's marker records it, and readers hold the run
    (`k3diff.sample.identityread`, samples73)."""
    if sides_differ(run):  # an A/B of request fields
        return
    found = one_server({name: value for name, value in run.items() if name != IDENTITY_FIELD})
    if found is None or one_server(logged) is not None:
        return
    identity = logged.get(IDENTITY_FIELD)
    said = identity.get("result") if isinstance(identity, dict) else None
    was = f"says {said}" if isinstance(said, str) else "records no such check"
    raise UsageError(
        f"{log}: cannot resume: base and patch are one server now ({found.urls}, both "
        f"{found.where}), but the log's header, which a resume keeps, {was[:40]}: the samples "
        "logged may be of one server too; sample afresh with another --out (triage holds a "
        "run of one server unless --allow-same-server)"
    )
