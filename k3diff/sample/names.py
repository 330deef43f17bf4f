"""The names a run's samples are filed under, defined once: the two sides, the sampling
modes and the routes. Every module that compares a side or a mode compares against these."""

from __future__ import annotations

from enum import StrEnum

SIDES = ("base", "patch")
"""The two servers a run compares, in the order they are reported."""


class Mode(StrEnum):
    """How identical requests are sent (the `mode` of every sample)."""

    SERIAL = "serial"
    """One request in flight across both servers: the batch-1 oracle."""
    CONCURRENT = "concurrent"
    """C identical requests in flight together."""
    LOADED = "loaded"
    """The target request while C-1 other prompts keep the server busy."""
    COLD_WARM = "cold-warm"
    """Per prompt a cold request (after `--flush-url`, else under a fresh `cache_salt`), then
    the other repeats warm: identical, the same salt; repeat 0 is the cold one. Each sample's
    cached prompt tokens come from its `usage`; warm samples with no cache hit are
    `not-exercised`."""
    SWEEP = "sweep"
    """Concurrency levels (`--levels`): at each level L the repeats go out in batches of L
    identical requests; each sample records its `level` (repeat numbers run on across levels:
    level index × repeats + r)."""
    NEEDLE = "needle"
    """Each repeat (a trial) sends the target at a random position in a batch of random size in
    [C/2, C] whose other requests are long filler prompts (not logged)."""
    MIXED = "mixed"
    """As needle, the target co-batched with prompts of random lengths."""
    CONTROL = "control"
    """`--control`: the first prompt K times at temperature 1 with distinct seeds (and, for
    `nonce`, a random suffix): if all K come back identical the run is vacuous (sampling
    parameters ignored, or a cache or proxy answering). Never a `--mode` of its own."""


COLD_REPEAT = 0
"""A cold-warm record's cold request: its repeat 0, or the first repeat a `--resume` sends
(`cold` on its line)."""


def is_cold(mode: str, repeat: object, cold: object = None) -> bool:
    """A cold-warm record's cold request: one that must miss the cache, so a hit there is no
    evidence of reuse but of a salt or flush that did not take (telem67). Its repeat 0, or a
    repeat logged `cold` (left67: a resumed run sends its first repeat of a record under a
    fresh salt or after a flush, so that one is cold too; before, it was counted warm)."""
    return mode == Mode.COLD_WARM.value and (repeat == COLD_REPEAT or cold is True)


MODES = tuple(mode.value for mode in Mode)
SAMPLING_MODES = tuple(mode.value for mode in Mode if mode is not Mode.CONTROL)
"""The modes `--mode` offers (the control is asked for with `--control`)."""
CO_BATCHED = frozenset({Mode.LOADED.value, Mode.NEEDLE.value, Mode.MIXED.value})
"""Modes whose target is logged alone, the requests overlapping it are not (load, fillers)."""


class Endpoint(StrEnum):
    """Which OpenAI-compatible route the requests go to (the header's `run.endpoint`)."""

    COMPLETIONS = "completions"
    CHAT = "chat"

    @property
    def path(self) -> str:
        """The route under the server URL."""
        return "/v1/completions" if self is Endpoint.COMPLETIONS else "/v1/chat/completions"
