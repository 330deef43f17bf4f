"""Shared fixtures: the CLI (in-process) and golden outputs; the helpers are in `cli_support`.

A test that uses the `golden` fixture is marked `golden` automatically, so `make golden`
(``pytest -m golden --update-golden``) regenerates every golden case and nothing else.
"""

from __future__ import annotations

import pytest
from cli_support import CliResult, Golden, run_k3diff


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden/ files from the current output instead of comparing.",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "golden" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.golden)


@pytest.fixture
def k3diff_cli() -> type[CliResult]:
    """Gives tests ``k3diff_cli(*args, cwd=...)``; see `cli_support.run_k3diff`."""
    return run_k3diff  # type: ignore[return-value]


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Gives tests ``golden.check(group, case, result)``."""
    return Golden(bool(request.config.getoption("--update-golden")))
