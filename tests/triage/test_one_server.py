"""Base and patch sampled from one server, under whatever spelling, validate no patch (server71).

One fault server on loopback is sampled by `k3diff sample` as both sides, its URL spelled two
ways (`localhost` for `127.0.0.1`, a `/v1` suffix, a trailing slash, the any-address 0.0.0.0
a client reaches this host by). Before, only two equal strings were noticed, and then only as
a note: triage passed (exit 0) although every patch sample was the base server's. Now the log's
header records where each side connects, triage holds every record it would clear
(`same-server`, exit 1) naming both URLs, and `report` holds it too, unless
`--allow-same-server` says the run is an A/A calibration on purpose. Two servers pass as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]


def _sample(tmp_path: Path, base: str, patch: str, *args: str) -> CliResult:
    """Sample a and b three times a side, both captures matching what the server answers."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    result = run_k3diff(
        "sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl", "--repeats", "3",
        "--control", "off", "--out", "run", *args, cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr  # every sample answered
    return result


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads((tmp_path / "t.json").read_text())


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


SPELLINGS = {
    "localhost-v1": ("http://localhost:{port}/v1/", "http://localhost:{port}"),
    "any-address": ("http://0.0.0.0:{port}", "http://0.0.0.0:{port}"),
    "upper-case-slash": ("HTTP://127.0.0.1:{port}/", "http://127.0.0.1:{port}"),
}
"""The patch's spelling of the base's server (`http://127.0.0.1:PORT`), and the URL normalised
as the header's `connects_to` records it."""


@pytest.mark.parametrize("spelling", list(SPELLINGS), ids=list(SPELLINGS))
def test_one_server_under_two_spellings_is_held(
    tmp_path: Path, fault_server: Any, spelling: str
) -> None:
    """Failed on base71: no note, and triage exit 0 with both records `match`."""
    server = fault_server()
    port = _port(server.url)
    patch, normal = (url.format(port=port) for url in SPELLINGS[spelling])
    kept = patch.rstrip("/").removesuffix("/v1")
    sampled = _sample(tmp_path, server.url, patch)

    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert document["allow_same_server"] is False
    assert document["summary"]["held"] == 2 and document["summary"]["match"] == 0
    urls = f"{server.url} and {kept}, both loopback port {port}, in run/samples.jsonl"
    for record in document["records"]:
        assert record["category"] == "inconclusive"
        assert "same-server" in record["flags"]
        assert record["reason"].startswith(
            f"same-server: base and patch were sampled from one server ({urls}) with the same "
            "parameters, so the patch samples are that server's and clear nothing; "
        )
        assert record["more_samples"] is None  # more of the same samples decide nothing
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert text.stdout.rstrip().endswith(
        f"result: SAME SERVER: base and patch were sampled from one server ({urls}); 2 records "
        "it would have cleared fail (exit 1; --allow-same-server for an A/A calibration run)"
    )
    # What sample said as it ran, and what the header recorded for triage to read.
    assert (
        f"k3diff: note: --base and --patch are the same server ({server.url} and {kept}, both "
        f"loopback port {port}): the run measures that server against itself, and triage "
        "holds it unless --allow-same-server"
    ) in sampled.stderr
    header = json.loads((tmp_path / "run" / "samples.jsonl").read_text().splitlines()[0])
    connects = header["run"]["connects_to"]
    assert connects["base"] == {"url": f"http://127.0.0.1:{port}", "addresses": ["127.0.0.1"]}
    assert connects["patch"]["url"] == normal


def test_an_aa_run_is_judged_as_any_with_allow_same_server(
    tmp_path: Path, fault_server: Any
) -> None:
    """The A/A calibration the user asks for: both records match (exit 0), the
    qualification still says the patch samples are the server's own, and report follows where
    the reviewer allows it too (`report --allow-same-server`, gate74)."""
    server = fault_server()
    port = _port(server.url)
    _sample(tmp_path, server.url, f"http://localhost:{port}")
    result, document = _triage(tmp_path, "--allow-same-server")
    assert result.exit_code == 0, result.stdout
    assert document["allow_same_server"] is True
    assert [r["category"] for r in document["records"]] == ["match", "match"]
    assert (
        f"base and patch were sampled from the same server ({server.url} and "
        f"http://localhost:{port}, both loopback port {port}) in run/samples.jsonl: its patch "
        "samples measure that server against itself, not a patched build; judged as an A/A "
        "calibration run (--allow-same-server)"
    ) in document["qualifications"]
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
        "--allow-same-server", cwd=tmp_path,
    )  # fmt: skip
    assert bundle.exit_code == 0, bundle.stderr


def test_report_holds_it_and_refuses_a_document_that_clears_it(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base71: report exit 0. A triage document edited to clear the records (flags
    dropped, its verdict ok) is refused by report, which runs triage again on the log."""
    server = fault_server()
    port = _port(server.url)
    _sample(tmp_path, server.url, f"http://localhost:{port}/v1")
    _triage(tmp_path)
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b1", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = (tmp_path / "b1" / "REPORT.md").read_text()
    assert "2 records held: base and patch sampled from one server (a, b)" in summary, summary
    document = json.loads((tmp_path / "t.json").read_text())
    for record in document["records"]:
        record["flags"] = [f for f in record["flags"] if f != "same-server"]
        record["category"] = "match"
    document["summary"].update(held=0, match=2, inconclusive=0)
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "forged.json", "--out", "b2", cwd=tmp_path
    )
    assert refused.exit_code == 2, refused.stdout
    assert "forged.json" in refused.stderr


def test_two_servers_are_judged_as_before(tmp_path: Path, fault_server: Any) -> None:
    """Two servers on loopback (two ports): no note, no hold, both records match (exit 0)."""
    base, patch = fault_server(), fault_server()
    sampled = _sample(tmp_path, base.url, patch.url.replace("127.0.0.1", "localhost"))
    assert "same server" not in sampled.stderr
    result, document = _triage(tmp_path)
    assert result.exit_code == 0, result.stdout
    assert [r["category"] for r in document["records"]] == ["match", "match"]
    assert not any("same server" in q for q in document["qualifications"])


def test_one_servers_sides_apart_by_their_parameters_are_judged_as_any(
    tmp_path: Path, fault_server: Any
) -> None:
    """An A/B of request fields on one server (`--base-param`/`--patch-param`) is deliberate:
    no hold, as before."""
    server = fault_server()
    port = _port(server.url)
    _sample(
        tmp_path, server.url, f"http://localhost:{port}", "--base-param", "top_k=1",
        "--patch-param", "top_k=2",
    )  # fmt: skip
    _, document = _triage(tmp_path, "--allow-condition-mismatch")
    assert not any("same-server" in r["flags"] for r in document["records"])
    assert not any("same server" in q for q in document["qualifications"])


def test_an_aa_runs_parity_is_one_servers_two_labels(tmp_path: Path, fault_server: Any) -> None:
    """words72: the bundle's A/A row read "A/A run of one server: serially, the patch
    reproduces the base", and triage's headline the same: no patch was sampled. Failed on
    base72."""
    server = fault_server()
    _sample(tmp_path, server.url, f"http://localhost:{_port(server.url)}")
    parity = (
        "serially, the one server's samples labelled patch reproduce those labelled base on 2 of "
        "2 records"
    )
    text = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--allow-same-server", cwd=tmp_path
    ).stdout
    assert f"\n{parity}\n" in text and "the patch reproduces the base" not in text, text
    _triage(tmp_path, "--allow-same-server")
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
        "--allow-same-server", cwd=tmp_path,
    )  # fmt: skip
    assert bundle.exit_code == 0, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert f"| nondeterminism follow-up | recorded | A/A run of one server: {parity};" in report
    assert "the patch reproduces the base" not in report
