"""The reason a record held `same-server` gives, whole and as a report says it.

The whole reason names each log's two URLs and how they were found to be one server, which the
servers' counters can make long (``both counted by one server: the base's
http_requests_total{…} rose by …``): the text and Markdown reports printed it, over 300
characters, once for each record, beside the result line and the ``one server:`` line saying
the same (setupstop76). A report says the hold in a few words and points at the verdict, which names it;
the JSON keeps each record's reason whole.
"""

from __future__ import annotations

OPTION = "--allow-same-server"
"""The option that says one server as both sides is an A/A calibration run on purpose."""

_HEAD = "same-server: base and patch were sampled from one server"


def same_server_why(described: str) -> str:
    """The hold's reason for the logs `described` (`oneserver.described`)."""
    return (
        f"{_HEAD} ({described}) with the same parameters, so the patch samples are that "
        f"server's and clear nothing; sample the patched build on a server of its own ({OPTION} "
        "for an A/A calibration run)"
    )


def briefly(reason: str, described: str | None) -> str:
    """`reason` with the hold's whole reason for `described` (the run's `same_server`) said in
    a few words, the verdict naming the server; `reason` where it does not start so."""
    if described is None:
        return reason
    whole = same_server_why(described)
    if not reason.startswith(whole):
        return reason
    rest = reason[len(whole) :]
    return f"{_HEAD} (the verdict names it): sample the patched build on a server of its own{rest}"
