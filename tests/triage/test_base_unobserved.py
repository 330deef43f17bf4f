"""A greedy mode where the base has no successful observation holds the patch's outputs as
ones the base never gave (`novel-undecided`).

Found by triage59 (stop 59's open gap, the passing direction): captures A and A, every serial
request to the base failed, the patch gave Z serially three times: `novelty` counted nothing
(`stats.novel_count` took an empty base as "no set to lie outside of"), the flag never came,
and the record passed inconclusive with exit 0. Serial mode judges its own samples only, so a
base without one explains none of the patch's outputs: each is one the base never gave in the
mode, undecided, and held (outside serial mode the base's outputs of its other modes still
explain them, as with any n). A side without successful outputs has nothing new to hold on
the patch's part where the patch gave none (both sides failed, or the patch only); since
triage69 a side that answered none of the record's requests holds it as `unanswered` (captures
that match; before, it passed inconclusive with exit 0) or `unsampled` (captures that differ).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples

FAILED3 = [None, None, None]


def _triage(
    tmp_path: Path,
    captured: tuple[str, str],
    samples: list[Any],
    *args: str,
) -> tuple[int, dict[str, Any]]:
    compare_texts(tmp_path, {"q": captured})
    write_samples(tmp_path / "run" / "samples.jsonl", samples, gauge=2)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads((tmp_path / "t.json").read_text())


def _report(tmp_path: Path, name: str = "t.json") -> int:
    out = run_k3diff("report", name, "--out", f"bundle-{name}", cwd=tmp_path)
    assert out.exit_code in (0, 1), out.stderr
    return out.exit_code


def test_triage59_base_all_failed_patch_new_output_is_held(tmp_path: Path) -> None:
    code, doc = _triage(
        tmp_path, ("A", "A"), side("q", "base", FAILED3) + side("q", "patch", ["Z"] * 3)
    )
    (record,) = doc["records"]
    (mode,) = record["modes"]
    assert code == 1 and doc["verdict"] == {"ok": False, "exit_code": 1}
    assert record["category"] == "inconclusive" and not record["regression_candidate"]
    assert "novel-undecided" in record["flags"] and "novel-undecided" in mode["flags"]
    assert mode["novelty"] == 3 and mode["novelty_p"] is None
    assert (mode["base"]["n"], mode["base"]["errors"]) == (0, 3)
    assert record["reason"].startswith("unanswered: every base request for this record failed")
    assert (
        "; serial: novel-undecided: the patch gave an output the base never gave in this mode "
        "and no test could decide it at this n (the base gave no successful answer in this mode, "
        "so none of its explains the patch's)"
    ) in record["reason"], record["reason"]
    assert "60 more samples a side would decide it;" in record["reason"]
    assert "went on as observed" not in record["reason"]
    assert record["more_samples"] == 60 and doc["summary"]["held"] == 1
    assert _report(tmp_path) == 1


def test_base_all_failed_patch_on_the_captured_output_is_held_serially(tmp_path: Path) -> None:
    """Without --capture-mode the base's capture is no serial observation: its serial output
    is unknown, so a patch on the captured one is undecided too; the reviewer who vouches for
    the capture (--capture-mode serial) makes it the base's one serial observation, which
    clears novel-undecided; the base that answered none of its requests still holds it
    (unanswered, triage69)."""
    samples = side("q", "base", FAILED3) + side("q", "patch", ["A"] * 3)
    code, doc = _triage(tmp_path, ("A", "A"), samples)
    assert code == 1 and "novel-undecided" in doc["records"][0]["flags"]
    assert _report(tmp_path) == 1
    (tmp_path / "vouched").mkdir()
    code, doc = _triage(tmp_path / "vouched", ("A", "A"), samples, "--capture-mode", "serial")
    (record,) = doc["records"]
    assert code == 1 and record["category"] == "inconclusive"
    assert "novel-undecided" not in record["flags"] and "unanswered" in record["flags"]
    assert _report(tmp_path / "vouched") == 1


def test_base_never_sent_in_the_mode_is_held_too(tmp_path: Path) -> None:
    code, doc = _triage(tmp_path, ("A", "A"), side("q", "patch", ["Z"] * 2))
    (record,) = doc["records"]
    assert code == 1 and "novel-undecided" in record["flags"], record["reason"]
    assert record["modes"][0]["novelty"] == 2
    assert _report(tmp_path) == 1


def test_outside_serial_the_base_s_other_modes_still_explain(tmp_path: Path) -> None:
    base = side("q", "base", ["A", "A"]) + side("q", "base", FAILED3, "concurrent")
    inside = base + side("q", "patch", ["A", "A"]) + side("q", "patch", ["A"] * 3, "concurrent")
    code, doc = _triage(tmp_path, ("A", "A"), inside)
    assert "novel-undecided" not in doc["records"][0]["flags"], doc["records"]
    # The base answered none of its concurrent requests: held for that (review69c), not this.
    assert code == 1 and "unanswered" in doc["records"][0]["flags"]
    (tmp_path / "new").mkdir()
    new = base + side("q", "patch", ["A", "A"]) + side("q", "patch", ["Z"] * 3, "concurrent")
    code, doc = _triage(tmp_path / "new", ("A", "A"), new)
    concurrent = next(m for m in doc["records"][0]["modes"] if m["mode"] == "concurrent")
    assert code == 1 and concurrent["novelty"] == 3
    assert "novel-undecided" in concurrent["flags"]


def test_no_patch_output_has_nothing_new_to_hold(tmp_path: Path) -> None:
    """Both sides failed, or the patch only: no patch output the base never gave. Equal
    captures are held unanswered (triage69: before, they passed inconclusive with exit 0);
    differing ones are unsampled."""
    shapes = {
        "both": side("q", "base", FAILED3) + side("q", "patch", FAILED3),
        "patch": side("q", "base", ["A"] * 3) + side("q", "patch", FAILED3),
    }
    for name, samples in shapes.items():
        pairs: tuple[tuple[str, str], ...] = (("A", "A"), ("A", "Z"))
        for captured in pairs:
            where = tmp_path / f"{name}-{captured[1]}"
            where.mkdir()
            code, doc = _triage(where, captured, samples)
            (record,) = doc["records"]
            assert code == 1, (name, captured, record["reason"])
            assert record["category"] == "inconclusive" and record["more_samples"] == 60
            assert "novel-undecided" not in record["flags"]
            assert ("unsampled" in record["flags"]) == (captured[1] == "Z")
            assert ("unanswered" in record["flags"]) == (captured[1] == "A")
            assert _report(where) == 1
            gated = run_k3diff(
                "triage", "cmp.json", "run/samples.jsonl", "--fail-inconclusive", cwd=where
            )
            assert gated.exit_code == 1


def test_a_forged_document_that_clears_an_unobserved_base_is_refused(tmp_path: Path) -> None:
    code, doc = _triage(
        tmp_path, ("A", "A"), side("q", "base", FAILED3) + side("q", "patch", ["Z"] * 3)
    )
    assert code == 1
    (record,) = doc["records"]
    for where in (record, *record["modes"]):
        where["flags"] = [f for f in where["flags"] if f != "novel-undecided"]
        where["novelty"] = None
    doc["summary"]["held"] = 0
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    out = run_k3diff("report", "forged.json", "--out", "forged-bundle", cwd=tmp_path)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert (
        "records[0].modes[0].novelty is None but its base gave no successful serial answer and "
        "its patch 3: each is one the base never gave (novel-undecided)"
    ) in out.stderr
