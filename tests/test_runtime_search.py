"""Where the FMU runtime looks for Python on Linux, macOS and Windows (crane_models/fmi/runtime/pysearch.c),
run on Linux: the search's C is compiled with a fake file system (tests/runtime_search/search_probe.c), so
each scenario below is a small file tree, environment and registry written here, and the expected order of
attempts follows from the rules users know (docs/fmi-runtime.md), not from the code's output."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "native_host"))
from c_host import NO_CC, c_compiler  # noqa: E402

RUNTIME = HERE.parent / "crane_models" / "fmi" / "runtime"
pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("search") / "search_probe"
    subprocess.run([c_compiler(), "-std=c99", "-Wall", "-O1", f"-I{RUNTIME}", "-o", str(exe),
                    str(HERE / "runtime_search" / "search_probe.c"), str(RUNTIME / "pysearch.c")],
                   check=True, capture_output=True, text=True)
    return exe


def search(probe, tmp_path, scenario: str):
    """(attempts as [(lib, home, path)], success, message) of one scenario."""
    spec = tmp_path / "scenario.txt"
    spec.write_text(scenario.strip() + "\n")
    out = subprocess.run([str(probe), str(spec)], capture_output=True, text=True, timeout=30, check=True).stdout
    tries, ok, why = [], None, ""
    for line in out.splitlines():
        if line.startswith("try "):
            fields = dict(part.split("=", 1) for part in line[4:].split(" | "))
            tries.append((fields["lib"], fields["home"], fields["path"]))
        elif line.startswith("result "):
            ok = line == "result 1"
        elif line.startswith("why "):
            why = line[4:]
    return tries, ok, why


WINDOWS = r"""
os windows
platform x86_64-windows
env LOCALAPPDATA=C:\Users\u\AppData\Local
env ProgramFiles=C:\Program Files
record libpython=/usr/lib/libpython3.11.so
record platform=x86_64-linux
reg HKCU\Software\Python\PythonCore\3.9 := C:\Py39\
reg HKCU\Software\Python\PythonCore\3.13t := C:\Py313t
reg HKCU\Software\Python\PythonCore\3.11-32 := C:\Py311-32
reg HKLM\Software\Python\PythonCore\3.12 := C:\Program Files\Python312
reg HKLM\Software\Python\PythonCore\3.7 := C:\Py37
file C:\Py39\python39.dll
file C:\Py39\python3.dll
file C:\Py39\Lib\os.py
file C:\Py313t\python313t.dll
file C:\Py311-32\python311.dll
file C:\Py37\python37.dll
file C:\Program Files\Python312\python312.dll
file C:\Program Files\Python312\Lib\os.py
file C:\Users\u\AppData\Local\Programs\Python\Python310\python310.dll
file C:\Users\u\AppData\Local\Programs\Python\Python39\python39.dll
file C:\Users\u\AppData\Local\Programs\Python\Python37\python37.dll
"""


def test_windows_tries_the_registry_newest_first_then_the_install_folders(probe, tmp_path):
    """The py launcher's keys (3.X only: not 3.13t free-threaded, 3.11-32 32-bit, nor 3.7, older than the
    runtime's 3.8 minimum), newest first; then %LOCALAPPDATA%\\Programs\\Python\\Python3*, newest first;
    %ProgramFiles%\\Python312 is the registered one already, so it is not tried twice. The record of a
    Linux build is skipped, and the versioned DLL is taken, not the python3.dll forwarder."""
    tries, ok, why = search(probe, tmp_path, WINDOWS)
    local = r"C:\Users\u\AppData\Local\Programs\Python"
    assert [t[0] for t in tries] == [r"C:\Program Files\Python312\python312.dll", r"C:\Py39\python39.dll",
                                     local + r"\Python310\python310.dll", local + r"\Python39\python39.dll"]
    assert tries[0][1] == r"C:\Program Files\Python312"  # PYTHONHOME: the folder that holds Lib\os.py
    assert tries[2][1] == ""  # no Lib\os.py there: Python finds its home itself
    assert not ok
    assert "CRANE_COSIM_PYTHON not set" in why
    assert "made on x86_64-linux, this is x86_64-windows" in why
    assert r"%LOCALAPPDATA%\Programs\Python\Python3* (C:\Users\u\AppData\Local)" in why
    assert why.endswith("Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual environment) "
                        "or its folder, with pythonfmu and numpy installed.")


def test_windows_stops_at_the_first_python_that_starts(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, WINDOWS + r"accept C:\Py39\python39.dll")
    assert ok and [t[0] for t in tries] == [r"C:\Program Files\Python312\python312.dll", r"C:\Py39\python39.dll"]


def test_windows_virtual_environment_named_by_its_python_exe(probe, tmp_path):
    """CRANE_COSIM_PYTHON=<venv>\\Scripts\\python.exe: pyvenv.cfg one folder up names the base installation,
    whose DLL is loaded with the venv's site-packages on the path; it is tried before anything else."""
    tries, ok, _ = search(probe, tmp_path, WINDOWS + r"""
env CRANE_COSIM_PYTHON=D:\work\venv\Scripts\python.exe
file D:\work\venv\Scripts\python.exe
text D:\work\venv\pyvenv.cfg := home = C:\Py39
file D:\work\venv\Lib\site-packages\numpy\__init__.py
accept C:\Py39\python39.dll
""")
    assert ok and tries == [(r"C:\Py39\python39.dll", r"C:\Py39", r"D:\work\venv\Lib\site-packages")]


def test_windows_hint_as_a_dll_or_an_install_folder(probe, tmp_path):
    for hint in (r"C:\Py39\python39.dll", r"C:\Py39", r"C:\Py39\python.exe"):
        tries, ok, _ = search(probe, tmp_path, WINDOWS + f"env CRANE_COSIM_PYTHON={hint}\n"
                              + "file C:\\Py39\\python.exe\naccept C:\\Py39\\python39.dll")
        assert ok and tries == [(r"C:\Py39\python39.dll", r"C:\Py39", "")], hint


def test_windows_hint_pointing_nowhere_is_named_and_the_search_goes_on(probe, tmp_path):
    tries, ok, why = search(probe, tmp_path, WINDOWS + r"env CRANE_COSIM_PYTHON=C:\nowhere\python.exe")
    assert len(tries) == 4 and not ok
    assert why.startswith(r"CRANE_COSIM_PYTHON=C:\nowhere\python.exe: is neither a python3X.dll")


MACOS = """
os macos
platform aarch64-darwin
file /Library/Frameworks/Python.framework/Versions/3.11/Python
file /Library/Frameworks/Python.framework/Versions/3.11/lib/python3.11/os.py
file /Library/Frameworks/Python.framework/Versions/3.9/Python
file /Library/Frameworks/Python.framework/Versions/2.7/Python
file /opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12/Python
file /opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12/lib/python3.12/os.py
file /usr/local/opt/python@3.10/Frameworks/Python.framework/Versions/3.10/Python
"""
BREW = "/opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12"


def test_macos_tries_python_org_then_homebrew_frameworks_newest_first(probe, tmp_path):
    tries, ok, why = search(probe, tmp_path, MACOS)
    org = "/Library/Frameworks/Python.framework/Versions"
    assert [t[0] for t in tries] == [f"{org}/3.11/Python", f"{org}/3.9/Python", f"{BREW}/Python",
                                     "/usr/local/opt/python@3.10/Frameworks/Python.framework/Versions/3.10/Python"]
    assert tries[0][1] == f"{org}/3.11" and tries[2][1] == BREW  # home: the version folder with lib/python3.X
    assert not ok and "no usable Python in /Library/Frameworks/Python.framework/Versions/3.*/Python" in why
    assert "Set CRANE_COSIM_PYTHON to a libpython3.X.dylib or a framework's Python" in why


def test_macos_virtual_environment_of_a_homebrew_python(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, MACOS + f"""
env CRANE_COSIM_PYTHON=/Users/u/venv/bin/python
exe /Users/u/venv/bin/python
text /Users/u/venv/pyvenv.cfg := home = {BREW}/bin
file /Users/u/venv/lib/python3.12/site-packages/numpy/__init__.py
accept {BREW}/Python
""")
    assert ok and tries == [(f"{BREW}/Python", BREW, "/Users/u/venv/lib/python3.12/site-packages")]


def test_macos_prefix_with_a_shared_libpython(probe, tmp_path):
    """pyenv / conda style: <prefix>/lib/libpython3.X.dylib, newest of several."""
    tries, ok, _ = search(probe, tmp_path, MACOS + """
env CRANE_COSIM_PYTHON=/Users/u/.pyenv/versions/3.12.1
file /Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib
file /Users/u/.pyenv/versions/3.12.1/lib/python3.12/os.py
accept /Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib
""")
    assert ok and tries == [("/Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib",
                             "/Users/u/.pyenv/versions/3.12.1", "")]


LINUX = """
os linux
platform x86_64-linux
env CRANE_COSIM_PYTHON=/opt/py/bin/python3
exe /opt/py/bin/python3
file /opt/py/lib/libpython3.11.so.1.0
file /opt/py/lib/python3.11/os.py
file /usr/lib/libpython3.12.so
record libpython=/usr/lib/libpython3.12.so
record home=/usr
record path=/usr/lib/python3.12
record path=/usr/lib/python3/dist-packages
"""


def test_linux_order_is_the_hint_then_the_record_and_nothing_else(probe, tmp_path):
    tries, ok, why = search(probe, tmp_path, LINUX)
    assert tries == [("/opt/py/lib/libpython3.11.so.1.0", "/opt/py", ""),
                     ("/usr/lib/libpython3.12.so", "/usr", "/usr/lib/python3.12:/usr/lib/python3/dist-packages")]
    assert not ok and why.endswith("Set CRANE_COSIM_PYTHON to a shared libpython3.X.so, a python executable "
                                   "(also of a virtual environment) or its prefix, with pythonfmu and numpy "
                                   "installed.")


@pytest.mark.parametrize("platform_line, used", [("", True), ("record platform=x86_64-linux", True),
                                                 ("record platform=aarch64-linux", False)])
def test_the_record_is_used_only_on_the_platform_it_was_made_on(probe, tmp_path, platform_line, used):
    """A record without a platform (FMUs built before the record named one) keeps working on Linux."""
    scenario = LINUX.replace("env CRANE_COSIM_PYTHON=/opt/py/bin/python3", "") + platform_line
    tries, _, why = search(probe, tmp_path, scenario)
    assert [t[0] for t in tries] == (["/usr/lib/libpython3.12.so"] if used else [])
    assert ("made on aarch64-linux, this is x86_64-linux" in why) == (not used)
