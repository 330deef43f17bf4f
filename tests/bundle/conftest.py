"""The scripted engines (scripts/scripted_server.py) as real loopback processes, stopped by pid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import scripted_server


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[dict[str, str]]:
    """{"base": URL, "patch": URL} of a fresh scripted base and patch engine."""
    running: list[scripted_server.Running] = []
    try:
        for role in scripted_server.ROLES:
            running.append(scripted_server.start(role, tmp_path / "servers"))
        yield {server.role: server.url for server in running}
    finally:
        for server in running:
            scripted_server.stop(server.pid)
