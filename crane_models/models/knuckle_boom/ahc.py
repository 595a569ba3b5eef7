"""Active heave compensation of the winch (issue 37): a motion reference unit (MRU) at the crane tip measures its
vertical velocity in the sea frame, and the winch pays out to cancel it, so that the payload stays still in the
water while the vessel heaves.

The loop, with its states appended to the payload model's (:data:`AHC_STATES` of them):

* **measurement delay** ``ahc_delay`` T_d: a first-order Padé approximation of ``e^{−s T_d}`` (all-pass: amplitude 1,
  phase ``−2 atan(ω T_d/2)``, 0.08 rad where the true delay's is 0.0785 at 8 s and 0.1 s): ``ẇ = (2/T_d)(u − w)``,
  measured ``y = 2w − u``;
* **filter** ``ahc_filter`` τ_f (first order, the MRU's noise filter): ``ḟ = (y − f)/τ_f``;
* **lag compensation**: the command leads the filtered measurement by the loop's known lags to first order,
  ``v_c = f + (T_d + τ_f + τ_w) ḟ`` (the MRU's trend, as heave compensators predict the heave over their latency);
* **winch**: its speed ``v_w`` follows ``clip(winch_speed + v_c, ±winch_speed_max)`` as a first-order drive of
  time constant τ_w = 0.02 s (its torque bandwidth, 8 Hz) whose acceleration is clipped to
  ``±winch_acceleration_max``; ``L̇`` is ``v_w`` at the length limits as :func:`core.payload.winch_rate` says.

Positive tip velocity (up) pays wire out: ``L`` grows as the tip rises, and the payload's height ``z_tip − L`` stays.

**Heave reduction** (output ``ahc_heave_reduction``): ``1 − σ_payload / σ_tip`` with σ the RMS of the vertical
velocity (sea frame) about its running mean, both over an exponential window ``ahc_window``: the vertical motion
the AHC should remove, without the lowering (a steady lowering speed is the mean, not heave). For a harmonic heave
the velocities' RMS ratio is the displacements'. Four states: the running means and mean squares of the deviations
(``ṁ = (v − m)/T_w``, ``ṡ = ((v − m)² − s)/T_w``); 0 until the tip has moved.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.parameters import param, validate

__all__ = ["AhcParameters", "HeaveCompensation", "AHC_STATES", "WINCH_TIME_CONSTANT"]

AHC_STATES = 7  # delay, filter, winch speed, tip mean and variance, payload mean and variance
WINCH_TIME_CONSTANT = 0.02  # s, τ_w: the winch drive's speed response


@dataclass
class AhcParameters:
    """The heave compensation (with ``ahc_enabled``)."""

    ahc_delay: float = param(0.1, "s", "measurement delay of the heave compensation's motion reference unit", 0.0, 5.0)
    ahc_filter: float = param(0.05, "s", "time constant of the motion reference unit's first-order filter", 0.0, 10.0)
    ahc_window: float = param(30.0, "s", "time constant of the running mean and RMS behind ahc_heave_reduction", 0.1,
                              1.0e5)
    winch_acceleration_max: float = param(2.0, "m/s2", "winch acceleration limit (with ahc_enabled; without, the "
                                          "winch follows winch_speed at once, as before)", 0.0, 1.0e3, low_open=True)


class HeaveCompensation:
    """The loop of the module docstring for a winch of speed limit ``speed_max``."""

    def __init__(self, parameters: AhcParameters, speed_max: float):
        validate(parameters)
        p = parameters
        self.delay, self.filter, self.window = float(p.ahc_delay), float(p.ahc_filter), float(p.ahc_window)
        self.acceleration_max, self.speed_max = float(p.winch_acceleration_max), float(speed_max)
        self.lead = self.delay + self.filter + WINCH_TIME_CONSTANT

    def rates(self, tail: np.ndarray, tip_vz: float, payload_vz: float, command: float) -> tuple:
        """``(ṫail, v_w)``: the states' rates and the winch speed (the state ``v_w``) at ``tail``, the tip's and the
        payload's vertical velocities in the sea frame and the operator's ``command`` (``winch_speed``)."""
        w, f, vw, mt, st, mp, sp = (float(v) for v in tail)
        if self.delay > 0.0:
            w_rate = 2.0 / self.delay * (tip_vz - w)
            measured = 2.0 * w - tip_vz
        else:
            w_rate, measured = 0.0, tip_vz
        f_rate = (measured - f) / self.filter if self.filter > 0.0 else 0.0
        filtered = f if self.filter > 0.0 else measured
        target = min(max(command + filtered + self.lead * f_rate, -self.speed_max), self.speed_max)
        vw_rate = min(max((target - vw) / WINCH_TIME_CONSTANT, -self.acceleration_max), self.acceleration_max)
        dt, dp = tip_vz - mt, payload_vz - mp
        k = 1.0 / self.window
        return np.array([w_rate, f_rate, vw_rate, k * dt, k * (dt * dt - st), k * dp, k * (dp * dp - sp)]), vw

    def initial(self, tip_vz: float = 0.0) -> np.ndarray:
        """At rest: the delay line and filter holding ``tip_vz``, the winch still, no heave seen yet."""
        return np.array([tip_vz, tip_vz, 0.0, tip_vz, 0.0, 0.0, 0.0])

    @staticmethod
    def reduction(tail: np.ndarray) -> float:
        st, sp = float(tail[4]), float(tail[6])
        if st <= 0.0:
            return 0.0
        return 1.0 - math.sqrt(max(sp, 0.0) / st)
