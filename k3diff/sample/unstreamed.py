"""What the answer to a stream request is when it is no event stream.

A request with `stream: true` expects `text/event-stream`. Whatever the label says, every answer
to a stream request is read through one watch (`Sniff`) until one event-stream line comes: a
label proves nothing, so a body labelled `application/json`, one with no Content-Type, as
`text/plain` or even as `text/event-stream` is judged by what it holds. A body without one
event-stream line that is one whole JSON completion is a server that ignores `stream: true`
(`NotStreamed`); one that is neither an event stream nor JSON (an HTML page, a proxy's notice)
shows that the URL leads to no completion server at all (`not_an_endpoint`). Either way every
answer of that server will be so and no sample can be taken there: the run stops (a
`ServerError`, exit 2) at the first such answer with one line naming the URL, instead of failing
each of thousands of requests in turn; the samples already in the log stay there (`k3diff.sample.stop` says how many; `--resume`
continues after a page or a notice, and after a server that does not stream is not offered:
it would send the same stream requests). What stays as before: an empty body is a stream
that ended before its first chunk, and JSON that does not parse (or holds no completion) is a
malformed answer, both retried as for a non-streamed request, as is an event stream cut after
its first lines; a mislabelled body whose lines are an event stream is read as one. The answer
to a non-stream request that does not even begin like a JSON object (`not_json`) stops the run
the same way.
"""

from __future__ import annotations

from k3diff.sample.bodyread import TooLarge, one_line
from k3diff.sample.response import read_body
from k3diff.sample.stopline import ServerStop, StopReason

SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":")
"""How an event-stream line that is not blank begins (a comment begins with the colon)."""

PREVIEW_CHARS = 60
"""Characters of a body that is neither an event stream nor JSON shown in the error."""


def media_type(content_type: str) -> str:
    """The media type of a Content-Type header, lower case, without its parameters."""
    return content_type.split(";", 1)[0].strip().lower()


class NotStreamed(ServerStop):
    """A stream was asked for and the server answered one whole JSON completion: it ignores
    `stream: true`, every answer will be so, and the run stops (exit 2)."""

    def __init__(self, url: str, media: str) -> None:
        super().__init__(
            f"{url}: answered a stream request (stream: true) with one whole JSON completion "
            f"{_labelled(media)}, not an event stream: the server does not stream (sample it "
            "without --stream, in another --out)",
            url,
            StopReason.NOT_STREAMED,
        )


def not_an_endpoint(url: str, request: str, media: str, first: str, what: str) -> ServerStop:
    """The run-stopping error for an answer whose body is `what` (an HTML page, a proxy's
    notice): the URL leads to no completion server, no sample can be taken there."""
    begins = one_line(first, PREVIEW_CHARS)
    return ServerStop(
        f"{url}: answered {request} {_labelled(media)} with a body that is {what} (it begins "
        f"{begins!r}): not an OpenAI-compatible endpoint",
        url,
        StopReason.NOT_AN_ENDPOINT,
    )


def not_json(content: bytes, media: str, url: str) -> None:
    """ServerError (`not_an_endpoint`) for a non-stream answer that did not read as a
    completion and whose body does not even begin like a JSON object or array (an HTML page, a
    proxy's notice, a bare word): a completion server never answers so, and a retry cannot help.
    An empty body, or one that begins like JSON but does not parse (cut short), stays a
    malformed answer, retried."""
    text = content.lstrip()
    if not text or text[:1] in b"{[":
        return
    first = text[:512].decode("utf-8", "replace").splitlines()[0]
    raise not_an_endpoint(url, "a completion request", media, first, "not a JSON object")


def _labelled(media: str) -> str:
    return f"as {one_line(media)}" if media else "with no Content-Type"


class Sniff:
    """The lines of an answer to a stream request, whatever its label, until one of them shows
    it is an event stream: its first line that is not blank, and the whole
    body while it begins like JSON (within `--max-response-bytes`: TooLarge beyond)."""

    def __init__(self, url: str, media: str, max_bytes: int) -> None:
        self._url = url
        self._media = media
        self._max_bytes = max_bytes
        self._first: str | None = None
        self._body: bytearray | None = bytearray()

    def take(self, line: str, text: str) -> bool:
        """Take one line (`text`: stripped); False when it is an event-stream line."""
        if text.startswith(SSE_FIELDS):
            return False
        if self._first is None and text:
            self._first = text
            if text[0] not in "{[":
                self._body = None  # not JSON: only an event-stream line can still save it
        if self._body is not None:
            self._body += line.encode()
            self._body += b"\n"
            if len(self._body) > self._max_bytes:
                raise TooLarge(self._max_bytes)
        return True

    def no_events(self) -> Exception | None:
        """The run-stopping error for a body without one event-stream line: NotStreamed for a
        whole completion, `not_an_endpoint` for a body that is not JSON at all; None when
        nothing but blank lines came (a stream cut before its first chunk). Raises BadAnswer (retried) for JSON
        that holds no completion."""
        if self._first is None:
            return None
        if self._body is None:
            return not_an_endpoint(
                self._url, "a stream request (stream: true)", self._media, self._first,
                "neither an event stream nor JSON",
            )  # fmt: skip
        read_body(bytes(self._body), self._max_bytes, None)  # BadAnswer: it holds no completion
        return NotStreamed(self._url, self._media)
