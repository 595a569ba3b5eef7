"""The FMI 3.0 runtime tests' run plan (tests/test_fmi3_runtime*.py): one FMU's calls as a script for the plain
C host (tests/native_host/fmi3_host.c), the host's printout read back, and the same calls through fmpy's
FMI 3.0 API (``FMU3Slave``), plus the fixtures both test modules use."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi3 import FMU3Slave

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "native_host"))
from c_host import compile_host, extract, results  # noqa: E402
from fmu_helpers import build_fmi3_fmus  # noqa: E402

from crane_models.models.registry import SPECS  # noqa: E402
from crane_models.models import collect  # noqa: E402

STEPS = 100
SET = {"Float64": "set_real", "Int32": "set_integer", "Boolean": "set_boolean"}
GET = {"Float64": "get_real", "Int32": "get_integer", "Boolean": "get_boolean"}


def scenario_for(name: str):
    """The FMU's first demo scenario, or None (inputs then stay at their start values)."""
    for make in collect("scenarios", "SCENARIOS").values():
        sc = make()
        if sc.fmu == name:
            return sc
    return None


class Plan:
    """One run: start values, then per step the inputs at t, doStep(t, h), every output read."""

    def __init__(self, fmu: Path):
        self.md = read_model_description(str(fmu))
        self.name = self.md.coSimulation.modelIdentifier
        spec = SPECS[self.name]()
        self.h = spec.step_size
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.types = {v.name: v.type for v in self.md.modelVariables}
        self.outputs = {t: [self.vr[v.name] for v in spec.outputs if self.types[v.name] == t] for t in GET}
        sc = scenario_for(self.name)
        inputs = [v.name for v in spec.inputs]
        if sc is None:  # inputs at their start values; a force input (if any) swings, so that the FMU moves
            starts = {v.name: float(v.start) for v in spec.inputs}
            forces = [v.name for v in spec.inputs if v.unit == "N"][:1]
            self.signal_at = lambda t: {**starts, **{f: starts[f] + 1e5 * np.sin(2 * np.pi * t) for f in forces}}
            self.start_values = {}
        else:
            # from the middle of the scenario, where the demo drives the crane (its start holds still)
            self.signal_at = lambda t: dict(zip(sc.input_names, sc.inputs_at(t + sc.stop_time / 2)))
            self.start_values = dict(sc.start_values)
        assert all(self.types[n] == "Float64" for n in inputs)  # (none: the WaveVessel, moved by its sea)

    def start(self) -> dict:
        return {**self.start_values, **self.signal_at(0.0)}

    def script(self) -> str:
        lines = [f"instantiate {self.md.instantiationToken}", "enter 0"]
        for name, value in self.start().items():
            lines.append(f"{SET[self.types[name]]} {self.vr[name]} {float(value)!r}")
        lines.append("exit")
        for k in range(STEPS):
            t = k * self.h
            pairs = " ".join(f"{self.vr[n]} {float(v)!r}" for n, v in self.signal_at(t).items())
            lines += ([f"set_real {pairs}"] if pairs else []) + [f"step {t!r} {self.h!r}"]
            lines += [f"{GET[t]} " + " ".join(map(str, vrs)) for t, vrs in self.outputs.items() if vrs]
        return "\n".join(lines + ["terminate", "free"]) + "\n"

    def host_rows(self, stdout: str) -> np.ndarray:
        steps = results(stdout, "step")
        assert len(steps) == STEPS, stdout[-2000:]
        for k, (status, (event, terminate, early, last)) in enumerate(steps):
            assert (status, event, terminate, early) == (0, 0, 0, 0), steps[k]
            assert last == pytest.approx((k + 1) * self.h, rel=1e-15)  # lastSuccessfulTime: the step's end
        columns = []
        for t, vrs in self.outputs.items():
            if vrs:
                got = results(stdout, GET[t])
                assert len(got) == STEPS and all(st == 0 for st, _ in got)
                columns.append(np.array([values for _, values in got]))
        return np.hstack(columns)

    def fmpy_run(self, unzipped: Path) -> np.ndarray:
        """The same calls through fmpy's FMI 3.0 API (in this Python process)."""
        s = FMU3Slave(guid=self.md.instantiationToken, unzipDirectory=str(unzipped), modelIdentifier=self.name,
                      instanceName="fmpy")
        s.instantiate()
        s.enterInitializationMode(startTime=0.0)
        setters = {"Float64": s.setFloat64, "Int32": s.setInt32, "Boolean": s.setBoolean}
        cast = {"Float64": float, "Int32": int, "Boolean": bool}
        for name, value in self.start().items():
            setters[self.types[name]]([self.vr[name]], [cast[self.types[name]](value)])
        s.exitInitializationMode()
        getters = {"Float64": s.getFloat64, "Int32": s.getInt32, "Boolean": s.getBoolean}
        rows = []
        for k in range(STEPS):
            t = k * self.h
            values = self.signal_at(t)
            s.setFloat64([self.vr[n] for n in values], [float(v) for v in values.values()])
            s.doStep(t, self.h)
            row = []
            for typ, vrs in self.outputs.items():
                if vrs:
                    row += [float(x) for x in getters[typ](vrs)]
            rows.append(row)
        s.terminate()
        s.freeInstance()
        return np.array(rows)



@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return build_fmi3_fmus(tmp_path_factory)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    return compile_host(tmp_path_factory.mktemp("host3"), fmi_version=3)


@pytest.fixture(scope="module")
def knuckle(fmus, tmp_path_factory):
    """KnuckleBoomCrane unpacked, and its plan (model description, value references, step size)."""
    plan = Plan(fmus / "KnuckleBoomCrane.fmu")
    return extract(fmus / "KnuckleBoomCrane.fmu", tmp_path_factory.mktemp("kbc3")), plan
