"""Stop 72's mutators for `scripts/fuzz_cli.py`: a scikit-build-core project's `CMakeLists.txt`,
hatchling and scikit-build-core exclude patterns and `.gitignore`, `hatch.toml`, hooks whose
imports are computed names, `sha256sum` manifest lines, release-set file names, rules spread
across a long line's 1 MiB cut, and the samples header's `server_identity` and `log_format`.

As in `fuzz_mutators`, each takes the seed's bytes and a `random.Random` and returns the
mutated bytes and a label.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable

import fuzz_mutators as mut
import fuzz_mutators70 as m70
import fuzz_mutators71 as m71

Mutation = tuple[bytes, str]
Mutator = Callable[[bytes, random.Random], Mutation]

# --- CMakeLists.txt --------------------------------------------------------------------------

CMAKE_LINES = [
    b"install(FILES fixes/auth.py DESTINATION pkg/sub)", b"install(FILES fixes/auth.py DESTINATION pkg)",
    b"install(FILES ${CMAKE_SOURCE_DIR}/fixes/auth.py DESTINATION pkg/sub)",
    b'install(FILES "fixes/auth.py" DESTINATION "pkg/sub")', b"install(FILES fixes/auth.py DESTINATION pkg/sub RENAME auth.py)",
    b"install(DIRECTORY fixes/ DESTINATION pkg/sub)", b'install(CODE "file(WRITE x y)")',
    b"install(FILES ${X} DESTINATION pkg/sub)", b"if(WIN32)\ninstall(FILES fixes/auth.py DESTINATION pkg/sub)\nendif()",
    b"if(FALSE)\nreturn()\nendif()", b"return()", b"include(other.cmake)", b"add_subdirectory(fixes)",
    b"add_subdirectory(../outside x)", b"cmake_language(CALL install FILES fixes/auth.py DESTINATION pkg/sub)",
    b"_install(FILES fixes/auth.py DESTINATION pkg/sub)", b"INSTALL(FILES fixes/auth.py DESTINATION pkg/sub)",
    b"install (FILES fixes/auth.py DESTINATION pkg/sub)", b"install(\nFILES\nfixes/auth.py\nDESTINATION\npkg/sub\n)",
    b"#[[ install(FILES fixes/auth.py DESTINATION pkg/sub) ]]", b"install(FILES fixes/auth.py #[[x]] DESTINATION pkg/sub)",
    b"install(FILES fixes/auth.py DESTINATION #[==[ ]==] pkg/sub)", b"#[=[", b"]=]", b"# install(FILES a DESTINATION b)",
    b"install(FILES fixes/auth.py DESTINATION ${SKBUILD_PROJECT_NAME}/sub)", b"install(FILES fixes/auth.py DESTINATION ${SKBUILD_PLATLIB_DIR}/pkg/sub)",
    b"install(FILES fixes/auth.py DESTINATION ../pkg/sub)", b"install(FILES fixes/auth.py DESTINATION /pkg/sub)",
    b"install(FILES fixes/auth.py DESTINATION pkg/sub COMPONENT x)", b"install(FILES fixes/auth.py TYPE LIB)",
    b"install(FILES fixes\\;auth.py DESTINATION pkg/sub)", b'install(FILES "fixes/auth.py;src/pkg/util.py" DESTINATION pkg/sub)',
    b"install(IMPORTED_RUNTIME_ARTIFACTS x)", b"install(SCRIPT x.cmake)", b"install(EXPORT x DESTINATION pkg)",
    b"configure_file(fixes/auth.py ${CMAKE_BINARY_DIR}/auth.py COPYONLY)", b"set(X fixes/auth.py)",
    b"function(install)\nendfunction()", b"macro(install)\n_install(${ARGV})\nendmacro()",
    b"file(COPY fixes DESTINATION pkg)", b"set_target_properties(_core PROPERTIES RESOURCE fixes/auth.py)",
    b"block()\nreturn()\nendblock()", b"foreach(f auth.py)\ninstall(FILES fixes/${f} DESTINATION pkg/sub)\nendforeach()",
    b"install(" * 400 + b")" * 400, b"install(FILES " + b"a/" * 5000 + b"x DESTINATION pkg)",
    b'install(FILES "' + b"x" * 100_000 + b'" DESTINATION pkg)', b"\x00", b"\xff\xfe", b"\\", b'"', b"(",
    b"install(FILES fixes/auth.py DESTINATION pkg/sub)\n" * 3000, b"[[", b"${", b"$ENV{HOME}",
]  # fmt: skip


def cmake_line(data: bytes, rng: random.Random) -> Mutation:
    """One command line replaced or inserted; now and then the file grown past its cap."""
    lines = data.split(b"\n")
    line = rng.choice(CMAKE_LINES)
    at = rng.randrange(len(lines) + 1)
    if rng.random() < 0.05:
        pad = b"# " + b"x" * 78 + b"\n"
        return data + pad * rng.choice([40_000, 60_000]), "cmake-padded"
    if rng.random() < 0.4 and lines:
        at = min(at, len(lines) - 1)
        lines[at] = line
        return b"\n".join(lines), f"cmake-replace@{at}:{line[:40]!r}"
    lines.insert(at, line)
    return b"\n".join(lines), f"cmake-insert@{at}:{line[:40]!r}"


CMAKE_MUTATORS: list[Mutator] = [cmake_line, cmake_line, cmake_line, cmake_line, mut.text_lines,
                                 mut.byte_noise, m70.link]  # fmt: skip

# --- exclude patterns and .gitignore ---------------------------------------------------------

PATTERNS = [
    "src/pkg/testing", "src/pkg/testing/", "/src/pkg/testing", "testing", "testing/", "testing/*",
    "testing/**", "**/testing", "**/testing/**", "src/**/fake_auth.py", "fake_auth.py", "*auth.py",
    "fake_*", "*.py", "*", "**", "/", "", " ", "#x", "\\#x", "!fake_auth.py", "\\!fake_auth.py",
    "src/pkg/testing/fake_auth.py", "src/pkg/testing/fake_auth.py ", "src/pkg/testing/fake_auth.py\\ ",
    "src/pkg/[t]esting", "src/pkg/[!x]esting", "src/pkg/[a-z]esting", "src/pkg/t?sting", "src/pkg/te*ing",
    "src//pkg/testing", "./src/pkg/testing", "src/pkg/testing/.", "src/pkg/Testing", "SRC/pkg/testing",
    "src\\pkg\\testing", "src/pkg/testing\\", "***/testing", "src/pkg/testing/**/*", "pkg/testing/",
    "*a*a*a*a*a*a*a*a*a*a*b", "*" * 500, "a" * 5000, "[", "[]", "[!]", "\\", "src/pkg/testing\x00",
    "\u00e9", "src/pkg/t\u0435sting", "src/pkg/testing\r", "**/", "*/testing", "*/*/testing",
]  # fmt: skip


def _pick_patterns(rng: random.Random) -> list[str]:
    count = rng.choice([1, 1, 2, 3, 5, 1200])
    return [rng.choice(PATTERNS) for _ in range(count)]


def exclude_patterns(data: bytes, rng: random.Random) -> Mutation:
    """The pyproject's exclude list (the last `exclude = [...]` line) replaced."""
    patterns = _pick_patterns(rng)
    text = data.decode("utf-8", "replace")
    head, sep, _tail = text.rpartition("exclude = ")
    if not sep:
        return mut.byte_noise(data, rng)
    value = json.dumps(patterns)
    return (head + sep + value + "\n").encode(
        "utf-8", "surrogatepass"
    ), f"exclude:{value[:60]}:{len(patterns)}"


def gitignore_lines(data: bytes, rng: random.Random) -> Mutation:
    """A `.gitignore` of patterns, its lines ended by `\\n`, `\\r\\n`, `\\r` or other breaks."""
    patterns = _pick_patterns(rng)
    end = rng.choice(["\n", "\n", "\r\n", "\r", "\x85", "\u2028", "\x0b"])
    text = end.join(patterns) + rng.choice(["", "\n"])
    return text.encode(
        "utf-8", "surrogatepass"
    ), f"gitignore:{patterns[:3]!r}:{len(patterns)}:{end!r}"


EXCLUDE_MUTATORS: list[Mutator] = [exclude_patterns] * 5 + [mut.byte_noise, mut.text_lines]
GITIGNORE_MUTATORS: list[Mutator] = [gitignore_lines] * 5 + [mut.byte_noise, mut.text_lines]

# --- hatch.toml ------------------------------------------------------------------------------

HATCH_LINES = [
    b"[build]", b"[build.hooks.vcs]", b'version-file = "src/realname/_version.py"',
    b'version-file = "legacy/pkg/_version.py"', b'version-file = "../x.py"', b"version-file = 1",
    b"[build.targets.wheel]", b'packages = ["legacy/pkg"]', b'sources = {"legacy" = ""}',
    b"[tool.hatch.build]", b"[version]", b'source = "vcs"', b'path = "legacy/pkg/__init__.py"',
    b"[build.targets.wheel.force-include]", b'"legacy/pkg" = "pkg"', b'exclude = ["src"]',
    b"[envs.default]", b"[[build]]", b"build = 1", b'only-include = ["legacy"]',
]  # fmt: skip


def hatch_structure(data: bytes, rng: random.Random) -> Mutation:
    return m70._structure(data, rng, HATCH_LINES + m70.TOML_LINES[::4])


HATCH_MUTATORS: list[Mutator] = [m70.toml_value, m70.toml_value, hatch_structure,
                                 hatch_structure, mut.text_lines, mut.byte_noise, m70.link]  # fmt: skip

# --- hooks whose imports are computed names ---------------------------------------------------

COMPUTED = [  # statements that reach demo_inner through a name computed at run time
    b"import importlib\nimportlib.import_module('demo_' + 'inner')", b"__import__('demo_in' + 'ner')",
    b"__import__(''.join(['demo_', 'inner']))", b"__import__('renni_omed'[::-1])",
    b"import importlib\nn = 'demo_inner'\nimportlib.import_module(n)",
    b"getattr(__import__('importlib'), 'import_module')('demo_inner')", b"__import__('%s_inner' % 'demo')",
    b"__import__(f\"{'demo'}_inner\")", b"__import__('DEMO_INNER'.lower())",
    b"import importlib as i\nm = i.import_module\nm('demo_' 'inner')", b"exec('import demo_inner')",
    b"eval(\"__import__('demo_inner')\")", b"list(map(__import__, ['demo_inner']))",
    b"import functools\nfunctools.partial(__import__, 'demo_inner')()",
    b"import operator\noperator.methodcaller('import_module', 'demo_inner')(__import__('importlib'))",
    b"vars(__import__('importlib'))['import_module']('demo_inner')", b"__builtins__['__import__']('demo_inner')",
    b"import builtins\nbuiltins.__import__('demo_inner')", b"import builtins\ngetattr(builtins, '__imp' + 'ort__')('demo_inner')",
    b"import importlib\n[importlib.import_module(n) for n in ['demo_inner']]",
    b"import importlib.util as u, os\ns = u.spec_from_file_location('x', os.path.join(os.path.dirname(__file__), 'demo_inner.py'))\ns.loader.exec_module(u.module_from_spec(s))",
    b"import runpy\nrunpy.run_path(__file__.replace('demo_hook', 'demo_inner'))",
    b"exec(open(__file__.replace('demo_hook', 'demo_inner')).read())",
    b"exec(compile(open(__file__[:-7] + 'inner.py').read(), 'x', 'exec'))", b"__import__(chr(100) + 'emo_inner')",
    b"import codecs\n__import__(codecs.decode('qrzb_vaare', 'rot13'))",
    b"import base64\n__import__(base64.b64decode('ZGVtb19pbm5lcg==').decode())",
    b"class L:\n    def __getattr__(s, n):\n        return __import__(n)\nL().demo_inner", b"def f():\n    return __import__\nf()('demo_inner')",
    b"i = __import__('importlib')\ngetattr(i, 'import_' + 'module')('demo_inner')", b"from importlib import *\nimport_module('demo_inner')",
    b"from importlib import import_module\nglobals()['import_module']('demo_inner')", b"import importlib\nimportlib.__import__('demo_inner')",
    b"import importlib._bootstrap as b\nb._gcd_import('demo_inner')", b"import demo_pkg.boot as b\ngetattr(b, 'st' + 'art')()",
    b"from demo_pkg import boot\nboot.__dict__['start']()", b"import demo_pkg.boot\n[f() for f in [demo_pkg.boot.start]]",
    b"import demo_pkg.boot\nfor n in ('start',):\n    getattr(demo_pkg.boot, n)()", b"import demo_pkg.boot\nvars(demo_pkg.boot)['sta' + 'rt']()",
    b"import sys\n__import__('demo_pkg.boot')\nsys.modules['demo_pkg.boot'].start()", b"(lambda m: __import__(m))('demo_inner')",
    b"x = {'k': __import__}\nx['k']('demo_inner')", b"import importlib\nf = getattr(importlib, 'import_module')\nf('demo_inner')",
    b"import pkgutil\npkgutil.resolve_name('demo_' + 'inner')", b"import importlib\nimportlib.reload(importlib.import_module('demo_inner'))",
    b"__import__('demo_pkg.boot', fromlist=['x']).start()", b"import types\ntypes.FunctionType(compile('import demo_inner', 'x', 'exec'), {})()",
    b"@(lambda f: f())\ndef _go():\n    import demo_inner", b"import contextlib\nwith contextlib.suppress(Exception):\n    __import__('demo_' 'inner')",
]  # fmt: skip


def computed_hook(data: bytes, rng: random.Random) -> Mutation:
    """A hook of statements drawn from `COMPUTED` and stop 71's `OTHER`, its `.pth` sometimes
    one computed line itself."""
    statements = [rng.choice(m71.OTHER if rng.random() < 0.5 else COMPUTED)
                  for _ in range(rng.randrange(1, 4))]  # fmt: skip
    pth = b"import demo_hook\n"
    if rng.random() < 0.25:
        line = rng.choice(COMPUTED).replace(b"\n", b"; ")
        pth = b"import demo_hook; " + line + b"\n"
    body = b"\n".join(statements) + b"\n"
    return pth + m71.PTH_SEP + body, f"computed:{[s[:30] for s in statements]}:{pth[:30]!r}"


COMPUTED_MUTATORS: list[Mutator] = [computed_hook] * 5 + [m71.hook_module]

# --- sha256sum manifest lines -----------------------------------------------------------------


def manifest_lines(data: bytes, rng: random.Random) -> Mutation:
    """The manifest's line for the wheel rewritten as `sha256sum` would read it or not: the
    binary mark, escapes, BSD tags, case, spacing, line ends; other lines added."""
    first = data.split(b"\n")[0]
    digest, _, name = first.partition(b"  ")
    other = b"0" * 64
    forms = [
        digest + b"  " + name, digest + b" *" + name, digest + b" " + name, digest + b"\t" + name,
        digest.upper() + b"  " + name, digest[:-1] + b"  " + name, digest + b"0  " + name,
        other + b"  " + name, b"\\" + digest + b"  " + name, b"\\" + digest + b"  " + name + b"\\n",
        b"\\" + digest + b"  " + name.replace(b"engine", b"engine\\\\"), digest + b"  ./" + name,
        digest + b"  " + name + b" ", digest + b"  " + name + b"\r", b" " + digest + b"  " + name,
        b"SHA256 (" + name + b") = " + digest, b"SHA256 (" + name + b") = " + digest.upper(),
        b"\\SHA256 (" + name + b") = " + digest, b"SHA512 (" + name + b") = " + digest,
        b"SHA256(" + name + b")= " + digest, b"SHA256 (" + name + b")  = " + digest,
        b"MD5 (" + name + b") = " + digest[:32], digest + b"  " + name.upper(), digest + b"  " + name + b"\x00",
        b"\xef\xbb\xbf" + digest + b"  " + name, b"#" + digest + b"  " + name, digest + b"  /" + name,
        digest + b"  ../base/" + name, digest + b"  base/../" + name, digest + b"  *" + name,
        digest + b"   " + name, digest + b"  " + name + b"\\", b"\\" + digest + b"  " + name + b"\\r",
        b"\\" + digest + b"  " + name + b"\\x", digest + b"  " + name.replace(b".whl", b".WHL"),
    ]  # fmt: skip
    line = rng.choice(forms)
    lines = [line]
    for _ in range(rng.choice([0, 0, 1, 2])):
        extra = rng.choice(
            [*forms, other + b"  missing.whl", b"garbage", b"", other + b"  " + name]
        )
        lines.insert(rng.randrange(len(lines) + 1), extra)
    end = rng.choice([b"\n", b"\n", b"\r\n", b"\r", b""])
    if rng.random() < 0.05:
        lines *= 20_000
    return end.join(lines) + end, f"manifest:{line[:24]!r}..{line[-24:]!r}:{len(lines)}:{end!r}"


MANIFEST_MUTATORS: list[Mutator] = [manifest_lines] * 6 + [mut.byte_noise, mut.text_lines]

# --- release-set names ------------------------------------------------------------------------

SET_NAMES = [
    "engine-1.0-cp311-cp311-linux_x86_64.whl", "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
    "engine-1.0-cp311-cp311-manylinux2014_x86_64.whl", "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "engine-1.0-cp311-cp311-musllinux_1_2_x86_64.whl", "engine-1.0-cp311-cp311-macosx_11_0_arm64.whl",
    "engine-1.0-cp311-cp311-macosx_10_9_universal2.whl", "engine-1.0-cp311-cp311-win_amd64.whl",
    "engine-1.0-cp312-cp312-linux_x86_64.whl", "engine-1.0-cp311-abi3-linux_x86_64.whl",
    "engine-1.0-py3-none-any.whl", "engine-1.0-1-cp311-cp311-linux_x86_64.whl", "Engine-1.0-cp311-cp311-linux_x86_64.whl",
    "engine_x-1.0-cp311-cp311-linux_x86_64.whl", "engine-1.1-cp311-cp311-linux_x86_64.whl",
    "engine-1.0+cu128-cp311-cp311-linux_x86_64.whl", "engine-1.0-cp311.cp312-cp311-linux_x86_64.whl",
    "engine-1.0-cp311-cp311-manylinux_2_17_x86_64." + "manylinux_2_28_x86_64." * 40 + "whl",
    "engine-1.0-cp311-cp311-manylinux_99999999999_1_x86_64.whl", "engine-1.0-cp311-cp311-macosx_99_0_x86_64.whl",
    "engine-1.0-cp311-cp311-.whl", "engine-1.0--linux_x86_64.whl", "engine.whl", "-.whl", "engine-1.0.tar.gz",
    "engine-1.0-cp311-cp311-linux_x86_64.whl.sig", "engine-\u00e9-cp311-cp311-linux_x86_64.whl",
    "engine-1.0-cp311-cp311-linux_x86_64 .whl", "engine-1.0-cp311-cp311-LINUX_X86_64.whl",
    "engine-1.0-cp311-cp311-manylinux_2_17_aarch64.whl", "engine-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
    "engine-1.0-cp311-cp311-" + "x" * 200 + ".whl", "engine-" + "1." * 100 + "0-py3-none-any.whl",
]  # fmt: skip


def set_names(data: bytes, rng: random.Random) -> Mutation:
    """Lines `base NAME` / `patch NAME`: the wheels of the two release sets (the seed's bytes
    each), some sets large (pairing's cost) or naming one wheel twice by case."""
    lines = []
    for side in ("base", "patch"):
        count = rng.choice([1, 2, 3, 6, 40, 150])
        for _ in range(count):
            name = rng.choice(SET_NAMES)
            if count > 6 and rng.random() < 0.7:  # many distinct platforms
                name = f"engine-1.0-cp3{rng.randrange(8, 14)}-cp3{rng.randrange(8, 14)}-manylinux_2_{rng.randrange(5, 40)}_x86_64.whl"
            lines.append(f"{side} {name}")
    return "\n".join(lines).encode(), f"set:{len(lines)}:{lines[0][:50]}"


SET_MUTATORS: list[Mutator] = [set_names] * 4 + [mut.text_lines]

# --- rules spread across a long line's 1 MiB cut ----------------------------------------------

MIB = 1 << 20
USER_RULE = "spread=BEGINMARK.*ENDMARK"
"""The `--rule` the target passes: a rule whose match may be any length."""
SPREADS: list[tuple[bytes, bytes, bytes]] = [  # (first, gap filler, last)
    (b"[TRT-LLM]", b" ", b"[E] failed"), (b"[TRT-LLM]", b"\t", b"[E]"), (b"[TRT-LLM]", b" ", b"[W]"),
    (b"Engine core proc EngineCore_DP0 ", b"x", b" died unexpectedly"), (b"EngineCore ", b"y", b"dead"),
    (b"worker ", b"z", b"died"), (b"Assertion `", b"q", b"' failed"), (b"BEGINMARK", b"w", b"ENDMARK"),
    (b"BEGINMARK", b"\r", b"ENDMARK"), (b"Traceback (most recent call last):", b" ", b""),
    (b"Traceback (most recent call last):", b" ", b'"}'), (b"CUDA", b"", b" error: x"),
    (b"Engine core proc X", b" ", b"died unexpectedly"), (b"BEGINMARK", b"\xff", b"ENDMARK"),
]  # fmt: skip


def spread_line(data: bytes, rng: random.Random) -> Mutation:
    """One line past the 1 MiB scanned whose rule match starts before or at a piece's edge
    (the cut, the overlap, each further MiB) and ends after it, its gap 0 to 2 MiB long."""
    first, filler, last = rng.choice(SPREADS)
    gap = rng.choice([0, 1, 1000, 1024, 4096, 4097, 65_536, MIB, MIB + 3, 2 * MIB])
    edge = rng.choice([MIB, MIB - 4096, MIB + 4096, 2 * MIB, 3 * MIB, MIB - 1024, MIB - 256])
    at = max(0, edge - rng.randrange(0, len(first) + 4096))
    pad = rng.choice([b"x", b"\rProcessed prompts:  42%|###  | 42/100", b"\xe2\x96\x88", b" "])
    head = (pad * (at // len(pad) + 1))[:at]
    middle = (filler * gap)[:gap] if filler else b""
    if rng.random() < 0.15 and middle:  # the gap broken by a character its class does not hold
        cut = rng.randrange(len(middle))
        middle = middle[:cut] + b"#" + middle[cut + 1 :]
    tail = pad * rng.choice([0, 10, 100_000])
    end = rng.choice([b"\n", b"\r\n", b"", b"\n" + data])
    log = data + head + first + middle + last + tail + end
    label = f"spread:{first[:12]!r}+{gap}x{filler!r}+{last[:8]!r}@{at}:{len(tail)}:{end[:2]!r}"
    if rng.random() < 0.1:
        return gzip.compress(log, compresslevel=1), label + ":gz"
    return log, label


SPREAD_MUTATORS: list[Mutator] = [spread_line] * 5 + [m71.long_line]

# --- the samples header's server_identity and log_format --------------------------------------

IDENTITIES: list[object] = [
    None, {}, [], "one-server", {"result": "one-server"}, {"result": "two-servers"},
    {"result": "unchecked"}, {"result": "one-server", "why": "x", "sent": 3},
    {"result": "one-server", "why": "the base counted 3", "sent": 3, "series": "a_total{}"},
    {"result": "two-servers", "why": "x", "sent": 3, "series": "v" * 100_000},
    {"result": "One-Server", "why": "x", "sent": 3}, {"result": "", "why": "", "sent": 0},
    {"result": "one-server", "why": 1, "sent": "3"}, {"result": True}, {"result": ["one-server"]},
    {"result": "two-servers", "why": "\x1b[2J\u202e", "sent": -1}, {"result": "one-server", "sent": 10**40},
    {"result": "unchecked", "why": None, "sent": 3, "extra": 1},
]  # fmt: skip
FORMATS: list[object] = [None, 0, 1, 2, 3, 4, 99, "3", 3.0, True, -3, 10**30]


def identity_header(data: bytes, rng: random.Random) -> Mutation:
    """The header's `server_identity` replaced or dropped, and `log_format` now and then."""
    lines = data.split(b"\n")
    try:
        header = json.loads(lines[0])
        run = header["run"]
    except (ValueError, KeyError, TypeError):
        return mut.byte_noise(data, rng)
    label = []
    if rng.random() < 0.8:
        if rng.random() < 0.15:
            run.pop("server_identity", None)
            label.append("drop-identity")
        else:
            run["server_identity"] = rng.choice(IDENTITIES)
            label.append(f"identity={json.dumps(run['server_identity'])[:60]}")
    if rng.random() < 0.4:
        run["log_format"] = rng.choice(FORMATS)
        label.append(f"log_format={json.dumps(run['log_format'])[:12]}")
    lines[0] = json.dumps(header).encode("utf-8", "surrogatepass")
    return b"\n".join(lines), "header:" + ",".join(label)


IDENTITY_MUTATORS: list[Mutator] = [identity_header] * 5 + [mut.jsonl_lines]
