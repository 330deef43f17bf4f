"""A triage made at an α above the house's voids a first-token test its premise would let run
at the house α (review62). The premise (the base's own first tokens follow its reports) is
checked at the document's α: at `--alpha 0.2` a base_own p_adjusted of 0.062 voids the test,
at 0.05 it holds and the test runs. On these logs the patch samples a sharper first-token
distribution than the base reports: triage at 0.05 makes p1 and p2 regression candidates,
triage at 0.2 voids every first-token test and passes, and `report` exited 0 on it, with the
comparison and logs or without. The premise checks are corrected among themselves, so their
p does not depend on α: where the house α would run a test the document voided, the document
does not carry its result, and the record is not cleared. Each triage asks for the `--shift` its
samples can support at the house α since mmdpower75 (0.7 at 20 a side, 0.5 at 40): at the default
35 % every record would be held no-power, whatever its premise."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from triage.firsttokens import SHARPER, write_run

MID = {" The": 0.62, " A": 0.2, " It": 0.12, " In": 0.06}
"""What the base samples while reporting `firsttokens.BASE`: close enough that its premise
check passes at 0.05 on two of the three prompts of seed 2."""


def test_a_first_token_test_voided_at_alpha_0_2_is_not_cleared_at_the_house_alpha(
    tmp_path: Path,
) -> None:
    cmp, log = write_run(tmp_path, 2, SHARPER, n=20, base_samples=MID)
    for alpha, code in (("0.05", 1), ("0.2", 0)):
        made = run_k3diff(
            "triage", str(cmp), str(log), "--alpha", alpha, "--shift", "0.7", "--format", "json",
            "-o", f"t{alpha}.json", cwd=tmp_path,
        )  # fmt: skip
        assert made.exit_code == code, made.stderr
    document = json.loads((tmp_path / "t0.2.json").read_text())
    premises = {
        r["key"]: r["modes"][0]["distribution"]["first_token"]["base_own"]["p_adjusted"]
        for r in document["records"]
    }
    assert 0.05 < premises["p1"] <= 0.2 and 0.05 < premises["p2"] <= 0.2
    for inputs in (("cmp.json", "run/samples.jsonl"), ()):
        result = run_k3diff("report", *inputs, "t0.2.json", "--out", "b", cwd=tmp_path)
        assert result.exit_code == 1, result.stderr
        summary = json.loads((tmp_path / "b" / "summary.json").read_text())
        line = summary["bottom_line"][1]
        assert "at the house α" in line and "t0.2.json fails" in line, line
        for key in ("p1", "p2"):
            assert (
                f"{key} (serial, written both-nondeterministic): the first-token test, voided at "
                f"α = 0.2 by its premise (the base's own first tokens, p_adjusted "
                f"{premises[key]:.3g} > α = 0.05), runs at the house α"
            ) in line, line
        assert "p3 (serial" not in line  # its premise fails at 0.05 too


def test_given_its_logs_the_house_alpha_reading_is_run_again_and_decides(tmp_path: Path) -> None:
    """rerun62: with the comparison and logs given, triage runs again at 0.05 on them, and the
    records fail because that run makes them regression candidates (the house α's reading
    decides), not because the document lacks the result; without them, review62's "not
    cleared" stands."""
    cmp, log = write_run(tmp_path, 2, SHARPER, n=20, base_samples=MID)
    made = run_k3diff(
        "triage", str(cmp), str(log), "--alpha", "0.2", "--shift", "0.7", "--format", "json",
        "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    given = run_k3diff("report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
                       cwd=tmp_path)  # fmt: skip
    assert given.exit_code == 1, given.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    line = summary["bottom_line"][1]
    for key in ("p1", "p2"):
        assert (
            f"{key} (serial, written both-nondeterministic): the first-token test, voided at α = "
            "0.2 by its premise"
        ) in line, line
        assert f"{key} (serial, written both-nondeterministic): the first-token test" in line
    assert "triage run again at α = 0.05 on the logs given makes it a regression candidate" in line
    assert "the house α's reading decides" in line and "not in the document" not in line, line
    follow = [row for row in summary["matrix"] if "t.json" in json.dumps(row)]
    assert follow and follow[0]["status"] == "FAIL", follow
    alone = run_k3diff("report", "t.json", "--out", "c", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stderr
    line = json.loads((tmp_path / "c" / "summary.json").read_text())["bottom_line"][1]
    assert "its result is not in the document, so not cleared" in line, line
    assert "run again" not in line, line


def test_given_its_logs_a_record_the_house_alpha_clears_is_cleared(tmp_path: Path) -> None:
    """rerun62: where triage run again at 0.05 runs the voided first-token test and it finds
    nothing (the patch samples what the base samples, close to what it reports: the premise of
    p2 fails at 0.2, p_adjusted 0.136, and holds at 0.05), the document's reading decides, and
    the bundle says so; read alone, the same document is not cleared (review62). Its --shift
    0.5, laxer than the house's, holds its records no-power all the same (hunt76)."""
    near = {" The": 0.5, " A": 0.27, " It": 0.15, " In": 0.08}
    cmp, log = write_run(tmp_path, 5, near, n=40, base_samples=near)
    made = run_k3diff(
        "triage", str(cmp), str(log), "--alpha", "0.2", "--shift", "0.5", "--format", "json",
        "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    given = run_k3diff("report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b",
                       cwd=tmp_path)  # fmt: skip
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    text = json.dumps(summary, ensure_ascii=False)
    assert (
        "t.json: triage run again at the house α = 0.05 on the logs given ran the first-token "
        "tests its α = 0.2 voided by their premise (p2 serial) and fails none of them: the "
        "document's reading decides"
    ) in text, text
    # The α's reading clears it; its --shift 0.5 does not (hunt76): at 40 a side its tests
    # detect about 40 % of the answers moved, above the house --shift 35 %.
    assert given.exit_code == 1, (given.stderr, summary["bottom_line"])
    assert "at the house --shift 35 % and --power 80 % (the document's 50 % and 80 %)" in text
    alone = run_k3diff("report", "t.json", "--out", "c", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stderr
