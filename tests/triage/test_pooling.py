"""Triage pools only samples of identical requests, and says how to join samples it cannot key.

A log made at temperature 1 pooled with one made at temperature 0 must not turn a deterministic
divergence into "both nondeterministic" (exit 0): it is exit 2 with one line naming the key, the
side, the logs and the two request hashes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import scripted_server
from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples

KEYS = ("k1", "k2", "k3")


def _regression(tmp_path: Path) -> None:
    """Three keys whose patch output differs deterministically at temperature 0."""
    compare_texts(tmp_path, {key: (f"base {key}", f"patch {key}") for key in KEYS})
    samples = []
    for key in KEYS:
        samples += side(key, "base", [f"base {key}"] * 3) + side(key, "patch", [f"patch {key}"] * 3)
    write_samples(tmp_path / "t0" / "samples.jsonl", samples)


def _hashes(path: Path, key: str, which: str) -> set[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return {r["request_sha256"] for r in rows if r["key"] == key and r["side"] == which}


def test_logs_of_different_temperatures_are_not_pooled(tmp_path: Path) -> None:
    _regression(tmp_path)
    alone = run_k3diff("triage", "cmp.json", "t0/samples.jsonl", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stderr
    assert alone.stdout.count("deterministic-divergence") >= 3
    noisy = []
    for key in KEYS:
        noisy += side(key, "base", ["x", "y", "z"]) + side(key, "patch", ["u", "v", "w"])
    write_samples(tmp_path / "t1" / "samples.jsonl", noisy, params={"temperature": 1})

    result = run_k3diff(
        "triage", "cmp.json", "t0/samples.jsonl", "t1/samples.jsonl", "--pool-runs", cwd=tmp_path
    )

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "'k1' (base)" in line
    assert "t0/samples.jsonl" in line and "t1/samples.jsonl" in line
    (t0,) = _hashes(tmp_path / "t0" / "samples.jsonl", "k1", "base")
    (t1,) = _hashes(tmp_path / "t1" / "samples.jsonl", "k1", "base")
    assert t0 in line and t1 in line and t0 != t1
    assert "params differ: temperature 0 vs 1" in line
    assert "triage pools only identical requests; give the logs of one request setting" in line


def test_one_log_mixing_requests_across_modes_is_refused(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"k": ("a", "b")})
    log = write_samples(
        tmp_path / "s.jsonl",
        side("k", "base", ["a", "a"])
        + side("k", "patch", ["b", "b"])
        + side("k", "patch", ["b", "c"], mode="concurrent"),
        modes=("serial", "concurrent"),
    )
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[-1]["request_sha256"] = "f" * 64
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))

    result = run_k3diff("triage", "cmp.json", "s.jsonl", cwd=tmp_path)

    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    assert "'k' (patch): s.jsonl (serial)" in line and "s.jsonl (concurrent)" in line
    assert "f" * 64 in line and "params differ" not in line


def test_base_and_patch_may_send_different_requests(tmp_path: Path) -> None:
    """Each server has its own model name: requests are compared within a side only."""
    _regression(tmp_path)
    log = tmp_path / "t0" / "samples.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows[1:]:
        if row["side"] == "patch":
            row["request_sha256"] = "e" * 64
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    write_samples(
        tmp_path / "again" / "samples.jsonl",
        side("k1", "base", ["base k1"]) + side("k2", "base", ["base k2"]),
    )

    result = run_k3diff(
        "triage",
        "cmp.json",
        "t0/samples.jsonl",
        "again/samples.jsonl",
        "--pool-runs",
        cwd=tmp_path,
    )

    assert result.exit_code == 1, result.stderr
    assert result.stdout.count("deterministic-divergence") >= 3


def _captures(tmp_path: Path, rows: list[dict[str, Any]], *options: str) -> None:
    for name in ("base", "patch"):
        texts = [row | {"text": f"{name} {row['key']}"} for row in rows]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in texts))
    result = run_k3diff(
        "responses",
        "base.jsonl",
        "patch.jsonl",
        *options,
        "--format",
        "json",
        "-o",
        "cmp.json",
        cwd=tmp_path,
    )
    assert result.exit_code == 1, result.stderr
    write_samples(
        tmp_path / "t0" / "samples.jsonl",
        side("q1", "base", ["base q1"] * 2) + side("q1", "patch", ["patch q1"] * 2),
    )


def test_captures_with_a_key_field_pair_by_it_and_join_the_samples(tmp_path: Path) -> None:
    """`responses` and `sample --prompts` share one default rule: a top-level `key` both sides
    carry is the pairing key, so samples keyed by it join the comparison without `--key`."""
    _captures(tmp_path, [{"key": "q1", "prompt": "p1"}, {"key": "q2", "prompt": "p2"}])
    pairing = json.loads((tmp_path / "cmp.json").read_text())["pairing"]
    assert (pairing["key"], pairing["field"], pairing["explicit"]) == ("field", "key", False)

    result = run_k3diff("triage", "cmp.json", "t0/samples.jsonl", cwd=tmp_path)

    assert result.exit_code in (0, 1), result.stderr
    assert "q1" in result.stdout


def test_samples_against_a_by_order_comparison_say_pair_by_a_key_field(tmp_path: Path) -> None:
    _captures(
        tmp_path, [{"key": "q1", "prompt": "p1"}, {"key": "q2", "prompt": "p2"}], "--by-order"
    )

    result = run_k3diff("triage", "cmp.json", "t0/samples.jsonl", cwd=tmp_path)

    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "paired --by-order" in line and "by-order keys cannot join samples" in line
    assert "--key key" in line


def test_samples_keyed_like_the_key_field_comparison_triage(tmp_path: Path) -> None:
    """The advice works: the comparison re-run with --key key joins the samples."""
    _captures(
        tmp_path, [{"key": "q1", "prompt": "p1"}, {"key": "q2", "prompt": "p2"}], "--key", "key"
    )

    result = run_k3diff("triage", "cmp.json", "t0/samples.jsonl", cwd=tmp_path)

    assert result.exit_code == 1, result.stderr
    assert "deterministic-divergence" in result.stdout


def test_a_side_whose_own_fields_changed_between_logs_is_refused_naming_them(
    tmp_path: Path,
) -> None:
    """Two real A/B runs (`--patch-param top_k=1`, then `top_k=2`) against the scripted engines:
    the patch's requests differ between the logs, and the message names the patch's own field."""
    running = [scripted_server.start(role, tmp_path / "servers") for role in scripted_server.ROLES]
    try:
        urls = {server.role: server.url for server in running}
        scripted_server.capture(urls, tmp_path / "responses")
        compared = run_k3diff(
            "responses", "responses/base.jsonl", "responses/patch.jsonl",
            "--format", "json", "-o", "cmp.json", cwd=tmp_path,
        )  # fmt: skip
        assert compared.exit_code == 1, compared.stderr
        for top_k in (1, 2):
            result = run_k3diff(
                "sample", "--base", urls["base"], "--patch", urls["patch"],
                "--prompts", "responses/base.jsonl", "--repeats", "2",
                "--patch-param", f"top_k={top_k}", "--out", f"k{top_k}", cwd=tmp_path,
            )  # fmt: skip
            assert result.exit_code == 0, result.stderr
    finally:
        for server in running:
            scripted_server.stop(server.pid)
    result = run_k3diff(
        "triage", "cmp.json", "k1/samples.jsonl", "k2/samples.jsonl", "--pool-runs", cwd=tmp_path
    )
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "(patch)" in line and "params differ: top_k 1 vs 2" in line


def test_the_refusal_names_what_each_request_sent_not_only_the_headers_param(
    tmp_path: Path,
) -> None:
    """A log sampled from a capture (`sample --prompts CAPTURE`, no --param) sent the capture's
    temperature 0: its header's params are empty, its lines' `request_params` say 0. Pooled with
    a temperature-1 log, the refusal says "temperature 0 vs 1", never "unset vs 1"."""
    compare_texts(tmp_path, {"k": ("a", "b")})
    for name, temperature, header in (("t0", 0, {}), ("t1", 1, {"temperature": 1})):
        log = write_samples(
            tmp_path / name / "samples.jsonl",
            side("k", "base", ["a", "a"]) + side("k", "patch", ["b", "b"]),
            params={"temperature": temperature},
        )
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        rows[0]["run"]["params"] = header
        for row in rows[1:]:
            row["request_params"] = {"max_tokens": 16, "temperature": temperature}
        log.write_text("".join(json.dumps(row) + "\n" for row in rows))

    result = run_k3diff(
        "triage", "cmp.json", "t0/samples.jsonl", "t1/samples.jsonl", "--pool-runs", cwd=tmp_path
    )

    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    assert "params differ: temperature 0 vs 1)" in line, line
