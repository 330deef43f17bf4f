"""The names a `wheels --source` document gives its revisions (`HEAD`, a tag) were the
document's word: `report` checked the source at the recorded commit by full id and said nothing
of the name (forge62). Where the repository is given, each name is now resolved in it as
`wheels --source` resolves it (`git rev-parse --verify` under the hardened environment; nothing
of the repository runs), and the bundle says whether it names the recorded commit (rerun63)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit, git, make_repo


def _setup(tmp_path: Path) -> tuple[list[str], dict[str, Any]]:
    """A repository at v1.0 (tagged), the two wheels, and `wheels --source src --commit v1.0`."""
    tree = {"demo/__init__.py": b"", "demo/m.py": b"print('2.0')\n"}
    make_repo(tmp_path / "src", [tree])
    git(tmp_path / "src", "tag", "v1.0")
    wheels = [
        str(
            wheelkit.make_wheel(
                tmp_path / v,
                "demo",
                v,
                {"demo/__init__.py": b"", "demo/m.py": f"print({v!r})\n".encode()},
            )
        )
        for v in ("1.0", "2.0")
    ]
    result = run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", "v1.0",
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    return wheels, json.loads((tmp_path / "w.json").read_text())


def _bundle(tmp_path: Path, document: Any, *inputs: str, out: str) -> tuple[str, str]:
    (tmp_path / "d.json").write_text(json.dumps(document))
    result = run_k3diff("report", "d.json", *inputs, "--out", out, cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    summary = json.loads((tmp_path / out / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "source match"]
    (label,) = {d["label"] for d in row["documents"]}
    return str(label), (tmp_path / out / "REPORT.md").read_text()


def test_a_name_that_still_names_the_recorded_commit_is_said_to(tmp_path: Path) -> None:
    wheels, document = _setup(tmp_path)
    recorded = document["provenance"]["commit"]
    label, _ = _bundle(tmp_path, document, *wheels, "src", out="b")
    assert label == (
        f"d.json (cross-checked; wheels run again with its source at commit {recorded}; v1.0 "
        "names it in the repository given)"
    )


def test_a_name_moved_or_edited_is_named_and_the_commit_checked_stays_the_recorded_one(
    tmp_path: Path,
) -> None:
    wheels, document = _setup(tmp_path)
    recorded = document["provenance"]["commit"]
    git(tmp_path / "src", "tag", "v2.0")
    moved = commit(tmp_path / "src", {"demo/m.py": b"print('3.0')\n"}, "later")
    git(tmp_path / "src", "tag", "-f", "v1.0")  # the tag moved since wheels read it
    label, said = _bundle(tmp_path, document, *wheels, "src", out="moved")
    assert label.endswith("; v1.0 names another commit in the repository given)"), label
    assert (
        f"d.json: the revision v1.0 (refs/tags/v1.0), recorded as naming commit {recorded}, names "
        f"commit {moved} in the repository given (src): its source was checked again at the "
        "recorded commit; the name is the document's word" in said
    ), said
    edited = json.loads(json.dumps(document))  # a name the repository never had
    edited["provenance"]["revisions"][0]["given"] = edited["provenance"]["rev"] = "v9"
    label, said = _bundle(tmp_path, edited, *wheels, "src", out="edited")
    assert label.endswith("; v9 names no commit in the repository given)"), label
    assert (
        f"d.json: the revision v9 (refs/tags/v1.0), recorded as naming commit {recorded}, names no commit"
        in said
    )


def test_a_commit_given_by_its_full_id_is_said_once(tmp_path: Path) -> None:
    """newuser67: the command `report` prints for a wheels document to make again names the
    recorded commit by full id (`--commit f06f38…`); the bundle of the document it writes said
    `match src at f06f38… (f06f38…)`. A revision that is the commit itself is said once; a name
    keeps the commit beside it."""
    wheels, document = _setup(tmp_path)
    recorded = document["provenance"]["commit"]
    result = run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", recorded,
        "--format", "json", "-o", "full.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    for made, where in (("full.json", recorded), ("w.json", f"v1.0 ({recorded})")):
        report = run_k3diff("report", made, "--out", f"b-{made}", cwd=tmp_path)
        assert report.exit_code == 0, report.stderr
        summary = json.loads((tmp_path / f"b-{made}" / "summary.json").read_text())
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "source match"]
        assert row["finding"].endswith(f"changed or added Python files match src at {where}"), row
