"""Shared fixtures: the CLI (in-process) and golden outputs; the helpers are in `cli_support`.

A test that uses the `golden` fixture is marked `golden` automatically, so `make golden`
(``pytest -m golden --update-golden``) regenerates every golden case and nothing else; a test
under tests/integration/ is marked `integration` (``-m "not integration"`` leaves the real
inference server out).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import CliResult, Golden, run_k3diff
from hypothesis import HealthCheck, settings

# Generation speed and per-example time measure the machine, not the code: CI runs the suite on
# a shared 2-core machine under xdist, where a hypothesis health check or deadline failed a test
# whose every example passed. Both are off for every test (a test may still set its own).
settings.register_profile("k3diff", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile("k3diff")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden/ files from the current output instead of comparing.",
    )


INTEGRATION = Path(__file__).resolve().parent / "integration"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "golden" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.golden)
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.integration)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop tests/integration's inference servers once, in the process that owns the run (the
    xdist controller, or pytest itself), after every worker is done with them."""
    if hasattr(session.config, "workerinput"):
        return
    from integration.serve import run_dir, stop_shared_servers

    factory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    stopped = stop_shared_servers(run_dir(factory.getbasetemp()))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    for server, timings in stopped.items():
        shown = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in timings.items())
        reporter.ensure_newline()
        reporter.write_line(f"{server} (tests/integration): {shown}")


@pytest.fixture
def k3diff_cli() -> type[CliResult]:
    """Gives tests ``k3diff_cli(*args, cwd=...)``; see `cli_support.run_k3diff`."""
    return run_k3diff  # type: ignore[return-value]


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Gives tests ``golden.check(group, case, result)``."""
    return Golden(bool(request.config.getoption("--update-golden")))
