"""pip as the oracle: install a wheel with the test venv's pip and hash what it wrote.

`pip_install` runs `python -m pip install --no-deps --no-compile --no-index --target DIR`
(or `--prefix DIR`, a virtual environment's layout, where `.data/data/lib/pythonX.Y/
site-packages/` lands in site-packages) and returns the installed tree keyed like k3diff's
installed paths (`site-packages/pkg/mod.py`, `bin/tool`, `include/site/pythonX.Y/NAME/x.h`, `share/...`), each
file with its SHA-256 and whether it is executable, or the error pip gave.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

_PY = sysconfig.get_python_version()
_GENERATED = ("/RECORD", "/INSTALLER", "/REQUESTED", "/direct_url.json")


@dataclass(frozen=True)
class Installed:
    """What pip did with one wheel."""

    ok: bool
    """pip exited 0."""
    tree: dict[str, tuple[str, bool]]
    """Installed path -> (sha256, executable); empty when pip failed."""
    output: str
    """pip's stdout and stderr."""


def pip_install(wheel: Path, dest: Path, *, prefix: bool = False) -> Installed:
    """Install `wheel` into `dest` (a new directory) and hash the tree pip wrote."""
    command = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--no-index",
        "--disable-pip-version-check", "--no-warn-script-location", "--quiet",
        "--prefix" if prefix else "--target", str(dest), str(wheel),
    ]  # fmt: skip
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        return Installed(False, {}, done.stdout + done.stderr)
    return Installed(True, _tree(dest, prefix), done.stdout + done.stderr)


def _tree(root: Path, prefix: bool) -> dict[str, tuple[str, bool]]:
    tree: dict[str, tuple[str, bool]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        relative = path.relative_to(root).as_posix()
        if relative.endswith(_GENERATED) and ".dist-info/" in relative:
            continue  # written by pip itself, not from the wheel
        mode = path.stat().st_mode
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        tree[_key(relative, prefix)] = (digest, bool(mode & 0o111))
    return tree


def _key(relative: str, prefix: bool) -> str:
    if relative.startswith(("bin/", "include/")):
        return relative
    if prefix:
        site = f"lib/python{_PY}/site-packages/"
        return (
            "site-packages/" + relative.removeprefix(site)
            if relative.startswith(site)
            else relative
        )
    if relative.startswith("share/"):
        return relative
    return "site-packages/" + relative
