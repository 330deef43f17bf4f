"""`audit`: the library function behind `k3diff audit`.

Every artifact is opened first (one that cannot be opened at all stops the run: exit 2). Then one
thread pool does all the reading: each artifact's whole-file SHA-256 and every entry's streamed
verification, entries of all artifacts largest first so a huge library never finishes last,
small ones batched so task overhead stays small. Checks that need only the central directory and
headers run on the main thread meanwhile, beside the large entries; the batches of small entries
are submitted after them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from k3diff import bounded
from k3diff.audit import schedule
from k3diff.audit.artifacts import expand_directories, manifest_name, without_manifests
from k3diff.audit.batch import Verified, verify_batch
from k3diff.audit.manifest import (
    check_manifest,
    check_writable,
    is_manifest,
    manifest_text,
    read_manifest_digest,
)
from k3diff.audit.model import ArtifactAudit, ArtifactKind, AuditReport
from k3diff.audit.modes import mode_findings
from k3diff.audit.platform import NativeNeeds, platform_findings
from k3diff.audit.record import mark_natives, membership_findings
from k3diff.audit.samewheels import same_wheel_findings
from k3diff.audit.sidecar import sidecar_findings
from k3diff.audit.sourcenames import is_sdist, other_source_archive
from k3diff.audit.structure import structure_findings
from k3diff.errors import ArchiveError, CapError, InputError, UsageError
from k3diff.exitcodes import ExitCode
from k3diff.filehash import file_sha256
from k3diff.output import write_atomic
from k3diff.progress import ProgressCallback, Tally
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.metadata import METADATA_LIMIT, find_dist_info
from k3diff.wheel.policy import AUDIT_POLICY
from k3diff.wheel.record import RecordLine, parse_record
from k3diff.wheel.refusals import doubled_suffix, no_wheel_filename
from k3diff.wheel.surfacekinds import Surface
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # a waiver file is read by the CLI (`wheel.waivers`, only with --waivers)
    from k3diff.audit.sdist import SdistAudit  # only a run with an sdist imports tarfile
    from k3diff.wheel.waivers import WaiverSet

_NAME = itemgetter(0)
"""`ZipEntry.name`, as a C-level key."""
_COMPRESSED_SIZE = itemgetter(5)
"""`ZipEntry.compressed_size`, as a C-level key."""


@dataclass(frozen=True)
class AuditOptions:
    """What `audit` does besides verifying every artifact."""

    manifest: Path | None = None
    """Verify the artifacts' SHA-256 against this `sha256sum` manifest."""
    write_manifest: Path | None = None
    """Write the artifacts' SHA-256 here, `sha256sum` style."""
    jobs: int | None = None
    """Worker threads (default: one per core)."""
    ignore_missing: bool = False
    """Manifest names not audited in this run are listed, not findings."""
    own_files: tuple[Path, ...] = ()
    """Files this run writes besides the manifest (the report): never taken from a directory
    as artifacts."""
    waivers: WaiverSet | None = None
    """`--waivers FILE`: reviewed findings that do not fail the audit (each listed with its
    reason)."""


@dataclass
class _Wheel:
    """One wheel being audited: its archive, RECORD expectations and findings so far."""

    archive: ZipArchive | None
    """None when the file is not a readable zip archive (A001)."""
    expected: dict[str, RecordLine]
    """RECORD's row for each path but its own (empty without a readable RECORD)."""
    findings: list[Finding]
    """Every finding so far."""
    surfaces: tuple[Surface, ...] = ()
    """The wheel's execution surfaces."""
    natives: tuple[NativeNeeds, ...] = ()
    """The wheel's ELF entries and what they need of the system."""
    not_elf: set[int] = dataclasses.field(default_factory=set)
    """Positions of entries whose verification read showed no ELF magic (A121 reads no head)."""
    dist_info: str | None = None
    """`find_dist_info` of the archive, found once."""

    @property
    def entries(self) -> tuple[ZipEntry, ...]:
        """The archive's entries (none when unreadable)."""
        return self.archive.entries if self.archive is not None else ()


def _own_manifests(options: AuditOptions) -> tuple[Path | None, ...]:
    """The manifest read, and the one written when the file there now is a manifest (the
    previous run's): never a wheel or any other file, which the CLI refuses to write over."""
    written = options.write_manifest
    return options.manifest, written if written is not None and is_manifest(written) else None


def audit(
    paths: Sequence[Path],
    options: AuditOptions | None = None,
    progress: ProgressCallback | None = None,
) -> AuditReport:
    """Audit every artifact in `paths` (a directory stands for the files directly in it, see
    `k3diff.audit.artifacts`); raise InputError only for one that cannot be read.

    `progress` is told the bytes done: every file's hashed bytes and every entry's compressed
    bytes, in proportion as it inflates."""
    options = options or AuditOptions()
    if options.manifest is not None and options.write_manifest is not None:
        raise UsageError("give --manifest or --write-manifest, not both")
    if not paths:
        raise UsageError("give at least one ARTIFACT")
    paths = without_manifests(paths, _own_manifests(options))
    if not paths:
        raise UsageError("give at least one ARTIFACT (the manifest is not an artifact of itself)")
    paths = expand_directories(
        paths, (options.manifest, options.write_manifest, *options.own_files)
    )
    read = read_manifest_digest(options.manifest) if options.manifest is not None else None
    if options.write_manifest is not None:
        for path in paths:  # before the work, not after it
            check_writable(
                manifest_name(str(path), options.write_manifest), path, options.write_manifest
            )
    for path in paths:
        _check_readable(path)
    # By the names alone: a directory over A128's cap is refused before a file is read.
    same_wheels = same_wheel_findings([str(path) for path in paths])
    jobs = options.jobs or os.cpu_count() or 1
    with ExitStack() as stack:
        pool = stack.enter_context(ThreadPoolExecutor(jobs, thread_name_prefix="k3diff-audit"))
        tally = Tally(sum(_file_size(path) for path in paths), progress, known=False)
        digests = [pool.submit(file_sha256, path, tally.advance()) for path in paths]
        sdists = [_submit_sdist(pool, path) for path in paths]
        wheels: list[_Wheel | None] = []
        for path in paths:
            wheel = _open_wheel(path) if path.suffix.lower() == ".whl" else None
            if wheel is not None and wheel.archive is not None:
                stack.callback(wheel.archive.close)
            wheels.append(wheel)
        readable = [w for w in wheels if w is not None and w.archive is not None]
        work = [(wheel, schedule.to_verify(wheel.entries)) for wheel in readable]
        tally.grow(sum(sum(map(_COMPRESSED_SIZE, entries)) for _, entries in work))
        # Runs first on the way out (callbacks unwind last in, first out): no task may still
        # be reading an archive when it is closed, also when a task raised.
        stack.callback(pool.shutdown, wait=True, cancel_futures=True)
        streamed, small = schedule.batches(work)
        tasks = _submit(pool, streamed, tally)
        for wheel in readable:
            assert wheel.archive is not None
            findings, wheel.surfaces = structure_findings(wheel.archive)
            wheel.findings.extend(findings)
            sidecar = sidecar_findings(wheel.archive.path, wheel.archive, wheel.dist_info)
            wheel.findings.extend(sidecar)
        # Batches of small entries are mostly Python per entry: run beside the structure checks
        # above they would take turns at the GIL with them (about 5 % more CPU in all on the
        # torch CPU wheel); the large entries, inflated and hashed with the GIL released, start
        # at once, so the largest library is not delayed.
        tasks += _submit(pool, small, tally)
        for wheel, future in tasks:
            findings, natives, not_elf = future.result()
            wheel.findings.extend(findings)
            wheel.natives += tuple(natives)
            wheel.not_elf.update(not_elf)
        for wheel in readable:
            assert wheel.archive is not None
            wheel.findings.extend(mode_findings(wheel.archive, wheel.not_elf))
            wheel.natives = tuple(sorted(wheel.natives, key=lambda n: n.entry))
            wheel.findings.extend(platform_findings(str(wheel.archive.path), wheel.natives))
            if options.waivers is not None:  # only a waiver reads the mark (a few heads read)
                wheel.findings = mark_natives(wheel.archive, wheel.findings)
        for position, finding in same_wheels.items():
            same = wheels[position]
            assert same is not None  # a wheel filename ends in `.whl`: audited as a wheel
            same.findings.append(finding)
        artifacts = tuple(
            _artifact(path, wheel, digest.result(), None if sdist is None else sdist.result())
            for path, wheel, digest, sdist in zip(paths, wheels, digests, sdists, strict=True)
        )
    manifest = None
    if read is not None and options.manifest is not None:
        audited = [(a.path, a.sha256) for a in artifacts]
        manifest = dataclasses.replace(
            check_manifest(str(options.manifest), read[0], audited),
            ignore_missing=options.ignore_missing,
            sha256=read[1],
        )
    policy = dataclasses.replace(AUDIT_POLICY, waivers=options.waivers)
    report = AuditReport(artifacts, manifest, None, policy)
    if options.write_manifest is not None and report.exit_code == ExitCode.OK:
        # Never a manifest that pins a failing artifact: written only when the audit passes
        # (the CLI says so on stderr when it does not).
        target = options.write_manifest
        write_atomic(
            target, manifest_text((a.sha256, manifest_name(a.path, target)) for a in artifacts)
        )
        report = dataclasses.replace(report, written_manifest=str(target))
    return report


def _check_readable(path: Path) -> None:
    """Refuse, before any work, a path that is not a readable regular file (a FIFO or a device
    would hang the hash or never end)."""
    with open(bounded.open_regular(path, str(path), "artifact"), "rb") as handle:
        try:
            handle.read(1)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _open_wheel(path: Path) -> _Wheel:
    """The opened wheel with its RECORD parsed, or one holding only its A001 finding; either
    way with A126 when its `.whl` name is no wheel filename, or one ending in `.whl` twice, which
    a release set does not pair either (the name is wrong however much of the file can be read)."""
    unnamed = doubled_suffix(str(path)) or no_wheel_filename(str(path))
    findings = [Finding(Code.A126, "", unnamed)] if unnamed is not None else []
    try:
        archive = ZipArchive.open(path)
    except CapError:
        raise  # as in `wheels`: k3diff cannot audit it within its bounds (exit 2)
    except ArchiveError as exc:
        detail = str(exc).removeprefix(f"{path}: ")
        return _Wheel(None, {}, [*findings, Finding(Code.A001, "", detail)])
    dist_info = find_dist_info(archive)
    # Only a name holding ".dist-info/" can have a top directory that ends in ".dist-info".
    tops = {e.name.partition("/")[0] for e in archive.entries if ".dist-info/" in e.name}
    if sum(1 for top in tops if top.endswith(".dist-info")) > 1:
        # pip refuses the wheel (W616 names the directories): no RECORD is the one it reads.
        return _Wheel(archive, {}, findings, dist_info=dist_info)
    if dist_info is None:
        findings.append(Finding(Code.A113, "", "no <name>.dist-info/METADATA at the top"))
        return _Wheel(archive, {}, findings)
    record_name = f"{dist_info}/RECORD"
    expected = _read_record(archive, record_name, findings)
    findings.extend(membership_findings(expected, archive.entries, dist_info))
    return _Wheel(archive, expected, findings, dist_info=dist_info)


def _read_record(
    archive: ZipArchive, record_name: str, findings: list[Finding]
) -> dict[str, RecordLine]:
    # The last of that name, as zipfile reads it (a name given twice is W608).
    entry = next((e for e in reversed(archive.entries) if e.name == record_name), None)
    if entry is None:
        findings.append(Finding(Code.A101, record_name, "no RECORD in the .dist-info"))
        return {}
    try:
        text = archive.read_content(entry, METADATA_LIMIT).decode("utf-8")
    except CapError:
        raise
    except ArchiveError as exc:  # its stream's own finding (W604) comes from verification
        detail = str(exc).removeprefix(f"{archive.path}: ")
        findings.append(Finding(Code.A101, record_name, f"unreadable: {detail}"))
        return {}
    except UnicodeDecodeError as exc:
        findings.append(Finding(Code.A102, record_name, f"not UTF-8 ({exc.reason})"))
        return {}
    record = parse_record(text, record_name)
    findings.extend(record.findings)
    return record.expected()


def _file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the hash says what is wrong with it


_Batch = tuple[_Wheel, list[ZipEntry]]


def _submit(
    pool: ThreadPoolExecutor, batches: list[_Batch], tally: Tally
) -> list[tuple[_Wheel, Future[Verified]]]:
    return [(wheel, pool.submit(_verify_batch, wheel, batch, tally)) for wheel, batch in batches]


def _verify_batch(wheel: _Wheel, entries: list[ZipEntry], tally: Tally) -> Verified:
    assert wheel.archive is not None
    return verify_batch(wheel.archive, wheel.expected, entries, tally)


def _submit_sdist(pool: ThreadPoolExecutor, path: Path) -> Future[SdistAudit] | None:
    """The sdist's audit under way (`audit.sdist`), or None for a file not named `*.tar.gz`."""
    if not is_sdist(path):
        return None
    from k3diff.audit.sdist import audit_sdist

    return pool.submit(audit_sdist, path)


def _artifact(
    path: Path, wheel: _Wheel | None, digest: tuple[str, int], sdist: SdistAudit | None
) -> ArtifactAudit:
    sha256, size = digest
    if sdist is not None:
        kind, members, dirs = ArtifactKind.SDIST, sdist.member_count, sdist.directory_count
        return ArtifactAudit(str(path), sha256, size, kind, members, dirs, _sorted(sdist.findings))
    if wheel is None:
        other = other_source_archive(path)
        found = () if other is None else (other,)
        return ArtifactAudit(str(path), sha256, size, ArtifactKind.FILE, 0, 0, found)
    findings = _sorted(wheel.findings)
    count = len(wheel.entries)
    # `entry.is_dir` of every entry, in C-level maps (12,000 property calls cost 3-4 ms)
    directories = sum(map(str.endswith, map(_NAME, wheel.entries), repeat("/")))
    return ArtifactAudit(
        str(path),
        sha256,
        size,
        ArtifactKind.WHEEL,
        count,
        directories,
        findings,
        wheel.surfaces,
        wheel.natives,
    )


def _sorted(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=lambda f: (f.code.name, f.path, f.detail)))
