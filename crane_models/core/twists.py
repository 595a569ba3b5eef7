"""Body twists by the paper's screw transformations, body by body (Cibicik & Egeland 2018, eqs. (18)-(25)): an
evaluation independent of the projection matrices of :mod:`core.kane`, against which the tests check them."""
from __future__ import annotations

import numpy as np

from .kane import MultibodySystem
from .screws import axis_rotation, combined_screw_transform, screw_reference_transform

__all__ = ["twists_by_screw_transformations"]


def twists_by_screw_transformations(system: MultibodySystem, q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Twists ``t_{0k/m_k}^k`` body by body with eqs. (18)-(25) (a second, independent evaluation).

    For each body: the parent's twist referenced to its own origin (18) is carried to the COG of the
    child in child coordinates with ``V`` (23)-(24), and the joint twist ``θ̇ L`` referenced to the
    child's COG is added (25).
    """
    kin = system.kinematics(q, u)
    out = np.zeros((system.nb, 6))
    origin_twist = np.zeros((system.nb, 6))
    for k, b in enumerate(system.bodies):
        r_rel = system.rotation0[k]
        p_rel = system.offset[k]
        if system.revolute[k]:
            r_rel = r_rel @ axis_rotation(system.axis[k], kin.theta[k])
        elif system.prismatic[k]:
            p_rel = p_rel + r_rel @ (kin.theta[k] * system.axis[k])
        joint_line = np.zeros(6)
        if system.revolute[k]:
            joint_line[:3] = system.axis[k]
        elif system.prismatic[k]:
            joint_line[3:] = system.axis[k]
        relative = joint_line * kin.theta_dot[k]  # t_{p,k/k}^k, eqs. (14)-(15)
        u_mk = screw_reference_transform(-system.com[k])  # U^k_{m_k,k}
        p = system.parent[k]
        if p < 0:
            out[k] = u_mk @ relative
        else:
            # V^{k,p}_{m_k,p}: p^p_{k,p} = −p_rel (from origin k to origin p, parent coordinates).
            v = combined_screw_transform(r_rel.T, -p_rel, -system.com[k])
            out[k] = v @ origin_twist[p] + u_mk @ relative
        origin_twist[k] = screw_reference_transform(system.com[k]) @ out[k]  # back to origin k (18)
    return out
