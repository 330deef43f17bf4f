"""`reads_project_table`: whether `[build-system] requires` pins the backend before it read
`[project]` (review74g; the CLI cases are in tests/wheels/test_provenance_built_version.py)."""

from __future__ import annotations

import pytest

from k3diff.provenance.projecttable import reads_project_table

SETUPTOOLS = "setuptools.build_meta"
POETRY = "poetry.core.masonry.api"


@pytest.mark.parametrize(
    ("backend", "requires", "reads"),
    [
        (SETUPTOOLS, ["setuptools<61"], False),
        (SETUPTOOLS, ["setuptools==60.*"], False),
        (SETUPTOOLS, ["setuptools>=40"], True),
        (SETUPTOOLS, ["setuptools"], True),
        (POETRY, ["poetry-core~=1.9"], False),
        (POETRY, ["poetry_core==2.0.1"], True),  # an exact new release reads it
        (POETRY, ["poetry-core>2.0.5,<2.1"], True),
        (POETRY, ["poetry-core==2.*"], True),
        ("flit_core.buildapi", ["flit_core<3"], False),
        ("flit_core.buildapi", ["flit_core>=3.2,<4"], True),
        ("hatchling.build", ["hatchling", "setuptools<61"], True),  # not the backend's pin
        (SETUPTOOLS, "setuptools<61", True),  # no list: not read as requirements
        (SETUPTOOLS, [1, "not a requirement !"], True),
        (SETUPTOOLS, ["setuptools<" + "1" * 5000], True),  # over int()'s digits: no traceback
    ],
)
def test_a_pin_before_the_release_that_reads_project(
    backend: str, requires: object, reads: bool
) -> None:
    assert reads_project_table(backend, requires) is reads
