"""Release sets: every wheel of a base release paired with its counterpart in the patch release,
each pair compared with `compare_wheels`.

Wheels pair by distribution name (PEP 503-normalised) and tags, ignoring version and build
number: a base wheel and a patch wheel pair when their names match and their expanded tag sets
(`py2.py3-none-any` is two tags) share a tag; wheels left over pair by name and platform family
(`manylinux1_x86_64` and `manylinux_2_17_x86_64`: a raised baseline, same architecture). A
wheel with two or more candidates on the other side is an
ambiguity, refused naming every one (five, then a count), never a guess (`wheels.setpairing`). Wheels with no candidate are listed as unpaired:
they are evidence that was not compared, so they fail the run unless explicitly allowed.

Pairs are compared a few at a time (`PAIR_JOBS`); each comparison already reads its entries on a
pool of one thread per core, so running more pairs at once would only add memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from k3diff.errors import InputError, UsageError
from k3diff.exitcodes import ExitCode
from k3diff.filehash import file_sha256
from k3diff.output import plural
from k3diff.releaselinks import refuse_links
from k3diff.wheel.filename import wheel_filename_parts
from k3diff.wheel.metadata import read_identity
from k3diff.wheel.refusals import doubled_suffix, filename_refusals, no_wheel_filename
from k3diff.wheels.choicememo import ChoiceMemo
from k3diff.wheels.choicepairing import pair_by_choice
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.competing import choice_check
from k3diff.wheels.model import WheelReport, asked_to_explain
from k3diff.wheels.releasesources import (
    SourceArchive,
    refuse_index_page,
    refuse_source_directory,
    source_archive,
)
from k3diff.wheels.setpairing import Pairing as Pairing
from k3diff.wheels.setpairing import SetWheel as SetWheel
from k3diff.wheels.setpairing import pair_wheels as tag_pairing
from k3diff.zip.archive import ZipArchive

_GIVE_FILES = "give the file it points to with --base/--patch, or replace the link with it"
"""What a release directory holding a symbolic link is refused with (as `audit` refuses it)."""

PAIR_JOBS = 2
"""Pairs compared at once. Each comparison already uses every core for its entries; a second
pair in flight overlaps one pair's single-threaded phases (central directory, RECORD, report
building) with the other's reading. Peak memory grows with pairs in flight: on four pairs of
~24 MB wheels, 45 MiB one at a time, 57 MiB two, 80 MiB four (see the README)."""


class Side(StrEnum):
    """Which release a wheel belongs to."""

    BASE = "base"
    PATCH = "patch"


@dataclass(frozen=True)
class IgnoredFile:
    """A file found in a release directory that is not a wheel (listed, never compared), or
    a `.whl` misnamed (listed, never compared, and failing the set)."""

    side: Side
    """The directory's side."""
    path: Path
    """The path as found (directory joined with the name)."""
    reason: str
    """Why it was left out."""


_SOURCE_ARCHIVE = (
    "not a wheel: a source archive (sdist); k3diff checks where pip would build it instead of "
    "installing a wheel, but does not compare the files inside it"
)
"""An archive's reason (newuser77: "not a wheel" alone read as passed over, where an sdist
`--allow-unpaired` accepted as one-sided was listed so; newuser78: "weighed as pip weighs it"
was jargon)."""


@dataclass(frozen=True)
class ReleaseSide:
    """What one side of the comparison holds."""

    inputs: tuple[Path, ...]
    """The directories or files as given."""
    wheels: tuple[SetWheel, ...]
    """Every wheel found, sorted by file name."""
    ignored: tuple[IgnoredFile, ...] = ()
    """Files in the directories that are not wheels."""
    misnamed: tuple[IgnoredFile, ...] = ()
    """`.whl` files (any case) in the directories named as no wheel pip takes (`copy.whl`) or
    PyPI takes (`x.whl.whl`): a problem in the release, as `audit` says (A126): they fail the set."""
    given_as_files: bool = False
    """True when the wheels were given one by one (`--base`/`--patch`), not as a directory."""
    sources: tuple[SourceArchive, ...] = ()
    """The directories' source archives pip builds from where no wheel fits (listed among the
    ignored files too; weighed by `wheels.competing`)."""


@dataclass(frozen=True)
class PairResult:
    """One compared pair."""

    base: SetWheel
    """The base wheel."""
    patch: SetWheel
    """The patch wheel."""
    report: WheelReport
    """The full comparison, as `k3diff wheels BASE PATCH` gives it."""


@dataclass(frozen=True)
class WheelSetReport:
    """Everything `k3diff wheels BASE_DIR PATCH_DIR` found."""

    base: ReleaseSide
    """The base release."""
    patch: ReleaseSide
    """The patch release."""
    pairs: tuple[PairResult, ...]
    """Every compared pair, sorted by base file name."""
    only_base: tuple[SetWheel, ...]
    """Base wheels with no counterpart (not compared)."""
    only_patch: tuple[SetWheel, ...]
    """Patch wheels with no counterpart (not compared)."""
    allow_unpaired: bool = False
    """`--allow-unpaired`: wheels on one side only do not fail the run (no pair still does)."""

    @property
    def unpaired(self) -> int:
        """Wheels on one side only."""
        return len(self.only_base) + len(self.only_patch)

    @property
    def misnamed(self) -> tuple[IgnoredFile, ...]:
        """Both sides' misnamed `.whl` files, base first."""
        return (*self.base.misnamed, *self.patch.misnamed)

    @property
    def failing_pairs(self) -> tuple[PairResult, ...]:
        """Pairs whose own comparison fails its policy."""
        return tuple(p for p in self.pairs if p.report.exit_code != ExitCode.OK)

    @property
    def failures(self) -> tuple[str, ...]:
        """Why the set fails (exit 1), one short reason each; empty when it passes."""
        return set_failures(
            len(self.pairs),
            self.unpaired,
            self.allow_unpaired,
            len(self.misnamed),
            len(self.failing_pairs),
        )

    @property
    def unverified_streams(self) -> int:
        """Streams of raw-identical entries left unchecked across every pair (--no-file-hash):
        the set's verdict says it as each pair's does."""
        return sum(p.report.unverified_streams for p in self.pairs)

    @property
    def exit_code(self) -> ExitCode:
        """1 when any pair fails, any wheel is unpaired (unless allowed), a `.whl` is misnamed
        or nothing paired."""
        return ExitCode.FINDINGS if self.failures else ExitCode.OK


def set_failures(
    pairs: int, unpaired: int, allow_unpaired: bool, misnamed: int, failing_pairs: int
) -> tuple[str, ...]:
    """Why a release set fails (exit 1), one short reason each; empty when it passes. The one
    rule: `k3diff wheels` judges a set by it, and the set's document is judged again by it
    (`k3diff.documents.verdicts`)."""
    reasons = []
    if not pairs:
        reasons.append("nothing paired: no wheel of either side has a counterpart")
    elif unpaired and not allow_unpaired:
        reasons.append(f"{unpaired} unpaired (only on one side)")
    if misnamed:
        reasons.append(f"{plural(misnamed, 'misnamed .whl file')} (a name pip or PyPI refuses)")
    if failing_pairs:
        reasons.append(f"{failing_pairs} of {pairs} pairs fail")
    return tuple(reasons)


def pair_wheels(
    base: Sequence[SetWheel],
    patch: Sequence[SetWheel],
    given_as_files: bool = False,
    memo: ChoiceMemo | None = None,
) -> Pairing:
    """The pairing `k3diff wheels` and the bundle's re-reading of a set use: by tags, then
    platform families (`setpairing.pair_wheels`), then pip's choice among the wheels left
    (`choicepairing`: a tag changed in place; `memo`: the run's, `choicememo`)."""
    return pair_by_choice(tag_pairing(base, patch, given_as_files), memo)


def set_wheel(path: Path) -> SetWheel | None:
    """The wheel `path` names, or None when its name is no PEP 427 wheel filename it pairs."""
    parts = wheel_filename_parts(path.name)
    if parts is None or doubled_suffix(path.name):
        return None
    return SetWheel(path, *parts)


def misnamed_reason(name: str) -> str:
    """Why pip or PyPI refuses `name`, a `.whl` (any case) no wheel filename k3diff pairs."""
    refusal = doubled_suffix(name) or no_wheel_filename(name)
    refusal = refusal or next(iter(filename_refusals(name)), ("", ""))[1]
    return refusal or f"{name!r} is not a NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl name"


def scan_directory(directory: Path, side: Side) -> ReleaseSide:
    """Every wheel in `directory` (not recursive); a `.whl` misnamed is listed as such (it
    fails the set), other files as ignored."""
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    try:
        names = sorted(child.name for child in directory.iterdir())
    except OSError as exc:
        raise InputError(f"{directory}: cannot list: {exc.strerror or exc}") from exc
    refuse_links((directory / name for name in names), "wheels", "comparison", _GIVE_FILES)
    wheels: list[SetWheel] = []
    ignored: list[IgnoredFile] = []
    misnamed: list[IgnoredFile] = []
    sources: list[SourceArchive] = []
    for name in names:
        path = directory / name
        refuse_index_page(path)
        if path.is_dir():
            refuse_source_directory(path)
            continue
        wheel = set_wheel(path)
        if wheel is not None:
            wheels.append(wheel)
        elif name.lower().endswith(".whl"):
            misnamed.append(IgnoredFile(side, path, misnamed_reason(name)))
        elif (archive := source_archive(path)) is not None:
            ignored.append(IgnoredFile(side, path, _SOURCE_ARCHIVE))
            sources.append(archive)
        else:
            ignored.append(IgnoredFile(side, path, "not a wheel"))
    if not wheels:
        raise InputError(_no_wheels(directory, side, sources))
    return ReleaseSide(
        (directory,), tuple(wheels), tuple(ignored), tuple(misnamed), sources=tuple(sources)
    )


def given_files(paths: Sequence[Path], side: Side) -> ReleaseSide:
    """The wheels given one by one (`--base F --base G`); each must be named like a wheel."""
    if not paths:
        other = Side.PATCH if side is Side.BASE else Side.BASE
        raise UsageError(f"--{other} needs --{side}: give the {side} release's wheels too")
    wheels: list[SetWheel] = []
    seen: dict[Path, Path] = {}
    for path in paths:
        wheel = set_wheel(path)
        if wheel is None:
            raise UsageError(
                f"--{side} {path}: not a wheel filename (NAME-VERSION-PY-ABI-PLATFORM.whl): "
                "a release set pairs wheels by the name and tags their filenames state"
            )
        resolved = path.resolve()
        if resolved in seen:
            raise UsageError(f"--{side} {path}: given twice (also as {seen[resolved]})")
        seen[resolved] = path
        wheels.append(wheel)
    return ReleaseSide(
        tuple(paths), tuple(sorted(wheels, key=lambda w: w.path.name)), given_as_files=True
    )


PairProgress = Callable[[int, int], None]


def compare_release_sets(
    base: ReleaseSide,
    patch: ReleaseSide,
    options: WheelOptions | None = None,
    *,
    allow_unpaired: bool = False,
    pair_jobs: int = PAIR_JOBS,
    progress: PairProgress | None = None,
) -> WheelSetReport:
    """Pair the two releases' wheels and compare every pair (`pair_jobs` at a time).

    The first pair that cannot be compared (unreadable, corrupt) raises its error; the pairs
    not yet started are cancelled."""
    options = options or WheelOptions()
    memo = ChoiceMemo()
    given_as_files = base.given_as_files or patch.given_as_files
    pairing = pair_wheels(base.wheels, patch.wheels, given_as_files, memo)
    choices = choice_check(pairing, allow_unpaired, (base.sources, patch.sources), memo)
    requires_python = {
        id(wheel): unpaired_requires_python(wheel.path)
        for wheel in (*pairing.only_base, *pairing.only_patch)
    }
    results: list[PairResult | None] = [None] * len(pairing.pairs)
    with ThreadPoolExecutor(
        max_workers=max(1, pair_jobs), thread_name_prefix="k3diff-pair"
    ) as pool:
        futures: dict[Future[WheelReport], int] = {
            pool.submit(compare_wheels, b.path, p.path, options): index
            for index, (b, p) in enumerate(pairing.pairs)
        }
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in done:
                    index = futures[future]
                    b, p = pairing.pairs[index]
                    report = asked_to_explain(future.result(), options.explain)
                    results[index] = PairResult(b, p, report)
                if progress is not None:
                    progress(len(futures) - len(pending), len(futures))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    for result in results:
        if result is not None:
            requires_python[id(result.base)] = result.report.base.identity.requires_python
            requires_python[id(result.patch)] = result.report.patch.identity.requires_python
    choices.refuse(requires_python)
    return WheelSetReport(
        base=base,
        patch=patch,
        pairs=tuple(r for r in results if r is not None),
        only_base=_hashed(pairing.only_base, options.file_hash),
        only_patch=_hashed(pairing.only_patch, options.file_hash),
        allow_unpaired=allow_unpaired,
    )


def unpaired_requires_python(path: Path) -> str | None:
    """The Requires-Python of an unpaired wheel's METADATA (pip skips the wheel on a Python it
    excludes); a wheel that cannot be read is exit 2, unpaired or not."""
    archive = ZipArchive.open(path)
    try:
        return read_identity(archive).requires_python
    finally:
        archive.close()


def _hashed(wheels: tuple[SetWheel, ...], file_hash: bool) -> tuple[SetWheel, ...]:
    """Unpaired wheels with their SHA-256, so a reviewer can still name the file they saw."""
    if not file_hash:
        return wheels
    return tuple(replace(wheel, sha256=file_sha256(wheel.path)[0]) for wheel in wheels)


def _no_wheels(directory: Path, side: Side, sources: list[SourceArchive]) -> str:
    """Why a release directory without wheels is refused; where it holds source archives, what
    to do with them (newuser78: a directory of an sdist only named no next step)."""
    problem = f"{directory}: no wheel files (*.whl named by PEP 427) in the {side}"
    if not sources:
        return problem
    first = min(s.path for s in sources)
    count = f"{len(sources):,} source archives" if len(sources) != 1 else "a source archive"
    return (
        f"{problem}, only {count}: k3diff wheels compares built wheels; build them first "
        f"(python -m build --wheel), or check the sdist with k3diff audit {first}"
    )
