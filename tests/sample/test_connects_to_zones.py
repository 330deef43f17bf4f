"""Where a side's URL connects, as `k3diff sample` records it in the header (`connects_to`), for
an IPv6 link-local address and its zone (samples72): the address is recorded with its
interface's index, so one address on two interfaces stays two hosts and a zone given by name
or by index is one."""

from __future__ import annotations

import socket

from k3diff.sample.oneserver import connects_to, one_server


def test_a_link_local_address_is_recorded_with_its_interface() -> None:
    """Failed on main at 75ea4965: `fe80::1` recorded without its zone."""
    index = socket.if_nametoindex("lo")
    found = connects_to(
        {"base": "http://[fe80::1%lo]:8000", "patch": f"http://[fe80::1%{index}]:8000"}
    )
    assert found["base"] == {"url": "http://[fe80::1%lo]:8000", "addresses": [f"fe80::1%{index}"]}
    assert found["patch"]["addresses"] == [f"fe80::1%{index}"]
    run = {
        "servers": {"base": "http://[fe80::1%lo]:8000", "patch": f"http://[fe80::1%{index}]:8000"}
    }
    one = one_server({**run, "connects_to": found})
    assert one is not None and one.where == f"fe80::1%{index} port 8000"


def test_one_link_local_address_on_two_interfaces_is_two_hosts() -> None:
    """Failed on main at 75ea4965: read as one server (the zones dropped)."""
    run = {"servers": {"base": "http://[fe80::1%eth0]:8000", "patch": "http://[fe80::1%eth1]:8000"}}
    assert one_server(run) is None
    # A global address's zone changes nothing: one address, one host.
    run = {"servers": {"base": "http://[fd00::2%eth0]:8000", "patch": "http://[fd00::2]:8000"}}
    assert one_server(run) is not None
