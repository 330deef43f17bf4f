"""review61b: the scores of only the changed records dropped, with the score test edited to
match (30 lost of 1,500 made 0 lost of 1,470, p 1, the gate a pass): `report` recounted the
tests from the records that kept their scores and exited 0. A record whose tested score
changed in its field changes but that carries no scores is refused (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from .test_score_gate_review import _forge_unchanged, thirty_lost_of_1500


def report_dropped(tmp_path: Path, document: dict[str, Any]) -> CliResult:
    """`report` of `document` (30 of 1,500 lost) forged: the first 30 records' scores dropped,
    the test and gate edited to 0 lost of 1,470 and a pass (review61b)."""
    from k3diff.responses.scoretests import mcnemar_mde

    mde = mcnemar_mde(1470, 0, 0.05, 0.8)
    forged = _forge_unchanged(document, 1.0, mde, n=1470)
    forged["score_gate"]["decisions"][0].update(n=1470)
    for record in forged["records"][:30]:
        del record["scores"]
    (tmp_path / "f.json").write_text(json.dumps(forged))
    return run_k3diff("report", "f.json", "--out", "b", cwd=tmp_path)


def test_dropping_the_changed_records_scores_is_refused(tmp_path: Path) -> None:
    document = thirty_lost_of_1500(tmp_path)
    (tmp_path / "d.json").write_text(json.dumps(document))
    honest = run_k3diff("report", "d.json", "--out", "a", cwd=tmp_path)
    assert honest.exit_code == 1, honest.stderr
    result = report_dropped(tmp_path, document)
    assert result.exit_code == 2, result.stderr
    assert "a tested score changed (field_changes) between two scores, but the record" in (
        result.stderr
    )
