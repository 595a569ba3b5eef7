"""Issue 20, item 1: one table of the kernel's entry points (crane_models/core/native/entry_points.py) decides what
the binding may call and what every build of the kernel exports.

Checked here against sources the table does not come from: the names the binding's Python code and the C harness
use (an ast/regex scan, tests/platform_helpers.py), the C definitions in the kernel's ``.c`` files, and the
kernel binaries themselves (read with LIEF). The cross-built kernels inside FMUs built with ``--platforms all``
and the win64 kernel under wine are checked in tests/test_platforms.py.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crane_models.core import native
from crane_models.core.native.entry_points import EXPORTS, PROTOTYPES
from crane_models.core.native.system import Kernel
from platform_helpers import binding_calls, cross_built, kernel_c_functions, require_lief

HERE = Path(__file__).resolve().parent
C_TYPES = {"int": ctypes.c_int, "double": ctypes.c_double, "long": ctypes.c_long, "void": None}
# Named in the issue: the entry points the win64 DLL lacked, which only the crane on a moving base calls.
MOVING_BASE_ENTRY_POINTS = {"mbs_interface_inertia", "mbs_interface_wrench", "mbs_base_loads", "mbs_aux_speeds"}


def ctypes_of(declaration: str):
    """The ctypes type the binding must pass for one C parameter declaration (``const double *M`` -> c_void_p)."""
    if "*" in declaration:
        return ctypes.c_void_p
    base = declaration.replace("const ", "").split()[0]
    assert base in C_TYPES, f"parameter {declaration!r}: no ctypes type for {base!r} in this check"
    return C_TYPES[base]


def test_the_table_lists_exactly_what_the_binding_calls():
    """Every kernel function the Python code or the C harness names is in the table, and the table lists no
    function nothing calls (it would be exported for nothing)."""
    assert binding_calls() == set(EXPORTS)


def test_each_prototype_is_the_c_definition():
    """Return type and parameter types of every table entry, as ctypes types, against the function's definition
    in the .c files (a pointer of any type is c_void_p): a wrong prototype would pass garbage silently."""
    defined = kernel_c_functions()
    for name, (restype, argtypes) in PROTOTYPES.items():
        assert name in defined, f"{name} is in the table but no .c file defines it"
        kind, params = defined[name]
        assert restype is C_TYPES[kind], name
        assert list(argtypes) == [ctypes_of(p) for p in params], name


@pytest.fixture(scope="module")
def kernel():
    """The loaded kernel; a skip only when there is none to load (a kernel file that is passed over fails)."""
    if not native.native_enabled():
        pytest.skip("kernel disabled by CRANE_COSIM_NATIVE=0")
    lib = native.library()
    if lib is None:
        files = native.kernel_files.kernel_candidates()
        assert not files, f"kernel files {[f.name for f in files]} are here, but none loads with every entry point"
        pytest.skip("no compiled kernel: pip install needs a C compiler (e.g. Debian gcc) to build it")
    return lib


def test_the_binding_reaches_the_kernel_only_through_the_table(kernel):
    """``lib.<name>`` carries the table's prototype; a name outside the table is refused even when the library
    defines it (libm's cos here), with the table's file in the message."""
    function = kernel.mbs_interface_wrench
    assert (function.restype, tuple(function.argtypes)) == PROTOTYPES["mbs_interface_wrench"]
    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no C math library found to load")
    assert ctypes.CDLL(libm).cos  # defined there
    with pytest.raises(AttributeError, match=r"'cos' is not an entry point of the kernel: .*entry_points\.py"):
        Kernel(libm).cos


def test_a_kernel_without_an_entry_point_is_refused_by_name(tmp_path):
    """CRANE_COSIM_KERNEL naming a library that lacks the table's functions (libm): one error naming the variable
    and the missing entry points, before any model is built."""
    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no C math library found to load")
    code = "from crane_models.core import native; native.library()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**_clean_environment(), "CRANE_COSIM_KERNEL": libm})
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert f"CRANE_COSIM_KERNEL={libm}:" in last and "does not export mbs_evaluate, mbs_solve_spd" in last, last


def test_the_in_place_kernel_exports_exactly_the_table(kernel):
    """What ``pip install`` compiled here (setup.py) exports the table's names and nothing else -- as every
    cross-built kernel does -- so that a name missing from the table fails on Linux too."""
    from crane_models.fmi.binary_exports import read_binary

    require_lief()
    path = Path(kernel._name)
    if path.name.startswith("multibody-"):
        pytest.skip(f"the loaded kernel is a cross-built one ({path.name}), not the in-place build")
    assert read_binary(path).exports == set(EXPORTS)


def test_the_kernel_a_default_build_compiles_exports_exactly_the_table(tmp_path):
    """The kernel a default FMU build compiles for this machine (fmi/host_kernel.py) exports the table's names
    and nothing else, like the in-place and the cross-built kernels."""
    from crane_models.fmi.binary_exports import read_binary
    from crane_models.fmi.host_kernel import host_kernel

    require_lief()
    path = host_kernel(tmp_path)
    if path is None:
        pytest.skip("a default build compiles its own kernel only on Linux with a C compiler (Debian: gcc)")
    assert read_binary(path).exports == set(EXPORTS)


def _clean_environment() -> dict:
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "CRANE_COSIM_NATIVE", "CRANE_COSIM_KERNEL"))}


def run_every_model(kernel_file: Path | None) -> dict:
    """tests/kernel_harness/every_model.py in a fresh process, with ``CRANE_COSIM_KERNEL=kernel_file`` when given."""
    env = _clean_environment()
    if kernel_file is not None:
        env["CRANE_COSIM_KERNEL"] = str(kernel_file)
    done = subprocess.run([sys.executable, str(HERE / "kernel_harness" / "every_model.py")], capture_output=True,
                          text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def assert_every_model_ran(report: dict) -> None:
    runs = report["runs"]
    first = runs["KnuckleBoomCraneOnMovingBase+payload"]
    assert MOVING_BASE_ENTRY_POINTS <= set(first["entry_points"])  # taken from this kernel, not numpy's way
    for label, run in runs.items():
        assert run["time"] == pytest.approx(0.05) and run["finite"], label
    # the kernel's communication step (fmi/kernel_steps.py) where a model qualifies: done, the Python step's outputs
    stepped = {label: (run["kernel_step"], run.get("kernel_step_equal")) for label, run in runs.items()
               if run["kernel_step"] is not None}
    assert set(stepped) == {"KnuckleBoomCrane", "KnuckleBoomCrane+payload", "VesselCrane",
                            "CraneOnMovingBase", "KnuckleBoomCraneOnMovingBase", "Vessel", "WaveVessel"}, stepped
    assert set(stepped.values()) == {(0, True)}, stepped
    last = list(runs.values())[-1]  # what the binding has taken after all models: every entry point, from the kernel
    assert set(last["entry_points"]) == set(EXPORTS)


def test_every_model_runs_on_the_in_place_kernel(kernel):
    report = run_every_model(None)
    assert report["kernel"] == kernel._name
    assert_every_model_ran(report)


def test_every_model_runs_on_the_cross_built_x86_64_linux_kernel(tmp_path_factory):
    """The zig-built x86-64 Linux kernel (glibc 2.17, exports restricted to the table) loaded with
    CRANE_COSIM_KERNEL: the binding initializes and every model, the crane on a moving base with its payload
    included, runs on it."""
    if native.kernel_files.host_platform() != "x86_64-linux":
        pytest.skip("the x86-64 Linux kernel runs on an x86-64 Linux host")
    kernel_file = cross_built(tmp_path_factory)[("multibody", "x86_64-linux")]
    report = run_every_model(kernel_file)
    assert report["kernel"] == str(kernel_file)
    assert_every_model_ran(report)


def test_building_for_platforms_without_lief_stops_with_one_line_before_any_work(tmp_path):
    """``crane-cosim build --platforms ...`` on a machine without LIEF: exit 2, the last line names
    ``pip install lief``, no traceback, no FMU written. LIEF is hidden by a package of that name that fails to
    import, first on the path."""
    hidden = tmp_path / "hide" / "lief"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'lief'\", name='lief')\n")
    out = tmp_path / "fmus"
    env = {**_clean_environment(), "PYTHONPATH": str(hidden.parent)}
    done = subprocess.run([sys.executable, "-m", "crane_models.app.cli", "build", "--platforms", "x86_64-linux",
                           "--out", str(out)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "pip install lief" in done.stderr.strip().splitlines()[-1]
    assert not list(out.glob("*.fmu"))
