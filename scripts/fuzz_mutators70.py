"""Stop 70's mutators for `scripts/fuzz_cli.py`: build configuration (pyproject.toml, setup.cfg,
setup.py), version modules, `.pth` path lines, and the samples log's new header fields and
`/perf_metrics` drain lines.

As in `fuzz_mutators`, each takes the seed's bytes and a `random.Random` and returns the
mutated bytes and a label. `link` returns `LINK` and the link's target: the target's `setup`
commits the configuration file as a symbolic link to it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import fuzz_mutators as mut

Mutation = tuple[bytes, str]
LINK = b"\x00LINK\x00"

_ASSIGNMENT = re.compile(rb"^(\s*[^#\[\s][^=\n]*?=\s*)(.*)$", re.M)

TOML_VALUES = [
    b'""', b'"."', b'"/"', b'"/etc"', b'"../.."', b'"src/realname/../../.."', b'"C:\\\\src"',
    b'"C:/src"', b'"\\\\\\\\server\\\\share"', b'"src/./realname/"', b'"src//realname"',
    b'"src/realname\\u0000"', b'"\\ud800"', b'"\\u202esrc"', b'"' + b"a/" * 3000 + b'"',
    b'"' + b"x" * 200_000 + b'"', b"[]", b"{}", b"true", b"0", b"-1", b"inf", b"nan",
    b"1979-05-27T07:32:00Z", b'["src/realname", "src/realname"]', b'["src", "src/realname"]',
    b'{ "" = "src" }', b'{ "pkg" = "src/realname", "pkg" = "legacy" }', b'{ "pkg" = ["src"] }',
    b"[" * 3000 + b"]" * 3000, b"{ a = " * 3000 + b"1" + b" }" * 3000, b'"""\nsrc\n"""',
    b"'src/realname'", b'"legacy/pkg"', b'"legacy"', b'["legacy/pkg"]', b'{ "legacy" = "pkg" }',
]  # fmt: skip
CFG_VALUES = [
    b"", b"%(x)s", b"%", b"\n    pkg = src/realname\n    pkg = legacy", b"\n    = src",
    b"\n    pkg", b"find:", b"find_namespace:", b"/etc", b"../..", b"C:\\src", b"legacy",
    b"\n    " + b"a = b\n    " * 20_000, b"x" * 200_000, b"\n\tpkg = src/realname",
    b"\n    pkg = src/realname\n[options]\npackages = pkg",
]  # fmt: skip
PY_VALUES = [
    b'{"pkg": "legacy"}', b'{"": "legacy"}', b"{}", b"None", b"dirs", b"{**dirs}",
    b'{"pkg": "src/" "realname"}', b'{"pkg": f"src/realname"}', b'{"pkg": b"src/realname"}',
    b'dict(pkg="src/realname")', b'{"pkg": "src/realname", "pkg": "legacy"}',
    b"{" * 2000 + b"}" * 2000, b"(" * 200 + b"1" + b")" * 200, b"[" * 100_000 + b"]" * 100_000,
    b'{"pkg": "' + b"x" * 200_000 + b'"}', b"1 if x else 2", b'{"pkg": "src/realname"})\nsetup(',
    b'{"pkg": "src/realname"}, **extra', b"lambda: 0", b"'\\udcff'", b"0x" + b"f" * 5000,
]  # fmt: skip


def _values(data: bytes, rng: random.Random, values: list[bytes]) -> Mutation:
    """The value of one `KEY = VALUE` line (of a TOML, cfg or Python file) replaced."""
    found = list(_ASSIGNMENT.finditer(data))
    if not found:
        return mut.byte_noise(data, rng)
    match = rng.choice(found)
    value = rng.choice(values)
    edited = data[: match.start(2)] + value + data[match.end(2) :]
    return edited, f"value:{match.group(1).strip()[:30]!r}={value[:24]!r}"


def _structure(data: bytes, rng: random.Random, extra: list[bytes]) -> Mutation:
    """A line inserted (a duplicate header or key, a huge or deep one), or the file padded."""
    lines = data.split(b"\n")
    at = rng.randrange(len(lines) + 1)
    line = rng.choice([*extra, *(lines[i] for i in range(len(lines)) if lines[i].strip())])
    if rng.random() < 0.1:  # the file at its size cap, either side of it
        pad = (b"# " + b"x" * 78 + b"\n") * (256 * 1024 // 81 + rng.choice([-2, 2]))
        return data + pad, f"padded:{len(pad)}"
    lines.insert(at, line)
    return b"\n".join(lines), f"insert@{at}:{line[:30]!r}"


TOML_LINES = [
    b"[tool.setuptools]", b"[tool.setuptools.package-dir]", b"[build-system]", b"[[tool]]",
    b'build-backend = "hatchling.build"', b'build-backend = "maturin"',
    b'build-backend = "flit_core.buildapi"', b'backend-path = ["."]', b"[tool.hatch.build]",
    b"[tool.hatch.build.targets.wheel]", b'sources = ["src"]', b"[tool.maturin]",
    b'python-source = "legacy"', b"[tool.setuptools_scm]", b'version_file = "legacy/_version.py"',
    b'write_to = "../../_version.py"', b"[tool.hatch.build.hooks.vcs]",
    b'version-file = "src/realname/_version.py"', b"enable-by-default = false",
    b"[tool.versioneer]", b'VCS = "git"', b'versionfile_build = "pkg/_version.py"',
    b"a" + b".a" * 127 + b" = 1", b"a" + b".a" * 128 + b" = 1",
    (b"a" + b".a" * 120 + b" = 1\n") * 500, b"x = 1\n" * 20_000,
    b'"' + b"k" * 100_000 + b'" = 1', b"[" + b"a." * 127 + b"a]",
]  # fmt: skip
CFG_LINES = [
    b"[options]", b"[options]\n[options]", b"package_dir = pkg = legacy", b"[versioneer]",
    b"versionfile_build = pkg/_version.py", b"VCS = git", b"[options.packages.find]",
    b"where = legacy", b"where = src legacy", b"packages = find:", b"  continued", b"\x00",
    b"[" * 10_000, b"%(here)s = 1", b"[options] trailing",
]  # fmt: skip
PY_LINES = [
    b"setup(package_dir={})", b'setup(package_dir={"pkg": "legacy"})', b"setup(**options)",
    b"from setuptools import setup as build", b'build(package_dir={"pkg": "legacy"})',
    b"import setuptools as st", b'st.setup(package_dir={"": "legacy"})',
    b"x = " + b"a." * 50_000 + b"setup", b"setup(" * 500 + b")" * 500, b"if 1:\n  setup()",
    b"setup()\n" * 20_000, b"# -*- coding: latin-1 -*-", b"\xef\xbb\xbf", b"def f(:",
]  # fmt: skip


def toml_value(data: bytes, rng: random.Random) -> Mutation:
    return _values(data, rng, TOML_VALUES)


def toml_structure(data: bytes, rng: random.Random) -> Mutation:
    return _structure(data, rng, TOML_LINES)


def cfg_value(data: bytes, rng: random.Random) -> Mutation:
    return _values(data, rng, CFG_VALUES)


def cfg_structure(data: bytes, rng: random.Random) -> Mutation:
    return _structure(data, rng, CFG_LINES)


def py_value(data: bytes, rng: random.Random) -> Mutation:
    return _values(data, rng, PY_VALUES)


def py_structure(data: bytes, rng: random.Random) -> Mutation:
    return _structure(data, rng, PY_LINES)


def link(data: bytes, rng: random.Random) -> Mutation:
    """The configuration file committed as a symbolic link."""
    target = rng.choice(
        [b"/etc/passwd", b"/dev/zero", b"setup.cfg", b"pyproject.toml", b"../" * 40 + b"etc",
         b"src/realname", b"missing", b"x" * 4000]
    )  # fmt: skip
    return LINK + target, f"link->{target[:30]!r}"


def _config_mutators(
    value: Callable[[bytes, random.Random], Mutation],
    structure: Callable[[bytes, random.Random], Mutation],
) -> list[Callable[[bytes, random.Random], Mutation]]:
    return [value, value, value, structure, structure, mut.text_lines, mut.byte_noise, link]


TOML_MUTATORS = _config_mutators(toml_value, toml_structure)
CFG_MUTATORS = _config_mutators(cfg_value, cfg_structure)
PY_MUTATORS = _config_mutators(py_value, py_structure)

# --- version modules -------------------------------------------------------------------------

MODULE_LINES = [
    b"import os", b"__version__ = version = '9.9'", b"__commit_id__ = commit_id = 'g0'",
    b"__all__ = ['nothing']", b"from __future__ import annotations as x", b"TYPE_CHECKING = True",
    b"version: print('x')", b"del version", b"version += '1'", b"global version",
    b"__version__ = version = '1.1'  # " + b"x" * 100_000, b"if TYPE_CHECKING:\n    import os",
    b"version_json = '''\n{\"version\": \"9.9\", \"dirty\": true}\n'''  # END VERSION_JSON",
    b"def get_versions():\n    return {}", b"x = " + b"(" * 5000 + b")" * 5000,
    b"x: " + b"list[" * 3000 + b"int" + b"]" * 3000, b"__version__ = version = '1.1' '.dev'",
    b"__version__ = version = f'1.1'", b"__version__ = version = r'1.1'",
]  # fmt: skip
MODULE_VALUES = [
    b"'9.9'", b"None", b"'1.1\\x00'", b"'\\udcff'", b"b'1.1'", b"('1', '1')", b"version",
    b"__import__('os').getenv('V')", b"'1.1' if True else '2'", b"(1, 1, 'x' * 9)",
    b"{'version': '1.1'}", b"'''\n{}\n'''", b"'" + b"9" * 5000 + b"'",
]  # fmt: skip


def module_value(data: bytes, rng: random.Random) -> Mutation:
    return _values(data, rng, MODULE_VALUES)


def module_structure(data: bytes, rng: random.Random) -> Mutation:
    return _structure(data, rng, MODULE_LINES)


MODULE_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [module_value, module_value, module_structure, module_structure,
                   mut.text_lines, mut.byte_noise]  # fmt: skip

# --- .pth ------------------------------------------------------------------------------------

PTH_LINES = [
    b"a" * 4096, b"a/" * 2100, b"x" * 300_000, b"demo\x00", b"../../../share/demo\x00x",
    b"\r../../../share/demo", b"../../../share/demo\r", b"C:\\share\\demo", b"C:/share/demo",
    b"c:share", b"\\\\server\\share\\demo", b"../" * 200 + b"share/demo", b"../" * 3 + b"..",
    b"..", b".", b"/", b"//", b"/opt/venv/share/demo", b"~/demo", b"$HOME/demo",
    b"../../../share/demo/", b"../../../share/demo/sitecustomize.py", b"../../../share/./demo",
    b"../../../share//demo", b"../../../Share/Demo", b"\xef\xbb\xbf../../../share/demo",
    b"import\tos", b"import os;" + b"x" * 5000, b"\x0c../../../share/demo", b"\xff\xfe",
    b"\xe2\x80\xa8../../../share/demo", b"\xc2\x85demo", b"../../../share/demo \t",
    b"../../../" + b"a/../" * 1000 + b"share/demo", b"..\\..\\..\\share\\demo",
]  # fmt: skip


def pth_line(data: bytes, rng: random.Random) -> Mutation:
    """One path line replaced, or one added, or the file's line ends changed."""
    lines = data.split(b"\n")
    if rng.random() < 0.15:
        end = rng.choice([b"\r", b"\r\n", b"\x0b", b"\x1c", b"\xe2\x80\xa9"])
        return end.join(lines), f"pth-ends:{end!r}"
    at = rng.randrange(len(lines))
    line = rng.choice(PTH_LINES)
    if rng.random() < 0.5:
        lines[at] = line
    else:
        lines.insert(at, line)
    if rng.random() < 0.2 and len(data) + len(line) < 1000:  # many short lines
        lines *= rng.choice([100, 5000])
    return b"\n".join(lines), f"pth-line@{at}:{line[:30]!r}"


PTH_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    pth_line,
    pth_line,
    pth_line,
    mut.text_lines,
    mut.byte_noise,
]

# --- samples header and /perf_metrics drains -------------------------------------------------

HEADER_VALUES: list[object] = [
    None, True, False, 0, 1, -1, 1.5, "", "x", "q0", [], {}, [None], [1], ["q0", "q0"],
    ["q0"], ["missing"], ["\ud800"], ["a\x00b"], [[]], ["x" * 100_000], [str(n) for n in range(50_000)],
    "true", [True],
]  # fmt: skip


def _header_edit(header: dict[str, object], rng: random.Random) -> str:
    run = header.get("run")
    if not isinstance(run, dict):
        return "no run"
    field = rng.choice(["keys", "keys", "perf_batch_drains", "perf_start_drains", "modes",
                        "repeats"])  # fmt: skip
    if rng.random() < 0.2:
        run.pop(field, None)
        return f"drop:{field}"
    value = rng.choice(HEADER_VALUES)
    if field == "keys" and isinstance(run.get("keys"), list) and rng.random() < 0.4:
        keys = list(run["keys"])
        op = rng.choice(["drop", "dup", "reverse", "add"])
        if op == "drop" and keys:
            keys.pop(rng.randrange(len(keys)))
        elif op == "dup" and keys:
            keys.append(keys[0])
        elif op == "reverse":
            keys.reverse()
        else:
            keys.append(rng.choice(["zz", "", "q0 ", "Q0"]))
        run["keys"] = keys
        return f"keys-{op}"
    run[field] = value
    return f"{field}={json.dumps(value)[:24]}"


def samples_header(data: bytes, rng: random.Random) -> Mutation:
    """A samples log's header: `run.keys`, `perf_batch_drains`, `perf_start_drains` edited."""
    lines = data.split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        return mut.byte_noise(data, rng)
    label = _header_edit(header, rng)
    if rng.random() < 0.2 and len(lines) > 2:  # and a sample line dropped (filtered, killed)
        del lines[rng.randrange(1, len(lines) - 1)]
        label += "+dropline"
    lines[0] = json.dumps(header).encode("utf-8", "surrogatepass")
    return b"\n".join(lines), f"header:{label}"


DRAIN_VALUES: list[object] = [None, True, 0, -1, 1, 2, 99, 1.5, "0", [], {}, 10**30]


def perf_drains(data: bytes, rng: random.Random) -> Mutation:
    """A `/perf_metrics` log's start-up, closing or request drains: one dropped, repeated,
    moved, or its segment, records, key, repeat or error edited."""
    lines = data.split(b"\n")
    drains = [i for i, line in enumerate(lines) if line.strip()]
    if not drains:
        return mut.byte_noise(data, rng)
    ends = [i for i in drains if b'"end"' in lines[i] or b'"start"' in lines[i]]
    at = rng.choice(ends if ends and rng.random() < 0.6 else drains)
    op = rng.choice(["drop", "dup", "move", "field", "field", "field"])
    if op == "drop":
        del lines[at]
    elif op == "dup":
        lines.insert(rng.randrange(len(lines)), lines[at])
    elif op == "move":
        line = lines.pop(at)
        lines.insert(rng.randrange(len(lines) + 1), line)
    else:
        try:
            drain = json.loads(lines[at])
        except ValueError:
            return mut.byte_noise(data, rng)
        field = rng.choice(["start", "end", "records", "error", "key", "repeat", "mode", "side",
                            "metrics", "request"])  # fmt: skip
        value = rng.choice([*DRAIN_VALUES, "a", "b", "patch", "base", "cold-warm", "concurrent"])
        drain[field] = value
        lines[at] = json.dumps(drain).encode()
        return b"\n".join(lines), f"drain-{field}@{at + 1}={json.dumps(value)[:20]}"
    return b"\n".join(lines), f"drain-{op}@{at + 1}"


HEADER_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    samples_header,
    samples_header,
    samples_header,
    *mut.JSONL_MUTATORS,
]
DRAIN_MUTATORS: list[Callable[[bytes, random.Random], Mutation]] = [
    perf_drains,
    perf_drains,
    perf_drains,
    *mut.JSONL_MUTATORS,
]
