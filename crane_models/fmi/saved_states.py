"""Saved states of the crane FMUs: what identifies an FMU's states, the model objects a state may hold, and the
(de)serializers installed on each slave class (the format itself is :mod:`state_format`)."""
from __future__ import annotations

import hashlib
import math
import re
import sys
from pathlib import Path
from typing import Optional

import numpy as np

from ..core.hydro import HydroForces
from ..core.kane import Kinematics
from ..core.native import NativeKinematics
from ..core.parameters import ParameterError
from ..integration.state_checks import number_problem
from .spec import FmuSpec, check_parameters
from .state_format import StateFormatError, decode_state, encode_state, register_class, register_dataclass

__all__ = ["identity", "install_codecs", "decode_or_refuse", "guid_of", "state_problem", "STATE_KEYS"]


def _native_kinematics(data: dict) -> NativeKinematics:
    if not (isinstance(data, dict) and set(data) == {"record", "_layout", "_inverted"}
            and isinstance(data["record"], np.ndarray) and isinstance(data["_layout"], dict)):
        raise StateFormatError("malformed NativeKinematics")
    kin = NativeKinematics.__new__(NativeKinematics)
    kin.__setstate__(data)
    return kin


# The model objects a saved co-simulation state holds (the last evaluation: kernel record or numpy arrays).
register_class("NativeKinematics", NativeKinematics, lambda kin: kin.__getstate__(), _native_kinematics)
register_dataclass("Kinematics", Kinematics)
register_dataclass("HydroForces", HydroForces)  # the water's force on a payload (issue 37)


def install_codecs(slave_class: type, spec: FmuSpec) -> None:
    """pythonfmu's binaries call the (de)serializers on the slave's class, not the instance: install them
    there, bound to this FMU's identity (the same for every instance of the class)."""
    slave_class._fmu_state_to_bytes = staticmethod(lambda state: encode_state(state, identity(slave_class, spec)))
    slave_class._fmu_state_from_bytes = staticmethod(lambda data: decode_or_refuse(data, identity(slave_class, spec)))


_IDENTITIES: dict = {}


def identity(slave_class: type, spec: FmuSpec) -> dict:
    """What a saved state must match: model, GUID (from the modelDescription.xml of the FMU whose
    resources hold the slave's script, when there is one), project version, a digest of the variables
    (names and types) and the slave's module, whose name carries the digest of the FMU's build
    (build.bundle_namespace: two builds of one FMU refuse each other's states, FMI 3.0 too, whose
    instantiation token guid_of does not read)."""
    key = (slave_class, spec.model_name)
    if key not in _IDENTITIES:
        from .. import __version__

        listing = ";".join(f"{v.name}:{v.kind}" for v in spec.variables())
        _IDENTITIES[key] = {"model": spec.model_name, "guid": guid_of(slave_class), "version": __version__,
                            "variables": hashlib.sha256(listing.encode()).hexdigest()[:16],
                            "build": slave_class.__module__}
    return _IDENTITIES[key]


def decode_or_refuse(data: bytes, identity: dict) -> dict:
    """The state in ``data``, or -- for bytes that are not a state of this FMU -- a refusal that
    ``fmi2SetFMUstate`` answers with an error naming the reason, the instance keeping its state (an
    exception here would be fatal under pythonfmu's binaries)."""
    try:
        return decode_state(data, identity)
    except StateFormatError as exc:
        return {"refused": str(exc)}


def guid_of(slave_class: type) -> str:
    """The GUID in the FMU's modelDescription.xml (the slave's script lies in its resources folder), or ''
    when the slave does not run from an FMU."""
    try:
        script = Path(sys.modules[slave_class.__module__].__file__)
        text = (script.parent.parent / "modelDescription.xml").read_text(encoding="utf-8", errors="replace")
    except (AttributeError, KeyError, TypeError, OSError):
        return ""
    m = re.search(r'\bguid="([^"]*)"', text)
    return m.group(1) if m else ""


# A saved state of an instance (fmi/adapter.py get_state): the variable values, the error, the start time, the
# co-simulation's state (CoSimulation.get_state) and the parameters in force, tagged with the FMU's identity.
STATE_KEYS = frozenset({"fmu", "values", "error", "start_time", "sim", "params"})

# The Python types a variable's value may have in a state (a bool is an int: excluded from the numbers below).
_KINDS = {"real": (int, float), "integer": (int,), "boolean": (bool,)}


def state_problem(state, identity: dict, spec: FmuSpec, names: set) -> Optional[str]:
    """None when ``state`` is a state of this FMU whose parts outside the co-simulation are usable (that part
    is checked by ``CoSimulation.state_problem`` against the model the parameters build); else one line naming
    the field and what was expected (or why the deserialization refused the bytes). ``names``: the names of the
    instance's values."""
    if isinstance(state, dict) and set(state) == {"refused"}:  # decode_or_refuse's answer
        return f"the deserialized bytes were refused: {state['refused']}"
    if not isinstance(state, dict) or set(state) != STATE_KEYS:
        return "not a state of a crane-cosim FMU"
    if state["fmu"] != identity:
        return f"the state belongs to another FMU or build ({state['fmu']!r})"
    values = state["values"]
    if not isinstance(values, dict) or set(values) != names:
        return "the state's variables are not this FMU's"
    kinds = {v.name: v.kind for v in spec.variables()}
    host_set = {v.name for v in spec.parameters + spec.inputs}
    problem = next(filter(None, (_value_problem(name, value, kinds.get(name, "real"), name in host_set)
                                 for name, value in values.items())), None)
    if problem:
        return problem
    if state["error"] is not None and not isinstance(state["error"], str):
        return "the state's error must be None or a message"
    problem = number_problem("the state's start time", state["start_time"])
    if problem or (state["sim"] is None and state["params"] is None):
        return problem
    if not isinstance(state["params"], dict) or set(state["params"]) != {v.name for v in spec.parameters}:
        return "the state's parameters are not this FMU's"
    return _parameters_problem(state["params"], values, spec)


def _parameters_problem(params: dict, values: dict, spec: FmuSpec) -> Optional[str]:
    """The parameters in force of a state checked as a host's values are: each of its declared type, as fmi2Set*
    checks it (a bool is no Integer or Real: ``max_internal_steps = true`` put a budget of 1 in force), within its
    range, as exitInitializationMode checks it (``max_step = 1e-300`` never gets into a simulation), and equal to the
    state's value of that variable, which the FMU reports (a parameter can change only before initialization, which
    puts the values in force; a state saved in Initialization Mode after a parameter was set since a restore is the
    one legitimate exception, refused all the same)."""
    for v in spec.parameters:
        value = params[v.name]
        if not isinstance(value, _KINDS[v.kind]) or (v.kind != "boolean" and isinstance(value, bool)):
            return f"the state's parameter {v.name} = {value!r} must be {v.kind}, not {type(value).__name__}"
    try:
        check_parameters(spec.parameters, params)
    except ParameterError as exc:
        return f"the state's parameter {exc}"
    differ = next((v.name for v in spec.parameters if params[v.name] != values[v.name]), None)
    if differ:
        return (f"the state's parameter {differ} = {params[differ]!r} in force differs from its value "
                f"{values[differ]!r} in the state's variables")
    return None


def _value_problem(name: str, value, kind: str, host_set: bool) -> Optional[str]:
    """The type of a variable's value; outputs and the time finite -- parameters and inputs hold what a host set
    (``host_set``), checked where they are used (initialization, doStep)."""
    if not isinstance(value, _KINDS[kind]) or (kind != "boolean" and isinstance(value, bool)):
        return f"the state's value of {name} must be {kind}, not {type(value).__name__}"
    if kind == "real" and not host_set and not math.isfinite(value):
        return f"the state's value of {name} = {value!r} must be finite"
    return None
