"""review61b's forgery of a dict-valued inspect_ai score whose key holds a dot (review76c): the
changed records' scores of `judge.rouge.f1` dropped and its test replaced by the kept samples'
one. records76 matched a field change `scores.NAME.value.KEY` only where KEY held no dot, so
`scores.judge.value.rouge.f1` named no metric and the forgery passed (exit 0); every split of
the path at `.value.` is now a metric it may hold, and the forgery is refused (exit 2), while
the genuine document is still read."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .test_score_roundtrip import _document, _forge, _logs

BASE, PATCH = {"rouge.f1": 1, "b": 1}, {"rouge.f1": 0, "b": 1}


def test_dropping_a_dotted_keys_changed_scores_is_refused(tmp_path: Path) -> None:
    document = _forge(tmp_path, BASE, PATCH, "judge.rouge.f1")
    (tmp_path / "f.json").write_text(json.dumps(document))
    result = run_k3diff("report", "f.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "a tested score changed (field_changes) between two scores, but the record" in (
        result.stderr
    )


def test_the_genuine_document_of_a_dotted_key_is_read(tmp_path: Path) -> None:
    _document(tmp_path, *_logs(tmp_path, BASE, PATCH))
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
