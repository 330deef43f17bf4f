"""A triage made at an α above the house's voids a first-token test its premise would let run
at the house α (review62). The premise (the base's own first tokens follow its reports) is
checked at the document's α: at `--alpha 0.2` a base_own p_adjusted of 0.062 voids the test,
at 0.05 it holds and the test runs. On these logs the patch samples a sharper first-token
distribution than the base reports: triage at 0.05 makes p1 and p2 regression candidates,
triage at 0.2 voids every first-token test and passes, and `report` exited 0 on it, with the
comparison and logs or without. The premise checks are corrected among themselves, so their
p does not depend on α: where the house α would run a test the document voided, the document
does not carry its result, and the record is not cleared."""

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
            "triage", str(cmp), str(log), "--alpha", alpha, "--format", "json", "-o",
            f"t{alpha}.json", cwd=tmp_path,
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
