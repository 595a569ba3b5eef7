"""Joint efforts that depend on each coordinate's own ``q_i``, ``u_i`` and the inputs -- models as data.

One law, per generalized coordinate ``i``::

    e_i = c_i + Σ_j B_ij w_j + k1_i q_i + k3_i q_i³ + d_i u_i  [+ end stop_i]  [− τ_g,i]

with the inputs ``w``. It covers the restoring springs of the moving-base paper (``T_si = −k_i q_i³``,
§III-D), the PD controller (63) ``τ_a = k_P (q_ref − q) − k_D u`` with the set-points among the inputs,
efforts that are inputs themselves, one-sided end stops (a spring-damper beyond a stroke limit that can
only push back) and gravity compensation (``− τ_g``, the generalized gravity forces (46), as the knuckle
boom's controller does). The efforts are generalized forces (a torque in a joint whose coordinate is its
angle does the virtual power ``e_i u_i``).

A coordinate may instead be *prescribed* (a moving base whose motion is an input): the law's value there
is its acceleration ``u̇_i`` (typically ``Σ_j B_ij w_j``, an input), and the dynamics solve
``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p`` (moving-base paper, eq. (43) partitioned;
:meth:`kane.MultibodySystem.accelerations_with_prescribed`).

Why data and not a function: the compiled kernel (``core/native/*.c``, ``mbs_derivative``) evaluates
the same law next to ``M``, ``C`` and the solve in one call, which is what makes the state derivative of
a model like the vessel crane cheap; :meth:`CoordinateEffortLaw.efforts` is the specification the kernel
is tested against (tests/test_native.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = ["CoordinateEffortLaw", "cubic_springs", "pd_control", "stacked", "end_stop_efforts",
           "prescribed_accelerations"]


def end_stop_efforts(q: np.ndarray, u: np.ndarray, low: np.ndarray, high: np.ndarray, stiffness: np.ndarray,
                     damping: np.ndarray) -> np.ndarray:
    """Spring-damper beyond a stroke limit, pushing back into ``[low, high]``; the damper may only push (a
    stop cannot pull the piston back into contact): ``max(k (low − q) − c u, 0)`` below, ``min(k (high − q)
    − c u, 0)`` above, 0 inside (``±inf``: no stop)."""
    below, above = np.maximum(low - q, 0.0), np.maximum(q - high, 0.0)  # finite penetrations, 0 inside
    return (np.where(below > 0.0, np.maximum(stiffness * below - damping * u, 0.0), 0.0)
            + np.where(above > 0.0, np.minimum(-stiffness * above - damping * u, 0.0), 0.0))


@dataclass(frozen=True)
class CoordinateEffortLaw:
    """``e = c + B w + k1 q + k3 q³ + d u`` element-wise in ``q``, ``u`` (arrays of length n; B is (n, n_in)),
    plus end stops (``stop_*``, see :func:`end_stop_efforts`; none by default) and, when
    ``gravity_compensation``, minus the generalized gravity forces."""

    constant: np.ndarray
    input_gain: np.ndarray
    linear: np.ndarray
    cubic: np.ndarray
    damping: np.ndarray
    stop_low: Optional[np.ndarray] = None
    stop_high: Optional[np.ndarray] = None
    stop_stiffness: Optional[np.ndarray] = None
    stop_damping: Optional[np.ndarray] = None
    gravity_compensation: bool = False
    prescribed: Optional[np.ndarray] = None  # bool (n): the law gives u̇_i there, not an effort

    def __post_init__(self) -> None:
        n = len(self.constant)
        defaults = {"stop_low": -np.inf, "stop_high": np.inf, "stop_stiffness": 0.0, "stop_damping": 0.0}
        for name in ("constant", "linear", "cubic", "damping") + tuple(defaults):
            value = getattr(self, name)
            value = np.full(n, defaults[name]) if value is None else np.ascontiguousarray(value, dtype=float)
            if value.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {value.shape}")
            object.__setattr__(self, name, value)
        gain = np.ascontiguousarray(self.input_gain, dtype=float).reshape(n, -1)
        object.__setattr__(self, "input_gain", gain)
        if self.prescribed is not None:
            mask = np.asarray(self.prescribed, dtype=bool)
            if mask.shape != (n,):
                raise ValueError(f"prescribed must have shape ({n},), got {mask.shape}")
            object.__setattr__(self, "prescribed", mask if mask.any() else None)

    @property
    def n(self) -> int:
        return len(self.constant)

    @property
    def n_inputs(self) -> int:
        return self.input_gain.shape[1]

    @property
    def has_stops(self) -> bool:
        return bool(np.any(self.stop_stiffness != 0.0) or np.any(self.stop_damping != 0.0))

    def stops(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The end-stop part of :meth:`efforts`."""
        return end_stop_efforts(q, u, self.stop_low, self.stop_high, self.stop_stiffness, self.stop_damping)

    def efforts(self, q: np.ndarray, u: np.ndarray, inputs: np.ndarray, gravity: Optional[np.ndarray] = None) -> np.ndarray:
        """The generalized forces of the law at ``(q, u)`` for the inputs ``w``; ``gravity``: the generalized
        gravity forces, needed (and subtracted) when the law compensates them."""
        e = (self.constant + self.input_gain @ inputs + (self.linear + self.cubic * q * q) * q + self.damping * u)
        if self.has_stops:
            e = e + self.stops(q, u)
        if self.gravity_compensation:
            if gravity is None:
                raise ValueError("a law with gravity compensation needs the generalized gravity forces")
            e = e - (gravity if self.prescribed is None else np.where(self.prescribed, 0.0, gravity))
        return e

    @property
    def prescribed_indices(self) -> np.ndarray:
        """Indices of the prescribed coordinates (empty when none)."""
        return np.flatnonzero(self.prescribed) if self.prescribed is not None else np.zeros(0, dtype=int)


def prescribed_accelerations(n: int) -> CoordinateEffortLaw:
    """``n`` prescribed coordinates whose accelerations are the law's ``n`` inputs, ``u̇_i = w_i`` (a base
    whose motion is given)."""
    law = _zeros_like_coordinates(n, n)
    law["input_gain"][:] = np.eye(n)
    return CoordinateEffortLaw(**law, prescribed=np.ones(n, dtype=bool))


def _zeros_like_coordinates(n: int, n_inputs: int = 0) -> dict:
    return dict(constant=np.zeros(n), input_gain=np.zeros((n, n_inputs)), linear=np.zeros(n), cubic=np.zeros(n),
                damping=np.zeros(n))


def cubic_springs(k: np.ndarray) -> CoordinateEffortLaw:
    """``T_si = −k_i q_i³`` (moving-base paper, §III-D); no inputs."""
    k = np.asarray(k, dtype=float)
    law = _zeros_like_coordinates(len(k))
    law["cubic"] = -k
    return CoordinateEffortLaw(**law)


def pd_control(kp: np.ndarray, kd: np.ndarray) -> CoordinateEffortLaw:
    """PD control (63) ``τ = k_P (q_ref − q) − k_D u + τ_in`` per coordinate, no gravity compensation;
    inputs ``w = [q_ref (n), τ_in (n)]``."""
    kp, kd = np.asarray(kp, dtype=float), np.asarray(kd, dtype=float)
    n = len(kp)
    law = _zeros_like_coordinates(n, 2 * n)
    law["input_gain"][:, :n] = np.diag(kp)
    law["input_gain"][:, n:] = np.eye(n)
    law["linear"] = -kp
    law["damping"] = -kd
    return CoordinateEffortLaw(**law)


def stacked(*laws: CoordinateEffortLaw) -> CoordinateEffortLaw:
    """The laws of consecutive coordinate blocks as one law; the inputs are concatenated in the same order."""
    n = sum(law.n for law in laws)
    n_in = sum(law.n_inputs for law in laws)
    gain = np.zeros((n, n_in))
    i = j = 0
    for law in laws:
        gain[i:i + law.n, j:j + law.n_inputs] = law.input_gain
        i, j = i + law.n, j + law.n_inputs
    compensating = any(law.gravity_compensation for law in laws)
    if compensating and not all(law.gravity_compensation or (law.prescribed is not None and law.prescribed.all())
                                for law in laws):
        raise ValueError("stacked() combines a gravity-compensating law only with prescribed-motion laws "
                         "(compensation acts on every coordinate that is not prescribed)")
    join = lambda name: np.concatenate([getattr(law, name) for law in laws])  # noqa: E731
    prescribed = None
    if any(law.prescribed is not None for law in laws):
        prescribed = np.concatenate([law.prescribed if law.prescribed is not None else np.zeros(law.n, dtype=bool)
                                     for law in laws])
    return CoordinateEffortLaw(constant=join("constant"), input_gain=gain, linear=join("linear"), cubic=join("cubic"),
                               damping=join("damping"), stop_low=join("stop_low"), stop_high=join("stop_high"),
                               stop_stiffness=join("stop_stiffness"), stop_damping=join("stop_damping"),
                               gravity_compensation=compensating, prescribed=prescribed)
