"""The session's inference server (see serve.py): one `transformers serve` for the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .serve import InferenceServer, running_server


@pytest.fixture(scope="session")
def inference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InferenceServer]:
    with running_server(tmp_path_factory.mktemp("inference-server")) as server:
        yield server
