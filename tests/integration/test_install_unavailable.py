"""Where the inference server cannot be installed (an offline laptop), the suite says so and
skips; under K3DIFF_REQUIRE_INTEGRATION=1 (CI) it fails instead, so CI never passes by skipping."""

from __future__ import annotations

from pathlib import Path

import pytest

from .serve import REQUIRE, InferenceServer, install_server, shared_server

OFFLINE = "ERROR: Could not find a version that satisfies the requirement torch==2.13.0"


def _failing_script(tmp_path: Path) -> Path:
    script = tmp_path / "install_inference_server.sh"
    script.write_text(f"echo 'Looking in indexes: nowhere'\necho '{OFFLINE}' >&2\nexit 1\n")
    return script


def test_an_install_that_fails_skips_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        install_server({"PATH": "/usr/bin:/bin"}, _failing_script(tmp_path))
    assert str(skipped.value.msg) == (
        "the inference server could not be installed (install_inference_server.sh exited 1: "
        f"{OFFLINE}); K3DIFF_REQUIRE_INTEGRATION=1 fails instead"
    )


def test_an_install_that_fails_fails_when_integration_is_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="could not be installed") as failed:
        install_server({"PATH": "/usr/bin:/bin"}, _failing_script(tmp_path))
    assert OFFLINE in str(failed.value.msg)


def test_an_install_that_works_gives_the_venv(tmp_path: Path) -> None:
    script = tmp_path / "ok.sh"
    script.write_text("echo 'installing' >&2\necho /opt/serve-venv\n")
    assert install_server({"PATH": "/usr/bin:/bin"}, script) == Path("/opt/serve-venv")


def test_the_other_workers_skip_without_trying_again(tmp_path: Path) -> None:
    tries: list[Path] = []

    def start(root: Path) -> InferenceServer:
        tries.append(root)
        pytest.skip("the inference server could not be installed (offline)")

    for _ in range(2):
        with pytest.raises(pytest.skip.Exception, match=r"installed \(offline\)"):
            shared_server(tmp_path, start=start)
    assert len(tries) == 1
