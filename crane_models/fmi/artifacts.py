"""The release artifacts of CI (``.github/workflows/fmus.yml``, ``.ci/build-artifacts``): every FMU with every
platform's kernel, validated, with reference results in the FMI cross-check layout, and their checks on the
machine that runs them.

Layout of ``out_dir``: ``<Model>.fmu``, ``manifest.json`` (sha256 per FMU), the OSP files, and
``cross-check/2.0/cs/<platform>/crane-cosim/<version>/<Model>/`` with ``<Model>.fmu``, ``<Model>_in.csv``
(the inputs at the communication points), ``<Model>_ref.csv`` (the standalone solver's outputs: DOP853 on
the same model with inputs held over each step) and ``<Model>_ref.opt`` (start, stop, step, tolerance).
The inputs are the first demo scenario of each FMU, or its inputs' start values held constant.
"""
from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from .. import __version__
from .registry import SPECS

REFERENCE_RTOL = 1e-10  # tolerances of the standalone solver that computes _ref.csv (runs.run_standalone)
# An FMU agrees with its reference when every output stays within 0.1 % of its range (max_relative_deviation):
# the bound of tests/test_fmu_knuckle_boom.py and tests/test_engines.py for FMU against standalone solver.
AGREEMENT = 1e-3
CROSS_CHECK_PLATFORM = "linux64"  # where the references are computed and first checked


def reference_scenario(fmu: str):
    """The FMU's first demo scenario, or one holding the inputs at their start values for the spec's
    default experiment."""
    from ..models import collect
    from ..simulation.scenario import Scenario

    for make in collect("scenarios", "SCENARIOS").values():
        scenario = make()
        if scenario.fmu == fmu:
            return scenario
    spec = SPECS[fmu]()
    starts = [float(v.start) for v in spec.inputs]
    return Scenario(name=f"{fmu}_at_rest", fmu=fmu, stop_time=spec.stop_time,
                    input_names=[v.name for v in spec.inputs], signals=lambda t: starts)


def _write_csv(path: Path, columns: dict) -> None:
    names = list(columns)
    rows = np.column_stack([np.asarray(columns[n], dtype=float) for n in names])
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[repr(float(x)) for x in row] for row in rows])


def write_reference_results(fmu: str, fmu_path: Path, folder: Path) -> Path:
    """``<Model>_in.csv``, ``_ref.csv``, ``_ref.opt`` and a copy of the FMU in ``folder``."""
    from ..simulation.runs import communication_grid, run_standalone

    spec = SPECS[fmu]()
    scenario = reference_scenario(fmu)
    step = spec.step_size
    folder.mkdir(parents=True, exist_ok=True)
    times = communication_grid(scenario.stop_time, step)
    inputs = np.array([scenario.inputs_at(t) for t in times]).reshape(len(times), -1)
    _write_csv(folder / f"{fmu}_in.csv", {"time": times, **{n: inputs[:, i] for i, n in
                                                            enumerate(scenario.input_names)}})
    reference = run_standalone(scenario, step, rtol=REFERENCE_RTOL, atol=REFERENCE_RTOL)
    _write_csv(folder / f"{fmu}_ref.csv", {"time": times, **{v.name: reference[v.name] for v in spec.outputs
                                                             if v.kind == "real"}})
    (folder / f"{fmu}_ref.opt").write_text(f"StartTime,    0.0\nStopTime,     {scenario.stop_time!r}\n"
                                           f"StepSize,     {step!r}\nRelTol,       {REFERENCE_RTOL!r}\n")
    shutil.copyfile(fmu_path, folder / fmu_path.name)
    return folder


def cross_check_folder(out_dir: Path, fmu: str) -> Path:
    return Path(out_dir) / "cross-check" / "2.0" / "cs" / CROSS_CHECK_PLATFORM / "crane-cosim" / __version__ / fmu


def build_artifacts(out_dir: Path, platforms="all", references: bool = True) -> list:
    """Every FMU with the kernels of ``platforms`` into ``out_dir``, each validated by fmpy (ValueError listing
    the problems), and with ``references`` the cross-check folders. Returns the FMU paths."""
    from fmpy.validation import validate_fmu

    from .build import build_all

    paths = build_all(out_dir, 2, platforms=platforms)
    problems = {p.name: validate_fmu(str(p)) for p in paths}
    problems = {k: v for k, v in problems.items() if v}
    if problems:
        raise ValueError(f"FMUs failing fmpy validation: {problems}")
    if references:
        for path in paths:
            write_reference_results(path.stem, path, cross_check_folder(out_dir, path.stem))
    return paths


def _read_csv(path: Path) -> dict:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array(rows[1:], dtype=float)
    return {name: data[:, i] for i, name in enumerate(rows[0])}


def loaded_kernel(fmu_path: Path, scratch: Path) -> str:
    """File name of the kernel that the FMU's own package loads on this machine ("None": numpy only)."""
    with zipfile.ZipFile(fmu_path) as z:
        z.extractall(scratch)
    bundle = next((Path(scratch) / "resources").glob("*_crane_models"))
    code = (f"import sys; sys.path.insert(0, {str(bundle.parent)!r}); from {bundle.name}.core import native; "
            "lib = native.library(); print(lib._name if lib else None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{fmu_path.name}: importing its package failed:\n{done.stderr[-2000:]}")
    return Path(done.stdout.strip()).name


def check_artifacts(out_dir: Path) -> list:
    """Checks on the machine that runs them: each FMU has the sha256 of the manifest, loads the kernel of
    this platform (when the FMUs carry one), and -- where the FMU has an FMI binary for this platform --
    reproduces its reference results to :data:`AGREEMENT` under fmpy. Returns the problems found."""
    from ..core.native.system import host_platform
    from ..simulation.runs import max_relative_deviation, output_units, run_fmu

    out_dir = Path(out_dir)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    host, problems = host_platform(), []
    for entry in manifest["fmus"]:
        path = out_dir / entry["file"]
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
            problems.append(f"{path.name}: sha256 differs from the manifest's")
        with tempfile.TemporaryDirectory() as scratch:
            kernel = loaded_kernel(path, Path(scratch))
        expected = manifest.get("kernels", {}).get(host)
        if expected and kernel != expected:
            problems.append(f"{path.name}: loads {kernel} on {host}, not {expected}")
        from .platforms import PLATFORMS

        with zipfile.ZipFile(path) as z:
            runs_here = host in PLATFORMS and any(n.startswith(f"binaries/{PLATFORMS[host].fmi2_folder}/")
                                                  for n in z.namelist())
        folder = cross_check_folder(out_dir, entry["name"])
        if runs_here and folder.is_dir():
            scenario = reference_scenario(entry["name"])
            step = SPECS[entry["name"]]().step_size
            result, _ = run_fmu(path, scenario, step)
            reference = _read_csv(folder / f"{entry['name']}_ref.csv")
            names = [n for n in reference if n != "time"]
            deviation = max_relative_deviation(result, reference, names, output_units(entry["name"]))
            worst = max(deviation, key=deviation.get)
            if deviation[worst] > AGREEMENT:
                problems.append(f"{path.name}: {worst} deviates {deviation[worst]:.3g} of its range from _ref.csv")
    return problems
