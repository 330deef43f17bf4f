"""Logs `k3diff sample` wrote, edited as a user could, and a server spelled so that its two
sides look apart (review71c). Each passed triage before (exit 0).

- a record taken out of the header's `run.keys` with one of its repeat lines deleted: its lines
  were owed nothing, so the record was judged on the lines left;
- one server as both sides, the patch's URL a path that the HTTP client resolves to the base's
  (`http://127.0.0.1:PORT/x/..`): the dot segments parted the two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
LOG = "run/samples.jsonl"


def _sample(
    tmp_path: Path, base: str, patch: str, *extra: str, repeats: int = 3, code: int = 0
) -> CliResult:
    """Sample a and b three times a side, both captures matching what the servers answer."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    result = run_k3diff(
        "sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl", "--repeats", str(repeats),
        "--retries", "0", "--control", "off", "--out", "run", *extra, cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == code, result.stderr
    return result


def _edit(path: Path, keep: Any, header: Any) -> None:
    """The log with `header(run)` applied and only the sample lines `keep(line)` keeps."""
    values = [json.loads(line) for line in path.read_text().splitlines()]
    header(values[0]["run"])
    kept = [values[0], *(v for v in values[1:] if "schema" in v or keep(v))]
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in kept))


def test_a_record_taken_out_of_keys_is_refused(tmp_path: Path, fault_server: Any) -> None:
    """Failed on main at 00f47e1b (exit 0): b taken out of `run.keys` and its third patch line deleted;
    b's two lines left were owed nothing and matched. `sample` logs only the records its
    header lists: refused, exit 2, one line naming the file's line, by every reader."""
    _sample(tmp_path, fault_server().url, fault_server().url)
    _edit(
        tmp_path / LOG,
        lambda line: (line["side"], line["key"], line["repeat"]) != ("patch", "b", 2),
        lambda run: run.__setitem__("keys", ["a"]),
    )
    for command in (("triage", "cmp.json", LOG), ("telemetry", LOG), ("report", LOG, "--out", "r")):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, (command, result.stdout)
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"k3diff: error: {LOG}:") and "Traceback" not in line
        assert "a sample of record 'b', which the header's 'run.keys' does not list" in line


def test_a_path_that_resolves_to_the_same_server_is_one_server(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (exit 0): the patch `http://127.0.0.1:PORT/x/..`, which the client
    sends to `http://127.0.0.1:PORT/v1/...` as it does the base's, read as another route.
    Held `same-server` (exit 1)."""
    server = fault_server()
    sampled = _sample(tmp_path, server.url, server.url + "/x/..")
    assert "--base and --patch are the same server" in sampled.stderr
    header = json.loads((tmp_path / LOG).read_text().splitlines()[0])["run"]
    assert header["connects_to"]["patch"]["url"] == server.url
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert "result: SAME SERVER: base and patch were sampled from one server" in result.stdout


def test_a_servers_password_is_written_nowhere(tmp_path: Path, fault_server: Any) -> None:
    """Failed on main at 00f47e1b: `--patch http://user:sekrit@localhost:PORT` (one server as both sides)
    was written into the log's header (`servers`, `command`, the metrics URL), and triage's
    text, its JSON document and the bundle repeated it. The requests carry it; nothing k3diff
    writes does, and the run still resumes."""
    faults = {"a": {"status": 500, "times": 2}}  # each side's first request fails: logged
    server = fault_server("--faults", json.dumps(faults))
    patch = server.url.replace("http://127.0.0.1", "http://user:sekrit@localhost")
    outputs = [_sample(tmp_path, server.url, patch, "--format", "json", code=1)]
    assert '"error":"' in (tmp_path / LOG).read_text()
    outputs.append(_sample(tmp_path, server.url, patch, "--resume", code=1))
    assert "0 taken now" in outputs[-1].stdout.replace("(", " ").replace(",", " ")
    header = json.loads((tmp_path / LOG).read_text().splitlines()[0])["run"]
    assert header["servers"]["patch"] == patch.replace("user:sekrit", "***")
    for command in (
        ("triage", "cmp.json", LOG),
        ("triage", "cmp.json", LOG, "--format", "json", "-o", "t.json"),
        ("telemetry", LOG, "--format", "json"),
        ("report", "cmp.json", LOG, "t.json", "--out", "b"),
    ):
        outputs.append(run_k3diff(*command, cwd=tmp_path))
    assert [r.exit_code for r in outputs[2:4]] == [1, 1]  # held: same-server
    assert (tmp_path / "b" / "REPORT.md").exists()
    for result in outputs:
        assert "sekrit" not in result.stdout + result.stderr
    other = fault_server("--faults", json.dumps({"a": {"garbage": -1}}))  # not a server
    stopped = run_k3diff(
        "sample", "--base", server.url, "--patch", other.url.replace("//", "//user:sekrit@"),
        "--prompts", "p.jsonl", "--repeats", "3", "--out", "run2", cwd=tmp_path,
    )  # fmt: skip
    assert stopped.exit_code == 2 and "not an OpenAI-compatible endpoint" in stopped.stderr
    assert "sekrit" not in stopped.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and b"sekrit" in p.read_bytes()]
    assert written == []


def test_where_the_sides_connected_is_kept_with_their_urls(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (exit 0 both): one server as `http://127.0.0.1:PORT` and
    `http://localhost:PORT`, held as written; then the header's `connects_to` deleted with the
    patch spelled `127.1` (the client's inet_aton short form), and the patch's URL edited to
    another port, its `connects_to` kept. `sample` records both: refused, exit 2."""
    server = fault_server()
    port = server.url.rsplit(":", 1)[1]
    _sample(tmp_path, server.url, f"http://localhost:{port}")
    held = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert held.exit_code == 1 and "result: SAME SERVER" in held.stdout
    original = (tmp_path / LOG).read_text()

    def patch_url(url: str) -> Any:
        return lambda run: run["servers"].__setitem__("patch", url)

    for edit, said in (
        (lambda run: [patch_url(f"http://127.1:{port}")(run), run.pop("connects_to")],
         "header 'run.connects_to' missing: "),
        (patch_url(f"http://localhost:{int(port) + 1}"),
         f"header 'run.connects_to' says the patch connected to \"http://localhost:{port}\", "
         f"but 'run.servers' names \"http://localhost:{int(port) + 1}\""),
    ):  # fmt: skip
        (tmp_path / LOG).write_text(original)
        _edit(tmp_path / LOG, lambda line: True, edit)
        result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
        assert result.exit_code == 2, result.stdout
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"k3diff: error: {LOG}:1: {said}"), line


def test_repeats_and_adaptive_are_read_against_the_command_that_set_them(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (exit 0, and b read as stopped): `run.repeats` lowered from 3 to 2
    with every side's repeat 2 deleted owed the lines left; `run.adaptive` set on a run of 6
    whose base of b gives a new output each time, b's rounds after the first two deleted, read
    as `--adaptive`'s stop. The header's command says what the run asked: refused, exit 2."""
    urls = [fault_server("--faults", json.dumps({"b": {"output": "rand"}})).url]
    urls.append(fault_server().url)
    _sample(tmp_path, *urls, repeats=6)
    original = (tmp_path / LOG).read_text()
    for keep, edit, said in (
        (lambda line: line["repeat"] < 5, lambda run: run.__setitem__("repeats", 5),
         "header 'run.repeats' is 5, but its command ran --repeats 6"),
        (lambda line: line["key"] != "b" or line["repeat"] < 2,
         lambda run: run.__setitem__("adaptive", True),
         "header 'run.adaptive' is true, but its command ran no --adaptive"),
    ):  # fmt: skip
        (tmp_path / LOG).write_text(original)
        _edit(tmp_path / LOG, keep, edit)
        result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
        assert result.exit_code == 2, result.stdout
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"k3diff: error: {LOG}:1: {said}"), line


def test_a_run_judged_under_allow_same_server_says_so(tmp_path: Path, fault_server: Any) -> None:
    """Failed on main at 00f47e1b: `--allow-same-server` passed one server as both sides (exit 0) and
    neither triage's text nor the bundle named the option, so a reader of either saw a
    patch cleared. Its qualification says the run was judged as an A/A calibration."""
    server = fault_server()
    _sample(tmp_path, server.url, server.url.replace("127.0.0.1", "localhost"))
    said = "judged as an A/A calibration run (--allow-same-server)"
    text = run_k3diff("triage", "cmp.json", LOG, "--allow-same-server", cwd=tmp_path)
    assert text.exit_code == 0 and said in text.stdout, text.stdout
    run_k3diff(
        "triage", "cmp.json", LOG, "--allow-same-server", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    for given in (("t.json",), ("cmp.json", LOG, "t.json")):
        # The document's allowance is its author's word: held without the reviewer's (gate74).
        assert run_k3diff("report", *given, "--out", "b", cwd=tmp_path).exit_code == 1
        bundle = run_k3diff("report", *given, "--out", "b", "--allow-same-server", cwd=tmp_path)
        assert bundle.exit_code == 0, bundle.stderr
        assert said in (tmp_path / "b" / "REPORT.md").read_text()


def test_an_adaptive_batch_is_read_at_the_concurrency_its_command_gave(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (b not held): concurrent under --adaptive, batches of 4, b
    decided by its first; its last 2 repeats deleted on both sides and `run.concurrency`
    lowered to 2 read the 2 left as a whole batch, stopped by the rule. Refused, exit 2."""
    urls = [fault_server("--faults", json.dumps({"b": {"output": "rand"}})).url]
    urls.append(fault_server().url)
    extra = ("--mode", "concurrent", "--concurrency", "4", "--adaptive")
    _sample(tmp_path, *urls, *extra, repeats=8)
    _edit(
        tmp_path / LOG,
        lambda line: (line["key"], line["repeat"] > 1) != ("b", True),
        lambda run: run.__setitem__("concurrency", 2),
    )
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    said = "header 'run.concurrency' is 2, but its command ran --concurrency 4"
    assert line.startswith(f"k3diff: error: {LOG}:1: {said}"), line


def test_side_params_added_to_a_run_of_one_server_are_refused(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (exit 0): one server as both sides, the header given
    `side_params` (`{"patch": {"seed": 1}}`) as if `--patch-param seed=1` had set the sides
    apart: read as a deliberate A/B of request fields, not held. Its command gave none:
    refused, exit 2; a run that gave `--patch-param` is judged as any."""
    server = fault_server()
    _sample(tmp_path, server.url, server.url.replace("127.0.0.1", "localhost"))
    _edit(
        tmp_path / LOG,
        lambda line: True,
        lambda run: run.__setitem__("side_params", {"base": {}, "patch": {"seed": 1}}),
    )
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    said = 'header \'run.side_params\' is {"base": {}, "patch": {"seed": 1}}, but its command '
    assert line.startswith(f"k3diff: error: {LOG}:1: {said}ran neither --base-param nor"), line

    (tmp_path / "run" / "samples.jsonl").unlink()
    _sample(tmp_path, server.url, server.url, "--patch-param", "seed=1")
    given = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert given.exit_code in (0, 1) and given.stderr == "", given.stderr
    assert "same-server" not in given.stdout


def test_a_resume_markers_repeats_are_read_against_its_command(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 00f47e1b (exit 0): a run of 2 repeats grown to 4 by `--resume`; its
    marker's `repeats` lowered to 3 and every side's repeat 3 deleted owed the lines left. The
    marker records the resuming command beside the repeats it grew: refused, exit 2."""
    urls = [fault_server().url, fault_server().url]
    _sample(tmp_path, *urls, repeats=2)
    _sample(tmp_path, *urls, "--resume", repeats=4)
    lines = (tmp_path / LOG).read_text().splitlines()
    (marker,) = [json.loads(line) for line in lines if '"resumed"' in line]
    assert marker["repeats"] == 4 and "--repeats" in marker["command"]
    kept = [line for line in lines if '"repeat":3,' not in line]
    (tmp_path / LOG).write_text("\n".join(kept).replace('"repeats":4', '"repeats":3') + "\n")
    result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    (line,) = result.stderr.splitlines()
    said = "resume marker 'repeats' is 3, but its command ran --repeats 4: the log was edited"
    assert line.startswith(f"k3diff: error: {LOG}:") and said in line, line


def _sides_apart(tmp_path: Path, change: dict[str, Any]) -> None:
    """The log with the patch's lines of record a given `change` (another prompt, or another
    request field), the base's left as sampled."""
    path = tmp_path / LOG
    values = [json.loads(line) for line in path.read_text().splitlines()]
    for value in values[1:]:
        if value.get("key") == "a" and value.get("side") == "patch":
            for name, edit in change.items():
                value[name] = edit(value[name])
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in values))


def test_a_records_sides_asking_other_requests_are_refused(
    tmp_path: Path, fault_server: Any
) -> None:
    """gate74 (stop 73 left it): the patch's lines of record a edited to ask b's prompt, or
    another temperature (no --patch-param gave it), with captures that record no prompt or
    request: nothing compared the two sides' requests, and triage passed (exit 0 on base74),
    as report did running it again. A record is one request: refused, exit 2, one line naming
    the log and the key, whatever the capture holds."""
    from k3diff.sample.prompts import prompt_digest

    _sample(tmp_path, fault_server().url, fault_server().url)
    made = run_k3diff("triage", "cmp.json", LOG, "--format", "json", "-o", "t.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stdout + made.stderr
    sampled = (tmp_path / LOG).read_text()
    edits: list[dict[str, Any]] = [
        {"prompt_xxh3": lambda _: prompt_digest("b"), "prompt_preview": lambda _: "b"},
        {"request_params": lambda sent: {**sent, "temperature": 1}},
    ]
    for change in edits:
        (tmp_path / LOG).write_text(sampled)
        _sides_apart(tmp_path, change)
        result = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
        assert result.exit_code == 2, result.stdout
        (line,) = result.stderr.splitlines()
        assert line.startswith(f"k3diff: error: {LOG}: key 'a': ") and "Traceback" not in line
        bundle = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b", cwd=tmp_path)
        assert bundle.exit_code == 2, bundle.stdout
        assert f"{LOG}: key 'a': " in bundle.stderr
