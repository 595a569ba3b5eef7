"""Demo scenario of the VesselCrane FMU: the hoisting sequence of Figs. 5-7 (Cibicik & Egeland, moving base)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...integration.scenario import Scenario, smoothstep
from .crane import INPUTS as VC_INPUTS, VesselCraneInitialState

__all__ = ["vessel_crane_hoisting", "static_equilibrium", "SCENARIOS"]


# The hoisting sequence of Figs. 5-6 (drawn, not tabulated, in the paper): (joint, start, end, from, to),
# times as fractions of the scenario length -- luff the inner boom up, unfold the outer boom, slew a
# quarter turn, reach out by lowering the inner boom. Angles in rad.
_VC_MOVES = (
    (5, 0.05, 0.25, 0.2, 0.8),
    (6, 0.15, 0.45, -1.4, -0.4),
    (4, 0.40, 0.70, 0.0, np.pi / 2),
    (5, 0.75, 0.95, 0.8, 0.4),
)


def _vc_signals(stop_time: float) -> Callable[[float], list]:
    init = VesselCraneInitialState()
    start = {4: init.q4_0, 5: init.q5_0, 6: init.q6_0}

    def signals(t: float) -> list:
        ref = dict(start)
        for joint, t0, t1, a, b in _VC_MOVES:
            ref[joint] += smoothstep(t, t0 * stop_time, t1 * stop_time, 0.0, b - a)
        return [ref[4], ref[5], ref[6], 0.0, 0.0, 0.0]

    return signals


def static_equilibrium(inputs: np.ndarray, values: dict | None = None) -> dict:
    """Start values ``q1_0 ... q6_0`` at which the system is at rest under the inputs ``inputs`` (set-points
    and joint torques of the PD controller (63)): the vessel heeled until its cubic springs carry the
    crane's moment, the booms sagged until the PD effort carries their weight (the controller has no
    gravity compensation). Yaw and slew stay where they are: gravity has no moment about them.

    Solved for ``q1, q2, q5, q6`` with the accelerations of eq. (43) at zero speed set to zero (Newton
    iteration by ``scipy.optimize.fsolve``); a residual above 1e-9 rad/s² raises ``RuntimeError``."""
    from scipy.optimize import fsolve

    from ..registry import SPECS

    spec = SPECS["VesselCrane"]()
    params = {v.name: v.start for v in spec.parameters}
    params.update(values or {})
    model, x0, _ = spec.build(params)
    free = [0, 1, 4, 5]  # q1, q2, q5, q6

    def accelerations(q: np.ndarray) -> np.ndarray:
        x = np.concatenate([q, np.zeros(6)])
        return model.derivative(0.0, x, inputs)[0][6:]

    def residual(z: np.ndarray) -> np.ndarray:
        q = x0[:6].copy()
        q[free] = z
        return accelerations(q)[free]

    z = fsolve(residual, x0[:6][free], xtol=1e-13)
    q = x0[:6].copy()
    q[free] = z
    worst = float(np.max(np.abs(accelerations(q))))
    if worst > 1e-9:
        raise RuntimeError(f"vessel crane: no static equilibrium found (largest acceleration {worst:.3g} rad/s^2)")
    return {f"q{i + 1}_0": float(q[i]) for i in range(6)}


def vessel_crane_hoisting(stop_time: float = 20.0, equilibrium: bool = True) -> Scenario:
    """Figs. 5-7: the crane runs the hoisting sequence under the PD controller (63); the vessel, at rest, is
    excited by the crane alone. ``stop_time`` stretches the sequence. ``equilibrium`` (default): the run
    starts in static equilibrium (:func:`static_equilibrium`), so nothing moves before the crane does, as
    in the paper; ``False``: the vessel upright and the booms at their first set-points, released from rest
    (the interface force then jumps from 45 % of the crane's weight to about its weight within 0.1 s)."""
    frame = {"interface": "Frame 2", "interface_f1": "Frame 1"}
    figures = [
        ("fig06_crane_joints", "Fig. 6: crane joint variables (slew, inner boom, outer boom)",
         [(f"q{i}", f"q{i}") for i in (4, 5, 6)]),
        ("fig06_vessel", "Fig. 6: vessel roll, pitch, yaw", [(f"q{i}", f"q{i}") for i in (1, 2, 3)]),
    ]
    for prefix, name in frame.items():
        stem = "fig07_" + name.replace(" ", "").lower()
        figures += [
            (f"{stem}_forces", f"Fig. 7: constraint forces on the crane ({name})",
             [(f"{prefix}_force_{a}", f"f_{a}") for a in "xyz"]),
            (f"{stem}_moments", f"Fig. 7: constraint moments on the crane ({name})",
             [(f"{prefix}_moment_{a}", f"n_{a}") for a in "xy"]),
        ]
    signals = _vc_signals(stop_time)
    start = static_equilibrium(np.asarray(signals(0.0), dtype=float)) if equilibrium else {}
    return Scenario(name="vessel_crane_hoisting", fmu="VesselCrane", stop_time=stop_time, start_values=start,
                    input_names=[n for n, _, _ in VC_INPUTS], signals=signals, figures=figures,
                    paper="Cibicik & Egeland (crane on a moving base)")


SCENARIOS = {"vessel_crane_hoisting": vessel_crane_hoisting}

def crane_hoisting_at_sea(stop_time: float = 20.0) -> Scenario:
    """CraneOnMovingBase runs the hoisting sequence of Figs. 5-6 on a base in the moderate sea of the knuckle boom
    demo (``core.moving_base.sea_motion``: roll 3 deg at 8 s, pitch 1.7 deg at 6 s, heave and sway)."""
    from ...core.moving_base.sea_motion import sea_motion
    from .split import CRANE_INPUTS

    hoist = _vc_signals(stop_time)
    return Scenario(name="crane_hoisting_at_sea", fmu="CraneOnMovingBase", stop_time=stop_time,
                    input_names=[n for n, _, _ in CRANE_INPUTS], signals=lambda t: hoist(t) + sea_motion(t))


# The crane's weight on the vessel (Table 1's crane, 90 kg: 882.9 N) and the swings of a working crane: forces and
# moments of the size of VesselCrane's interface wrench in the hoisting sequence (up to 0.5 kN and 1.4 kN.m), as
# sines of 0.08 to 0.33 Hz. (force x, y, z [N], moment x, y, z [N.m]): (mean, amplitude, angular frequency [rad/s]).
_CRANE_LOAD = ((0.0, 150.0, 1.3), (0.0, 150.0, 0.9), (-882.9, 250.0, 2.1),
               (0.0, 1200.0, 0.7), (0.0, 800.0, 1.1), (0.0, 300.0, 0.5))


def vessel_under_crane_load(stop_time: float = 20.0) -> Scenario:
    """The Vessel FMU under :data:`_CRANE_LOAD`, no added interface inertia (its inputs' start values)."""
    from ..registry import SPECS
    from .split import VESSEL_INPUTS

    names = [v.name for v in SPECS["Vessel"]().inputs]  # the wrench, then the interface inertia
    assert names[:len(VESSEL_INPUTS)] == [n for n, _, _ in VESSEL_INPUTS]
    rest = [0.0] * (len(names) - len(_CRANE_LOAD))

    def signals(t: float) -> list:
        return [mean + amplitude * np.sin(w * t) for mean, amplitude, w in _CRANE_LOAD] + rest

    return Scenario(name="vessel_under_crane_load", fmu="Vessel", stop_time=stop_time, input_names=names,
                    signals=signals)


# The scenario of each FMU's cross-check folder (simulation/cross_check.py). Cross-check tools set no start values, so
# VesselCrane's starts from the FMU's default state, not in static equilibrium: the vessel upright and the booms
# at their first set-points, released from rest -- the vessel heels under the crane's moment and the booms sag
# onto their PD controllers (the interface force rises from 45 % of the crane's weight to about all of it within
# 0.1 s) while the hoisting sequence runs. A release transient is as valid a reference as a start at rest, and
# it exercises the constraint forces harder. The split pair's FMUs, which have no demo scenario, get moving
# inputs of the same system: the crane the hoisting sequence at sea, the vessel a crane's load.
# 10 s, the whole sequence (twice as fast as the demo's 20 s): fmpy's cross-check steps a co-simulation FMU at its
# default experiment's step (10 ms) only up to 1000 steps and doubles it beyond; these cranes' PD set-points held
# for 20 ms instead of 10 ms move their joint torques by up to ~30 % of their range (the master's sampling of the
# set-points, not an error), so a reference of 1000 steps is what that tool reproduces.
CROSS_CHECK = {"VesselCrane": lambda: vessel_crane_hoisting(10.0, equilibrium=False),
               "CraneOnMovingBase": lambda: crane_hoisting_at_sea(10.0), "Vessel": lambda: vessel_under_crane_load(10.0)}
