"""libcosim's ECCO algorithm against its fixed-step one on the two ship pairs (docs/ship-cosimulation.md, "ECCO").

10 s of the demo's scenario (``app.ship_demo.PAIR_RUNS``), set-points held on the 10 ms grid and applied before
every step by the override manipulator (``app.ship_ecco``); the monolithic reference on each run's own step times
with the set-points that step had. Rows per pair:

* ``fixed h``: the fixed-step system structure written at the step h (the shipped wiring);
* ``ECCO file``: the shipped ``…Ecco_OspSystemStructure.xml`` (one power bond, what libcosimpy 0.0.6 loads);
* ``ECCO, six bonds``: the same settings with all six port bonds, built through libcosimpy's API
  (``CosimAlgorithm.add_power_bond`` takes any number; only the file reader refuses a second bond).

With ``--bonds``: instead, the shipped settings with each single port bond in turn (how the shipped bond was chosen).

Columns: steps (count, min / median / max in ms); energy residual over the six port bonds, sum of ``|P_a - P_b| h``
and its net sum [J] (libcosim's definition, recomputed from the outputs: ``app.ship_ecco.bond_energies``); deviation
max |split - monolithic| / range(monolithic) in % for roll, pitch, yaw, interface_force_x/y/z; the worst of them
after the first 0.1 s. Run: ``crane-cosim build --out DIR; python benchmarks/bench_ecco.py DIR [--bonds]`` (about 10
minutes on one core either way, most of it the reference).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from crane_models.app.ship_demo import DEFAULT_RUNS, PAIR_RUNS, STOP
from crane_models.app.ship_ecco import (bond_energies, ecco_deviation, run_ecco_in_libcosim, step_statistics,
                                        structure_pair)
from crane_models.fmi.osp_ecco import ecco_file_name, ecco_system_structure, port_bonds
from crane_models.models.build import pair_connections, write_osp_files
from crane_models.models.registry import OSP_ECCO

GRID = 0.01
FIXED_STEPS = (0.01, 0.002, 0.001)
NAMES = ["roll", "pitch", "yaw"] + [f"interface_force_{a}" for a in "xyz"]  # the table's columns


def six_bond_execution(fmu_dir: Path, fixed_name: str):
    """The pair's ECCO execution built through libcosimpy's API: its simulators, the shipped wiring, every port
    bond, the shipped settings."""
    from fmpy import read_model_description
    from libcosimpy.CosimAlgorithm import CosimAlgorithm, EccoParams
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimSlave import CosimLocalSlave

    pair, _, s = OSP_ECCO[fixed_name]
    algorithm = CosimAlgorithm.create_ecco_algorithm(EccoParams(
        safety_factor=s.safety_factor, step_size=s.step_size, min_step_size=s.min_step_size,
        max_step_size=s.max_step_size, min_change_rate=s.min_change_rate, max_change_rate=s.max_change_rate,
        abs_tolerance=s.abs_tolerance, rel_tolerance=s.rel_tolerance, p_gain=s.p_gain, i_gain=s.i_gain))
    execution = CosimExecution.from_algorithm(algorithm)
    execution.keep_algorithm = algorithm  # libcosim holds a pointer to it
    index, vr = {}, {}
    for sim, (fmu, values) in pair.items():
        path = str(fmu_dir / f"{fmu}.fmu")
        index[sim] = execution.add_local_slave(CosimLocalSlave(path, sim))
        vr[sim] = {v.name: v.valueReference for v in read_model_description(path).modelVariables}
        for var, value in values.items():
            assert execution.real_initial_value(index[sim], vr[sim][var], float(value))
    conns = pair_connections(pair)
    for a, va, b, vb in conns:
        assert execution.connect_real_variables(index[a], vr[a][va], index[b], vr[b][vb]) == 0
    feeds = {v: (a, va, b, vb) for a, va, b, vb in conns for v in (va, vb)}
    for effort, flow in port_bonds().values():
        a, force_out, b, force_in = feeds[effort]  # a computes the force, b the velocity
        _, velocity_out, _, velocity_in = feeds[flow]
        assert algorithm.add_power_bond(index[a], vr[a][force_out], vr[a][velocity_in],
                                        index[b], vr[b][velocity_out], vr[b][force_in]) == 0
    return execution


def row(label: str, structure: Path, build, execution=None) -> str:
    result = run_ecco_in_libcosim(structure, build()[2], GRID, STOP, execution)
    dev, mono = ecco_deviation(result, build)
    late = result["time"] > 0.1
    after = {n: np.max(np.abs(result[n] - mono[n][1:])[late]) / np.ptp(mono[n]) for n in NAMES}
    worst = max(after, key=after.get)
    energies = bond_energies(result, structure_pair(structure)).values()
    n, lo, med, hi = step_statistics(result)
    return (f"| {label} | {n} | {lo * 1e3:.2f} / {med * 1e3:.2f} / {hi * 1e3:.2f} | "
            f"{sum(e[0] for e in energies):.3g} / {sum(e[1] for e in energies):+.3g} | "
            + " / ".join(f"{100 * dev[k]:.2f}" for k in NAMES) + f" | {100 * after[worst]:.2f} ({worst}) |")


def _beside_fmus(folder: Path, fmu_dir: Path) -> Path:
    folder.mkdir(exist_ok=True)
    for fmu in fmu_dir.glob("*.fmu"):
        if not (folder / fmu.name).exists():
            (folder / fmu.name).symlink_to(fmu.resolve())
    return folder


def main(fmu_dir: Path, bonds: bool = False) -> None:
    print("| run | steps | h min / median / max [ms] | residual / net [J] | deviation % roll / pitch / yaw / Fx / Fy / "
          "Fz | worst after 0.1 s [%] |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for fixed_name, (title, build) in ((f, PAIR_RUNS[f]) for f in DEFAULT_RUNS):
            print(f"| **{title}** | | | | | |")
            ecco = fmu_dir / ecco_file_name(fixed_name)
            if bonds:
                pair, _, settings = OSP_ECCO[fixed_name]
                for name, bond in port_bonds().items():
                    path = _beside_fmus(Path(tmp) / name, fmu_dir) / ecco.name
                    path.write_text(ecco_system_structure(pair, pair_connections(pair), {name: bond}, settings))
                    print(row(f"ECCO, {name}", path, build), flush=True)
                continue
            for h in FIXED_STEPS:
                out = _beside_fmus(Path(tmp) / f"{h:g}", fmu_dir)
                write_osp_files(out, h)
                print(row(f"fixed {h * 1e3:g} ms", out / fixed_name, build), flush=True)
            print(row(f"ECCO file ({', '.join(OSP_ECCO[fixed_name][1])})", ecco, build), flush=True)
            print(row("ECCO, six bonds (API)", ecco, build, six_bond_execution(fmu_dir, fixed_name)), flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--bonds"]):
        sys.exit(__doc__)
    main(Path(sys.argv[1]), bonds=sys.argv[2:] == ["--bonds"])
