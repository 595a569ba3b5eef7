"""Input signals of a sweep case: simple set-point signals, a scenario's signals, and prescribed vessel motion.

Signal kinds (fields in SI units of the input):

* ``constant``: ``value``;
* ``step``: ``before`` until ``time``, ``after`` from it;
* ``smoothstep``: quintic from ``from`` at ``start`` to ``to`` at ``end`` (:func:`integration.scenario.smoothstep`);
* ``sine``: ``offset + amplitude sin(2 pi t / period + phase)``.

A sea state prescribes the vessel's motion for the moving-base crane (``CraneOnMovingBase``): regular waves
of ``period`` [s] from ``heading`` [rad] relative to the bow (0: head seas, all pitch; pi/2: beam seas, all
roll) with angle amplitude ``amplitude`` [rad] and heave amplitude ``heave`` [m]; the vessel turns about
the origin of Frame 1, the crane base sits ``base_height`` [m] above it (default: the vessel's ``l1``).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["SIGNAL_KINDS", "SEA_STATE_FIELDS", "check_signal", "check_sea_state", "signal_value",
           "sea_state_motion", "case_signals"]

SIGNAL_KINDS = {"constant": ("value",), "step": ("before", "after", "time"),
                "smoothstep": ("from", "to", "start", "end"), "sine": ("offset", "amplitude", "period", "phase")}
_OPTIONAL = {"sine": {"offset": 0.0, "phase": 0.0}}
SEA_STATE_FIELDS = ("amplitude", "period", "heading", "heave", "base_height")
_MOTION_INPUTS = ("roll", "pitch", "yaw", "angular_velocity_x", "angular_velocity_y", "angular_velocity_z",
                  "angular_acceleration_x", "angular_acceleration_y", "angular_acceleration_z",
                  "base_acceleration_x", "base_acceleration_y", "base_acceleration_z",
                  "base_velocity_x", "base_velocity_y", "base_velocity_z")


def _number(where: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} = {value!r} is not allowed; it must be a finite number")
    return float(value)


def check_signal(where: str, sig) -> None:
    """Raise naming the field when ``sig`` is not a signal definition of :data:`SIGNAL_KINDS`."""
    if not isinstance(sig, dict) or sig.get("kind") not in SIGNAL_KINDS:
        raise ValueError(f"{where} must be a mapping with kind one of {sorted(SIGNAL_KINDS)}")
    fields = SIGNAL_KINDS[sig["kind"]]
    extra = set(sig) - set(fields) - {"kind"}
    if extra:
        raise ValueError(f"{where}: unknown fields {sorted(extra)} for kind {sig['kind']}; fields: {list(fields)}")
    for name in fields:
        if name in sig:
            _number(f"{where}.{name}", sig[name])
        elif name not in _OPTIONAL.get(sig["kind"], {}):
            raise ValueError(f"{where}.{name} is missing (kind {sig['kind']} needs {list(fields)})")
    if sig["kind"] == "sine" and sig["period"] <= 0:
        raise ValueError(f"{where}.period = {sig['period']!r} is not allowed; it must be > 0 [s]")
    if sig["kind"] == "smoothstep" and not sig["start"] < sig["end"]:
        raise ValueError(f"{where}: start = {sig['start']!r} s must be before end = {sig['end']!r} s")


def signal_value(sig: dict, t: float) -> float:
    """The value of one signal definition at time ``t``."""
    from ..integration.scenario import smoothstep

    kind = sig["kind"]
    if kind == "constant":
        return float(sig["value"])
    if kind == "step":
        return float(sig["after"] if t >= sig["time"] else sig["before"])
    if kind == "smoothstep":
        return smoothstep(t, sig["start"], sig["end"], sig["from"], sig["to"])
    phase = 2.0 * math.pi * t / sig["period"] + sig.get("phase", 0.0)
    return sig.get("offset", 0.0) + sig["amplitude"] * math.sin(phase)


def check_sea_state(where: str, sea, spec) -> None:
    """A sea state needs an FMU with base-motion inputs and finite fields; period and base height > 0. A sea state
    of the sea's parameters (:mod:`.sea_states`) is checked against their ranges."""
    from .sea_states import check_wave_sea_state, is_wave_sea_state

    if is_wave_sea_state(sea):
        check_wave_sea_state(where, sea, spec)
        return
    missing = set(_MOTION_INPUTS) - {v.name for v in spec.inputs}
    if missing:
        raise ValueError(f"{where}: {spec.model_name} has no base-motion inputs ({sorted(missing)[0]}, ...); "
                         f"sea states need a moving-base FMU such as CraneOnMovingBase")
    if not isinstance(sea, dict) or set(sea) - set(SEA_STATE_FIELDS) or not {"amplitude", "period"} <= set(sea):
        raise ValueError(f"{where} must be a mapping with amplitude [rad] and period [s], optionally heading "
                         f"[rad], heave [m], base_height [m]; or a sea of the FMUs' sea parameters (sea_hs, sea_tp, "
                         f"sea_heading, ...)")
    for name, value in sea.items():
        _number(f"{where}.{name}", value)
    if sea["period"] <= 0:
        raise ValueError(f"{where}.period = {sea['period']!r} is not allowed; it must be > 0 [s]")
    if abs(sea["amplitude"]) >= 0.5:
        raise ValueError(f"{where}.amplitude = {sea['amplitude']!r} rad is not allowed; it must be in (-0.5, 0.5) rad")


def _euler_rate_matrix_dot(roll: float, pitch: float, roll_rate: float, pitch_rate: float) -> np.ndarray:
    """Time derivative of the matrix ``E`` of ``omega = E [roll, pitch, yaw]'`` (eq. (53) angles)."""
    c1, s1, c2, s2 = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    return np.array([[0.0, 0.0, -c2 * pitch_rate],
                     [0.0, -s1 * roll_rate, c1 * c2 * roll_rate - s1 * s2 * pitch_rate],
                     [0.0, -c1 * roll_rate, -s1 * c2 * roll_rate - c1 * s2 * pitch_rate]])


def sea_state_motion(sea: dict, t: float) -> dict:
    """The base-motion inputs of the moving-base crane at time ``t`` for a regular sea state.

    Angles ``roll = A sin(b) sin(w t)``, ``pitch = A cos(b) sin(w t)``, yaw 0, heave ``z = H sin(w t)``;
    ``omega = E q'`` and ``alpha = E q'' + E' q'`` in Frame 1 (eq. (53)); the base point ``r = [0, 0, h]``
    moves with ``v = omega x r + R' z' e_z``, ``a = alpha x r + omega x (omega x r) + R' z'' e_z``. Starting
    at the still position with zero acceleration, the base needs no transient to begin."""
    from ..models.vessel_crane.split import VesselParameters, euler_rate_matrix

    w = 2.0 * math.pi / sea["period"]
    heading, heave = sea.get("heading", 0.0), sea.get("heave", 0.0)
    h = sea.get("base_height", VesselParameters().l1)
    s, c = math.sin(w * t), math.cos(w * t)
    axis = np.array([sea["amplitude"] * math.sin(heading), sea["amplitude"] * math.cos(heading), 0.0])
    angles, rates, accelerations = axis * s, axis * w * c, -axis * w * w * s
    e = euler_rate_matrix(angles[0], angles[1])
    omega = e @ rates
    alpha = e @ accelerations + _euler_rate_matrix_dot(angles[0], angles[1], rates[0], rates[1]) @ rates
    r = np.array([0.0, 0.0, h])
    up = np.array([-math.sin(angles[1]), math.cos(angles[1]) * math.sin(angles[0]),
                   math.cos(angles[1]) * math.cos(angles[0])])  # Frame 0's z in Frame 1
    velocity = np.cross(omega, r) + heave * w * c * up
    acceleration = np.cross(alpha, r) + np.cross(omega, np.cross(omega, r)) - heave * w * w * s * up
    values = dict(zip(("roll", "pitch", "yaw"), angles))
    for prefix, vec in (("angular_velocity", omega), ("angular_acceleration", alpha),
                        ("base_acceleration", acceleration), ("base_velocity", velocity)):
        values.update({f"{prefix}_{a}": float(x) for a, x in zip("xyz", vec)})
    return values


def case_signals(case) -> tuple[list, Callable[[float], list]]:
    """``(input names, t -> input values)`` of a case: each input's start value, overridden by the
    scenario's signal, by the case's own signal definition, and for motion inputs by the sea state."""
    from ..models.registry import SPECS
    from ..models import collect

    spec = SPECS[case.fmu]()
    names = [v.name for v in spec.inputs]
    defaults = [float(v.start) for v in spec.inputs]
    scenario = collect("scenarios", "SCENARIOS")[case.scenario]() if case.scenario else None
    own = [case.signals.get(n) for n in names]
    sea_motion = None
    if case.sea_state is not None:
        from .sea_states import is_wave_sea_state, wave_vessel_motion

        sea_motion = (wave_vessel_motion(case.sea_state) if is_wave_sea_state(case.sea_state)
                      else lambda t: sea_state_motion(case.sea_state, t))

    def signals(t: float) -> list:
        values = list(defaults)
        if scenario is not None:
            for n, v in zip(scenario.input_names, scenario.signals(t)):
                values[names.index(n)] = v
        for i, sig in enumerate(own):
            if sig is not None:
                values[i] = signal_value(sig, t)
        if sea_motion is not None:
            motion = sea_motion(t)
            values = [motion.get(n, v) for n, v in zip(names, values)]
        return values

    return names, signals
