"""The value-table tests' host (tests/test_value_table.py): one FMU instance through fmpy, FMI 2.0 or 3.0, driven by
variable names, with the runtime's value table on or off (CRANE_COSIM_VALUE_TABLE at instantiation) and its
messages kept; plus each FMU's run (inputs over time, start values) and its specification: the FMU's model and
co-simulation driven directly in this process, outside any FMU."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException

from crane_models.fmi.instance import _callbacks
from crane_models.fmi.spec import STEP_BUDGET_PARAMETER
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models import collect
from crane_models.models.registry import SPECS
from vessel_reference import crane_inertia, inertia_inputs

SWITCH = "CRANE_COSIM_VALUE_TABLE"
TABLE_MESSAGE = "value table"  # in the runtime's debug message when the slave takes the table
_UNZIPPED: dict = {}

# The run of each FMU: (demo scenario or None, first time of its signal [s], step [s], steps, step whose state is
# saved). KnuckleBoomCrane's lift scenarios from their start: the payload's wire goes slack and taut again and
# again between 1.8 s and 2.4 s (the payload switches on and off the hook), the state saved in the middle of it.
# The others from the middle of their scenario, where the demo drives the crane; FlexibleCrane in 2 ms steps (its
# undamped link modes make it the slowest), the others in their own step.
RUNS = {
    "KnuckleBoomCrane": ("knuckle_boom_lift", 0.0, 0.01, 240, 200),
    "KnuckleBoomCraneOnMovingBase": ("knuckle_boom_lift_at_sea", 0.0, 0.01, 240, 200),
    "VesselCrane": ("vessel_crane_hoisting", 10.0, 0.01, 60, 30),
    "FlexibleCrane": ("flexible_crane_rigid_lugre", 5.0, 0.002, 30, 15),
    "CraneOnMovingBase": (None, 0.0, 0.01, 60, 30),
    "Vessel": (None, 0.0, 0.01, 60, 30),
    "WaveVessel": (None, 0.0, 0.01, 60, 30),  # no inputs: its sea moves it
}


class Run:
    """What the master does to one FMU: its start values and its inputs at each time."""

    def __init__(self, name: str):
        self.spec = SPECS[name]()
        key, self.t0, self.h, self.steps, self.saved_at = RUNS[name]
        starts = {v.name: float(v.start) for v in self.spec.inputs}
        if key is None:  # inputs at their start values; a force input swings so that the FMU moves
            forces = [v.name for v in self.spec.inputs if v.unit == "N"][:1]
            # the Vessel's inputs of the crane's interface inertia: a crane's, moving (vessel_reference.crane_inertia)
            inertia = [v.name for v in self.spec.inputs if v.name.startswith("interface_inertia_")]
            self._signal = lambda t: {**starts, **{f: starts[f] + 1e5 * np.sin(2 * np.pi * t) for f in forces},
                                      **(dict(zip(inertia, inertia_inputs(crane_inertia(t)))) if inertia else {})}
            self.start_values = {}
        else:
            sc = collect("scenarios", "SCENARIOS")[key]()
            self._signal = lambda t: {**starts, **dict(zip(sc.input_names, map(float, sc.inputs_at(t))))}
            self.start_values = dict(sc.start_values)

    def inputs_at(self, t: float, shift: float = 0.0) -> dict:
        """The inputs at t; ``shift`` moves the set-points (rad or m inputs) for a replay that differs."""
        values = self._signal(self.t0 + t)
        return {v.name: values[v.name] + (shift if v.unit in ("rad", "m") else 0.0) for v in self.spec.inputs}

    def specification(self) -> "Specification":
        return Specification(self.spec, self.start_values, self.inputs_at(0.0))


class Specification:
    """The FMU's model and its stepping co-simulation, built from the parameters as the FMU builds them (the
    spec's build function, its step budget), driven directly: the outputs as the model computes them
    (``CoSimulation.outputs``, a dict)."""

    def __init__(self, spec, start_values: dict, inputs: dict):
        params = {v.name: v.start for v in spec.parameters}
        params.update({k: v for k, v in start_values.items() if k in params})
        model, x0, options = spec.build(params)
        budget = int(params.get(STEP_BUDGET_PARAMETER.name, STEP_BUDGET_PARAMETER.start))
        self.names = [v.name for v in spec.inputs]
        self.sim = CoSimulation(model, x0, t0=0.0, inputs=self.vector(inputs), max_internal_steps=budget, **options)

    def vector(self, inputs: dict) -> np.ndarray:
        return np.array([inputs[n] for n in self.names])

    def step(self, t: float, h: float, inputs: dict) -> None:
        self.sim.set_inputs(self.vector(inputs))
        self.sim.t = t
        self.sim.step(h)

    def outputs(self, inputs: dict) -> dict:
        self.sim.set_inputs(self.vector(inputs))
        return self.sim.outputs()


def _start_value(variable):
    """A model description's start value (text) as the variable's type, None without one."""
    text = variable.start
    if text is None:
        return None
    if variable.type == "Boolean":
        return text in ("true", "1")
    return float(text) if variable.type in ("Real", "Float64") else int(text)


class Instance:
    """One instance through fmpy by variable names; ``table`` False sets CRANE_COSIM_VALUE_TABLE=0 around its
    instantiation (the per-variable path). Messages are kept in ``messages``."""

    def __init__(self, fmu: Path, version: int, name: str, table: bool = True):
        from fmpy.fmi2 import FMU2Slave
        from fmpy.fmi3 import FMU3Slave

        md = read_model_description(str(fmu))
        if fmu not in _UNZIPPED:
            _UNZIPPED[fmu] = extract(str(fmu))
        self.version, self.messages = version, []
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.types = {v.name: v.type for v in md.modelVariables}
        self.causality = {v.name: v.causality for v in md.modelVariables}
        self.start = {v.name: _start_value(v) for v in md.modelVariables}
        old = os.environ.get(SWITCH)
        os.environ[SWITCH] = "1" if table else "0"
        try:
            if version == 2:
                self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=_UNZIPPED[fmu],
                                     modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
                self._callbacks = _callbacks(lambda status, _cat, msg: self.messages.append((status, msg)))
                self.fmu.instantiate(loggingOn=True, callbacks=self._callbacks)
            else:
                self.fmu = FMU3Slave(guid=md.instantiationToken, unzipDirectory=_UNZIPPED[fmu],
                                     modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
                self.fmu.instantiate(loggingOn=True, logMessage=lambda _env, status, _cat, msg: self.messages.append(
                    (int(status), (msg or b"").decode("utf-8", "replace"))))
        finally:
            if old is None:
                del os.environ[SWITCH]
            else:
                os.environ[SWITCH] = old
        f = self.fmu
        if version == 2:
            self._get = {"Real": f.getReal, "Integer": f.getInteger, "Boolean": f.getBoolean}
            self._set = {"Real": f.setReal, "Integer": f.setInteger, "Boolean": f.setBoolean}
        else:
            self._get = {"Float64": f.getFloat64, "Int32": f.getInt32, "Boolean": f.getBoolean}
            self._set = {"Float64": f.setFloat64, "Int32": f.setInt32, "Boolean": f.setBoolean}

    @property
    def on_table(self) -> bool:
        return any(TABLE_MESSAGE in m for _, m in self.messages)

    def errors(self) -> list:
        return [m for status, m in self.messages if status >= 3]

    def enter_initialization(self) -> None:
        if self.version == 2:
            self.fmu.setupExperiment(startTime=0.0)
            self.fmu.enterInitializationMode()
        else:
            self.fmu.enterInitializationMode(startTime=0.0)

    def set(self, values: dict) -> None:
        """Each variable through its type's call (one call per type)."""
        for kind, call in self._set.items():
            names = [n for n in values if self.types[n] == kind]
            if names:
                cast = float if kind in ("Real", "Float64") else (bool if kind == "Boolean" else int)
                call([self.vr[n] for n in names], [cast(values[n]) for n in names])

    def get(self, names: list) -> dict:
        """Each variable through its type's call, as the C value the host receives (a float, an int, a bool)."""
        out = {}
        for kind, call in self._get.items():
            chosen = [n for n in names if self.types[n] == kind]
            if chosen:
                out.update(zip(chosen, call([self.vr[n] for n in chosen])))
        return out

    def step(self, t: float, h: float) -> int:
        """doStep; the FMI status (0 OK, 2 Discard, 3 Error)."""
        try:
            self.fmu.doStep(t, h)
        except FMICallException as exc:
            return exc.status
        return 0

    def get_state(self):
        return self.fmu.getFMUstate() if self.version == 2 else self.fmu.getFMUState()

    def set_state(self, state) -> None:
        (self.fmu.setFMUstate if self.version == 2 else self.fmu.setFMUState)(state)

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()
