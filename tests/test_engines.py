"""KnuckleBoomCrane.fmu under other co-simulation engines, compared with the same run under fmpy.

Reference: ``crane_models.simulation.runs.run_fmu`` (fmpy ``simulate_fmu``) with the hoisting scenario's set-points,
shortened to 4 s (the set-points of q2 and q1 start moving at 1 s and 2 s, so every input changes).
The engines get the same inputs at the same communication points, so the only legitimate differences are
floating-point noise; the tolerance is the issue's 0.1 % of each output's range
(``max_relative_deviation``). It is sharp enough to catch a wrong input timing:
``test_tolerance_detects_one_step_input_delay`` checks that inputs fed one 10 ms step late already move
the outputs by more than 0.1 % of their range.

libcosimpy and ecospy are in the ``test`` extra; ecospy needs the system library ``libtbb12`` (``.ci/run``
installs it; without it the ecospy test skips, naming it: ``engine_runs.needs_ecospy``).
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from crane_models.simulation.runs import max_relative_deviation, output_units, run_fmu
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fmu_helpers import build_fmus  # noqa: E402
from engine_runs import NO_LIBCOSIM, libcosim_missing, needs_ecospy, run_ecos, run_libcosim  # noqa: E402

TOL = 1e-3  # 0.1 % of range
STEP = 0.01


@pytest.fixture(scope="module")
def kb_fmu(tmp_path_factory):
    return build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"


@pytest.fixture(scope="module")
def scenario():
    return dataclasses.replace(knuckle_boom_hoisting(), stop_time=4.0)


@pytest.fixture(scope="module")
def fmpy_ref(kb_fmu, scenario):
    result, _ = run_fmu(kb_fmu, scenario, STEP)
    return {n: np.asarray(result[n]) for n in result.dtype.names}


def compare(result: dict, ref: dict, label: str) -> dict:
    """Deviation per output against the fmpy run (rows after t = 0, which every engine reports)."""
    names = [n for n in result if n not in ("time", "end_stop_active")]
    assert len(names) >= 48, names  # every Real output, not a subset
    np.testing.assert_allclose(result["time"], ref["time"][1:], rtol=0, atol=1e-9)
    trimmed = {n: ref[n][1:] for n in names}
    for n in names:
        assert np.all(np.isfinite(result[n])), f"{label}: {n} not finite"
    dev = max_relative_deviation(result, trimmed, names, output_units("KnuckleBoomCrane"))
    worst = max(dev, key=dev.get)
    assert dev[worst] < TOL, f"{label}: {worst} deviates {dev[worst]:.3g} of its range from fmpy"
    return dev


def test_tolerance_detects_one_step_input_delay(kb_fmu, scenario, fmpy_ref):
    """The comparison can fail: the same FMU under fmpy with every input one step late is rejected."""
    base = scenario.signals
    late = dataclasses.replace(scenario, signals=lambda t: base(max(t - STEP, 0.0)))
    result, _ = run_fmu(kb_fmu, late, STEP)
    delayed = {n: np.asarray(result[n])[1:] for n in result.dtype.names}
    with pytest.raises(AssertionError, match="deviates"):
        compare(delayed, fmpy_ref, "fmpy, inputs one step late")


@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosimpy_matches_fmpy(kb_fmu, scenario, fmpy_ref):
    result, _ = run_libcosim(kb_fmu, scenario, STEP)
    compare(result, fmpy_ref, "libcosimpy")
    # The set-points moved during the run: the comparison covered a real motion.
    assert np.ptp(result["q2"]) > 0.01 and np.ptp(result["q1"]) > 0.01


@needs_ecospy
def test_ecospy_matches_fmpy(kb_fmu, scenario, fmpy_ref):
    result, _ = run_ecos(kb_fmu, scenario, STEP)
    compare(result, fmpy_ref, "ecospy")
    assert np.ptp(result["q2"]) > 0.01 and np.ptp(result["q1"]) > 0.01


@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosim_loads_osp_system_structure(kb_fmu, tmp_path):
    """``OspSystemStructure.xml`` with start values, run by libcosim, against fmpy with the same start
    values and constant (start) inputs."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    from fmpy import read_model_description

    log_output_level(CosimLogLevel.ERROR)
    start = {"q2_0": 0.7, "q3_0": 0.9, "q2_ref": 0.8, "q3_ref": 1.0, "q1_ref": 0.3}
    shutil.copy(kb_fmu, tmp_path / "KnuckleBoomCrane.fmu")
    values = "\n".join(f'        <InitialValue variable="{n}"><Real value="{v!r}"/></InitialValue>'
                       for n, v in start.items())
    (tmp_path / "OspSystemStructure.xml").write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
  <StartTime>0.0</StartTime>
  <BaseStepSize>{STEP!r}</BaseStepSize>
  <Algorithm>fixedStep</Algorithm>
  <Simulators>
    <Simulator name="crane" source="KnuckleBoomCrane.fmu" stepSize="{STEP!r}">
      <InitialValues>
{values}
      </InitialValues>
    </Simulator>
  </Simulators>
  <Connections/>
</OspSystemStructure>
""")
    execution = CosimExecution.from_osp_config_file(str(tmp_path / "OspSystemStructure.xml"))
    observer = CosimObserver.create_last_value()
    assert execution.add_observer(observer)
    md = read_model_description(str(kb_fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    names = ["q1", "q2", "q3", "u2", "joint1_force_z", "joint2_moment_y", "applied_cylinder2_force"]
    index = execution.slave_index_from_instance_name("crane")
    rows = []
    for _ in range(200):
        assert execution.step(1)
        rows.append(observer.last_real_values(index, [vr[n] for n in names]))
    assert execution.stop()
    import fmpy

    ref = fmpy.simulate_fmu(str(kb_fmu), stop_time=2.0, output_interval=STEP, start_values=start,
                            validate=False)
    data = np.array(rows)
    result = {n: data[:, i] for i, n in enumerate(names)}
    full = {n: np.asarray(ref[n]) for n in names}
    dev = {}
    for n in names:
        span = max(np.ptp(full[n]), 1e-6)
        dev[n] = float(np.max(np.abs(result[n] - full[n][1:]))) / span
    worst = max(dev, key=dev.get)
    assert dev[worst] < TOL, f"OSP structure: {worst} deviates {dev[worst]:.3g} of its range"
    assert np.ptp(full["q1"]) > 0.05  # the start values took effect: the boom slews to q1_ref


def _fmucheck() -> str | None:
    exe = os.environ.get("FMUCHECK") or shutil.which("fmuCheck.linux64") or shutil.which("fmuCheck")
    return exe if exe and os.access(exe, os.X_OK) else None


@pytest.mark.skipif(_fmucheck() is None, reason="fmuCheck is not installed: the FMI compliance checker has no "
                    "package; build it with .ci/build_fmucheck.sh and set FMUCHECK (see README)")
def test_fmucheck_simulates_like_fmpy(kb_fmu, tmp_path):
    """fmuCheck (FMI Library) in a clean environment (the FMU's own runtime finds Python): exit status 0,
    no checker errors, results as fmpy's with start values."""
    import csv

    import fmpy

    out = tmp_path / "fmucheck.csv"
    proc = subprocess.run(["env", "-i", f"CRANE_COSIM_PYTHON={sys.executable}", _fmucheck(), "-h", str(STEP), "-s",
                           "2", "-o", str(out), str(kb_fmu)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-2000:]}"
    assert "0 Error(s)" in proc.stderr, proc.stderr[-2000:]
    with out.open() as f:
        rows = list(csv.reader(f))
    header, data = rows[0], np.array(rows[1:], dtype=float)
    ref = fmpy.simulate_fmu(str(kb_fmu), stop_time=2.0, output_interval=STEP, validate=False)
    for name in ("q1", "q2", "q3", "joint1_force_z", "joint2_force_x"):
        got = data[:, header.index(name)]
        span = max(np.ptp(ref[name]), 1.0 if "force" in name else 1e-6)
        assert np.max(np.abs(got - ref[name])) / span < TOL, name
