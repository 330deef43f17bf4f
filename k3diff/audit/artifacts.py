"""The artifacts one `audit` run covers: the files given, and a release directory's files.

`k3diff audit dist/` means what `sha256sum dist/*` means: every file directly in the
directory, in name order, hidden ones (a leading dot, as the shell's `*` skips them) and
subdirectories left out. A symbolic link among them is refused (exit 2, naming the link and its
target), never skipped: `dist/*` would take the file it points to, which may lie outside the
directory and which the link can name anew after the audit (a manifest pins the name only;
`k3diff.releaselinks`, which `wheels` refuses one with too). A file given
twice (`audit a.whl a.whl`, or `audit dist dist/a.whl`) is refused: one artifact audited twice
would count twice in the verdict and the manifest. The run's own files (the manifest read, the manifest and the report
written) are never artifacts of it, so `audit dist --write-manifest dist/SHA256SUMS` twice
gives the same manifest, and `audit dist --manifest dist/SHA256SUMS` does not find the
manifest missing from itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from k3diff.errors import InputError, UsageError
from k3diff.releaselinks import refuse_links

_GIVE_THE_FILE = "give the file it points to, or replace the link with it"


def expand_directories(paths: Sequence[Path], own_files: Iterable[Path | None]) -> list[Path]:
    """`paths` with each directory replaced by its files (see the module); raise InputError
    for a directory that cannot be listed or holds none."""
    own_paths = [path for path in own_files if path is not None]
    own = {_identity(path) for path in own_paths} | {_place(path) for path in own_paths}
    expanded: list[Path] = []
    for path in paths:
        if not path.is_dir():
            expanded.append(path)
            continue
        try:
            names = sorted(entry.name for entry in os.scandir(path))
        except OSError as exc:
            raise InputError(f"{path}: cannot list: {exc.strerror or exc}") from exc
        candidates = [
            path / name
            for name in names
            if not name.startswith(".") and _place(path / name) not in own
        ]
        refuse_links(candidates, "audit", "audit", _GIVE_THE_FILE)
        files = [file for file in candidates if not file.is_dir()]
        if not files:
            raise InputError(
                f"{path}: no files to audit in this directory (audit reads the files directly "
                "in it, not its subdirectories or hidden files)"
            )
        expanded.extend(files)
    seen: dict[Path, Path] = {}
    for path in expanded:
        first = seen.setdefault(_identity(path), path)
        if first is not path:
            raise UsageError(f"{path}: given twice (also as {first}); audit each artifact once")
    return expanded


def without_manifests(paths: Sequence[Path], manifests: Iterable[Path | None]) -> list[Path]:
    """`paths` less the run's own manifests given by name: `audit dist/* --manifest
    dist/SHA256SUMS` (the glob takes the manifest too) audits what `audit dist` does. Only the
    very file that `--manifest` or `--write-manifest` names is left out: a stray SHA256SUMS that
    no option names is an artifact like any other, so an extra file cannot hide behind the
    name."""
    own_paths = [path for path in manifests if path is not None]
    own = {_identity(path) for path in own_paths} | {_place(path) for path in own_paths}
    return [path for path in paths if path.is_dir() or _place(path) not in own]


def manifest_name(artifact: str, manifest: Path) -> str:
    """The name a manifest written at `manifest` gives `artifact`: relative to the manifest's
    directory when the artifact lies under it (`dist/SHA256SUMS` lists `demo-1.0.whl`, so
    `cd dist && sha256sum -c SHA256SUMS` verifies it, as release manifests are checked), else
    the name as given (`SHA256SUMS` beside `dist/` lists `dist/demo-1.0.whl`)."""
    home = _identity(manifest).parent
    try:
        return _identity(Path(artifact)).relative_to(home).as_posix()
    except ValueError:
        return artifact


def _place(path: Path) -> Path:
    """Where `path` lies, its directory resolved but not the file itself: a run's own file
    among a directory's is the one at that place, so a link there to the manifest or the report
    is refused as any link is, never left out in silence (hunt72: `dist/x.whl` linked to the
    manifest checked was skipped, exit 0, and `twine upload dist/*` would take it)."""
    return _identity(path.parent) / path.name


def _identity(path: Path) -> Path:
    """One name for a file however it is written (`dist/x`, `./dist/x`, an absolute path)."""
    return Path(os.path.realpath(path))
