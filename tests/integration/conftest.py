"""The run's inference servers (see serve.py): one `transformers serve` for the whole suite, and
differently configured ones (a repetition penalty, continuous batching, top-k 2) that are
started only when a test asks for them."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from .serve import (
    CONTINUOUS,
    PENALTY,
    TOP_K,
    InferenceServer,
    run_dir,
    shared_server,
    start_server,
    use_lock,
)


@pytest.fixture(scope="session")
def _shared_inference_server(tmp_path_factory: pytest.TempPathFactory) -> InferenceServer:
    return shared_server(run_dir(tmp_path_factory.getbasetemp()))


@pytest.fixture(scope="session")
def _shared_penalty_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> InferenceServer:
    start = partial(start_server, config=PENALTY, weights_from=Path(_shared_inference_server.model))
    return shared_server(run_dir(tmp_path_factory.getbasetemp()), PENALTY, start)


@pytest.fixture(scope="session")
def _shared_continuous_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> InferenceServer:
    start = partial(
        start_server, config=CONTINUOUS, weights_from=Path(_shared_inference_server.model)
    )
    return shared_server(run_dir(tmp_path_factory.getbasetemp()), CONTINUOUS, start)


@pytest.fixture(scope="session")
def _shared_top_k_server(
    _shared_inference_server: InferenceServer, tmp_path_factory: pytest.TempPathFactory
) -> InferenceServer:
    start = partial(start_server, config=TOP_K, weights_from=Path(_shared_inference_server.model))
    return shared_server(run_dir(tmp_path_factory.getbasetemp()), TOP_K, start)


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


@pytest.fixture
def continuous_server(
    _shared_continuous_server: InferenceServer, inference_server: InferenceServer
) -> InferenceServer:
    """The continuous-batching server (`serve.CONTINUOUS`), started on first use and stopped by
    pid at the end of the session like the others; the test holds `inference_server`'s turn."""
    return _shared_continuous_server


@pytest.fixture
def top_k_server(
    _shared_top_k_server: InferenceServer, inference_server: InferenceServer
) -> InferenceServer:
    """The top-k server (`serve.TOP_K`), started on first use and stopped by pid at the end of
    the session like the others; the test holds `inference_server`'s turn."""
    return _shared_top_k_server
