"""Co-simulation master for the split vessel crane: ``Vessel.fmu`` and ``CraneOnMovingBase.fmu`` coupled with
fmpy (FMI 2.0 co-simulation, fixed communication step ``h``).

Coupling: the Vessel's motion outputs (:data:`core.moving_base.interface.MOTION`) feed the crane's base-motion inputs;
the crane's interface wrench (:data:`core.moving_base.interface.WRENCH`, on the vessel, Frame 1) feeds the Vessel.

**The algebraic loop.** Both directions have direct feedthrough: the crane's interface force depends on
the base acceleration (it is affine in it, ``W = W₀ + A a``: the crane's inertia), and the vessel's
acceleration depends on the wrench (``u̇ = M⁻¹(τ + Pᵀ W)``). At a communication point the two outputs
therefore have to agree on one value. Three schemes are offered:

* ``"iterate"`` (default): close the loop at every communication point by fixed-point iteration
  *without stepping*: set the wrench on the Vessel, read its motion, set it on the crane, read the
  wrench, until the wrench changes by less than ``tol``. The FMUs re-evaluate their outputs for new
  inputs at the same state (direct feedthrough), so no FMU state has to be saved or restored, and
  each iteration costs two model evaluations, not two steps. The iteration contracts with the ratio of
  the crane's inertia seen at the interface to the vessel's (the added-mass ratio, about 0.1-0.3 here),
  so a handful of iterations reach round-off. Result: at every communication point the pair is
  exactly the monolithic model's state of (37)/(50); what remains is the zero-order hold of the
  inputs across a step -- first order in ``h``.
* ``"jacobi"``: explicit exchange of the previous values, the fixed-step algorithm of libcosim
  (OSP): both FMUs step with the inputs of the last exchange, then the outputs -- evaluated with
  the held inputs -- are exchanged. Cheapest (no iteration), also first order, but the wrench the
  vessel sees lags one step and the loop is stable only while the added-mass ratio is below one (an
  explicit partitioned scheme with a heavy crane on a light vessel would diverge).

* ``"trapezoid"``: a predictor-corrector over the step with saved FMU states
  (``fmi2GetFMUstate``/``SetFMUstate``): step both FMUs with the consistent inputs of ``t_n``, close
  the loop at ``t_{n+1}`` (as ``"iterate"``), roll both back and step again with the mean of the
  coupling values at ``t_n`` and ``t_{n+1}``. Holding the mean is the midpoint rule for the coupling
  terms: the coupling error becomes second order (measured: the vessel's angles converge with order
  1.6-1.9 where ``"iterate"`` gives 1.1), at about twice the cost. Closing the loop at ``t_{n+1}`` before
  averaging is essential: with the predictor's outputs read under the held (stale) inputs the mean is
  off by ``O(h)`` (the crane's added mass times the change of the base acceleration) and the scheme
  stays first order (measured).

Measured on the paper's hoisting sequence (``benchmarks/bench_vessel_split.py``, README): with the
inputs held over a step, ``"iterate"`` and ``"jacobi"`` are first order with nearly the same error (the
added-mass ratio is small here, so the one-step lag of Jacobi costs little); ``"iterate"`` buys a pair
that is consistent at every communication point (its recorded force is the monolithic one for that
state), at ~10 loop iterations per point. ``"trapezoid"`` cuts the vessel's error 6-25 times (order
1.6-1.9). The crane angles of every scheme carry the first-order error of sampling the set-points, which
the monolithic ``VesselCrane`` FMU has too. A higher order for the whole run needs inputs that vary
inside a step (input derivatives, ``canInterpolateInputs``), which pythonfmu does not offer.

* ``"inertia"``: close the loop with the crane's interface inertia, no iteration. The crane FMU outputs
  ``A`` and ``W₀`` with ``W = W₀ − A a`` (``inertia_outputs``, :mod:`core.moving_base.interface_inertia`);
  both depend on the vessel's position and velocity only, not on its acceleration. At each communication
  point the master passes the vessel's attitude and rates to the crane, reads ``A`` and ``W₀``, gives them to
  the Vessel (which takes ``A`` into its own mass matrix), reads the vessel's now consistent accelerations and
  passes them on: the loop of ``"iterate"`` closed exactly in two exchanges, whatever the added-mass ratio.

* ``"averaged"``: the predictor of ``"trapezoid"``, then a corrector in which the crane steps first under the
  mean motion and the vessel then steps under the wrench the crane gave **averaged over that step**
  (``mean_wrench_outputs``: the FMU integrates its wrench along its own internal steps). The vessel receives
  the crane's impulse over the step exactly, including the fast response of the crane's PD loop to each
  held set-point that the mean of two end values misses. Same cost as ``"trapezoid"`` (one rollback per
  step). Measured on the paper's pair (4 s of the hoisting sequence at 10 ms): vessel-angle error 1.4e-3 rad
  against 4.3e-3 for ``"trapezoid"`` and 1.25e-3 for the monolithic FMU itself (set-points sampled at
  10 ms): within the issue's 2x of the monolithic FMU's own error.

The master never computes physics: it moves values between FMUs and records outputs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from .runs import communication_grid
from .unpacked import unpacked_fmu
from ..fmi.instance import FmuInstance
from ..fmi.osp import WRENCH_KINDS
from ..core.moving_base.interface_inertia import INERTIA_NAMES
from ..core.moving_base.interface import MOTION, WRENCH

__all__ = ["FmuInstance", "SplitSettings", "run_split", "convergence_table", "observed_order",
           "MOTION_NAMES", "WRENCH_NAMES", "SCHEMES"]

SCHEMES = ("iterate", "trapezoid", "jacobi", "inertia", "averaged")
MOTION_NAMES = [n for n, _, _ in MOTION]
WRENCH_NAMES = [n for n, _, _ in WRENCH]
INERTIA = [name for _, _, name in INERTIA_NAMES]
MEAN_WRENCH_NAMES = [n.replace("force_", "force_mean_").replace("moment_", "moment_mean_") for n in WRENCH_NAMES]
WRENCH0_NAMES = [n.replace("force_", "force0_").replace("moment_", "moment0_") for n in WRENCH_NAMES]


@dataclass
class SplitSettings:
    """How the master couples the pair (see the module docstring)."""

    scheme: str = "iterate"  # one of SCHEMES
    tol: float = 1e-4  # N and N·m: ~1e-7 of the crane weight, far below any coupling error measured
    max_iterations: int = 50
    vessel_start: dict = field(default_factory=dict)
    crane_start: dict = field(default_factory=dict)
    # Rounds of the initial value propagation (:func:`_propagate_initial_values`): libcosim's fixed-step algorithm
    # leaves the pair as two rounds do here, Ecos as one (its sets take effect a round later).
    init_rounds: int = 2
    # The crane's wrench the Jacobi exchange hands the vessel (fmi.osp.WRENCH_KINDS: "point", "mean", "predicted"), as
    # the system structure's wiring does; the step-mean kinds need the crane's mean_wrench_outputs (on by default).
    wrench: str = "point"


def _close_loop(vessel: FmuInstance, crane: FmuInstance, wrench: np.ndarray, s: SplitSettings) -> tuple:
    """Fixed-point iteration of the algebraic loop at one communication point; returns
    ``(wrench, motion, iterations)``."""
    for k in range(1, s.max_iterations + 1):
        vessel.set(dict(zip(WRENCH_NAMES, wrench)))
        motion = vessel.get(MOTION_NAMES)
        crane.set(dict(zip(MOTION_NAMES, motion)))
        new = crane.get(WRENCH_NAMES)
        if np.max(np.abs(new - wrench)) < s.tol:
            vessel.set(dict(zip(WRENCH_NAMES, new)))
            return new, motion, k
        wrench = new
    raise RuntimeError(f"the vessel-crane loop did not converge in {s.max_iterations} iterations "
                       f"(last change {np.max(np.abs(new - wrench)):.3g})")


def _close_with_inertia(vessel: FmuInstance, crane: FmuInstance) -> np.ndarray:
    """The loop closed with the crane's interface inertia (``"inertia"``): two exchanges, no iteration.
    Returns the wrench ``W₀ − A a`` the pair agrees on."""
    crane.set(dict(zip(MOTION_NAMES, vessel.get(MOTION_NAMES))))  # attitude and rates: what A and W0 depend on
    inertia, w0 = crane.get(INERTIA), crane.get(WRENCH0_NAMES)
    vessel.set({**dict(zip(WRENCH_NAMES, w0)), **dict(zip(INERTIA, inertia))})
    crane.set(dict(zip(MOTION_NAMES, vessel.get(MOTION_NAMES))))  # the accelerations under W0 - A a
    return crane.get(WRENCH_NAMES)


def _predict(vessel: FmuInstance, crane: FmuInstance, h: float, s: "SplitSettings") -> tuple:
    """The predictor of the two-pass schemes: both FMUs step with the inputs of ``t_n``, the loop is closed at
    ``t_{n+1}``, and both are rolled back to ``t_n``. Returns the wrench and motion the pair agrees on at the
    step's end."""
    saved = [(inst, inst.fmu.getFMUstate(), inst.t) for inst in (vessel, crane)]
    vessel.step(h)
    crane.step(h)
    wrench_end, motion_end, _ = _close_loop(vessel, crane, crane.get(WRENCH_NAMES), s)
    for inst, state, t in saved:
        inst.fmu.setFMUstate(state)
        inst.fmu.freeFMUstate(state)
        inst.t = t
    return wrench_end, motion_end


def _trapezoid_step(vessel: FmuInstance, crane: FmuInstance, wrench: np.ndarray, h: float, s: "SplitSettings") -> None:
    """Predictor, then both FMUs step with the means of the coupling values at the step's two ends."""
    motion = vessel.get(MOTION_NAMES)
    wrench_end, motion_end = _predict(vessel, crane, h, s)
    vessel.set(dict(zip(WRENCH_NAMES, 0.5 * (wrench + wrench_end))))
    crane.set(dict(zip(MOTION_NAMES, 0.5 * (motion + motion_end))))
    vessel.step(h)
    crane.step(h)


def _averaged_step(vessel: FmuInstance, crane: FmuInstance, wrench: np.ndarray, h: float, s: "SplitSettings") -> None:
    """Predictor, then the crane under the mean motion and the vessel under the crane's wrench averaged over that
    step."""
    motion = vessel.get(MOTION_NAMES)
    _, motion_end = _predict(vessel, crane, h, s)
    crane.set(dict(zip(MOTION_NAMES, 0.5 * (motion + motion_end))))
    crane.step(h)
    vessel.set(dict(zip(WRENCH_NAMES, crane.get(MEAN_WRENCH_NAMES))))
    vessel.step(h)


def wrench_names(kind: str) -> list:
    """The crane's outputs of the wrench kind ``kind`` (fmi.osp.WRENCH_KINDS), force then moment, x y z."""
    return [f"{stem}_{a}" for stem in WRENCH_KINDS[kind] for a in "xyz"]


def _propagate_initial_values(vessel: FmuInstance, crane: FmuInstance, rounds: int = 2,
                              wrench: str = "point") -> None:
    """libcosim's initial value propagation, in Initialization Mode: ``rounds`` exchanges of the coupling values
    (libcosim runs one per simulator), each FMU's outputs following its inputs there (fmi/initialization.py)."""
    for _ in range(rounds):
        motion, load = vessel.get(MOTION_NAMES), crane.get(wrench_names(wrench))
        vessel.set(dict(zip(WRENCH_NAMES, load)))
        crane.set(dict(zip(MOTION_NAMES, motion)))


def run_split(vessel_fmu: Path, crane_fmu: Path, stop_time: float, step: float,
              crane_inputs: Callable[[float], dict], settings: Optional[SplitSettings] = None) -> dict:
    """Run the coupled pair on the grid ``0, h, …, stop_time``; ``crane_inputs(t)`` gives the crane's other
    inputs (set-points, joint torques) for the step from ``t``. Returns ``{"time", "vessel.<name>",
    "crane.<name>", "iterations", "wall"}`` with every Real output at every communication point."""
    s = settings or SplitSettings()
    if s.scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, not {s.scheme!r}")
    vessel = FmuInstance(vessel_fmu, "vessel", unzip=str(unpacked_fmu(vessel_fmu)))
    crane = FmuInstance(crane_fmu, "crane", unzip=str(unpacked_fmu(crane_fmu)))
    times = communication_grid(stop_time, step)
    rows_v, rows_c, iterations = [], [], []
    try:
        switches = {"inertia": {"inertia_outputs": True}, "averaged": {"mean_wrench_outputs": True}}
        vessel.enter_initialization(s.vessel_start)
        crane.enter_initialization({**s.crane_start, **switches.get(s.scheme, {}), **crane_inputs(0.0)})
        _propagate_initial_values(vessel, crane, s.init_rounds, s.wrench)
        vessel.fmu.exitInitializationMode()
        crane.fmu.exitInitializationMode()
        wrench = crane.get(WRENCH_NAMES)
        t0 = time.perf_counter()
        for n, t in enumerate(times):
            if s.scheme == "inertia":
                crane.set(crane_inputs(t))
                wrench = _close_with_inertia(vessel, crane)
                iterations.append(0)
            elif s.scheme != "jacobi":
                crane.set(crane_inputs(t))
                wrench, _, k = _close_loop(vessel, crane, wrench, s)
                iterations.append(k)
            rows_v.append(vessel.get(vessel.outputs))
            rows_c.append(crane.get(crane.outputs))
            if s.scheme == "jacobi":  # exchange the values read after the last step, both read first
                motion, wrench = vessel.get(MOTION_NAMES), crane.get(wrench_names(s.wrench))
                crane.set({**dict(zip(MOTION_NAMES, motion)), **crane_inputs(t)})
                vessel.set(dict(zip(WRENCH_NAMES, wrench)))
                iterations.append(0)
            if n + 1 < len(times) and s.scheme == "trapezoid":
                _trapezoid_step(vessel, crane, wrench, step, s)
            elif n + 1 < len(times) and s.scheme == "averaged":
                _averaged_step(vessel, crane, wrench, step, s)
            elif n + 1 < len(times):
                vessel.step(step)
                crane.step(step)
        wall = time.perf_counter() - t0
    finally:
        vessel.close()
        crane.close()
    out = {"time": times, "iterations": np.array(iterations), "wall": wall}
    for prefix, inst, rows in (("vessel", vessel, rows_v), ("crane", crane, rows_c)):
        data = np.array(rows)
        out.update({f"{prefix}.{name}": data[:, i] for i, name in enumerate(inst.outputs)})
    return out


def observed_order(steps: list, errors: list) -> float:
    """Least-squares slope of ``log(error)`` over ``log(step)``."""
    return float(np.polyfit(np.log(steps), np.log(errors), 1)[0])


def convergence_table(errors: dict) -> str:
    """Text table of ``{step: {quantity: error}}`` with the observed order per quantity."""
    steps = sorted(errors, reverse=True)
    names = list(errors[steps[0]])
    lines = ["step [ms] | " + " | ".join(names)]
    for h in steps:
        lines.append(f"{1e3 * h:9.0f} | " + " | ".join(f"{errors[h][n]:.3e}" for n in names))
    lines.append("order     | " + " | ".join(f"{observed_order(steps, [errors[h][n] for h in steps]):9.2f}"
                                           for n in names))
    return "\n".join(lines)
