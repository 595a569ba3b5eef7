"""Where the FMU runtime looks for Python on Linux, macOS and Windows and which one it takes
(crane_models/fmi/runtime: SEARCH_SOURCES), run on Linux: the search's C is compiled with a fake
file system (tests/runtime_search/search_probe.c), so each scenario below is a small file tree, environment and
registry written here, and the expected order of attempts and the reasons for passing a Python over follow from the
rules users know (docs/fmi-runtime.md, "How it finds Python"), not from the code's output."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "native_host"))
from c_host import NO_CC, c_compiler  # noqa: E402

from crane_models.fmi.runtime import SEARCH_SOURCES  # noqa: E402

RUNTIME = HERE.parent / "crane_models" / "fmi" / "runtime"
pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
# What every FMU of the project records (fmi/runtime: runtime_record): the probe reads it as the runtime does.
NEEDS = """
record requires_python=3.10
record requires=numpy>=1.24
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("search") / "search_probe"
    subprocess.run([c_compiler(), "-std=c99", "-Wall", "-Wno-format-truncation", "-O1", f"-I{RUNTIME}", "-o",
                    str(exe), str(HERE / "runtime_search" / "search_probe.c"),
                    *(str(RUNTIME / f) for f in SEARCH_SOURCES)],
                   check=True, capture_output=True, text=True)
    return exe


def search(probe, tmp_path, scenario: str):
    """(attempts as [(lib, home, exe, venv)], success, message) of one scenario."""
    spec = tmp_path / "scenario.txt"
    spec.write_text(scenario.strip() + "\n")
    out = subprocess.run([str(probe), str(spec)], capture_output=True, text=True, timeout=30, check=True).stdout
    tries, ok, why = [], None, ""
    for line in out.splitlines():
        if line.startswith("try "):
            fields = dict(part.split("=", 1) for part in line[4:].split(" | "))
            tries.append((fields["lib"], fields["home"], fields["exe"], fields["venv"]))
        elif line.startswith("result "):
            ok = line == "result 1"
        elif line.startswith("why "):
            why = line[4:]
    return tries, ok, why


# ---- Linux ---------------------------------------------------------------------------------------------------

LINUX = NEEDS + """
os linux
env PATH=/home/u/venv/bin:/home/u/.pyenv/shims:/usr/bin:/bin
exe /home/u/venv/bin/python
exe /home/u/venv/bin/python3
exe /home/u/venv/bin/python3.12
text /home/u/venv/pyvenv.cfg := home = /opt/py/bin
file /home/u/venv/lib/python3.12/site-packages/numpy/__init__.py
exe /opt/py/bin/python3.12
file /opt/py/lib/libpython3.12.so.1.0
file /opt/py/lib/python3.12/os.py
exe /home/u/.pyenv/shims/python3.11
exe /usr/bin/python3.11
exe /usr/bin/python3.11-config
link /usr/bin/python3 := /usr/bin/python3.11
link /bin/python3.11 := /usr/bin/python3.11
file /usr/lib/x86_64-linux-gnu/libpython3.11.so.1
file /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0
file /usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0
file /usr/lib/x86_64-linux-gnu/libpython3.so
file /usr/lib/python3.11/os.py
file /usr/lib/python3.9/os.py
exe /usr/local/bin/python3.13
file /usr/local/lib/libpython3.13.so
file /usr/local/lib/libpython3.14t.so
file /usr/local/lib/python3.13/os.py
file /usr/local/lib/python3.13/site-packages/numpy/__init__.py
"""
VENV = ("/opt/py/lib/libpython3.12.so.1.0", "/opt/py", "/home/u/venv/bin/python3.12", "/home/u/venv")
USR_LOCAL = ("/usr/local/lib/libpython3.13.so", "/usr/local", "/usr/local/bin/python3.13", "")
DEBIAN_SITE = ("/usr/lib/python3.11/site-packages, /usr/lib64/python3.11/site-packages, "
               "/usr/local/lib/python3.11/dist-packages, /usr/lib/python3/dist-packages")


def test_linux_tries_path_in_order_then_usr_local_then_usr(probe, tmp_path):
    """PATH in its order: the virtual environment (its pyvenv.cfg leads to the base's library; it keeps its own
    site-packages, so it is tried as itself), a pyenv shim (no shared library under its prefix), Debian's python3
    (a link to python3.11: its library in the multiarch folder) without numpy, passed over; /bin/python3.11 is the
    same Python again. Then /usr/local's 3.13 (not the newer 3.14t: free-threaded), then /usr's 3.9, too old.
    Nothing accepted: the message lists each and says how to choose one."""
    tries, ok, why = search(probe, tmp_path, LINUX)
    assert tries == [VENV, USR_LOCAL]
    assert not ok
    assert why.startswith("CRANE_COSIM_PYTHON not set; /home/u/venv/bin/python3.12: refused by the test; ")
    assert ("/home/u/.pyenv/shims/python3.11: no libpython3.11.so under /home/u/.pyenv/lib, lib64 or "
            "lib/*-linux-gnu (a Python built without --enable-shared?); ") in why
    assert f"/usr/bin/python3.11: numpy is not in its site-packages ({DEBIAN_SITE}); " in why
    assert "/usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0: Python 3.9 is older than the 3.10 this FMU needs" in why
    assert why.count("/usr/bin/python3.11:") == 1 and "/bin/python3.11:" not in why.replace("/usr/bin", "")
    assert why.endswith("no usable Python on PATH or in /usr/local and /usr (lib, lib64, lib/*-linux-gnu). Set "
                        "CRANE_COSIM_PYTHON to a shared libpython3.X.so, a python executable (also of a virtual "
                        "environment) or its prefix, of a 64-bit CPython 3.10 or newer with numpy installed.")


def test_linux_stops_at_the_first_python_that_starts(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, LINUX + "accept /opt/py/lib/libpython3.12.so.1.0")
    assert ok and tries == [VENV]


def test_linux_debian_python_with_numpy_from_its_package(probe, tmp_path):
    """python3-numpy in /usr/lib/python3/dist-packages makes Debian's Python usable; python3.11 on PATH and the
    python3 link to it are the same Python, tried once."""
    scenario = (LINUX.replace("/home/u/venv/bin:/home/u/.pyenv/shims:", "")
                + "file /usr/lib/python3/dist-packages/numpy/__init__.py\n")
    tries, _, _ = search(probe, tmp_path, scenario)
    assert tries == [("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1", "/usr", "/usr/bin/python3.11", ""), USR_LOCAL]


def test_linux_without_path_searches_the_standard_prefixes(probe, tmp_path):
    """A host started with a clean environment (env -i) has no PATH: /usr/local and /usr remain."""
    tries, ok, why = search(probe, tmp_path, LINUX.replace("env PATH=", "env NOTPATH="))
    assert tries == [USR_LOCAL] and why.startswith("CRANE_COSIM_PYTHON not set; PATH not set; ")


def test_linux_fedora_library_in_lib64(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, NEEDS + """
os linux
file /usr/lib64/libpython3.12.so.1.0
file /usr/lib64/python3.12/os.py
file /usr/lib64/python3.12/site-packages/numpy/__init__.py
exe /usr/bin/python3.12
accept /usr/lib64/libpython3.12.so.1.0
""")
    assert ok and tries == [("/usr/lib64/libpython3.12.so.1.0", "/usr", "/usr/bin/python3.12", "")]


@pytest.mark.parametrize("system_site, tried", [("true", True), ("false", False)])
def test_linux_virtual_environment_sees_its_base_packages_only_when_its_config_says_so(probe, tmp_path, system_site,
                                                                                       tried):
    """numpy in the base installation only: a venv with include-system-site-packages = true can import it, one
    with false cannot (CPython's own rule) and is passed over."""
    tries, _, why = search(probe, tmp_path, NEEDS + f"""
os linux
env PATH=/srv/env/bin
exe /srv/env/bin/python3
text /srv/env/pyvenv.cfg := home = /opt/py/bin\\ninclude-system-site-packages = {system_site}\\nversion = 3.12.1
file /opt/py/lib/libpython3.12.so.1.0
file /opt/py/lib/python3.12/os.py
file /opt/py/lib/python3.12/site-packages/numpy/__init__.py
""")
    assert [t[3] for t in tries] == (["/srv/env"] if tried else [])
    if not tried:
        assert "/srv/env/bin/python3: numpy is not in its site-packages (/srv/env/lib/python3.12/site-packages" in why


def test_linux_hint_is_taken_as_given_and_first(probe, tmp_path):
    """CRANE_COSIM_PYTHON comes before PATH and is not judged by its folders (a virtual environment without numpy
    is tried: once it runs, the runtime itself reports what it cannot import)."""
    tries, ok, _ = search(probe, tmp_path, LINUX + """
env CRANE_COSIM_PYTHON=/home/u/bare/bin/python3
exe /home/u/bare/bin/python3
text /home/u/bare/pyvenv.cfg := home = /opt/py/bin
file /home/u/bare/lib/python3.12/site-packages/pip/__init__.py
accept /opt/py/lib/libpython3.12.so.1.0
""")
    assert ok and tries == [("/opt/py/lib/libpython3.12.so.1.0", "/opt/py", "/home/u/bare/bin/python3",
                             "/home/u/bare")]


@pytest.mark.parametrize("hint", ["/usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0", "/usr/lib/python3.9/../.."])
def test_linux_hint_too_old_is_named_and_the_search_goes_on(probe, tmp_path, hint):
    tries, _, why = search(probe, tmp_path, LINUX + f"env CRANE_COSIM_PYTHON={hint}\n")
    assert tries[0] == VENV
    assert why.startswith(f"CRANE_COSIM_PYTHON={hint}: ")


def test_linux_hint_without_a_shared_library(probe, tmp_path):
    """A Python built without --enable-shared (or a static one) has nothing to load: said, and the search goes on."""
    static = "env CRANE_COSIM_PYTHON=/opt/static/bin/python3.12\nexe /opt/static/bin/python3.12\n"
    tries, _, why = search(probe, tmp_path, LINUX + static + "file /opt/static/lib/libpython3.12.a\n")
    assert why.startswith("CRANE_COSIM_PYTHON=/opt/static/bin/python3.12: no libpython3.12.so under /opt/static/lib")
    assert tries == [VENV, USR_LOCAL]


def test_the_record_sets_the_oldest_version(probe, tmp_path):
    """requires_python=3.13: the 3.12 of the virtual environment is passed over for that reason."""
    tries, _, why = search(probe, tmp_path, LINUX.replace("requires_python=3.10", "requires_python=3.13"))
    assert tries == [USR_LOCAL]
    assert "/home/u/venv/bin/python3.12: Python 3.12 is older than the 3.13 this FMU needs" in why


def test_without_a_record_only_the_runtimes_own_minimum_holds(probe, tmp_path):
    """No record (an FMU made by other means): no packages checked, 3.8 or newer."""
    tries, _, _ = search(probe, tmp_path, LINUX.replace(NEEDS.strip(), ""))
    assert [t[0] for t in tries] == [VENV[0], "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1", USR_LOCAL[0],
                                     "/usr/lib/x86_64-linux-gnu/libpython3.9.so.1.0"]


# ---- Windows -------------------------------------------------------------------------------------------------

LOCAL = r"C:\Users\u\AppData\Local\Programs\Python"
WINDOWS = NEEDS + rf"""
os windows
env LOCALAPPDATA=C:\Users\u\AppData\Local
env ProgramFiles=C:\Program Files
reg HKCU\Software\Python\PythonCore\3.9 := C:\Py39\
reg HKCU\Software\Python\PythonCore\3.13t := C:\Py313t
reg HKCU\Software\Python\PythonCore\3.11-32 := C:\Py311-32
reg HKLM\Software\Python\PythonCore\3.12 := C:\Program Files\Python312
reg HKLM\Software\Python\PythonCore\3.7 := C:\Py37
file C:\Py39\python39.dll
file C:\Py39\python3.dll
file C:\Py39\Lib\os.py
file C:\Py39\Lib\site-packages\numpy\__init__.py
file C:\Py313t\python313t.dll
file C:\Py311-32\python311.dll
file C:\Py37\python37.dll
file C:\Program Files\Python312\python312.dll
file C:\Program Files\Python312\python3.dll
file C:\Program Files\Python312\python.exe
file C:\Program Files\Python312\Lib\os.py
file C:\Program Files\Python312\Lib\site-packages\numpy\__init__.py
file {LOCAL}\Python311\python311.dll
file {LOCAL}\Python311\Lib\os.py
file {LOCAL}\Python310\python310.dll
file {LOCAL}\Python310\Lib\os.py
file {LOCAL}\Python310\Lib\site-packages\numpy\__init__.py
file {LOCAL}\Python39\python39.dll
"""
PF312 = (r"C:\Program Files\Python312\python312.dll", r"C:\Program Files\Python312",
         r"C:\Program Files\Python312\python.exe", "")


def test_windows_tries_the_registry_newest_first_then_the_install_folders(probe, tmp_path):
    """The py launcher's keys (3.X only: not 3.13t free-threaded nor 3.11-32 32-bit), newest first: 3.12; 3.9
    and 3.7 are older than the record's 3.10. Then %LOCALAPPDATA%\\Programs\\Python\\Python3*, newest first:
    3.11 has no numpy in Lib\\site-packages, 3.10 has; %ProgramFiles%\\Python312 is the registered one, not tried
    twice. The versioned DLL is taken, not the python3.dll forwarder."""
    tries, ok, why = search(probe, tmp_path, WINDOWS)
    assert tries == [PF312, (LOCAL + r"\Python310\python310.dll", LOCAL + r"\Python310", "", "")]
    assert not ok
    assert "CRANE_COSIM_PYTHON not set" in why
    assert r"C:\Py39: Python 3.9 is older than the 3.10 this FMU needs" in why
    assert r"C:\Py37: Python 3.7 is older than the 3.10 this FMU needs" in why
    assert (LOCAL + r"\Python311: numpy is not in its site-packages (" + LOCAL + r"\Python311\Lib\site-packages)"
            in why)
    assert r"%LOCALAPPDATA%\Programs\Python\Python3* (C:\Users\u\AppData\Local)" in why
    assert why.endswith("Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual environment) "
                        "or its folder, of a 64-bit CPython 3.10 or newer with numpy installed.")


def test_windows_stops_at_the_first_python_that_starts(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, WINDOWS + r"accept C:\Program Files\Python312\python312.dll")
    assert ok and tries == [PF312]


def test_windows_virtual_environment_named_by_its_python_exe(probe, tmp_path):
    """CRANE_COSIM_PYTHON=<venv>\\Scripts\\python.exe: pyvenv.cfg one folder up names the base installation, whose
    DLL is loaded; the venv's python.exe is the program Python is told it runs as (its site-packages then)."""
    tries, ok, _ = search(probe, tmp_path, WINDOWS + r"""
env CRANE_COSIM_PYTHON=D:\work\venv\Scripts\python.exe
file D:\work\venv\Scripts\python.exe
text D:\work\venv\pyvenv.cfg := home = C:\Program Files\Python312
accept C:\Program Files\Python312\python312.dll
""")
    assert ok and tries == [(PF312[0], PF312[1], r"D:\work\venv\Scripts\python.exe", r"D:\work\venv")]


def test_windows_hint_as_a_dll_or_an_install_folder(probe, tmp_path):
    for hint in (PF312[0], PF312[1], PF312[2]):
        tries, ok, _ = search(probe, tmp_path, WINDOWS + f"env CRANE_COSIM_PYTHON={hint}\naccept {PF312[0]}")
        assert ok and tries == [PF312], hint


def test_windows_hint_pointing_nowhere_is_named_and_the_search_goes_on(probe, tmp_path):
    tries, ok, why = search(probe, tmp_path, WINDOWS + r"env CRANE_COSIM_PYTHON=C:\nowhere\python.exe")
    assert len(tries) == 2 and not ok
    assert why.startswith(r"CRANE_COSIM_PYTHON=C:\nowhere\python.exe: is neither a python3X.dll")


# ---- macOS ---------------------------------------------------------------------------------------------------

ORG = "/Library/Frameworks/Python.framework/Versions"
BREW = "/opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12"
INTEL_BREW = "/usr/local/opt/python@3.10/Frameworks/Python.framework/Versions/3.10"
MACOS = NEEDS + f"""
os macos
file {ORG}/3.11/Python
file {ORG}/3.11/lib/python3.11/os.py
file {ORG}/3.11/lib/python3.11/site-packages/numpy/__init__.py
exe {ORG}/3.11/bin/python3.11
file {ORG}/3.9/Python
file {ORG}/2.7/Python
file {BREW}/Python
file {BREW}/lib/python3.12/os.py
file {BREW}/lib/python3.12/site-packages/numpy/__init__.py
file {INTEL_BREW}/Python
file {INTEL_BREW}/lib/python3.10/os.py
"""


def test_macos_tries_python_org_then_homebrew_frameworks_newest_first(probe, tmp_path):
    """python.org's 3.11 (3.9 too old, 2.7 not a Python 3), Homebrew's 3.12 (arm64), then Intel Homebrew's 3.10
    without numpy, passed over."""
    tries, ok, why = search(probe, tmp_path, MACOS)
    assert tries == [(f"{ORG}/3.11/Python", f"{ORG}/3.11", f"{ORG}/3.11/bin/python3.11", ""),
                     (f"{BREW}/Python", BREW, "", "")]
    assert f"{ORG}/3.9/Python: Python 3.9 is older than the 3.10 this FMU needs" in why
    assert f"{INTEL_BREW}/Python: numpy is not in its site-packages ({INTEL_BREW}/lib/python3.10/site-packages" in why
    assert not ok and "no usable Python on PATH or in /Library/Frameworks/Python.framework/Versions/3.*/Python" in why
    assert "Set CRANE_COSIM_PYTHON to a libpython3.X.dylib or a framework's Python" in why


def test_macos_conda_environment_on_path_comes_first(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, MACOS + """
env PATH=/Users/u/miniconda3/bin:/usr/bin
exe /Users/u/miniconda3/bin/python3.12
file /Users/u/miniconda3/lib/libpython3.12.dylib
file /Users/u/miniconda3/lib/python3.12/os.py
file /Users/u/miniconda3/lib/python3.12/site-packages/numpy/__init__.py
accept /Users/u/miniconda3/lib/libpython3.12.dylib
""")
    assert ok and tries == [("/Users/u/miniconda3/lib/libpython3.12.dylib", "/Users/u/miniconda3",
                             "/Users/u/miniconda3/bin/python3.12", "")]


def test_macos_virtual_environment_of_a_homebrew_python(probe, tmp_path):
    tries, ok, _ = search(probe, tmp_path, MACOS + f"""
env CRANE_COSIM_PYTHON=/Users/u/venv/bin/python
exe /Users/u/venv/bin/python
text /Users/u/venv/pyvenv.cfg := home = {BREW}/bin
accept {BREW}/Python
""")
    assert ok and tries == [(f"{BREW}/Python", BREW, "/Users/u/venv/bin/python", "/Users/u/venv")]


def test_macos_prefix_with_a_shared_libpython(probe, tmp_path):
    """pyenv / conda style: <prefix>/lib/libpython3.X.dylib, newest of several."""
    tries, ok, _ = search(probe, tmp_path, MACOS + """
env CRANE_COSIM_PYTHON=/Users/u/.pyenv/versions/3.12.1
file /Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib
file /Users/u/.pyenv/versions/3.12.1/lib/python3.12/os.py
accept /Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib
""")
    assert ok and tries == [("/Users/u/.pyenv/versions/3.12.1/lib/libpython3.12.dylib",
                             "/Users/u/.pyenv/versions/3.12.1", "", "")]
