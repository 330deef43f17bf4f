"""Build the example that `make demo` compares: a small engine, its git history, three wheels.

    DIR/engine-src/   a git repository: commit "base" (1.0), then commit "patch" editing three
                      Python files and adding one (the reviewed patch)
    DIR/base/         engine-1.0 wheel built from "base"
    DIR/patch/        engine-1.0 wheel built from "patch"; its native entries are the base's
                      compressed bytes, copied unchanged, as a careful patch rebuild does
    DIR/tampered/     the patch wheel with its extension module rebuilt with an extra exported
                      function (what --explain is for)

The native library is compiled with the system C compiler when one is installed and crafted as
a minimal ELF file otherwise. Everything is deterministic: same inputs, same bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import wheelkit

TAG = "cp311-cp311-manylinux_2_17_x86_64"
"""A tag PyPI takes (review80b: `linux_x86_64` is A141 since hunt80, and `make demo`'s audit,
which expects exit 0, failed)."""
KERNEL_C = """
int engine_add(int a, int b) { return a + b; }
int engine_scale(int a) { return a * 3; }
"""
EXTRA_C = "\nint engine_debug_hook(int a) { return a ^ 0x5a; }\n"

BASE_SOURCES = {
    "engine/__init__.py": "from engine.sampler import sample\n\n__version__ = '1.0'\n",
    "engine/sampler.py": (
        "import math\n\n\ndef sample(logits, temperature=1.0):\n"
        "    scaled = [x / temperature for x in logits]\n"
        "    top = max(scaled)\n"
        "    return scaled.index(top)\n"
    ),
    "engine/scheduler.py": (
        "class Scheduler:\n    def __init__(self, max_batch=8):\n"
        "        self.max_batch = max_batch\n\n"
        "    def admit(self, queue):\n        return queue[: self.max_batch]\n"
    ),
    "engine/kv_cache.py": (
        "def blocks_needed(tokens, block_size=16):\n"
        "    return (tokens + block_size - 1) // block_size\n"
    ),
    "engine/config.py": "DEFAULTS = {'max_batch': 8, 'block_size': 16}\n",
}
PATCH_EDITS = {
    "engine/sampler.py": (
        "import math\n\n\ndef sample(logits, temperature=1.0):\n"
        "    if temperature <= 0:\n        raise ValueError('temperature must be positive')\n"
        "    scaled = [x / temperature for x in logits]\n"
        "    top = max(scaled)\n"
        "    return scaled.index(top)\n"
    ),
    "engine/scheduler.py": (
        "class Scheduler:\n    def __init__(self, max_batch=8):\n"
        "        self.max_batch = max_batch\n\n"
        "    def admit(self, queue):\n        admitted = queue[: self.max_batch]\n"
        "        del queue[: self.max_batch]\n        return admitted\n"
    ),
    "engine/config.py": "DEFAULTS = {'max_batch': 16, 'block_size': 16}\n",
    "engine/prefix_cache.py": "def key(tokens):\n    return hash(tuple(tokens))\n",
}


def _native(source: str, scratch: Path, name: str) -> bytes:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return wheelkit.elf_bytes(source.encode(), build_id=(name * 20).encode()[:20])
    c_file = scratch / f"{name}.c"
    so_file = scratch / f"{name}.so"
    c_file.write_text(source)
    subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-O2",
            "-Wl,--build-id=sha1",
            "-o",
            str(so_file),
            str(c_file),
        ],
        check=True,
        cwd=scratch,
    )
    return so_file.read_bytes()


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "k3diff demo",
        "GIT_AUTHOR_EMAIL": "demo@example.invalid",
        "GIT_COMMITTER_NAME": "k3diff demo",
        "GIT_COMMITTER_EMAIL": "demo@example.invalid",
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def _commit(repo: Path, sources: dict[str, str], message: str) -> None:
    for path, text in sources.items():
        target = repo / "python" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def build(directory: Path) -> None:
    """Write the example repository and wheels into `directory` (replacing earlier ones)."""
    shutil.rmtree(directory, ignore_errors=True)
    repo = directory / "engine-src"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, BASE_SOURCES, "base: engine 1.0")
    patched = {**BASE_SOURCES, **PATCH_EDITS}
    _commit(repo, patched, "patch: validate temperature, drain admitted requests")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        kernel = _native(KERNEL_C, scratch, "k")
        tampered = _native(KERNEL_C + EXTRA_C, scratch, "t")
    native = {"engine/_kernels.cpython-311-x86_64-linux-gnu.so": kernel}
    encoded = {path: text.encode() for path, text in BASE_SOURCES.items()}
    wheelkit.make_wheel(directory / "base", "engine", "1.0", {**encoded, **native}, tag=TAG)
    patch_files = {**encoded, **{p: t.encode() for p, t in PATCH_EDITS.items()}, **native}
    wheelkit.make_wheel(directory / "patch", "engine", "1.0", patch_files, tag=TAG)
    tampered_files = {**patch_files, "engine/_kernels.cpython-311-x86_64-linux-gnu.so": tampered}
    wheelkit.make_wheel(directory / "tampered", "engine", "1.0", tampered_files, tag=TAG)


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "demo")
    build(target)
    print(f"example wheels and repository written to {target}/", file=sys.stderr)


if __name__ == "__main__":
    main()
