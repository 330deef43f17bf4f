"""Embedded GPU images: standalone fatbins, .nv_fatbin sections of host libraries, and cubins."""

from __future__ import annotations

from pathlib import Path

from elfkit import (
    EM_CUDA,
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHT_PROGBITS,
    FatImage,
    Section,
    build_elf,
    build_fatbin,
    build_id_note,
    text_section,
)

from k3diff.native import NativeExplanation, explain_native

LZ4_64BIT_LINUX = 0x2011
ZSTD_64BIT_LINUX = 0x8011


def explain(
    tmp_path: Path, base: bytes, patch: bytes, suffix: str = ".fatbin"
) -> NativeExplanation:
    base_path, patch_path = tmp_path / f"base{suffix}", tmp_path / f"patch{suffix}"
    base_path.write_bytes(base)
    patch_path.write_bytes(patch)
    return explain_native(base_path, patch_path)


def host_library(fatbin: bytes) -> bytes:
    sections = [
        build_id_note(b"\x07" * 20),
        text_section(b"\xc3" * 16),
        Section(".nv_fatbin", SHT_PROGBITS, fatbin, flags=SHF_ALLOC),
    ]
    return build_elf(sections).data


def test_fatbin_with_one_of_two_images_changed_lists_that_image(tmp_path: Path) -> None:
    ptx = FatImage(1, 90, b"// ptx for sm_90\n")
    base = build_fatbin([[ptx, FatImage(2, 90, b"cubin v1", LZ4_64BIT_LINUX, 4096)]])
    patch = build_fatbin([[ptx, FatImage(2, 90, b"cubin v2!", LZ4_64BIT_LINUX, 4100)]])
    result = explain(tmp_path, base, patch)
    assert result.format == "cuda-fatbin"
    assert result.classification == ("cuda",)
    cuda = result.cuda
    assert cuda is not None
    assert (cuda.base_images, cuda.patch_images, cuda.identical) == (2, 2, 1)
    assert cuda.added == () and cuda.removed == ()
    [change] = cuda.changed
    assert (change.base.kind, change.base.sm_arch, change.base.entry_index) == ("cubin", 90, 1)
    assert change.base.compressed and change.base.compression == "lz4"
    assert (change.base.size, change.patch.size) == (8, 9)
    assert (change.base.uncompressed_size, change.patch.uncompressed_size) == (4096, 4100)
    assert change.base.xxh3_128 != change.patch.xxh3_128


def test_added_and_removed_images_pair_by_content_first(tmp_path: Path) -> None:
    sm80, sm90 = FatImage(2, 80, b"kernel for 80"), FatImage(2, 90, b"kernel for 90")
    sm100 = FatImage(2, 100, b"kernel for 100", ZSTD_64BIT_LINUX)
    result = explain(tmp_path, build_fatbin([[sm80, sm90]]), build_fatbin([[sm90], [sm100]]))
    cuda = result.cuda
    assert cuda is not None and cuda.identical == 1
    assert [(i.sm_arch, i.container_index) for i in cuda.removed] == [(80, 0)]
    assert [(i.sm_arch, i.compression) for i in cuda.added] == [(100, "zstd")]
    assert cuda.changed == ()


def test_same_arch_images_pair_in_order_among_the_unmatched(tmp_path: Path) -> None:
    images = [FatImage(2, 90, f"kernel {n}".encode()) for n in range(3)]
    rebuilt = [images[0], FatImage(2, 90, b"kernel 1 rebuilt"), FatImage(2, 90, b"kernel 2 new")]
    cuda = explain(tmp_path, build_fatbin([images]), build_fatbin([rebuilt])).cuda
    assert cuda is not None and cuda.identical == 1
    assert [(c.base.entry_index, c.patch.entry_index) for c in cuda.changed] == [(1, 1), (2, 2)]


def test_nv_fatbin_section_of_a_host_library_is_walked(tmp_path: Path) -> None:
    kept = FatImage(2, 80, b"unchanged kernel", LZ4_64BIT_LINUX)
    base = host_library(build_fatbin([[kept, FatImage(2, 90, b"old kernel", LZ4_64BIT_LINUX)]]))
    patch = host_library(build_fatbin([[kept, FatImage(2, 90, b"new kernel", LZ4_64BIT_LINUX)]]))
    result = explain(tmp_path, base, patch, suffix=".so")
    assert result.format == "elf"
    assert result.classification == ("cuda",)
    assert [row.name for row in result.differing_sections] == [".nv_fatbin"]
    cuda = result.cuda
    assert cuda is not None and cuda.section == ".nv_fatbin"
    assert [(c.base.sm_arch, c.base.kind) for c in cuda.changed] == [(90, "cubin")]
    assert "CUDA images 1 changed" in result.summary


def test_identical_nv_fatbin_gives_no_cuda_changes(tmp_path: Path) -> None:
    fatbin = build_fatbin([[FatImage(2, 90, b"same")]])
    base = host_library(fatbin)
    patch = bytearray(base)
    patch[base.index(b"\xc3" * 16)] = 0x90
    result = explain(tmp_path, base, bytes(patch), suffix=".so")
    assert result.classification == ("code",) and result.cuda is None


def test_damaged_nv_fatbin_is_reported_not_raised(tmp_path: Path) -> None:
    good = build_fatbin([[FatImage(2, 90, b"kernel")]])
    damaged = bytearray(good)
    damaged[8:16] = (10**6).to_bytes(8, "little")  # container claims more bytes than exist
    result = explain(tmp_path, host_library(good), host_library(bytes(damaged)), suffix=".so")
    assert result.error is None and "cuda" in result.classification
    assert result.cuda is not None and result.cuda.error is not None
    assert result.cuda.error.startswith("patch: .nv_fatbin: container at offset")


def test_damaged_standalone_fatbin_gives_an_error(tmp_path: Path) -> None:
    good = build_fatbin([[FatImage(2, 90, b"kernel")]])
    result = explain(tmp_path, good, good[:40])
    assert result.format == "cuda-fatbin"
    assert result.error is not None and result.error.startswith("malformed fatbin: patch:")


def cubin(e_flags: int, abi_version: int, code: bytes) -> bytes:
    kernel = Section(".text.my_kernel", SHT_PROGBITS, code, flags=SHF_ALLOC | SHF_EXECINSTR)
    return build_elf(
        [kernel], machine=EM_CUDA, e_flags=e_flags, abi_version=abi_version, load_segment=False
    ).data


def test_cubin_reports_its_arch_and_changed_kernel(tmp_path: Path) -> None:
    base, patch = cubin(0x5A055A, 7, b"\x01" * 32), cubin(0x5A055A, 7, b"\x02" * 32)
    result = explain(tmp_path, base, patch, suffix=".cubin")
    assert result.format == "cubin"
    assert (result.base.sm_arch, result.base.machine) == (90, "EM_CUDA")
    assert result.classification == ("code", "cuda")
    assert [row.name for row in result.differing_sections] == [".text.my_kernel"]
    assert result.cuda is not None and len(result.cuda.changed) == 1


def test_cubin_abi_version_8_keeps_the_arch_in_the_second_byte(tmp_path: Path) -> None:
    data = cubin(0x6006402, 8, b"\x01" * 8)
    result = explain(tmp_path, data, data, suffix=".cubin")
    assert result.base.sm_arch == 100
    assert result.classification == ("identical-content",) and result.cuda is None
