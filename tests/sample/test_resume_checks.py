"""`--resume` continues only a log whose samples are of the requests this run sends
(`k3diff.sample.resumed`): a line whose `request_sha256` is not the hash of the request the run
sends for its key and side (a line of a run with other request fields, or edited by hand), or a
line of a key none of the prompts has, is refused (exit 2, one line naming the log's line),
where before it was kept and counted as a sample of this run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .support import read_samples, sample, write_prompts


def _run(server: Any, tmp_path: Path, out: str, *args: str) -> Any:
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}, {"key": "k1", "prompt": "p1"}]
    )
    return sample("--base", server.url, "--prompts", prompts, "--out", tmp_path / out, *args)


def _log_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_line_of_another_request_is_refused(fault_server: Any, tmp_path: Path) -> None:
    """A line of a run at temperature 0.7 spliced into a run at temperature 0: the resumed run
    would count it as its own repeat of k0 and never send that request."""
    server = fault_server()
    other = _run(server, tmp_path, "other", "--repeats", "2", "--param", "temperature=0.7")
    assert other.exit_code == 0, other.stderr
    args = ("--repeats", "2", "--param", "temperature=0")
    assert _run(server, tmp_path, "run", *args).exit_code == 0
    log = tmp_path / "run" / "samples.jsonl"
    lines = _log_lines(log)
    [number] = [n for n, x in enumerate(lines) if (x.get("key"), x.get("repeat")) == ("k0", 1)]
    [spliced] = [x for x in _log_lines(tmp_path / "other" / "samples.jsonl")[1:]
                 if (x["key"], x["repeat"]) == ("k0", 1)]  # fmt: skip
    ours = lines[number]["request_sha256"]
    lines[number] = spliced
    _write(log, lines)

    result = _run(server, tmp_path, "run", *args, "--resume")
    assert result.exit_code == 2, result.stdout
    assert result.stderr.splitlines() == [
        f"k3diff: error: {log}:{number + 1}: cannot resume: the base sample of key 'k0' (serial "
        f"repeat 1) logs request_sha256 {spliced['request_sha256']}, but this run sends {ours} "
        "for it (a line of a run with other request fields, or edited by hand); sample these "
        "requests in another --out"
    ]
    assert spliced["request_sha256"] != ours
    assert _log_lines(log) == lines  # the log untouched: no resume marker


def test_a_line_of_a_key_none_of_the_prompts_has_is_refused(
    fault_server: Any, tmp_path: Path
) -> None:
    """No principled reason keeps such a line: the header pins the prompts file, so no request
    of this run has that key, and triage would pair it with a capture's record of it."""
    server = fault_server()
    assert _run(server, tmp_path, "run", "--repeats", "1").exit_code == 0
    log = tmp_path / "run" / "samples.jsonl"
    lines = _log_lines(log)
    _write(log, [*lines, {**lines[1], "key": "added"}])

    result = _run(server, tmp_path, "run", "--repeats", "2", "--resume")
    assert result.exit_code == 2, result.stdout
    assert result.stderr.splitlines() == [  # the header lists the records asked (review71c)
        f"k3diff: error: {log}:{len(lines) + 1}: a sample of record 'added', which the header's "
        "'run.keys' does not list (sample logs only the records it asked), so the log was "
        "edited; give the log as sample wrote it"
    ]
    assert len(read_samples(tmp_path / "run")[1]) == 3


def test_a_log_of_the_same_requests_resumes(fault_server: Any, tmp_path: Path) -> None:
    """The check lets through what --resume is for: the same requests, a control of seeds, a
    grown --repeats, a cache salt (left out of the hash)."""
    server = fault_server()
    args = ("--cache-salt", "--control", "seeds", "--control-repeats", "2")
    # exit 1: the fault server ignores temperature, so the control comes back vacuous
    first = _run(server, tmp_path, "run", "--repeats", "1", *args)
    assert first.exit_code == 1 and not first.stderr, first.stderr
    grown = _run(server, tmp_path, "run", "--repeats", "2", *args, "--resume", "--format", "json")
    assert grown.exit_code == 1 and not grown.stderr, grown.stderr
    assert json.loads(grown.stdout)["summary"]["taken_now"] == 2
