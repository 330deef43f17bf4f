"""git itself is held to a memory cap: a small loose object that inflates to a huge one is
refused in one line, without git taking the memory it states.

git reads a commit or tree whole (`rev-parse REV^{commit}` already does): a 1 GiB commit made
of a 4.6 MB loose file took 1 GiB in git before k3diff's own cap on what it reads refused it, and
a file of a few tens of megabytes states tens of gigabytes (review67). Every git call now runs
under `GIT_MEMORY_BYTES` (`ulimit -d`); the test lowers it to 64 MiB and offers a 256 MiB commit.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import wheelkit

from provenance.repokit import git, make_repo

STATED = 256 << 20
"""The commit object's size: zeros after a real header, about 260 KB once deflated."""

_RUN = (
    "import resource, sys, k3diff.provenance.gitrun as g; g.GIT_MEMORY_BYTES = 64 << 20\n"
    "from k3diff.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('children-maxrss-kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
    " file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _huge_commit(repo: Path) -> str:
    """A loose commit object of `STATED` bytes (a valid header, then NULs), as its id."""
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    text = f"tree {tree}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nbig\n".encode()
    header = b"commit %d\0" % STATED
    digest, deflate = hashlib.sha1(header + text), zlib.compressobj(9)
    stored = [deflate.compress(header + text)]
    zeros, left = bytes(1 << 20), STATED - len(text)
    while left:
        chunk = zeros[: min(left, len(zeros))]
        digest.update(chunk)
        stored.append(deflate.compress(chunk))
        left -= len(chunk)
    stored.append(deflate.flush())
    oid = digest.hexdigest()
    loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
    loose.parent.mkdir(exist_ok=True)
    loose.write_bytes(b"".join(stored))
    return oid


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA binds on Linux")
def test_a_commit_that_inflates_past_the_cap_is_refused_without_its_memory(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    git(repo, "update-ref", "refs/heads/huge", _huge_commit(repo))
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/a.py": b"A = 0\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {"pkg/a.py": b"A = 1\n"})
    command = [sys.executable, "-c", _RUN, "wheels", base, patch, "--source", repo]

    done = subprocess.run(
        [*map(str, command), "--commit", "huge"], capture_output=True, text=True, timeout=120
    )

    error, usage = done.stderr.splitlines()
    assert done.returncode == 2
    assert error.startswith(f"k3diff: error: {repo}: revision 'huge' cannot be read: Out of memory")
    assert error.endswith("k3diff gives git at most 64 MiB of memory: an object that inflates "
                          "past it is refused")  # fmt: skip
    assert int(usage.split()[1]) < (STATED >> 10) // 2  # KiB: git never held the object
