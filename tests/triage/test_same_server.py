"""Samples whose base and patch are one server: `k3diff sample` says so when it runs (a note on
stderr), and the triage and the bundle read from its log must say so too, or a reviewer reads a
pass as the patch reproducing the base when the patch was never sampled; and triage holds its
records (same-server, exit 1: server71) unless --allow-same-server. These logs are written
without the header's `connects_to` (as before server71): the URLs' names decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples

SAME = "http://127.0.0.1:1"


def _same_server_log(tmp_path: Path, patch_url: str = SAME) -> None:
    compare_texts(tmp_path, {"a": ("x", "x"), "b": ("y", "y")})
    log = tmp_path / "run" / "samples.jsonl"
    write_samples(
        log,
        [
            *side("a", "base", ["x"] * 3),
            *side("a", "patch", ["x"] * 3),
            *side("b", "base", ["y"] * 3),
            *side("b", "patch", ["y"] * 3),
        ],
    )
    header, *rest = log.read_text().splitlines()
    parsed = json.loads(header)
    parsed["run"]["servers"] = {"base": SAME, "patch": patch_url}
    parsed["run"]["connects_to"] = {  # no address recorded: the URLs' names decide
        side: {"url": url, "addresses": []} for side, url in parsed["run"]["servers"].items()
    }
    log.write_text("\n".join([json.dumps(parsed), *rest]) + "\n")


def test_triage_says_the_patch_side_is_the_base_server(tmp_path: Path) -> None:
    _same_server_log(tmp_path)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr  # held: same-server (a note before server71)
    said = (
        f"one server: base and patch were sampled from the same server ({SAME}, both loopback "
        "port 1) in run/samples.jsonl: its patch samples measure that server against itself, "
        "not a patched build"
    )
    assert said in result.stdout
    assert "unchecked: base and patch" not in result.stdout  # it was checked, and held
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    document = json.loads((tmp_path / "t.json").read_text())
    assert any("same server" in q for q in document["qualifications"])
    assert all("same-server" in r["flags"] for r in document["records"])
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert (
        "- Base and patch were sampled from the same server (http://127.0.0.1:1, both loopback "
        "port 1)"
    ) in report


def test_an_older_log_of_one_server_under_two_names_is_held(tmp_path: Path) -> None:
    """A log without `connects_to`: `localhost` and 127.0.0.1 are this host, a trailing slash
    and `/v1` no other server. Failed on base71: exit 0, no word of it."""
    _same_server_log(tmp_path, "http://LOCALHOST:1/v1/")
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert (
        f"result: SAME SERVER: base and patch were sampled from one server ({SAME} and "
        "http://LOCALHOST:1/v1/, both loopback port 1, in run/samples.jsonl); 2 records it "
        "would have cleared fail (exit 1; --allow-same-server for an A/A calibration run)"
    ) in result.stdout
    allowed = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--allow-same-server", cwd=tmp_path
    )
    assert allowed.exit_code == 0, allowed.stdout


def test_bundle_without_triage_says_so_too(tmp_path: Path) -> None:
    _same_server_log(tmp_path)
    bundle = run_k3diff("report", "cmp.json", "run/samples.jsonl", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "the same server (http://127.0.0.1:1, both loopback port 1) in run/samples.jsonl" in (
        report
    ), report


def test_two_servers_say_nothing(tmp_path: Path) -> None:
    _same_server_log(tmp_path, "http://127.0.0.1:2")
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert "same server" not in result.stdout


def _connected_log(tmp_path: Path, base: str, patch: str, addresses: tuple[str, str]) -> None:
    """A log whose header records where each side connected (`run.connects_to`)."""
    _same_server_log(tmp_path, patch)
    log = tmp_path / "run" / "samples.jsonl"
    header, *rest = log.read_text().splitlines()
    parsed = json.loads(header)
    parsed["run"]["servers"] = {"base": base, "patch": patch}
    parsed["run"]["connects_to"] = {
        side: {"url": url, "addresses": [address]}
        for side, url, address in zip(("base", "patch"), (base, patch), addresses, strict=True)
    }
    log.write_text("\n".join([json.dumps(parsed), *rest]) + "\n")


@pytest.mark.parametrize(
    ("base", "patch", "addresses", "where"),
    [
        ("http://serve-a.internal:8000", "http://serve-b.internal:8000", ("10.0.0.5",) * 2,
         "10.0.0.5 port 8000"),
        ("https://serve-a.internal", "https://10.0.0.5:443/v1", ("10.0.0.5", "10.0.0.5"),
         "10.0.0.5 port 443"),
        ("http://[::1]:8000", "http://127.0.0.1:8000", ("::1", "127.0.0.1"),
         "loopback port 8000"),
        # One name is one server whatever addresses a header says it had.
        ("http://serve.internal:8000", "http://SERVE.internal:8000/", ("10.0.0.5", "10.0.0.6"),
         "serve.internal port 8000"),
        # A link-local address's zone by name and by index, resolved to one (samples72).
        ("http://[fe80::1%eth0]:8000", "http://[fe80::1%2]:8000", ("fe80::1%2", "fe80::1%2"),
         "fe80::1%2 port 8000"),
    ],
    ids=[
        "two-names-one-address", "name-and-literal", "ipv6-and-ipv4-loopback", "edited-apart",
        "link-local-zone-name-and-index",
    ],
)  # fmt: skip
def test_two_names_that_resolved_to_one_address_are_one_server(
    tmp_path: Path, base: str, patch: str, addresses: tuple[str, str], where: str
) -> None:
    """Decided from the addresses the header recorded, not resolved again. Failed on base71:
    exit 0, no word of it."""
    _connected_log(tmp_path, base, patch, addresses)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert f"one server ({base} and {patch}, both {where}, in run/samples.jsonl)" in result.stdout


@pytest.mark.parametrize(
    ("base", "patch", "addresses"),
    [
        ("http://serve-a.internal:8000", "http://serve-b.internal:8000", ("10.0.0.5", "10.0.0.6")),
        ("http://gw.internal/base", "http://gw.internal/patch", ("10.0.0.5",) * 2),
        ("http://127.0.0.1:8000", "http://localhost:8001", ("127.0.0.1",) * 2),
        # One link-local address on two interfaces is two hosts (samples72).
        ("http://[fe80::1%eth0]:8000", "http://[fe80::1%eth1]:8000", ("fe80::1%2", "fe80::1%3")),
    ],
    ids=["two-addresses", "two-routes", "two-ports", "link-local-two-interfaces"],
)  # fmt: skip
def test_two_servers_recorded_apart_are_judged_as_any(
    tmp_path: Path, base: str, patch: str, addresses: tuple[str, str]
) -> None:
    """link-local-two-interfaces failed on main at 75ea4965 (held same-server, exit 1): the
    zone was dropped, so `fe80::1` on eth0 and on eth1 read as one host."""
    _connected_log(tmp_path, base, patch, addresses)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "same server" not in result.stdout and "same-server" not in result.stdout


def test_the_next_step_of_a_run_of_one_server_is_a_server_of_its_own(tmp_path: Path) -> None:
    """newuser71, against a real `transformers serve` as http://localhost:P and
    http://127.0.0.1:P: one record held same-server, the others asking for more samples, and
    triage's `next:` said only to grow the run (whose every record a grown run holds again),
    its result line '1 record it would have cleared fail' where two more failed. Failed on
    base71 (and main at 00f47e1b): no word of the server in the next step, 'fail', and no other
    record counted."""
    compare_texts(tmp_path, {"a": ("x", "x"), "b": ("y", "z")})
    log = tmp_path / "run" / "samples.jsonl"
    write_samples(
        log,
        [
            *side("a", "base", ["x"] * 3),
            *side("a", "patch", ["x"] * 3),
            *side("b", "base", ["y", "w", "y"]),  # novel patch output, undecided at n = 3
            *side("b", "patch", ["y", "z", "y"]),
        ],
    )
    header, *rest = log.read_text().splitlines()
    parsed = json.loads(header)
    parsed["run"]["servers"] = {"base": SAME, "patch": "http://localhost:1"}
    parsed["run"]["connects_to"] = {  # no address recorded: the URLs' names decide
        side: {"url": url, "addresses": []} for side, url in parsed["run"]["servers"].items()
    }
    log.write_text("\n".join([json.dumps(parsed), *rest]) + "\n")
    urls = f"{SAME} and http://localhost:1, both loopback port 1, in run/samples.jsonl"

    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    lines = result.stdout.splitlines()
    step = next(line for line in lines if line.startswith("next: "))
    assert step.startswith(
        f"next: base and patch were sampled from one server ({urls}), so more samples of this "
        "run clear nothing: sample the patched build on a server of its own, in a new --out, "
        "and triage that; only for an A/A calibration run (triage --allow-same-server), to "
        "take the "
    ), step
    assert lines[-1] == (
        f"result: SAME SERVER: base and patch were sampled from one server ({urls}); 1 record "
        "it would have cleared fails; 1 more record the evidence could not clear fails too "
        "(exit 1; --allow-same-server for an A/A calibration run)"
    )
    # An A/A calibration run said so: more samples of it are what it asks for.
    allowed = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--allow-same-server", cwd=tmp_path
    )
    assert allowed.exit_code == 1, allowed.stdout  # b: still undecided
    assert [line for line in allowed.stdout.splitlines() if line.startswith("next: ")] == [
        step.replace(step[len("next: ") : step.index("to take the ")], "")
    ]
    # The bundle's next step reads the same from the document and its log.
    document = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert document.exit_code == 1
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    steps = json.loads((tmp_path / "b" / "summary.json").read_text())["next_steps"]
    assert [s["step"][:60] for s in steps if s["source"] == "t.json"] == [
        f"base and patch were sampled from one server ({urls})"[:60]
    ]


def test_an_allowed_a_a_run_says_so_not_unchecked(tmp_path: Path) -> None:
    """Under --allow-same-server the note says it was allowed, in text and Markdown: the run
    was checked, so never `unchecked:`. Failed on base71: `unchecked:`."""
    _same_server_log(tmp_path)
    for fmt, mark in (("text", ""), ("markdown", "**")):
        result = run_k3diff(
            "triage",
            "cmp.json",
            "run/samples.jsonl",
            "--allow-same-server",
            "--format",
            fmt,
            cwd=tmp_path,
        )
        assert result.exit_code == 0, result.stdout
        assert (
            f"{mark}allowed (--allow-same-server): base and patch were sampled from the same server"
        ) in result.stdout
        assert "unchecked: base and patch" not in result.stdout


def _allowed_triage(tmp_path: Path) -> None:
    triaged = run_k3diff(
        "triage",
        "cmp.json",
        "run/samples.jsonl",
        "--allow-same-server",
        "--format",
        "json",
        "-o",
        "t.json",
        cwd=tmp_path,
    )
    assert triaged.exit_code == 0, triaged.stderr


def _bottom(tmp_path: Path) -> str:
    report = (tmp_path / "b" / "REPORT.md").read_text()
    return report.split("## Bottom line", 1)[1].split("## Evidence matrix", 1)[0]


HELD = (
    "t.json: base and patch were sampled from one server ({SAME}, both loopback port 1, in "
    "run/samples.jsonl), judged as an A/A calibration run on its author's word "
    "(allow\\_same\\_server in the document), which validates no patched build: held; report "
    "--allow-same-server if you accept it as one"
).replace("{SAME}", SAME)


def test_an_a_a_bundle_says_so_in_its_bottom_line(tmp_path: Path) -> None:
    """The bundle of an A/A run the reviewer allowed (gate74: `report --allow-same-server`)
    says first that it measured one server against itself and validated no patched build; its
    follow-up row is `recorded`, not `pass`; exit 0. Failed on main 44d4101f: "Nothing in this
    evidence fails its policy", follow-up pass, the one server named only under
    Qualifications."""
    _same_server_log(tmp_path)
    _allowed_triage(tmp_path)
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
        "--allow-same-server", cwd=tmp_path,
    )  # fmt: skip
    assert bundle.exit_code == 0, bundle.stderr
    bottom = _bottom(tmp_path)
    assert (
        f"**A/A run of one server (report --allow-same-server): base and patch were sampled from "
        f"one server ({SAME}, both loopback port 1, in run/samples.jsonl), so the run measures "
        "that server against itself and validates no patched build; nothing in it fails its "
        "policy"
    ) in bottom
    assert "Nothing in this evidence fails its policy" not in bottom
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "| nondeterminism follow-up | recorded | A/A run of one server: " in report
    said = "judged as an A/A calibration run, allowed by the reviewer (report --allow-same-server)"
    assert said in report and said in (tmp_path / "b" / "report.html").read_text()


def test_a_triage_allowing_one_server_is_held_without_the_reviewers_word(tmp_path: Path) -> None:
    """gate74: `triage --allow-same-server` (or `"allow_same_server": true` written into the
    document with the records it then gives) is the document author's word; `report` honoured
    it (exit 0 on base74, given with its comparison and log, or alone). Now the bundle holds
    it, exit 1, with one line naming the document and the option, and a next step naming it."""
    _same_server_log(tmp_path)
    _allowed_triage(tmp_path)
    for given in (("cmp.json", "run/samples.jsonl", "t.json"), ("cmp.json", "t.json")):
        bundle = run_k3diff("report", *given, "--out", "b", cwd=tmp_path)
        assert bundle.exit_code == 1, (given, bundle.stderr)
        bottom = _bottom(tmp_path)
        assert bottom.startswith(f"\n\n**FAIL: {HELD}; nondeterminism follow-up (t.json) fails"), (
            bottom
        )
        summary = json.loads((tmp_path / "b" / "summary.json").read_text())
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "nondeterminism follow-up"]
        assert row["status"] == "FAIL", row
        (step,) = [s["step"] for s in summary["next_steps"] if s["source"] == "t.json"]
        assert step.startswith("base and patch of t.json were sampled from one server (")
        assert step.endswith("run k3diff report again with the same inputs and --allow-same-server")
        allowed = run_k3diff("report", *given, "--out", "b", "--allow-same-server", cwd=tmp_path)
        assert allowed.exit_code == 0, (given, allowed.stderr)


def test_an_allowance_over_two_servers_decides_nothing(tmp_path: Path) -> None:
    """A triage given --allow-same-server whose log shows two servers is judged as any: the
    bundle passes it without the reviewer's option, and says nothing of an A/A run."""
    _same_server_log(tmp_path, "http://127.0.0.1:2")
    _allowed_triage(tmp_path)
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 0, bundle.stderr
    assert "A/A" not in (tmp_path / "b" / "REPORT.md").read_text()


def test_the_command_that_makes_it_again_keeps_its_allowance(tmp_path: Path) -> None:
    """A triage made with --allow-same-server that no longer follows from its logs is refused
    with the command that writes it anew: that command left the option out (base74), so the
    document it wrote held every record same-server, another document than the one refused."""
    _same_server_log(tmp_path)
    _allowed_triage(tmp_path)
    document = json.loads((tmp_path / "t.json").read_text())
    document["records"][0]["reason"] += " (edited)"
    (tmp_path / "t.json").write_text(json.dumps(document))
    refused = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert refused.exit_code == 2, refused.stderr
    assert "run/samples.jsonl --allow-same-server --format json -o t.json" in refused.stderr, (
        refused.stderr
    )


def test_the_held_line_is_said_once(tmp_path: Path) -> None:
    """cleanup75: REPORT.md said the held line three times (the bottom line, the row's sentence
    under it, the matrix row); now the bottom line says it, the row says it is held."""
    _same_server_log(tmp_path)
    _allowed_triage(tmp_path)
    bundle = run_k3diff("report", "cmp.json", "t.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()

    assert report.count("which validates no patched build: held") == 1
    assert _bottom(tmp_path).startswith(f"\n\n**FAIL: {HELD}; nondeterminism follow-up (t.json)")
    held = "held: base and patch were sampled from one server (the bottom line says why)"
    assert "| nondeterminism follow-up | FAIL | A/A run of one server: " in report
    (row,) = [line for line in report.splitlines() if line.startswith("| nondeterminism")]
    assert held in row
