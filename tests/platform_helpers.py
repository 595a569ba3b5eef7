"""Helpers for tests/test_platforms.py: the kernel cross-built once per test process, the C harness
(tests/kernel_harness/harness.c) built for a platform, and the emulators that run foreign binaries here."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crane_models.fmi import platforms

HARNESS = Path(__file__).resolve().parent / "kernel_harness" / "harness.c"
AARCH64_SYSROOT = Path("/usr/aarch64-linux-gnu")  # Debian/Ubuntu libc6-arm64-cross
PACKAGE = Path(platforms.__file__).resolve().parents[1]  # crane_models
TABLE = PACKAGE / "core" / "native" / "entry_points.py"
_BUILT: dict = {}
_KERNEL_NAME = re.compile(r"mbs_[a-z0-9_]+")


def binding_calls() -> set:
    """The kernel functions something outside the kernel calls, found without the table of entry points: every
    ``mbs_*`` name the package's Python code uses as an attribute (``lib.mbs_evaluate``) or as a whole string
    (``hasattr(lib, "mbs_...")``), the table's own module left out, and every name the C harness looks up in a
    cross-built kernel (tests/kernel_harness/harness.c)."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        if path == TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _KERNEL_NAME.fullmatch(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _KERNEL_NAME.fullmatch(node.value):
                names.add(node.value)
    names.update(re.findall(r'find_symbol\(lib, "(mbs_[a-z0-9_]+)"\)', HARNESS.read_text()))
    return names


def kernel_c_functions() -> dict:
    """{name: (return type, [parameter declarations])} of every non-static ``mbs_*`` function the kernel's ``.c``
    files define."""
    found = {}
    definition = re.compile(r"^(int|void|double|long) (mbs_[a-z0-9_]+)\(([^)]*)\)\s*\{", re.MULTILINE)
    for source in platforms.KERNEL.sources:
        for kind, name, params in definition.findall(Path(source).read_text()):
            assert name not in found, f"{name} is defined twice"
            found[name] = (kind, [" ".join(p.split()) for p in params.split(",")])
    return found


def require_zig() -> list:
    zig = platforms.zig_command()
    if zig is None:
        pytest.skip("cross-compiling needs zig: pip install ziglang (or zig on PATH)")
    return zig


def require_lief() -> None:
    """Skip, naming the package, without LIEF: the build reads every binary's exports with it."""
    pytest.importorskip("lief", reason="reading what the binaries export needs LIEF: pip install lief (test extra)")


def cross_built(tmp_path_factory) -> dict:
    """{(library, platform): path} for every platform, built once per test process."""
    require_zig()
    require_lief()
    if "binaries" not in _BUILT:
        out = tmp_path_factory.mktemp("binaries")
        _BUILT["binaries"] = platforms.build_binaries(list(platforms.PLATFORMS.values()), out)
    return _BUILT["binaries"]


def build_harness(platform: platforms.Platform, out_dir: Path) -> Path:
    """The harness for ``platform`` (dynamically linked: it loads the kernel given on its command line)."""
    zig = require_zig()
    exe = Path(out_dir) / ("harness-" + platform.name + (".exe" if platform.extension == ".dll" else ""))
    libs = ["-ldl"] if platform.extension == ".so" else []
    cmd = [*zig, "cc", "-target", platform.zig_target, "-std=c99", "-O2", "-ffp-contract=off", "-o", str(exe),
           str(HARNESS), *libs]
    done = subprocess.run(cmd, capture_output=True, text=True, env=platforms._zig_environment())
    assert done.returncode == 0, done.stderr
    return exe


def windows_program(source: Path, out_dir: Path) -> Path:
    """A win64 console program built from one C file (for wine)."""
    zig = require_zig()
    exe = Path(out_dir) / (Path(source).stem + ".exe")
    cmd = [*zig, "cc", "-target", platforms.PLATFORMS["x86_64-windows"].zig_target, "-std=c99", "-O1", "-o", str(exe),
           str(source)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=platforms._zig_environment())
    assert done.returncode == 0, done.stderr
    return exe


def wine_command() -> list | None:
    """wine for 64-bit programs: ``wine64`` on PATH, Debian's /usr/lib/wine/wine64, or ``wine``."""
    for candidate in (shutil.which("wine64"), "/usr/lib/wine/wine64", shutil.which("wine")):
        if candidate and os.access(candidate, os.X_OK):
            return [candidate]
    return None


def wineserver_command() -> list | None:
    for candidate in (shutil.which("wineserver"), "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"):
        if candidate and os.access(candidate, os.X_OK):
            return [candidate]
    return None


def parse_harness_output(text: str) -> dict:
    """{(quantity, state, index): value} from the harness's "name state index value" lines."""
    rows = {}
    for line in text.replace("\r", "").splitlines():
        name, state, index, value = line.split()
        rows[(name, int(state), int(index))] = float(value)
    return rows
