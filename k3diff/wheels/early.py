"""The huge pairs' comparisons, started as soon as both central directories are read.

On the CUDA shape a few libraries hold most of the bytes (libtorch_cuda.so: 560 MB compressed);
on the torch CPU wheel one library (libtorch_cpu.so, 414 MB) is 60 % of the content. Comparing
their raw bytes, or inflating both sides of a recompressed pair, is work that holds the GIL only
between reads and inflate steps, so it runs on the second core while the main thread reads
RECORD, builds the installed views, pairs the entries and reads the local headers, instead of
after all that (on a recompressed torch CPU pair that phase is ≈ 0.5 s of one core while the
other idled). A comparison is started for each entry name both archives hold once, above
`headstart.EARLY_BYTES` on both sides, with the same declared size and CRC-32, and either

- the same method and compressed size: exactly the pairs whose proof (`proof.prove_reading`)
  compares raw bytes, with the same function (`proof.raw_equal`), or
- another method or compressed size (recompressed) and more than `proof.SMALL_ENTRY` bytes:
  exactly the pairs whose proof inflates both streams and compares them, with the same
  function (`proof.same_content`).

The proof then takes the answer, or the error the reading met, instead of reading again; a
comparison the final pairing does not ask for (another entry paired by installed path) is
never read. The raw comparisons run in a child process (`wheels.rawchild`: no GIL shared with
the main thread's passes, no copy out of the page cache), whose "equal" is taken and whose any
other answer, or none, has the pair compared here by `proof.raw_equal`; the content
comparisons run on a thread of this process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from k3diff.wheels import headstart, proof
from k3diff.wheels.headstart import HeadStart, Pair
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.rawchild import RawChild
from k3diff.wheels.streamcheck import EarlyStreams, readable
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

CHECK_BYTES = 128 << 20
"""Compressed size above which a raw pair's stream check starts early too: one whose inflate
outlasts the verdict (≈ 1 s on a 2-core VM) and would finish last, alone, if started after it.
A smaller one (torch CPU's libtorch_cpu.so, 109 MB) gained no wall beside the main thread's
passes and cost 5-7 % more CPU; the settle pass balances it with the other streams."""

_LAYOUT = headstart.SAME_LAYOUT

RawAnswer = Callable[[], bool]
"""Whether the pair's raw bytes (or, for a content comparison, contents) are equal, waiting for
the comparison when it still runs."""


class EarlyRaw:
    """The comparisons started, by (base entry position, patch entry position): raw bytes
    (`proof.raw_equal`, asked of the child first) or, for recompressed pairs, content
    (`proof.same_content`)."""

    def __init__(
        self,
        started: dict[tuple[int, int], RawAnswer],
        content: dict[tuple[int, int], RawAnswer] | None = None,
        streams: EarlyStreams | None = None,
    ) -> None:
        self._started = started
        self._content = content or {}
        self.streams = streams
        """The raw pairs' patch streams being checked (`streamcheck.EarlyStreams`), None
        when not asked."""

    def answer(self, base_entry: ZipEntry | None, patch_entry: ZipEntry | None) -> RawAnswer | None:
        """The started raw comparison of this exact pair, or None when there is none."""
        return _found(self._started, base_entry, patch_entry)

    def content(
        self, base_entry: ZipEntry | None, patch_entry: ZipEntry | None
    ) -> RawAnswer | None:
        """The started content comparison of this exact pair, or None when there is none."""
        return _found(self._content, base_entry, patch_entry)

    def started_among(self, pairs: Sequence[EntryPair], indices: Iterable[int]) -> list[int]:
        """The indices (of `indices`, in their order) of the pairs a comparison of either kind
        runs for: none asked per pair when none was started (most wheels)."""
        keys = self._started.keys() | self._content.keys()
        if not keys:
            return []
        return [
            index
            for index in indices
            if (base := pairs[index].base) is not None
            and (patch := pairs[index].patch) is not None
            and (base.position, patch.position) in keys
        ]


def _found(
    started: dict[tuple[int, int], RawAnswer],
    base_entry: ZipEntry | None,
    patch_entry: ZipEntry | None,
) -> RawAnswer | None:
    if base_entry is None or patch_entry is None or not started:
        return None
    return started.get((base_entry.position, patch_entry.position))


def _from_child(answer: Future[bool], compare: Callable[[], bool]) -> bool:
    """The child's "equal" (waited for: it compares faster than this process could), or, for
    any other answer or none, the comparison run here, which says what is wrong if anything."""
    return answer.result() or compare()


def _take(future: Future[bool], compare: Callable[[], bool]) -> bool:
    """The started comparison's answer; one the early thread has not begun yet is taken back
    and run here, on the asking thread (the same function on the same pair), so that several
    huge pairs are not left to the one early thread while the pool's workers wait."""
    if future.cancel():
        return compare()
    return future.result()


@contextmanager
def raw_compares(
    base: ZipArchive,
    patch: ZipArchive,
    readers: ThreadPoolExecutor | None = None,
    head: HeadStart | None = None,
) -> Iterator[EarlyRaw]:
    """Start the huge pairs' comparisons (`_candidates`, largest first): raw ones in a child
    process (`rawchild.RawChild`), content ones on a thread of their own; given `readers` (the
    default report's `streamcheck.reader_pool`), the raw pairs' patch streams checked there
    (`streamcheck.EarlyStreams`). `head`: the pairs found and the raw child started for them
    before the comparison's imports (`headstart`), taken instead. On leaving, the child is
    ended, the comparisons and checks not begun are cancelled, the running comparison waited for
    and the running checks stopped."""
    candidates = _candidates(base, patch, None if head is None else head.pairs)
    if not candidates:
        yield EarlyRaw({})
        return
    raw_pairs = [(b, p) for b, p in candidates if _LAYOUT(b) == _LAYOUT(p)]
    content_pairs = [(b, p) for b, p in candidates if _LAYOUT(b) != _LAYOUT(p)]
    if head is not None:
        child = head.raw
    else:
        child = RawChild(base, patch, raw_pairs) if raw_pairs else None
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="k3diff-early")
    streams = None
    if readers is not None and raw_pairs:
        checked = [p for _, p in raw_pairs if p.compressed_size > CHECK_BYTES and readable(p)]
        streams = EarlyStreams(patch, checked, readers) if checked else None
    try:
        started: dict[tuple[int, int], RawAnswer] = {}
        for b, p in raw_pairs:
            assert child is not None  # made for the raw pairs
            compare = functools.partial(proof.raw_equal, base, b, patch, p)
            answer = child.answers[b.position, p.position]
            started[b.position, p.position] = functools.partial(_from_child, answer, compare)
        content: dict[tuple[int, int], RawAnswer] = {}
        for b, p in content_pairs:
            compare = functools.partial(proof.same_content, base, b, patch, p)
            future = worker.submit(compare)
            content[b.position, p.position] = functools.partial(_take, future, compare)
        yield EarlyRaw(started, content, streams)
    finally:
        try:
            if child is not None:
                child.close()
        finally:
            try:
                if streams is not None:
                    streams.close()
            finally:
                worker.shutdown(wait=True, cancel_futures=True)


def _candidates(base: ZipArchive, patch: ZipArchive, huge: list[Pair] | None = None) -> list[Pair]:
    """The pairs compared early: of `huge` (default: `headstart.huge_pairs`), those whose raw
    bytes are compared (the same method and compressed size) and the recompressed ones above
    `proof.SMALL_ENTRY` bytes, largest first."""
    pairs = headstart.huge_pairs(base, patch) if huge is None else huge
    return [(b, p) for b, p in pairs if _LAYOUT(b) == _LAYOUT(p) or b.size > proof.SMALL_ENTRY]
