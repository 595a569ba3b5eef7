"""The project's FMI 3.0 runtime (crane_models/fmi/runtime/fmi3_*.c) inside every FMU built with ``--fmi 3``.

* A plain C host (tests/native_host/fmi3_host.c) with a clean environment (``env -i``: no LD_PRELOAD,
  PYTHONPATH or PATH) runs 100 communication steps of each FMU's scenario, a few times per FMU: every run
  exits 0 and prints the outputs fmpy's FMI 3.0 API (``FMU3Slave``) reads for the same calls.
  Why 1e-12 relative: both call the same slave code with the same values in the same order (inputs set
  before each step, outputs read after it), so they agree to the last bit; the tolerance leaves room only
  for the 17-digit decimal round trip of the C host's printout (1 ulp, 2.2e-16). A lost set, a wrong input
  timing or a parameter left at its default moves outputs by far more.
* ``fmpy.simulate_fmu`` in fresh processes and Ecos' CLI under ``env -i`` exit 0; ``fmpy.validate`` finds
  nothing; every FMI 3.0 function is exported; the build is byte-identical when repeated.
The error statuses are in test_fmi3_runtime_errors.py.
"""
from __future__ import annotations

import ctypes
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pythonfmu3")
from fmpy import read_model_description  # noqa: E402
from fmpy.fmi3 import FMU3Slave  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "native_host"))
from c_host import NO_CC, c_compiler, extract, run_host  # noqa: E402
from fmi3_plan import Plan, fmus, host, knuckle  # noqa: E402,F401 -- fixtures
from engine_runs import needs_ecospy  # noqa: E402

from crane_models.app.native import ecos_executable  # noqa: E402
from crane_models.fmi.platforms import FMI3_FUNCTIONS  # noqa: E402
from crane_models.models.registry import SPECS  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
RUNS = 3  # per FMU; the FMI 2.0 test (test_native_host.py) runs 10, the code paths are shared
RTOL = 1e-12  # see the module docstring


def test_every_fmu_carries_the_runtime_not_pythonfmu3s_binary(fmus):
    from crane_models.fmi.fmu_binaries import fmi3_runtime_binary

    ours = fmi3_runtime_binary().read_bytes()
    for name in SPECS:
        with zipfile.ZipFile(fmus / f"{name}.fmu") as z:
            assert z.read(f"binaries/x86_64-linux/{name}.so") == ours, name
            record = z.read("resources/crane_cosim_runtime.txt").decode()
            assert f"class={name}\n" in record
            token = read_model_description(str(fmus / f"{name}.fmu")).instantiationToken
            assert z.read("resources/crane_cosim_token.txt").decode() == token


def test_fmi3_build_is_reproducible(fmus, tmp_path):
    """A second build of the same sources is byte-identical (runtime, record and token copy included)."""
    from crane_models.models.build import build_fmu

    again = build_fmu("KnuckleBoomCrane", tmp_path, fmi_version=3)
    assert again.read_bytes() == (fmus / "KnuckleBoomCrane.fmu").read_bytes()


@pytest.mark.parametrize("name", list(SPECS))
def test_c_host_clean_environment_matches_fmpy(fmus, host, tmp_path, name):
    plan = Plan(fmus / f"{name}.fmu")
    unzipped = extract(fmus / f"{name}.fmu", tmp_path)
    script = plan.script()
    runs = []
    for _ in range(RUNS):
        proc = run_host(host, unzipped, name, script)
        assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"
        assert "instantiate ok" in proc.stdout, proc.stderr[-3000:]
        runs.append(plan.host_rows(proc.stdout))
    reference = plan.fmpy_run(unzipped)
    assert np.all(np.isfinite(reference))
    assert np.ptp(reference, axis=0).max() > 0.0  # outputs move: equal frozen outputs would prove little
    for rows in runs:
        np.testing.assert_allclose(rows, reference, rtol=RTOL, atol=0)


SIMULATE = """
import sys
from fmpy import simulate_fmu
r = simulate_fmu(sys.argv[1], stop_time=float(sys.argv[2]), validate=False)
assert len(r) > 1 and r["time"][-1] > 0
print("rows", len(r))
"""


@pytest.mark.parametrize("name", list(SPECS))
def test_fmpy_simulates_in_fresh_processes_and_validates(fmus, tmp_path, name):
    fmu = fmus / f"{name}.fmu"
    assert validate_fmu(str(fmu)) == []
    script = tmp_path / "simulate.py"
    script.write_text(SIMULATE)
    stop = 10 * SPECS[name]().step_size
    for _ in range(3):
        proc = subprocess.run([sys.executable, str(script), str(fmu), repr(stop)], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"
        assert "rows" in proc.stdout


@needs_ecospy
@pytest.mark.parametrize("name", list(SPECS))
def test_ecos_cli_runs_every_fmu_in_a_clean_environment(fmus, tmp_path, name):
    """Ecos' native command-line host (ecospy), no LD_PRELOAD/PATH/PYTHONPATH, CRANE_COSIM_PYTHON naming this
    Python: exit 0, one CSV row per step."""
    proc = subprocess.run(["env", "-i", f"CRANE_COSIM_PYTHON={sys.executable}", str(ecos_executable()), "simulate",
                           "--path", str(fmus / f"{name}.fmu"), "--stopTime", "0.2", "--stepSize", "0.01", "-l",
                           "warn"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stdout[-1500:]} {proc.stderr[-1500:]}"
    assert len((tmp_path / f"{name}.csv").read_text().splitlines()) >= 20


def test_every_fmi3_function_is_exported(knuckle):
    unzipped, plan = knuckle
    lib = ctypes.CDLL(str(unzipped / "binaries" / "x86_64-linux" / f"{plan.name}.so"))
    assert len(FMI3_FUNCTIONS) == 75
    missing = [f for f in FMI3_FUNCTIONS if not hasattr(lib, f)]
    assert missing == []
    lib.fmi3GetVersion.restype = ctypes.c_char_p
    assert lib.fmi3GetVersion() == b"3.0"


def test_directional_derivative_through_fmi3(knuckle):
    """fmi3GetDirectionalDerivative is the slave's (fmi/derivatives.py): d applied_king_torque / d king_torque
    is 1 (the torque input is passed through to that output), independent of this runtime's code."""
    unzipped, plan = knuckle
    s = FMU3Slave(guid=plan.md.instantiationToken, unzipDirectory=str(unzipped), modelIdentifier=plan.name,
                  instanceName="dd")
    s.instantiate()
    s.enterInitializationMode(startTime=0.0)
    s.exitInitializationMode()
    s.doStep(0.0, plan.h)
    out, inp = plan.vr["applied_king_torque"], plan.vr["king_torque"]
    d = s.getDirectionalDerivative([out], [inp], [1.0])
    s.terminate()
    s.freeInstance()
    assert d[0] == pytest.approx(1.0, rel=1e-9)
