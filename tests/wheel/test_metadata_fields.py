"""`refusals.metadata_fields` reads METADATA's header block line by line where it is plain;
whatever the text, it gives exactly what the email parser `importlib.metadata` uses gives
(the slow path it stands in for)."""

from __future__ import annotations

from email.parser import HeaderParser

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.refusals import metadata_fields

_KEYS = ["Name", "name", "NAME", "Version", "Requires-Dist", "Provides-Extra", "Summary", "X y"]
_PIECES = st.sampled_from(
    [*(f"{key}:" for key in _KEYS), *(f"{key}: " for key in _KEYS), "\n", "\r\n", "\r", " ",
     "\t", "demo", "1.0", "foo>=1; extra == 'x'", ":", "From ", "\x7f", "é", "\x00", ""]
)  # fmt: skip


def _slow(text: str) -> dict[str, list[str]]:
    headers = HeaderParser().parsestr(text, headersonly=True)
    return {
        field: [str(value) for value in headers.get_all(field) or ()]
        for field in ("name", "version", "requires-dist", "provides-extra")
    }


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_line_reader_gives_what_the_email_parser_gives(text: str) -> None:
    assert metadata_fields(text) == _slow(text)


def test_examples() -> None:
    for text in [
        "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n\nName: body\n",
        "Name: demo\n Version: 1.0\nVersion: 2\n",
        "Name:demo\r\nVersion:\t1\r\n\r\nbody",
        "\nName: demo\n",
        "Name: a\nnot a header\nVersion: 1\n",
        "Requires-Dist: a\nrequires-dist: b ; extra == 'x'\nProvides-Extra: X\n",
    ]:
        assert metadata_fields(text) == _slow(text), text
