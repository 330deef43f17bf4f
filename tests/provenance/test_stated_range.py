"""With `--source REPO --commits OLD..NEW`, the commit the patch wheel states must be in the range
as git reads ``OLD..NEW``: reachable from NEW and not from OLD. OLD itself, an ancestor of it, a
commit on another branch, one the repository lacks and an abbreviation naming several are W408
(failing, waivable), as with `--commit`; a stated commit in the range is said, not a finding.
A base wheel stating another commit than OLD is W409, informational: the base is the reference.

The history: c0 (README) -> A (the package) -> M (a doc) -> B (engine changed) on main, and a
branch `side` from c0. The patch wheel holds B's files exactly, so only its statement decides."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import commit, git, make_repo

A_FILES = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}
B_FILES = {**A_FILES, "pkg/engine.py": b"STEP = 2\n"}


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "repo"
    c0, a, m, b = make_repo(
        path, [{"README": b"x\n"}, A_FILES, {"doc.txt": b"d\n"}, {"pkg/engine.py": b"STEP = 2\n"}]
    )
    git(path, "checkout", "-q", "-b", "side", c0)
    side = commit(path, {"side.txt": b"s\n"}, "side")
    git(path, "checkout", "-q", "main")
    return path, {"c0": c0, "A": a, "M": m, "B": b, "side": side}


def _wheels(tmp_path: Path, patch_version: str, base_version: str = "1.0") -> list[Path]:
    base = wheelkit.make_wheel(
        tmp_path / "base", "engine", base_version, {**A_FILES, "pkg/engine.py": b"STEP = 0\n"}
    )
    return [base, wheelkit.make_wheel(tmp_path / "patch", "engine", patch_version, B_FILES)]


def _run(wheels: list[Path], repo: Path, *args: str) -> tuple[int, dict[str, object]]:
    result = run_k3diff("wheels", *wheels, "--source", repo, *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _coded(document: dict[str, object], code: str) -> list[dict[str, str]]:
    findings = document["findings"]
    assert isinstance(findings, list)
    return [f for f in findings if f["code"] == code]


@pytest.mark.parametrize(
    ("stated", "why"),
    [
        ("A", "it is OLD itself, which OLD..NEW excludes"),
        ("c0", "an ancestor of OLD"),
        ("side", "not reachable from NEW"),
    ],
)
def test_a_patch_stating_a_commit_outside_the_range_fails_w408(
    history: tuple[Path, dict[str, str]], tmp_path: Path, stated: str, why: str
) -> None:
    path, ids = history
    wheels = _wheels(tmp_path, f"1.0+g{ids[stated][:9]}")
    code, document = _run(wheels, path, "--commits", "main~2..main")
    assert code == 1
    (finding,) = _coded(document, "W408")
    span = f"OLD..NEW = {ids['A']}..{ids['B']}"
    assert finding["detail"] == (
        f"the patch wheel states commit {ids[stated][:9]} (read from "
        f"engine-1.0+g{ids[stated][:9]}.dist-info/METADATA Version), which is {ids[stated]}: "
        f"not in {span} ({why})"
    )
    assert finding["path"] == f"engine-1.0+g{ids[stated][:9]}.dist-info/METADATA"
    assert finding["severity"] == "error"
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(
        f'[[waiver]]\ncode = "W408"\npath = "{finding["path"]}"\nreason = "built from {stated}"\n'
    )
    waived = run_k3diff(
        "wheels", *wheels, "--source", path, "--commits", "main~2..main", "--waivers", waivers
    )
    assert waived.exit_code == 0, waived.stdout


def test_a_range_given_by_full_ids_names_each_once(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = history
    wheels = _wheels(tmp_path, f"1.0+g{ids['side'][:9]}")
    code, document = _run(wheels, path, "--commits", f"{ids['A']}..{ids['B']}")
    assert code == 1
    (finding,) = _coded(document, "W408")
    assert f"not in OLD..NEW = {ids['A']}..{ids['B']} (not reachable from NEW)" in finding["detail"]
    assert finding["detail"].count(ids["A"]) == 1


def test_a_stated_commit_the_repository_lacks_fails_w408_over_a_range(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, _ids = history
    code, document = _run(_wheels(tmp_path, "1.0+gdeadbeef"), path, "--commits", "main~2..main")
    assert code == 1
    (finding,) = _coded(document, "W408")
    assert finding["detail"].endswith(": not a commit in the repository")


def test_an_abbreviation_naming_two_commits_fails_w408_over_a_range(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = history
    tree = git(path, "rev-parse", f"{ids['B']}^{{tree}}")
    seen: dict[str, bytes] = {}
    for n in itertools.count():  # two commits sharing 4 hex digits (birthday)
        body = (f"tree {tree}\nparent {ids['B']}\nauthor A <a@example.com> 0 +0000\n"
                f"committer A <a@example.com> 0 +0000\n\nc{n}\n").encode()  # fmt: skip
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        if oid[:4] in seen:
            break
        seen[oid[:4]] = body
    for data in (seen[oid[:4]], body):
        git(path, "hash-object", "-t", "commit", "-w", "--stdin", stdin=data)
    code, document = _run(_wheels(tmp_path, f"1.0+g{oid[:4]}"), path, "--commits", "main~2..main")
    assert code == 1
    (finding,) = _coded(document, "W408")
    assert finding["detail"].endswith(": names 2 commits in the repository")


@pytest.mark.parametrize(("stated", "where"), [("B", "NEW itself"), ("M", "between OLD and NEW")])
def test_a_stated_commit_in_the_range_is_said_not_a_finding(
    history: tuple[Path, dict[str, str]], tmp_path: Path, stated: str, where: str
) -> None:
    path, ids = history
    wheels = _wheels(tmp_path, f"1.0+g{ids[stated][:7]}")
    code, document = _run(wheels, path, "--commits", "main~2..main")
    assert code == 0
    assert not _coded(document, "W408")
    provenance = document["provenance"]
    assert isinstance(provenance, dict)
    said = [n["message"] for n in provenance["notes"] if n["code"] == ""]
    assert said == [
        f"the patch wheel states commit {ids[stated][:7]} (read from "
        f"engine-1.0+g{ids[stated][:7]}.dist-info/METADATA Version), which is {ids[stated]}: "
        f"in OLD..NEW = {ids['A']}..{ids['B']} ({where})"
    ]
    text = run_k3diff("wheels", *wheels, "--source", path, "--commits", "main~2..main")
    assert text.exit_code == 0
    assert f"Note: {said[0]}" in text.stdout


def test_a_base_stating_another_commit_than_old_is_an_informational_w409(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = history
    wheels = _wheels(tmp_path, f"1.0+g{ids['B'][:9]}", base_version=f"1.0+g{ids['c0'][:9]}")
    code, document = _run(wheels, path, "--commits", "main~2..main")
    assert code == 0
    (finding,) = _coded(document, "W409")
    assert finding["severity"] == "info"
    assert finding["detail"] == (
        f"the base wheel states commit {ids['c0'][:9]} (read from "
        f"engine-1.0+g{ids['c0'][:9]}.dist-info/METADATA Version), which is {ids['c0']}; "
        f"OLD is {ids['A']}"
    )
    wheels = _wheels(tmp_path / "old", f"1.0+g{ids['B'][:9]}", f"1.0+g{ids['A'][:9]}")
    code, document = _run(wheels, path, "--commits", "main~2..main")
    assert code == 0 and not _coded(document, "W409")
    wheels = _wheels(tmp_path / "lacks", f"1.0+g{ids['B'][:9]}", "1.0+gdeadbeef")
    code, document = _run(wheels, path, "--commits", "main~2..main")
    (finding,) = _coded(document, "W409")
    assert code == 0 and finding["detail"].endswith(
        f"not a commit in the repository; OLD is {ids['A']}"
    )


def test_w408_names_the_commit_compared_once_by_its_full_id(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """`--commit` given as the full id is said once, not `<id> = <id>`; given by name, the
    detail names the full id alone too (the name is in `provenance.revisions` and the text's
    `Commit:` line): `report` runs the check again at the full id and compares the detail."""
    path, ids = history
    wheels = _wheels(tmp_path, f"1.0+g{ids['A'][:9]}")
    for rev in (ids["B"], "main"):
        code, document = _run(wheels, path, "--commit", rev)
        (finding,) = _coded(document, "W408")
        assert code == 1
        assert finding["detail"].endswith(f"which is {ids['A']}; compared against {ids['B']}")
        assert finding["detail"].count(ids["B"]) == 1


@pytest.mark.parametrize(
    ("args", "patch", "base", "verdict"),
    [
        (["--commit", "main"], "A", "A", 1),  # W408 on a named revision
        (["--commits", "main~2..main"], "side", "c0", 1),  # W408 and W409 over a named range
        (["--commits", "main~2..main"], "M", "c0", 0),  # said in the range, W409 (info)
        (["--commits", "main~2..main"], "B", "deadbeef", 0),  # W409: the repository lacks it
    ],
)
def test_report_given_the_repository_takes_the_document_wheels_wrote(
    history: tuple[Path, dict[str, str]],
    tmp_path: Path,
    args: list[str],
    patch: str,
    base: str,
    verdict: int,
) -> None:
    """`report` runs the source check again at the recorded full ids and compares every
    detail: a stated-commit detail naming `main`, or the repository by the path given to
    `wheels`, made it refuse the document (exit 2, base68 for W408 on `--commit main`), where
    the verdict is the document's own."""
    path, ids = history
    stated = {**ids, "deadbeef": "deadbeef"}
    wheels = _wheels(tmp_path, f"1.0+g{stated[patch][:9]}", f"1.0+g{stated[base][:9]}")
    made = run_k3diff(  # the repository by a relative path here, by an absolute one to report
        "wheels", *wheels, "--source", "repo", *args, "--format", "json", "-o", "w.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == verdict, made.stderr
    result = run_k3diff("report", "w.json", *wheels, path, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == verdict, result.stderr


def test_in_a_shallow_clone_only_new_is_placed_in_the_range(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """OLD's history cut off, an ancestor of OLD could look inside the range: a stated commit
    other than NEW cannot be shown in it, and is W408 saying so; NEW itself is said."""
    path, ids = history
    git(tmp_path, "clone", "-q", "--depth", "3", "--branch", "main", f"file://{path}", "shallow")
    shallow = tmp_path / "shallow"
    assert git(shallow, "rev-parse", "--is-shallow-repository") == "true"
    code, document = _run(_wheels(tmp_path / "m", f"1.0+g{ids['M'][:9]}"), shallow,
                          "--commits", f"{ids['A']}..{ids['B']}")  # fmt: skip
    (finding,) = _coded(document, "W408")
    assert code == 1
    assert finding["detail"].endswith("(cannot be placed in the range: the clone is shallow; "
                                      "fetch more history (git fetch --unshallow))")  # fmt: skip
    code, document = _run(_wheels(tmp_path / "b", f"1.0+g{ids['B'][:9]}"), shallow,
                          "--commits", f"{ids['A']}..{ids['B']}")  # fmt: skip
    assert code == 0 and not _coded(document, "W408")
