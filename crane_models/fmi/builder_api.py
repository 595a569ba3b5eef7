"""The FMI builder's API the adapter uses, pythonfmu (FMI 2.0) or pythonfmu3 (FMI 3.0): the one the slave derives
from, which inside an FMU is the FMU's own copy under the build's namespace."""
from __future__ import annotations

import importlib
import sys

from .spec import BASE_UNITS

__all__ = ["FmiApi", "fmi_api"]


class FmiApi:
    """What differs between pythonfmu (FMI 2.0) and pythonfmu3 (FMI 3.0) for this adapter."""

    def __init__(self, version: int, lib):
        self.version = version
        if version == 3:
            Unit = lib.Unit
            self.kinds = {"real": lib.Float64, "integer": lib.Int32, "boolean": lib.Boolean}
            self.accessor_kinds = ("float64", "int32", "boolean", "string")
            self.Causality, self.Variability, self.Status = lib.Fmi3Causality, lib.Fmi3Variability, lib.Fmi3Status
            self.units_on_variables = True
            self.unit = lambda name: Unit(name, **BASE_UNITS[name])
        else:
            Fmi2Status = importlib.import_module(lib.__name__ + ".enums").Fmi2Status
            self.kinds = {"real": lib.Real, "integer": lib.Integer, "boolean": lib.Boolean}
            self.accessor_kinds = ("real", "integer", "boolean", "string")
            self.Causality, self.Variability, self.Status = lib.Fmi2Causality, lib.Fmi2Variability, Fmi2Status
            self.units_on_variables = False  # pythonfmu has none: added to modelDescription.xml at build time
        self.DefaultExperiment = lib.DefaultExperiment


def fmi_api(slave) -> FmiApi:
    """The API of the pythonfmu (pythonfmu3) the slave derives from: inside an FMU that is the FMU's own copy,
    imported under the build's namespace (packaging.builder_in_namespace), not whatever ``pythonfmu`` the host has."""
    for c in type(slave).__mro__:
        if c.__name__ in ("Fmi2Slave", "Fmi3Slave"):
            lib = sys.modules[c.__module__.split(".")[0]]
            return FmiApi(3 if c.__name__ == "Fmi3Slave" else 2, lib)
    raise TypeError(f"{type(slave).__qualname__} is neither a pythonfmu Fmi2Slave nor a pythonfmu3 Fmi3Slave")
