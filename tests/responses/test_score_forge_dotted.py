"""review61b's forgery of a dict-valued inspect_ai score whose key holds a dot (review76c): the
changed records' scores of `judge.rouge.f1` dropped and its test replaced by the kept samples'
one. records76 matched a field change `scores.NAME.value.KEY` only where KEY held no dot, so
`scores.judge.value.rouge.f1` named no metric and the forgery passed: 30 of 1,500 samples lost
made 0 lost of 1,470, the gate a pass, `report` exit 0. Every split of the path at `.value.` is
now a metric it may hold, and the forgery is refused (exit 2), while the genuine document is
still read."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from .eval_logs import inspect_sample, write_eval_log
from .test_score_forge_partial import report_dropped
from .test_score_gate_review import GATE, _run
from .test_score_roundtrip import _document, _logs

BASE, PATCH = {"rouge.f1": 1, "b": 1}, {"rouge.f1": 0, "b": 1}


def test_dropping_a_dotted_keys_changed_scores_is_refused(tmp_path: Path) -> None:
    samples = {
        side: [
            inspect_sample(i, 1, f"Q{i}", f"{side}{i}", {"judge": {"rouge.f1": int(keep)}})
            for i, keep in enumerate(side == "base" or i >= 30 for i in range(1500))
        ]
        for side in ("base", "patch")
    }
    for side, written in samples.items():
        write_eval_log(tmp_path / f"{side}.eval", written)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE)
    assert code == 1
    result = report_dropped(tmp_path, document)
    assert result.exit_code == 2, result.stderr
    assert "a tested score changed (field_changes) between two scores, but the record" in (
        result.stderr
    )


def test_the_genuine_document_of_a_dotted_key_is_read(tmp_path: Path) -> None:
    _document(tmp_path, *_logs(tmp_path, BASE, PATCH))
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
