"""The `entries` lines of the `k3diff.wheels/1` document, encoded directly.

A torch wheel has twelve thousand entries: building a dict for each and handing it to
`json.dumps` (an encoder set up per call) cost more than comparing them. An entry with no diff,
source or native explanation (nearly all) is written here field by field, with the C string
encoder `json.dumps` itself uses, to the same text `dumps(entry_json(entry))` gives (a test
holds the two equal); the others go through `entry_json`, the entry's JSON form.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from typing import Any

from k3diff.documents.native import explanation_json
from k3diff.documents.provenance import file_source_json
from k3diff.jsontext import dumps
from k3diff.textdiff import TextDiff
from k3diff.wheel.modes import show_mode
from k3diff.wheels.model import EntryResult


def _crc_hex(value: int | None) -> str | None:
    return None if value is None else f"{value:08x}"


def _text_diff_json(value: TextDiff) -> dict[str, Any]:
    """JSON-ready form (`line_endings_only` appears only when true, `binary` only when set)."""
    data: dict[str, Any] = {
        "added": value.added,
        "removed": value.removed,
        "unified": value.unified,
    }
    if value.line_endings_only:
        data["line_endings_only"] = True
    if value.binary is not None:
        data["binary"] = value.binary
    return data


def entry_json(value: EntryResult) -> dict[str, Any]:
    """JSON-ready form; `diff`, `source`, `native`, `corrupt` and `patch_digest` appear only
    when known, `base_mode` / `patch_mode` only when the two entries' unix modes differ."""
    data: dict[str, Any] = {
        "path": value.path,
        "base_path": value.base_path,
        "patch_path": value.patch_path,
        "kind": value.kind.value,
        "status": value.status.value,
        "how": value.how.value,
        "recompressed": value.recompressed,
        "base_size": value.base_size,
        "patch_size": value.patch_size,
        "base_crc32": _crc_hex(value.base_crc32),
        "patch_crc32": _crc_hex(value.patch_crc32),
        "installed_path": value.installed_path,
        "base_installed_path": value.base_installed_path,
        "moved": value.moved,
    }
    if value.diff is not None:
        data["diff"] = _text_diff_json(value.diff)
    if value.source is not None:
        data["source"] = file_source_json(value.source)
    if value.native is not None:
        data["native"] = explanation_json(value.native)
    if value.corrupt is not None:
        data["corrupt"] = value.corrupt
    if value.patch_digest is not None:
        data["patch_digest"] = value.patch_digest
    if value.mode_change is not None:  # octal text, as `stat` writes a mode
        data["base_mode"] = show_mode(value.mode_change.base)
        data["patch_mode"] = show_mode(value.mode_change.patch)
    return data


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring_ascii(value)


def entry_line(value: EntryResult) -> str:
    """`value` as one line of compact JSON: exactly `dumps(entry_json(value))`."""
    if value.diff is not None or value.source is not None or value.native is not None:
        return dumps(entry_json(value))
    path = encode_basestring_ascii(value.path)
    base_path, patch_path = value.base_path, value.patch_path
    installed, base_installed = value.installed_path, value.base_installed_path
    installed_text = _text(installed)
    same_installed = base_installed == installed
    base_size, patch_size = value.base_size, value.patch_size
    base_crc, patch_crc = value.base_crc32, value.patch_crc32
    base_crc_text = "null" if base_crc is None else f'"{base_crc:08x}"'
    patch_crc_text = "null" if patch_crc is None else f'"{patch_crc:08x}"'
    # One f-string (compiled: no format string parsed per entry), in `entry_json`'s order;
    # kind, status and how are `StrEnum`s, which format as their values.
    line = (
        f'{{"path": {path}, "base_path": '
        f"{path if base_path == value.path else _text(base_path)}, "
        f'"patch_path": {path if patch_path == value.path else _text(patch_path)}, '
        f'"kind": "{value.kind}", "status": "{value.status}", "how": "{value.how}", '
        f'"recompressed": {"true" if value.recompressed else "false"}, '
        f'"base_size": {"null" if base_size is None else int(base_size)}, '
        f'"patch_size": {"null" if patch_size is None else int(patch_size)}, '
        f'"base_crc32": {base_crc_text}, "patch_crc32": {patch_crc_text}, '
        f'"installed_path": {installed_text}, "base_installed_path": '
        f"{installed_text if same_installed else _text(base_installed)}, "
        f'"moved": {"true" if value.moved else "false"}'
    )
    if value.corrupt is None and value.patch_digest is None and value.base_mode == value.patch_mode:
        return line + "}"  # nearly every entry
    parts = [line]
    if value.corrupt is not None:
        parts += [', "corrupt": ', encode_basestring_ascii(value.corrupt)]
    if value.patch_digest is not None:
        parts += [', "patch_digest": ', encode_basestring_ascii(value.patch_digest)]
    change: Any = value.mode_change
    if change is not None:
        parts += [', "base_mode": "', show_mode(change.base), '", "patch_mode": "']
        parts += [show_mode(change.patch), '"']
    parts.append("}")
    return "".join(parts)
