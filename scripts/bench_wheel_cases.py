"""The four wheel pairs `bench_wheels.py` times: fetched from the package index or built once.

(a) torch 2.5.1 and a patch of it: 12 Python files edited, one added, RECORD rewritten, rebuilt
    with Info-ZIP `zip`, which re-deflates only the updated entries and copies the rest raw.
(b) the same patch content with every entry re-deflated at level 1 and written in reverse order.
(c) nvidia-cublas-cu12 12.9.0.13 against 12.9.1.4 (large natives that really changed).
(d) torch 2.5.0 against 2.5.1 (cp311 manylinux1 CUDA wheels, ~900 MB, one 900 MB library).
(e) and (f): (a) and (b) built from the torch 2.13.0 CPU wheel (~190 MB, ~12k mostly small
    entries): the many-small-entries shape. It is not downloaded: it is read from
    $K3DIFF_TORCH_CPU_WHEEL, default the copy this kind of machine has on its disk.

Built wheels are cached under versioned directory names and rebuilt byte for byte the same.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

TORCH_OLD = "torch-2.5.0-cp311-cp311-manylinux1_x86_64.whl"
TORCH_NEW = "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"
CUBLAS_OLD = "nvidia_cublas_cu12-12.9.0.13-py3-none-manylinux_2_27_x86_64.whl"
CUBLAS_NEW = "nvidia_cublas_cu12-12.9.1.4-py3-none-manylinux_2_27_x86_64.whl"
REQUIREMENTS = {
    TORCH_OLD: "torch==2.5.0",
    TORCH_NEW: "torch==2.5.1",
    CUBLAS_OLD: "nvidia-cublas-cu12==12.9.0.13",
    CUBLAS_NEW: "nvidia-cublas-cu12==12.9.1.4",
}
TORCH_CPU = Path(
    os.environ.get("K3DIFF_TORCH_CPU_WHEEL")
    or "/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
)
EDITED_FILES = 12
ADDED_PATH = "torch/_k3diff_bench_added.py"
ADDED_SOURCE = b'"""Added by the k3diff benchmark patch."""\n\nBENCH_PATCH = True\n'
EDIT_LINE = b"# edited by the k3diff benchmark patch\n"
RECOMPRESS_LEVEL = 1
CHUNK = 1 << 20
DateTime = tuple[int, int, int, int, int, int]


@dataclass(frozen=True)
class EditPlan:
    """Which entries the patch of case (a) touches."""

    edited: tuple[str, ...]
    """Python files with a comment line appended."""
    added: str
    """The Python file only the patch has."""
    record: str
    """The RECORD entry, rewritten for the edited and added files."""

    @property
    def touched(self) -> frozenset[str]:
        """Every entry whose content differs from the base."""
        return frozenset({*self.edited, self.added, self.record})


@dataclass(frozen=True)
class Case:
    """One wheel pair to time."""

    key: str
    """a, b, c or d."""
    title: str
    """What the pair is."""
    base: Path
    """The base wheel."""
    patch: Path
    """The patch wheel."""
    expected_exit: int
    """The exit code `k3diff wheels` must give."""
    plan: EditPlan | None = None
    """The edits, for the built patches (a) and (b)."""


TITLES = {
    "a": "torch 2.5.1 vs patch: 12 .py edited + 1 added, unchanged compressed bytes kept",
    "b": "torch 2.5.1 vs the same patch, every entry re-deflated (level 1), reverse order",
    "c": "nvidia-cublas-cu12 12.9.0.13 vs 12.9.1.4 (real releases, natives changed)",
    "d": "torch 2.5.0 vs 2.5.1 (cp311 manylinux1 CUDA wheels, 900 MB library)",
    "e": "torch 2.13.0 CPU vs patch: 12 .py edited + 1 added, compressed bytes kept "
    "(many small entries)",
    "f": "torch 2.13.0 CPU vs the same patch, every entry re-deflated (level 1), reverse order",
}
KEPT_BYTES = frozenset({"a", "e"})
"""Cases whose patch keeps unchanged entries' compressed bytes."""
RECOMPRESSED = frozenset({"b", "f"})
"""Cases whose patch re-deflated every entry: timed against the inflate floor."""


class CaseUnavailable(Exception):
    """A case's input wheel is not on this machine and is not downloaded."""


def prepare_case(key: str, cache: Path) -> Case:
    """Fetch or build the wheels of case `key` into `cache`."""
    if key == "c":
        base, patch = fetch(cache, CUBLAS_OLD), fetch(cache, CUBLAS_NEW)
        return Case(key, TITLES[key], base, patch, expected_exit=1)
    if key == "d":
        base, patch = fetch(cache, TORCH_OLD), fetch(cache, TORCH_NEW)
        return Case(key, TITLES[key], base, patch, expected_exit=1)
    if key in ("e", "f"):
        if not TORCH_CPU.is_file():
            raise CaseUnavailable(f"{TORCH_CPU} not found (set K3DIFF_TORCH_CPU_WHEEL)")
        base = TORCH_CPU
    else:
        base = fetch(cache, TORCH_NEW)
    plan = plan_edits(base)
    patch = build_edited_patch(cache, base, plan)
    if key in RECOMPRESSED:
        patch = build_recompressed_patch(cache, patch)
    # The real torch 2.5.1 wheel's file name says manylinux1 where its WHEEL file says
    # linux_x86_64: no contradiction to pip 26, which never reads WHEEL's tags to install (stop
    # 59, `wheel.tags.wider_tags`), so every case's verdict passes: the edit's Python files
    # changed (W201) and added (W203) are reported, not failed.
    expected = 0
    return Case(key, TITLES[key], base, patch, expected_exit=expected, plan=plan)


def fetch(cache: Path, filename: str) -> Path:
    """The wheel from the cache, downloaded with pip when missing."""
    target = cache / filename
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
    command += ["--python-version", "3.11", "--platform", "manylinux1_x86_64"]
    command += ["--platform", "manylinux_2_27_x86_64", "-d", str(cache), REQUIREMENTS[filename]]
    subprocess.run(command, check=True)
    if not target.is_file():
        raise RuntimeError(f"pip download did not produce {target}")
    return target


def plan_edits(base: Path) -> EditPlan:
    """The 12 largest Python files under torch/ (ties by name), so the choice never varies."""
    with zipfile.ZipFile(base) as archive:
        infos = archive.infolist()
    python = [i for i in infos if i.filename.startswith("torch/") and i.filename.endswith(".py")]
    python.sort(key=lambda info: (-info.file_size, info.filename))
    record = next(i.filename for i in infos if i.filename.endswith(".dist-info/RECORD"))
    edited = tuple(sorted(info.filename for info in python[:EDITED_FILES]))
    return EditPlan(edited=edited, added=ADDED_PATH, record=record)


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _rewrite_record(record: bytes, contents: dict[str, bytes], added: str) -> bytes:
    """RECORD with correct rows for the edited files and a new row before RECORD's own."""
    rows = list(csv.reader(io.StringIO(record.decode())))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        if row and row[0].endswith(".dist-info/RECORD"):
            data = contents[added]
            writer.writerow([added, _record_hash(data), len(data)])
        if row and row[0] in contents:
            data = contents[row[0]]
            row = [row[0], _record_hash(data), str(len(data))]
        writer.writerow(row)
    return out.getvalue().encode()


def _stage(staging: Path, name: str, data: bytes, date_time: DateTime) -> None:
    """Write one file with a fixed mtime: zip stores it, so rebuilds stay byte-identical."""
    target = staging / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    year, month, day, hour, minute, second = date_time
    stamp = time.mktime((year, month, day, hour, minute, second, 0, 0, -1))
    os.utime(target, (stamp, stamp))


def _patch_contents(base: Path, plan: EditPlan) -> tuple[dict[str, bytes], DateTime]:
    with zipfile.ZipFile(base) as archive:
        contents: dict[str, bytes] = {}
        for name in plan.edited:
            data = archive.read(name)
            contents[name] = data + (b"" if data.endswith(b"\n") else b"\n") + EDIT_LINE
        contents[plan.added] = ADDED_SOURCE
        record_info = archive.getinfo(plan.record)
        contents[plan.record] = _rewrite_record(archive.read(record_info), contents, plan.added)
    return contents, record_info.date_time


def build_edited_patch(cache: Path, base: Path, plan: EditPlan) -> Path:
    """Case (a): copy the base, then let `zip` replace the edited entries and add the new one."""
    target = cache / "patch-a-v1" / base.name
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    contents, record_time = _patch_contents(base, plan)
    partial = target.with_name(target.name + ".tmp")
    shutil.copyfile(base, partial)
    with tempfile.TemporaryDirectory(dir=cache, prefix="staging-") as staging_dir:
        staging = Path(staging_dir)
        with zipfile.ZipFile(base) as archive:
            for name, data in contents.items():
                info_time = record_time if name == plan.added else archive.getinfo(name).date_time
                _stage(staging, name, data, info_time)
        # -X: no uid/gid or extra timestamps, so the new entries do not depend on who builds.
        env = {key: value for key, value in os.environ.items() if key not in ("ZIPOPT", "ZIP")}
        command = ["zip", "-q", "-X", str(partial), *sorted(contents)]
        subprocess.run(command, cwd=staging, check=True, env=env)
    verify_raw_kept(base, partial, plan)
    os.replace(partial, target)
    return target


def verify_raw_kept(base: Path, patch: Path, plan: EditPlan) -> None:
    """Unchanged entries must keep method, CRC-32 and compressed size; touched ones must differ."""
    with zipfile.ZipFile(base) as old, zipfile.ZipFile(patch) as new:
        before = {info.filename: info for info in old.infolist()}
        after = {info.filename: info for info in new.infolist()}
    if set(after) != set(before) | {plan.added}:
        raise RuntimeError(f"{patch}: entry names are not the base's plus {plan.added}")
    for name, info in before.items():
        kept = (info.compress_type, info.CRC, info.compress_size)
        now = (after[name].compress_type, after[name].CRC, after[name].compress_size)
        if name in plan.touched and kept == now:
            raise RuntimeError(f"{patch}: {name} should have been rewritten but was not")
        if name not in plan.touched and kept != now:
            raise RuntimeError(f"{patch}: {name} lost its compressed bytes (method/CRC/size)")


def build_recompressed_patch(cache: Path, source: Path) -> Path:
    """Case (b): every entry of `source` re-deflated at another level, in reverse order."""
    target = cache / "patch-b-v1" / source.name
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".tmp")
    with zipfile.ZipFile(source) as reader, zipfile.ZipFile(partial, "w") as writer:
        for info in reversed(reader.infolist()):
            _copy_recompressed(reader, writer, info)
    verify_recompressed(source, partial)
    os.replace(partial, target)
    return target


def _copy_recompressed(
    reader: zipfile.ZipFile, writer: zipfile.ZipFile, info: zipfile.ZipInfo
) -> None:
    """Stream one entry through inflate and deflate; never holds it whole in memory."""
    out = zipfile.ZipInfo(info.filename, info.date_time)
    out.compress_type = zipfile.ZIP_DEFLATED
    # ZipFile.open(ZipInfo, "w") takes the level from the ZipInfo, which has no public setter
    # on Python 3.11.
    setattr(out, "_compresslevel", RECOMPRESS_LEVEL)  # noqa: B010
    out.external_attr = info.external_attr
    out.create_system = info.create_system
    out.file_size = info.file_size  # lets zipfile choose zip64 ahead of writing
    big = info.file_size > (1 << 31)
    with reader.open(info) as src, writer.open(out, "w", force_zip64=big) as dst:
        shutil.copyfileobj(src, dst, CHUNK)


def verify_recompressed(source: Path, patch: Path) -> None:
    """Same names, sizes and CRC-32s as `source`, in reverse order."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(patch) as new:
        before = [(i.filename, i.file_size, i.CRC) for i in old.infolist()]
        after = [(i.filename, i.file_size, i.CRC) for i in new.infolist()]
    if after != before[::-1]:
        raise RuntimeError(f"{patch}: entries differ from {source} reversed")


def compressed_layouts(path: Path) -> dict[str, tuple[int, int]]:
    """Compression method and compressed size of every entry, from the central directory."""
    with zipfile.ZipFile(path) as archive:
        return {i.filename: (i.compress_type, i.compress_size) for i in archive.infolist()}
