"""`k3diff report` runs `k3diff wheels` again on a wheels document's two wheels when they are
given beside it (forge61): a W302 (RECORD does not vouch for `demo/m.py`) deleted or relabelled,
with the verdict edited to pass, agrees with itself but not with the wheels (review61a). Read
without its wheels, the document is judged alone and the bundle says so."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

MODULE = b"print('m')\n"
ALONE = (
    "doc.json judged from the document alone: RECORD, paths and protected commands not "
    "re-derived (give report both wheels beside it: "
)


def _pair(tmp_path: Path, forged_record: bool) -> list[str]:
    files = {"demo/__init__.py": b"", "demo/m.py": MODULE}
    stale = f"demo/m.py,sha256=AAAA{wheelkit.record_hash(MODULE)[11:]},{len(MODULE)}"
    return [
        str(
            wheelkit.make_wheel(
                tmp_path / v,
                "demo",
                v,
                files,
                tool="zip",
                record_overrides={"demo/m.py": stale} if forged and forged_record else None,
            )
        )
        for v, forged in (("1.0", False), ("2.0", True))
    ]


def _document(tmp_path: Path, wheels: list[str]) -> Any:
    run_k3diff("wheels", *wheels, "--format", "json", "-o", "a.json", cwd=tmp_path)
    return json.loads((tmp_path / "a.json").read_text())


def _report(tmp_path: Path, document: Any, *wheels: str, out: str = "bundle") -> Any:
    (tmp_path / "doc.json").write_text(json.dumps(document))
    return run_k3diff("report", "doc.json", *wheels, "--out", out, cwd=tmp_path)


def _forge(document: Any, how: str) -> None:
    (finding,) = [f for f in document["findings"] if f["code"] == "W302"]
    if how == "deleted":
        document["findings"].remove(finding)
    else:
        finding.update(code=how, severity="info")
    document["verdict"].update(ok=True, exit_code=0)


@pytest.mark.parametrize("how", ["deleted", "W501"])
def test_a_w302_forged_away_is_refused_with_the_wheels(tmp_path: Path, how: str) -> None:
    wheels = _pair(tmp_path, forged_record=True)
    document = _document(tmp_path, wheels)
    assert document["verdict"]["exit_code"] == 1
    _forge(document, how)
    result = _report(tmp_path, document, *wheels)
    assert result.exit_code == 2, result.stderr
    assert "doc.json: does not follow from the wheels given with it" in result.stderr
    assert "findings" in result.stderr


def test_a_w302_deleted_is_named_document_alone_without_the_wheels(tmp_path: Path) -> None:
    wheels = _pair(tmp_path, forged_record=True)
    document = _document(tmp_path, wheels)
    _forge(document, "deleted")
    result = _report(tmp_path, document)
    assert result.exit_code == 0, result.stderr  # all the document shows
    summary = (tmp_path / "bundle" / "summary.json").read_text()
    assert ALONE in summary
    for name in ("REPORT.md", "report.html"):
        assert ALONE in (tmp_path / "bundle" / name).read_text()
    # newuser72: "give report both wheels" named neither; the wheels the document records are
    # named, and the report given them, as said, runs the wheels again.
    (said,) = [q for q in json.loads(summary)["qualifications"] if ALONE in q]
    assert said.endswith(f"{ALONE}{wheels[0]} and {wheels[1]})"), said
    again = _report(tmp_path, document, *wheels, out="again")
    assert again.exit_code == 2 and "does not follow from the wheels" in again.stderr


def test_a_genuine_document_with_its_wheels_passes_and_reads_the_same(tmp_path: Path) -> None:
    wheels = _pair(tmp_path, forged_record=False)
    document = _document(tmp_path, wheels)
    with_wheels = _report(tmp_path, document, *wheels, out="with")
    alone = _report(tmp_path, document, out="alone")
    assert with_wheels.exit_code == 0 and alone.exit_code == 0, with_wheels.stderr
    kept = (tmp_path / "with" / "REPORT.md").read_text()
    assert ALONE not in kept
    lines = (tmp_path / "alone" / "REPORT.md").read_text().splitlines()
    marked = [line for line in lines if ALONE not in line]
    plain = [  # labels61: alone, it is judged alone, never said to be cross-checked
        line.replace("(cross-checked; wheels run again)", "(judged alone: self-consistent)")
        .replace(
            "| yes |", "| no (judged alone) |" if line.startswith("| doc.json |") else "| yes |"
        )
        .replace("policy (1 document)", "policy (1 document, 1 judged alone)")  # polish62b
        for line in kept.splitlines()
        if "wheel (k3diff wheels run again on it)" not in line
    ]
    assert marked == plain
    summary = json.loads((tmp_path / "with" / "summary.json").read_text())
    summary["inputs"] = summary["inputs"][:1]
    summary["inputs"][0].update(cross_checked=False, judged_alone=True)
    for row in summary["matrix"]:
        for doc in row["documents"]:
            doc["cross_checked"] = doc["name"] != "doc.json" and doc["cross_checked"]
    alone_summary = json.loads(
        json.dumps(summary)
        .replace("(cross-checked; wheels run again)", "(judged alone: self-consistent)")
        .replace("policy (1 document)", "policy (1 document, 1 judged alone)")
    )
    assert _without(json.loads((tmp_path / "alone" / "summary.json").read_text())) == alone_summary


def test_the_bundle_says_it_ran_wheels_again_and_lists_both_wheels(tmp_path: Path) -> None:
    """The "from" column and the Inputs table show the rerun (polish61c): before, a document
    given with its wheels read `doc.json (cross-checked)` as one given alone, wheels unlisted."""
    wheels = _pair(tmp_path, forged_record=False)
    result = _report(tmp_path, _document(tmp_path, wheels), *wheels)
    assert result.exit_code == 0, result.stderr
    digests = {w: hashlib.sha256(Path(w).read_bytes()).hexdigest() for w in wheels}
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    rows = {row["name"]: row for row in summary["inputs"]}
    for wheel, digest in digests.items():
        assert rows[wheel]["sha256"] == digest
        assert rows[wheel]["size"] == Path(wheel).stat().st_size
    for name in ("REPORT.md", "report.html"):
        text = (tmp_path / "bundle" / name).read_text()
        assert "doc.json (cross-checked; wheels run again)" in text
        for wheel, digest in digests.items():
            assert Path(wheel).name in text and digest in text
    labels = [d["label"] for row in summary["matrix"] for d in row["documents"]]
    assert "doc.json (cross-checked; wheels run again)" in labels


def _without(value: Any) -> Any:
    """`value` less every string that holds the document-alone qualification."""
    if isinstance(value, dict):
        return {k: _without(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without(v) for v in value if not (isinstance(v, str) and ALONE in v)]
    return value


def test_a_wheel_no_document_compared_is_refused(tmp_path: Path) -> None:
    wheels = _pair(tmp_path, forged_record=False)
    document = _document(tmp_path, wheels)
    other = wheelkit.make_wheel(tmp_path / "3.0", "demo", "3.0", {"demo/__init__.py": b"y\n"})
    result = _report(tmp_path, document, *wheels, str(other))
    assert result.exit_code == 2
    assert (
        f"{other}: no wheels document given compares it with another of the wheels given (give "
        "both wheels the document names" in result.stderr
    )


def test_one_wheel_of_two_says_to_give_both(tmp_path: Path) -> None:
    wheels = _pair(tmp_path, forged_record=False)
    result = _report(tmp_path, _document(tmp_path, wheels), wheels[0])
    assert result.exit_code == 2
    assert "compares it with another of the wheels given (give both wheels" in result.stderr


def test_a_console_script_s_w703_relabelled_w707_is_refused_with_the_wheels(
    tmp_path: Path,
) -> None:
    """A generated console script named `pip` takes over pip (W703); relabelled W707 it reads
    as a harmless new command, and the protected set is not in the document."""
    entry_points = b"[console_scripts]\npip = demo:main\n"
    wheels = [
        str(wheelkit.make_wheel(tmp_path / v, "demo", v, files, tool="zip"))
        for v, files in (
            ("1.0", {"demo/__init__.py": b""}),
            ("2.0", {"demo/__init__.py": b"", "demo-2.0.dist-info/entry_points.txt": entry_points}),
        )
    ]
    document = _document(tmp_path, wheels)
    taken = [f for f in document["findings"] if f["code"] == "W703"]
    assert taken
    for finding in taken:
        finding.update(code="W707", severity="info")
    document["verdict"].update(ok=True, exit_code=0)
    result = _report(tmp_path, document, *wheels)
    assert result.exit_code == 2, result.stderr

    assert "doc.json: does not follow from the wheels given with it" in result.stderr
    assert 'run again "W703"' in result.stderr


def test_a_document_judged_alone_is_not_said_to_be_cross_checked(tmp_path: Path) -> None:
    """labels61 (newuser61c): alone, the matrix read `doc.json (cross-checked)` and Inputs
    cross-checked: yes, of a document checked only against itself."""
    wheels = _pair(tmp_path, forged_record=False)
    result = _report(tmp_path, _document(tmp_path, wheels), out="alone")
    assert result.exit_code == 0, result.stderr
    for name in ("REPORT.md", "report.html", "summary.json"):
        text = (tmp_path / "alone" / name).read_text()
        assert "doc.json (judged alone: self-consistent)" in text, name
        assert "doc.json (cross-checked" not in text, name
    for name in ("REPORT.md", "report.html"):
        assert "no (judged alone)" in (tmp_path / "alone" / name).read_text(), name
    summary = json.loads((tmp_path / "alone" / "summary.json").read_text())
    assert summary["inputs"][0]["cross_checked"] is False
    assert summary["inputs"][0]["judged_alone"] is True
    import jsonschema

    from k3diff.documents.catalog import load_schema

    jsonschema.validate(summary, load_schema("report"), cls=jsonschema.Draft202012Validator)


def test_the_result_line_counts_what_the_verdict_stands_on(tmp_path: Path) -> None:
    # The one line a CI log keeps says how many documents were judged alone and how many
    # qualifications REPORT.md holds, so an exit 0 is never read as "everything re-derived".
    wheels = _pair(tmp_path, forged_record=False)
    document = _document(tmp_path, wheels)
    alone = _report(tmp_path, document, out="alone")
    assert alone.exit_code == 0, alone.stderr
    said = alone.stdout + alone.stderr
    assert "1 document judged alone: read alone/REPORT.md" in said, said
    again = _report(tmp_path, document, *wheels, out="again")
    assert again.exit_code == 0, again.stderr
    assert "judged alone" not in again.stdout + again.stderr
