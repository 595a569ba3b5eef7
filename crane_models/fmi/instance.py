"""One FMI 2.0 co-simulation instance driven by variable names (fmpy ``FMU2Slave``): the small master-side
wrapper that the manual master loop (:func:`cosim.run_fmu_manual`), the split vessel-crane master
(:mod:`simulation.split_masters`) and the tests share."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["FmuInstance"]


class FmuInstance:
    """Instantiate an FMU, initialize it with start values, set/get variables by name, step it."""

    def __init__(self, path: Path, instance_name: str, logging: bool = False, unzip: str | None = None):
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        md = read_model_description(str(path))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.types = {v.name: v.type for v in md.modelVariables}
        self.outputs = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
        self.unzip = unzip or extract(str(path))
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=self.unzip,
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance_name)
        self.messages: list = []  # what the FMU logged, "<status>: <message>"
        self.fmu.instantiate(callbacks=self._callbacks(), loggingOn=logging)
        self.t = 0.0

    def _callbacks(self):
        """FMI callbacks whose logger keeps the FMU's messages and prints them as fmpy's default does."""
        from fmpy import fmi2

        def log(env, instance_name, status, category, message):
            self.messages.append(f"{status}: {(message or b'').decode('utf-8', 'replace')}")
            fmi2.printLogMessage(env, instance_name, status, category, message)

        callbacks = fmi2.fmi2CallbackFunctions()
        callbacks.logger = fmi2.fmi2CallbackLoggerTYPE(log)
        callbacks.allocateMemory = fmi2.fmi2CallbackAllocateMemoryTYPE(fmi2.calloc)
        callbacks.freeMemory = fmi2.fmi2CallbackFreeMemoryTYPE(fmi2.free)
        self._keep = callbacks  # the FMU holds pointers into it for the instance's life
        return callbacks

    def initialize(self, start_values: dict, start_time: float = 0.0) -> None:
        self.fmu.setupExperiment(startTime=start_time)
        self.t = start_time
        self.fmu.enterInitializationMode()
        self.set(start_values)
        self.fmu.exitInitializationMode()

    def set(self, values: dict) -> None:
        """Set variables by name, each through the FMI call of its type."""
        calls = {"Real": (self.fmu.setReal, float), "Integer": (self.fmu.setInteger, int),
                 "Boolean": (self.fmu.setBoolean, bool)}
        for kind, (call, convert) in calls.items():
            names = [n for n in values if self.types[n] == kind]
            if names:
                call([self.vr[n] for n in names], [convert(values[n]) for n in names])

    def get(self, names: list) -> np.ndarray:
        return np.array(self.fmu.getReal([self.vr[n] for n in names]))

    def step(self, h: float) -> None:
        self.fmu.doStep(currentCommunicationPoint=self.t, communicationStepSize=h)
        self.t += h

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()
