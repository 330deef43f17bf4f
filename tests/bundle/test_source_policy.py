"""The source row follows the document's own policy (source62, newuser62): `wheels --source
--waivers` exited 0 with "1 finding waived: W401", and `report` on the same document failed "source
match fails its policy", deciding from `provenance.summary` counts. The row now fails on the
W4xx findings that fail, names what was waived, left out or allowed, and the self-check ties every
file of a failing source status to its finding, so deleting that finding is no way to a pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

WAIVER = """[[waiver]]
code = "W401"
path = "demo/m.py"
reason = "reviewed: release-tool rewrite"
"""


def _setup(
    tmp_path: Path, *options: str, pyc: bool = False, code: int = 0
) -> tuple[list[str], dict[str, Any]]:
    """A repository at which demo/m.py differs from the patch wheel's (W401)."""
    make_repo(tmp_path / "src", [{"demo/__init__.py": b"", "demo/m.py": b"print('old')\n"}])
    extra = {"demo/c.pyc": b"\x00" * 16} if pyc else {}
    wheels = [
        str(
            wheelkit.make_wheel(
                tmp_path / v,
                "demo",
                v,
                {"demo/__init__.py": b"", "demo/m.py": f"print({v!r})\n".encode()}
                | (extra if v == "2.0" else {}),
            )
        )
        for v in ("1.0", "2.0")
    ]
    (tmp_path / "waivers.toml").write_text(WAIVER)
    result = run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", "HEAD", *options,
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == code, result.stdout + result.stderr
    return wheels, json.loads((tmp_path / "w.json").read_text())


def _report(tmp_path: Path, *inputs: str) -> Any:
    return run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)


def _source_row(tmp_path: Path) -> Any:
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "source match"]
    return row


def test_a_waived_mismatch_passes_report_as_it_passed_wheels(tmp_path: Path) -> None:
    wheels, _ = _setup(tmp_path, "--waivers", "waivers.toml")
    for inputs in (("w.json",), ("w.json", *wheels, "src")):
        result = _report(tmp_path, *inputs)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert _source_row(tmp_path)["status"] == "pass"
        text = (tmp_path / "bundle" / "REPORT.md").read_text()
        assert "1 mismatch" in text
        assert "1 × W401 waived (--waivers: demo/m.py)" in text


def test_an_ignored_or_unselected_mismatch_passes_report_as_it_passed_wheels(
    tmp_path: Path,
) -> None:
    for index, options in enumerate((("--ignore", "W401"), ("--select", "W101"))):
        where = tmp_path / str(index)
        wheels, _ = _setup(where, *options)
        result = _report(where, "w.json", *wheels, "src")
        assert result.exit_code == 0, (options, result.stdout + result.stderr)
        assert _source_row(where)["status"] == "pass"
        text = (where / "bundle" / "REPORT.md").read_text()
        assert "1 × W401 left out (--select/--ignore)" in text


def test_allowed_bytecode_passes_report_as_it_passed_wheels(tmp_path: Path) -> None:
    options = ("--waivers", "waivers.toml", "--allow-bytecode", "--ignore", "W705")
    wheels, document = _setup(tmp_path, *options, pyc=True)
    assert document["provenance"]["summary"]["unverifiable"] == 1
    result = _report(tmp_path, "w.json", *wheels, "src")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "1 × W405 allowed (--allow-bytecode)" in (tmp_path / "bundle" / "REPORT.md").read_text()


def test_an_unwaived_mismatch_still_fails_the_source_row(tmp_path: Path) -> None:
    _setup(tmp_path, "--waivers", "waivers.toml")
    (tmp_path / "waivers.toml").write_text(WAIVER.replace("demo/m.py", "demo/other.py"))
    result = run_k3diff(
        "wheels", "1.0/demo-1.0-py3-none-any.whl", "2.0/demo-2.0-py3-none-any.whl",
        "--source", "src", "--commit", "HEAD", "--waivers", "waivers.toml",
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1
    assert _report(tmp_path, "w.json").exit_code == 1
    row = _source_row(tmp_path)
    assert row["status"] == "FAIL"
    assert "failing: 1 × W401" in row["finding"]


def _forged(tmp_path: Path, document: dict[str, Any]) -> Any:
    (tmp_path / "forged.json").write_text(json.dumps(document))
    return _report(tmp_path, "forged.json")


def test_a_failing_mismatch_deleted_is_refused(tmp_path: Path) -> None:
    """Before, the self-check called this "self-consistent": summary and entry still say
    mismatch, and no W401 is left to fail."""
    _setup(tmp_path, code=1)  # W401 at error: wheels exits 1 ...
    document = json.loads((tmp_path / "w.json").read_text())
    assert document["verdict"]["exit_code"] == 1
    document["findings"] = [f for f in document["findings"] if f["code"] != "W401"]
    document["verdict"].update(ok=True, exit_code=0)
    result = _forged(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "entry demo/m.py has source status mismatch but no W401 finding" in result.stderr


def test_a_summary_that_disagrees_with_the_entries_is_refused(tmp_path: Path) -> None:
    _setup(tmp_path, "--waivers", "waivers.toml")
    document = json.loads((tmp_path / "w.json").read_text())
    document["provenance"]["summary"].update(mismatch=0, match=1)
    result = _forged(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "provenance.summary.match is 1 but 0 entries have source status match" in result.stderr


def test_a_recorded_waiver_the_waivers_section_does_not_list_is_refused(tmp_path: Path) -> None:
    """Before, this read "self-consistent" and the bundle said "2 waivers", naming one."""
    _setup(tmp_path, "--waivers", "waivers.toml")
    document = json.loads((tmp_path / "w.json").read_text())
    entries = document["rerun"]["waivers"]["entries"]
    entries.append({**entries[0], "number": 2, "path": "demo/__init__.py"})
    result = _forged(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert (
        "rerun.waivers records 1 waiver (2) that the waivers section neither applies nor lists"
        in result.stderr
    )
    document = json.loads((tmp_path / "w.json").read_text())
    document["waivers"]["unused"] = [{"number": 3, "code": "W401", "path": "x.py", "reason": "r"}]
    result = _forged(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "waivers lists 1 waiver (3) that rerun.waivers does not record" in result.stderr


def test_a_repository_without_wheels_says_what_it_needs(tmp_path: Path) -> None:
    _setup(tmp_path, "--waivers", "waivers.toml")
    result = _report(tmp_path, "w.json", "src")
    assert result.exit_code == 2
    assert (
        "src: a directory, read only as the --source repository of a wheels document, and used "
        "only with the two wheels of a document that checked against it: no wheels were given"
    ) in result.stderr


def test_the_label_names_the_commit_the_source_was_read_at(tmp_path: Path) -> None:
    wheels, document = _setup(tmp_path, "--waivers", "waivers.toml")
    result = _report(tmp_path, "w.json", *wheels, "src")
    assert result.exit_code == 0, result.stdout + result.stderr
    commit = document["provenance"]["commit"]
    (label,) = {d["label"] for d in _source_row(tmp_path)["documents"]}
    assert label == (
        f"w.json (cross-checked; wheels run again with its source at commit {commit}; HEAD names "
        "it in the repository given)"
    )


def test_a_failing_mismatch_relabelled_is_refused(tmp_path: Path) -> None:
    """The entry's status spelt in a word `wheels` never writes, its W401 deleted and the
    verdict made to pass: no status needed a finding, and the bundle passed (exit 0)."""
    _setup(tmp_path, code=1)
    document = json.loads((tmp_path / "w.json").read_text())
    document["findings"] = [f for f in document["findings"] if f["code"] != "W401"]
    document["verdict"].update(ok=True, exit_code=0)
    summary = document["provenance"]["summary"]
    summary["Mismatch"] = summary.pop("mismatch")
    entry = next(e for e in document["entries"] if e["path"] == "demo/m.py")
    entry["source"]["status"] = "Mismatch"
    result = _forged(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert (
        'source.status\' must be one of "absent", "generated", "left out", "match", '
        in result.stderr
    )
    assert 'not "Mismatch"' in result.stderr
