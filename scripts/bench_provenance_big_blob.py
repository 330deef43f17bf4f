"""Measure `k3diff wheels --source` against a commit whose `pkg/__init__.py` is a 1 GiB blob.

The blob is written as a loose object streamed through zlib (never held whole), the commit
without a working tree. Prints the wall time and the peak RSS of the largest process of the run
(k3diff or one of its git children): the issue's budget is under 300 MB and seconds.

    .venv/bin/python scripts/bench_provenance_big_blob.py [SIZE_MIB]
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wheelkit

CHUNK = b"X = 1\n" * (1 << 16)


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"}  # fmt: skip
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, input=stdin,
                          capture_output=True, check=True)  # fmt: skip
    return done.stdout.decode().strip()


def write_loose_blob(repo: Path, size: int) -> str:
    """Write a blob of `size` bytes of Python lines as a loose object; its id."""
    header = b"blob %d\0" % size
    digest, packer = hashlib.sha1(header), zlib.compressobj(1)
    scratch = repo / ".git" / "objects" / "big.tmp"
    with scratch.open("wb") as out:
        out.write(packer.compress(header))
        left = size
        while left:
            piece = CHUNK[: min(left, len(CHUNK))]
            digest.update(piece)
            out.write(packer.compress(piece))
            left -= len(piece)
        out.write(packer.flush())
    oid = digest.hexdigest()
    (repo / ".git" / "objects" / oid[:2]).mkdir(exist_ok=True)
    scratch.rename(repo / ".git" / "objects" / oid[:2] / oid[2:])
    return oid


def main() -> None:
    size = int(sys.argv[1] if len(sys.argv) > 1 else 1024) << 20
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = root / "repo"
        repo.mkdir()
        _git(repo, "init", "-q", "-b", "main")
        oid = write_loose_blob(repo, size)
        _git(repo, "update-index", "--add", "--cacheinfo", f"100644,{oid},pkg/__init__.py")
        commit = _git(repo, "commit-tree", _git(repo, "write-tree"), "-m", "big")
        base = wheelkit.make_wheel(root / "b", "engine", "1.0", {"pkg/__init__.py": b""})
        patch = wheelkit.make_wheel(root / "p", "engine", "1.0", {"pkg/__init__.py": b"X = 2\n"})
        command = [sys.executable, "-m", "k3diff", "wheels", str(base), str(patch),
                   "--source", str(repo), "--commit", commit]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    finding = next((line for line in done.stdout.splitlines() if "W401" in line), "")
    print(f"blob {size:,} bytes: exit {done.returncode}, {wall:.2f} s, "
          f"peak RSS {peak_kib / 1024:.0f} MiB (largest process)")  # fmt: skip
    print(finding.strip() or done.stderr.strip())


if __name__ == "__main__":
    main()
