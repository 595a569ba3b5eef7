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
from crane_models.models.build import build_fmu
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


def test_an_fmi3_fmu_carries_the_fmi3_runtime_for_every_platform(binaries, tmp_path):
    """An FMU built as ``crane-cosim build --fmi 3 --platforms all`` builds it carries, in binaries/<FMI 3.0
    platform tuple>/, the FMI 3.0 runtime built here: all 75 FMI 3.0 functions, none of FMI 2.0 (before, the
    FMI 2.0 runtime landed there, and an FMI 3.0 host found no fmi3 function). The cross-built Linux one runs
    under fmpy's FMI 3.0 master."""
    import fmpy

    pytest.importorskip("pythonfmu3")
    path = build_fmu(MODEL, tmp_path, 3, binaries)
    with zipfile.ZipFile(path) as z:
        z.extractall(tmp_path / "unzipped")
    for platform in platforms.PLATFORMS.values():
        carried = tmp_path / "unzipped" / "binaries" / platform.name / f"{MODEL}{platform.extension}"
        assert carried.read_bytes() == binaries[("runtime3", platform.name)].read_bytes(), platform.name
        exports = read_binary(carried).exports
        assert set(platforms.FMI3_FUNCTIONS) <= exports and not any(e.startswith("fmi2") for e in exports)
    result = fmpy.simulate_fmu(str(path), stop_time=0.2, output_interval=0.01)
    assert len(result) == 21 and result["time"][-1] == pytest.approx(0.2)


def windows_path(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")  # wine maps the Linux root to drive Z:


def zig_windows(source: Path, output: Path, *flags: str) -> Path:
    done = subprocess.run([*require_zig(), "cc", "-target", platforms.PLATFORMS["x86_64-windows"].zig_target,
                           "-std=c99", "-O1", *flags, "-o", str(output), str(source)],
                          capture_output=True, text=True, env=platforms._zig_environment())
    assert done.returncode == 0, done.stderr
    return output


@pytest.fixture(scope="module")
def wine(fmu, tmp_path_factory):
    """run(*options, env=...) -> (exit status, stdout) of the win64 probe host on the FMU's win64 binary, in one
    fresh wine prefix for the module (its wineserver stopped at the end)."""
    wine, wineserver = wine_command(), wineserver_command()
    if wine is None:
        pytest.skip("needs wine for 64-bit programs (Debian wine64)")
    folder = tmp_path_factory.mktemp("wine")
    probe = zig_windows(HERE / "native_host" / "win_probe.c", folder / "win_probe.exe")
    base = {"WINEPREFIX": str(folder / "prefix"), "WINEDEBUG": "-all", "PATH": "/usr/bin:/bin", "HOME": str(folder)}
    guid = read_model_description(str(fmu)).guid
    resources = "file:///" + windows_path(fmu / "resources").replace("\\", "/")
    dll = windows_path(fmu / "binaries" / "win64" / f"{MODEL}.dll")

    def run(*args: str, env: dict | None = None, program: Path | None = None):
        command = [*wine, str(program)] if program else [*wine, str(probe), dll, guid, resources]
        done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=600,
                              env={**base, **(env or {})})
        return done.returncode, done.stdout.replace("\r", "") + done.stderr[-2000:]

    run.folder, run.prefix = folder, folder / "prefix"
    yield run
    if wineserver:  # the server this module's prefix started, not any other
        subprocess.run([*wineserver, "-k"], env=base, capture_output=True, timeout=60)


def errors(out: str) -> list:
    return [line[len("log probe 3 logStatusError: "):] for line in out.splitlines()
            if line.startswith("log probe 3 logStatusError: ")]


def test_win64_runtime_under_wine_without_python_says_where_it_looked(wine):
    """fmi2Instantiate with CRANE_COSIM_PYTHON pointing nowhere (and no Python in the fresh wine prefix):
    NULL, with a message naming the variable, the registry and the install folders and what the FMU needs; twice
    (a failed search leaves nothing half-done); then fmi2FreeInstance(NULL), FreeLibrary and exit 0."""
    status, out = wine("2", env={"CRANE_COSIM_PYTHON": r"C:\nowhere\python.exe"})
    assert status == 0, out
    assert out.count("instance NULL\n") == 2 and "\ndone\n" in out, out
    messages = errors(out)
    assert len(messages) == 2, out
    message = messages[0]
    assert f"fmi2Instantiate: no usable Python for {MODEL}" in message  # the class named by the FMU's record
    assert "no Python running in the host" in message
    assert r"CRANE_COSIM_PYTHON=C:\nowhere\python.exe: is neither a python3X.dll" in message
    assert r"HKCU and HKLM\Software\Python\PythonCore\3.X\InstallPath" in message
    assert "%LOCALAPPDATA%\\Programs\\Python\\Python3* (C:\\users\\" in message  # wine's profile folder
    assert message.endswith("Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual "
                            "environment) or its folder, of a 64-bit CPython 3.10 or newer with numpy installed.")


def test_win64_runtime_under_wine_loads_a_registered_python_and_keeps_thread_states(wine):
    """A stand-in python312.dll (tests/native_host/fake_python.c: every function the runtime resolves, failing
    every import but sys) installed in C:\\FakePython312 with python.exe and a numpy folder in its site-packages,
    registered as the py launcher does: the runtime finds it in the registry, loads it, initializes it with
    PYTHONHOME = its folder, PYTHONNOUSERSITE=1 and the program name of its python.exe (the host's environment
    unchanged afterwards), creates one thread state per host thread and deletes it when that thread ends
    (fiber-local callback), and reports the failed import of numpy, which the FMU needs."""
    install = wine.prefix / "drive_c" / "FakePython312"
    (install / "Lib" / "site-packages" / "numpy").mkdir(parents=True, exist_ok=True)
    (install / "Lib" / "os.py").write_text("")  # the standard library's landmark: the folder is PYTHONHOME
    (install / "python.exe").write_text("")
    zig_windows(HERE / "native_host" / "fake_python.c", install / "python312.dll", "-shared")
    key = r"HKCU\Software\Python\PythonCore\3.12"
    status, out = wine("add", key + r"\InstallPath", "/ve", "/d", r"C:\FakePython312", "/f", program=Path("reg"))
    assert status == 0, out
    try:
        status, out = wine("3", "thread")
    finally:  # the other tests of the module expect no Python in the prefix
        wine("delete", key, "/f", program=Path("reg"))
    assert status == 0 and out.count("instance NULL\n") == 3 and "host PYTHONHOME=unset\n" in out, out
    first, second, third = errors(out)
    assert first.startswith(r"fmi2Instantiate: the Python of C:\FakePython312\python312.dll cannot import numpy, "
                            "which this FMU needs (numpy>=1.24): ImportError: fake Python cannot import numpy")
    assert (r"PYTHONHOME=C:\FakePython312, PYTHONPATH=unset, PYTHONNOUSERSITE=1, __PYVENV_LAUNCHER__=unset, "
            r"program=C:\FakePython312\python.exe") in first
    # the first host thread initialized Python and keeps that state (the runtime deletes only states it made)
    assert "thread states made 1, deleted 0)" in first
    # the second thread got one state; when it ended, the runtime deleted it, before the third got its own
    assert "thread states made 2, deleted 0)" in second
    assert "thread states made 3, deleted 1)" in third


def test_win64_runtime_under_wine_uses_the_python_the_host_runs(wine):
    """A host that has loaded and initialized a python3X.dll itself: the runtime uses that one (no search,
    no second initialization), even with CRANE_COSIM_PYTHON pointing nowhere."""
    fake = wine.folder / "host_python" / "python311.dll"
    fake.parent.mkdir(exist_ok=True)
    zig_windows(HERE / "native_host" / "fake_python.c", fake, "-shared")
    status, out = wine("1", "preload=" + windows_path(fake), env={"CRANE_COSIM_PYTHON": r"C:\nowhere"})
    assert status == 0 and "instance NULL\n" in out, out
    (message,) = errors(out)
    assert "fake Python cannot import" in message
    assert "PYTHONHOME=unset, PYTHONPATH=unset, PYTHONNOUSERSITE=unset" in message  # the host initialized it
    assert "program=unset" in message
