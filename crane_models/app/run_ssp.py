"""``crane-cosim run FILE.ssp``: an SSP system package run by libcosim (its SSP loader: components, connections,
parameter sets, the step of the OSP annotation), with start values and input signals addressed as
``component.variable``; every output of every component recorded as CSV with units and a sidecar naming each
component's model and parameter values (what ``crane-cosim view`` needs).

libcosim's algorithm is the fixed-step Jacobi exchange: the run must be a whole number of steps.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np

from .fmus import CliError, MissingTool

__all__ = ["read_package", "run_ssp_command", "libcosim_unavailable"]

_NS = {"ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
       "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
       "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
       "osp": "http://opensimulationplatform.com/SSP/OSPAnnotations"}
_TYPED = {"Real": float, "Integer": int, "Boolean": lambda text: text in ("true", "1")}


def libcosim_unavailable() -> str | None:
    """Why libcosim cannot run here (an SSP package, the demo's ship pairs): one line, or None when it can.
    libcosimpy is an extra (pyproject.toml): its wheels exist for Linux x86-64 and Windows x64 (CPython >= 3.11)
    only."""
    try:
        import libcosimpy.CosimExecution  # noqa: F401 -- loads libcosim's C library
    except ImportError:
        return ('libcosimpy is not installed (pip install "crane-cosim[libcosim]"; it has wheels for Linux x86-64 '
                "and Windows x64, CPython >= 3.11, only)")
    except OSError as exc:  # installed, but its C library does not load here (e.g. an older glibc)
        return f"libcosimpy's C library does not load: {exc}"
    return None


def _parameter_values(archive: zipfile.ZipFile, component: ET.Element) -> dict:
    """The values of the component's parameter bindings (SSV files in the package or inline sets)."""
    values = {}
    for binding in component.iterfind("ssd:ParameterBindings/ssd:ParameterBinding", _NS):
        source = binding.get("source")
        root = (ET.fromstring(archive.read(source)) if source
                else binding.find("ssd:ParameterValues/ssv:ParameterSet", _NS))
        for p in root.iterfind("ssv:Parameters/ssv:Parameter", _NS) if root is not None else ():
            typed = p[0]
            kind = typed.tag.split("}")[1]
            if kind in _TYPED:
                values[p.get("name")] = _TYPED[kind](typed.get("value"))
    return values


def _drop_names_a_component_lacks(path: Path, components: dict) -> None:
    """A set bound to several components (a system-wide set) holds names some of them lack: each component keeps
    the names it has, as SSP lets a tool skip what it cannot apply (libcosim and Ecos do, with a warning). A name no
    component has is a mistake in the package (a typo would otherwise change nothing): one line."""
    for comp in components.values():
        unknown = [n for n in comp["parameters"] if n not in comp["variables"]]
        nowhere = [n for n in unknown if not any(n in other["variables"] for other in components.values())]
        if nowhere:
            raise CliError(f"{path}: parameter {nowhere[0]} of a parameter set is a variable of no component "
                           f"({', '.join(components)})")
        for n in unknown:
            del comp["parameters"][n]


def read_package(path: Path, unzip_dir: Path) -> dict:
    """What a run needs from an ``.ssp``: ``name``, ``experiment`` (start, stop, step or None), ``components``
    ``{name: {"fmu": extracted file, "variables": {name: fmpy variable}, "model": modelName, "parameters":
    {name: value}}}``. One clear error for a file that is not such a package."""
    from fmpy import read_model_description

    try:
        with zipfile.ZipFile(path) as archive:
            root = ET.fromstring(archive.read("SystemStructure.ssd"))
            components = {}
            for comp in root.iterfind("ssd:System/ssd:Elements/ssd:Component", _NS):
                fmu = Path(unzip_dir) / f"{comp.get('name')}.fmu"
                fmu.write_bytes(archive.read(comp.get("source")))
                md = read_model_description(str(fmu), validate=False)
                components[comp.get("name")] = {
                    "fmu": fmu, "model": md.modelName, "parameters": _parameter_values(archive, comp),
                    "variables": {v.name: v for v in md.modelVariables}}
    except (OSError, zipfile.BadZipFile, KeyError, ET.ParseError, ValueError) as exc:
        raise CliError(f"{path}: not a readable SSP package ({exc})") from None
    if not components:
        raise CliError(f"{path}: the system has no FMU component")
    _drop_names_a_component_lacks(path, components)
    experiment = root.find("ssd:DefaultExperiment", _NS)
    step = root.find(".//osp:FixedStepAlgorithm", _NS)
    return {"name": root.get("name"), "components": components,
            "experiment": (float(experiment.get("startTime", 0.0)) if experiment is not None else 0.0,
                           float(experiment.get("stopTime")) if experiment is not None and experiment.get("stopTime")
                           else None,
                           float(step.get("baseStepSize")) if step is not None else None)}


def _grid(package: dict, args: argparse.Namespace) -> tuple:
    start, stop, step = package["experiment"]
    if args.start is not None and args.start != start:
        raise CliError(f"--start: an SSP run starts at the package's start time ({start:g} s)")
    stop = args.stop if args.stop is not None else stop if stop is not None else 10.0
    if not math.isfinite(stop) or stop <= start:
        raise CliError(f"--stop {stop:g}: must be a finite time after the package's start, {start:g} s")
    step = args.step if args.step is not None else step if step is not None else 0.01
    if not (math.isfinite(step) and 1e-6 <= step <= stop - start):
        raise CliError(f"--step {step:g} s must lie between 1e-06 s and the run's length, {stop - start:g} s")
    n = round((stop - start) / step)
    if abs(n * step - (stop - start)) > 1e-9 * max(1.0, stop - start):
        raise CliError(f"--stop {stop:g} s: an SSP run is a whole number of steps of {step:g} s "
                       f"(libcosim's fixed step); try --stop {start + n * step:g}")
    return start, step, int(n)


def _outputs(package: dict) -> list:
    return [(c, v) for c, comp in package["components"].items() for v in comp["variables"].values()
            if v.causality == "output" and v.type in ("Real", "Integer", "Boolean")]


def simulate_package(path: Path, package: dict, start_values: dict, input_names: list, inputs_at, start: float,
                     step: float, n: int) -> dict:
    """libcosim runs the package: ``start_values`` ``{"comp.var": value}`` before initialization, the inputs
    ``input_names`` at ``inputs_at(t)`` before each step; every output at every communication point."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimObserver import CosimObserver

    from ..simulation.runs import FmuRunError

    recorded = {"Real": CosimVariableType.REAL, "Integer": CosimVariableType.INTEGER}  # the types of its series

    log_output_level(CosimLogLevel.ERROR)
    execution = CosimExecution.from_ssp_file(str(path), step_size=int(round(step * 1e9)))
    observer, manipulator = CosimObserver.create_last_value(), CosimManipulator.create_override()
    execution.add_observer(observer)
    execution.add_manipulator(manipulator)
    comps = package["components"]
    index = {c: execution.slave_index_from_instance_name(c) for c in comps}

    def ref(name: str):
        c, v = name.split(".", 1)
        return index[c], comps[c]["variables"][v]

    setters = {"Real": execution.real_initial_value, "Integer": execution.integer_initial_value,
               "Boolean": execution.boolean_initial_value}
    for name, value in start_values.items():
        i, v = ref(name)
        if not setters[v.type](i, v.valueReference, value):
            raise CliError(f"--set {name}: libcosim refused the value {value!r}")
    outputs = _outputs(package)
    getters = {"Real": observer.last_real_values, "Integer": observer.last_integer_values,
               "Boolean": observer.last_boolean_values}
    reads = [(index[c], v.type, v.valueReference) for c, v in outputs]
    # The row at t = start: libcosim initializes inside the first step and its last-value observer then holds the
    # step's end; its time-series observer keeps the values at initialization (step 0), for Real and Integer only.
    first = CosimObserver.create_time_series()
    execution.add_observer(first)
    series = [(i, kind, vr) for i, kind, vr in reads if kind in recorded]
    for i, kind, vr in series:
        first.start_time_series(i, vr, recorded[kind])
    rows, times = [], start + step * np.arange(0, n + 1)
    for k in range(n):
        for name, value in zip(input_names, inputs_at(start + k * step)):
            i, v = ref(name)
            manipulator.slave_real_values(i, [v.valueReference], [value])
        if not execution.step(1):  # an FMU refused the step: the simulation failed (exit code 1)
            raise FmuRunError(f"libcosim could not take the step from t = {start + k * step:g} s of {path.name} "
                              "(the FMUs' messages, if any, are above)", [])
        rows.append([float(getters[kind](i, [vr])[0]) for i, kind, vr in reads])
        if k == 0:
            rows.insert(0, _initial_row(first, reads, rows[0]))
            for i, kind, vr in series:
                first.stop_time_series(i, vr, recorded[kind])
    execution.stop()
    data = np.array(rows, dtype=float).reshape(n + 1, len(reads))
    return {"time": times, **{f"{c}.{v.name}": data[:, j] for j, (c, v) in enumerate(outputs)}}


def _initial_row(observer, reads: list, after_first: list) -> list:
    """The outputs at t = start from the time-series ``observer`` (its sample of step 0, initialization); a Boolean,
    which libcosim does not record as a series, repeats its value after the first step (``after_first``)."""
    row = []
    for (i, kind, vr), later in zip(reads, after_first):
        if kind not in ("Real", "Integer"):
            row.append(later)
            continue
        # two samples asked (steps 0 and 1): libcosimpy 0.0.6 trims the answer by counting step numbers equal to 0,
        # step 0 among them, so that one sample asked gives none
        _, steps, values = (observer.time_series_real_samples if kind == "Real"
                            else observer.time_series_integer_samples)(i, vr, 0, 2)
        row.append(float(values[steps.index(0)]) if 0 in steps else later)
    return row


def check_declared_ranges(values: dict, variables: dict) -> None:
    """Each of ``values`` (``{component.variable: value}``) within its variable's declared min/max: checked here,
    before libcosim sees it -- libcosim 0.11 ends the whole process (std::terminate) when an FMU refuses its
    initialization, where an FMU run would report the FMU's own message."""
    for name, value in values.items():
        v = variables[name]
        low, high = (float(x) if x not in (None, "") else None for x in (v.min, v.max))
        if (low is not None and value < low) or (high is not None and value > high):
            unit = f" {v.unit}" if getattr(v, "unit", None) else ""
            bounds = ", ".join("-inf" if b is None and i == 0 else "inf" if b is None else f"{b:g}"
                               for i, b in enumerate((low, high)))
            raise CliError(f"--set {name}={value:g}: outside the allowed range [{bounds}]{unit}")


def initialize_each(package: dict, start_values: dict) -> None:
    """Each component initialized once in fmpy with the package's parameter values and the ``--set`` values for it:
    libcosim 0.11 ends the whole process (std::terminate) when an FMU refuses its initialization, so the FMU's own
    refusal is had here first and ends the run as an FMU run's does (FmuRunError: its message, exit code 1)."""
    from ..fmi.instance import FmuInstance
    from ..simulation.runs import FmuRunError

    for name, comp in package["components"].items():
        values = {**comp["parameters"], **{n.split(".", 1)[1]: v for n, v in start_values.items()
                                          if n.split(".", 1)[0] == name}}
        messages: list = []
        inst = FmuInstance(comp["fmu"], name, logger=lambda status, category, text: messages.append(
            (status, category, text)))
        try:
            inst.enter_initialization(values)
            inst.fmu.exitInitializationMode()
            inst.fmu.terminate()
        except Exception:  # noqa: BLE001 -- the FMU said why (messages); fmpy's exception only that it did
            raise FmuRunError(f"{name}: initialization", messages) from None
        finally:
            inst.fmu.freeInstance()


def run_ssp_command(args: argparse.Namespace) -> int:
    from .results import file_sha256, write_csv, write_metadata
    from .run_inputs import check_output_files, input_signals, parse_assignment, read_input_table

    path = Path(args.fmu)
    if not path.is_file():
        raise CliError(f"SSP file {path} not found")
    reason = libcosim_unavailable()
    if reason:  # before anything is read or written: the run needs libcosim (an extra)
        raise MissingTool(f"{path}: an SSP package runs in libcosim, and {reason}")
    check_output_files(args)
    table = read_input_table(args.input) if args.input else None  # before the package is unpacked
    with tempfile.TemporaryDirectory(prefix="crane_cosim_ssp_") as tmp:
        package = read_package(path, Path(tmp))
        if args.view:
            from .view import check_drawable

            check_drawable([comp["model"] for comp in package["components"].values()])
        variables = {f"{c}.{n}": v for c, comp in package["components"].items() for n, v in comp["variables"].items()}
        start_values = dict(parse_assignment(a, variables) for a in args.set)
        check_declared_ranges(start_values, variables)
        initialize_each(package, start_values)
        names, inputs_at = input_signals(args.input, variables, table) if args.input else ([], lambda t: [])
        start, step, n = _grid(package, args)
        outputs = [f"{c}.{v.name}" for c, v in _outputs(package)]
        if args.outputs:
            chosen = [s.strip() for s in args.outputs.split(",")]
            unknown = [s for s in chosen if s not in outputs]
            if unknown:
                raise CliError(f"--outputs: {', '.join(unknown)} not among the package's outputs (component.variable)")
            outputs = chosen
        result = simulate_package(path, package, start_values, names, inputs_at, start, step, n)
    units = {n: variables[n].unit or "" for n in outputs}
    write_csv(args.out, result, ["time"] + outputs, units)
    components = {}
    for c, comp in package["components"].items():
        parameters = dict(comp["parameters"])
        parameters.update({k.split(".", 1)[1]: v for k, v in start_values.items() if k.startswith(f"{c}.")})
        components[c] = {"model": comp["model"], "parameters": parameters}
    write_metadata(args.out, None,
                   ssp={"file": str(path.resolve()), "sha256": file_sha256(path), "system": package["name"]},
                   model=package["name"], components=components, start_time=start, stop_time=start + n * step,
                   step=step, start_values=start_values, input_file=str(args.input) if args.input else None,
                   engine="libcosim (SSP)",
                   columns=[{"name": n, "unit": units.get(n, "s")} for n in ["time"] + outputs])
    if not args.quiet:
        print(f"{n} steps of {step:g} s in libcosim, {len(package['components'])} components -> {args.out}",
              file=sys.stdout)
    if args.plot:
        from .plots import plot_outputs

        png = plot_outputs(args.out.with_suffix(".png"), f"{package['name']}: {path.name}", result, outputs, units)
        if not args.quiet:
            print(f"plot -> {png}")
    return 0
