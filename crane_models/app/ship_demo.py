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

import time
from pathlib import Path

import numpy as np

__all__ = ["run_ship_demo", "ship_figure", "PAIR_RUNS"]

STOP = 10.0


def _paper_pair():
    from ..models.vessel_crane.crane import INPUTS, VesselCraneModel
    from ..models.vessel_crane.scenarios import vessel_crane_hoisting

    sc = vessel_crane_hoisting(STOP)
    names = [n for n, _, _ in INPUTS]
    x0 = np.concatenate((np.zeros(3), sc.inputs_at(0.0)[:3], np.zeros(6)))

    def monolithic(out: dict) -> dict:  # the split's names: the load on the vessel, Frame 1
        return {"roll": out["q1"], "pitch": out["q2"], "yaw": out["q3"],
                **{f"interface_force_{a}": -out[f"interface_f1_force_{a}"] for a in "xyz"}, **{f"interface_moment_{a}": -out[f"interface_f1_moment_{a}"] for a in "xy"}}

    return VesselCraneModel(), x0, lambda t: dict(zip(names, sc.inputs_at(t))), monolithic


def _knuckle_boom_pair():
    from ..models.knuckle_boom.on_vessel import KnuckleBoomOnVesselModel
    from ..models.knuckle_boom.scenarios import knuckle_boom_hoisting
    from ..models.vessel_crane.vessels import knuckle_boom_vessel

    sc = knuckle_boom_hoisting()
    x0 = np.zeros(12)
    x0[1:3] = 0.6
    return (KnuckleBoomOnVesselModel(knuckle_boom_vessel()), x0, lambda t: dict(zip(sc.input_names, sc.inputs_at(t))),
            lambda out: out)


# system structure -> (title, builder of (monolithic model, x0, crane set-points at t, monolithic output names))
PAIR_RUNS = {"OspSystemStructure.xml": ("Vessel + CraneOnMovingBase", _paper_pair),
             "KnuckleBoomOnVessel_OspSystemStructure.xml": ("Vessel + KnuckleBoomCraneOnMovingBase", _knuckle_boom_pair)}
SIGNALS = {"vessel": ["roll", "pitch", "yaw"], "crane": [f"interface_force_{a}" for a in "xyz"]}


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
    execution = CosimExecution.from_osp_config_file(str(structure))
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
    """Both pairs in libcosim against their monolithic solution; CSV-free, one PNG per pair in ``out_dir``.
    Rows ``(name, step, max deviation / range, worst signal, RTF libcosim, RTF monolithic)``."""
    from ..integration.reference import simulate_reference
    from ..simulation.runs import communication_grid

    out_dir, fmu_dir = Path(out_dir), Path(fmu_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for structure, (title, build) in PAIR_RUNS.items():
        model, x0, setpoints, rename = build()
        print(f"running {title} in libcosim (step {step * 1e3:g} ms) and monolithic ...", flush=True)
        t0 = time.perf_counter()
        split = run_in_libcosim(fmu_dir / structure, setpoints, step, STOP)
        wall = time.perf_counter() - t0
        t0 = time.perf_counter()
        grid = communication_grid(STOP, step)
        ref = simulate_reference(model, x0, grid, lambda t: np.array(list(setpoints(t).values())), rtol=1e-9, atol=1e-9)
        wall_ref = time.perf_counter() - t0
        mono = {"time": grid, **{k: np.asarray(v) for k, v in rename(ref).items() if k in sum(SIGNALS.values(), [])}}
        dev = {n: float(np.max(np.abs(split[n] - mono[n][1:])) / max(np.ptp(mono[n]), 1e-9))
               for n in sum(SIGNALS.values(), [])}
        worst = max(dev, key=dev.get)
        from ..analysis.plot_style import save

        save(ship_figure(f"{title}: libcosim against the monolithic model ({step * 1e3:g} ms)", split, mono),
             out_dir / f"{structure.split('_')[0].replace('.xml', '')}.png")
        rows.append((f"{title} (libcosim vs monolithic)", step, dev[worst], worst, STOP / wall, STOP / wall_ref))
    return rows
