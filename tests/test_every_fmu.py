"""Issue 5 for every FMU the project builds (not only KnuckleBoomCrane): FMI validation, no scipy inside,
bit-identical rollback, bad input discarded without NaN, two FMUs of different kinds in one process.

Inputs are driven around their start values by a reproducible pseudo-random sequence small enough to
keep each model in its valid range (5 % of a set-point's scale, 1 % of the largest effort scale).
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from crane_models.models.registry import SPECS
from fmu_helpers import Slave, build_fmus, kernel_expected, needs_runtime

NAMES = sorted(SPECS)
WITH_INPUTS = [name for name in NAMES if SPECS[name]().inputs]  # not the WaveVessel: its sea moves it
# 2 ms steps: the properties checked here do not depend on the horizon, and the stiff FlexibleCrane
# (undamped link modes, ~3e-4 s internal steps) costs ~2 minutes of wall time per simulated second.
STEP = 0.002


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def real_outputs(spec) -> list:
    return [v.name for v in spec.outputs if v.kind == "real"]


def set_random_inputs(s: Slave, spec, rng) -> None:
    for v in spec.inputs:
        scale = 0.05 * max(abs(v.start), 1.0) if v.unit in ("rad", "m") else 1.0
        s.set(v.name, v.start + scale * rng.uniform(-1, 1))


def drive(s: Slave, spec, n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        set_random_inputs(s, spec, rng)
        assert s.step(STEP) == 0
        rows.append([s.get(n) for n in real_outputs(spec)])
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_passes_fmpy_validation(fmu_dir, name):
    assert validate_fmu(str(fmu_dir / f"{name}.fmu")) == []


@pytest.mark.parametrize("name", NAMES)
def test_fmu_code_imports_no_scipy(fmu_dir, name, tmp_path):
    """The cause of the exit crashes stays out of every FMU: importing the bundled slave module (what
    pythonfmu does on instantiate) must load no scipy -- scipy.integrate (scipy._lib._uarray) crashed the
    ecos CLI at exit, scipy.linalg (its libgfortran) fmuCheck, and with many instantiate/free cycles under
    fmpy the exit aborted with 'corrupted double-linked list' (tests/test_clean_exit.py, test_fmu_memory.py)."""
    with zipfile.ZipFile(fmu_dir / f"{name}.fmu") as z:
        z.extractall(tmp_path)
    resources = tmp_path / "resources"
    module = (resources / "slavemodule.txt").read_text().strip()
    code = (f"import sys; sys.path.insert(0, {str(resources)!r}); import {module}; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'scipy')[:5]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]


@pytest.mark.parametrize("name", NAMES)
def test_model_outputs_are_exactly_the_fmu_outputs(name):
    """The adapter stores a model's output dict as it is: every key must be an output variable of the FMU
    (a stray key could shadow an input or parameter) and every output must be produced."""
    from crane_models.integration.cosimulation import CoSimulation

    spec = SPECS[name]()
    model, x0, options = spec.build({v.name: v.start for v in spec.parameters})
    out = CoSimulation(model, x0, **options).outputs()
    assert set(out) == {v.name for v in spec.outputs}


@kernel_expected
@pytest.mark.parametrize("name", NAMES)
def test_fmu_carries_and_loads_its_compiled_kernel(fmu_dir, name, tmp_path):
    """Each FMU bundles the compiled dynamics kernel and its own copy of crane_models loads that copy
    (not the installed package's), so the FMU runs at full speed on a machine without crane-cosim."""
    if os.environ.get("CRANE_COSIM_NATIVE") == "0":
        pytest.skip("kernel disabled by CRANE_COSIM_NATIVE=0")
    with zipfile.ZipFile(fmu_dir / f"{name}.fmu") as z:
        z.extractall(tmp_path)
    resources = tmp_path / "resources"
    bundle = next(p.name for p in resources.iterdir() if p.name.endswith("_crane_models"))
    code = (f"import sys; sys.path.insert(0, {str(resources)!r}); from {bundle}.core import native as kane_native; "
            "lib = kane_native.library(); print(lib._name if lib else None)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().startswith(str(resources / bundle / "core" / "native" / "multibody")), proc.stdout


@pytest.mark.parametrize("name", NAMES)
def test_rollback_replays_bit_identically(fmu_dir, name):
    spec = SPECS[name]()
    s = Slave(fmu_dir / f"{name}.fmu")
    s.init()
    drive(s, spec, 10, seed=1)
    state, t = s.fmu.getFMUstate(), s.t
    first = drive(s, spec, 15, seed=2)
    s.fmu.setFMUstate(state)
    s.t = t
    assert drive(s, spec, 15, seed=2) == first
    s.close()


@needs_runtime
@pytest.mark.parametrize("name", WITH_INPUTS)
def test_nan_input_is_refused_and_outputs_stay_finite(fmu_dir, name, capfd):
    """A NaN input is the host's error (fmi2Error with the input's name); the outputs keep their last finite
    values and the next step with a valid input goes on."""
    spec = SPECS[name]()
    s = Slave(fmu_dir / f"{name}.fmu")
    s.init()
    drive(s, spec, 3, seed=3)
    victim = spec.inputs[0].name
    s.set(victim, math.nan)
    assert s.step(STEP) == 3
    assert victim in capfd.readouterr().out
    assert all(math.isfinite(s.get(n)) for n in real_outputs(spec))
    s.set(victim, spec.inputs[0].start)
    assert s.step(STEP) == 0
    s.close()


def test_different_fmus_share_one_process(fmu_dir):
    """Every FMU alone, then all of them interleaved in one process: identical outputs."""
    alone = {}
    for name in NAMES:
        s = Slave(fmu_dir / f"{name}.fmu", name)
        s.init()
        alone[name] = drive(s, SPECS[name](), 10, seed=4)
        s.close()
    slaves = {name: Slave(fmu_dir / f"{name}.fmu", name) for name in NAMES}
    rows = {name: [] for name in NAMES}
    for s in slaves.values():
        s.init()
    rngs = {name: np.random.default_rng(4) for name in NAMES}
    for _ in range(10):
        for name, s in slaves.items():
            spec = SPECS[name]()
            set_random_inputs(s, spec, rngs[name])
            assert s.step(STEP) == 0
            rows[name].append([s.get(n) for n in real_outputs(spec)])
    for name in NAMES:
        assert rows[name] == alone[name], name
        slaves[name].close()


@needs_runtime
@pytest.mark.parametrize("name", NAMES)
def test_an_error_in_one_instance_leaves_another_untouched(fmu_dir, name):
    """Instance A gets NaN (an FMU without inputs: none) and a negative step; instance B, stepped in between, gives
    exactly the outputs of an instance that ran alone."""
    spec = SPECS[name]()
    path = fmu_dir / f"{name}.fmu"
    alone = Slave(path, "alone")
    alone.init()
    expected = drive(alone, spec, 6, seed=5)
    alone.close()
    a, b = Slave(path, "a"), Slave(path, "b")
    a.init()
    b.init()
    rows = []
    rng = np.random.default_rng(5)
    for k in range(6):
        if spec.inputs:
            a.set(spec.inputs[k % len(spec.inputs)].name, math.nan)
            assert a.step(STEP) == 3  # a NaN input: an error
        assert a.step(-1.0) == 3  # an invalid step size: an error
        set_random_inputs(b, spec, rng)
        assert b.step(STEP) == 0
        rows.append([b.get(n) for n in real_outputs(spec)])
    assert rows == expected
    a.close()
    b.close()
