"""Which Python the FMU runtime runs where the FMU is loaded (docs/fmi-runtime.md, "How it finds Python"): the
record says what the FMU needs (CPython >= 3.10 with numpy >= 1.24), the runtime finds one and honours a virtual
environment as CPython does. From the plain C hosts (FMI 2.0 and 3.0) under ``env -i``, with virtual environments
made here (``python -m venv``, without pip: seconds):

* ``bare``: no numpy, no system site-packages. The base interpreter of the tests' Python has numpy on this machine
  (the test says when it has not): before, a venv ran through the base's site-packages; now the FMU must refuse
  it, naming numpy.
* ``numpy``: ``bare`` plus a ``.pth`` file naming the folder numpy is imported from here (a venv's own way to add
  a folder; no download).
* ``old numpy``: a package ``numpy`` whose ``__version__`` is 1.21.0, older than the FMU's bound.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
from fmpy import read_model_description

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "native_host"))
from fmu_helpers import build_fmi3_fmus, build_fmus  # noqa: E402
from c_host import NO_CC, c_compiler, compile_host, extract, run_host  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
MODEL = "KnuckleBoomCrane"


def make_venv(folder: Path, system_site: bool = False) -> Path:
    """A virtual environment of the tests' base interpreter; its python program."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", *(["--system-site-packages"] * system_site),
                    str(folder)], check=True, capture_output=True, timeout=120)
    return folder / "bin" / "python"


def site_packages(venv_python: Path) -> Path:
    return next((venv_python.parent.parent / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    root = tmp_path_factory.mktemp("venvs")
    bare = make_venv(root / "bare")
    with_numpy = make_venv(root / "numpy")
    (site_packages(with_numpy) / "numpy_here.pth").write_text(str(Path(numpy.__file__).parents[1]) + "\n")
    old = make_venv(root / "old")
    (site_packages(old) / "numpy").mkdir()
    (site_packages(old) / "numpy" / "__init__.py").write_text('__version__ = "1.21.0"\n')
    return {"bare": bare, "numpy": with_numpy, "old": old}


@pytest.fixture(scope="module")
def fmu2(tmp_path_factory):
    fmu = build_fmus(tmp_path_factory) / f"{MODEL}.fmu"
    return {"dir": extract(fmu, tmp_path_factory.mktemp("fmu2")), "host": compile_host(tmp_path_factory.mktemp("h2")),
            "guid": read_model_description(str(fmu)).guid}


@pytest.fixture(scope="module")
def fmu3(tmp_path_factory):
    fmu = build_fmi3_fmus(tmp_path_factory) / f"{MODEL}.fmu"
    return {"dir": extract(fmu, tmp_path_factory.mktemp("fmu3")),
            "host": compile_host(tmp_path_factory.mktemp("h3"), fmi_version=3),
            "guid": read_model_description(str(fmu)).instantiationToken}


def run2(fmu2, env: dict, unzipped: Path | None = None):
    script = f"instantiate {fmu2['guid']}\nsetup 0\nenter\nexit\nstep 0 0.01\nfree\n"
    proc = run_host(fmu2["host"], unzipped or fmu2["dir"], MODEL, script, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def base_has_numpy() -> bool:
    base = getattr(sys, "_base_executable", sys.executable)
    return subprocess.run([base, "-c", "import numpy"], capture_output=True).returncode == 0


def test_a_virtual_environment_without_numpy_is_refused_naming_numpy(fmu2, venvs):
    """Its own site-packages only: the base's numpy is not seen (CPython's rule for a venv without
    include-system-site-packages), and the FMU says which Python lacks what and what to do."""
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": str(venvs["bare"])})
    assert "instantiate NULL" in proc.stdout
    venv = venvs["bare"].parent.parent
    assert (f"fmi2Instantiate: the Python of {venv} cannot import numpy, which this FMU needs (numpy>=1.24): "
            "ModuleNotFoundError: No module named 'numpy'. Install it there, or set CRANE_COSIM_PYTHON") in proc.stderr
    print("the base interpreter has numpy:", base_has_numpy())  # True here: the refusal shows the isolation


def test_the_fmi3_runtime_refuses_it_too(fmu3, venvs):
    proc = run_host(fmu3["host"], fmu3["dir"], MODEL, f"instantiate {fmu3['guid']}\nfree\n",
                    env={"CRANE_COSIM_PYTHON": str(venvs["bare"])})
    assert proc.returncode == 0 and "instantiate NULL" in proc.stdout, proc.stderr[-3000:]
    assert "fmi3InstantiateCoSimulation: the Python of" in proc.stderr and "cannot import numpy" in proc.stderr


def test_a_virtual_environment_with_numpy_runs(fmu2, venvs):
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": str(venvs["numpy"])})
    assert "instantiate ok" in proc.stdout and "step 0" in proc.stdout, proc.stderr[-3000:]


def test_a_virtual_environment_with_system_site_packages_sees_the_base(fmu2, tmp_path):
    """include-system-site-packages = true: the base's packages are the venv's too."""
    if not base_has_numpy():
        pytest.skip("the base interpreter of this Python has no numpy to see")
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": str(make_venv(tmp_path / "system", system_site=True))})
    assert "instantiate ok" in proc.stdout and "step 0" in proc.stdout, proc.stderr[-3000:]


def test_numpy_older_than_the_record_asks_is_refused(fmu2, venvs):
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": str(venvs["old"])})
    assert "instantiate NULL" in proc.stdout
    assert "has numpy 1.21.0, older than the 1.24 this FMU needs" in proc.stderr


def test_a_python_on_path_is_found_without_the_variable(fmu2):
    """No CRANE_COSIM_PYTHON: the python3.X programs on PATH are among the usual places (Linux); the tests' own
    Python has numpy in its site-packages (where pip puts it, which the search looks at)."""
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": "", "PATH": str(Path(sys.executable).parent)})
    assert "instantiate ok" in proc.stdout and "step 0" in proc.stdout, proc.stderr[-3000:]


def test_no_usable_python_gives_null_and_says_what_was_tried(fmu2, tmp_path):
    """A record asking for Python 3.99 (no Python here is that new): NULL, every candidate named with its reason,
    and how to point the runtime at a Python."""
    copy = tmp_path / "fmu"
    shutil.copytree(fmu2["dir"], copy)
    record = copy / "resources" / "crane_cosim_runtime.txt"
    record.write_text(record.read_text().replace("requires_python=3.10", "requires_python=3.99"))
    proc = run2(fmu2, {"CRANE_COSIM_PYTHON": "/nowhere/python", "PATH": str(Path(sys.executable).parent)},
                unzipped=copy)
    assert "instantiate NULL" in proc.stdout
    assert ("no usable Python for KnuckleBoomCrane: no Python running in the host; CRANE_COSIM_PYTHON=/nowhere/python: "
            "is neither a libpython, a python executable nor a directory; ") in proc.stderr
    assert f"{Path(sys.executable).parent}/python3.{sys.version_info.minor}: Python 3.{sys.version_info.minor} is " \
           "older than the 3.99 this FMU needs" in proc.stderr
    assert proc.stderr.rstrip().endswith("of a 64-bit CPython 3.99 or newer with numpy installed.")


@pytest.mark.skipif(not os.environ.get("CRANE_COSIM_VENV_BASES"),
                    reason="set CRANE_COSIM_VENV_BASES to python programs of other versions (shared-library builds; "
                           "nothing installed in them) to run the FMU from a venv of each")
def test_other_versions_start_from_their_virtual_environment(fmu2, tmp_path):
    """For each Python named: a venv of it with the stand-in numpy 1.21.0. 3.10 or newer: the runtime starts that
    version from the venv and imports the venv's numpy (its message gives the version); older: passed over before
    it is loaded, as older than the record's 3.10."""
    for python in os.environ["CRANE_COSIM_VENV_BASES"].split(os.pathsep):
        minor = int(subprocess.check_output([python, "-c", "import sys; print(sys.version_info[1])"], text=True))
        venv = tmp_path / f"py3{minor}"
        subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
        (site_packages(venv / "bin" / "python") / "numpy").mkdir()
        (site_packages(venv / "bin" / "python") / "numpy" / "__init__.py").write_text('__version__ = "1.21.0"\n')
        proc = run2(fmu2, {"CRANE_COSIM_PYTHON": str(venv / "bin" / "python")})
        expected = (f"the Python of {venv} has numpy 1.21.0, older than the 1.24" if minor >= 10 else
                    f"Python 3.{minor} is older than the 3.10 this FMU needs")
        assert expected in proc.stderr, (python, proc.stderr[-2000:])
