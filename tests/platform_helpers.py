"""Helpers for tests/test_platforms.py: the kernel cross-built once per test process, the C harness
(tests/kernel_harness/harness.c) built for a platform, and the emulators that run foreign binaries here."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from crane_models.fmi import platforms

HARNESS = Path(__file__).resolve().parent / "kernel_harness" / "harness.c"
AARCH64_SYSROOT = Path("/usr/aarch64-linux-gnu")  # Debian/Ubuntu libc6-arm64-cross
_BUILT: dict = {}


def require_zig() -> list:
    zig = platforms.zig_command()
    if zig is None:
        pytest.skip("cross-compiling needs zig: pip install ziglang (or zig on PATH)")
    return zig


def cross_built(tmp_path_factory) -> dict:
    """{(library, platform): path} for every platform, built once per test process."""
    require_zig()
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
