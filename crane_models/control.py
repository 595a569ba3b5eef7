"""PD control with gravity compensation (the controller the knuckle boom paper uses without details).

``e = Kp (q_ref − q) − Kd u + g(q)`` where ``g(q) = −τ_g(q)`` is the generalized effort that holds the
bodies against gravity (from the same model, eq. (46) with only the weights).
"""
from __future__ import annotations

import numpy as np

__all__ = ["pd_gravity_effort"]


def pd_gravity_effort(q: np.ndarray, u: np.ndarray, q_ref: np.ndarray, kp: np.ndarray, kd: np.ndarray,
                      gravity_forces: np.ndarray) -> np.ndarray:
    """Actuator effort of the PD controller with gravity compensation (one effort per coordinate)."""
    return kp * (q_ref - q) - kd * u - gravity_forces
