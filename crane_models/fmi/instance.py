"""One FMI 2.0 co-simulation instance driven by variable names (fmpy ``FMU2Slave``): the small master-side
wrapper that the manual master loop (:func:`cosim.run_fmu_manual`), the split vessel-crane master
(:mod:`simulation.split_masters`) and the tests share."""
from __future__ import annotations

import collections
from pathlib import Path
from typing import Callable

import numpy as np

__all__ = ["FmuInstance"]

_STATUS = {0: "OK", 1: "Warning", 2: "Discard", 3: "Error", 4: "Fatal", 5: "Pending"}


MESSAGES_KEPT = 1000


class FmuInstance:
    """Instantiate an FMU, initialize it with start values, set/get variables by name, step it."""

    def __init__(self, path: Path, instance_name: str, logging: bool = False, unzip: str | None = None,
                 logger: Callable[[int, str, str], None] | None = None):
        """``logger(status, category, message)``, when given, receives the FMU's log messages (and turns
        logging on) instead of their being printed as fmpy prints them. Either way they are also kept in
        ``messages`` as ``"<status>: <message>"`` (the last :data:`MESSAGES_KEPT`)."""
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        md = read_model_description(str(path))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.types = {v.name: v.type for v in md.modelVariables}
        self.outputs = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
        self.unzip = unzip or extract(str(path))
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=self.unzip,
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance_name)
        # The last MESSAGES_KEPT messages: a debug-logging FMU over a long run must not grow the host's memory.
        self.messages: collections.deque = collections.deque(maxlen=MESSAGES_KEPT)
        self.callbacks = _callbacks(self._keeper(logger))  # kept: the FMU calls it until freed
        self.fmu.instantiate(loggingOn=logging or logger is not None, callbacks=self.callbacks)
        self.t = 0.0

    def _keeper(self, logger):
        """The logger behind the callbacks: keep each message, then hand it on (or print it)."""
        def log(status: int, category: str, message: str) -> None:
            self.messages.append(f"{status}: {message}")
            if logger is not None:
                logger(status, category, message)
            else:
                print(f"[{_STATUS.get(status, status)}] {message}")

        return log

    def initialize(self, start_values: dict, start_time: float = 0.0) -> None:
        self.enter_initialization(start_values, start_time)
        self.fmu.exitInitializationMode()

    def enter_initialization(self, start_values: dict, start_time: float = 0.0) -> None:
        """Into Initialization Mode with ``start_values`` set: the master may then exchange values between FMUs
        (their outputs follow their inputs there) before ``fmu.exitInitializationMode()``."""
        self.fmu.setupExperiment(startTime=start_time)
        self.t = start_time
        self.fmu.enterInitializationMode()
        self.set(start_values)

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


def _callbacks(logger: Callable[[int, str, str], None]):
    """fmi2CallbackFunctions whose logger hands ``(status, category, message)`` to ``logger``.

    Without fmpy's ``addLoggerProxy``: that native proxy keeps ONE Python logger per process, so installing
    ours would redirect every other instance's messages (fmpy's default printer included) to a callback
    that dies with this instance. The cost: printf arguments of the message are not substituted -- the
    pythonfmu FMUs pass finished messages without arguments."""
    from fmpy import calloc, free
    from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                           fmi2CallbackLoggerTYPE)

    def log(_env, _instance, status, category, message):
        logger(int(status), (category or b"").decode("utf-8", "replace"),
               (message or b"").decode("utf-8", "replace"))

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(log)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    return callbacks
