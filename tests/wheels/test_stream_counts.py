"""Every report says what the stream check did, down to its verdict line.

The default report reads one side of every raw-identical pair to its end and says how many
streams passed (`verdict.verified_streams`, a line of the text and Markdown reports);
`--no-file-hash` checks none and its verdict line itself says how many it left unchecked, as does
a release set's (`verdict.unverified_streams` of the set: its pairs' summed).
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .test_shared_corrupt_streams import _damage_both, _json, _pair


def _raw_identical(report: dict[str, object]) -> int:
    entries = report["entries"]
    assert isinstance(entries, list)
    return sum(1 for e in entries if e["how"] == "raw-bytes")


def test_the_no_file_hash_verdict_line_says_what_it_left_unchecked(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    code, report = _json(*pair, "--no-file-hash")
    assert code == 0
    unverified = report["verdict"]["unverified_streams"]
    assert unverified == _raw_identical(report) >= 1
    assert "verified_streams" not in report["verdict"]
    clause = f"; {unverified} identical streams not CRC-checked (--no-file-hash)"
    for fmt in ("text", "markdown"):
        result = run_k3diff("wheels", *pair, "--no-file-hash", "--format", fmt)
        assert result.exit_code == 0, result.stderr
        last = result.stdout.rstrip("\n").splitlines()[-1]
        assert last.startswith(("Verdict: OK", "**Verdict: OK")), last
        assert clause in last.replace("\\", ""), last
        assert "CRC-32-checked" not in result.stdout


def test_the_default_report_says_how_many_streams_it_checked(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    code, report = _json(*pair)
    assert code == 0
    verified = report["verdict"]["verified_streams"]
    assert verified == _raw_identical(report) >= 1
    assert "unverified_streams" not in report["verdict"]
    for fmt in ("text", "markdown"):
        result = run_k3diff("wheels", *pair, "--format", fmt)
        assert result.exit_code == 0, result.stderr
        assert f"{verified} identical streams CRC-32-checked" in result.stdout
        assert "not CRC-checked" not in result.stdout


def test_a_corrupt_shared_stream_is_not_counted_as_checked_sound(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    _damage_both(pair, "crc")
    code, report = _json(*pair)
    assert code == 1
    assert report["verdict"]["verified_streams"] == _raw_identical(report) - 1


def test_a_release_sets_verdict_carries_the_unchecked_total(tmp_path: Path) -> None:
    _pair(tmp_path)
    sets = (tmp_path / "base", tmp_path / "patch")
    code, report = _json(*sets, "--no-file-hash")
    assert code == 0
    total = sum(p["wheels"]["verdict"]["unverified_streams"] for p in report["pairs"])
    assert report["verdict"]["unverified_streams"] == total >= 1
    result = run_k3diff("wheels", *sets, "--no-file-hash")
    assert result.exit_code == 0, result.stderr
    last = result.stdout.rstrip("\n").splitlines()[-1]
    assert "every pair passes" in last
    assert f"; {total} identical streams not CRC-checked (--no-file-hash)" in last
    code, report = _json(*sets)
    assert code == 0
    assert "unverified_streams" not in report["verdict"]


def test_the_reader_refuses_a_set_whose_total_disagrees_with_its_pairs(tmp_path: Path) -> None:
    _pair(tmp_path)
    document = tmp_path / "set.json"
    result = run_k3diff(
        "wheels",
        "base",
        "patch",
        "--no-file-hash",
        "--format",
        "json",
        "-o",
        document,
        cwd=tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    body = json.loads(document.read_text())
    body["verdict"]["unverified_streams"] += 1
    document.write_text(json.dumps(body))
    result = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "verdict.unverified_streams is" in result.stderr
    assert "but its pairs give" in result.stderr
