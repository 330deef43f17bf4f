"""A tree nested 100,000 deep makes `git ls-tree` overflow its stack and die without a word. The
source check walks a commit's trees itself since review62c (`provenance.trees`, to hash each
one), one level at a time without recursion; a git that dies still ends in one line saying how
(`failure_message`). That walk kept every level's whole path: 100,000 levels took 11 GB and
80 s (review67). A path longer than PATH_MAX (4,096 bytes), which no checkout can hold, is now
refused as the walk reaches it, and so is a commit naming more than a million entries (a small
tree named a hundred times, level after level)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.provenance.gitrun import failure_message
from provenance.repokit import git, make_repo

DEPTH = 3_000
"""Levels of `d/`: 6,000 bytes of path, past PATH_MAX (100,000 took 11 GB before review67)."""


def _write_object(repo: Path, kind: str, body: bytes) -> str:
    """A loose object written directly (100,000 `git mktree` runs would take minutes)."""
    data = f"{kind} {len(body)}\0".encode() + body
    oid = hashlib.sha1(data).hexdigest()
    path = repo / ".git" / "objects" / oid[:2] / oid[2:]
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(zlib.compress(data, 1))
    return oid


def _deep_commit(repo: Path) -> str:
    blob = _write_object(repo, "blob", b"X = 2\n")
    tree = _write_object(repo, "tree", b"100644 __init__.py\0" + bytes.fromhex(blob))
    tree = _write_object(repo, "tree", b"40000 pkg\0" + bytes.fromhex(tree))
    for _ in range(DEPTH):
        tree = _write_object(repo, "tree", b"40000 d\0" + bytes.fromhex(tree))
    head = git(repo, "rev-parse", "HEAD")
    return git(repo, "commit-tree", tree, "-p", head, "-m", "deep")


def test_a_path_no_checkout_can_hold_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/__init__.py": b""}])
    deep = _deep_commit(repo)
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {"pkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", {"pkg/__init__.py": b"X = 2\n"})
    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", deep)
    assert result.exit_code == 2, result.stdout
    assert f"commit {deep} holds a path longer than 4,096 bytes (d/d/d/" in result.stderr
    assert result.stderr.endswith("which no checkout can hold: its files are not listed\n")


def test_a_tree_naming_one_subtree_again_and_again_is_refused(tmp_path: Path) -> None:
    """Three trees of 101 entries, each naming the next 101 times: 101^3 files (a repository of
    some 60 KB; one level more names 10^8, and k3diff would hold every path)."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/__init__.py": b""}])
    blob = _write_object(repo, "blob", b"X = 2\n")
    tree = _write_object(repo, "tree", b"".join(
        b"100644 f%03d.py\0" % n + bytes.fromhex(blob) for n in range(101)))  # fmt: skip
    for _ in range(2):
        tree = _write_object(repo, "tree", b"".join(
            b"40000 d%03d\0" % n + bytes.fromhex(tree) for n in range(101)))  # fmt: skip
    bomb = git(repo, "commit-tree", tree, "-m", "bomb")
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {"pkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", {"pkg/__init__.py": b"X = 2\n"})
    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", bomb)
    assert result.exit_code == 2, result.stdout
    assert f"commit {bomb} lists more than 1,000,000 files and directories" in result.stderr


def test_the_failure_message_names_the_signal_or_the_status() -> None:
    assert failure_message(-11, b"").startswith("git was killed by SIGSEGV without a message")
    assert failure_message(128, b"") == "git exited with status 128 without a message"
    assert failure_message(128, b"fatal: bad object\n") == "bad object"


_MEASURED = (
    "import re, sys\n"
    "from k3diff.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status').read()\n"
    "print(re.search(r'VmHWM:\\s+(\\d+)', status)[1], file=sys.stderr)\n"
    "sys.exit(code)\n"
)
"""k3diff, then its peak resident memory in KiB: VmHWM, this program's own since its exec
(ru_maxrss would carry the forking pytest's)."""


def _commit(repo: Path, files: dict[bytes, str], parent: str | None = None) -> str:
    """A commit of `pkg/` holding `files` (name -> blob or tree id, trees named with a '/')."""
    body = b"".join(
        (b"40000 " if name.endswith(b"/") else b"100644 ") + name.rstrip(b"/") + b"\0"
        + bytes.fromhex(oid) for name, oid in sorted(files.items()))  # fmt: skip
    root = _write_object(
        repo, "tree", b"40000 pkg\0" + bytes.fromhex(_write_object(repo, "tree", body))
    )
    text = f"tree {root}\n" + (f"parent {parent}\n" if parent else "")
    return _write_object(
        repo, "commit", f"{text}author a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nc\n".encode()
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_range_edge_deleting_a_million_files_is_read_as_it_comes(tmp_path: Path) -> None:
    """OLD holds `pkg/bomb/`, 100^3 files from three trees (a repository of some 60 KB); NEW
    deletes it. `diff-tree` lists every deletion: k3diff held all of its output, 623 MB
    (review67); it now keeps only the wheel's paths as they come."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"README": b"r\n"}])
    blob = _write_object(repo, "blob", b"X = 2\n")
    tree = _write_object(repo, "tree", b"".join(
        b"100644 f%03d.py\0" % n + bytes.fromhex(blob) for n in range(100)))  # fmt: skip
    for _ in range(2):
        tree = _write_object(repo, "tree", b"".join(
            b"40000 d%03d\0" % n + bytes.fromhex(tree) for n in range(100)))  # fmt: skip
    ids = {text: _write_object(repo, "blob", text) for text in (b"", b"A = 1\n", b"A = 2\n")}
    old = _commit(repo, {b"__init__.py": ids[b""], b"a.py": ids[b"A = 1\n"], b"bomb/": tree})
    new = _commit(repo, {b"__init__.py": ids[b""], b"a.py": ids[b"A = 2\n"]}, parent=old)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/__init__.py": b"",
                               "pkg/a.py": b"A = 0\n", "pkg/b.py": b"B = 0\n"})  # fmt: skip
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {"pkg/__init__.py": b"",
                                "pkg/a.py": b"A = 1\n", "pkg/b.py": b"B = 1\n"})  # fmt: skip
    command = [sys.executable, "-c", _MEASURED, "wheels", base, patch, "--source", repo]
    done = subprocess.run([*map(str, command), "--commits", f"{old}..{new}", "--format",
                           "json"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stderr
    entries = json.loads(done.stdout)["entries"]
    sources = {e["path"]: e["source"]["status"] for e in entries if "source" in e}
    assert sources == {"pkg/a.py": "stale", "pkg/b.py": "absent"}
    assert int(done.stderr.split()[-1]) < 200 * 1024  # KiB: the million deletions never held
