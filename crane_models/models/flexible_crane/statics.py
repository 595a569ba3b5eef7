"""Static equilibrium (the joints held), the equilibrium of the elastic coordinates with the loads of a time (the
equilibrium start), the highest natural frequency and the explicit stepper's stable step of a :class:`FlexibleCrane`,
and the link's deflection: analyses of the model at a state."""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ...core.kane import Kinematics, MultibodySystem

__all__ = ["static_equilibrium", "elastic_equilibrium", "EQUILIBRIUM_TOL", "highest_frequency", "stable_step",
           "link_deflection", "RK23_STABLE_H_OMEGA", "DOP853_STABLE_H_OMEGA", "FlexibleStructure"]


class FlexibleStructure(Protocol):
    """What these analyses read of a :class:`.crane.FlexibleCrane` (which calls them, so they name it by what it
    offers and the two modules import in one direction)."""

    n: int
    n_state: int  # the state's coordinates (n, or fewer with a reduced link)
    system: MultibodySystem
    params: object  # FlexibleCraneParameters: g
    free_static: np.ndarray
    total_mass: float
    i_root: int  # link (c,2)'s first element, its last, and link (c,3): body indices
    i_last: int
    i_link3: int

    def static_forces(self, q: np.ndarray) -> np.ndarray: ...

    def mass_matrix(self, q: np.ndarray) -> np.ndarray: ...

    def evaluate(self, t: float, q: np.ndarray, u: np.ndarray, z: np.ndarray, column_torque: float) -> dict: ...


def static_equilibrium(crane: FlexibleStructure, q0: np.ndarray, free: np.ndarray | None = None,
                       extra_forces=None, tol: float = 1e-9, max_iter: int = 30) -> np.ndarray:
    """Static analysis: the coordinates ``free`` (default: base and link (c,2) deformations) that make
    gravity + springs (+ ``extra_forces(q)``) vanish there, with the other coordinates held at ``q0``.

    Newton's method with a forward-difference Jacobian (numpy only, so it can run inside an FMU). Converged
    when the residual is below ``tol`` × the weight, or when a Newton step no longer changes ``q`` beyond
    rounding: with very stiff supports (``s_z = 1e12`` N/m) the residual cannot fall below about
    ``s_z`` × the rounding of a 1 m position (2e-4 N), far above ``tol`` × the weight.
    """
    free = crane.free_static if free is None else np.asarray(free)
    q = np.array(q0, dtype=float)

    def residual(qq: np.ndarray) -> np.ndarray:
        r = crane.static_forces(qq)
        if extra_forces is not None:
            r = r + extra_forces(qq)
        return r[free]

    scale = max(1.0, crane.total_mass * crane.params.g)
    for _ in range(max_iter):
        r = residual(q)
        if np.max(np.abs(r)) < tol * scale:
            return q
        J = np.empty((len(free), len(free)))
        for j, i in enumerate(free):
            h = 1e-7
            qh = q.copy()
            qh[i] += h
            J[:, j] = (residual(qh) - r) / h
        step = np.linalg.solve(J, r)
        q[free] -= step
        if np.max(np.abs(step)) <= 4.0 * np.finfo(float).eps * max(1.0, float(np.max(np.abs(q[free])))):
            return q
    raise RuntimeError(f"static analysis did not converge (residual {np.max(np.abs(residual(q))):.3g})")


# Accelerations of the coordinates solved for below the equilibrium start leaves [m/s², rad/s²], as a fraction of g:
# far below what any load of the crane gives them (the undeformed start of (23): up to 1.5e3 rad/s² on the elements
# of a 16-element link), and above the rounding of the accelerations (≈ 1e-16 × the element spring terms, 1e-11).
EQUILIBRIUM_TOL = 1e-9


def elastic_equilibrium(crane: FlexibleStructure, q0: np.ndarray, u0: np.ndarray, z0: np.ndarray, t: float = 0.0,
                        column_torque: float = 0.0, max_iter: int = 20) -> np.ndarray:
    """The coordinates ``free`` (the base on its supports and the link's elastic coordinates: element rotations or
    reduced ones) at which their accelerations vanish at ``(t, q, u0, z0)`` under the model's own equations
    (:meth:`FlexibleCrane.evaluate`: gravity, springs, the drive (21) and input, the programmed constraints'
    multipliers, friction), the joints held at ``q0``; returns ``q``.

    The elastic coordinates in equilibrium with the loads acting at ``t`` -- also the inertia of the joints'
    accelerations there, which the constraints (a Baumgarte pull when E starts off its path) and the drive give them:
    the state the link and supports reach when those loads build up slowly compared with their periods (ms) and
    fast compared with the joints' motion. Newton's method on the accelerations, the Jacobian by central
    differences (numpy only, it runs inside the FMU); converged when every acceleration solved for is below
    ``EQUILIBRIUM_TOL`` × g [m/s², rad/s²], or when a step no longer changes ``q`` beyond rounding (very stiff
    supports, as :func:`static_equilibrium`)."""
    free = crane.free_static
    q = np.array(q0, dtype=float)
    u, z = np.asarray(u0, dtype=float), np.asarray(z0, dtype=float)

    def accelerations(qq: np.ndarray) -> np.ndarray:
        return crane.evaluate(t, qq, u, z, column_torque)["udot"][free]

    tol = EQUILIBRIUM_TOL * crane.params.g
    for _ in range(max_iter):
        a = accelerations(q)
        if np.max(np.abs(a)) <= tol:
            return q
        J = np.empty((len(free), len(free)))
        for j, i in enumerate(free):
            h = 1e-8  # deflections are 1e-5..1e-3 (m, rad): the difference resolves them, the model is smooth there
            qp, qm = q.copy(), q.copy()
            qp[i] += h
            qm[i] -= h
            J[:, j] = (accelerations(qp) - accelerations(qm)) / (2.0 * h)
        step = np.linalg.solve(J, a)
        q[free] -= step
        if np.max(np.abs(step)) <= 4.0 * np.finfo(float).eps * max(1.0, float(np.max(np.abs(q[free])))):
            return q  # rounding-limited: very stiff supports (as static_equilibrium)
    raise RuntimeError(f"the equilibrium start did not converge (largest acceleration "
                       f"{np.max(np.abs(accelerations(q))):.3g} after {max_iter} Newton steps)")


def highest_frequency(crane: FlexibleStructure, q: np.ndarray) -> float:
    """Largest natural frequency [rad/s] of the undamped structure linearized at ``q`` (the state's coordinates):
    ``√λ_max`` of ``M⁻¹ K`` with ``K = −∂(gravity + springs)/∂q`` (forward differences)."""
    n = crane.n_state
    f0 = crane.static_forces(q)
    K = np.empty((n, n))
    for i in range(n):
        qh = q.copy()
        qh[i] += 1e-7
        K[:, i] = -(crane.static_forces(qh) - f0) / 1e-7
    M = crane.mass_matrix(q)
    lam = np.linalg.eigvals(np.linalg.solve(M, K))
    return float(math.sqrt(max(float(np.max(lam.real)), 0.0)))


# Imaginary-axis stability limit of the Bogacki-Shampine 3(2) pair is |h ω| = √3; keep a margin.
RK23_STABLE_H_OMEGA = 1.5
# DOP853's is 5.96 (|R(iy)| <= 1 for y up to there: tests/test_dop853.py computes it from the tableau); the same
# margin (0.87 of the limit). Dormand-Prince 5(4) keeps RK23's cap, as before: its own limit on the imaginary
# axis is lower (about 1.0, with a growth of 0.3 % a step at 1.5), but accuracy holds its step far below the cap
# on the undamped modes (h ω_max 0.26 with 4 elements), and with damped elements the fast modes leave the axis.
DOP853_STABLE_H_OMEGA = 5.2


def stable_step(crane: FlexibleStructure, q: np.ndarray, stepper: str = "rk23") -> float:
    """Largest step of an explicit stepper that keeps the stiffest (undamped) mode stable: ``1.5 / ω_max``
    (RK23's stability limit is ``√3 / ω_max``; DP5 keeps that cap), ``5.2 / ω_max`` for DOP853 (limit ``5.96 /
    ω_max``). With 4 elements ``ω_max ≈ 4.8e3 rad/s`` (local torsion of the elements), so RK23's ``h ≤ 3.1e-4
    s``; with the rigid link ``ω_max ≈ 250 rad/s`` (base on its supports). The LuGre/Dahl states of Table 1 are
    not stiff (``σ0 |q̇| / g`` is a few 1/s), so they do not limit the step."""
    factor = DOP853_STABLE_H_OMEGA if stepper == "dop853" else RK23_STABLE_H_OMEGA
    return factor / highest_frequency(crane, q)


# (name, unit, description) -- the public contract of the FMU, in this order.


def link_deflection(crane: FlexibleStructure, kin: Kinematics) -> dict:
    """Tip of link (c,2) relative to its undeformed position, in the frame of the root element, and the
    twist of the tip frame about the link axis (relative to the root's).

    ``R0ᵀ d`` and ``(R0ᵀ R_last)[2, 1:]`` are written as plain sums of three products, so that the kernel
    (``mbs_task_outputs``) repeats them bit for bit: numpy's ``@`` may go through BLAS, whose summation order and fused
    multiply-adds are the library's, and these outputs are small differences (a rigid link's are rounding noise)."""
    r0, rl = crane.i_root, crane.i_last
    R0, Rl = kin.rotation[r0].tolist(), kin.rotation[rl].tolist()
    d = (kin.origin[crane.i_link3] - kin.origin[r0]).tolist()  # to the link (c,3) pivot = end of link (c,2)

    def turned(i: int, v) -> float:  # (R0ᵀ v)[i]
        return R0[0][i] * v[0] + R0[1][i] * v[1] + R0[2][i] * v[2]

    return {"link2_deflection_y": turned(1, d), "link2_deflection_z": turned(2, d),
            "link2_torsion": math.atan2(turned(2, [row[1] for row in Rl]), turned(2, [row[2] for row in Rl]))}
