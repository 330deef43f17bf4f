"""Out of memory names the option that bounds the command's input (a sample's answers are
bounded by --max-response-bytes, not --max-record-bytes)."""

from __future__ import annotations

from k3diff.cli.common import _cap_option


def test_each_command_names_its_own_cap() -> None:
    assert _cap_option(["sample", "--base", "http://x"]) == "--max-response-bytes"
    assert _cap_option(["logs", "a.log", "b.log"]) == "--max-inflated-bytes"
    assert _cap_option(["responses", "a.jsonl", "b.jsonl"]) == "--max-record-bytes"
    assert _cap_option(["--version"]) == "--max-record-bytes"
