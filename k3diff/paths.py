"""Archive paths with their build-specific parts taken out, so the entries of two builds of a
wheel pair (`k3diff.wheels.pairing`) and the libraries a native entry needs compare
(`k3diff.native.dynamic`): `NAME-VERSION.dist-info/` and `NAME-VERSION.data/` lose their
version, an auditwheel-vendored library (`pkg.libs/libfoo-1a2b3c4d.so.1.2.3`) its 8-hex hash
and the version after the SONAME's major number, as does any versioned library."""

from __future__ import annotations

import re

from k3diff.lazyre import lazy

_VERSIONED_DIR = lazy(r"^(?P<name>[^/]+?)-[^/-]+\.(?P<suffix>dist-info|data)(?P<rest>/.*)?$")
_AUDITWHEEL_LIB = lazy(r"^(?P<stem>[^/]+)-[0-9a-f]{8}(?P<ext>\.so(\.[0-9]+)?)(\.[0-9]+)*$")
_VERSIONED_SONAME = lazy(r"^(?P<soname>[^/]+\.so\.[0-9]+)(\.[0-9]+)*$")


def normalized_key(path: str) -> str:
    """The path with build-specific parts (versions, auditwheel hashes) taken out."""
    match = _VERSIONED_DIR.match(path)
    if match:
        name = re.sub(r"[-_.]+", "_", match["name"]).lower()
        path = f"{name}.{match['suffix']}{match['rest'] or ''}"
    head, _, leaf = path.rpartition("/")
    lib = _AUDITWHEEL_LIB.match(leaf)
    if lib:
        leaf = f"{lib['stem']}-*{lib['ext']}"
        path = f"{head}/{leaf}" if head else leaf
    elif soname := _VERSIONED_SONAME.match(leaf):
        # libonnxruntime.so.1.20.0 -> .so.1.20.1: the SONAME (major) stays, the rest is a bump.
        leaf = f"{soname['soname']}.*"
        path = f"{head}/{leaf}" if head else leaf
    return path
