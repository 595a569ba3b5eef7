"""The FMU runtime cross-built for Windows and macOS (issue 11, issue 16 item 1): every platform's binary
exports the FMI 2.0 functions, an FMU built for every platform carries the project's runtime (not
pythonfmu's binary) in each binaries/ folder, and under wine the win64 runtime, loaded by a small win64 host
from a built FMU, finds no Python, says what it looked for and how to point it elsewhere, returns NULL,
and the host exits 0.

Needs zig (``pip install ziglang``) and, for the wine test, wine for 64-bit programs (Debian ``wine64``,
installed by ``.ci/run``); each skips naming what is missing. What runs for real is the Windows failure
path (no Python in the wine prefix: no Windows CPython comes from PyPI); the macOS binaries are checked by
their export tables only."""
from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest
from fmpy import read_model_description

from crane_models.fmi import platforms
from crane_models.fmi.binary_exports import read_binary
from crane_models.fmi.build import build_fmu
from platform_helpers import cross_built, require_zig, wine_command, wineserver_command

HERE = Path(__file__).resolve().parent
MODEL = "Vessel"  # any FMU: the runtime knows nothing of cranes


@pytest.fixture(scope="module")
def binaries(tmp_path_factory):
    return cross_built(tmp_path_factory)


@pytest.fixture(scope="module")
def fmu(binaries, tmp_path_factory):
    """One FMU built as ``crane-cosim build --platforms all`` builds each, extracted."""
    path = build_fmu(MODEL, tmp_path_factory.mktemp("fmu"), 2, binaries)
    folder = tmp_path_factory.mktemp("unzipped")
    with zipfile.ZipFile(path) as z:
        z.extractall(folder)
    return folder


def test_every_cross_built_runtime_exports_the_fmi2_functions_for_its_processor(binaries):
    for platform in platforms.PLATFORMS.values():
        info = read_binary(binaries[("runtime", platform.name)])
        assert info.format == {".so": "elf", ".dll": "pe", ".dylib": "macho"}[platform.extension], platform.name
        assert info.architecture == platform.name.split("-")[0], platform.name
        missing = set(platforms.FMI2_FUNCTIONS) - info.exports
        assert not missing, f"{platform.name} lacks {sorted(missing)}"


def test_the_fmu_carries_the_project_runtime_for_every_platform(binaries, fmu):
    """binaries/<FMI 2.0 folder>/<model identifier><ext> is the runtime built here, for all five platforms
    (pythonfmu's wheel would put its own binary into linux64 and win64 and none into the others)."""
    found = sorted(p.relative_to(fmu / "binaries").as_posix() for p in (fmu / "binaries").glob("*/*"))
    expected = sorted(f"{p.fmi2_folder}/{MODEL}{p.extension}" for p in platforms.PLATFORMS.values())
    assert found == expected
    for platform in platforms.PLATFORMS.values():
        carried = (fmu / "binaries" / platform.fmi2_folder / f"{MODEL}{platform.extension}").read_bytes()
        assert carried == binaries[("runtime", platform.name)].read_bytes(), platform.name


def windows_path(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")  # wine maps the Linux root to drive Z:


def test_win64_runtime_under_wine_without_python_says_where_it_looked(fmu, tmp_path):
    """fmi2Instantiate with CRANE_COSIM_PYTHON pointing nowhere (and no Python in the fresh wine prefix):
    NULL, with a message naming the variable, the record (made on Linux: skipped), the registry and the
    install folders; twice (a failed search leaves nothing half-done); then fmi2FreeInstance(NULL),
    FreeLibrary and exit 0."""
    wine, wineserver = wine_command(), wineserver_command()
    if wine is None:
        pytest.skip("needs wine for 64-bit programs (Debian wine64)")
    zig = require_zig()
    exe = tmp_path / "win_probe.exe"
    done = subprocess.run([*zig, "cc", "-target", platforms.PLATFORMS["x86_64-windows"].zig_target, "-std=c99",
                           "-O1", "-o", str(exe), str(HERE / "native_host" / "win_probe.c")],
                          capture_output=True, text=True, env=platforms._zig_environment())
    assert done.returncode == 0, done.stderr
    guid = read_model_description(str(fmu)).guid
    resources = "file:///" + windows_path(fmu / "resources").replace("\\", "/")
    dll = windows_path(fmu / "binaries" / "win64" / f"{MODEL}.dll")
    env = {"WINEPREFIX": str(tmp_path / "wine"), "WINEDEBUG": "-all", "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path), "CRANE_COSIM_PYTHON": r"C:\nowhere\python.exe"}
    try:
        run = subprocess.run([*wine, str(exe), dll, guid, resources, "2"], capture_output=True, text=True,
                             timeout=600, env=env)
    finally:
        if wineserver:  # the server this test's prefix started, not any other
            subprocess.run([*wineserver, "-k"], env=env, capture_output=True, timeout=60)
    out = run.stdout.replace("\r", "")
    assert run.returncode == 0, out + run.stderr[-2000:]
    assert out.count("instance NULL\n") == 2 and out.endswith("done\n"), out
    messages = [line for line in out.splitlines() if line.startswith("log probe 3 logStatusError: ")]
    assert len(messages) == 2, out
    message = messages[0]
    assert f"fmi2Instantiate: no usable Python for {MODEL}" in message  # the class named by the FMU's record
    assert "no Python running in the host" in message
    assert r"CRANE_COSIM_PYTHON=C:\nowhere\python.exe: is neither a python3X.dll" in message
    assert "made on x86_64-linux, this is x86_64-windows" in message  # the Linux build's record is skipped
    assert r"HKCU and HKLM\Software\Python\PythonCore\3.X\InstallPath" in message
    assert "%LOCALAPPDATA%\\Programs\\Python\\Python3* (C:\\users\\" in message  # wine's profile folder
    assert message.endswith("Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual "
                            "environment) or its folder, with pythonfmu and numpy installed.")
