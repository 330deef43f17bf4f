"""Where `k3diff sample`'s requests go, which headers they carry, and how TLS is verified.

`sample` talks only to the URLs it is given. Proxy environment variables (`http_proxy`,
`ALL_PROXY`, ...) are ignored unless `--trust-env` is given; `--proxy URL` names one proxy for
every request. A proxy in use is recorded in the log header and printed. `--header` values go to
the base and patch servers only (their completions, `/v1/models` and `/perf_metrics`);
`--flush-header` values to the flush URL only. TLS is verified against the system trust store
(`truststore`), plus `SSL_CERT_FILE`/`SSL_CERT_DIR` when set and `--ca-cert FILE`.
"""

from __future__ import annotations

import importlib.util
import os
import ssl
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import truststore

from k3diff.errors import UsageError
from k3diff.sample.credentials import redacted_url


@dataclass(frozen=True)
class Routing:
    """How one run reaches its servers."""

    server_headers: Mapping[str, str] = field(default_factory=dict)
    """`--header`: sent to the base and patch servers only."""
    flush_headers: Mapping[str, str] = field(default_factory=dict)
    """`--flush-header`: sent to the flush URL only."""
    proxy: str | None = None
    """The proxy every request goes through, None for direct connections."""
    proxy_source: str | None = None
    """Where the proxy came from: `--proxy`, or the environment variable `--trust-env` read."""
    ca_cert: Path | None = None
    """`--ca-cert`: a PEM file of extra trusted certificates."""
    ignored_variables: tuple[str, ...] = ()
    """Proxy variables set in the environment and ignored (no `--trust-env`)."""

    def header_record(self) -> dict[str, Any] | None:
        """The log header's `proxy` object (credentials in the URL hidden), None when direct."""
        if self.proxy is None:
            return None
        return {"url": redacted_url(self.proxy), "source": self.proxy_source}


def resolve_routing(
    server_urls: Mapping[str, str],
    *,
    proxy: str | None,
    trust_env: bool,
    server_headers: Mapping[str, str],
    flush_headers: Mapping[str, str],
    ca_cert: Path | None,
) -> Routing:
    """The routing a run's options ask for; UsageError for a proxy that cannot be used."""
    source = "--proxy" if proxy is not None else None
    if proxy is None and trust_env:
        proxy, source = _environment_proxy(server_urls)
    if proxy is not None:
        _check_proxy_url(proxy, source or "--proxy")
    ignored = () if trust_env else proxy_variables()
    return Routing(dict(server_headers), dict(flush_headers), proxy, source, ca_cert, ignored)


def proxy_variables() -> tuple[str, ...]:
    """The proxy variables set (non-empty) in the environment, `NO_PROXY` aside."""
    return tuple(
        sorted(
            name
            for name, value in os.environ.items()
            if name.lower().endswith("_proxy") and name.lower() != "no_proxy" and value
        )
    )


def _environment_proxy(server_urls: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The proxy the environment names for the servers (urllib's rules, `no_proxy` included)."""
    proxies = urllib.request.getproxies()
    chosen: dict[str, str | None] = {}
    for side, url in server_urls.items():
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        if host and urllib.request.proxy_bypass(host):
            chosen[side] = None
            continue
        chosen[side] = proxies.get(parts.scheme) or proxies.get("all")
    distinct = set(chosen.values())
    if len(distinct) > 1:
        shown = ", ".join(
            f"{side} {redacted_url(p) if p else 'direct'}" for side, p in chosen.items()
        )
        raise UsageError(
            f"--trust-env: the environment routes the servers differently ({shown}); "
            "give --proxy URL for all of them, or leave the proxy variables out"
        )
    found = distinct.pop() if distinct else None
    if found is None:
        return None, None
    named = next((n for n in proxy_variables() if os.environ[n] == found), "the environment")
    # A variable may name a bare host:port, which curl and urllib take as an HTTP proxy.
    url = found if "://" in found else f"http://{found}"
    return url, f"environment ({named}, --trust-env)"


def _check_proxy_url(proxy: str, source: str) -> None:
    parts = urllib.parse.urlsplit(proxy)
    if parts.scheme not in ("http", "https", "socks5", "socks5h") or not parts.hostname:
        raise UsageError(
            f"{source}: proxy {redacted_url(proxy)!r} is not an http://, https:// or socks5:// URL"
        )
    if parts.scheme.startswith("socks") and importlib.util.find_spec("socksio") is None:
        raise UsageError(
            f"{source}: proxy {redacted_url(proxy)} is a SOCKS proxy, which needs the "
            "socksio package: pip install 'httpx[socks]'"
        )


def tls_context(ca_cert: Path | None) -> ssl.SSLContext:
    """A client TLS context verifying against the system trust store, `SSL_CERT_FILE` and
    `SSL_CERT_DIR` when set, and `ca_cert`."""
    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    try:
        if cafile or capath:
            context.load_verify_locations(cafile=cafile or None, capath=capath or None)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(
            f"SSL_CERT_FILE={cafile or ''} SSL_CERT_DIR={capath or ''}: cannot load: {exc}"
        ) from exc
    if ca_cert is not None:
        try:
            context.load_verify_locations(cafile=str(ca_cert))
        except (OSError, ssl.SSLError) as exc:
            raise UsageError(f"--ca-cert {ca_cert}: not a PEM certificate file: {exc}") from exc
    return context


def proxy_transport(
    limits: httpx.Limits, tls: ssl.SSLContext, proxy: str
) -> httpx.AsyncHTTPTransport:
    """httpx's transport sending every request through `proxy` (the environment not read)."""
    try:
        return httpx.AsyncHTTPTransport(limits=limits, verify=tls, proxy=proxy, trust_env=False)
    except ImportError as exc:  # a SOCKS proxy without socksio, found late
        raise UsageError(f"proxy {redacted_url(proxy)}: {exc}") from exc
