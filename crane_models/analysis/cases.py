"""Sweep case files: which FMU, which input signals, which parameters vary, over which sea states.

A case file is YAML read with ``yaml.safe_load`` (plain data only: no tags, no code). Its schema, in SI
units (angles in rad), is in ``docs/fatigue-and-sweeps.md``; in short::

    fmu: KnuckleBoomCrane            # a name of models.registry.SPECS
    duration: 0.5                    # [s]
    step: 0.01                       # communication step [s]
    scenario: knuckle_boom_hoisting  # optional: a name of the models' SCENARIOS (signals + start values)
    signals: {q1_ref: {kind: sine, amplitude: 0.2, period: 4.0}}   # optional, per input, over the scenario
    start_values: {q2_0: 0.6}        # fixed FMU parameters
    parameters: {kp1: [1.0e6, 4.0e6], signals.q1_ref.amplitude: {range: [0.1, 0.3], num: 3}}   # grid
    latin_hypercube: {samples: 8, seed: 1, parameters: {kd1: [1.0e6, 8.0e6]}}                 # joint samples
    sea_states: [{amplitude: 0.05, period: 8.0, heading: 0.785}]                              # moving base
    sea_states: {sea_hs: [1.5, 2.5, 3.5], sea_tp: [6.0, 8.0], sea_heading: 3.1416}     # or a WaveVessel's sea grid
    fatigue: {outputs: [joint1_force_z], slopes: [3, 4, 5], reference_cycles: 2.0e6}
    record: [q1, joint1_force_z]     # series kept per case (default: every output)

The cases are the product grid x hypercube samples x sea states. Each :class:`Case` is plain data (sent to a
worker as is); its signals are built where it runs, from :mod:`.signals`.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..models.registry import SPECS
from ..integration.scenario import check_step
from .sea_states import expand_sea_states, is_wave_sea_state, sea_parameter_units, sea_start_values
from .signals import SEA_STATE_FIELDS, case_signals, check_sea_state, check_signal

__all__ = ["Case", "CaseSet", "load_case_file", "parse_cases", "varied_unit"]

_KEYS = {"name", "fmu", "fmu_file", "duration", "step", "scenario", "signals", "start_values", "parameters",
         "latin_hypercube", "sea_states", "fatigue", "record"}


@dataclass(frozen=True)
class Case:
    """One FMU run: parameter values, signal definitions and an optional sea state (all plain data)."""

    index: int
    fmu: str
    duration: float
    step: float
    start_values: dict
    scenario: str | None = None
    signals: dict = field(default_factory=dict)
    sea_state: dict | None = None
    varied: dict = field(default_factory=dict)  # the swept values by their case-file names

    @property
    def case_id(self) -> str:
        """A digest of everything that determines the run: the same case in a re-run gets the same id."""
        text = json.dumps([self.fmu, self.duration, self.step, self.start_values, self.scenario, self.signals,
                           self.sea_state], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_scenario(self):
        """The case as a :class:`integration.scenario.Scenario` (what ``simulation.runs.run_fmu`` takes)."""
        from ..integration.scenario import Scenario

        names, signals = case_signals(self)
        return Scenario(f"case_{self.index}", self.fmu, self.duration, names, signals, dict(self.start_values))


@dataclass(frozen=True)
class CaseSet:
    name: str
    fmu: str
    fmu_file: str | None
    cases: list
    fatigue_outputs: list
    slopes: tuple
    reference_cycles: float
    record: list | None


def _yaml_loader():
    """``yaml.SafeLoader`` (plain data only) that also reads ``1e6`` and ``2.0e6`` as numbers: YAML 1.1,
    which PyYAML follows, wants a dot and a signed exponent (``1.0e+6``) and would give a string."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    number = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", number, list("-+0123456789"))
    return Loader


def load_case_file(path: Path) -> CaseSet:
    """Read and expand a YAML case file (see the module docstring); errors (``ValueError``) name the key at
    fault, or the line and column of a YAML syntax error; a missing file raises ``OSError``."""
    import yaml

    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_yaml_loader())  # noqa: S506 -- SafeLoader
    except UnicodeDecodeError as exc:
        raise ValueError(f"not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ValueError(f"{where}YAML syntax error: {getattr(exc, 'problem', None) or exc}") from None
    case_set = parse_cases(data, default_name=path.stem)
    if case_set.fmu_file is not None:
        fmu_file = Path(case_set.fmu_file)
        fmu_file = fmu_file if fmu_file.is_absolute() else path.parent / fmu_file
        _check_fmu_file(fmu_file, case_set.fmu)
        case_set = CaseSet(**{**case_set.__dict__, "fmu_file": str(fmu_file)})
    return case_set


def _check_fmu_file(fmu_file: Path, fmu: str) -> None:
    """``fmu_file`` exists and is an FMU of the model ``fmu`` (the case file's names are checked against it)."""
    from fmpy import read_model_description

    if not fmu_file.is_file():
        raise ValueError(f"fmu_file = {str(fmu_file)!r}: no such file")
    try:
        model = read_model_description(str(fmu_file), validate=False).modelName
    except Exception as exc:  # noqa: BLE001 -- fmpy raises plain exceptions for a broken archive or XML
        raise ValueError(f"fmu_file = {str(fmu_file)!r} is not a readable FMU ({exc})") from None
    if model != fmu:
        raise ValueError(f"fmu_file = {str(fmu_file)!r} is an FMU of {model}, not of fmu = {fmu}")


# Cases a case file may expand to: each is a Python object (~1 kB) and a summary row of ~350 columns before
# anything runs; 1e5 cases of a 20 s run at 10 ms are ~5 days of one core. A larger study is several files.
MAX_CASES = 100_000


def _check_case_count(grid: dict, data: dict) -> None:
    """Refuse a case file that expands to more than :data:`MAX_CASES` cases, before expanding it."""
    count = 1
    for name, spec in grid.items():
        size = len(spec) if isinstance(spec, list) else spec.get("num") if isinstance(spec, dict) else 1
        count *= size if isinstance(size, int) and size > 0 else 1
    hypercube = data.get("latin_hypercube")
    samples = hypercube.get("samples") if isinstance(hypercube, dict) else 1
    count *= samples if isinstance(samples, int) and samples > 0 else 1
    seas = data.get("sea_states")
    try:
        count *= len(expand_sea_states(seas)) if seas else 1
    except ValueError:
        pass  # reported where the sea states are read
    if count > MAX_CASES:
        raise ValueError(f"the case file expands to {count:.3g} cases, more than {MAX_CASES:.0e} (the grid's sizes "
                         f"multiply: parameters x latin_hypercube.samples x sea_states); split the study")


def _positive(data: dict, key: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{key} = {value!r} is not allowed; it must be a finite number > 0 [s]")
    return float(value)


def _axis_values(name: str, spec) -> list:
    """A grid axis: a list of numbers, or ``{range: [lo, hi], num: n}`` (n equally spaced, ends included)."""
    if isinstance(spec, list) and spec and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in spec):
        return [float(v) for v in spec]
    if isinstance(spec, dict) and set(spec) == {"range", "num"}:
        lo_hi, num = spec["range"], spec["num"]
        if (isinstance(lo_hi, list) and len(lo_hi) == 2 and all(isinstance(v, (int, float)) for v in lo_hi)
                and isinstance(num, int) and num >= 1):
            return [float(v) for v in np.linspace(lo_hi[0], lo_hi[1], num)]
    raise ValueError(f"parameters.{name} = {spec!r} is not allowed; give a non-empty list of numbers or "
                     f"{{range: [low, high], num: n >= 1}}")


def _latin_hypercube(spec: dict) -> list:
    """``samples`` points of a scrambled Latin hypercube (scipy.stats.qmc, ``seed``) scaled to the bounds."""
    from scipy.stats import qmc

    if not isinstance(spec, dict) or set(spec) - {"samples", "seed", "parameters"}:
        raise ValueError("latin_hypercube must be a mapping with keys samples, seed, parameters")
    n, seed, bounds = spec.get("samples"), spec.get("seed", 0), spec.get("parameters")
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"latin_hypercube.samples = {n!r} is not allowed; it must be an integer >= 1")
    if not isinstance(seed, int):
        raise ValueError(f"latin_hypercube.seed = {seed!r} is not allowed; it must be an integer")
    if not isinstance(bounds, dict) or not bounds:
        raise ValueError("latin_hypercube.parameters must map names to [low, high]")
    for name, b in bounds.items():
        if not (isinstance(b, list) and len(b) == 2 and all(isinstance(v, (int, float)) for v in b) and b[0] < b[1]):
            raise ValueError(f"latin_hypercube.parameters.{name} = {b!r} is not allowed; give [low, high], low < high")
    names = list(bounds)
    unit = qmc.LatinHypercube(d=len(names), seed=seed).random(n)
    points = qmc.scale(unit, [bounds[k][0] for k in names], [bounds[k][1] for k in names])
    return [dict(zip(names, map(float, row))) for row in points]


def _check_target(name: str, spec, signals: dict) -> None:
    """A varied name is an FMU parameter, ``signals.<input>.<field>`` or ``sea_state.<field>``."""
    parameters = {v.name for v in spec.parameters}
    inputs = {v.name for v in spec.inputs}
    parts = name.split(".")
    if parts[0] == "signals":
        if len(parts) != 3 or parts[1] not in inputs:
            raise ValueError(f"varied {name!r}: give signals.<input>.<field> with an input of {spec.model_name}")
        if parts[1] not in signals:
            raise ValueError(f"varied {name!r}: input {parts[1]!r} has no signal under 'signals'")
    elif parts[0] == "sea_state":
        fields = tuple(SEA_STATE_FIELDS) + tuple(sea_parameter_units())
        if len(parts) != 2 or parts[1] not in fields:
            raise ValueError(f"varied {name!r}: sea-state fields are {', '.join(fields)}")
    elif name not in parameters:
        raise ValueError(f"varied {name!r} is not a parameter of {spec.model_name}")


# The unit of each field of a signal (None: the input's own unit) and of a sea state (signals.py docstring).
_SIGNAL_FIELD_UNITS = {"time": "s", "start": "s", "end": "s", "period": "s", "phase": "rad"}
_SEA_STATE_UNITS = {"amplitude": "rad", "period": "s", "heading": "rad", "heave": "m", "base_height": "m"}


def varied_unit(name: str, fmu: str) -> str:
    """The SI unit of a varied name of a case file: an FMU parameter's, ``signals.<input>.<field>`` (the
    input's unit for values, s for times and periods, rad for a phase) or ``sea_state.<field>``; "" when
    unknown (a name of another FMU)."""
    spec = SPECS[fmu]()
    parts = name.split(".")
    if parts[0] == "signals" and len(parts) == 3:
        inputs = {v.name: v.unit for v in spec.inputs}
        return _SIGNAL_FIELD_UNITS.get(parts[2]) or inputs.get(parts[1], "")
    if parts[0] == "sea_state" and len(parts) == 2:
        return {**_SEA_STATE_UNITS, **sea_parameter_units()}.get(parts[1], "")
    return next((v.unit or "" for v in spec.parameters if v.name == name), "")


def _apply(values: dict, start_values: dict, signals: dict, sea_state: dict | None) -> tuple:
    start, sig, sea = dict(start_values), json.loads(json.dumps(signals)), dict(sea_state) if sea_state else None
    for name, value in values.items():
        parts = name.split(".")
        if parts[0] == "signals":
            sig[parts[1]][parts[2]] = value
        elif parts[0] == "sea_state":
            if sea is None:
                raise ValueError(f"varied {name!r} needs sea_states in the case file")
            sea[parts[1]] = value
        else:
            start[name] = value
    return start, sig, sea


def parse_cases(data, default_name: str = "sweep") -> CaseSet:
    """The cases of a case file already read into plain data; errors name the key and what is allowed."""
    if not isinstance(data, dict):
        raise ValueError("a case file must be a mapping (fmu, duration, step, ...)")
    unknown = set(data) - _KEYS
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    fmu = data.get("fmu")
    if fmu not in SPECS:
        raise ValueError(f"fmu = {fmu!r} is not allowed; it must be one of {sorted(SPECS)}")
    spec = SPECS[fmu]()
    duration, step = _positive(data, "duration"), _positive(data, "step")
    check_step(step, duration, "step")  # the limits of crane-cosim run: 1e-5 s, at most 2e6 points a case
    scenario = data.get("scenario")
    if scenario is not None:
        from ..models import collect

        known = collect("scenarios", "SCENARIOS")
        if scenario not in known or known[scenario]().fmu != fmu:
            names = sorted(k for k, f in known.items() if f().fmu == fmu)
            raise ValueError(f"scenario = {scenario!r} is not allowed; scenarios of {fmu}: {names}")
        scenario_start = dict(known[scenario]().start_values)
    else:
        scenario_start = {}
    signals = data.get("signals") or {}
    inputs = {v.name for v in spec.inputs}
    for name, sig in signals.items():
        if name not in inputs:
            raise ValueError(f"signals.{name}: {fmu} has no input {name!r}; inputs: {sorted(inputs)}")
        check_signal(f"signals.{name}", sig)
    own_start = data.get("start_values") or {}
    start_values = {**scenario_start, **own_start}  # the case file's own values win over the scenario's
    for name, value in own_start.items():
        _check_target(name, spec, signals)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"start_values.{name} = {value!r} is not allowed; it must be a number")
    grid = data.get("parameters") or {}
    if not isinstance(grid, dict):
        raise ValueError("parameters must map names to lists of values or {range: [low, high], num: n}")
    _check_case_count(grid, data)
    axes = {name: _axis_values(name, values) for name, values in grid.items()}
    samples = _latin_hypercube(data["latin_hypercube"]) if "latin_hypercube" in data else [{}]
    sea_states = [None]
    if data.get("sea_states") is not None:
        sea_states = expand_sea_states(data["sea_states"])
        if not sea_states:
            raise ValueError("sea_states must be a non-empty list of sea states or a grid {sea_hs: [..], ...}")
        for i, sea in enumerate(sea_states):
            check_sea_state(f"sea_states[{i}]", sea, spec)
    for name in list(axes) + list(samples[0]):
        _check_target(name, spec, signals)
    cases = []
    for combo in itertools.product(*axes.values()):
        for sample in samples:
            for sea in sea_states:
                varied = {**dict(zip(axes, combo)), **sample}
                start, sig, sea_values = _apply(varied, start_values, signals, sea)
                if sea is not None:
                    varied.update({f"sea_state.{k}": float(v) for k, v in sea_values.items()})
                    if is_wave_sea_state(sea_values):  # the crane's own sea (a payload in the water): the same
                        start.update(sea_start_values(sea_values, spec))
                cases.append(Case(len(cases), fmu, duration, step, start, scenario, sig, sea_values, varied))
    fatigue = data.get("fatigue") or {}
    outputs = fatigue.get("outputs") or [v.name for v in spec.outputs if v.unit in ("N", "N.m")]
    record = data.get("record")
    known_outputs = {v.name for v in spec.outputs}
    for name in list(outputs) + list(record or []):
        if name not in known_outputs:
            raise ValueError(f"output {name!r} is not an output of {fmu}")
    slopes = tuple(float(m) for m in fatigue.get("slopes", (3, 4, 5)))
    from .fatigue import REFERENCE_CYCLES

    return CaseSet(data.get("name", default_name), fmu, data.get("fmu_file"), cases, list(outputs), slopes,
                   float(fatigue.get("reference_cycles", REFERENCE_CYCLES)), record)

