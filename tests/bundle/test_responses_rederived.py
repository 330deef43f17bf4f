"""`k3diff report` runs `k3diff responses` again on a comparison's two inputs when they are given
beside it, tied by the SHA-256 each side records (forge61b): review61b's forgery (30 of 1,500
inspect scores lost, every record's scores and field changes edited to no loss, the test and
gate re-decided into a pass) agrees with itself, but not with the logs. Read without its inputs,
the document is judged alone and the bundle says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from responses.test_score_gate_review import _forge_unchanged, thirty_lost_of_1500

ALONE = (
    "d.json judged from the document alone: texts and scores not re-derived (give report its "
    "two captures beside it: base.eval and patch.eval)"
)


def _logs(tmp_path: Path) -> dict[str, Any]:
    return thirty_lost_of_1500(tmp_path)


def _forged(document: dict[str, Any]) -> dict[str, Any]:
    """review61b: the lost scores edited into kept ones, in the scores and field changes alike."""
    from k3diff.responses.scoretests import mcnemar_mde

    mde = mcnemar_mde(1500, 0, 0.05, 0.8)
    forged = _forge_unchanged(document, 1.0, mde)
    for record in forged["records"][:30]:
        record["scores"] = [["match", None, 1, 1]]
        record["field_changes"] = [
            c for c in record["field_changes"] if "score" not in str(c.get("path"))
        ]
    return forged


def test_review61b_forgery_passes_alone_and_is_refused_with_the_logs(tmp_path: Path) -> None:
    forged = _forged(_logs(tmp_path))
    (tmp_path / "d.json").write_text(json.dumps(forged))
    alone = run_k3diff("report", "d.json", "--out", "a", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr  # all the document shows
    assert ALONE in (tmp_path / "a" / "summary.json").read_text()
    result = run_k3diff("report", "d.json", "base.eval", "patch.eval", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "d.json: does not follow from the inputs given with it" in result.stderr
    assert "responses run again on base.eval and patch.eval: records[0]." in result.stderr
    assert not (tmp_path / "b").exists()


def test_the_genuine_document_with_its_inputs_is_believed(tmp_path: Path) -> None:
    document = _logs(tmp_path)
    assert len(document["base"]["sha256"]) == 64 and document["base"]["size"] > 0
    (tmp_path / "d.json").write_text(json.dumps(document))
    (tmp_path / "sub").mkdir()
    for name in ("base.eval", "patch.eval"):  # given from elsewhere: tied by digest, not path
        (tmp_path / "sub" / name).write_bytes((tmp_path / name).read_bytes())
    result = run_k3diff(
        "report", "d.json", "sub/base.eval", "sub/patch.eval", "--out", "b", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr  # the score drop, believed
    assert ALONE not in (tmp_path / "b" / "summary.json").read_text()


def test_jsonl_inputs_are_told_from_samples_logs_by_digest(tmp_path: Path) -> None:
    rows = [{"key": f"k{i}", "prompt": f"p{i}", "text": f"t{i}"} for i in range(5)]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rows[2]["text"] = "other"
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    made = run_k3diff("responses", "b.jsonl", "p.jsonl", "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads(made.stdout)
    (tmp_path / "d.json").write_text(made.stdout)
    given = run_k3diff("report", "d.json", "b.jsonl", "p.jsonl", "--out", "a", cwd=tmp_path)
    assert given.exit_code == 1, given.stderr
    # An input no document names is read as today (a samples log), and refused as one.
    (tmp_path / "x.jsonl").write_text(json.dumps({"key": "z"}) + "\n" + json.dumps({}) + "\n")
    stray = run_k3diff("report", "d.json", "x.jsonl", "--out", "b", cwd=tmp_path)
    assert stray.exit_code == 2 and "x.jsonl" in stray.stderr, stray.stderr
    # One side given alone is refused: both are needed to run the comparison again.
    one = run_k3diff("report", "d.json", "b.jsonl", "--out", "c", cwd=tmp_path)
    assert one.exit_code == 2, one.stderr
    digests = {side: document[side]["sha256"][:16] for side in ("base", "patch")}
    assert one.stderr.startswith(
        "k3diff: error: p.jsonl: missing (d.json records it as its patch input, SHA-256 "
        f"{digests['patch']}…; no file given holds those bytes or has that name); give report "
        "the inputs d.json was made from (or d.json alone), or run `k3diff responses b.jsonl "
        "p.jsonl --format json -o d.json` again to bring d.json up to date"
    ), one.stderr
    # Edited in place: not "p.jsonl: ..., given without its base" (polish62b), but b.jsonl
    # named as changed since, with both SHA-256 (report67).
    (tmp_path / "b.jsonl").write_text((tmp_path / "b.jsonl").read_text() + "\n")
    edited_in_place = run_k3diff(
        "report", "d.json", "b.jsonl", "p.jsonl", "--out", "c", cwd=tmp_path
    )
    assert edited_in_place.exit_code == 2, edited_in_place.stderr
    assert edited_in_place.stderr.startswith(
        "k3diff: error: b.jsonl: changed since d.json recorded it as its base input (SHA-256 "
        f"{digests['base']}… recorded, "
    ), edited_in_place.stderr
    (tmp_path / "b.jsonl").write_text((tmp_path / "b.jsonl").read_text()[:-1])
    # A text edited in the document (the texts' hash) does not follow from the captures.
    for side in ("base", "patch"):
        document["records"][0][side]["text_xxh3"] = "0" * 16
    (tmp_path / "e.json").write_text(json.dumps(document))
    edited = run_k3diff("report", "e.json", "b.jsonl", "p.jsonl", "--out", "d", cwd=tmp_path)
    assert edited.exit_code == 2, edited.stderr
    assert "records[0].base.text_xxh3" in edited.stderr


def test_an_older_document_without_digests_given_with_inputs_is_refused(tmp_path: Path) -> None:
    document = _logs(tmp_path)
    for side in ("base", "patch"):
        del document[side]["sha256"]
        del document[side]["size"]
    (tmp_path / "d.json").write_text(json.dumps(document))
    result = run_k3diff("report", "d.json", "base.eval", "patch.eval", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "records no SHA-256 of its inputs" in result.stderr


def test_a_rerun_is_marked_and_lists_both_inputs_and_alone_is_not_cross_checked(
    tmp_path: Path,
) -> None:
    """labels61: given its inputs, the bundle said what it says of the document alone (less the
    qualification); alone, it said `d.json (cross-checked)` of a document checked only against
    itself."""
    import hashlib

    (tmp_path / "d.json").write_text(json.dumps(_logs(tmp_path)))
    again = run_k3diff("report", "d.json", "base.eval", "patch.eval", "--out", "b", cwd=tmp_path)
    alone = run_k3diff("report", "d.json", "--out", "a", cwd=tmp_path)
    assert again.exit_code == 1 and alone.exit_code == 1, again.stderr + alone.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    rows = {row["name"]: row for row in summary["inputs"]}
    for name in ("base.eval", "patch.eval"):
        data = (tmp_path / name).read_bytes()
        assert rows[name]["sha256"] == hashlib.sha256(data).hexdigest()
        assert rows[name]["size"] == len(data)
    for out, label in (
        ("b", "d.json (cross-checked; responses run again)"),
        ("a", "d.json (judged alone: self-consistent)"),
    ):
        for name in ("REPORT.md", "report.html", "summary.json"):
            text = (tmp_path / out / name).read_text()
            assert label in text and "d.json (cross-checked)" not in text, (out, name)
    alone_summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert alone_summary["inputs"][0]["cross_checked"] is False
    assert alone_summary["inputs"][0]["judged_alone"] is True
    assert "no (judged alone)" in (tmp_path / "a" / "REPORT.md").read_text()
    assert "no (judged alone)" in (tmp_path / "a" / "report.html").read_text()


def test_a_rerun_object_without_a_field_is_refused_naming_it(tmp_path: Path) -> None:
    """review63b 1c's wording for responses documents: the field is named, not a KeyError."""
    document = _logs(tmp_path)
    del document["rerun"]["logprob_tol"]
    (tmp_path / "d.json").write_text(json.dumps(document))
    result = run_k3diff("report", "d.json", "base.eval", "patch.eval", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "rerun lacks its 'logprob_tol' field" in result.stderr, result.stderr
    assert "KeyError" not in result.stderr


def test_alone_it_names_the_captures_to_give_as_a_command_run_here_finds_them(
    tmp_path: Path,
) -> None:
    """newuser72: "give report both inputs" named no file; a newcomer who wrote the comparison
    into another directory did not know which files to give. The qualification names the two
    captures as the report's reader looks for them, and giving those, as said, cross-checks."""
    rows = [{"key": f"k{i}", "prompt": f"p{i}", "text": f"t{i}"} for i in range(3)]
    for name in ("b.jsonl", "p.jsonl"):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "out").mkdir()
    made = run_k3diff(
        "responses", "b.jsonl", "p.jsonl", "--format", "json", "-o", "out/d.json", cwd=tmp_path
    )
    assert made.exit_code == 0, made.stderr
    alone = run_k3diff("report", "out/d.json", "--out", "a", cwd=tmp_path)
    assert alone.exit_code == 0, alone.stderr
    said = json.loads((tmp_path / "a" / "summary.json").read_text())["qualifications"]
    named = (
        "out/d.json judged from the document alone: texts and scores not re-derived (give report"
        " its two captures beside it: b.jsonl and p.jsonl)"
    )
    assert named in said, said
    given = run_k3diff("report", "out/d.json", "b.jsonl", "p.jsonl", "--out", "b", cwd=tmp_path)
    assert given.exit_code == 0, given.stderr
    assert "judged from the document alone" not in (tmp_path / "b" / "REPORT.md").read_text()
