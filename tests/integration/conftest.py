"""The run's inference servers (see serve.py): one `transformers serve` for the whole suite, and a
second, differently configured one that is started only when a test asks for it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from .serve import PENALTY, InferenceServer, run_dir, shared_server, start_server, use_lock


@pytest.fixture(scope="session")
def _shared_inference_server(tmp_path_factory: pytest.TempPathFactory) -> InferenceServer:
    return shared_server(run_dir(tmp_path_factory.getbasetemp()))


@pytest.fixture(scope="session")
def _shared_penalty_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> InferenceServer:
    start = partial(start_server, config=PENALTY, weights_from=Path(_shared_inference_server.model))
    return shared_server(run_dir(tmp_path_factory.getbasetemp()), PENALTY, start)


@pytest.fixture
def inference_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InferenceServer]:
    with use_lock(run_dir(tmp_path_factory.getbasetemp())):
        yield _shared_inference_server


@pytest.fixture
def penalty_server(
    _shared_penalty_server: InferenceServer, inference_server: InferenceServer
) -> InferenceServer:
    """The second server (`serve.PENALTY`), started before the turn is taken; the test also holds
    `inference_server`'s turn, which covers both servers."""
    return _shared_penalty_server
