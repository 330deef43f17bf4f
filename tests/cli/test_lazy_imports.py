"""Start-up stays cheap: `--help` of every command, the text renderers and the document readers
load none of scipy, numpy or matplotlib (they are imported where a statistic is computed or a
plot drawn), nor docutils and readme_renderer (imported where a description is rendered). The checks run in a fresh interpreter, since this test process has them loaded;
one interpreter takes every step in turn and names the step after which one first appears."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import types

import click
import pytest

import k3diff.documents
import k3diff.report
from k3diff.cli import COMMANDS, cli
from k3diff.cli.summaries import SUMMARIES

HEAVY = ("scipy", "numpy", "matplotlib", "docutils", "readme_renderer")

_PROBE = """
import contextlib, importlib, io, json, sys
from k3diff.cli import main

def run(step):
    kind, name = step
    if kind == "import":
        importlib.import_module(name)
        return
    with contextlib.redirect_stdout(io.StringIO()):
        code = main([*name.split(), "--help"])
    assert code == 0, (name, code)

loaded = {{}}
for step in {steps!r}:
    run(step)
    for heavy in {heavy!r}:
        if heavy in sys.modules and heavy not in loaded:
            loaded[heavy] = " ".join(step)
print(json.dumps(loaded))
"""


def _heavy_loaded(steps: list[tuple[str, str]]) -> dict[str, str]:
    """Heavy package -> the step after which it was first loaded, over `steps` taken in turn in
    one fresh interpreter (("help", "CMD") runs `k3diff CMD --help`; ("import", "MODULE"))."""
    script = _PROBE.format(steps=steps, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def _modules(package: object) -> list[str]:
    path = getattr(package, "__path__")  # noqa: B009 - a package's search path
    name = getattr(package, "__name__")  # noqa: B009
    return sorted(f"{name}.{info.name}" for info in pkgutil.iter_modules(path))


def test_help_of_every_command_loads_no_heavy_library() -> None:
    steps = [("help", ""), *(("help", command) for command in sorted(COMMANDS))]
    assert _heavy_loaded(steps) == {}


def test_text_renderers_and_document_readers_load_no_heavy_library() -> None:
    modules = [*_modules(k3diff.report), *_modules(k3diff.documents)]
    assert len(modules) > 30  # the packages were found
    assert _heavy_loaded([("import", module) for module in modules]) == {}


def test_the_probe_names_the_step_that_loads_a_heavy_library() -> None:
    # The checks above could pass vacuously if the probe saw nothing: it does, and says where.
    steps = [("import", "k3diff.report.wheels"), ("import", "k3diff.bundle.plots")]
    assert _heavy_loaded(steps) == {
        "matplotlib": "import k3diff.bundle.plots",
        "numpy": "import k3diff.bundle.plots",
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_top_level_help_lists_each_command_as_its_own_help_says(command: str) -> None:
    # `k3diff --help` lists the summaries without importing the commands: they must agree.
    real = cli.get_command(click.Context(cli), command)
    assert real is not None
    for limit in (40, 60, 85, 200):
        assert real.get_short_help_str(limit) == SUMMARIES[command]


@pytest.mark.parametrize(
    "package", ["audit", "bundle", "logs", "responses", "sample", "telemetry", "triage"]
)
def test_package_facades_export_their_names_lazily_and_correctly(package: str) -> None:
    module = importlib.import_module(f"k3diff.{package}")
    for info in pkgutil.iter_modules(getattr(module, "__path__")):  # noqa: B009
        importlib.import_module(f"k3diff.{package}.{info.name}")
    for name in module.__all__:
        value = getattr(module, name)
        # A submodule of the same name must not shadow an exported function.
        assert not isinstance(value, types.ModuleType), f"k3diff.{package}.{name}"
