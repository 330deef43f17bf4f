"""Whatever bytes an sdist holds, the audit ends with a verdict: 0, 1 or 2, never a traceback
(sdist75). Mutations flip, overwrite, truncate and insert bytes of the tar (member headers,
pax records, link names, PKG-INFO) before it is compressed, or of the compressed file itself
(gzip header, deflate stream, trailer). The library is driven directly, as for wheels
(`test_properties.py`)."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.sdistcraft import PKG_INFO, Member, hardlink, link, tar_bytes
from audit.test_properties import _exit_code, _mutate, mutation

TAR = tar_bytes(
    [
        Member("demo-1.0/PKG-INFO", PKG_INFO),
        Member("demo-1.0/demo/__init__.py", b"VALUE = 1\n" * 20),
        link("demo-1.0/demo/alias.py", "__init__.py"),
        hardlink("demo-1.0/demo/copy.py", "demo-1.0/demo/__init__.py"),
        Member("demo-1.0/" + "long/" * 30 + "name.py", b"x"),  # a pax path record
    ]
)


@settings(max_examples=300, deadline=None)
@given(compressed=st.booleans(), mutations=st.lists(mutation, min_size=1, max_size=4))
def test_any_mutated_sdist_ends_with_a_verdict(
    compressed: bool, mutations: list[tuple[str, int, int]]
) -> None:
    if compressed:
        data = _mutate(gzip.compress(TAR, mtime=0), mutations)
    else:
        data = gzip.compress(_mutate(TAR, mutations), mtime=0)
    with tempfile.TemporaryDirectory(prefix="k3diff-sdist-") as directory:
        path = Path(directory) / "demo-1.0.tar.gz"
        path.write_bytes(data)
        assert _exit_code(path) in (0, 1, 2)
