"""One server reached at two addresses no URL tells apart, found by its own counters (samples72).

A server bound to the any-address reached at loopback and at the host's LAN address, or reached
directly and through a TCP forwarder (a port forward, a load balancer), is two addresses to
`connects_to`: before, `k3diff sample` sampled it as two servers and triage passed (exit 0),
every patch sample the base server's. Now `sample` asks both sides' `/metrics`: the base's
request counter counting the GETs it sent to the patch only shows one server, recorded in the
header (`server_identity`), and triage holds it (`same-server`, exit 1). Two servers are
judged as before; where the counters cannot tell, triage says what it could not check.
"""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from server_support import loopback_script

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
FORWARDER = Path(__file__).resolve().parents[1] / "sample" / "tcp_forwarder.py"
LOG = "run/samples.jsonl"


def _sample(tmp_path: Path, base: str, patch: str, *more: str) -> CliResult:
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    result = run_k3diff(
        "sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl", "--repeats", "3",
        "--control", "off", "--out", "run", *more, cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result


def _identity(tmp_path: Path) -> dict[str, Any]:
    header = json.loads((tmp_path / LOG).read_text().splitlines()[0])["run"]
    assert header["log_format"] == 3
    identity: dict[str, Any] = header["server_identity"]
    return identity


def _triage(tmp_path: Path) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff("triage", "cmp.json", LOG, "--format", "json", "-o", "t.json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads((tmp_path / "t.json").read_text())


def _forwarder(url: str) -> contextlib.AbstractContextManager[str]:
    """A TCP forwarder to `url`'s port: its URL, stopped by pid."""
    return loopback_script(FORWARDER, "--to", url.rsplit(":", 1)[1])


def _assert_held(tmp_path: Path, sampled: CliResult, base: str, patch: str) -> None:
    result, document = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    identity = _identity(tmp_path)
    assert identity["result"] == "one-server", identity
    assert (
        identity["series"] == 'http_requests_total{handler="/v1/models",method="GET",status="2xx"}'
    )
    assert f"--base and --patch are the same server ({base} and {patch}, both counted by" in (
        sampled.stderr
    )
    assert document["summary"]["held"] == 2 and document["summary"]["match"] == 0
    for record in document["records"]:
        assert "same-server" in record["flags"]
        assert record["reason"].startswith(
            f"same-server: base and patch were sampled from one server ({base} and {patch}, "
            "both counted by one server: the base's http_requests_total"
        )


def test_one_server_behind_a_forwarder_is_held(tmp_path: Path, fault_server: Any) -> None:
    """Failed on main at 75ea4965 (exit 0, both records `match`): base the server, patch a TCP
    forwarder to it on another port."""
    server = fault_server("--metrics", "vllm")
    with _forwarder(server.url) as patch:
        sampled = _sample(tmp_path, server.url, patch)
    _assert_held(tmp_path, sampled, server.url, patch)


def _lan_address() -> str | None:
    """This host's address on its default route (no packet is sent), None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))
        except OSError:
            return None
        found = str(probe.getsockname()[0])
    return None if found.startswith("127.") or found == "0.0.0.0" else found


def test_one_server_at_loopback_and_at_its_lan_address_is_held(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 75ea4965 (exit 0): a server bound to 0.0.0.0, reached as 127.0.0.1
    and as this host's LAN address."""
    lan = _lan_address()
    if lan is None:
        pytest.skip("this host has no non-loopback address")
    server = fault_server("--metrics", "vllm", "--bind", "0.0.0.0")
    patch = server.url.replace("127.0.0.1", lan)
    sampled = _sample(tmp_path, server.url, patch)
    _assert_held(tmp_path, sampled, server.url, patch)


def test_two_servers_are_two_by_their_counters(tmp_path: Path, fault_server: Any) -> None:
    """Two servers exposing the same counter: the base's did not count the patch's requests;
    no note, no hold (exit 0), and nothing said unchecked."""
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    sampled = _sample(tmp_path, base.url, patch.url)
    assert "same server" not in sampled.stderr
    assert _identity(tmp_path)["result"] == "two-servers"
    result, document = _triage(tmp_path)
    assert result.exit_code == 0, result.stdout
    assert [r["category"] for r in document["records"]] == ["match", "match"]
    assert not any("one server" in q for q in document["qualifications"])


def test_servers_without_counters_are_said_unchecked(tmp_path: Path, fault_server: Any) -> None:
    """Two servers without `/metrics`: judged as before (exit 0), and triage says that one
    server at two addresses could not be ruled out, and why."""
    base, patch = fault_server(), fault_server()
    _sample(tmp_path, base.url, patch.url)
    assert _identity(tmp_path)["result"] == "unchecked"
    result, document = _triage(tmp_path)
    assert result.exit_code == 0, result.stdout
    (said,) = [q for q in document["qualifications"] if "two addresses" in q]
    assert said.startswith(
        f"whether base and patch of {LOG} are one server reached at two addresses (a LAN "
        "address, a DNS alias, a forwarder) was not checked by the servers' counters: a side's "
        "/metrics gives no reading (base: HTTP 404; patch: HTTP 404)"
    ), said
    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert "unchecked: whether base and patch of" in text.stdout
    # newuser72: it alarmed without saying what to do about it.
    assert said.endswith(
        "; nothing to do where you know the two URLs reach two servers you started; else check "
        "that they do, or sample again against servers whose Prometheus metrics count HTTP "
        "requests, as vLLM's do"
    ), said
    assert "nothing to do where you know the two URLs reach two servers" in text.stdout


def test_a_header_whose_identity_was_deleted_is_refused(tmp_path: Path, fault_server: Any) -> None:
    """A format 3 header without `server_identity` was edited (one server read as two): exit
    2, one line."""
    server = fault_server("--metrics", "vllm")
    with _forwarder(server.url) as patch:
        _sample(tmp_path, server.url, patch)
    lines = (tmp_path / LOG).read_text().splitlines()
    header = json.loads(lines[0])
    del header["run"]["server_identity"]
    (tmp_path / LOG).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    assert "header 'run.server_identity' missing" in line


def _resume_args(base: str, patch: str) -> list[str]:
    args = ["sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl"]
    return [*args, "--repeats", "3", "--control", "off", "--out", "run"]


def _marker(tmp_path: Path) -> dict[str, Any]:
    """The log's one resume marker."""
    (marker,) = [
        json.loads(line)
        for line in (tmp_path / LOG).read_text().splitlines()[1:]
        if '"resumed"' in line
    ]
    found: dict[str, Any] = marker
    return found


def test_a_resume_that_finds_one_server_the_header_does_not_hold_holds_the_run(
    tmp_path: Path, fault_server: Any
) -> None:
    """A run sampled with `--metrics-url off` (its header's check `unchecked`), resumed
    without it: the resume's counters find one server, but a resume keeps the log's header.
    review72c refused such a resume (exit 2), which left the log as it was, passed by triage
    (exit 0). samples73: failed on main at fb4ef845 (the resume exit 2); now the resume's
    marker records its check, sample says so, and triage holds every record (exit 1)."""
    server = fault_server("--metrics", "vllm")
    with _forwarder(server.url) as patch:
        compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
        (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
        args = _resume_args(server.url, patch)
        first = run_k3diff(*args, "--metrics-url", "off", cwd=tmp_path)
        assert first.exit_code == 0, first.stderr
        assert _identity(tmp_path)["result"] == "unchecked"
        result, _ = _triage(tmp_path)
        assert result.exit_code == 0, result.stdout  # the samples of one server, passed
        resumed = run_k3diff(*args, "--resume", cwd=tmp_path)
    assert resumed.exit_code == 0, resumed.stderr
    assert "found by this resume, not by the log's own check: its resume marker records it, " in (
        resumed.stderr
    )
    assert _identity(tmp_path)["result"] == "unchecked"  # the header, kept
    assert _marker(tmp_path)["server_identity"]["result"] == "one-server"
    result, document = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    assert document["summary"]["held"] == 2
    for record in document["records"]:
        assert "same-server" in record["flags"]
        assert "counted by one server: found by the resume of " in record["reason"]
        assert (
            "(the log's header said unchecked): the base's http_requests_total"
            in (record["reason"])
        )


def test_a_resume_that_could_not_check_leaves_two_servers_unchecked(
    tmp_path: Path, fault_server: Any
) -> None:
    """Two servers (`two-servers`), resumed with `--metrics-url off`: the resumed samples were
    not checked, so triage says the run unchecked, naming the resume. Failed on main at
    fb4ef845 (no note: the header's `two-servers` stayed)."""
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    args = _resume_args(base.url, patch.url)
    _sample(tmp_path, base.url, patch.url)
    assert _identity(tmp_path)["result"] == "two-servers"
    resumed = run_k3diff(*args, "--resume", "--metrics-url", "off", cwd=tmp_path)
    assert resumed.exit_code == 0, resumed.stderr
    assert _marker(tmp_path)["server_identity"]["result"] == "unchecked"
    result, document = _triage(tmp_path)
    assert result.exit_code == 0, result.stdout
    (said,) = [q for q in document["qualifications"] if "two addresses" in q]
    assert "was not checked by the servers' counters: found by the resume of " in said
    assert "(the log's header said two-servers): the run has no /metrics of both sides" in said


def test_a_resume_that_finds_two_servers_never_clears_one_server(
    tmp_path: Path, fault_server: Any
) -> None:
    """A marker can only hold a run: one server found first (through a forwarder), its
    resume's marker edited to `two-servers`, is still held (a guard: passes on main)."""
    server = fault_server("--metrics", "vllm")
    with _forwarder(server.url) as patch:
        _sample(tmp_path, server.url, patch)
        resumed = run_k3diff(*_resume_args(server.url, patch), "--resume", cwd=tmp_path)
    assert resumed.exit_code == 0, resumed.stderr
    lines = (tmp_path / LOG).read_text().splitlines()
    edited = [
        line.replace('"result":"one-server"', '"result":"two-servers"')
        if '"resumed"' in line
        else line
        for line in lines
    ]
    (tmp_path / LOG).write_text("\n".join(edited) + "\n")
    result, document = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    assert all("same-server" in r["flags"] for r in document["records"])


def _edit_identity(tmp_path: Path, **identity: Any) -> None:
    lines = (tmp_path / LOG).read_text().splitlines()
    header = json.loads(lines[0])
    header["run"]["server_identity"].update(identity)
    (tmp_path / LOG).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"result": "two-servers"}, "says two-servers, but the header records no /metrics"),
        ({"result": "two-server"}, "is not what k3diff sample writes"),
    ],
)
def test_a_header_whose_identity_was_edited_is_refused(
    tmp_path: Path, fault_server: Any, edit: dict[str, str], said: str
) -> None:
    """review72c: failed on main at 7f47db6b (exit 0, triage's unchecked note gone): a run of
    two servers under `--metrics-url off` (`unchecked`), its result edited to `two-servers` (which no
    counter read could have said) or to a word sample never writes. Now exit 2, one line."""
    base, patch = fault_server(), fault_server()
    _sample(tmp_path, base.url, patch.url, "--metrics-url", "off")
    assert _identity(tmp_path)["result"] == "unchecked"
    _edit_identity(tmp_path, **edit)
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    assert f"{LOG}:1: header 'run.server_identity' {said}" in line, line


def test_two_servers_by_counters_never_clears_one_server_by_address(
    tmp_path: Path, fault_server: Any
) -> None:
    """review72c (a guard, passes on main): one server spelled two ways (127.0.0.1 and
    localhost), its header's counters edited to `two-servers`: still held by its addresses."""
    server = fault_server("--metrics", "vllm")
    patch = server.url.replace("127.0.0.1", "localhost")
    _sample(tmp_path, server.url, patch)
    _edit_identity(tmp_path, result="two-servers")
    result, document = _triage(tmp_path)
    assert result.exit_code == 1, result.stdout
    assert document["summary"]["held"] == 2
    assert all("same-server" in r["flags"] for r in document["records"])
