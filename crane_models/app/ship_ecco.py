"""The ship pairs under libcosim's ECCO algorithm (``*_Ecco_OspSystemStructure.xml``, :mod:`fmi.osp_ecco`): run,
energy residual at the bonds, deviation from the monolithic model.

ECCO chooses each step itself, so its steps do not fall on the communication grid on which the monolithic
reference holds the set-points. What is chosen here: before each ECCO step the override manipulator sets the
set-points that the grid holds at the step's start (``setpoints(grid * floor(t / grid))``); a set-point change
takes effect at the first step boundary at or after its grid point, late by less than one ECCO step (none when
the steps stay at the grid's, as ``MaximumStepSize`` = the grid and ``StepSize`` = the grid start them). The
monolithic reference (:func:`ecco_deviation`) is computed on ECCO's own step times, each interval with the
set-points that step had: the deviation measures the coupling, not the set-point timing.

libcosimpy 0.0.6 does not expose the energy residual (libcosim keeps it inside the algorithm): :func:`bond_energies`
recomputes it from the observed outputs as libcosim defines it -- per bond and step, each side's held input times
its new output, ``|v_{k-1} F_k - F_{k-1} v_k| h_k`` -- for every scalar bond of the mechanical ports, carried as a
power bond by the file or not.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..fmi.osp_ecco import ecco_file_name, port_bonds
from .ship_demo import DEFAULT_RUNS, PAIR_RUNS, SIGNALS, STOP

__all__ = ["run_ecco_in_libcosim", "structure_pair", "bond_sources", "bond_energies", "ecco_deviation",
           "step_statistics", "run_ecco_rows"]


def structure_pair(structure: Path) -> dict:
    """``{simulator: (FMU, initial values)}`` of one of the project's system structures, fixed-step or ECCO."""
    from ..models.registry import OSP_PAIRS

    names = {**{name: name for name in OSP_PAIRS}, **{ecco_file_name(name): name for name in OSP_PAIRS}}
    return OSP_PAIRS[names[Path(structure).name]]


def bond_sources(pair: dict) -> dict:
    """``{bond: ((simulator, effort output), (simulator, flow output))}`` for every scalar bond of the mechanical
    ports (:func:`fmi.osp_ecco.port_bonds`): the outputs that feed the bond's two connections in the pair's
    wiring (:func:`models.build.pair_connections`, as the files carry it)."""
    from ..models.build import pair_connections

    conns = pair_connections(pair)
    source = {v: (a, va) for a, va, b, vb in conns for v in (va, vb)}
    return {name: (source[effort], source[flow]) for name, (effort, flow) in port_bonds().items()}


def run_ecco_in_libcosim(structure: Path, setpoints, grid: float, stop: float, execution=None) -> dict:
    """The ECCO system structure in libcosim (or ``execution``, one built from it; a fixed-step structure runs
    the same way, its steps all alike); ``setpoints(t)`` ({name: value}) held on ``grid`` and applied to the crane
    before each step. Returns, like
    :func:`.ship_demo.run_in_libcosim`, ``time`` (the end of each step) and the signals, plus ``step`` (each step's
    size), ``setpoint_time`` (the grid point whose set-points the step had) and ``bond.<sim>.<output>`` for the
    outputs of every port bond (:func:`bond_energies`)."""
    from fmpy import read_model_description
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver

    structure = Path(structure)
    log_output_level(CosimLogLevel.ERROR)
    pair = structure_pair(structure)
    execution = execution or CosimExecution.from_osp_config_file(str(structure))
    observer, manipulator = CosimObserver.create_last_value(), CosimManipulator.create_override()
    execution.add_observer(observer)
    execution.add_manipulator(manipulator)
    index = {s: execution.slave_index_from_instance_name(s) for s in pair}
    vr = {s: {v.name: v.valueReference
              for v in read_model_description(str(structure.parent / f"{fmu}.fmu")).modelVariables}
          for s, (fmu, _) in pair.items()}
    bonded = sorted({end for ends in bond_sources(pair).values() for end in ends})
    watched = {s: list(SIGNALS.get(s, [])) + [v for sim, v in bonded if sim == s] for s in pair}
    columns = [f"{s}.{v}" for s in watched for v in watched[s]]
    grid_ns, stop_ns, now = round(grid * 1e9), round(stop * 1e9), 0
    times, starts, rows = [], [], []
    while now < stop_ns:
        held = (now // grid_ns) * grid_ns * 1e-9
        values = setpoints(held)
        manipulator.slave_real_values(index["crane"], [vr["crane"][n] for n in values], list(values.values()))
        if not execution.step(1):
            raise RuntimeError(f"libcosim's ECCO step at t = {now * 1e-9} s failed")
        now = execution.status().current_time
        starts.append(held)
        times.append(now * 1e-9)
        rows.append([x for s in watched for x in observer.last_real_values(index[s], [vr[s][v] for v in watched[s]])])
    execution.stop()
    data = np.array(rows)
    out = {"time": np.array(times), "setpoint_time": np.array(starts)}
    out["step"] = np.diff(np.concatenate(([0.0], out["time"])))
    for i, col in enumerate(columns):
        sim, var = col.split(".", 1)
        if var in SIGNALS.get(sim, []):
            out[var] = data[:, i]
        if (sim, var) in bonded:
            out[f"bond.{col}"] = data[:, i]
    return out


def bond_energies(result: dict, pair: dict) -> dict:
    """Per port bond of a run: ``{bond: (residual, net, transmitted)}`` [J] -- the sum over the steps of
    ``|P_a - P_b| h``, of ``(P_a - P_b) h`` (energy the exchange made or lost), and of ``|P_b| h``; ``P_a`` the
    crane's held velocity times its new force, ``P_b`` the vessel's held force times its new velocity. The first
    step (its held inputs are the initialization's) is left out."""
    out = {}
    h = result["step"][1:]
    for name, ((es, ev), (fs, fv)) in bond_sources(pair).items():
        force, velocity = result[f"bond.{es}.{ev}"], result[f"bond.{fs}.{fv}"]
        p_a, p_b = velocity[:-1] * force[1:], force[:-1] * velocity[1:]
        residual = (p_a - p_b) * h
        out[name] = (float(np.sum(np.abs(residual))), float(np.sum(residual)), float(np.sum(np.abs(p_b) * h)))
    return out


def step_statistics(result: dict) -> tuple:
    """``(steps, min, median, max)`` of the steps ECCO chose."""
    h = result["step"]
    return len(h), float(h.min()), float(np.median(h)), float(h.max())


def ecco_deviation(result: dict, build) -> tuple:
    """``({signal: max |split - monolithic| / range(monolithic)}, monolithic)`` of an ECCO run against the
    monolithic model of its pair (``build`` of :data:`.ship_demo.PAIR_RUNS`), computed on the run's own step times,
    each interval with the set-points that step had."""
    from ..integration.reference import simulate_reference

    model, x0, setpoints, rename = build()
    times = np.concatenate(([0.0], result["time"]))
    held = dict(zip(np.round(times[:-1] * 1e9).astype(np.int64), result["setpoint_time"]))
    ref = simulate_reference(model, x0, times, lambda t: np.array(list(setpoints(held[round(t * 1e9)]).values())),
                             rtol=1e-9, atol=1e-9)
    names = [n for s in SIGNALS for n in SIGNALS[s]]
    mono = {"time": times, **{k: np.asarray(v) for k, v in rename(ref).items() if k in names}}
    dev = {n: float(np.max(np.abs(result[n] - mono[n][1:])) / max(np.ptp(mono[n]), 1e-9))
           for n in names if n in mono}  # (the paper's monolithic tree has no yaw moment)
    return dev, mono


def run_ecco_rows(fmu_dir: Path, grid: float = 0.01) -> list:
    """Both pairs' ECCO files in libcosim against their monolithic model, set-points held on ``grid``. Rows like
    :func:`.ship_demo.run_ship_demo`'s: ``(name, median step, max deviation / range, worst signal, RTF libcosim,
    RTF monolithic)``."""
    rows = []
    for structure, (title, build) in ((f, PAIR_RUNS[f]) for f in DEFAULT_RUNS):
        path = Path(fmu_dir) / ecco_file_name(structure)
        print(f"running {title} in libcosim ECCO (set-points on {grid * 1e3:g} ms) and monolithic ...", flush=True)
        t0 = time.perf_counter()
        result = run_ecco_in_libcosim(path, build()[2], grid, STOP)
        wall = time.perf_counter() - t0
        t0 = time.perf_counter()
        dev, _ = ecco_deviation(result, build)
        wall_ref = time.perf_counter() - t0
        worst = max(dev, key=dev.get)
        rows.append((f"{title} (libcosim ECCO vs monolithic)", step_statistics(result)[2], dev[worst], worst,
                     STOP / wall, STOP / wall_ref))
    return rows
