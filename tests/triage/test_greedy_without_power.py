"""A greedy mode where both sides vary and the patch gave outputs the base never gave is
`both-nondeterministic`, which passes, only where its distribution test could have detected
`--shift` of the answers moved; otherwise it is held `novel-undecided` (inconclusive, exit 1),
as a sampled mode is held `no-power`.

Found in review (stop 59): at temperature 0, base A, B against patch C, D (no output in common),
base A, B, A, B against patch C, D, C, D, and base A-E against patch V-Z all passed with exit 0 as
both-nondeterministic, their tests without power (none at all, or only against 48 % moved)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.triage import shiftverdict
from triage.helpers import triage_greedy

DISJOINT = {
    "ab-cd": (["A", "B"], ["C", "D"]),
    "abab-cdcd": (["A", "B", "A", "B"], ["C", "D", "C", "D"]),
    "five-new": (list("ABCDE"), list("VWXYZ")),
}


@pytest.mark.parametrize("key", sorted(DISJOINT))
def test_a_varying_greedy_patch_on_new_outputs_without_power_is_held(
    tmp_path: Path, key: str
) -> None:
    doc = triage_greedy(tmp_path, {key: DISJOINT[key]})
    (record,) = doc["records"]
    assert doc["exit"] == 1, record["reason"]
    assert record["category"] == "inconclusive" and "novel-undecided" in record["flags"]
    test = record["modes"][0]["distribution"]
    assert test["sampled"] is False
    assert test["detectable_shift"] is None or test["detectable_shift"] > 0.35
    assert "could not have detected --shift 35 %" in record["reason"]
    # The document triage wrote reads, and fails; with the flag dropped and a pass written,
    # report refuses it.
    read = run_k3diff("report", "t.json", "--out", "ok", cwd=tmp_path)
    assert read.exit_code == 1, read.stdout + read.stderr
    forged = json.loads((tmp_path / "t.json").read_text())
    for item in (forged["records"][0], *forged["records"][0]["modes"]):
        item["flags"] = [f for f in item["flags"] if f != "novel-undecided"]
        item["category"] = "both-nondeterministic"
    forged["summary"].update({"inconclusive": 0, "both-nondeterministic": 1, "held": 0})
    forged["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    out = run_k3diff("report", "forged.json", "--out", "bad", cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "novel-undecided" in out.stderr


def test_a_varying_greedy_mode_whose_count_test_has_power_passes(tmp_path: Path) -> None:
    # 40 a side: the base varies on A and B, the patch too and gives C once; the count test
    # had power (against a shift of 100 %, not none): the rule for a count test.
    base = ["A", "B"] * 20
    patch = ["A", "B"] * 19 + ["A", "C"]
    doc = triage_greedy(tmp_path, {"q": (base, patch)})
    (record,) = doc["records"]
    test = record["modes"][0]["distribution"]
    assert test["test"] == "counts" and test["detectable_shift"] is not None, test
    assert doc["exit"] == 0, record["reason"]
    assert record["category"] == "both-nondeterministic"


def test_relabelling_a_held_sampled_mode_greedy_clears_nothing(tmp_path: Path) -> None:
    """A no-power document whose modes and tests are edited to `sampled: false` (consistent with
    each other), flags dropped and a pass written: report accepted it (exit 0), reading the
    modes as greedy both-nondeterministic ones; their MMD tests could not have detected the
    shift, so the greedy rule holds them too."""
    from triage.test_shift_forged import _held, _report, _unflag

    document = _held(tmp_path)
    _unflag(document, passing=True)
    for record in document["records"]:
        for mode in record["modes"]:
            mode["sampled"] = False
            mode["distribution"]["sampled"] = False
            mode["distribution"]["level"] *= 2  # a greedy test's: α over the family (aa77)
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "(novel-undecided) but not held" in result.stderr


_OUTPUTS = st.lists(st.sampled_from(["A", "B", "C", "D", "E"]), min_size=2, max_size=6)


@settings(max_examples=20, deadline=None)
@given(_OUTPUTS, _OUTPUTS)
def test_triage_writes_report_accepts_and_no_unpowered_varying_patch_passes(
    base: list[str], patch: list[str]
) -> None:
    """Greedy tables where both sides may vary: the document triage writes is read by report
    with its evidence (same exit), and no both-nondeterministic mode with a patch output the
    base never gave passes on a test that could not tell."""
    with tempfile.TemporaryDirectory() as where:
        doc = triage_greedy(Path(where), {"q": (base, patch)})
        report = run_k3diff(
            "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=Path(where)
        )
    assert report.exit_code == doc["exit"], report.stderr
    (record,) = doc["records"]
    for mode in record["modes"]:
        test = mode["distribution"]
        if record["regression_candidate"] or not mode["novelty"] or test is None:
            continue
        if shiftverdict.greedy_unpowered(test["test"], test["detectable_shift"], 0.35):
            assert doc["exit"] == 1 and mode["category"] == "inconclusive", mode


@pytest.mark.parametrize("key", sorted(DISJOINT))
def test_a_held_varying_greedy_patch_says_how_many_more_samples(tmp_path: Path, key: str) -> None:
    """Found in a new-user trial (stop 59) on a real `transformers serve --continuous-batching`:
    a same-model pair held `novel-undecided` at 5 and 20 samples a side had no `more` (the
    table's "—", the reason's bare "more samples a side would decide it"), where a `no-power`
    hold names the figure; 27 a side (20 scaled by (40 % / 35 %)²) passed."""
    doc = triage_greedy(tmp_path, {key: DISJOINT[key]})
    (record,) = doc["records"]
    (mode,) = record["modes"]
    assert "novel-undecided" in mode["flags"]
    assert isinstance(mode["more_samples"], int) and mode["more_samples"] > 0, mode
    assert record["more_samples"] == mode["more_samples"]
    assert f"{mode['more_samples']:,} more sample" in mode["reason"]
