"""A record held for samples of another condition asks for no more samples of its run: more of
them are of the same wrong condition and decide nothing. Its `next:` step names the condition to
sample under instead, as `k3diff sample` options, and the bundle says the same (more80: a patch
sampled with a field the base was not sent, its capture never reproduced, kept its mode's
count, and `next:` said to grow the run, which left the record held)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from sample.support import sample, write_prompts

from k3diff.sample.prompts import prompt_digest

from .helpers import S, compare, compare_texts, completion, write_samples


def _sides_sent_otherwise(fault_server: Any, tmp_path: Path, *more: str) -> None:
    """Captures of k0 that differ (the patch's never reproduced), and a run whose patch alone
    was sent `max_tokens` (the servers answer `echo:p0` to both), given `more` options."""
    compare_texts(tmp_path, {"k0": ("echo:p0", "other")})
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    base, patch = fault_server(), fault_server()
    taken = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        "--patch-param", "max_tokens=64", "--out", tmp_path / "run", *more,
    )  # fmt: skip
    assert taken.exit_code == 0, taken.stderr


def test_sides_sent_otherwise_ask_for_no_more_and_name_the_options(
    fault_server: Any, tmp_path: Path
) -> None:
    _sides_sent_otherwise(fault_server, tmp_path)
    shown = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert shown.exit_code == 1, shown.stderr
    (record,) = json.loads(shown.stdout)["records"]
    assert record["category"] == "inconclusive"
    # A match of sides sent other fields explains no captured difference (review80a): held
    # for that before the capture-unexplained check, which holds only what would pass.
    assert "samples-of-another-condition" in record["flags"], record
    assert record["more_samples"] is None, record
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1, text.stderr
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("next: ")]
    assert "grow the run" not in line and "--resume" not in line, line
    assert line.startswith(
        "next: 1 record held for samples of another condition (k0) asks for no more samples "
        "of this run, which are of that condition too (max_tokens: base unset, patch 64): "
        "sample base and patch under one condition, in a new --out: "
    ), line
    command = line.split("in a new --out: ", 1)[1].split(", then run this triage", 1)[0]
    words = shlex.split(command)
    assert words[:2] == ["k3diff", "sample"] and words[-2:] == ["--out", "NEW_DIR"], words
    assert "--patch-param" not in words and "max_tokens=64" not in words, words
    assert words.count("--repeats") == 1 and "--prompts" in words, words


def test_the_bundle_asks_no_more_of_samples_of_another_condition(
    fault_server: Any, tmp_path: Path
) -> None:
    _sides_sent_otherwise(fault_server, tmp_path)
    written = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert written.exit_code == 1, written.stderr
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    steps = [s["step"] for s in summary["next_steps"] if s["source"].endswith("triage.json")]
    assert not any("grow the run" in s or "--resume" in s for s in steps), steps
    assert any("sample under the captured condition" in s for s in steps), steps
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "1 record held: samples of another condition (k0)" in report, report
    assert "samples of the captured condition would" in report, report
    assert any("sample under the captured condition" in s for s in steps), steps
    assert "more samples would decide" not in report, report


def test_a_triage_written_before_asks_the_bundle_for_no_more_of_them(
    fault_server: Any, tmp_path: Path
) -> None:
    """A triage written by stop 79 gave such a record its mode's count: judged alone (given
    with its logs, the bundle runs triage again and refuses it as out of date), the document
    is still read (an integer where null is written now), and the bundle asks no more of the
    record."""
    _sides_sent_otherwise(fault_server, tmp_path)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    document = json.loads(out.stdout)
    (record,) = document["records"]
    record["more_samples"] = 4  # as stop 79 wrote it: the match mode's count
    (tmp_path / "older.json").write_text(json.dumps(document))
    report = run_k3diff("report", "cmp.json", "older.json", "--out", "bundle", cwd=tmp_path)
    assert report.exit_code == 1, report.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    steps = [s["step"] for s in summary["next_steps"] if s["source"].endswith("older.json")]
    assert not any("grow the run" in s or "--resume" in s for s in steps), steps
    assert any("sample under the captured condition" in s for s in steps), steps


def test_the_step_sets_stream_route_and_fields_as_the_capture_sent_them() -> None:
    """Each option of the wrong condition is left out of the run's logged command, in either
    spelling (`--param x=1`, `--param=x=1`), and the captured condition's given."""
    from k3diff.triage.mismatches import Mismatch
    from k3diff.triage.model import Category, Flag
    from k3diff.triage.rightcondition import resample

    def found(field: str, captured: str, sampled: str) -> Mismatch:
        return Mismatch("k0", "base", field, captured, sampled, "run/samples.jsonl")

    record: Any = _Held("k0", Category.INCONCLUSIVE, (Flag.OTHER_CONDITION,))
    mismatched = {
        "k0": [
            found("stream", "true", "false"),
            found("route", '"chat"', '"completions"'),
            found("temperature", "0", "1"),
            found("seed", "unset", "7"),
        ]
    }
    logged = ["k3diff", "sample", "--base", "http://h", "--endpoint", "completions"]
    logged += ["--param=temperature=1", "--param", "seed=7", "--param", "top_p=0.5"]
    logged += ["--out", "run", "--resume", "--repeats", "3"]
    log: Any = _Log(_Header({"command": logged}))
    step = resample([record], mismatched, {}, [log])
    assert step is not None and step.names == ("k0",)
    assert step.command_line("k3diff") == (
        "k3diff sample --base http://h --param top_p=0.5 --repeats 3 --stream --endpoint chat "
        "--param temperature=0 --out NEW_DIR"
    )
    assert step.notes == ("seed left out of the prompts' own fields where they hold it",)
    none: Any = _Held("k0", Category.MATCH, (Flag.OTHER_CONDITION,))
    assert resample([none], mismatched, {}, [log]) is None


class _Held:
    def __init__(self, key: str, category: Any, flags: tuple[Any, ...]) -> None:
        self.key = self.name = key
        self.category, self.flags = category, flags


class _Header:
    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields


class _Log:
    def __init__(self, header: _Header) -> None:
        self.header = header


def _wrapped_capture_sampled_without(tmp_path: Path, fields: dict[str, Any]) -> Any:
    """A capture of k0 whose requests hold `fields` besides the prompt (base A, patch B), a
    run that sent none of them and gave A on both sides (the patch's capture never reproduced),
    and its triage under --allow-condition-mismatch (text)."""
    tmp_path.mkdir(exist_ok=True)
    request = {"prompt": "p0", **fields}
    compare(
        tmp_path,
        [{"custom_id": "k0", "request": request, "response": completion("r", "A")}],
        [{"custom_id": "k0", "request": request, "response": completion("r", "B")}],
    )
    log = write_samples(
        tmp_path / "run" / "samples.jsonl",
        [S(side, "k0", "A") for side in ("base", "patch") for _ in range(3)],
        params={},
    )
    header, *lines = log.read_text().splitlines()
    rows = [
        {**json.loads(line), "prompt_xxh3": prompt_digest("p0"), "prompt_preview": "p0"}
        for line in lines
    ]
    rows = [{**row, "request_params": {}} for row in rows]
    log.write_text("\n".join([header, *map(json.dumps, rows)]) + "\n")
    return run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--allow-condition-mismatch", cwd=tmp_path
    )


def test_a_request_field_named_route_is_a_param_not_the_endpoint(tmp_path: Path) -> None:
    """A capture's request field `route` (no transport: that is `endpoint`, completions or
    chat) is given back as `--param`; a long one (shown cut at 60 characters) was read as JSON
    for `--endpoint`, a traceback (review80a)."""
    long = "x" * 80
    shown = _wrapped_capture_sampled_without(tmp_path, {"route": long})
    assert shown.exit_code == 1, shown.stderr
    assert "Traceback" not in shown.stderr, shown.stderr
    (line,) = [x for x in shown.stdout.splitlines() if x.startswith("next: ")]
    assert "--endpoint" not in line, line
    assert "--param 'route=<the captured value>'" in line, line
    short = _wrapped_capture_sampled_without(tmp_path / "short", {"route": "x"})
    assert short.exit_code == 1, short.stderr
    (line,) = [x for x in short.stdout.splitlines() if x.startswith("next: ")]
    assert "--endpoint" not in line and "--param 'route=\"x\"'" in line, line
    # Held for another condition and capture-unexplained: more of this run decide nothing.
    shown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--allow-condition-mismatch", "--format",
        "json", cwd=tmp_path / "short",
    )  # fmt: skip
    (record,) = json.loads(shown.stdout)["records"]
    assert "samples-of-another-condition" in record["flags"], record
    assert record["more_samples"] is None, record
    assert not [x for x in short.stdout.splitlines() if "grow the run" in x], short.stdout


def test_the_step_says_to_give_again_what_the_log_hides(fault_server: Any, tmp_path: Path) -> None:
    """The run's command as its log records it hides a `--header` value (`Authorization:***`):
    pasted as printed, it sends `***`. The step says to give it again, as the grow step does
    (review80a: it said nothing)."""
    _sides_sent_otherwise(fault_server, tmp_path, "--header", "Authorization: Bearer s3cret")
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1, text.stderr
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("next: ")]
    assert "s3cret" not in text.stdout, line
    assert "'Authorization:***'" in line, line
    assert (
        "--out NEW_DIR (each --header value the log hides as *** given again), then run this "
        "triage with NEW_DIR/samples.jsonl in place of this run's"
    ) in line, line


def test_sides_sent_otherwise_keep_the_field_both_were_given() -> None:
    """Base 0 and patch 1 by `--param temperature=0 --patch-param temperature=1`: the step
    leaves out the patch's own and keeps the one both sides were given, as the docs say (was:
    both left out, so both sides would be sent the server's default temperature); and a field
    whose name the shell quotes by its codes has its old option left out too (was: kept beside
    the new one, a side's own overriding it)."""
    from k3diff.triage.mismatches import Mismatch
    from k3diff.triage.model import Category, Flag
    from k3diff.triage.rightcondition import resample

    record: Any = _Held("k0", Category.INCONCLUSIVE, (Flag.OTHER_CONDITION,))
    logged = ["k3diff", "sample", "--base", "http://h", "--patch", "http://p"]
    logged += ["--param", "temperature=0", "--patch-param", "temperature=1", "--out", "run"]
    log: Any = _Log(_Header({"command": logged}))
    sides = {"k0": ("temperature: base 0, patch 1", ("temperature",))}
    step = resample([record], {}, sides, [log])
    assert step is not None
    assert step.command_line("k3diff") == (
        "k3diff sample --base http://h --patch http://p --param temperature=0 --out NEW_DIR"
    )
    odd = "a  b"  # two spaces: quoted as $'a\x20\x20b'
    logged = ["k3diff", "sample", "--base", "http://h", "--base-param", f"{odd}=1", "--out", "r"]
    log = _Log(_Header({"command": logged}))
    mismatch = Mismatch("k0", "base", odd, "0", "1", "run/samples.jsonl")
    step = resample([record], {"k0": [mismatch]}, {}, [log])
    assert step is not None
    words = step.command_line("k3diff")
    assert words == "k3diff sample --base http://h --param $'a\\x20\\x20b=0' --out NEW_DIR", words
