"""Every FMU in a plain C host (tests/native_host/fmi2_host.c) with a clean environment, through the
project's own FMI runtime: no LD_PRELOAD, PYTHONPATH or PATH, only CRANE_COSIM_PYTHON naming the tests' Python
(the documented way to choose one). Each FMU runs 100 communication steps of its scenario's inputs 10 times: every run exits
0 and prints the same outputs as fmpy driving the same calls.

Why 1e-12 relative: the C host and fmpy call the same slave code with the same values in the same order
(inputs set before each step, outputs read after it), so the results should agree to the last bit; the
tolerance leaves room only for the 17-digit decimal round trip of the C host's printout (1 ulp, 2.2e-16).
A wrong input timing, a lost setReal or a parameter left at its default moves outputs by far more.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "native_host"))
from fmu_helpers import build_fmus  # noqa: E402
from c_host import NO_CC, c_compiler, compile_host, extract, results, run_host  # noqa: E402

from crane_models.models.registry import SPECS  # noqa: E402
from crane_models.models import collect  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)
STEPS = 100
RUNS = 10
RTOL = 1e-12  # see the module docstring


def scenario_for(name: str):
    """The FMU's first demo scenario, or None (inputs then stay at their start values)."""
    for make in collect("scenarios", "SCENARIOS").values():
        sc = make()
        if sc.fmu == name:
            return sc
    return None


class Plan:
    """One run: start values, then per step the inputs at t, doStep(t, h), outputs read."""

    def __init__(self, fmu: Path):
        self.md = read_model_description(str(fmu))
        self.name = self.md.coSimulation.modelIdentifier
        spec = SPECS[self.name]()
        self.h = spec.step_size
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.types = {v.name: v.type for v in self.md.modelVariables}
        self.real_out = [self.vr[v.name] for v in spec.outputs if v.kind == "real"]
        self.int_out = [self.vr[v.name] for v in spec.outputs if v.kind == "integer"]
        sc = scenario_for(self.name)
        self.inputs = [v.name for v in spec.inputs]
        starts = {v.name: v.start for v in spec.inputs}
        if sc is None:
            self.signal = lambda t: [float(starts[n]) for n in self.inputs]
            self.start_values = {}
        else:
            self.signal = lambda t: dict(zip(sc.input_names, sc.inputs_at(t)))
            self.start_values = dict(sc.start_values)
        self.signal_at = (lambda t: dict(zip(self.inputs, self.signal(t)))) if sc is None else self.signal

    def start(self) -> dict:
        return {**self.start_values, **self.signal_at(0.0)}

    def script(self) -> str:
        lines = [f"instantiate {self.md.guid}", "setup 0", "enter"]
        for name, value in self.start().items():
            kind = {"Real": "set_real", "Integer": "set_integer", "Boolean": "set_integer"}[self.types[name]]
            lines.append(f"{kind} {self.vr[name]} {float(value)!r}")
        lines.append("exit")
        for k in range(STEPS):
            t = k * self.h
            pairs = " ".join(f"{self.vr[n]} {float(v)!r}" for n, v in self.signal_at(t).items())
            lines += [f"set_real {pairs}", f"step {t!r} {self.h!r}",
                      "get_real " + " ".join(map(str, self.real_out))]
            if self.int_out:
                lines.append("get_integer " + " ".join(map(str, self.int_out)))
        return "\n".join(lines + ["terminate", "free"]) + "\n"

    def fmpy_run(self, unzipped: Path) -> np.ndarray:
        """The same calls through fmpy (in this Python process)."""
        s = FMU2Slave(guid=self.md.guid, unzipDirectory=str(unzipped), modelIdentifier=self.name,
                      instanceName="fmpy")
        s.instantiate()
        s.setupExperiment(startTime=0.0)
        s.enterInitializationMode()
        for name, value in self.start().items():
            if self.types[name] == "Real":
                s.setReal([self.vr[name]], [float(value)])
            elif self.types[name] == "Integer":
                s.setInteger([self.vr[name]], [int(value)])
            else:
                s.setBoolean([self.vr[name]], [bool(value)])
        s.exitInitializationMode()
        rows = []
        for k in range(STEPS):
            t = k * self.h
            values = self.signal_at(t)
            s.setReal([self.vr[n] for n in values], [float(v) for v in values.values()])
            s.doStep(t, self.h)
            row = list(s.getReal(self.real_out))
            if self.int_out:
                row += list(s.getInteger(self.int_out))
            rows.append(row)
        s.terminate()
        s.freeInstance()
        return np.array(rows)


def host_rows(stdout: str, plan: Plan) -> np.ndarray:
    steps = results(stdout, "step")
    assert len(steps) == STEPS and all(st == 0 for st, _ in steps), stdout[-2000:]
    reals = results(stdout, "get_real")
    ints = results(stdout, "get_integer") if plan.int_out else [(0, [])] * STEPS
    assert all(st == 0 for st, _ in reals + ints)
    return np.array([r + i for (_, r), (_, i) in zip(reals, ints)])


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return build_fmus(tmp_path_factory)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return compile_host(tmp_path_factory.mktemp("host"))


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
        runs.append(host_rows(proc.stdout, plan))
    reference = plan.fmpy_run(unzipped)
    assert np.all(np.isfinite(reference))
    for rows in runs:
        np.testing.assert_allclose(rows, reference, rtol=RTOL, atol=0)


OTHER_PYTHONS = [p for p in os.environ.get("CRANE_COSIM_OTHER_PYTHONS", "").split(os.pathsep) if p]
SIMULATE = """
import json, sys
from fmpy import simulate_fmu
r = simulate_fmu(sys.argv[1], stop_time=0.5, output_interval=0.01, validate=False,
                 start_values={"q1_ref": 0.3, "king_torque": 2e4})
print(json.dumps({n: [float(x) for x in r[n]] for n in r.dtype.names}))
"""


@pytest.mark.skipif(not OTHER_PYTHONS, reason="set CRANE_COSIM_OTHER_PYTHONS to python executables of other "
                    "versions with fmpy and numpy installed (e.g. 3.12, 3.13)")
@pytest.mark.parametrize("python", OTHER_PYTHONS)
def test_fmpy_under_another_python_version_runs_the_fmu(fmus, tmp_path, python):
    """The runtime uses whichever CPython the host runs (stable-ABI calls resolved at run time): fmpy under
    another version runs the FMU built here and gets this Python's results. Same slave code and inputs,
    so equal to the last bit; 1e-12 of each output's range leaves room for another numpy's rounding."""
    import json
    import subprocess

    script = tmp_path / "simulate.py"
    script.write_text(SIMULATE)
    fmu = str(fmus / "KnuckleBoomCrane.fmu")
    runs = {}
    for label, exe in (("other", python), ("this", sys.executable)):
        proc = subprocess.run([exe, str(script), fmu], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{exe}: exit status {proc.returncode}: {proc.stderr[-2000:]}"
        runs[label] = json.loads(proc.stdout)
    for name, ref in runs["this"].items():
        ref = np.asarray(ref)
        span = max(np.ptp(ref), 1e-9)
        assert np.max(np.abs(np.asarray(runs["other"][name]) - ref)) / span <= 1e-12, name
