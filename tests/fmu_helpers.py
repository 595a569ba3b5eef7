"""Helpers for the FMU tests: building the FMUs once, a small FMU2Slave wrapper, and the skips of a machine
without a C compiler."""
from __future__ import annotations

from pathlib import Path

import pytest
from fmpy.fmi1 import FMICallException

from crane_models.core.native import library as compiled_kernel
from crane_models.fmi.instance import FmuInstance
from crane_models.fmi.runtime import find_c_compiler

_BUILT: dict = {}

# A fresh machine may have no C compiler. Then `pip install .` leaves the dynamics kernel unbuilt (the numpy
# implementation runs, 3-6x slower) and `crane-cosim build` leaves pythonfmu's binary in the FMUs instead of the
# crane-cosim FMI runtime (its statuses differ: a refused input is a Discard, not an Error; no directional
# derivatives; native hosts need LD_PRELOAD). Tests of what only the compiler gives skip, naming the package;
# find_c_compiler is the build's own check.
C_COMPILER_PACKAGE = "Debian/Ubuntu package gcc"  # named by every such skip (native_host/c_host.py NO_CC too)
NO_C_COMPILER = f"no C compiler (cc, gcc, clang or $CC; {C_COMPILER_PACKAGE})"
NO_RUNTIME = (f"{NO_C_COMPILER}: the FMUs carry pythonfmu's binary, not the crane-cosim FMI runtime whose "
              "behaviour this test checks")
NO_KERNEL = (f"the compiled kernel (crane_models/core/native) is not built: {NO_C_COMPILER} when crane-cosim "
             "was installed? (install one, then pip install . again)")
needs_runtime = pytest.mark.skipif(find_c_compiler() is None, reason=NO_RUNTIME)
# For the tests that insist the kernel was built: they skip only where no compiler could have built it.
kernel_expected = pytest.mark.skipif(find_c_compiler() is None and compiled_kernel() is None, reason=NO_KERNEL)
needs_kernel = pytest.mark.skipif(compiled_kernel() is None, reason=NO_KERNEL)


def build_fmus(tmp_path_factory) -> Path:
    """Every FMU built once per test process, exactly as ``crane-cosim build`` does."""
    if "dir" not in _BUILT:
        from crane_models.models.build import build_all

        out = tmp_path_factory.mktemp("fmus")
        build_all(out)
        _BUILT["dir"] = out
    return _BUILT["dir"]


def build_knuckle_boom_fmu(tmp_path_factory) -> Path:
    """The folder of KnuckleBoomCrane.fmu alone, built once per test process (for tests that run only it)."""
    if "knuckle_boom" not in _BUILT:
        from crane_models.models.build import build_fmu

        out = tmp_path_factory.mktemp("knuckle_boom_fmu")
        build_fmu("KnuckleBoomCrane", out)
        _BUILT["knuckle_boom"] = out
    return _BUILT["knuckle_boom"]


def build_fmi3_fmus(tmp_path_factory) -> Path:
    """Every FMU built once per test process as FMI 3.0, exactly as ``crane-cosim build --fmi 3`` does."""
    if "fmi3" not in _BUILT:
        from crane_models.models.build import build_all

        out = tmp_path_factory.mktemp("fmus3")
        build_all(out, fmi_version=3)
        _BUILT["fmi3"] = out
    return _BUILT["fmi3"]


class Slave:
    """The shared :class:`crane_models.fmi.instance.FmuInstance` with the error-handling tests' API: setup
    at construction, ``init(**params)``, raw ``setReal`` by name for Real variables (a test may send NaN
    to any of them; Integer and Boolean ones go through their own call) and ``step`` returning the FMI
    status instead of raising."""

    def __init__(self, path, name="t", start_time=0.0, unzip=None):
        self.instance = FmuInstance(path, name, logging=True, unzip=unzip)
        self.fmu, self.vr, self.unzip = self.instance.fmu, self.instance.vr, self.instance.unzip
        self.fmu.setupExperiment(startTime=start_time)
        self.t = start_time

    def init(self, **params):
        self.fmu.enterInitializationMode()
        for k, v in params.items():
            self.set(k, v)
        self.fmu.exitInitializationMode()

    def set(self, name, value):
        if self.instance.types[name] != "Real":  # FMI allows only the variable's own type's call
            self.instance.set({name: value})
            return
        self.fmu.setReal([self.vr[name]], [float(value)])

    def get(self, name):
        return self.fmu.getReal([self.vr[name]])[0]

    def step(self, h=0.01):
        """doStep; returns the FMI status (0 OK, 2 discard, ...)."""
        try:
            self.fmu.doStep(currentCommunicationPoint=self.t, communicationStepSize=h)
        except FMICallException as exc:
            return exc.status
        self.t += h
        return 0

    def close(self):
        self.instance.close()
