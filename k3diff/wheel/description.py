"""The long description rendered as `twine check` and PyPI's upload render it: with
readme_renderer, for reStructuredText alone. twine (`commands/check.py`) renders a description
whose `Description-Content-Type` is `text/x-rst`, is missing (read as reStructuredText), or is a
type it does not know; `text/markdown` and `text/plain` are not rendered ("Rendering cannot
fail"). readme_renderer turns every docutils message at WARNING or above into a failure
(`halt_level` 2), and an empty rendering is one too: twine check then fails, and PyPI refuses
the upload ("The description failed to render"). An empty description or `UNKNOWN` is not
rendered (twine warns only).

readme_renderer, and docutils with it, is imported here, where a description is rendered: about
60 ms CPU to import, which a wheel described in Markdown or plain text never pays. docutils'
time grows with the square of some texts (auto-numbered footnotes: 58 KiB took 3.0 s CPU, 115 KiB
7.2 s, 1 MiB did not end in 400 s), so a description past `RENDER_LIMIT` is not rendered: it is
reported unchecked (A138, W631: a warning), never passed in silence."""

from __future__ import annotations

import io
import re
from email.message import EmailMessage
from functools import lru_cache

RENDER_LIMIT = 128 << 10
"""Most characters of reStructuredText rendered: a 100 KiB README with its changelog costs the
audit 0.5 s CPU; hostile text at this size up to about 9 s (docs/findings.md, A122)."""

NOT_RENDERED = frozenset({"text/plain", "text/markdown"})
"""Content types twine check does not render: "Rendering cannot fail"."""

_REPORT = re.compile(r"^<string>:(\d*): \((DEBUG|INFO|WARNING|ERROR|SEVERE)/\d+\) (.*)$", re.M)
"""A docutils system message's first line, as twine's `_WarningStream` reads it."""

UNCHECKED = "not checked as twine check and PyPI render it (run `twine check`)"
"""How a description past `RENDER_LIMIT` ends: `coremeta` reports it as A138 / W631."""

_MESSAGE_LIMIT = 300
"""Most characters of docutils' message quoted in a finding."""


def description_problems(
    description: str | None, content_type: str | None
) -> list[tuple[str, str]]:
    """("description", sentence) for a description twine check fails, or one too long for
    k3diff to render (unchecked); none for one it renders, or does not render at all."""
    if not description or description.rstrip() == "UNKNOWN":
        return []
    kind = "text/x-rst" if content_type is None else _content_type(content_type)
    if kind in NOT_RENDERED:
        return []
    read_as = (
        "no Description-Content-Type: read as reStructuredText"
        if content_type is None
        else f"read as reStructuredText ({kind})"
    )
    if len(description) > RENDER_LIMIT:
        return [
            (
                "description",
                f"{read_as}, {len(description):,} characters, past the {RENDER_LIMIT:,} k3diff "
                f"renders: {UNCHECKED}",
            )
        ]
    failure = render_failure(description)
    if failure is None:
        return []
    return [("description", f"{read_as}, it fails to render: {failure}")]


def _content_type(value: str) -> str:
    """The type twine reads from the field (its `_parse_content_type`): `text/plain` where the
    email parser cannot read one."""
    message = EmailMessage()
    message["content-type"] = value
    return message.get_content_type()


@lru_cache(maxsize=8)
def render_failure(description: str) -> str | None:
    """Why readme_renderer cannot render this reStructuredText (its first docutils message, as
    twine check words it), or None when it renders. A release set's wheels share their
    description: each is rendered once."""
    from readme_renderer.rst import render  # docutils: imported only to render

    stream = io.StringIO()
    try:
        rendered = render(description, stream=stream)
    except RecursionError:  # nesting deeper than docutils recurses: twine check crashes on it
        return "readme_renderer fails on it (RecursionError: blocks nested too deep)"
    except Exception as exc:  # docutils on hostile text; twine check fails with a traceback
        return f"readme_renderer fails on it ({type(exc).__name__})"
    if rendered is not None:
        return None
    said = stream.getvalue()
    found = _REPORT.search(said)
    if found is None:
        return said.strip()[:_MESSAGE_LIMIT] or "nothing rendered"
    line, level, message = found.groups()
    return f"line {line or '?'}: {level.capitalize()}: {message.strip()[:_MESSAGE_LIMIT]}"
