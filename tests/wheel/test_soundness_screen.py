"""The soundness check's screen (`soundness._may_hold_unsafe`, every entry tested at once in
C) says False only where the per-entry loop finds nothing (W601-W603, W614)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel import soundness
from k3diff.zip.directory import ZipEntry


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a/b", "../x", "/abs", "\\\\srv", "c:/w", "a:b", "ok..py", "x\x01"]),
            st.sampled_from([0, 0x1, 0x800]),
            st.sampled_from([0, 0o120777 << 16, 0o100644 << 16]),
            st.sampled_from([0, 3]),
        ),
        max_size=5,
    )
)
def test_soundness_screen_misses_no_unsafe_entry(
    entries: list[tuple[str, int, int, int]],
) -> None:
    """`soundness._may_hold_unsafe` says False only where the per-entry loop finds nothing."""

    class _Archive:
        disagreements: tuple[str, ...] = ()

    archive = _Archive()
    archive.entries = tuple(  # type: ignore[attr-defined]
        ZipEntry(name, i, 8, flags, 0, 1, 1, 0, attr, system, name.encode())
        for i, (name, flags, attr, system) in enumerate(entries)
    )
    screened = list(soundness.soundness_findings(archive, "base"))  # type: ignore[arg-type]
    saved = soundness._may_hold_unsafe
    soundness._may_hold_unsafe = lambda archive, names_unsafe=None: True
    try:
        every = list(soundness.soundness_findings(archive, "base"))  # type: ignore[arg-type]
    finally:
        soundness._may_hold_unsafe = saved
    assert screened == every
