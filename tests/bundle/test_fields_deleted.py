"""A field deleted from a document given with its inputs is a difference (review62): report
compared a document with the one its command writes again only in the fields the document
has, so `summary.lm_eval` (the per-metric flips), every record's `base`, a wheels document's
`execution_surfaces` or a triage mode's `requests` could be deleted and the document still
read `cross-checked`, while the bundle lost what they said. Only a field an older k3diff did
not write may be absent, and only from a document that says it is older (a triage lacking,
everywhere, a field triage has written since it was added)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from responses.test_score_gate import GATE, SIDES, _lm_eval

from bundle.test_rederive import _base_flaky


def _deleted(document: dict[str, Any], path: str) -> dict[str, Any]:
    """`document` without `path` (`a.b`; `records[].base`: in every item)."""
    forged: dict[str, Any] = json.loads(json.dumps(document))
    holders: list[Any] = [forged]
    steps = path.split(".")
    for step in steps[:-1]:
        key = step.removesuffix("[]")
        holders = [h[key] for h in holders]
        if step.endswith("[]"):
            holders = [item for items in holders for item in items]
    for holder in holders:
        del holder[steps[-1]]
    return forged


@pytest.mark.parametrize(
    "path",
    ["summary.lm_eval", "records[].base", "records[].divergence", "summary.scores.one_sided"],
)
def test_a_responses_field_deleted_is_refused_with_the_inputs(tmp_path: Path, path: str) -> None:
    _lm_eval(tmp_path, 220, lost=12, gained=2)
    made = run_k3diff("responses", *SIDES, *GATE, "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    (tmp_path / "d.json").write_text(json.dumps(_deleted(json.loads(made.stdout), path)))
    result = run_k3diff("report", "d.json", *SIDES, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "d.json: does not follow from the inputs given with it" in result.stderr
    assert "absent from the document, run again" in result.stderr
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    "path",
    ["execution_surfaces", "base.version", "entries[].installed_path", "verdict.verified_streams"],
)
def test_a_wheels_field_deleted_is_refused_with_the_wheels(tmp_path: Path, path: str) -> None:
    import wheelkit

    files = {"demo/__init__.py": b"", "demo/_n.so": b"\x7fELF" + b"\0" * 60}
    changed = {**files, "demo/_n.so": b"\x7fELF" + b"\2" * 60, "demo-x.pth": b"import os\n"}
    wheels = [
        str(wheelkit.make_wheel(tmp_path / v, "demo", v, contents, tool="zip"))
        for v, contents in (("1.0", files), ("2.0", changed))
    ]
    made = run_k3diff("wheels", *wheels, "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    (tmp_path / "d.json").write_text(json.dumps(_deleted(json.loads(made.stdout), path)))
    result = run_k3diff("report", "d.json", *wheels, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "d.json: does not follow from the wheels given with it" in result.stderr
    assert f"{path.replace('[]', '[0]')}: absent from the document" in result.stderr


def test_a_triage_field_deleted_is_refused_unless_the_document_says_it_is_older(
    tmp_path: Path,
) -> None:
    _base_flaky(tmp_path)
    document = json.loads((tmp_path / "triage.json").read_text())
    older = (
        "summary.unsampled",
        "records[].modes[].sampled",
        "shift",
        "records[].modes[].requests",
        "model_check",
        "gaugeless",
        "summary.unanswered",
        "metrics_url_404",
        "metrics_url_no_gauge",
        "runs[].asked",
        "allow_same_server",
    )
    for paths, refused in (
        # added last: an older document lacks it (server71: run again without the option,
        # which made no difference here: base and patch are two servers)
        (older[-1:], False),
        # and the one before it (triage70: the bundle then says its logs' records lacking
        # every line were not checked)
        (older[-2:], False),
        # and the one before it (the bundle then words the unproven records' advice as
        # before: none here)
        (older[-3:], False),
        (older[-5:], False),  # and the ones before it (left69)
        (older[-6:], False),  # and `gaugeless` (telem68)
        # and the one before it (run again without the model check, which made no
        # difference here: the captures' model is the samples')
        (older[-7:], False),
        (older[-8:], False),
        (older, False),  # and the oldest lacks them all
        (("runs[].asked",), True),  # the document holds `allow_same_server`
        (("metrics_url_no_gauge",), True),  # the document holds `runs[].asked`
        (("metrics_url_404",), True),  # the document holds `metrics_url_no_gauge`
        (("summary.unanswered",), True),  # and the fields added after it
        (("gaugeless",), True),
        (("model_check",), True),  # the document holds `gaugeless`, added after it
        (("records[].modes[].requests",), True),  # the document holds `model_check`
        (("records[].modes[].reason",), True),  # written by every triage/1
        (("qualifications",), True),
        (("shift",), True),  # the document holds `requests`, added after it: not older
        (("summary.unsampled",), True),  # nor is it older without this one alone
    ):
        forged = document
        for path in paths:
            forged = _deleted(forged, path)
        (tmp_path / "t.json").write_text(json.dumps(forged))
        result = run_k3diff(
            "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
        )
        assert result.exit_code == (2 if refused else 0), (paths, result.stderr)
        if refused:
            assert "t.json: does not follow from the evidence given with it" in result.stderr
            assert f"{paths[0].replace('[]', '[0]')}: absent from the document" in result.stderr


def test_older_lacks_names_the_first_field_lacked_everywhere_and_the_later_ones() -> None:
    from k3diff.bundle.rederive import ADDED, first_difference, older_lacks

    modes = [{"sampled": True, "requests": []}, {"sampled": False}]
    current = {
        "summary": {"unsampled": 0, "unanswered": 0},
        "shift": 0.35,
        "model_check": True,
        "gaugeless": [],
        "metrics_url_404": [],
        "metrics_url_no_gauge": [],
        "runs": [{"asked": None}],
        "allow_same_server": False,
        "records": [{"modes": modes}],
    }
    assert older_lacks(current, ADDED) == frozenset()  # one mode has `requests`
    older = {"summary": {"unsampled": 0}, "records": [{"modes": [{"sampled": True}]}]}
    assert older_lacks(older, ADDED) == frozenset(ADDED[2:])
    # `shift` deleted from a document holding `requests`, added after it: not older.
    assert older_lacks({k: v for k, v in current.items() if k != "shift"}, ADDED) == frozenset()
    assert (
        first_difference({"a": [{}]}, {"a": [{"b": 1}]})
        == "a[0].b: absent from the document, run again 1"
    )
    assert first_difference({"a": [{}]}, {"a": [{"b": 1}]}, may_lack=frozenset({"a[].b"})) is None
