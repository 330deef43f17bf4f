"""`sample --resume` takes the request options it is not given from the log's header
(samples74): before, `--resume --repeats N` alone was refused (exit 2) as differing from the
logged run in `params`, `stream`, `cache_salt`, `request_template`..., and every option had to be
repeated. An option given that differs is still refused, exit 2, one line naming the option and
both values; a header value `sample` never writes is not taken."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from .support import read_samples, sample
from .test_resume_more import _run as logged_run

REQUEST_OPTIONS = (
    "--endpoint", "completions", "--stream", "--cache-salt", "--param", "temperature=0",
    "--param", "seed=1", "--base-param", "top_k=1", "--patch-param", "top_p=0.9",
)  # fmt: skip


def _errors(stderr: str) -> list[str]:
    """The error lines (the A/B run's note on its side fields comes before)."""
    return [line for line in stderr.splitlines() if line.startswith("k3diff: error:")]


def _run(fault_server: Any, tmp_path: Path) -> tuple[list[str | Path], Path]:
    """A run of 2 prompts, 2 repeats, with every request option above: the options a resume
    gives (servers, prompts, out), and its folder."""
    return logged_run(fault_server, tmp_path, *REQUEST_OPTIONS)


def test_a_resume_takes_the_request_options_left_out_from_the_log(
    fault_server: Any, tmp_path: Path
) -> None:
    """Failed before samples74 (exit 2: `differs from the logged one in params.seed (logged 1,
    now absent); ...`): the resume gives servers, prompts, out and the larger --repeats only;
    each new sample is the same request as the logged ones of its key and side."""
    common, out = _run(fault_server, tmp_path)
    before = (out / "samples.jsonl").read_bytes()
    grown = sample(*common, "--repeats", "3", "--resume", "--format", "json")
    assert grown.exit_code == 0, grown.stderr
    assert json.loads(grown.stdout)["summary"]["taken_now"] == 2 * 2  # keys, sides, 1 more
    assert (out / "samples.jsonl").read_bytes().startswith(before)
    run, samples = read_samples(out)
    assert run["stream"] is True and run["cache_salt"] is True
    assert run["side_params"] == {"base": {"top_k": 1}, "patch": {"top_p": 0.9}}
    hashes: dict[tuple[str, str], set[str]] = {}
    for line in samples:
        hashes.setdefault((line["side"], line["key"]), set()).add(line["request_sha256"])
    assert all(len(found) == 1 for found in hashes.values()), hashes
    slots = Counter((s["side"], s["key"], s["repeat"]) for s in samples)
    assert set(slots.values()) == {1} and len(slots) == 2 * 2 * 3


def test_an_option_given_that_differs_is_named_with_both_values(
    fault_server: Any, tmp_path: Path
) -> None:
    """Exit 2, one line, the log untouched: the option as given on the command line (before
    samples74, the header's field: `params.temperature (logged 0, now 0.5)`)."""
    common, out = _run(fault_server, tmp_path)
    before = (out / "samples.jsonl").read_bytes()
    for given, named in (
        (("--param", "temperature=0.5"), "--param temperature (logged 0, now 0.5)"),
        (("--patch-param", "top_p=1"), "--patch-param top_p (logged 0.9, now 1)"),
        (("--base-param", "seed=2"), "--base-param seed (logged absent, now 2)"),
        (("--endpoint", "chat"), '--endpoint (logged "completions", now "chat")'),
    ):
        refused = sample(*common, "--repeats", "3", "--resume", *given)
        assert refused.exit_code == 2 and len(_errors(refused.stderr)) == 1, refused.stderr
        if given[0] != "--endpoint":  # chat is refused first: the prompts hold no messages
            assert f"differs from the logged one in {named}" in refused.stderr, refused.stderr
    assert (out / "samples.jsonl").read_bytes() == before


def test_a_header_value_sample_never_writes_is_not_taken(fault_server: Any, tmp_path: Path) -> None:
    """A header edited to hold `temperature: true` (no number a request can mean) is not sent:
    the resume is refused, naming both values."""
    common, out = _run(fault_server, tmp_path)
    log = out / "samples.jsonl"
    first, rest = log.read_text().split("\n", 1)
    header = json.loads(first)
    header["run"]["params"]["temperature"] = True
    log.write_text(json.dumps(header) + "\n" + rest)
    refused = sample(*common, "--repeats", "3", "--resume")
    assert refused.exit_code == 2 and len(_errors(refused.stderr)) == 1, refused.stderr
    assert "--param temperature (logged true, now absent)" in refused.stderr


SHAPE = (
    "--mode", "serial", "--mode", "concurrent", "--concurrency", "2",
    "--control", "nonce", "--control-repeats", "2",
)  # fmt: skip


def test_a_resume_takes_repeats_modes_concurrency_and_control_left_out_from_the_log(
    fault_server: Any, tmp_path: Path
) -> None:
    """Failed before review74e (exit 2: `Missing option '--repeats'`, and with it given,
    `differs from the logged one in --mode (logged ["serial", "concurrent", "control"], now
    ["serial"]); --concurrency (logged 2, now 8); ...`): options left at their default (click's
    parameter source) are the logged run's; a resume with nothing missing takes nothing."""
    common, out = logged_run(fault_server, tmp_path, *SHAPE)
    before = (out / "samples.jsonl").read_bytes()
    again = sample(*common, "--resume", "--format", "json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["summary"]["taken_now"] == 0
    grown = sample(*common, "--repeats", "3", "--resume", "--format", "json")
    assert grown.exit_code == 0, grown.stderr
    assert json.loads(grown.stdout)["summary"]["taken_now"] == 2 * 2 * 2  # keys, sides, modes
    assert (out / "samples.jsonl").read_bytes().startswith(before)
    run, _ = read_samples(out)
    assert run["modes"] == ["serial", "concurrent", "control"] and run["concurrency"] == 2


def test_a_mode_or_concurrency_given_that_differs_is_still_refused(
    fault_server: Any, tmp_path: Path
) -> None:
    """Given, even at its default value, an option is compared with the log as before."""
    common, out = logged_run(fault_server, tmp_path, *SHAPE)
    before = (out / "samples.jsonl").read_bytes()
    for given, named in (
        (("--mode", "serial"), "--mode (logged"),
        (("--concurrency", "8"), "--concurrency (logged 2, now 8)"),
        (("--control", "off"), "--control (logged"),
    ):
        refused = sample(*common, "--resume", *given)
        assert refused.exit_code == 2 and len(_errors(refused.stderr)) == 1, refused.stderr
        assert named in refused.stderr, refused.stderr
    assert (out / "samples.jsonl").read_bytes() == before


def test_repeats_left_out_without_a_log_to_take_them_from_is_refused(
    fault_server: Any, tmp_path: Path
) -> None:
    """Exit 2, one line: without --resume, and with --resume where --out holds no log yet."""
    server = fault_server()
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    for resume in ((), ("--resume",)):
        args = ("--base", server.url, "--prompts", prompts, "--out", tmp_path / "new", *resume)
        refused = sample(*args)
        assert refused.exit_code == 2 and len(_errors(refused.stderr)) == 1, refused.stderr
        assert "--repeats" in refused.stderr
        assert not (tmp_path / "new" / "samples.jsonl").exists()
