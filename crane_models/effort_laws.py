"""Joint efforts that depend on each coordinate's own ``q_i``, ``u_i`` and the inputs -- models as data.

One law, per generalized coordinate ``i``::

    e_i = c_i + Σ_j B_ij w_j + k1_i q_i + k3_i q_i³ + d_i u_i

with the inputs ``w``. It covers the restoring springs of the moving-base paper (``T_si = −k_i q_i³``,
§III-D), the PD controller (63) ``τ_a = k_P (q_ref − q) − k_D u`` with the set-points among the inputs,
and efforts that are inputs themselves. The efforts are generalized forces (a torque in a joint whose
coordinate is its angle does the virtual power ``e_i u_i``).

Why data and not a function: the compiled kernel (``_native/multibody.c``, ``mbs_derivative``) evaluates
the same law next to ``M``, ``C`` and the solve in one call, which is what makes the state derivative of
a model like the vessel crane cheap; :meth:`CoordinateEffortLaw.efforts` is the specification the kernel
is tested against (tests/test_native.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CoordinateEffortLaw", "cubic_springs", "pd_control", "stacked"]


@dataclass(frozen=True)
class CoordinateEffortLaw:
    """``e = c + B w + k1 q + k3 q³ + d u`` element-wise in ``q``, ``u`` (arrays of length n; B is (n, n_in))."""

    constant: np.ndarray
    input_gain: np.ndarray
    linear: np.ndarray
    cubic: np.ndarray
    damping: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.constant)
        for name in ("constant", "linear", "cubic", "damping"):
            value = np.ascontiguousarray(getattr(self, name), dtype=float)
            if value.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {value.shape}")
            object.__setattr__(self, name, value)
        gain = np.ascontiguousarray(self.input_gain, dtype=float).reshape(n, -1)
        object.__setattr__(self, "input_gain", gain)

    @property
    def n(self) -> int:
        return len(self.constant)

    @property
    def n_inputs(self) -> int:
        return self.input_gain.shape[1]

    def efforts(self, q: np.ndarray, u: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """The generalized forces of the law at ``(q, u)`` for the inputs ``w``."""
        return (self.constant + self.input_gain @ inputs + (self.linear + self.cubic * q * q) * q
                + self.damping * u)


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
    return CoordinateEffortLaw(
        constant=np.concatenate([law.constant for law in laws]), input_gain=gain,
        linear=np.concatenate([law.linear for law in laws]), cubic=np.concatenate([law.cubic for law in laws]),
        damping=np.concatenate([law.damping for law in laws]))
