"""When each request was answered, and which streams interleaved at the client.

A request's window is the time the client received its answer: for a streamed answer from its
first token (the first chunk carrying text, token ids or logprobs) to its last byte; for a whole
answer from the response headers to its last byte. `Receiving` keeps the open windows per side;
each `Timing` remembers the largest number of windows open at once while its own was open
(`peak`, the client's view, kept in the log as `in_flight`).

Open windows prove nothing about the server: a server that queues requests behind a lock can
send headers at once and then generate one answer after the other (`transformers serve` without
continuous batching, llama-cpp-python), answers finished one service time apart arrive "close
together" after a stall, and the next stream's first token can arrive a millisecond before the
previous one's last byte. So for streamed answers `Receiving` also counts, per pair of streams
to one server, the token chunks each received while the other's window was open: two streams
**interleaved** only when each received at least two while the other was open
(`MIN_TOKENS_WHILE_OPEN`). A retried attempt starts from nothing (what an interrupted attempt
interleaved with is forgotten, on both sides), and headers without tokens open no stream window.

Interleaving is the client's arrival clock, not the server's work: a serial engine behind a
front end that paces its answers out, holds back their last tokens or flushes them in bursts
interleaves them too (tests/sample/test_serial_gateways.py). So streams that never interleaved
show a batch was not exercised, and streams that did prove nothing (`k3diff.sample.proof`);
only the server's own running-requests gauge (`k3diff.sample.metrics`) proves overlap, where
`/metrics` has one.
"""

from __future__ import annotations

import time

MIN_TOKENS_WHILE_OPEN = 2
"""Token chunks each of two streams must receive while the other is open to count as
interleaved: one chunk can straddle a boundary (the next stream's first token just before the
previous one's last byte), so a serial server read directly never reaches two on both sides."""


class Receiving:
    """The windows open now, per side, and the token chunks streams received while others
    were open."""

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
        found = self._open.get(timing.side, set())
        found.discard(timing)
        for other in found:  # a closed window gains no more proof: drop its counts
            other.heard.pop(timing, None)
        timing.heard = {}

    def token(self, timing: Timing) -> None:
        """A token chunk of `timing`'s stream arrived: count it against every other stream
        window open now, and mark the pairs that have both received enough."""
        for other in self._open.get(timing.side, ()):
            if other is timing or other.first_token is None:
                continue
            heard = timing.heard.get(other, 0) + 1
            timing.heard[other] = heard
            if heard >= MIN_TOKENS_WHILE_OPEN <= other.heard.get(timing, 0):
                timing.overlapped.add(other)
                other.overlapped.add(timing)


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
        self.streamed = False
        """The last attempt was a streamed one."""
        self.heard: dict[Timing, int] = {}
        """Per other stream, the token chunks this one received while that one was open."""
        self.overlapped: set[Timing] = set()
        """The other streams in flight that interleaved with this one."""
        self.settled = 0
        """Streams that interleaved with this one and have ended (references are dropped at
        the end, so a long run holds no chain of finished requests)."""
        self._open = False
        self._opened = False

    def sending(self, streamed: bool = False) -> None:
        """An attempt is sent (a retry closes the earlier attempt's window and forgets what it
        overlapped, on both sides)."""
        self._close()
        self._forget()
        self.sent = time.time()
        self.first_byte = None
        self.first_token = None
        self.streamed = streamed
        self._opened = False

    def _forget(self) -> None:
        for other in self.overlapped:
            other.overlapped.discard(self)
        self.overlapped = set()
        self.settled = 0

    def answering(self, opens: bool = True) -> None:
        """The answer's first byte (the headers) arrived; it opens the window unless the answer
        is streamed (`opens=False`: its first token does, see `producing`)."""
        if self.first_byte is None:
            self.first_byte = time.time()
            if opens:
                self._open_window()

    def producing(self) -> None:
        """A streamed answer's token chunk arrived: the first opens its window; each is counted
        against the other streams open now."""
        if self.first_byte is None:
            return
        if self.first_token is None:
            self.first_token = time.time()
            self._open_window()
        if self._receiving is not None:
            self._receiving.token(self)

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
        at its end, with whatever is open then, for `peak` only: it proves no overlap)."""
        self.ended = time.time()
        if self.first_byte is not None:
            self._open_window()
        self._close()
        for other in self.overlapped:
            other.overlapped.discard(self)
            other.settled += 1
        self.settled += len(self.overlapped)
        self.overlapped = set()

    @property
    def streams_overlapped(self) -> int | None:
        """For a streamed answer, how many other streams to its server interleaved with it at
        the client; None for a whole answer."""
        return self.settled + len(self.overlapped) if self.streamed else None

    def _close(self) -> None:
        if self._open:
            self._open = False
            if self._receiving is not None:
                self._receiving.closed(self)
