"""Spans' raw bytes compared in a child process, answered by span.

A span (`spans.Span`: back-to-back records equally long and placed in both archives) is proven
identical when its two stretches are equal. In this process that is a `pread` of each side and
a compare: on the torch CPU pair, 2 × 66 MB copied out of the page cache by the pool's threads,
which then take the GIL back from each other and from the main thread. The child of
`rawchild` compares the same stretches over mappings with `memcmp`, in a process of its own,
started as soon as the spans are planned (before the local headers are scanned), so that its
answers are in before the first span task runs. A span task whose span the child found equal
reads only the patch's stretch, from which its pairs' kinds are sniffed exactly as before
(`schedule._identical`); any other answer, or none yet (the task never waits for the child),
leaves the span to the reads and compares of this process, which word every problem as they
always did. The child only ever saves work: it never decides that a span differs, and never
turns a short read into a pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager

from k3diff.wheels.rawchild import Key, RawChild
from k3diff.wheels.spans import Span
from k3diff.zip.archive import ZipArchive

CHILD_BYTES = 16 << 20
"""Span bytes (one side) from which the child is started: below it, its start-up (≈ 25 ms of
CPU) costs more than the reads it saves."""


class SpanAnswers:
    """The child's answers by span; none when no child was started."""

    def __init__(
        self, answers: dict[Key, Future[bool]] | None = None, lengths: dict[Key, int] | None = None
    ) -> None:
        self._answers = answers or {}
        self._lengths = lengths or {}

    def equal(self, span: Span) -> bool:
        """True only when the child has already answered that this very span's two stretches
        (same starts, same length) are whole and equal; never waits."""
        key = (span.base_start, span.patch_start)
        future = self._answers.get(key)
        return (
            future is not None
            and self._lengths.get(key) == span.length
            and future.done()
            and future.result()
        )


@contextmanager
def span_compares(
    base: ZipArchive, patch: ZipArchive, spans: Sequence[Span]
) -> Iterator[SpanAnswers]:
    """The child comparing `spans`, when they hold at least `CHILD_BYTES`; ended on leaving."""
    if sum(span.length for span in spans) < CHILD_BYTES:
        yield SpanAnswers()
        return
    ranges = [(s.base_start, s.patch_start, s.base_start, s.patch_start, s.length) for s in spans]
    child = RawChild(base, patch, ranges)
    try:
        yield SpanAnswers(child.answers, {(s.base_start, s.patch_start): s.length for s in spans})
    finally:
        child.close()
