"""Reading a server's body under caps (`k3diff.sample.response` says why each is bounded):
at most `--max-response-bytes` of a body, decoded, streamed or not (`TooLarge` beyond), and only
one `Content-Encoding` whose expansion is bounded (gzip or deflate, as `ACCEPT_ENCODING`
advertises: `UnboundedEncoding` for any other, or stacked ones)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from k3diff.bounded import size_text

MAX_ERROR_CHARS = 200

ACCEPT_ENCODING = "gzip, deflate"
"""What every request advertises, whatever decoders are installed: the encodings whose
expansion is bounded."""
_DECODED = frozenset({"gzip", "deflate", "identity"})


class TooLarge(Exception):
    """The body is larger than the cap (not retried: the same request would be as large)."""

    def __init__(self, cap: int) -> None:
        super().__init__(
            f"the answer is larger than {size_text(cap)} (--max-response-bytes); not read further"
        )


class UnboundedEncoding(TooLarge):
    """The answer is encoded in a way whose expansion k3diff cannot bound (not retried)."""

    def __init__(self, encoding: str) -> None:
        Exception.__init__(
            self,
            f"the answer's Content-Encoding is {one_line(encoding)!r}; only one of gzip or "
            f"deflate is decoded (asked for with Accept-Encoding: {ACCEPT_ENCODING}); not read",
        )


def check_encoding(response: httpx.Response) -> None:
    """UnboundedEncoding unless the body is identity, gzip or deflate, once."""
    header = response.headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in header.split(",") if c.strip()]
    if len(codings) > 1 or not set(codings) <= _DECODED:
        raise UnboundedEncoding(header)


async def read_capped(response: httpx.Response, cap: int, truncate: bool = False) -> bytes:
    """The (decoded) body of `response`, at most `cap` bytes: TooLarge beyond that, or with
    `truncate` the first `cap` bytes (an error answer read for its message); UnboundedEncoding
    for a body in an encoding whose expansion is not bounded."""
    check_encoding(response)
    declared = response.headers.get("content-length", "")
    if not truncate and declared.isdigit() and int(declared) > cap:
        raise TooLarge(cap)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > cap:
            if not truncate:
                raise TooLarge(cap)
            chunks.append(chunk[: len(chunk) - (size - cap)])
            break
        chunks.append(chunk)
    return b"".join(chunks)


async def stream_lines(response: httpx.Response, cap: int) -> AsyncIterator[str]:
    """The lines of an event stream (``\n`` or ``\r\n`` ended), at most `cap` bytes in all:
    TooLarge beyond that, however the bytes are split into lines (one endless line too)."""
    check_encoding(response)
    pending = bytearray()
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > cap:
            raise TooLarge(cap)
        pending += chunk
        if b"\n" not in chunk:
            continue
        *lines, rest = pending.split(b"\n")
        pending = bytearray(rest)
        for line in lines:
            yield line.decode("utf-8", "replace").removesuffix("\r")
    if pending:
        yield pending.decode("utf-8", "replace").removesuffix("\r")


def one_line(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
