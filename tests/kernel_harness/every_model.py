"""Every FMU's model, a few communication steps with the compiled kernel that ``native.library()`` loads (the
in-place build, or the file named by ``CRANE_COSIM_KERNEL``): run by tests/test_kernel_entry_points.py in a fresh
process per kernel. Prints one JSON object: the kernel file, and per run the steps done, whether every real output
is finite (from ``outputs()`` and in the table ``write_outputs`` fills), where the model's steps qualify one more
step by ``mbs_cosim_step`` (or ``mbs_harmonic_step``: fmi/kernel_steps.py TimeSteps; its code, and whether its outputs are the Python step's), and the entry points the
binding has taken from the kernel so far (``Kernel`` caches each on first use).

The crane on a moving base with its payload runs first, so that its entry (what it alone took) shows that the
functions the issue found missing on Windows -- mbs_interface_inertia, mbs_interface_wrench, mbs_base_loads --
come from this kernel."""
from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from crane_models.core import native
from crane_models.models.registry import SPECS
from crane_models.fmi.kernel_steps import KernelSteps, TimeSteps
from crane_models.integration.cosimulation import CoSimulation

STEPS = 5  # communication steps per model: enough to go through doStep's stepping and the outputs


def runs() -> list:
    """(label, FMU name, extra parameter values): every FMU at its start values, the payload ones with it on too."""
    out = [("KnuckleBoomCraneOnMovingBase+payload", "KnuckleBoomCraneOnMovingBase", {"payload_enabled": 1.0})]
    for name in sorted(SPECS):
        out.append((name, name, {}))
        if name != "KnuckleBoomCraneOnMovingBase" and any(v.name == "payload_enabled" for v in SPECS[name]().parameters):
            out.append((name + "+payload", name, {"payload_enabled": 1.0}))
    return out


def kernel_step(spec, simulation: CoSimulation, table: np.ndarray) -> dict:
    """One more step by mbs_cosim_step over a value table of the inputs and the outputs (fmi/kernel_steps.py) where
    the model's steps qualify: its return code, and whether its outputs are the Python step's (CoSimulation.step)."""
    names, n_in = tuple(v.name for v in spec.outputs), len(spec.inputs)
    reals, ints = np.zeros(n_in + len(names)), np.zeros(n_in + len(names), np.int64)
    reals[:n_in] = simulation.inputs
    kinds = [v.kind == "real" for v in spec.outputs]
    slots = ([(n_in + j, j) for j, real in enumerate(kinds) if real], [(n_in + j, j) for j, real in enumerate(kinds)
                                                                         if not real])
    steps = (TimeSteps.of(simulation, names, list(range(n_in)), *slots, None)
             or KernelSteps.of(simulation, names, list(range(n_in)), *slots, None))
    if steps is None or not steps.hand_over():
        return {"kernel_step": None}
    code = steps.native.step(simulation.t, spec.step_size, reals, ints)
    simulation.step(spec.step_size)  # the same step by Python (the kernel's point is not taken back)
    simulation.write_outputs(names, table)
    return {"kernel_step": code, "kernel_step_equal": bool(np.array_equal(np.where(kinds, reals[n_in:], ints[n_in:]),
                                                                          table))}


def spec_of(name: str, folder: Path):
    """The FMU's spec; the WaveVessel's with the tests' synthetic RAO table while the package has no default one."""
    from crane_models.models.wave_vessel.spec import DEFAULT_TABLE, wave_vessel_spec

    if name != "WaveVessel" or DEFAULT_TABLE.is_file():
        return SPECS[name]()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from wave_vessel_helpers import write_synthetic_table

    return wave_vessel_spec(write_synthetic_table(folder / "synthetic_rao.csv"))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        every_model(Path(folder))


def every_model(folder: Path) -> None:
    lib = native.library()
    report = {"kernel": lib._name if lib is not None else None, "runs": {}}
    for label, name, extra in runs() if lib is not None else []:
        spec = spec_of(name, folder)
        model, x0, options = spec.build({**{v.name: v.start for v in spec.parameters}, **extra})
        simulation = CoSimulation(model, x0, **options)
        for _ in range(STEPS):
            simulation.step(spec.step_size)
        outputs = simulation.outputs()
        table = np.empty(len(spec.outputs))  # the FMI adapter's value table: the kernel writes every output there
        simulation.write_outputs(tuple(v.name for v in spec.outputs), table)
        run = report["runs"][label] = {
            "time": simulation.t,
            "finite": all(math.isfinite(v) for v in outputs.values() if isinstance(v, float))
                      and bool(np.isfinite(table).all()),
        }
        run.update(kernel_step(spec, simulation, table))
        run["entry_points"] = sorted(n for n in vars(lib) if n.startswith("mbs_"))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
