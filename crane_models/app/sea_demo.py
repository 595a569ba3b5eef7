"""The lift at sea of the demo (issue 36): the knuckle boom crane on the ``WaveVessel`` in the system's sea (Hs 2.5 m,
Tp 8 s JONSWAP, built up from rest over its first 10 s: models/sea_systems.py; the load is lifted off while the sea
grows and set down in the full sea) -- the lift of the demo scenario ``knuckle_boom_lift`` (the load lifted off
the deck, slewed, set down lower) while the vessel moves as its RAOs say -- run by the project's one-way master with
fmpy (simulation/sea_master.py; libcosim and Ecos run the shipped system files the same way: tests/test_sea_systems.py).
Writes the result as an SSP run's (``component.variable`` columns with units, the sidecar naming the components: ``crane-cosim
view`` draws it, the sea included) and a figure of the vessel's motion and the crane's loads."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

__all__ = ["run_sea_demo", "SEA_LIFT", "sea_figure", "lift_setpoints"]

SYSTEM = "KnuckleBoomOnWaveVessel"
SEA_LIFT = "knuckle_boom_lift_on_wave_vessel"
STOP = 20.0
RECORD = {"vessel": ["roll", "pitch", "yaw", "heave", "wave_elevation", "base_position_x", "base_position_y",
                     "base_position_z"],
          "crane": ["q1", "q2", "q3", "hook_load", "wire_length", "payload_x", "payload_y", "payload_z",
                    "deck_contact_force"] + [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]}
PANELS = [("sea and vessel", "m", ["vessel.wave_elevation", "vessel.heave"]),
          ("vessel attitude", "rad", ["vessel.roll", "vessel.pitch"]),
          ("hook load", "N", ["crane.hook_load"]),
          ("force on the vessel", "N", [f"crane.interface_force_{a}" for a in "xyz"]),
          ("moment on the vessel", "N.m", [f"crane.interface_moment_{a}" for a in "xyz"])]


def _lift():
    from ..models.knuckle_boom.scenarios import knuckle_boom_lift

    return knuckle_boom_lift()


def lift_setpoints():
    """``t -> {input: value}``: the crane's set-points and winch speed of the demo's lift (not the base motion: the
    vessel gives it)."""
    lift = _lift()

    def setpoints(t: float) -> dict:
        return dict(zip(lift.input_names, lift.signals(t)))
    return setpoints


def _start_values() -> dict:
    """The lift's start (payload on the deck, 7 m below the crane base, its solver settings) for the moving-base crane."""
    return dict(_lift().start_values)


def sea_figure(title: str, result: dict, units: dict):
    from ..analysis.plot_style import PALETTE, display, legend_outside, new_figure, wrapped_title

    fig, axes = new_figure(len(PANELS), 1, width=9.0, row_height=2.0, sharex=True)
    for ax, (quantity, unit, names) in zip(axes[:, 0], PANELS):
        largest = max(float(np.max(np.abs(result[n]))) for n in names)
        shown, factor = display(unit, largest)
        for name, color in zip(names, PALETTE):
            ax.plot(result["time"], factor * result[name], color=color, lw=1.3, label=name.split(".", 1)[1])
        ax.set_ylabel(f"{quantity} [{shown}]")
        legend_outside(ax)
    axes[-1, 0].set_xlabel("time [s]")
    wrapped_title(fig, title, fig.get_figwidth())
    return fig


def run_sea_demo(out_dir: Path, fmu_dir: Path, step: float = 0.01) -> list:
    """The lift at sea into ``out_dir`` (CSV, sidecar, PNG); one demo row ``(name, step, None, "", RTF, None)``: no
    reference solution -- the coupling is one way, the crane's own accuracy is the knuckle boom scenarios'."""
    from ..analysis.plot_style import save
    from ..models.registry import SPECS
    from ..models.sea_systems import SEA_SYSTEMS, with_sea
    from ..simulation.sea_master import run_sea_system
    from .results import write_csv, write_metadata

    out_dir, fmu_dir = Path(out_dir), Path(fmu_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    overrides = {"crane": _start_values()}
    print(f"running the lift on the WaveVessel in Hs 2.5 m, Tp 8 s (fmpy, one-way, step {step * 1e3:g} ms) ...",
          flush=True)
    t0 = time.perf_counter()
    result = run_sea_system(fmu_dir, SYSTEM, STOP, step, RECORD, lift_setpoints(), overrides)
    wall = time.perf_counter() - t0
    members = with_sea({c: (fmu, {**values, **overrides.get(c, {})})
                        for c, (fmu, values) in SEA_SYSTEMS[SYSTEM].items()}, SPECS)
    units = {f"{c}.{v.name}": v.unit for c, (fmu, _) in members.items() for v in SPECS[fmu]().outputs}
    names = [n for n in result if n != "time"]
    csv = out_dir / f"{SEA_LIFT}.csv"
    write_csv(csv, result, ["time"] + names, units)
    write_metadata(csv, None, scenario=SEA_LIFT, step=step, system=SYSTEM, engine="fmpy (one-way Jacobi master)",
                   components={c: {"model": fmu, "parameters": values} for c, (fmu, values) in members.items()})
    build_up = members["vessel"][1].get("sea_build_up", 0.0)
    grown = f", the sea built up over its first {build_up:g} s" if build_up else ""
    save(sea_figure(f"Lift on the WaveVessel in Hs 2.5 m, Tp 8 s ({step * 1e3:g} ms{grown}): vessel motion and crane "
                    "loads",
                    result, units), out_dir / f"{SEA_LIFT}.png")
    return [(f"{SEA_LIFT} (fmpy, one-way)", step, None, "", STOP / wall, None)]
