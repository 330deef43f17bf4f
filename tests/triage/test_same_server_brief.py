"""A record held `same-server` says so in a few words in the text and Markdown reports, the
result line naming the server; the JSON keeps the whole reason (setupstop76: each record
printed the whole hold, over 300 characters with the servers' counters, beside the result line
and the `one server:` line saying the same)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .test_same_server import SAME, _same_server_log

BRIEF = (
    "same-server: base and patch were sampled from one server (the verdict names it): "
    "sample the patched build on a server of its own; serial: "
)
WHOLE = f"same-server: base and patch were sampled from one server ({SAME}, both loopback port 1"


def test_a_held_record_says_the_hold_briefly_and_the_json_whole(tmp_path: Path) -> None:
    _same_server_log(tmp_path)
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    held = [line for line in text.stdout.splitlines() if line.startswith(("a: inc", "b: inc"))]
    assert len(held) == 2 and all(
        line.startswith(f"{line[0]}: inconclusive: {BRIEF}") for line in held
    )
    assert (
        f"result: SAME SERVER: base and patch were sampled from one server ({SAME}" in text.stdout
    )
    markdown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    )
    assert BRIEF.split(": ", 1)[1].split(";")[0] in markdown.stdout
    bullets = [line for line in markdown.stdout.splitlines() if line.startswith("- **`")]
    assert len(bullets) == 2 and not any(SAME in line for line in bullets)
    run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    records = json.loads((tmp_path / "t.json").read_text())["records"]
    assert all(record["reason"].startswith(WHOLE) for record in records)
