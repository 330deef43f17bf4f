"""When each request was answered, and how many were being answered together (overlap proof).

A request's window runs from the first byte of its answer (the response headers) to its last,
as the client received them: the time the server was provably working on it. `Receiving`
keeps the open windows per side; each `Timing` remembers the largest number of windows open at
once while its own was open (`peak`, itself included). A server that serialises requests
behind a lock answers one after the other, so every peak is 1; one that batches them answers
them together. Serial mode's peaks are 1 by construction.
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
        self.ended: float | None = None
        """When the request ended (answer read, or failed)."""
        self.peak = 0
        """The most windows open together while this one was (itself included); 0: no answer."""
        self._open = False

    def sending(self) -> None:
        """An attempt is sent (a retry closes the earlier attempt's window)."""
        self._close()
        self.sent = time.time()
        self.first_byte = None

    def answering(self) -> None:
        """The answer's first byte arrived."""
        if self.first_byte is None:
            self.first_byte = time.time()
            self._open = True
            if self._receiving is not None:
                self._receiving.opened(self)
            else:
                self.peak = max(self.peak, 1)

    def done(self) -> None:
        """The request ended."""
        self.ended = time.time()
        self._close()

    def _close(self) -> None:
        if self._open:
            self._open = False
            if self._receiving is not None:
                self._receiving.closed(self)
