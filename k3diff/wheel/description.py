"""The long description rendered as `twine check` and PyPI's upload render it: with
readme_renderer, for reStructuredText alone. twine (`commands/check.py`) renders a description
whose `Description-Content-Type` is `text/x-rst`, is missing (read as reStructuredText), or is a
type it does not know; `text/markdown` and `text/plain` are not rendered ("Rendering cannot
fail"). readme_renderer turns every docutils message at WARNING or above into a failure
(`halt_level` 2), and an empty rendering is one too: twine check then fails, and PyPI refuses
the upload ("The description failed to render"). An empty description or `UNKNOWN` is not
rendered (twine warns only).

readme_renderer, and docutils with it, is imported only where a description is rendered, in a
child process (`rstchild`): a wheel described in Markdown or plain text never pays for it.
docutils' time grows with the square of some texts (auto-numbered footnotes: 58 KiB took 3.0 s
CPU, 115 KiB 7.2 s, 1 MiB did not end in 400 s) and is not bounded by the length of others
(nested substitutions: 4 KiB took 15 s), so a description past `RENDER_LIMIT` is not rendered,
and one docutils does not finish within the child's CPU and memory bounds is not judged: both
are reported unchecked (A138, W631: a warning), never passed in silence."""

from __future__ import annotations

import re
from email.message import EmailMessage
from functools import lru_cache

RENDER_LIMIT = 128 << 10
"""Most characters of reStructuredText rendered: a 100 KiB README with its changelog costs the
audit 0.5 s CPU; hostile text at this size up to the child's `RENDER_SECONDS` (docs/findings.md,
A122)."""

NOT_RENDERED = frozenset({"text/plain", "text/markdown"})
"""Content types twine check does not render: "Rendering cannot fail"."""

_REPORT = re.compile(r"^<string>:(\d*): \((DEBUG|INFO|WARNING|ERROR|SEVERE)/\d+\) (.*)$", re.M)
"""A docutils system message's first line, as twine's `_WarningStream` reads it."""

UNCHECKED = "not checked as twine check and PyPI render it (run `twine check`)"
"""How a description k3diff did not render ends: `coremeta` reports it as A138 / W631."""

_MESSAGE_LIMIT = 300
"""Most characters of docutils' message quoted in a finding."""


def description_problems(
    description: str | None, content_type: str | None
) -> list[tuple[str, str]]:
    """("description", sentence) for a description twine check fails, or one k3diff did not
    render (too long, or docutils past the child's bounds: unchecked); none for one it renders,
    or does not render at all."""
    if not description or description.rstrip() == "UNKNOWN":
        return []
    try:
        kind, params = ("text/x-rst", ()) if content_type is None else _content_type(content_type)
    except ValueError:  # a folded field: twine crashes on it, packaging refuses it (A122)
        return []
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
    failure = render_failure(description, params)
    if failure is None:
        return []
    from k3diff.wheel import rstchild  # loaded by the render

    if failure == rstchild.UNFINISHED:
        return [
            (
                "description",
                f"{read_as}, docutils did not render it within k3diff's "
                f"{rstchild.RENDER_SECONDS} s CPU and {rstchild.RENDER_MEMORY >> 20:,} MiB: "
                f"{UNCHECKED}",
            )
        ]
    return [("description", f"{read_as}, it fails to render: {failure}")]


def _content_type(value: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The type and parameters twine reads from the field (its `_parse_content_type`):
    `text/plain` where the email parser cannot read one. ValueError for a value holding a line
    break (twine raises it too)."""
    message = EmailMessage()
    message["content-type"] = value
    return message.get_content_type(), tuple(message["content-type"].params.items())


@lru_cache(maxsize=8)
def render_failure(description: str, params: tuple[tuple[str, str], ...] = ()) -> str | None:
    """Why readme_renderer cannot render this reStructuredText with the content type's
    parameters (passed on as twine passes them: one named `raw` or `stream` crashes it): its
    first docutils message, as twine check words it; None when it renders; `UNFINISHED` when
    docutils ran past k3diff's bounds (`rstchild`). A release set's wheels share their
    description: each is rendered once."""
    from k3diff.wheel import rstchild  # json and subprocess: imported only to render

    answer = rstchild.render(description, params)
    if isinstance(answer, str):
        return answer
    rendered, error, said = answer
    if error == "RecursionError":  # nesting deeper than docutils recurses: twine check crashes
        return "readme_renderer fails on it (RecursionError: blocks nested too deep)"
    if error is not None:  # docutils on hostile text; twine check fails with a traceback
        return f"readme_renderer fails on it ({error})"
    if rendered:
        return None
    found = _REPORT.search(said)
    if found is None:
        return said.strip()[:_MESSAGE_LIMIT] or "nothing rendered"
    line, level, message = found.groups()
    return f"line {line or '?'}: {level.capitalize()}: {message.strip()[:_MESSAGE_LIMIT]}"


INDENTED_HEADER = (
    "it is the Description: header an old setuptools wrote, each line after the first "
    "indented by 8 spaces, which twine before 6.1 stripped and twine 6.1+ and PyPI render as "
    "written"
)
"""Said of a description that fails as the indented header an old setuptools wrote
(setupstop76: six 1.16.0's sdist); `report.metadatasteps` reads it to say rebuild."""

_HEADER_LINE = re.compile(r"^Description:", re.I | re.M)


def indented_header(text: str, description: str) -> bool:
    """Whether the description is a ``Description:`` header (before the first blank line)
    whose every line after the first starts with setuptools' 8 spaces (``rfc822_escape``,
    which wrote it so until the description became the body)."""
    head = text.split("\n\n", 1)[0]
    lines = description.split("\n")[1:]
    return (
        _HEADER_LINE.search(head) is not None
        and all(line.startswith(" " * 8) or not line.strip() for line in lines)
        and any(line.strip() for line in lines)
    )
