"""`k3diff sample` talks only to the URLs it is given.

Proxy variables in the environment are ignored unless `--trust-env`; `--proxy URL` sends every
request through that proxy, and a proxy in use is recorded in the log header and printed.
`--header` values reach the base and patch servers only, `--flush-header` values the flush URL
only. TLS is verified against the system store, `SSL_CERT_FILE` and `--ca-cert`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from .conftest import SCRIPTS, SERVER_SCRIPT, FaultServer
from .support import read_samples, sample, write_prompts

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


def _prompts(tmp_path: Path) -> Path:
    return write_prompts(
        tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
    )


def _point_environment_at(monkeypatch: Any, url: str) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)


def test_proxy_variables_are_ignored_without_trust_env(
    fault_server: Any, proxy_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    base = fault_server()
    _point_environment_at(monkeypatch, proxy_server.url)
    result = sample(
        "--base",
        base.url,
        "--prompts",
        _prompts(tmp_path),
        "--repeats",
        "2",
        "--header",
        "Authorization: Bearer s3cret",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    assert proxy_server.requests() == []
    run, samples = read_samples(tmp_path / "out")
    assert run["proxy"] is None and "requests went through" not in result.stderr
    assert (
        "note: ignored ALL_PROXY, HTTP_PROXY, all_proxy, http_proxy, https_proxy" in result.stderr
    )
    assert len(samples) == 4 and all(s["text"].startswith("echo:") for s in samples)


def test_proxy_option_routes_through_it_and_the_log_names_it(
    fault_server: Any, proxy_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    result = sample(
        "--base",
        base.url,
        "--prompts",
        _prompts(tmp_path),
        "--repeats",
        "2",
        "--proxy",
        proxy_server.url,
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    seen = proxy_server.requests()
    posts = [r for r in seen if r["method"] == "POST"]
    assert len(posts) == 4 and all(r["url"] == f"{base.url}/v1/completions" for r in posts)
    run, samples = read_samples(tmp_path / "out")
    assert run["proxy"] == {"url": proxy_server.url, "source": "--proxy"}
    assert f"requests went through the proxy {proxy_server.url} (--proxy)" in result.stderr
    assert len(samples) == 4 and all(s["error"] is None for s in samples)


def test_trust_env_uses_the_environment_proxy_and_says_which_variable(
    fault_server: Any, proxy_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    base = fault_server()
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("http_proxy", proxy_server.url.removeprefix("http://"))  # host:port
    result = sample(
        "--base",
        base.url,
        "--prompts",
        _prompts(tmp_path),
        "--repeats",
        "1",
        "--trust-env",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    assert len([r for r in proxy_server.requests() if r["method"] == "POST"]) == 2
    run, _ = read_samples(tmp_path / "out")
    assert run["proxy"]["url"] == proxy_server.url
    assert "http_proxy" in run["proxy"]["source"] and "--trust-env" in run["proxy"]["source"]


def test_a_socks_proxy_without_its_extra_is_one_line_exit_2(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    pytest.importorskip("httpx")
    if "socksio" in sys.modules or _has_socksio():
        pytest.skip("socksio is installed: SOCKS proxies are usable")
    base = fault_server()
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1")
    prompts = _prompts(tmp_path)
    ignored = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", tmp_path / "a"
    )
    assert ignored.exit_code == 0, ignored.stderr
    for extra in (("--trust-env",), ("--proxy", "socks5://127.0.0.1:1")):
        result = sample(
            "--base",
            base.url,
            "--prompts",
            prompts,
            "--repeats",
            "1",
            *extra,
            "--out",
            tmp_path / extra[0].strip("-"),
        )
        assert result.exit_code == 2, result.stderr
        (line,) = result.stderr.splitlines()
        assert "SOCKS proxy" in line and "socksio" in line and "Traceback" not in line


def _has_socksio() -> bool:
    import importlib.util

    return importlib.util.find_spec("socksio") is not None


def test_headers_reach_the_servers_only_and_flush_headers_the_flush_url_only(
    fault_server: Any, tmp_path: Path
) -> None:
    base, flusher = fault_server(), fault_server()
    result = sample(
        "--base",
        base.url,
        "--prompts",
        _prompts(tmp_path),
        "--repeats",
        "2",
        "--header",
        "Authorization: Bearer s3cret",
        "--flush-url",
        f"{flusher.url}/flush",
        "--flush-header",
        "X-Flush-Token: f1ush",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    flushes = flusher.requests()
    assert flushes and all(r["path"] == "/flush" for r in flushes)
    assert all("authorization" not in r["headers"] for r in flushes)
    assert all(r["headers"].get("x-flush-token") == "f1ush" for r in flushes)
    served = base.requests()
    assert served and all(r["headers"].get("authorization") == "Bearer s3cret" for r in served)
    assert all("x-flush-token" not in r["headers"] for r in served)
    run, _ = read_samples(tmp_path / "out")
    assert run["header_names"] == ["authorization"]
    assert run["flush_header_names"] == ["x-flush-token"]
    text = (tmp_path / "out" / "samples.jsonl").read_text()
    assert "s3cret" not in text and "f1ush" not in text


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[FaultServer, Path]]:
    """An HTTPS fault server whose certificate a fresh CA signed; yields it and the CA's PEM."""
    ca = trustme.CA()
    chain = tmp_path / "server.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(chain))
    ca_pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_pem))
    log = tmp_path / "tls-server.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--log", str(log), "--tls-cert", str(chain)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SCRIPTS)},
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    yield FaultServer(f"https://127.0.0.1:{port}", log, proc.pid), ca_pem
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=10)


def test_tls_trusts_the_system_store_plus_ssl_cert_file_and_ca_cert(
    tls_server: tuple[FaultServer, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    server, ca_pem = tls_server
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    args = (
        "--base",
        server.url,
        "--prompts",
        _prompts(tmp_path),
        "--repeats",
        "1",
        "--retries",
        "0",
    )
    untrusted = sample(*args, "--out", tmp_path / "untrusted")
    assert untrusted.exit_code == 2 and "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
    given = sample(*args, "--ca-cert", ca_pem, "--out", tmp_path / "given")
    assert given.exit_code == 0, given.stderr
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_pem))
    from_env = sample(*args, "--out", tmp_path / "env")
    assert from_env.exit_code == 0, from_env.stderr
    assert read_samples(tmp_path / "given")[0]["ca_cert"] == str(ca_pem)


def test_a_run_cannot_be_resumed_through_another_route(
    fault_server: Any, proxy_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    args = ("--base", base.url, "--prompts", _prompts(tmp_path), "--repeats", "1")
    assert sample(*args, "--proxy", proxy_server.url, "--out", tmp_path / "o").exit_code == 0
    direct = sample(*args, "--out", tmp_path / "o", "--resume")
    assert direct.exit_code == 2
    (line,) = direct.stderr.splitlines()
    assert "differs from the logged one in --proxy (logged {" in line
