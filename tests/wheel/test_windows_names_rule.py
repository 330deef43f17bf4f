"""W619's rule for one path component, held to CPython's (`ntpath.isreserved` where it exists,
3.13; else `PureWindowsPath.is_reserved`), and the screen of a wheel's names that spares the
rule on nearly every wheel: it never misses a name the rule finds, and says of names joined
what it says of each alone (what `namescreens.screen_pair` relies on)."""

from __future__ import annotations

import ntpath
from pathlib import PureWindowsPath

from hypothesis import given
from hypothesis import strategies as st

from k3diff.wheel.windowsnames import component_problem, may_hold_windows_names
from wheel.test_windows_names import ALLOWED, DEVICES, ELSEWHERE

_COMPONENT = st.text(
    alphabet='cConNuUlLaAxXpPrRmMtTiI$ .19\xb9\xb2\xb30\u2074-_y?*|<>"', max_size=9
)
"""Components near the device names: no colon, slash or backslash (the stdlib reads a drive or
a separator there, W619 and W607 a name's own character)."""


@given(_COMPONENT)
def test_the_device_rule_is_the_standard_librarys(component: str) -> None:
    """The table and rule agree with CPython's: `ntpath.isreserved` (3.13) where it exists,
    else `PureWindowsPath.is_reserved` (3.11, 3.12: device names of the last component). A
    trailing dot or space and a character Win32 refuses are W619 too, which the older function
    does not say."""
    if not component or component in (".", ".."):
        return
    found = component_problem(component) is not None
    isreserved = getattr(ntpath, "isreserved", None)
    if isreserved is not None:  # 3.13 and later
        assert found == isreserved(component)
        return
    device = component_problem(component)
    assert (device is not None and "DOS device" in device) == PureWindowsPath(
        component
    ).is_reserved()
    refused = any(character in component for character in '"*<>?|')
    assert found == (PureWindowsPath(component).is_reserved() or component[-1] in ". " or refused)


_NAME = st.one_of(
    st.sampled_from([*DEVICES, *[name for name, _, _ in ELSEWHERE], *ALLOWED]),
    st.text(alphabet="cCoOnNuUlLaAxXpPtTmMiI$/. :?19\xb9\u0131-y", max_size=12),
)


@given(st.lists(_NAME, max_size=6))
def test_the_screen_never_misses_a_name(names: list[str]) -> None:
    """`may_hold_windows_names` of names joined is true when a name has a component W619
    finds, and of each name alone exactly as of the names joined."""
    joined = "\0".join(names)
    flagged = any(component_problem(c) for name in names for c in name.split("/"))
    assert may_hold_windows_names(joined) >= flagged
    assert may_hold_windows_names(joined) == any(map(may_hold_windows_names, names))
