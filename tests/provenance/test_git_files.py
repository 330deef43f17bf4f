"""A damaged git directory ends `wheels --source` at once, in one line that says what is wrong.

A FIFO as ``packed-refs``, ``objects/info/alternates``, ``HEAD``, a ref file or a pack's
``.idx`` held git until its deadline (600 s) before exit 2 (left67b); such files are now looked
at before git runs. A corrupt pack was reported as "object … is missing", and git's complaints
about a broken alternate took the place of its real reason. git's deadline is 2 s here, so a
regression fails rather than waiting ten minutes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import wheelkit
from cli_support import CliResult, run_k3diff

from k3diff.provenance import gitrun
from provenance.repokit import git, make_repo

CONTENT = b"".join(b"A%d = %d\n" % (i, i * 7919 % 1000) for i in range(400))
"""A file large enough that its compressed bytes can be damaged without touching the next
object's."""


@pytest.fixture(autouse=True)
def _short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitrun, "GIT_TIMEOUT_S", 2.0)


def _wheels(tmp_path: Path, *source: str | Path) -> CliResult:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/a.py": b"A = 0\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {"pkg/a.py": CONTENT + b"X\n"})
    return run_k3diff("wheels", base, patch, *source)


def _repo(tmp_path: Path, packed: bool = True) -> Path:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": CONTENT}])
    if packed:
        git(repo, "gc", "--quiet")
    return repo


def _replace_by_fifo(path: Path) -> None:
    if path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def _index(repo: Path) -> Path:
    return next((repo / ".git" / "objects" / "pack").glob("*.idx"))


@pytest.mark.parametrize(
    "where",
    [
        lambda repo: repo / ".git" / "packed-refs",
        lambda repo: repo / ".git" / "objects" / "info" / "alternates",
        lambda repo: repo / ".git" / "HEAD",
        lambda repo: repo / ".git" / "refs" / "heads" / "main",
        _index,
    ],
    ids=["packed-refs", "alternates", "HEAD", "ref", "idx"],
)
def test_a_fifo_where_git_reads_a_file_is_refused_before_git_runs(
    tmp_path: Path, where: Callable[[Path], Path]
) -> None:
    repo = _repo(tmp_path)
    fifo = where(repo)
    _replace_by_fifo(fifo)

    result = _wheels(tmp_path, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stdout == ""
    shown = fifo.relative_to(repo)
    assert result.stderr == (
        f"k3diff: error: {repo}: {shown} is a FIFO, not a regular file: git would wait on it "
        "(refused)\n"
    )


def test_a_ref_file_past_its_cap_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    head = repo / ".git" / "HEAD"
    head.write_bytes(b"ref: refs/heads/main\n" + b"\n" * (1 << 20))

    result = _wheels(tmp_path, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    size = f"{head.stat().st_size:,}"
    assert result.stderr == (
        f"k3diff: error: {repo}: .git/HEAD is {size} bytes, past the 1 MiB k3diff lets git "
        "read there (refused)\n"
    )


def _damage(repo: Path, revision: str, start: int) -> str:
    """Flip bytes of one packed object from `start` bytes into it (0: its header too)."""
    oid = git(repo, "rev-parse", revision)
    pack = _index(repo).with_suffix(".pack")
    listing = git(repo, "verify-pack", "-v", str(_index(repo)))
    offset = int(next(line for line in listing.splitlines() if line.startswith(oid)).split()[4])
    data = bytearray(pack.read_bytes())
    for at in range(offset + start, offset + 60):
        data[at] ^= 0x55
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    return oid


@pytest.mark.parametrize("start", [0, 8], ids=["header", "data"])
@pytest.mark.parametrize("revision", ["HEAD:pkg/a.py", "HEAD^{tree}"], ids=["blob", "tree"])
def test_a_corrupt_pack_is_said_corrupt_not_missing(
    tmp_path: Path, revision: str, start: int
) -> None:
    repo = _repo(tmp_path)
    oid = _damage(repo, revision, start)

    result = _wheels(tmp_path, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stderr.startswith(f"k3diff: error: {repo}: object {oid} is corrupt (git: ")
    assert result.stderr.endswith("; `git fsck` names every damaged object\n")
    assert "missing from the repository" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_broken_alternate_does_not_hide_the_real_reason(tmp_path: Path) -> None:
    """git skips an alternates entry that names no directory and says so first; the commit
    it then cannot read is why the run stops, and is what the line says."""
    repo = _repo(tmp_path)
    _damage(repo, "HEAD", 8)
    (repo / ".git" / "objects" / "info" / "alternates").write_text("/nonexistent/objects\n")

    result = _wheels(tmp_path, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"k3diff: error: {repo}: revision 'HEAD' is not a commit in this repository (inflate: "
    )
    assert "/nonexistent/objects" not in result.stderr
    assert len(result.stderr.splitlines()) == 1
