"""When each request was answered, and how many were being answered together (overlap proof).

A request's window is the time the server was provably working on it, as the client received
its answer: for a streamed answer from its first token (the first chunk carrying text, token
ids or logprobs) to its last byte; for a whole answer from the response headers to its last
byte. Headers and an empty first chunk prove nothing: a server that queues requests behind a
lock can send them at once for every request and then generate one after the other (as
`transformers serve` without continuous batching does), so they open no window. `Receiving`
keeps the open windows per side; each `Timing` remembers the largest number of windows open at
once while its own was open (`peak`, itself included). A server that serialises requests
answers one after the other, so every peak is 1; one that batches them answers them together.
Serial mode's peaks are 1 by construction. A whole answer's headers can still come early from
a server that queues: the server's own running-requests gauge (`k3diff.sample.metrics`) covers
that case where `/metrics` has one.
"""

from __future__ import annotations

import time


class Receiving:
    """The windows open now, per side."""

    def __init__(self) -> None:
        self._open: dict[str, set[Timing]] = {}

    def opened(self, timing: Timing) -> None:
        found = self._open.setdefault(timing.side, set())
        found.add(timing)
        count = len(found)
        for other in found:
            if other.peak < count:
                other.peak = count

    def closed(self, timing: Timing) -> None:
        self._open.get(timing.side, set()).discard(timing)


class Timing:
    """Send, first-byte and end times of one request's last attempt (epoch seconds)."""

    def __init__(self, receiving: Receiving | None, side: str) -> None:
        self._receiving = receiving
        self.side = side
        self.sent: float | None = None
        """When the last attempt was sent."""
        self.first_byte: float | None = None
        """When its answer's first byte (the headers) arrived, None when none did."""
        self.first_token: float | None = None
        """When a streamed answer's first token arrived (None for a whole answer)."""
        self.ended: float | None = None
        """When the request ended (answer read, or failed)."""
        self.peak = 0
        """The most windows open together while this one was (itself included); 0: no answer."""
        self._open = False
        self._opened = False

    def sending(self) -> None:
        """An attempt is sent (a retry closes the earlier attempt's window)."""
        self._close()
        self.sent = time.time()
        self.first_byte = None
        self.first_token = None
        self._opened = False

    def answering(self, opens: bool = True) -> None:
        """The answer's first byte (the headers) arrived; it opens the window unless the answer
        is streamed (`opens=False`: its first token does, see `producing`)."""
        if self.first_byte is None:
            self.first_byte = time.time()
            if opens:
                self._open_window()

    def producing(self) -> None:
        """A streamed answer's first token arrived: the server is generating it."""
        if self.first_byte is not None and self.first_token is None:
            self.first_token = time.time()
            self._open_window()

    def _open_window(self) -> None:
        if self._opened:  # once per attempt (an open window has been opened)
            return
        self._open = self._opened = True
        if self._receiving is not None:
            self._receiving.opened(self)
        else:
            self.peak = max(self.peak, 1)

    def done(self) -> None:
        """The request ended (a streamed answer that never carried a token is counted as open
        at its end, with whatever is open then)."""
        self.ended = time.time()
        if self.first_byte is not None:
            self._open_window()
        self._close()

    def _close(self) -> None:
        if self._open:
            self._open = False
            if self._receiving is not None:
                self._receiving.closed(self)
