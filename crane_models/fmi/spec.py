"""What an FMU is, as data: its variables (units, ranges, descriptions) and the function that builds its model
from parameter values; plus the solver parameters every crane FMU shares. A crane model's folder declares its
FMUs with these types (``models/<crane>/spec.py``); the adapter and the build read them."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..core.parameters import ParameterError, range_text
from ..integration.integrators import INTEGRATOR_CODES, INTEGRATOR_DESCRIPTION, stepper_for_code

__all__ = ["FmuVariable", "FmuSpec", "parameters_from_dataclasses", "BASE_UNITS", "SOLVER_PARAMETERS",
           "STEP_BUDGET_PARAMETER", "MAX_STEP_LOW",
           "integrator_parameter", "solver_options", "split_values", "real_variables", "check_parameters",
           "check_range"]


@dataclass(frozen=True)
class FmuVariable:
    name: str
    unit: str
    description: str
    start: Any = 0.0
    kind: str = "real"  # real | integer | boolean
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    display_unit: Optional[str] = None
    # An input's expected range, (low, high): numbers or names of parameters (a joint's stroke limits). A value
    # outside is not refused -- the run goes on -- but the FMU warns, once per excursion (fmi/input_ranges.py).
    expected_range: tuple = ()


@dataclass
class FmuSpec:
    """Everything an FMU exposes, and how to build its model from parameter values."""

    model_name: str
    description: str
    parameters: list
    inputs: list
    outputs: list
    build: Callable[[dict], tuple]  # parameter values -> (model, x0, CoSimulation options)
    stop_time: float = 20.0
    step_size: float = 0.01
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Every FMU bounds its doStep work (fmi/adapter.py passes it to the CoSimulation).
        if not any(v.name == STEP_BUDGET_PARAMETER.name for v in self.parameters):
            self.parameters = list(self.parameters) + [STEP_BUDGET_PARAMETER]

    def variables(self) -> list:
        return list(self.parameters) + list(self.inputs) + list(self.outputs)


def check_parameters(parameters: list, values: dict) -> None:
    """Raise :class:`ParameterError` naming the first of ``parameters`` (FmuVariables) whose value in ``values`` is
    missing, of the wrong kind or outside its range. The one check of parameter values: at initialization
    (``exitInitializationMode``) and for the parameters a restored state brings (``fmi2SetFMUstate``)."""
    for v in parameters:
        if v.name not in values:
            raise ParameterError(f"parameter {v.name} is missing")
        check_range(v, values[v.name])


def check_range(v: FmuVariable, value) -> None:
    """Raise :class:`ParameterError` unless ``value`` is a value of ``v``: a bool for a Boolean, else a finite
    number within ``v``'s range (a whole one for an Integer)."""
    if v.kind == "boolean":
        if isinstance(value, (bool, int)) and value in (0, 1):
            return
        raise ParameterError(f"{v.name} = {value!r} must be a boolean")
    try:
        x = float(value)
        ok = not isinstance(value, str) and math.isfinite(x) and (v.kind == "real" or x == int(x))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if ok:
        ok = x <= v.high and (x > v.low if v.low_open else x >= v.low)
    if not ok:
        meta = {"low": v.low, "high": v.high, "low_open": v.low_open}
        unit = f" {v.unit}" if v.unit else ""
        raise ParameterError(f"{v.name} = {value!r}{unit} is outside the allowed range "
                             f"{range_text(meta, whole=v.kind == 'integer')}{unit}")


def parameters_from_dataclasses(*instances) -> list:
    """FMI parameters from the fields of parameter dataclasses (declared with ``parameters.param``)."""
    out = []
    for inst in instances:
        for f in dataclasses.fields(inst):
            m = f.metadata
            kind = m.get("kind", "real")  # param(..., kind="integer"): an FMI Integer (a count, a seed, a code)
            value = getattr(inst, f.name)
            out.append(FmuVariable(f.name, m["unit"], m["description"], int(value) if kind == "integer" else
                                   float(value), kind, m["low"], m["high"], m.get("low_open", False),
                                   "deg" if m["unit"] == "rad" else None))
    return out


# Unit -> SI base-unit exponents (FMI BaseUnit attributes); shared by the FMI 2 build and FMI 3 slaves.
BASE_UNITS = {
    "m": {"m": 1}, "rad": {"rad": 1}, "s": {"s": 1}, "kg": {"kg": 1},
    "N": {"kg": 1, "m": 1, "s": -2}, "N.m": {"kg": 1, "m": 2, "s": -2},
    "m/s": {"m": 1, "s": -1}, "rad/s": {"rad": 1, "s": -1}, "m/s2": {"m": 1, "s": -2},
    "rad/s2": {"rad": 1, "s": -2}, "N/m": {"kg": 1, "s": -2}, "N.s/m": {"kg": 1, "s": -1},
    "N.m/rad": {"kg": 1, "m": 2, "s": -2, "rad": -1}, "N.m.s/rad": {"kg": 1, "m": 2, "s": -1, "rad": -1},
    "N.m/rad3": {"kg": 1, "m": 2, "s": -2, "rad": -3}, "kg.m2": {"kg": 1, "m": 2}, "kg.m": {"kg": 1, "m": 1},
    "Pa": {"kg": 1, "m": -1, "s": -2}, "m2": {"m": 2}, "m4": {"m": 4}, "1/rad": {"rad": -1}, "kg/m3": {"kg": 1, "m": -3},
    "s/rad": {"s": 1, "rad": -1}, "1/s": {"s": -1}, "1/s2": {"s": -2},
}


# 1e-8 s: far below any step these models need (the stiffest, 16 flexible elements, ~5e-6 s) and far above
# the steppers' min_step (1e-10 s) and the rounding of t (a step that does not advance t would never end).
MAX_STEP_LOW = 1e-8

SOLVER_PARAMETERS = [
    FmuVariable("max_step", "s", "largest internal integration step inside doStep", 0.01, low=MAX_STEP_LOW,
                high=1.0),
    # 1e-5: the FMU then agrees with the 1e-10 reference to ~1e-5 of each output's range, 100 times inside
    # the 0.1 % validation bound, with about one Runge-Kutta step per 10 ms communication step.
    FmuVariable("rtol", "", "relative tolerance of the internal integrator (Bogacki-Shampine 3(2))", 1e-5,
                low=1e-12, high=1e-2),
]


# 20000 trial steps: ~15 times what the stiffest configuration needs per 10 ms communication step (FlexibleCrane
# with 16 elements, ~1300 steps) and ~100 communication steps of 10 ms of it; one doStep then ends after at
# most a few seconds with the compiled kernel instead of running without end (max_step 1e-300, h = 1e300, a
# model driven far outside its design). A master with long communication steps raises it.
STEP_BUDGET_PARAMETER = FmuVariable(
    "max_internal_steps", "", "largest number of internal integration steps (accepted and rejected) in one "
    "doStep; beyond it doStep ends with fmi2Discard and a message, the state left at the step's start", 20000,
    "integer", low=1, high=2 ** 31 - 1)


def integrator_parameter(default: int) -> FmuVariable:
    """The ``integrator`` parameter (codes of :data:`integrators.INTEGRATOR_CODES`)."""
    return FmuVariable("integrator", "", INTEGRATOR_DESCRIPTION, default, "integer", low=min(INTEGRATOR_CODES),
                       high=max(INTEGRATOR_CODES))


def solver_options(values: dict, names=("max_step", "rtol")) -> dict:
    """CoSimulation options from the solver parameters of an FMU."""
    options = {name: float(values[name]) for name in names}
    options["stepper"] = stepper_for_code(values["integrator"])
    return options


def split_values(values: dict, cls):
    names = [f.name for f in dataclasses.fields(cls)]
    return cls(**{n: float(values[n]) for n in names})


def real_variables(table, start: dict) -> list:
    """FMI variables from a ``(name, unit, description)`` table, angles displayed in degrees."""
    return [FmuVariable(n, u, d, start.get(n, 0.0), display_unit="deg" if u == "rad" else None)
            for n, u, d in table]
