"""A greedy patch output the base never gave, left undecided, is held (`novel-undecided`).

Found by review58: greedy decoding, `--capture-mode serial`, base serial observations A, A, A,
patch A, Z, A (Z an output the base never gave): the novelty test cannot reject at n = 3, so
the record was `inconclusive` with no held flag and the run exited 0 unless
`--fail-inconclusive`. An output the run cannot explain is no evidence of safety: like a sampled
mode without power (`no-power`), such a mode clears nothing and fails the run, saying how many
more samples a side would decide it. What stays as it was: a patch inside the base's outputs,
a patch more stable than the base on them, both-nondeterministic, a sampled mode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.triage import shiftverdict
from k3diff.triage.classify import decide, evidence
from k3diff.triage.model import HELD_FLAGS, Category, Correction, Flag, Settings
from k3diff.triage.observations import Adjusted, SideObservations

from .helpers import compare_texts, side, triage_greedy, write_samples


def _triage(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """Captures A (base) and Z (patch), two serial samples of A a side."""
    compare_texts(tmp_path, {"q": ("A", "Z")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("q", "base", ["A"] * 2) + side("q", "patch", ["A"] * 2),
    )
    result = run_k3diff(
        "triage",
        "cmp.json",
        "run/samples.jsonl",
        "--format",
        "json",
        "-o",
        "t.json",
        *args,
        cwd=tmp_path,
    )
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads((tmp_path / "t.json").read_text())


def test_review58_capture_counted_serially_is_held_and_fails(tmp_path: Path) -> None:
    code, doc = _triage(tmp_path, "--capture-mode", "serial")
    (record,) = doc["records"]
    assert code == 1 and doc["verdict"] == {"ok": False, "exit_code": 1}
    assert record["category"] == "inconclusive" and not record["regression_candidate"]
    assert "novel-undecided" in record["flags"]
    (mode,) = record["modes"]
    assert mode["novelty"] == 1 and "novel-undecided" in mode["flags"]
    assert (mode["base"]["distinct"], mode["patch"]["distinct"]) == (1, 2)
    assert record["reason"].startswith(
        "serial: novel-undecided: the patch gave an output the base never gave in this mode and "
        "no test could decide it at this n"
    )
    assert f"{record['more_samples']} more samples a side would decide it" in record["reason"]
    assert record["more_samples"] == 8
    assert doc["summary"]["held"] == 1


def test_the_same_through_the_text_report(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q": ("A", "Z")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("q", "base", ["A"] * 2) + side("q", "patch", ["A"] * 2),
    )
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--capture-mode", "serial", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stdout
    assert "novel-undecided" in result.stdout
    assert "a patch output the base never gave, left undecided (novel-undecided)" in result.stdout
    assert "(exit 1)" in result.stdout


def test_greedy_samples_alone_are_held_too(tmp_path: Path) -> None:
    doc = triage_greedy(tmp_path, {"q": (["A", "A", "A"], ["A", "Z", "A"])})
    (record,) = doc["records"]
    assert doc["exit"] == 1 and record["category"] == "inconclusive"
    assert "novel-undecided" in record["flags"]


def test_a_stable_patch_on_an_output_a_flaky_base_never_gave_is_held(tmp_path: Path) -> None:
    # issue 19's shape at n = 2: not more stable on the base's outputs, another output
    doc = triage_greedy(tmp_path, {"q": (["A", "B"], ["Z", "Z"])})
    (record,) = doc["records"]
    assert doc["exit"] == 1 and record["category"] == "inconclusive"
    assert "novel-undecided" in record["flags"]


def test_what_is_not_held(tmp_path: Path) -> None:
    cases: dict[str, tuple[Sequence[str | None], Sequence[str | None]]] = {
        # the patch inside the base's outputs, more stable than the base on them
        "inside": (["A", "B", "A", "B"], ["A", "A", "A", "A"]),
        # both vary, the patch's new output as the base's own variation gives them, where
        # the test could tell (base A, B, C against patch D, E, F, a test without power,
        # is held: tests/triage/test_greedy_without_power.py)
        "both": (["A", "B"] * 20, ["A", "B"] * 19 + ["A", "C"]),
        # both stable on one output
        "match": (["A", "A", "A"], ["A", "A", "A"]),
    }
    categories: dict[str, str] = {}
    for key, case in cases.items():  # each its own run: a run owes each record its repeats
        (tmp_path / key).mkdir()
        doc = triage_greedy(tmp_path / key, {key: case})
        assert doc["exit"] == 0, doc["records"]
        categories |= {r["key"]: r["category"] for r in doc["records"]}
    assert categories == {
        "inside": "base-nondeterminism",
        "both": "both-nondeterministic",
        "match": "match",
    }
    assert all("novel-undecided" not in r["flags"] for r in doc["records"])


def _forge(doc: dict[str, Any], category: str) -> dict[str, Any]:
    """`doc` with `novel-undecided` dropped, its records and modes relabelled `category`, its
    summary and verdict made to pass."""
    summary = doc["summary"]
    for record in doc["records"]:
        record["flags"] = [f for f in record["flags"] if f != "novel-undecided"]
        record["category"] = category
        for mode in record["modes"]:
            mode["flags"] = [f for f in mode["flags"] if f != "novel-undecided"]
            mode["category"] = category
    summary["inconclusive"] = 0
    summary[category] = len(doc["records"])
    summary["held"] = 0
    doc["verdict"] = {"ok": True, "exit_code": 0}
    return doc


def test_a_forged_document_that_drops_the_flag_is_refused(tmp_path: Path) -> None:
    code, doc = _triage(tmp_path, "--capture-mode", "serial")
    assert code == 1
    ok = run_k3diff("report", "t.json", "--out", "ok-bundle", cwd=tmp_path)
    assert ok.exit_code == 1, ok.stdout + ok.stderr  # the true document reads, and fails
    for category in ("inconclusive", "both-nondeterministic"):
        forged = tmp_path / f"forged-{category}.json"
        forged.write_text(json.dumps(_forge(json.loads(json.dumps(doc)), category)))
        out = run_k3diff("report", forged.name, "--out", f"b-{category}", cwd=tmp_path)
        assert out.exit_code == 2, out.stdout + out.stderr
        assert "novel-undecided" in out.stderr


SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)
tables = st.lists(st.sampled_from(["a", "b", "c", "z"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(tables, tables, st.sampled_from(["serial", "concurrent"]), st.booleans())
def test_no_undecided_greedy_mode_with_patch_novelty_passes(
    base_seq: list[str], patch_seq: list[str], mode: str, known: bool
) -> None:
    """Every greedy mode the tests leave undecided while the patch gave an output the base
    never gave is held; none whose patch stays inside the base's outputs is."""
    elsewhere = frozenset({"z"}) if known else frozenset()
    ev = evidence(
        mode,
        SideObservations(tuple(base_seq)),
        SideObservations(tuple(patch_seq)),
        SETTINGS,
        elsewhere,
    )
    novelty_p = None if ev.novelty is None else ev.novelty.p
    verdict = shiftverdict.novel_undecided(decide(ev, Adjusted(ev.p, novelty_p), SETTINGS))
    held = bool(HELD_FLAGS & set(verdict.flags)) and verdict.category is Category.INCONCLUSIVE
    passes = not verdict.regression_candidate and not held
    if verdict.novelty and verdict.category is not Category.BOTH_NONDETERMINISTIC:
        assert not passes, verdict
    if not verdict.novelty:
        assert Flag.NOVEL_UNDECIDED not in verdict.flags
    if Flag.NOVEL_UNDECIDED in verdict.flags:
        assert verdict.category is Category.INCONCLUSIVE and not verdict.regression_candidate
        assert verdict.reason.startswith("novel-undecided: ")


ONE_SAMPLE_CASES: dict[str, tuple[list[str | None], list[str | None]]] = {
    # one sample a side: no novelty test runs, and Z is an output the base never gave
    "one-each": (["A"], ["Z"]),
    "base-three": (["A", "A", "A"], ["Z", None, None]),
    "base-one": (["A", None, None], ["A", "Z", "A"]),
    "patch-stable-new": (["A", None, None], ["Z", "Z", "Z"]),
}
"""A side's other requests failed: a run owes each side its repeats, so a side with fewer
samples logged them failed (samples71: fewer lines are held `unlogged`)."""


def test_stop59_one_sample_a_side_and_a_new_patch_output_is_held(tmp_path: Path) -> None:
    """Found at stop 58's end: a side with one sample ran no novelty test, so `novelty` was
    null, the flag never came, and the record passed inconclusive with exit 0."""
    for key, (base, patch) in ONE_SAMPLE_CASES.items():
        (tmp_path / key).mkdir()
        doc = triage_greedy(tmp_path / key, {key: (base, patch)})
        (record,) = doc["records"]
        (mode,) = record["modes"]
        assert doc["exit"] == 1, (key, record["reason"])
        assert record["category"] == "inconclusive" and not record["regression_candidate"]
        assert "novel-undecided" in record["flags"], key
        assert mode["novelty"] == patch.count("Z") and mode["novelty_p"] is None
        assert record["reason"].startswith(
            "serial: novel-undecided: the patch gave an output the base never gave in this mode "
            "and no test could decide it at this n (no novelty test runs with fewer than 2 "
            "observations a side)"
        ), record["reason"]
        assert doc["summary"]["held"] == 1


def test_one_sample_inside_the_base_set_still_passes(tmp_path: Path) -> None:
    cases: dict[str, tuple[Sequence[str | None], Sequence[str | None]]] = {
        "one-each": (["A"], ["A"]),
        "patch-three": (["A", None, None], ["A", "A", "A"]),
    }
    for key, case in cases.items():  # each its own run: a run owes each record its repeats
        (tmp_path / key).mkdir()
        doc = triage_greedy(tmp_path / key, {key: case})
        assert doc["exit"] == 0, doc["records"]
        (record,) = doc["records"]
        assert record["category"] == "inconclusive" and "novel-undecided" not in record["flags"]
        assert record["modes"][0]["novelty"] is None


def test_one_sample_in_another_mode_of_the_base_passes_outside_serial(tmp_path: Path) -> None:
    # concurrent patch Z at n = 1 where the base gave Z serially: the base's output, not held
    compare_texts(tmp_path, {"q": ("Z", "Z")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("q", "base", ["Z", "Z"])
        + side("q", "patch", ["Z", "Z"])
        + side("q", "base", ["A"], "concurrent")
        + side("q", "patch", ["Z"], "concurrent"),
    )
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    doc = json.loads(out.stdout)
    (record,) = doc["records"]
    assert "novel-undecided" not in record["flags"], record["reason"]
    concurrent = next(m for m in record["modes"] if m["mode"] == "concurrent")
    assert concurrent["novelty"] is None


def test_a_forged_one_sample_document_is_refused(tmp_path: Path) -> None:
    doc = triage_greedy(tmp_path, {"q": (["A"], ["Z"])})
    del doc["exit"]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(_forge(doc, "inconclusive")))
    out = run_k3diff("report", forged.name, "--out", "bundle", cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "novel-undecided" in out.stderr


def test_a_forged_novelty_is_refused_where_the_distinct_counts_force_one(tmp_path: Path) -> None:
    # base A once, patch A, Z, A: serially at least one patch sample is an output the base
    # never gave, whatever the document says its novelty is
    doc = triage_greedy(tmp_path, {"q": (["A"], ["A", "Z", "A"])})
    del doc["exit"]
    forged = _forge(doc, "inconclusive")
    for mode in forged["records"][0]["modes"]:
        mode["novelty"] = None
    forged["records"][0]["novelty"] = None
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    out = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[0].modes[0].novelty is None but its patch gave 2 distinct" in out.stderr
