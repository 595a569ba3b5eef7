"""The ship co-simulation demo: both vessel-crane pairs run by libcosim from their OSP system structures, set-points
driven through libcosim's override manipulator, compared with the monolithic standalone solution (vessel and
crane in one tree), with plots of the vessel motion and the interface load.

Pairs: ``OspSystemStructure.xml`` (Vessel + CraneOnMovingBase, the moving-base paper's scaled model, against
``VesselCraneModel``) and ``KnuckleBoomOnVessel_OspSystemStructure.xml`` (Vessel with the 3000 t parameter set +
KnuckleBoomCraneOnMovingBase, against ``KnuckleBoomOnVesselModel``). libcosim's fixed-step algorithm is the
explicit Jacobi exchange: first order in the step, so the deviation from the monolithic solution shrinks with the
step (``docs/ship-cosimulation.md``). ``run_ship_demo`` returns rows like ``app.demo.run_demo``.
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["run_ship_demo", "ship_figure", "PAIR_RUNS", "run_in_libcosim", "run_in_ecos", "ecos_scratch",
           "monolithic_run", "deviations", "DEFAULT_RUNS"]

STOP = 10.0


def _start(system: str, sim: str, names: list) -> list:
    """The start values ``names`` of a pair's simulator: the pair's (vessel_crane.vessels.SHIP_PAIRS: its static
    equilibrium) over the FMU's defaults -- what the system files give the engines, for the monolithic model too."""
    from ..models.registry import SPECS
    from ..models.vessel_crane.vessels import SHIP_PAIRS

    fmu, values = SHIP_PAIRS[system][sim]
    defaults = {v.name: v.start for v in SPECS[fmu]().parameters}
    return [float(values.get(n, defaults[n])) for n in names]


def _paper_pair():
    from ..models.vessel_crane.crane import INPUTS, VesselCraneModel
    from ..models.vessel_crane.scenarios import vessel_crane_hoisting

    sc = vessel_crane_hoisting(STOP)
    names = [n for n, _, _ in INPUTS]
    q0 = _start("CraneOnVessel", "vessel", ["q1_0", "q2_0", "q3_0"]) + _start("CraneOnVessel", "crane",
                                                                              ["q4_0", "q5_0", "q6_0"])
    x0 = np.concatenate((q0, np.zeros(6)))

    def monolithic(out: dict) -> dict:  # the split's names: the load on the vessel, Frame 1
        return {"roll": out["q1"], "pitch": out["q2"], "yaw": out["q3"],
                **{f"interface_force_{a}": -out[f"interface_f1_force_{a}"] for a in "xyz"},
                **{f"interface_moment_{a}": -out[f"interface_f1_moment_{a}"] for a in "xy"}}

    return VesselCraneModel(), x0, lambda t: dict(zip(names, sc.inputs_at(t))), monolithic


def _knuckle_boom_pair():
    from ..models.knuckle_boom.on_vessel import KnuckleBoomOnVesselModel
    from ..models.knuckle_boom.scenarios import knuckle_boom_hoisting
    from ..models.vessel_crane.vessels import knuckle_boom_vessel

    sc = knuckle_boom_hoisting()
    q0 = (_start("KnuckleBoomOnVessel", "crane", ["q1_0", "q2_0", "q3_0"])
          + _start("KnuckleBoomOnVessel", "vessel", ["q1_0", "q2_0", "q3_0"]))
    x0 = np.concatenate((q0, np.zeros(6)))
    return (KnuckleBoomOnVesselModel(knuckle_boom_vessel()), x0, lambda t: dict(zip(sc.input_names, sc.inputs_at(t))),
            lambda out: out)


# system (vessel_crane.vessels.SHIP_PAIRS, without a variant's suffix) -> (title, builder of (monolithic model, x0,
# crane set-points at t, monolithic output names))
_PAIRS = {"CraneOnVessel": ("Vessel + CraneOnMovingBase", _paper_pair),
          "KnuckleBoomOnVessel": ("Vessel + KnuckleBoomCraneOnMovingBase", _knuckle_boom_pair)}


def _pair_runs() -> dict:
    """OSP system structure file -> (title, builder), for every system the build writes (the variants too); the
    system's SSP package beside it (``SSP_OF``); the files of the default wiring."""
    from ..models.registry import OSP_WIRINGS, osp_file
    from ..models.vessel_crane.vessels import POINT_WRENCH, SHIP_PAIRS

    runs, packages = {}, {}
    for system in SHIP_PAIRS:
        base = system.removesuffix(POINT_WRENCH)
        title, build = _PAIRS[base]
        runs[osp_file(system)] = (title + (", point wrench" if base != system else ""), build)
        packages[osp_file(system)] = f"{system}.ssp"
    return runs, packages, [f for f in runs if f not in OSP_WIRINGS]


PAIR_RUNS, SSP_OF, DEFAULT_RUNS = _pair_runs()  # DEFAULT_RUNS: the pairs' default wiring (the ECCO variants' too)
SIGNALS = {"vessel": ["roll", "pitch", "yaw"],
           "crane": [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]}


@contextlib.contextmanager
def _at_step(structure: Path, step: float):
    """The system structure with its base and simulator steps set to ``step``: a copy beside it (libcosim finds the
    FMUs relative to the file), removed afterwards; the file itself where it has that step."""
    text = structure.read_text()
    changed = re.sub(r'stepSize="[^"]*"', f'stepSize="{step!r}"',
                     re.sub(r"<BaseStepSize>[^<]*</BaseStepSize>", f"<BaseStepSize>{step!r}</BaseStepSize>", text))
    if changed == text:
        yield structure
        return
    with tempfile.NamedTemporaryFile("w", suffix=".xml", prefix=".step_", dir=structure.parent, delete=False) as f:
        f.write(changed)
    try:
        yield Path(f.name)
    finally:
        os.unlink(f.name)


def run_in_libcosim(structure: Path, setpoints, step: float, stop: float) -> dict:
    """The system structure in libcosim; ``setpoints(t)`` ({name: value}) applied to the crane each step."""
    from fmpy import read_model_description
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver

    from ..models.registry import OSP_PAIRS

    log_output_level(CosimLogLevel.ERROR)
    fmus = {sim: fmu for sim, (fmu, _) in OSP_PAIRS[structure.name].items()}
    with _at_step(structure, step) as path:
        execution = CosimExecution.from_osp_config_file(str(path))
    observer, manipulator = CosimObserver.create_last_value(), CosimManipulator.create_override()
    execution.add_observer(observer)
    execution.add_manipulator(manipulator)
    index = {s: execution.slave_index_from_instance_name(s) for s in SIGNALS}
    vr = {s: {v.name: v.valueReference for v in read_model_description(str(structure.parent / f"{fmus[s]}.fmu")).modelVariables}
          for s in SIGNALS}
    times, rows = [], []
    n = int(round(stop / step))
    for k in range(n):
        values = setpoints(k * step)
        manipulator.slave_real_values(index["crane"], [vr["crane"][name] for name in values], list(values.values()))
        execution.step(1)
        times.append((k + 1) * step)
        rows.append([x for s in SIGNALS for x in observer.last_real_values(index[s], [vr[s][v] for v in SIGNALS[s]])])
    execution.stop()
    data = np.array(rows)
    out = {"time": np.array(times)}
    out.update({name: data[:, i] for i, name in enumerate(v for s in SIGNALS for v in SIGNALS[s])})
    return out


@contextlib.contextmanager
def ecos_scratch():
    """A folder of our own for what Ecos unpacks, removed at the end: ecospy (0.7) unpacks an ``.ssp`` into
    ``$TMPDIR/ecos_ssp_<uuid>`` (~1 MB) and leaves it there after ``free()``. Ecos reads ``TMPDIR`` when it unpacks,
    so inside the block ``TMPDIR`` names a private folder (Python's ``tempfile`` keeps the folder it chose first)."""
    folder = tempfile.mkdtemp(prefix="crane_cosim_ecos_")
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = folder
    try:
        yield Path(folder)
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


def run_in_ecos(package: Path, setpoints, step: float, stop: float) -> dict:
    """The SSP package in Ecos (ecospy), its parameter set in force; ``setpoints(t)`` set on the crane before each
    step, as ``run_in_libcosim`` does. Same result layout."""
    from ecospy import EcosLib, EcosSimulation

    EcosLib.set_log_level("warn")
    names = [f"{s}::{v}" for s in SIGNALS for v in SIGNALS[s]]
    rows = []
    with ecos_scratch():
        sim = EcosSimulation(step_size=step, ssp_path=str(package))
        try:
            if not sim.init(parameter_set="crane-cosim"):
                raise RuntimeError(f"Ecos could not initialize {package.name}: {EcosLib.get_last_error()}")
            for k in range(int(round(stop / step))):
                for name, value in setpoints(k * step).items():
                    sim.set_real(f"crane::{name}", float(value))
                sim.step()
                rows.append([sim.get_real(n) for n in names])
            sim.terminate()
        finally:
            sim.free()
    data = np.array(rows)
    out = {"time": step * np.arange(1, len(rows) + 1)}
    out.update({name.split("::")[1]: data[:, i] for i, name in enumerate(names)})
    return out


def monolithic_run(structure: str, step: float, stop: float = STOP) -> tuple:
    """``(set-points at t, monolithic outputs on the grid)`` of a pair's structure: the one-tree model with the
    set-points held over each step, in the split's names."""
    from ..integration.reference import simulate_reference
    from ..simulation.runs import communication_grid

    model, x0, setpoints, rename = PAIR_RUNS[structure][1]()
    grid = communication_grid(stop, step)
    ref = simulate_reference(model, x0, grid, lambda t: np.array(list(setpoints(t).values())), rtol=1e-9, atol=1e-9)
    names = sum(SIGNALS.values(), [])
    return setpoints, {"time": grid, **{k: np.asarray(v) for k, v in rename(ref).items() if k in names}}


def deviations(split: dict, mono: dict, after: float = 0.0, until: float = math.inf) -> dict:
    """max |split − monolithic| / range(monolithic over the whole run), per signal the monolithic model has, over the
    points after ``after`` seconds and up to ``until`` (the split's points are the grid's after t = 0)."""
    mask = (split["time"] > after) & (split["time"] <= until + 1e-12)
    return {n: float(np.max(np.abs(split[n][mask] - mono[n][1:][mask])) / max(np.ptp(mono[n]), 1e-9))
            for n in sum(SIGNALS.values(), []) if n in mono}


# The figure's panels: the vessel's attitude, and the load on it split into the horizontal components and the
# vertical one (the crane's weight, ~350 kN for the knuckle boom, would flatten the others on one axis).
PANELS = (("vessel attitude", ["roll", "pitch", "yaw"]),
          ("horizontal load on the vessel", ["interface_force_x", "interface_force_y"]),
          ("vertical load on the vessel", ["interface_force_z"]))


def ship_figure(title: str, split: dict, mono: dict):
    """libcosim's run (coloured) against the monolithic model (dashed black), in the units of
    :mod:`analysis.plot_style` (deg, kN)."""
    from matplotlib.lines import Line2D

    from ..analysis.plot_style import (PALETTE, REFERENCE, display, figure_key, legend_outside, new_figure,
                                       wrapped_title)
    from ..models.registry import SPECS

    units = {v.name: v.unit for name in ("Vessel", "CraneOnMovingBase") for v in SPECS[name]().outputs}
    fig, axes = new_figure(len(PANELS), 1, width=9.0, row_height=2.2, sharex=True)
    for ax, (quantity, names) in zip(axes[:, 0], PANELS):
        largest = max(float(np.max(np.abs(np.concatenate((split[n], mono[n]))))) for n in names)
        shown, factor = display(units[names[0]], largest)
        for name, color in zip(names, PALETTE):
            ax.plot(split["time"], factor * split[name], color=color, lw=1.4, label=name)
            ax.plot(mono["time"], factor * mono[name], color=REFERENCE, lw=0.9, ls=(0, (4, 3)))
        ax.set_ylabel(f"{quantity} [{shown}]")
        legend_outside(ax)
    axes[-1, 0].set_xlabel("time [s]")
    wrapped_title(fig, title, fig.get_figwidth())
    figure_key(fig, [(Line2D([], [], color="0.35", lw=1.4), "split pair in libcosim (coloured)"),
                     (Line2D([], [], color=REFERENCE, lw=0.9, ls=(0, (4, 3))), "monolithic model (dashed black)")])
    return fig


def run_ship_demo(out_dir: Path, fmu_dir: Path, step: float = 0.01) -> list:
    """Both pairs as shipped (their default system files) in libcosim -- and in Ecos where ecospy runs here --
    against their monolithic solution; one PNG per pair in ``out_dir``. Rows ``(name, step, max deviation / range,
    worst signal, RTF of the engine, RTF monolithic)``."""
    from ..analysis.plot_style import save
    from .native import ecospy_problem

    out_dir, fmu_dir = Path(out_dir), Path(fmu_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    engines = {"libcosim": lambda f, sp: run_in_libcosim(fmu_dir / f, sp, step, STOP)}
    if ecospy_problem() is None:
        engines["Ecos"] = lambda f, sp: run_in_ecos(fmu_dir / SSP_OF[f], sp, step, STOP)
    rows = []
    for structure, (title, _) in ((f, PAIR_RUNS[f]) for f in DEFAULT_RUNS):
        print(f"running {title} in {' and '.join(engines)} (step {step * 1e3:g} ms) and monolithic ...", flush=True)
        t0 = time.perf_counter()
        setpoints, mono = monolithic_run(structure, step)
        wall_ref = time.perf_counter() - t0
        for engine, run in engines.items():
            t0 = time.perf_counter()
            split = run(structure, setpoints)
            wall = time.perf_counter() - t0
            dev = deviations(split, mono)
            worst = max(dev, key=dev.get)
            if engine == "libcosim":
                save(ship_figure(f"{title}: libcosim against the monolithic model ({step * 1e3:g} ms)", split, mono),
                     out_dir / f"{structure.split('_')[0].replace('.xml', '')}.png")
            rows.append((f"{title} ({engine} vs monolithic)", step, dev[worst], worst, STOP / wall, STOP / wall_ref))
    return rows
