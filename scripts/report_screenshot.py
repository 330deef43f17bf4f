"""Screenshot a bundle's report.html in headless Chromium: `make screenshot` (docs/report.png)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(page: Path, png: Path) -> None:
    browser = subprocess.run(
        ["bash", str(ROOT / "scripts/install_chromium.sh")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[-1]
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--hide-scrollbars",
                "--window-size=1280,1800",
                f"--screenshot={png.resolve()}",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            check=True,
            timeout=120,
        )
    print(f"wrote {png}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
