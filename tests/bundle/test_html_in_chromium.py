"""report.html opened from disk in a real headless Chromium: no console error, no network
request, plots and tables present, sortable, a non-blank screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_k3diff

from . import browser
from .helpers import sampled_seed, wheels_json


@pytest.fixture(scope="module")
def chromium() -> str:
    return browser.install()


@pytest.fixture
def page(chromium: str, tmp_path: Path) -> Iterator[browser.Page]:
    yield from browser.open_page(chromium, tmp_path / "profile")


def test_the_seed_bundle_renders_offline_with_its_plots(
    page: browser.Page, tmp_path: Path, engines: dict[str, str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    comparison, samples, triage = sampled_seed(work, engines)
    result = run_k3diff(
        "report", wheels_json(work), comparison, samples, triage, "--out", "bundle", cwd=work
    )
    assert result.exit_code == 0, result.stderr
    for domain in ("Runtime", "Log", "Network", "Page"):
        page.call(f"{domain}.enable")
    page.call("Page.navigate", url=(work / "bundle/report.html").as_uri())
    page.wait_for("Page.loadEventFired")

    assert page.evaluate("document.querySelectorAll('figure svg').length") == 5  # splits too
    # the wheels document adds its execution-surfaces table to the others
    assert page.evaluate("document.querySelectorAll('table.sortable').length") == 7
    assert page.evaluate("document.getElementById('table-execution_surfaces') !== null")
    assert page.evaluate("document.getElementById('table-records').tBodies[0].rows.length") == 8
    assert "0.78 at α = 0.05" in page.evaluate("document.body.innerText")
    # Sorting: 'patch distinct' descending puts nothing above 1; 'key' descending puts q7 first.
    page.evaluate("document.querySelector('#table-records th').click()")
    page.evaluate("document.querySelector('#table-records th').click()")
    first = "document.getElementById('table-records').tBodies[0].rows[0].cells[0].textContent"
    assert page.evaluate(first) == "q7"

    image = page.screenshot()
    assert image.width >= 1000 and image.height > 1000
    colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50

    errors = [
        e
        for e in page.events
        if e.get("method") in ("Runtime.exceptionThrown",)
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert errors == []
    requests = [
        e["params"]["request"]["url"]
        for e in page.events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert requests == [(work / "bundle/report.html").as_uri()]
