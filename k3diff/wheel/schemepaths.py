"""Where pip installs a `.data/<scheme>/` file: the installed path of each scheme, and, for a
`.data/data/` file that lands in a site-packages directory, on which of the wheel's Pythons and
platforms it is one (W627's reason; `k3diff.wheel.targets` reads the tags). `installed` asks it
of each `.data` file.
"""

from __future__ import annotations

import re

from k3diff.lazyre import lazy
from k3diff.wheel.targets import TargetPythons, version_number

_DATA_SITE_PACKAGES = lazy(r"^lib/python(\d+)\.(\d+)t?/site-packages/")
_WINDOWS_SITE_PACKAGES = lazy(r"^lib/site-packages/", re.IGNORECASE)
_OTHER_SITE_PACKAGES = lazy(
    r"^(?:(python3(\d+)t?(?:-32|-arm64)?)|lib/python(?:3\.(\d+)t?)?)/site-packages/", re.IGNORECASE
)
"""Site-packages under the prefix on some installs alone: `nt_user`'s (`pip install --user` on
Windows: `Python311/site-packages`), `osx_framework_user`'s (`lib/python/site-packages`), and a
venv's in another case, which APFS opens as it (`LIB/python3.11/Site-Packages`)."""
_DEBIAN_SITE_PACKAGES = lazy(r"^(?:local/)?lib/python3(?:\.(\d+))?/dist-packages/")
"""Debian's and Ubuntu's site-packages under the data directory (pip 26.3 and Debian's Python
3.11.2, hooks72): `lib/python3.Y/dist-packages/` under pip's default `posix_local` (`/usr/local`),
and with `--prefix /usr` also `lib/python3/dist-packages/` and `local/lib/python3.Y/...`."""


def scheme_path(
    scheme: str, rest: str, dist_name: str | None, targets: TargetPythons
) -> tuple[str, str | None]:
    """The installed path, and why it is site-packages on some Pythons only (or on none)."""
    if scheme in ("purelib", "platlib"):
        return f"site-packages/{rest}", None
    if scheme == "scripts":
        return f"bin/{rest}", None
    if scheme == "headers":
        return f"include/site/python{targets.version_text()}/{dist_name or 'UNKNOWN'}/{rest}", None
    site = _DATA_SITE_PACKAGES.match(rest)
    if site:
        version = (version_number(site.group(1)), version_number(site.group(2)))
        shown = f"Python {version[0]}.{version[1]}"
        pythons = targets.describe()
        if not targets.admits(version):
            return rest, (
                f"installs into {shown}'s site-packages, and the wheel's tags admit only "
                f"{pythons}: the file reaches site-packages on none of them"
            )
        reason = None
        if targets.several:
            reason = (
                f"is a site-packages file on {shown} only, of the Pythons the wheel's tags "
                f"admit ({pythons}); elsewhere it lands in lib/python{version[0]}.{version[1]}/"
            )
        return f"site-packages/{rest[site.end() :]}", reason
    windows = _WINDOWS_SITE_PACKAGES.match(rest)
    if windows:
        if not targets.windows:
            return rest, (
                "is Windows' site-packages (Lib/site-packages), and the wheel installs on no "
                "Windows: the file reaches site-packages on none of its platforms"
            )
        reason = None
        if targets.elsewhere:
            reason = "is a site-packages file on Windows only (Lib/site-packages under the prefix)"
        return f"site-packages/{rest[windows.end() :]}", reason
    other = _OTHER_SITE_PACKAGES.match(rest)
    minor = other and (other.group(2) or other.group(3))
    if other and (minor is None or targets.admits((3, version_number(minor)))):
        if other.group(1) and targets.windows:
            return rest, "is site-packages for a `pip install --user` on Windows alone"
        if not other.group(1) and targets.mac:  # review70b: each passed, exit 0
            return (
                rest,
                "is site-packages on macOS alone (`--user` on a framework build, or APFS's case)",
            )
    debian = _DEBIAN_SITE_PACKAGES.match(rest)
    minor = debian and debian.group(1)
    if debian and targets.linux and (minor is None or targets.admits((3, version_number(minor)))):
        return rest, "is site-packages on Debian and Ubuntu alone (`dist-packages`)"
    return rest, None
