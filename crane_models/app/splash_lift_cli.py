"""``crane-cosim splash-lift``: the lift through the splash zone (:mod:`analysis.splash_lift`) with and without
active heave compensation -- the time domain's peaks beside DNV-RP-N103's simplified method, a figure and CSV of
both runs -- and, with ``--sweep-hs``/``--sweep-tp``, the limiting sea state of the slack-sling criterion."""
from __future__ import annotations

import argparse
import csv
import math
from dataclasses import replace
from pathlib import Path

from ..analysis.plot_style import PALETTE, REFERENCE, figure_key, legend_outside, new_figure, save, wrapped_title
from ..analysis.splash_lift import (MAX_SEEDS, Lift, lift_summary, limiting_sea_states, run_lift, simplified_for,
                                   sweep_sea_states)
from .fmus import CliError, writable_dir

__all__ = ["add_commands", "splash_lift_command"]

_CSV = ("t", "vessel_heave", "roll", "pitch", "tip_heave", "payload_height", "wave_elevation_at_payload", "hook_load",
        "slack_sling_margin", "payload_submergence", "payload_buoyancy", "payload_hydro_force_z", "wire_length",
        "ahc_heave_reduction")


def add_commands(sub) -> None:
    p = sub.add_parser("splash-lift", help="lift a 20 t module through the splash zone with and without heave "
                       "compensation: time-domain peaks beside DNV-RP-N103's simplified method; Hs x Tp sweep")
    p.add_argument("--out", type=Path, default=Path("crane-cosim-out/splash-lift"), help="folder for the figure "
                   "and CSV (default crane-cosim-out/splash-lift)")
    p.add_argument("--hs", type=float, default=2.5, help="significant wave height [m] (default 2.5)")
    p.add_argument("--tp", type=float, default=8.0, help="peak period [s] (default 8)")
    p.add_argument("--seed", type=int, default=1, help="seed of the sea (default 1)")
    p.add_argument("--heading", type=float, default=Lift.heading, help="direction the waves travel towards [rad] "
                   "from the vessel's bow, about the upward vertical (default -5pi/6: from 30 deg off the port bow, "
                   "the crane over the starboard side on the lee)")
    p.add_argument("--sweep-hs", help="comma-separated Hs values [m] for the limiting sea state (with --sweep-tp)")
    p.add_argument("--sweep-tp", help="comma-separated Tp values [s]")
    p.add_argument("--sweep-seeds", type=int, default=1, help="realisations of each swept sea state (seeds --seed, "
                   f"--seed + 1, ...; default 1, at most {MAX_SEEDS}): the sweep reports each sea state's worst")
    p.add_argument("--no-figure", action="store_true", help="no PNG (the CSV and the table only)")
    p.set_defaults(func=splash_lift_command)


def _sea_range(option: str, parameter: str, values: list) -> None:
    """Each value of ``option`` within the range of the sea parameter it sets (models/at_sea.py: one source)."""
    from ..fmi.spec import check_range
    from ..models.at_sea import sea_parameters

    variable = next(v for v in sea_parameters() if v.name == parameter)
    for value in values:
        try:
            check_range(variable, value)
        except ValueError as exc:
            raise CliError(f"{option}: {exc}") from None


def _numbers(text: str, name: str, parameter: str) -> list:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise CliError(f"{name} = {text!r}: give comma-separated numbers") from None
    if not values or any(not (math.isfinite(v) and v > 0.0) for v in values):
        raise CliError(f"{name} = {text!r}: every value must be a positive number")
    _sea_range(name, parameter, values)
    return values


def _check(args) -> None:
    if not args.hs > 0.0:
        raise CliError(f"--hs = {args.hs!r} m must be > 0 (a lift in still water has no splash zone to check)")
    _sea_range("--hs", "sea_hs", [args.hs])
    _sea_range("--tp", "sea_tp", [args.tp])
    _sea_range("--heading", "sea_heading", [args.heading])
    if (args.sweep_hs is None) != (args.sweep_tp is None):
        raise CliError("give both --sweep-hs and --sweep-tp, or neither")
    if not 1 <= args.sweep_seeds <= MAX_SEEDS:
        raise CliError(f"--sweep-seeds = {args.sweep_seeds}: from 1 to {MAX_SEEDS}")
    _sea_range("--seed", "sea_seed", [args.seed, args.seed + args.sweep_seeds - 1])


def splash_lift_command(args: argparse.Namespace) -> int:
    _check(args)
    sweep = ((_numbers(args.sweep_hs, "--sweep-hs", "sea_hs"), _numbers(args.sweep_tp, "--sweep-tp", "sea_tp"))
             if args.sweep_hs else None)
    out = writable_dir(args.out, "--out")
    runs = {}
    for ahc in (False, True):
        lift = Lift(hs=args.hs, tp=args.tp, seed=args.seed, heading=args.heading, ahc=ahc)
        series = run_lift(lift)
        runs[ahc] = (lift, series, lift_summary(series, lift))
        _write_csv(out / f"splash_lift_{'ahc' if ahc else 'no_ahc'}.csv", series)
    _print_comparison(runs)
    if not args.no_figure:
        path = out / "splash_lift.png"
        plot_lift(runs, path)
        print(f"figure: {path}")
    if sweep:
        for ahc in (False, True):
            rows = sweep_sea_states(sweep[0], sweep[1], ahc, Lift(seed=args.seed, heading=args.heading),
                                    args.sweep_seeds)
            over = f", the least of {args.sweep_seeds} seeds" if args.sweep_seeds > 1 else ""
            print(f"\nslack-sling margin min over the lift{over}, {'with' if ahc else 'without'} AHC (rows Tp [s], "
                  "columns Hs [m]):")
            print("Tp \\ Hs " + "".join(f"{hs:9.2f}" for hs in sweep[0]))
            for tp in sweep[1]:
                cells = {r[0]: r[2]["slack_sling_margin_min"] for r in rows if r[1] == tp}
                print(f"{tp:8.2f}" + "".join(f"{cells[hs]:9.3f}" for hs in sweep[0]))
            touched = [f"Hs {hs:g} m, Tp {tp:g} s" for hs, tp, summary in rows if summary["air_gap_min"] < 0.0]
            if touched:
                print("waves reached the module while it hung before the payout: " + "; ".join(touched))
            limits = limiting_sea_states(rows)
            print("limiting Hs (slack-sling margin >= 0): " + ", ".join(
                f"Tp {tp:g} s: {'none' if hs is None else f'{hs:g} m'}" for tp, hs in limits.items()))
    return 0


def _write_csv(path: Path, series: dict) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(_CSV)
        for i in range(len(series["t"])):
            w.writerow([f"{series[k][i]:.9g}" for k in _CSV])


def _print_comparison(runs: dict) -> None:
    lift = runs[False][0]
    print(f"Lift through the splash zone: 20 t box 3 x 2 x 1.5 m from the knuckle boom crane on the WaveVessel, Hs "
          f"{lift.hs:g} m, Tp {lift.tp:g} s, waves towards {math.degrees(lift.heading):g} deg "
          "(analysis/splash_lift.py)")
    print(f"{'time domain':52s}{'without AHC':>14s}{'with AHC':>14s}")
    rows = (("hook load max [kN]", "hook_load_max", 1e-3), ("hook load min [kN]", "hook_load_min", 1e-3),
            ("dynamic water force max |F_z - buoyancy| [kN]", "hydro_dynamic_max", 1e-3),
            ("slack-sling margin min (>= 0 meets DNV)", "slack_sling_margin_min", 1.0),
            ("slack wire time [s]", "slack_time", 1.0), ("tip heave RMS at depth [m]", "tip_heave_std", 1.0),
            ("module heave RMS at depth [m]", "payload_heave_std", 1.0),
            ("tip horizontal motion RMS at depth [m]", "tip_horizontal_std", 1.0),
            ("wire swing from the vertical, largest [deg]", "swing_max", 180.0 / math.pi),
            ("air gap under the module before payout, least [m]", "air_gap_min", 1.0),
            ("ahc_heave_reduction at the end", "ahc_heave_reduction", 1.0))
    for label, key, scale in rows:
        print(f"{label:52s}" + "".join(f"{runs[a][2][key] * scale:14.3f}" for a in (False, True)))
    print("DNV-RP-N103 simplified method (crane tip: 2 x its heave RMS; with AHC the module's residual)")
    for ahc in (False, True):
        lift, _, summary = runs[ahc]
        amplitude = 2.0 * (summary["payload_heave_std"] if ahc else summary["tip_heave_std"])
        method = simplified_for(lift, amplitude)
        print(f"  {'with' if ahc else 'without'} AHC, tip amplitude {amplitude:.2f} m:")
        for name, f in method.items():
            print(f"    {name:16s} F_slam {f.slamming / 1e3:8.1f}  F_rho {f.varying_buoyancy / 1e3:8.1f}  F_M "
                  f"{f.mass_force / 1e3:8.1f}  F_D {f.drag / 1e3:8.1f}  F_hyd {f.hydrodynamic / 1e3:8.1f} kN  "
                  f"slack sling {'avoided' if f.slack_sling_ok else 'NOT avoided'}")


def plot_lift(runs: dict, path: Path) -> None:
    """Four rows, both runs: the module's height against the wave over it, the hook load, the slack-sling margin,
    the dynamic water force with the simplified method's F_hyd (fully submerged, without AHC) as a band."""
    fig, axes = new_figure(4, row_height=2.0)
    (a_depth, a_load, a_margin, a_force) = axes[:, 0]
    lift = runs[False][0]
    for ahc, colour in ((False, PALETTE[1]), (True, PALETTE[0])):
        _, s, _ = runs[ahc]
        label = "with AHC" if ahc else "without AHC"
        a_depth.plot(s["t"], s["payload_height"], color=colour, lw=1.0, label=f"module centre, {label}")
        a_load.plot(s["t"], s["hook_load"] / 1e3, color=colour, lw=0.8, label=label)
        a_margin.plot(s["t"], s["slack_sling_margin"], color=colour, lw=0.8, label=label)
        a_force.plot(s["t"], (s["payload_hydro_force_z"] - s["payload_buoyancy"]) / 1e3, color=colour, lw=0.8,
                     label=label)
    s = runs[False][1]
    a_depth.plot(s["t"], s["wave_elevation_at_payload"], color=REFERENCE, lw=0.8, ls="--", label="wave over the module")
    method = simplified_for(lift, 2.0 * runs[False][2]["tip_heave_std"])
    f_hyd = method["fully submerged"].hydrodynamic / 1e3
    a_force.axhspan(-f_hyd, f_hyd, color="0.85", zorder=0)
    a_margin.axhline(0.0, color=REFERENCE, lw=0.8, ls=":")
    a_depth.set_ylabel("height [m]")
    a_load.set_ylabel("hook load [kN]")
    a_margin.set_ylabel("slack-sling margin [-]")
    a_force.set_ylabel("water force - buoyancy [kN]")
    a_force.set_xlabel("time [s]")
    for ax in axes[:, 0]:
        legend_outside(ax)
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    figure_key(fig, [(Patch(color="0.85"), "DNV-RP-N103 simplified method: ±F_hyd, fully submerged, without AHC"),
                     (Line2D([], [], color=REFERENCE, ls=":"), "slack-sling criterion (margin 0)")])
    wrapped_title(fig, f"Lift of a 20 t module through the splash zone, Hs {lift.hs:g} m, Tp {lift.tp:g} s: "
                       "with and without active heave compensation", 9.0)
    save(fig, path)
