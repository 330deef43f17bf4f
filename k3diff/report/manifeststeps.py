"""The next steps of `audit --manifest`'s failing findings (words73, from `report.auditsteps`):
A201 (a hash differs), A202 (listed, not audited), A203 (audited, not listed). A pin gets no
waiver stanza: a waived pin is no pin.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

from k3diff import shellwords
from k3diff.numbers import named
from k3diff.wheel.codes import Code
from k3diff.wheel.findingorder import counted

AUDITED_NAMED = 20
"""Most files audited the A201 step names in its command (more: `ARTIFACT...`, said)."""
Pin = tuple[str, str]
"""A manifest finding: its code and the name it is about."""
Style = Callable[[str], str]
"""How a step shows a command or a name: as code in Markdown, as it is in text."""


def manifest_steps(
    found: Sequence[Pin],
    manifest: str,
    code: Style = str,
    artifacts: Sequence[str] = (),
    unaudited: int = 0,
) -> list[str]:
    """A201 (hash differs), A202 (named, not audited), A203 (audited, not named), each naming
    the files it is about; `artifacts`: the files audited, as given, which the A201 step pins
    anew; `unaudited`: how many files the manifest pins that were not audited, A202 or not
    (``--ignore-missing``)."""
    pinned = shellwords.path(manifest)
    shown = code(manifest)
    steps = []
    differ = _pins(found, Code.A201, code)
    if differ is not None:
        (counts, names), paths = differ
        one = shellwords.path(paths[0]) if len(paths) == 1 else "ARTIFACT"
        left = unaudited > 0 or any(c == Code.A202.name for c, _ in found)
        audited, which = _audited(artifacts, left)
        steps.append(
            f"{counts}{names}: not the file {shown} pins (changed since, or another build): "
            f"compare the two ({code(f'k3diff wheels PINNED.whl {one}')}, where both are "
            "wheels); if this file is the one to release, pin it anew once reviewed, "
            f"{code(f'k3diff audit {audited} --write-manifest {pinned}')} ({which}written only "
            "when the audit passes), else release the pinned file"
        )
    missing = _pins(found, Code.A202, code)
    if missing is not None:
        (counts, names), paths = missing
        if paths:
            steps.append(
                f"{counts}{names}: {shown} pins files this run did not audit: give them to the "
                f"audit too, or pass {code('--ignore-missing')} to audit part of a release; "
                f"drop their lines from {shown} if they are no longer released"
            )
        else:  # --ignore-missing, and none of the artifacts is one the manifest pins
            steps.append(
                f"{counts}: {shown} pins none of the files audited, so nothing was verified: "
                "audit the files it names (each line's name; "
                f"{code(in_its_directory(manifest, 'sha256sum -c {}'))} checks them too), or give "
                "the manifest that pins these"
            )
    extra = _pins(found, Code.A203, code)
    if extra is not None:
        (counts, names), paths = extra
        beside = _beside(manifest, paths)
        pin = (
            code(in_its_directory(manifest, f"sha256sum {beside} >> {{}}"))
            if beside
            else f"{code(in_its_directory(manifest, 'sha256sum NAME >> {}'))}, NAME the file's "
            "name in the manifest's directory"
        )
        steps.append(
            f"{counts}{names}: {shown} does not pin these files: pin each once reviewed, "
            f"{pin} (or the manifest anew with {code('--write-manifest')}), or leave the file "
            "out of the release"
        )
    return steps


def _audited(artifacts: Sequence[str], missing: bool) -> tuple[str, str]:
    """The files the A201 step pins anew, as shell words (cleanup75: it said `ARTIFACT...`),
    and what the step says of them: the files audited, `AUDITED_NAMED` at most; past them, or
    with none known, ARTIFACT..., said; where the manifest pins files not audited (A202, or
    left out by ``--ignore-missing``: review75c, the step then wrote their pins away unsaid),
    that they are to be added."""
    more = "; add the files it pins that this run did not audit" if missing else ""
    if not artifacts or len(artifacts) > AUDITED_NAMED:
        known = f"the {len(artifacts):,} files audited" if artifacts else "the release's files"
        return "ARTIFACT...", f"ARTIFACT... {known}{more}; "
    return " ".join(map(shellwords.path, artifacts)), f"the files audited{more}; "


def _beside(manifest: str, paths: Sequence[str]) -> str:
    """The files' names as `sha256sum`'s words in the manifest's directory (braces doubled for
    `in_its_directory`), where each is in it and they are five at most; '' otherwise, and the
    step names them NAME (newuser74: it said NAME for the one file it had just named)."""
    folder = posixpath.dirname(posixpath.normpath(manifest))
    if not paths or len(paths) > 5:
        return ""
    if any(posixpath.dirname(posixpath.normpath(p)) != folder for p in paths):
        return ""
    words = " ".join(shellwords.path(posixpath.basename(posixpath.normpath(p))) for p in paths)
    return words.replace("{", "{{").replace("}", "}}")


def _pins(
    found: Sequence[Pin], kind: Code, code: Style
) -> tuple[tuple[str, str], list[str]] | None:
    """((`1 × A201`, ` (a.whl, b.whl)`), the names) for the manifest findings of `kind`, None
    where none is; the names as the findings give them, five at most and the rest counted."""
    kept = [(c, path) for c, path in found if c == kind.name]
    if not kept:
        return None
    paths = list(dict.fromkeys(path for _, path in kept if path))
    names = f" ({named([code(p) for p in paths], 5)})" if paths else ""
    return (counted([(c, path, False) for c, path in kept], thousands=False), names), paths


def in_its_directory(manifest: str, command: str) -> str:
    """`command` (`{}` for the manifest) run in the manifest's directory, where its lines' names
    are files, naming it by its file name there (review73c: `sha256sum NAME >> dist/SUMS run in
    the manifest's directory` named `dist/dist/SUMS` once there)."""
    path = PurePosixPath(manifest)
    line = command.format(shellwords.path(path.name))
    if str(path.parent) == ".":
        return line
    return f"(cd {shellwords.path(str(path.parent))} && {line})"
