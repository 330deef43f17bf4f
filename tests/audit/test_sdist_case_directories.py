"""A file beside a directory whose name differs from it only by case (or as macOS or Windows
fold names) in an sdist: one name there, so extraction cannot write both (docs77: `pkg/Data`
beside `pkg/data/` passed, exit 0; the same name exactly was A132 already)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.helpers import audit_json, codes
from audit.sdistcraft import Member, make_sdist


@pytest.mark.parametrize(
    "members",
    [
        [Member("demo-1.0/pkg/Data", b"x"), Member("demo-1.0/pkg/data/a.txt", b"a")],
        [Member("demo-1.0/pkg/data/a.txt", b"a"), Member("demo-1.0/pkg/Data", b"x")],
        [Member("demo-1.0/pkg/DATA", type=b"5"), Member("demo-1.0/pkg/data", b"x")],
        [Member("demo-1.0/pkg/data.", b"x"), Member("demo-1.0/pkg/data/a.txt", b"a")],
    ],
    ids=["file-first", "directory-first", "directory-member", "windows-dot"],
)
def test_a_file_beside_a_directory_alike_fails(tmp_path: Path, members: list[Member]) -> None:
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (1, {"A132": 1}), report
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["path"] in {m.name for m in members if m.type != b"5"}
    assert "beside the directory" in finding["detail"] and "one name on" in finding["detail"]


def test_a_directory_and_files_under_other_names_pass(tmp_path: Path) -> None:
    members = [Member("demo-1.0/pkg/data/a.txt", b"a"), Member("demo-1.0/pkg/data2", b"x")]
    code, report = audit_json(make_sdist(tmp_path, members))
    assert (code, codes(report)) == (0, {})
