"""What real vLLM reports beside V1's speculation counters, through `k3diff sample` and
`k3diff telemetry` against real loopback servers (`fake_vllm.py`, a `prometheus_client`
registry): a counter that goes down mid-run (a restarted server), vLLM V0's speculation series
(a sum of running sums, not counts), and `vllm:num_preemptions_total`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry
from server_support import loopback_script

FAKE = Path(__file__).with_name("fake_vllm.py")
RATES = "0.8,0.65"


def _sample(tmp_path: Path, base: tuple[str, ...], patch: tuple[str, ...], repeats: int) -> Path:
    tmp_path.mkdir(exist_ok=True)
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        '{"id": "p1", "prompt": "The capital of France is"}\n'
        '{"id": "p2", "prompt": "Two plus two is"}\n'
    )
    out = tmp_path / "run"
    with loopback_script(FAKE, *base) as b, loopback_script(FAKE, *patch) as p:
        result = run_k3diff(
            "sample", "--base", b, "--patch", p, "--prompts", prompts,
            "--repeats", str(repeats), "--param", "temperature=0", "--out", out,
        )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out / "samples.jsonl"


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()[1:]]


def test_a_restarted_server_is_named_and_holds_the_gate(tmp_path: Path) -> None:
    """The patch server restarts on its 3rd request: that window's counters go down. It is a
    finding naming the side, the counter and the window; the gate does not pass on the windows
    left, and says how many it used."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2", "restart=3"), repeats=3)
    reset = [line for line in _lines(log) if line.get("server_reset")]
    assert len(reset) == 1 and reset[0]["side"] == "patch"
    assert reset[0]["server_reset"] == "vllm:spec_decode_num_drafts_total"
    assert reset[0]["server_spec"] == {"samples": 1}
    window = f"{reset[0]['key']} serial repeat {reset[0]['repeat']}"

    code, doc, text = run_telemetry(log)
    assert code == 0  # without the gate: visible, not failing
    assert doc["counter_resets"] == [
        {"side": "patch", "metric": "vllm:spec_decode_num_drafts_total", "window": window,
         "samples": 1, "lost": True}
    ]  # fmt: skip
    assert (
        f"counter-reset, patch: vllm:spec_decode_num_drafts_total went down across the window "
        f"closed by {window} (1 sample): a restarted server" in text
    )
    assert text.splitlines()[-1].endswith("; warnings: counter-reset (patch)")

    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    assert code == 1
    assert gate["lost_windows"] == {"base": 0, "patch": 1}
    assert {t["units"]["patch"] for t in gate["tests"]} == {5}
    assert {t["units"]["base"] for t in gate["tests"]} == {6}
    assert [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    detail = gate["findings"][0]["detail"]
    assert "1 vLLM window lost to a restarted server" in detail
    assert "the tests used 6 base and 5 patch units" in detail and window in detail
    assert "windows lost to a restarted server, in no test: base 0, patch 1" in text
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): acceptance-undecided (--fail-on acceptance-drop could not "
        "decide: 1 vLLM window lost to a restarted server)"
    )
    # The bundle lists the reset, and re-derives the hold: dropping it is refused.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert r"counter-reset, patch: vllm:spec\_decode\_num\_drafts\_total went down" in report
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b")
    assert forged.exit_code == 2 and "give acceptance-undecided" in forged.stderr
    # So is dropping the lost windows with it.
    del gate["lost_windows"]
    (tmp_path / "forged2.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged2.json", "--out", tmp_path / "b2")
    assert forged.exit_code == 2 and "counter_resets lists 1" in forged.stderr


def test_a_restart_between_two_windows_is_named_and_loses_no_counts(tmp_path: Path) -> None:
    """The patch server restarts after the 2nd window closed: the 3rd window's opening reading
    is lower than the 2nd's closing one. The run spans two server lives: named; no window's
    counts are lost, so the gate decides on every window."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2", "restart_after_read=2"), repeats=3)
    lines = _lines(log)
    reset = [line for line in lines if line.get("server_reset")]
    assert len(reset) == 1 and reset[0]["side"] == "patch"
    assert reset[0]["server_reset"] == "vllm:spec_decode_num_drafts_total"
    assert reset[0]["server_spec"]["drafts"] == 30  # its own window's counts stand
    window = f"{reset[0]['key']} serial repeat {reset[0]['repeat']}"
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert doc["counter_resets"][0]["lost"] is False
    assert (
        f"counter-reset, patch: vllm:spec_decode_num_drafts_total went down between the window "
        f"closed by {window} and the one before: the server restarted between two windows"
    ) in text
    gate = doc["acceptance_gate"]
    assert "lost_windows" not in gate
    assert {(t["units"]["base"], t["units"]["patch"]) for t in gate["tests"]} == {(6, 6)}
    assert code == 0 and gate["findings"] == [], text
    assert text.splitlines()[-1].endswith("; warnings: counter-reset (patch)")


def test_vllm_v0_speculation_is_named_not_read_as_counts(tmp_path: Path) -> None:
    """vLLM V0 adds its running totals to its token counters at every log interval: a window's
    rise is not its tokens (here 3 requests of 60 drafted tokens rise the counter by 60, 120,
    180). They are named, never read as counts, and V0's missing positions are said so."""
    log = _sample(tmp_path, (RATES, "1", "v0=1"), (RATES, "2", "v0=1"), repeats=2)
    specs = [line["server_spec"] for line in _lines(log)]
    assert specs and all(s == {"v0_counters": 1, "preemptions": 0, "samples": 1} for s in specs)
    code, doc, text = run_telemetry(log, "--expect", "speculation", "--expect", "draft-lengths=1-2")
    assert code == 1 and doc["speculation"] == [] and doc["v0_sides"] == ["base", "patch"]
    assert "speculation, base: not read as counts (vLLM V0 /metrics" in text
    assert "a sum of sums" in text
    details = {(n["expectation"], n["side"]): n["detail"] for n in doc["not_exercised"]}
    assert "vLLM V0 /metrics" in details[("speculation", "patch")]
    assert details[("draft-lengths", "base")] == (
        "draft lengths 1-2 not reported: no per-position acceptance "
        "(vLLM V0 has no per-position counter)"
    )


def test_preemptions_are_read_per_side_and_a_new_one_warns(tmp_path: Path) -> None:
    """vLLM V1 logs no line per preemption: `vllm:num_preemptions_total` is the evidence. A
    patch preempting where the base did not is a warning, not a failure."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2", "preempt=1"), repeats=2)
    code, doc, text = run_telemetry(log, "--expect", "speculation")
    assert code == 0, text
    assert doc["preemptions"] == [
        {"side": "base", "preemptions": 0, "windows": 4},
        {"side": "patch", "preemptions": 4, "windows": 4},
    ]
    assert "preemptions, base: 0 in 4 vLLM windows (vllm:num_preemptions_total)" in text
    assert "preemptions, patch: 4 in 4 vLLM windows" in text
    assert "warning: preemption-new: the patch's vLLM preempted 4 times" in text
    assert text.splitlines()[-1].endswith("; warnings: preemption-new")
    # The bundle lists them too.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b")
    assert bundle.exit_code == 0, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "preemptions, patch: 4 in 4 vLLM windows" in report
    assert "warning: preemption-new" in report
    # Preemptions on both sides (or on the base only) are listed, without the warning.
    log = _sample(tmp_path / "both", (RATES, "1", "preempt=1"), (RATES, "2", "preempt=1"), 1)
    code, doc, text = run_telemetry(log)
    assert code == 0 and "preemption-new" not in text
    assert [p["preemptions"] for p in doc["preemptions"]] == [2, 2]


@pytest.mark.parametrize("hide", [1, 2])
def test_a_window_whose_metrics_read_failed_holds_the_gate(tmp_path: Path, hide: int) -> None:
    """review60a: the patch server runs every 2nd request at a tenth of its acceptance and
    answers the `/metrics` read after it with HTTP 500 (hide=1) or without the speculation
    series (hide=2). Those windows used to vanish (no `server_spec`, or one of preemptions
    only, nothing said) and the gate passed on the good windows left (exit 0): now each is a
    lost window, named, and the gate holds."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2", f"hide={hide}"), repeats=10)
    unread = [line for line in _lines(log) if line.get("server_reset")]
    assert [line["server_reset"] for line in unread] == ["/metrics not read"] * 10
    assert {line["side"] for line in unread} == {"patch"}

    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1
    gate = doc["acceptance_gate"]
    assert gate["lost_windows"] == {"base": 0, "patch": 10}
    assert [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    assert "or a reading before or after the window failed" in gate["findings"][0]["detail"]
    assert "was not read (its /metrics reading before or after it failed)" in text
    assert "windows lost to a restarted server or an unread /metrics, in no test" in text
    # telem67: one line for the 10 windows lost alike (before: the same line 10 times), the
    # first named in full, 5 more by name and the rest counted.
    names = [f"{line['key']} serial repeat {line['repeat']}" for line in unread]
    (reset,) = [line for line in text.splitlines() if line.startswith("counter-reset")]
    assert reset == (
        f"counter-reset, patch: in 10 vLLM windows: the window closed by {names[0]} (1 sample) "
        "was not read (its /metrics reading before or after it failed); that window's counts "
        f"are lost (likewise: {', '.join(names[1:6])}, and 4 more)"
    )
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): acceptance-undecided (--fail-on acceptance-drop could not "
        "decide: 10 vLLM windows lost to a restarted server or an unread /metrics)"
    )


def test_a_window_whose_counts_are_no_counts_is_lost_and_holds_the_gate(tmp_path: Path) -> None:
    """telemetry66: a window whose recorded rise no server life gives (accepted tokens above
    draft tokens; drafts reaching a position rising with the position) is what a restart
    its counters did not show leaves (no `_created` series, counts past the old values), or an
    edited log. Such windows were left out of the tests unsaid (the first's tokens counted
    without its positions, the others' positions without their tokens), and the gate passed on
    the windows left: pooled 8 base and 6 patch units, positions 8 and 7, exit 0. Now each is a
    lost window, named with why, in no count, and the gate holds."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2"), repeats=4)
    header, *lines = log.read_text().splitlines()
    edited: list[str] = []
    windows: list[tuple[str, dict[str, Any]]] = []
    for text in lines:
        line = json.loads(text)
        spec = line.get("server_spec")
        if line["side"] == "patch" and spec and len(windows) < 3:
            if windows:
                spec["accepted_tokens"] = spec["draft_tokens"] + 1
            else:
                spec["accepted_per_position"] = [5, 9]  # more drafts reached 2 than 1
            windows.append((f"{line['key']} serial repeat {line['repeat']}", dict(spec)))
        edited.append(json.dumps(line))
    log.write_text("\n".join([header, *edited]) + "\n")

    code, doc, text = run_telemetry(log)
    assert code == 0  # without the gate: said, not failing
    assert doc["counter_resets"] == [
        {"side": "patch", "metric": "counts not valid", "window": window, "samples": 1,
         "lost": True, "reason": reason}
        for (window, _), reason in zip(windows, [
            "drafts reaching each position [5, 9] above the 30 drafts or rising with the "
            "position",
            f"accepted tokens {windows[1][1]['accepted_tokens']} above draft tokens 60",
            f"accepted tokens {windows[2][1]['accepted_tokens']} above draft tokens 60",
        ], strict=True)
    ]  # fmt: skip
    # In no count: the patch's speculation and positions are its 5 valid windows'.
    kept = [
        json.loads(t)["server_spec"]
        for t in edited
        if json.loads(t)["side"] == "patch" and json.loads(t).get("server_spec")
    ][3:]
    spec = {s["side"]: s for s in doc["speculation"]}
    assert (spec["patch"]["accepted"], spec["patch"]["drafted"]) == (
        sum(w["accepted_tokens"] for w in kept),
        sum(w["draft_tokens"] for w in kept),
    )
    patch_positions = [p for p in doc["positions"] if p["side"] == "patch"]
    assert [(p["accepted"], p["drafts"]) for p in patch_positions] == [
        (sum(w["accepted_per_position"][i] for w in kept), 30 * len(kept)) for i in (0, 1)
    ]
    assert "vLLM windows lost to invalid counts, in no count or test here: base 0, patch 3" in text
    # The two windows lost alike (accepted tokens 61 above 60) are one line (telem67).
    assert (
        f"counter-reset, patch: in 2 vLLM windows: the window closed by {windows[1][0]} (1 "
        "sample) rose by counts no server life gives (accepted tokens 61 above draft tokens 60)"
        f": a restart its counters did not show, or an edited log; that window's counts are "
        f"lost (likewise: {windows[2][0]})"
    ) in text.splitlines()
    assert text.splitlines()[-1].endswith("; warnings: counter-reset (patch)")

    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1, text
    gate = doc["acceptance_gate"]
    assert gate["lost_windows"] == {"base": 0, "patch": 3}
    assert {(t["units"]["base"], t["units"]["patch"]) for t in gate["tests"]} == {(8, 5)}
    assert [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    assert gate["findings"][0]["detail"].startswith(
        "3 vLLM windows lost to invalid counts (accepted tokens above drafted, or per-position "
        f"counts above the drafts; first: patch, counts not valid, the window closed by "
        f"{windows[0][0]}): the tests used 8 base and 5 patch units"
    )
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): acceptance-undecided (--fail-on acceptance-drop could not "
        "decide: 3 vLLM windows lost to invalid counts)"
    )
    # The Markdown says it too; the bundle lists them and re-derives the hold.
    markdown = run_k3diff("telemetry", log, "--format", "markdown").stdout
    assert "vLLM windows lost to invalid counts, in no count or test here" in markdown
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    assert "rose by counts no server life gives" in (tmp_path / "b0" / "REPORT.md").read_text()
    # A document edited to drop the lost windows and pass: refused beside its log (telemetry
    # run again), and alone when the gate's lost_windows and counter_resets disagree.
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    del doc["counter_resets"]
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b1")
    assert forged.exit_code == 2 and "counter_resets lists 0" in forged.stderr
    del gate["lost_windows"]
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", log, "--out", tmp_path / "b2")
    assert forged.exit_code == 2, forged.stderr


def test_a_side_whose_every_window_was_lost_is_not_said_to_send_no_counts(tmp_path: Path) -> None:
    """newuser66: a side whose every vLLM window was lost to invalid counts read `speculation,
    patch: not reported (no engine sent draft counts)`, and the gate `patch: no speculation
    counts reported`, though its engine sent counts on every sample: a reviewer looked for a
    missing /metrics. Both now say the counts were lost, how many windows and to what (the
    gate still holds: exit 1)."""
    log = _sample(tmp_path, (RATES, "1"), (RATES, "2"), repeats=3)
    header, *lines = log.read_text().splitlines()
    edited = []
    for text in lines:
        line = json.loads(text)
        spec = line.get("server_spec")
        if line["side"] == "patch" and spec:
            spec["accepted_tokens"] = spec["draft_tokens"] + 1
        edited.append(json.dumps(line))
    log.write_text("\n".join([header, *edited]) + "\n")
    lost = sum(1 for text in edited if '"side": "patch"' in text and "server_spec" in text)
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1, text
    assert doc["acceptance_gate"]["lost_windows"] == {"base": 0, "patch": lost}
    said = f"{lost} vLLM windows lost to invalid counts"
    assert f"speculation, patch: no counts left ({said}, named below)" in text, text
    assert "no engine sent draft counts" not in text
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): acceptance-undecided (--fail-on acceptance-drop could not "
        f"decide: nothing to compare (patch: no speculation counts left, {said}))"
    )
    markdown = run_k3diff("telemetry", log, "--format", "markdown").stdout
    assert f"speculation, patch: no counts left ({said}, named below)" in markdown
