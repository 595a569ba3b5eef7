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

**Heave reduction** (output ``ahc_heave_reduction``): ``1 − σ_payload / σ_tip`` with σ the RMS about the running
mean, over an exponential window ``ahc_window``, of the tip's height in the sea frame and of the payload's height
**plus the length the operator paid out** (``L_op = ∫ clip(winch_speed) dt``, a state): the payload's vertical motion
that nobody commanded -- lowering is not heave. Five states: ``L_op`` and the running means and mean squares of the
deviations (``ṁ = (z − m)/T_w``, ``ṡ = ((z − m)² − s)/T_w``), the means seeded with the first positions
(:meth:`HeaveCompensation.seeded`); 0 until the tip has moved.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.parameters import param, validate

__all__ = ["AhcParameters", "HeaveCompensation", "AHC_STATES", "WINCH_TIME_CONSTANT"]

AHC_STATES = 8  # delay, filter, winch speed, operator's payout, tip mean and variance, payload mean and variance
WINCH_TIME_CONSTANT = 0.02  # s, τ_w: the winch drive's speed response


@dataclass
class AhcParameters:
    """The heave compensation (with ``ahc_enabled``)."""

    ahc_delay: float = param(0.1, "s", "measurement delay of the heave compensation's motion reference unit", 0.0, 5.0)
    ahc_filter: float = param(0.2, "s", "time constant of the motion reference unit's first-order filter", 0.0, 10.0)
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

    def rates(self, tail: np.ndarray, tip_z: float, tip_vz: float, payload_z: float, command: float) -> tuple:
        """``(ṫail, v_w)``: the states' rates and the winch speed (the state ``v_w``) at ``tail``, the tip's height and
        vertical velocity and the payload's height in the sea frame, and the operator's ``command`` (``winch_speed``)."""
        w, f, vw, paid, mt, st, mp, sp = (float(v) for v in tail)
        if self.delay > 0.0:
            w_rate = 2.0 / self.delay * (tip_vz - w)
            measured = 2.0 * w - tip_vz
        else:
            w_rate, measured = 0.0, tip_vz
        f_rate = (measured - f) / self.filter if self.filter > 0.0 else 0.0
        filtered = f if self.filter > 0.0 else measured
        operator = min(max(command, -self.speed_max), self.speed_max)
        target = min(max(operator + filtered + self.lead * f_rate, -self.speed_max), self.speed_max)
        vw_rate = min(max((target - vw) / WINCH_TIME_CONSTANT, -self.acceleration_max), self.acceleration_max)
        dt, dp = tip_z - mt, payload_z + paid - mp
        k = 1.0 / self.window
        return np.array([w_rate, f_rate, vw_rate, operator, k * dt, k * (dt * dt - st), k * dp,
                         k * (dp * dp - sp)]), vw

    @staticmethod
    def initial() -> np.ndarray:
        """At rest: the delay line, filter and winch still, nothing paid out, no heave seen yet (means: see
        :meth:`seeded`)."""
        return np.zeros(AHC_STATES)

    @staticmethod
    def seeded(tail: np.ndarray, tip_z: float, payload_z: float) -> np.ndarray:
        """``tail`` with the running means at the tip's and the payload's first heights (sea frame)."""
        out = np.array(tail, dtype=float)
        out[4], out[6] = tip_z, payload_z + out[3]
        return out

    @staticmethod
    def reduction(tail: np.ndarray) -> float:
        st, sp = float(tail[5]), float(tail[7])
        if st <= 0.0:
            return 0.0
        return 1.0 - math.sqrt(max(sp, 0.0) / st)
