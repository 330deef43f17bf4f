"""The run's inference server (see serve.py): one `transformers serve` for the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .serve import InferenceServer, run_dir, shared_server, use_lock


@pytest.fixture(scope="session")
def _shared_inference_server(tmp_path_factory: pytest.TempPathFactory) -> InferenceServer:
    return shared_server(run_dir(tmp_path_factory.getbasetemp()))


@pytest.fixture
def inference_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InferenceServer]:
    with use_lock(run_dir(tmp_path_factory.getbasetemp())):
        yield _shared_inference_server
