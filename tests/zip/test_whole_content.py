"""`inflate.whole_content` and `inflate.inflate_stream` (igzip's inflater, the CRC-32 computed while inflating) against the
path it replaced in `ZipArchive.small_content`: `isal_zlib`'s decompressobj capped at size + 1
bytes, exact end and size required, and a separate `crc32`. Same content, same CRC-32, and None
exactly where the old path gave None, on honest and damaged streams: truncated, bytes flipped,
trailing bytes, a declared size off by one either way, and a small bomb. The streamed inflater
likewise against the decompressobj loop `ZipArchive` streamed with, problems worded alike."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.zip.directory import DEFLATED, STORED
from k3diff.zip.inflate import (
    INFLATE_ERRORS,
    StreamProblem,
    _streamed_zlib,
    crc32,
    inflate_stream,
    new_decompressor,
    whole_content,
)


def _reference(method: int, raw: bytes, size: int) -> tuple[bytes, int] | None:
    """What `small_content` did before `whole_content`, with the CRC-32 its callers computed."""
    if method == STORED:
        return (raw, crc32(raw)) if len(raw) == size else None
    decompressor = new_decompressor()
    try:
        out = decompressor.decompress(raw, size + 1)
    except INFLATE_ERRORS:
        return None
    exact = decompressor.eof and not decompressor.unused_data
    return (out, crc32(out)) if exact and len(out) == size else None


def _deflated(content: bytes, level: int) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(content) + compressor.flush()


CONTENT = st.one_of(
    st.binary(max_size=3000),
    st.builds(lambda unit, n: unit * n, st.binary(min_size=1, max_size=12), st.integers(1, 4000)),
)


@st.composite
def streams(draw: st.DrawFn) -> tuple[int, bytes, int]:
    """(method, raw stream, declared size), honest or damaged."""
    content = draw(CONTENT)
    method = draw(st.sampled_from([DEFLATED, DEFLATED, DEFLATED, STORED]))
    raw = _deflated(content, draw(st.integers(0, 9))) if method == DEFLATED else content
    size = len(content)
    damage = draw(st.sampled_from(["none", "none", "truncate", "flip", "trail", "size"]))
    if damage == "truncate" and raw:
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    elif damage == "flip" and raw:
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + bytes([raw[at] ^ draw(st.integers(1, 255))]) + raw[at + 1 :]
    elif damage == "trail":
        raw += draw(st.binary(min_size=1, max_size=9))
    elif damage == "size":
        size = max(0, size + draw(st.sampled_from([-1, 1])))
    return method, raw, size


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans())
def test_whole_content_matches_the_decompressobj_path(
    stream: tuple[int, bytes, int], with_crc: bool
) -> None:
    method, raw, size = stream
    expected = _reference(method, raw, size)
    got = whole_content(method, memoryview(raw), size, with_crc)
    if expected is None:
        assert got is None
        return
    assert got is not None
    assert got[0] == expected[0]
    assert got[1] == (expected[1] if with_crc else None)


def test_a_small_bomb_is_not_inflated_past_its_declared_size() -> None:
    raw = _deflated(b"\0" * (8 << 20), 9)
    assert whole_content(DEFLATED, raw, 1000, True) is None
    assert _reference(DEFLATED, raw, 1000) is None


def test_the_crc_is_the_content_crc() -> None:
    content = b"".join(b"line %d\n" % i for i in range(5000))
    got = whole_content(DEFLATED, _deflated(content, 6), len(content), True)
    assert got == (content, zlib.crc32(content))
    assert whole_content(DEFLATED, _deflated(content, 1), len(content), False) == (content, None)


def _stream_outcome(
    stream: Callable[..., Iterator[bytes]], raw: bytes, step: int, chunk: int, with_crc: bool
) -> tuple[bytes, str | None, int | None]:
    """(content read, problem or None, CRC-32 or None) of one streamed inflate of `raw`."""
    crc = [0] if with_crc else None

    def steps() -> Iterator[bytes]:
        return (raw[at : at + step] for at in range(0, len(raw), step))

    out = bytearray()
    try:
        for piece in stream(steps, len(raw), chunk, crc):
            assert 0 < len(piece) <= chunk
            out += piece
    except StreamProblem as exc:
        return bytes(out), str(exc), None
    return bytes(out), None, crc[0] if crc is not None else None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.sampled_from([1, 7, 64, 512, 4096]), st.sampled_from([1, 100, 8192]))
def test_inflate_stream_matches_the_decompressobj_path(
    stream: tuple[int, bytes, int], step: int, chunk: int
) -> None:
    """Same content, same problem in the same words, same CRC-32 (the content's), whatever the
    input steps and output chunk: igzip's inflater against `isal_zlib`'s decompressobj."""
    _, raw, _ = stream
    for with_crc in (True, False):
        expected = _stream_outcome(
            lambda steps, size, chunk, crc: _streamed_zlib(steps(), size, chunk, crc),
            raw,
            step,
            chunk,
            with_crc,
        )
        got = _stream_outcome(inflate_stream, raw, step, chunk, with_crc)
        assert got[1] == expected[1]
        if expected[1] is None:
            assert got == expected
            assert with_crc is False or got[2] == zlib.crc32(got[0])
        else:  # both stop at the problem; what came before it is the same content
            assert got[0] == expected[0][: len(got[0])] or expected[0] == got[0][: len(expected[0])]
