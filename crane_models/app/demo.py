"""``crane-cosim demo``: build the FMUs, run every demo scenario under fmpy and with the standalone reference
solver, compare, write CSV (with units and a metadata sidecar), PNG and ``summary.json``, print a table."""
from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from ..models import collect
from ..simulation.runs import max_relative_deviation, output_units, run_fmu, run_standalone
from ..integration.scenario import check_step
from .fmus import CliError, writable_dir
from .plots import plot_scenario, plot_side_by_side
from .progress import progress_bar
from .results import file_sha256, parameter_values, write_csv, write_metadata

__all__ = ["add_commands", "run_demo", "write_csv", "plot_scenario", "SCENARIOS", "select_scenarios"]

# Every model folder's demo scenarios (models/<crane>/scenarios.py), in the models' order.
SCENARIOS = collect("scenarios", "SCENARIOS")


def add_commands(sub) -> None:
    d = sub.add_parser("demo", help="build the FMUs, run the demo scenarios under fmpy and standalone, plot",
                       description="Run every demo scenario (or those named by --scenario) as an fmpy "
                                   "co-simulation and with the standalone reference solver; write CSV, PNG "
                                   "and summary.json and print a summary table.")
    d.add_argument("--out", type=Path, default=Path("crane-cosim-out"), help="output folder (default: %(default)s)")
    d.add_argument("--step", type=float, default=0.01,
                   help="communication step [s] (default: %(default)s); the last step is shortened when it "
                        "does not divide the scenario's length")
    d.add_argument("--scenario", action="append", metavar="NAME", choices=list(SCENARIOS),
                   help=f"run only this scenario (repeatable): {', '.join(SCENARIOS)}")
    d.add_argument("--fmus", type=Path, help="use the FMUs in this folder (build only those missing) instead "
                                             "of building them into OUT/fmus")
    d.add_argument("--no-reference", action="store_true", help="skip the standalone reference solver")
    d.add_argument("--quiet", action="store_true", help="no progress, no build messages: only the final table")
    d.add_argument("--no-ship", action="store_true",
                   help="skip the ship co-simulation pairs (Vessel + crane FMUs in libcosim from their OSP system "
                        "structures against the monolithic model), which the full demo runs")
    d.set_defaults(func=demo_command)


def select_scenarios(names: list | None) -> dict:
    """The scenarios to run, built: ``{name: Scenario}``."""
    return {n: SCENARIOS[n]() for n in (names or SCENARIOS)}


def check_demo_step(step: float, scenarios: dict) -> None:
    """The step must suit every scenario run (:func:`integration.scenario.check_step`)."""
    for name, sc in scenarios.items():
        try:
            check_step(step, sc.stop_time, "--step")
        except ValueError as exc:
            raise CliError(f"{exc} [scenario {name}]") from None


def demo_command(args: argparse.Namespace) -> int:
    scenarios = select_scenarios(args.scenario)
    check_demo_step(args.step, scenarios)
    ship = not (args.scenario or args.no_ship or args.no_reference)
    writable_dir(args.out, "--out", create=False)
    for name in list(scenarios) + (["sea_lift", "ship_cosimulation"] if ship else []):  # before anything is built or run
        writable_dir(args.out / name, "--out", create=False)
    out = writable_dir(args.out, "--out")
    fmu_dir = writable_dir(args.fmus or out / "fmus", "--fmus")
    run_demo(out, args.step, fmu_dir, names=list(scenarios), reference=not args.no_reference,
             quiet=args.quiet, rebuild=args.fmus is None, ship=ship)
    return 0


def _ensure_fmus(fmu_dir: Path, scenarios: dict, rebuild: bool, quiet: bool) -> None:
    from ..models.build import build_all, build_fmu

    if rebuild:
        if not quiet:
            print(f"building FMUs into {fmu_dir} ...", flush=True)
        build_all(fmu_dir)
        return
    for fmu in sorted({sc.fmu for sc in scenarios.values()}):
        if not (fmu_dir / f"{fmu}.fmu").is_file():
            if not quiet:
                print(f"building {fmu} into {fmu_dir} ...", flush=True)
            build_fmu(fmu, fmu_dir)


def clear_scenario_folder(sc_dir: Path) -> None:
    """A scenario's folder holds one run: what an earlier run of it wrote there (its result CSVs and sidecars, its
    figures) is removed before the new results are written, so that no file of another step or run stays beside
    them (a ``standalone_result.csv`` of an earlier step beside a new ``fmu_result.csv`` run ``--no-reference``)."""
    if not sc_dir.is_dir():
        return
    for pattern in ("*_result.csv", "*_result.csv.json", "*.png", "*.gif"):
        for path in sc_dir.glob(pattern):
            if path.is_file():
                path.unlink()


def run_scenario(sc, step: float, fmu_dir: Path, out_dir: Path, reference: bool, quiet: bool) -> dict:
    """One scenario: FMU run, reference run, CSV + sidecars, PNGs; returns its summary row. Its folder is created
    (or an earlier run's files in it removed) only when the runs are done: an interrupted run leaves no empty folder
    and the earlier results as they were."""
    from fmpy import read_model_description

    fmu_path = fmu_dir / f"{sc.fmu}.fmu"
    sc_dir = writable_dir(out_dir / sc.name, "--out", create=False)
    units = output_units(sc.fmu)
    if not quiet:
        print(f"{sc.name}: {sc.fmu}.fmu under fmpy, {sc.stop_time:g} s at step {step:g} s"
              + (", then the standalone reference solver" if reference else ""), flush=True)
    with progress_bar(sc.stop_time, f"{sc.name} FMU", disable=quiet) as bar:
        result, wall = run_fmu(fmu_path, sc, step, warm_up=True, on_step=bar.update_to)
    names = [n for n in result.dtype.names if n != "time" and n in units]
    meta = dict(scenario=sc.name, model=sc.fmu, step=step, stop_time=sc.stop_time, start_values=dict(sc.start_values),
                parameters=parameter_values(read_model_description(str(fmu_path)), sc.start_values),
                inputs=list(sc.input_names))
    row = {"scenario": sc.name, "fmu": sc.fmu, "fmu_sha256": file_sha256(fmu_path), "fmu_dir": str(fmu_dir.resolve()),
           "step": step, "stop_time": sc.stop_time, "rtf_fmu": sc.stop_time / wall, "max_deviation": None,
           "worst_output": None, "rtf_standalone": None}
    ref = None
    if reference:
        with progress_bar(sc.stop_time, f"{sc.name} reference", disable=quiet) as bar:
            t0 = time.perf_counter()
            ref = run_standalone(sc, step, on_step=bar.update_to)
            row["rtf_standalone"] = sc.stop_time / (time.perf_counter() - t0)
        dev = max_relative_deviation(result, ref, names, units)
        row["worst_output"] = max(dev, key=dev.get)
        row["max_deviation"] = dev[row["worst_output"]]
    clear_scenario_folder(sc_dir)
    files = [write_csv(sc_dir / "fmu_result.csv", result, ["time"] + names, units)]
    write_metadata(files[0], fmu_path, solver="FMU under fmpy (co_simulate)", **meta)
    if ref is not None:
        files.append(write_csv(sc_dir / "standalone_result.csv", ref, ["time"] + names, units))
        write_metadata(files[1], None, solver="standalone reference (solve_ivp DOP853, rtol = atol = 1e-10)", **meta)
    pngs = plot_scenario(sc, result, ref, sc_dir, units)
    if sc.start_values.get("payload_enabled"):
        pngs.append(payload_comparison(sc, result, lambda s: run_fmu(fmu_path, s, step)[0], sc_dir, units))
    if sc.name == ANIMATED_SCENARIO:  # the lift at sea as a short animation (README)
        from .view import write_gif

        pngs.append(write_gif(files[0], sc_dir / "lift_at_sea.gif"))
    row["files"] = [str(p) for p in files + pngs]
    return row


ANIMATED_SCENARIO = "knuckle_boom_lift_at_sea"  # the demo writes its lift_at_sea.gif (crane-cosim view's geometry)


# The panels of the figure with and without the payload (issue 14): what the load changes for the crane.
PAYLOAD_PANELS = [
    ("Hook load", [("hook_load", "T")]),
    ("Swing angles", [("swing_radial", "radial"), ("swing_tangential", "tangential")]),
    ("Joint 1 vertical reaction", [("joint1_force_z", "f_z")]),
    ("Joint 1 moments", [("joint1_moment_x", "n_x"), ("joint1_moment_y", "n_y")]),
]


def payload_comparison(sc, result, run, out_dir: Path, units: dict) -> Path:
    """``with_without_payload.png``: the scenario's ``result`` beside the same inputs with ``payload_enabled``
    false (``run(scenario) -> result``; the winch input is then ignored, hook load and swing are 0)."""
    without = run(dataclasses.replace(sc, start_values={**sc.start_values, "payload_enabled": False}))
    title = f"{sc.name}: hook load, swing and Joint 1 reactions with and without the payload"
    path, _ = plot_side_by_side(Path(out_dir) / "with_without_payload.png", title, PAYLOAD_PANELS, units,
                                [("with payload", result), ("without payload", without)],
                                note="same inputs; without the payload the winch input is ignored")
    return path


def ship_rows(out_dir: Path, fmu_dir: Path, step: float, quiet: bool) -> list:
    """The ship co-simulation pairs (:func:`app.ship_demo.run_ship_demo`) as demo rows; none, with a note,
    when libcosimpy is missing or the OSP system structures were not built."""
    from .run_ssp import libcosim_unavailable

    reason = libcosim_unavailable()
    if reason:
        print(f"ship co-simulation pairs skipped (engine: libcosim): {reason}")
        return []
    from .ship_demo import PAIR_RUNS, run_ship_demo

    missing = [s for s in PAIR_RUNS if not (fmu_dir / s).is_file()]
    if missing:
        print(f"ship co-simulation pairs skipped: {', '.join(missing)} not in {fmu_dir} (crane-cosim build writes it)")
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, h, dev, worst, rtf, rtf_ref in run_ship_demo(out_dir, fmu_dir, step):
        rows.append({"scenario": name, "step": h, "max_deviation": dev, "worst_output": worst, "rtf_fmu": rtf,
                     "rtf_standalone": rtf_ref, "files": sorted(str(p) for p in out_dir.glob("*.png"))})
    return rows + ecco_rows(fmu_dir, step)


def sea_rows(out_dir: Path, fmu_dir: Path, step: float) -> list:
    """The lift on the WaveVessel in Hs 2.5 m, Tp 8 s (:func:`app.sea_demo.run_sea_demo`, fmpy: no engine needed) as
    a demo row; none, with a note, when its FMUs were not built."""
    from ..models.sea_systems import SEA_SYSTEMS
    from .sea_demo import SYSTEM, run_sea_demo

    missing = sorted(f"{fmu}.fmu" for fmu, _ in SEA_SYSTEMS[SYSTEM].values() if not (fmu_dir / f"{fmu}.fmu").is_file())
    if missing:
        print(f"lift at sea skipped: {', '.join(missing)} not in {fmu_dir} (crane-cosim build writes them)")
        return []
    return [{"scenario": name, "step": h, "max_deviation": dev, "worst_output": worst, "rtf_fmu": rtf,
             "rtf_standalone": rtf_ref, "files": sorted(str(p) for p in Path(out_dir).glob("*.png"))}
            for name, h, dev, worst, rtf, rtf_ref in run_sea_demo(out_dir, fmu_dir, step)]


def ecco_rows(fmu_dir: Path, step: float) -> list:
    """The pairs' ECCO variants (:func:`app.ship_ecco.run_ecco_rows`, set-points on the grid ``step``) as demo rows,
    their step the median ECCO chose; none, with a note, when the ECCO files were not built."""
    from ..fmi.osp_ecco import ecco_file_name
    from .ship_demo import DEFAULT_RUNS
    from .ship_ecco import run_ecco_rows

    missing = [ecco_file_name(s) for s in DEFAULT_RUNS if not (fmu_dir / ecco_file_name(s)).is_file()]
    if missing:
        print(f"ship ECCO runs skipped: {', '.join(missing)} not in {fmu_dir} (crane-cosim build writes it)")
        return []
    return [{"scenario": name, "step": h, "max_deviation": dev, "worst_output": worst, "rtf_fmu": rtf,
             "rtf_standalone": rtf_ref, "files": []}
            for name, h, dev, worst, rtf, rtf_ref in run_ecco_rows(fmu_dir, step)]


def print_table(rows: list) -> None:
    width = max([26] + [len(r["scenario"]) for r in rows])
    header = (f"{'scenario':<{width}} {'step [s]':>9}  {'max deviation FMU vs standalone':<50} {'RTF FMU':>9} "
              f"{'RTF standalone':>15}")
    print(header)
    print("-" * len(header))
    for r in rows:
        if r["max_deviation"] is None:
            deviation, rtf_ref = "(no reference run)", "-"
        else:
            deviation = f"{100 * r['max_deviation']:.2e} % of range ({r['worst_output']})"
            rtf_ref = f"{r['rtf_standalone']:.2f}"
        print(f"{r['scenario']:<{width}} {r['step']:>9g}  {deviation:<50} {r['rtf_fmu']:>9.2f} {rtf_ref:>15}")


def run_demo(out_dir: Path, step: float = 0.01, fmu_dir: Path | None = None, names: list | None = None,
             reference: bool = True, quiet: bool = False, rebuild: bool | None = None, ship: bool = False) -> list:
    """Run the demo scenarios ``names`` (default all) and write their results, ``summary.json`` and the
    table. FMUs: built into ``out_dir/fmus`` (``rebuild``, the default without ``fmu_dir``), or taken from
    ``fmu_dir`` (missing ones built there). ``ship``: also the split vessel-crane pairs in libcosim
    (:func:`ship_rows`). Raises :class:`CliError` for a step a scenario cannot use."""
    out_dir = Path(out_dir)
    scenarios = select_scenarios(names)
    check_demo_step(step, scenarios)
    rebuild = fmu_dir is None if rebuild is None else rebuild
    fmu_dir = Path(fmu_dir) if fmu_dir else out_dir / "fmus"
    _ensure_fmus(fmu_dir, scenarios, rebuild, quiet)
    rows = [run_scenario(sc, step, fmu_dir, out_dir, reference, quiet) for sc in scenarios.values()]
    if ship:
        rows += sea_rows(out_dir / "sea_lift", fmu_dir, step)
        rows += ship_rows(out_dir / "ship_cosimulation", fmu_dir, step, quiet)
    write_summary(out_dir / "summary.json", rows)
    if not quiet:
        print()
    print_table(rows)  # --quiet too: the table is the demo's answer
    print(f"\nresults (CSV with units, metadata .json, PNG, summary.json) in {out_dir.resolve()}")
    return rows


def write_summary(path: Path, rows: list) -> dict:
    """``summary.json``: one row per scenario ever run into the folder, each with its own step and FMU. The rows of
    this run replace those of the same scenarios in an existing summary (in place), the others stay: a run of one
    scenario (``--scenario``, another ``--step``) updates the full demo's summary instead of replacing it."""
    kept = []
    try:
        kept = json.loads(path.read_text()).get("scenarios", [])
    except (OSError, ValueError, AttributeError):  # none yet, or not one of ours: written anew
        pass
    new = {r["scenario"]: r for r in rows}
    merged = [new.pop(r.get("scenario"), r) for r in kept if isinstance(r, dict)] + list(new.values())
    summary = {"scenarios": merged,
               "deviation": "max |FMU - reference| / range(reference) over the run, per output; worst output"}
    path.write_text(json.dumps(summary, indent=2))
    return summary
