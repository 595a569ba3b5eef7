"""Kane's equations with projection matrices, for any tree of rigid bodies (Cibicik & Egeland 2018, §2.3, §3.2).

A system is *data*: a list of :class:`Body` records (parent, joint screw, joint map, mass, inertia, COG).
:class:`MultibodySystem` walks that list and evaluates, for a state ``(q, u)`` with ``u = q̇``:

* the projection matrices ``P_k = ∂t_{0k/m_k}/∂u`` of eq. (28) and their time derivatives ``Ṗ_k``;
* the mass matrix ``M`` (44), the Coriolis/centrifugal matrix ``C`` (44) and the generalized forces
  ``τ = Σ P_kᵀ Π W_e`` (46) of ``M u̇ + C u = τ`` (43).

Joint lines are kept as screws in Plücker coordinates. They are carried to the inertial frame by screw
transformations (6), summed along the path of each body (the twist of a body is the sum of the joint
twists on its path, eq. (16)/(25)), and brought back to the COG of each body in body coordinates by
the screw transformation ``R̄^k_0 U^0_{m_k,0}`` -- which gives exactly the ``P_k`` of eq. (28).
:func:`core.twists.twists_by_screw_transformations` evaluates the same twists body by body with eqs. (18)-(25).

A joint coordinate ``θ_k`` may be a nonlinear function of one generalized coordinate, ``θ_k = f(q_i)``:
that is how the closed loops of the hydraulic cylinders enter (``α_k(q_k)``, ``β_k(q_k)`` of §3.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from .native import NativeSystem, library
from .screws import skew

__all__ = ["Body", "JointMap", "MultibodySystem", "Kinematics"]

# θ, dθ/dq, d²θ/dq² as functions of one generalized coordinate q.
JointMap = Callable[[float], tuple]


def identity_map(q: float) -> tuple:
    return q, 1.0, 0.0


_EYE3 = np.eye(3)
# skew_stack(v) = (v @ _SKEW).reshape(-1, 3, 3): the skew matrices of a stack of vectors in one product.
_SKEW = np.zeros((3, 9))
for _i, (_r, _c, _sgn) in enumerate([(0, 1, -1), (0, 2, 1), (1, 0, 1), (1, 2, -1), (2, 0, -1), (2, 1, 1)]):
    _SKEW[[2, 1, 2, 0, 1, 0][_i], 3 * _r + _c] = _sgn


def skew_stack(v: np.ndarray) -> np.ndarray:
    """Skew matrices of a stack of 3-vectors, shape (k, 3, 3)."""
    return (v @ _SKEW).reshape(-1, 3, 3)


def solve_spd(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``M⁻¹ b`` for the mass matrix. numpy only: the FMUs must not load scipy, whose compiled
    extensions crash native hosts at exit (see tests/test_clean_exit.py)."""
    return np.linalg.solve(M, b)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of two (k, 3) stacks (``np.cross`` costs ten times more on tiny arrays)."""
    return (skew_stack(a) @ b[:, :, None])[:, :, 0]


@dataclass(frozen=True)
class Body:
    """One rigid body and the joint that attaches it to its parent.

    The body frame is the parent frame moved by ``offset`` (parent coordinates), turned by
    ``rotation0``, then moved by the joint: a rotation by ``θ`` about ``axis`` (revolute) or a
    translation ``θ·axis`` (prismatic); ``axis`` is given in body coordinates. ``θ = joint_map(q[coordinate])``.
    ``com`` is the COG in body coordinates, ``inertia`` the inertia tensor about the COG in body
    coordinates (``M^i_{m_i}`` of eq. (45)).
    """

    name: str
    parent: Optional[str]
    joint: str = "revolute"  # "revolute" | "prismatic" | "fixed"
    axis: tuple = (0.0, 0.0, 1.0)
    offset: tuple = (0.0, 0.0, 0.0)
    coordinate: Optional[int] = None
    joint_map: JointMap = identity_map
    mass: float = 0.0
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    com: tuple = (0.0, 0.0, 0.0)
    rotation0: np.ndarray = field(default_factory=lambda: np.eye(3))


@dataclass
class Kinematics:
    """Everything that follows from ``(q, u)``; arrays are stacked over bodies (first index)."""

    q: np.ndarray
    u: np.ndarray
    rotation: np.ndarray  # R^0_k, (nb, 3, 3)
    origin: np.ndarray  # origin of Frame k in Frame 0, (nb, 3)
    cog: np.ndarray  # COG of body k in Frame 0, (nb, 3)
    P: np.ndarray  # projection matrices, COG reference, body coordinates (nb, 6, n)
    Pdot: np.ndarray  # their time derivatives (nb, 6, n)
    twist: np.ndarray  # t_{0k/m_k}^k = P_k u, (nb, 6)
    theta: np.ndarray  # joint coordinates θ_k, (nb,)
    theta_dot: np.ndarray  # joint rates, (nb,)
    PP: Optional[np.ndarray] = None  # [P | Ṗ] as (nb, 2, 3, 2n), used by the fast paths
    G: Optional[np.ndarray] = None  # ∂θ̇_k/∂u, (nb, n)
    cog_jacobian: Optional[np.ndarray] = None  # ∂(COG velocity in Frame 0)/∂u, (nb, 3, n)
    M: Optional[np.ndarray] = None  # mass matrix (44), when the compiled kernel computed it
    C: Optional[np.ndarray] = None  # Coriolis matrix (44), idem
    mgz: Optional[np.ndarray] = None  # Σ m_k ∂ż_k/∂u, the weight term of (46), idem
    record: Optional[np.ndarray] = None  # the kernel's record behind all the arrays above
    udot: Optional[np.ndarray] = None  # u̇ of (43), when a StateDerivative computed it
    efforts: Optional[np.ndarray] = None  # the effort law's generalized forces, idem
    xdot: Optional[np.ndarray] = None  # [u; u̇], idem


class MultibodySystem:
    """A tree of rigid bodies with one scalar joint each; the generalized speeds are ``u = q̇``."""

    def __init__(self, bodies: Sequence[Body], n_coordinates: int, native: bool = True):
        names = [b.name for b in bodies]
        if len(set(names)) != len(names):
            raise ValueError("body names must be unique")
        self.bodies = list(bodies)
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.n = int(n_coordinates)
        nb = self.nb = len(bodies)
        self.parent = np.full(nb, -1, dtype=int)
        for i, b in enumerate(bodies):
            if b.parent is not None:
                if b.parent not in self.index or self.index[b.parent] >= i:
                    raise ValueError(f"parent of {b.name!r} must be listed before it")
                self.parent[i] = self.index[b.parent]
            if b.coordinate is not None and not 0 <= b.coordinate < self.n:
                raise ValueError(f"coordinate of {b.name!r} must be in [0, {self.n - 1}]")
        self.axis = np.array([np.asarray(b.axis, float) / np.linalg.norm(b.axis) for b in bodies])
        self.offset = np.array([np.asarray(b.offset, float) for b in bodies])
        self.rotation0 = np.array([np.asarray(b.rotation0, float) for b in bodies])
        self.revolute = np.array([b.joint == "revolute" and b.coordinate is not None for b in bodies])
        self.prismatic = np.array([b.joint == "prismatic" and b.coordinate is not None for b in bodies])
        self.mass = np.array([float(b.mass) for b in bodies])
        self.inertia = np.array([np.asarray(b.inertia, float) for b in bodies])
        self.com = np.array([np.asarray(b.com, float) for b in bodies])
        self.moving = [i for i, b in enumerate(bodies) if b.coordinate is not None]
        # path[k, j] = 1 when joint j lies on the path from the root to body k (j = k included).
        self.path = np.zeros((nb, nb))
        for k in range(nb):
            j = k
            while j >= 0:
                self.path[k, j] = 1.0
                j = self.parent[j]
        self.children_sum = np.zeros((nb, nb))  # children_sum[p, k] = 1 when body p is the parent of body k
        for k in range(nb):
            if self.parent[k] >= 0:
                self.children_sum[self.parent[k], k] = 1.0
        self.local_mass_matrix = np.zeros((nb, 6, 6))  # D_k of eq. (45)
        self.local_mass_matrix[:, :3, :3] = self.inertia
        self.local_mass_matrix[:, 3:, 3:] = self.mass[:, None, None] * np.eye(3)
        self._mass3 = self.mass[:, None, None]
        self._partitions = {}  # see _partition
        self._prepare_fast_paths()
        lib = library() if native else None
        self.native = NativeSystem(lib, self) if lib is not None else None

    # -- kinematics ------------------------------------------------------------------------------
    def _prepare_fast_paths(self) -> None:
        """Constant arrays that let :meth:`kinematics` treat all bodies with a few batched operations."""
        nb = self.nb
        k = np.array([skew(a) for a in self.axis]) * self.revolute[:, None, None]
        self._K, self._K2 = k, k @ k
        self._trans_axis = np.einsum("kij,kj->ki", self.rotation0, self.axis) * self.prismatic[:, None]
        # Path of every body padded with index nb, an identity transform.
        depth = int(self.path.sum(axis=1).max())
        self._path_idx = np.full((nb, depth), nb, dtype=int)
        for b in range(nb):
            chain = list(np.flatnonzero(self.path[b]))  # parents are listed before children
            self._path_idx[b, depth - len(chain):] = chain
        self._rev = self.revolute[:, None].astype(float)
        self._pri = self.prismatic[:, None].astype(float)
        # A relative transform is linear in (1, sin θ, cos θ, θ): T = Σ coef_i B_i (Rodrigues' formula for
        # the rotation, θ·axis for the translation), so all of them come out of one batched product.
        basis = np.zeros((nb + 1, 4, 4, 4))
        for b in range(nb):
            r0, kk, k2 = self.rotation0[b], self._K[b], self._K2[b]
            basis[b, 0, :3, :3] = r0 @ (np.eye(3) + k2)
            basis[b, 0, :3, 3] = self.offset[b]
            basis[b, 0, 3, 3] = 1.0
            basis[b, 1, :3, :3] = r0 @ kk
            basis[b, 2, :3, :3] = -(r0 @ k2)
            basis[b, 3, :3, 3] = self._trans_axis[b]
        basis[nb, 0] = np.eye(4)
        self._basis = basis.reshape(nb + 1, 4, 16)
        self._coef_template = np.zeros((nb + 1, 4))
        self._coef_template[:, 0] = 1.0
        self._coord_all = np.array([b.coordinate if b.coordinate is not None else 0 for b in self.bodies], dtype=int)
        moving = np.zeros(nb)
        moving[self.moving] = 1.0
        self._moving_mask = moving
        self._onehot = np.zeros((nb, self.n))  # row k selects the coordinate of body k
        self._onehot[self.moving, self._coord_all[self.moving]] = 1.0
        self._maps = [(k, self.bodies[k].joint_map) for k in self.moving if self.bodies[k].joint_map is not identity_map]

    def joint_coordinates(self, q: np.ndarray, u: np.ndarray) -> tuple:
        """Joint coordinates θ_k, the rows ``G_k = ∂θ̇_k/∂u`` and their rates ``Ġ_k``."""
        qc = q[self._coord_all]
        theta = qc * self._moving_mask
        d1 = self._moving_mask.copy()
        d2 = np.zeros(self.nb)
        for k, fmap in self._maps:
            theta[k], d1[k], d2[k] = fmap(float(qc[k]))
        return theta, d1[:, None] * self._onehot, (d2 * u[self._coord_all])[:, None] * self._onehot

    def kinematics(self, q: np.ndarray, u: np.ndarray) -> Kinematics:
        """Positions, projection matrices ``P_k`` (28) and ``Ṗ_k`` of every body.

        Screws are stored as (…, 2, 3) arrays -- angular and linear half -- so that one batched product
        rotates or shifts both halves of ``P`` and ``Ṗ`` together.
        """
        if self.native is not None:
            return self._native_kinematics(q, u)
        q = np.asarray(q, dtype=float)
        u = np.asarray(u, dtype=float)
        nb, n = self.nb, self.n
        theta, G, Gdot = self.joint_coordinates(q, u)
        # Relative transforms: rotation (Rodrigues) or translation along the joint axis.
        coef = self._coef_template.copy()
        np.sin(theta, out=coef[:nb, 1])
        np.cos(theta, out=coef[:nb, 2])
        coef[:nb, 3] = theta
        rel = (coef[:, None, :] @ self._basis).reshape(nb + 1, 4, 4)
        # Absolute transforms: product of the relative ones along each path.
        chain = rel[self._path_idx]
        T = chain[:, 0]
        for d in range(1, chain.shape[1]):
            T = T @ chain[:, d]
        R0, o = T[:, :3, :3], T[:, :3, 3]
        # Joint screws in Frame 0, referenced to its origin: lines (3) or lines at infinity (15).
        a_w = (R0 @ self.axis[:, :, None])[:, :, 0]
        scr = np.empty((nb, 2, 3))
        scr[:, 0] = a_w * self._rev
        scr[:, 1] = _cross(o, scr[:, 0]) + a_w * self._pri
        # Twists: the twist of a body is the sum of the joint twists on its path (16), (25).
        theta_dot = G @ u
        V = (self.path @ (scr * theta_dot[:, None, None]).reshape(nb, 6)).reshape(nb, 2, 3)
        # A joint screw is fixed in its body: ṡ = (V ×) s = [ω × a; v × a + ω × m].
        vx = skew_stack(V.reshape(-1, 3)).reshape(nb, 2, 3, 3)  # [ω̂, v̂]
        sdot = (vx @ scr[:, 0, None, :, None])[..., 0]  # [ω × a, v × a]
        sdot[:, 1] += (vx[:, 0] @ scr[:, 1, :, None])[..., 0]  # + ω × m
        # [J | J̇] in one sum along the paths.
        g4, gd4 = G[:, None, None, :], Gdot[:, None, None, :]
        jj_in = np.empty((nb, 2, 3, 2 * n))
        np.multiply(scr[..., None], g4, out=jj_in[..., :n])
        np.multiply(sdot[..., None], g4, out=jj_in[..., n:])
        jj_in[..., n:] += scr[..., None] * gd4
        JJ = (self.path @ jj_in.reshape(nb, 12 * n)).reshape(nb, 2, 3, 2 * n)
        # Reference the COG (8): v_m = v_0 + ω × c, and its rate.
        cog = o + (R0 @ self.com[:, :, None])[:, :, 0]
        JJ[:, 1] -= skew_stack(cog) @ JJ[:, 0]
        cog_dot = JJ[:, 1, :, :n] @ u
        JJ[:, 1, :, n:] -= skew_stack(cog_dot) @ JJ[:, 0, :, :n]
        # Body coordinates: P = R̄^k_0 J_c,  Ṗ = R̄^k_0 J̇_c − ω^k × P.
        PP = R0.transpose(0, 2, 1)[:, None] @ JJ
        twist = PP[..., :n] @ u
        PP[..., n:] -= skew_stack(twist[:, 0])[:, None] @ PP[..., :n]
        P = PP[..., :n].reshape(nb, 6, n)
        Pd = PP[..., n:].reshape(nb, 6, n)
        return Kinematics(q, u, R0, o, cog, P, Pd, twist.reshape(nb, 6), theta, theta_dot, PP, G, JJ[:, 1, :, :n])

    def _native_kinematics(self, q: np.ndarray, u: np.ndarray) -> Kinematics:
        """:meth:`kinematics`, plus ``M``, ``C`` and the weight term, from the compiled kernel
        (a :class:`native.NativeKinematics`, which has the attributes of :class:`Kinematics`)."""
        return self.native.evaluate(q, u)

    def solve(self, M: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``M⁻¹ b`` for the (symmetric positive definite) mass matrix or a diagonal block of it: Cholesky in
        the kernel when it is loaded, :func:`solve_spd` otherwise (and for a matrix that is not positive
        definite)."""
        if self.native is not None and 1 <= b.ndim <= 2 and M.ndim == 2 and len(b) == M.shape[0] == M.shape[1]:
            x = self.native.solve_spd(M, b)
            if x is not None:
                return x
        return solve_spd(M, b)

    def solve_with(self, kin: Kinematics, b: np.ndarray) -> np.ndarray:
        """``M⁻¹ b`` with the mass matrix at ``kin``: one product when the kernel delivered ``M⁻¹`` with the
        kinematics (small systems), :meth:`solve` otherwise."""
        Minv = getattr(kin, "Minv", None)
        if Minv is not None:
            return Minv @ b
        return self.solve(kin.M if kin.M is not None else self.mass_and_coriolis(kin)[0], b)

    # -- equations of motion (43)-(46) -------------------------------------------------------------
    def mass_and_coriolis(self, kin: Kinematics) -> tuple:
        """``M = Σ P_kᵀ D_k P_k`` and ``C = Σ P_kᵀ (D_k Ṗ_k + G_k P_k)`` of eq. (44), in one pass.

        The paper writes ``W_k D_k`` with ``W_k = diag(ω̂, ω̂)`` (45). ``G_k = diag(−(M_m ω)^, m ω̂)``
        gives the same ``G_k t = W_k D_k t`` (so the same ``C u``) but is skew-symmetric, which is what
        makes ``Ṁ − 2C`` skew-symmetric as stated below (45); with ``W_k D_k`` that holds only for
        spherical inertia tensors.
        """
        if kin.M is not None:
            return kin.M, kin.C
        n = self.n
        PP = kin.PP
        w = kin.twist[:, :3]
        ang = self.inertia @ PP[:, 0]  # [M_m P_ω | M_m Ṗ_ω]
        ang[..., n:] -= skew_stack((self.inertia @ w[:, :, None])[:, :, 0]) @ PP[:, 0, :, :n]
        lin = self._mass3 * PP[:, 1]  # [m P_v | m Ṗ_v]
        lin[..., n:] += self._mass3 * (skew_stack(w) @ PP[:, 1, :, :n])
        rhs = np.concatenate((ang, lin), axis=1).reshape(-1, 2 * n)
        mc = kin.P.reshape(-1, n).T @ rhs
        return mc[:, :n], mc[:, n:]

    def mass_matrix(self, kin: Kinematics) -> np.ndarray:
        """``M = Σ P_kᵀ D_k P_k`` (44)."""
        return self.mass_and_coriolis(kin)[0]

    def coriolis_matrix(self, kin: Kinematics) -> np.ndarray:
        """``C`` of eq. (44); see :meth:`mass_and_coriolis`."""
        return self.mass_and_coriolis(kin)[1]

    def generalized_forces(self, kin: Kinematics, wrenches: np.ndarray) -> np.ndarray:
        """``τ = Σ P_kᵀ Π W_e^k`` (46); ``wrenches`` are ``[f; n]`` at each COG in body coordinates."""
        return np.einsum("kai,ka->i", kin.P, np.concatenate((wrenches[:, 3:], wrenches[:, :3]), axis=1))

    def gravity_forces(self, kin: Kinematics, g: float) -> np.ndarray:
        """Generalized gravity forces ``Σ P_kᵀ Π W_g`` (46), evaluated in Frame 0 where the weights are
        constant: ``−g Σ m_k ∂ż_k/∂u``."""
        if kin.mgz is not None:
            return -g * kin.mgz
        return -g * (self.mass @ kin.cog_jacobian[:, 2, :])

    def joint_forces(self, kin: Kinematics, bodies: Sequence[int], efforts: np.ndarray) -> np.ndarray:
        """Generalized forces of efforts acting along the joints of ``bodies`` (a torque about a revolute
        axis, a force along a prismatic one, with the reaction on the parent): ``Σ e_j ∂θ̇_j/∂u`` -- the
        same as ``Σ Pᵀ Π W`` (46) of the equivalent pair of wrenches, by virtual power."""
        return efforts @ kin.G[bodies]

    def gravity_wrenches(self, kin: Kinematics, g: float) -> np.ndarray:
        """Weight of every body as a wrench at its COG in body coordinates (first term of (67)-(68))."""
        wr = np.zeros((self.nb, 6))
        wr[:, :3] = -g * self.mass[:, None] * kin.rotation[:, 2, :]  # R^k_0 [0, 0, −m g]
        return wr

    def accelerations(self, kin: Kinematics, tau: np.ndarray) -> tuple:
        """Solve (43) for ``u̇``; returns ``(u̇, M, C)``."""
        M, C = self.mass_and_coriolis(kin)
        return self.solve_with(kin, tau - C @ kin.u), M, C

    def accelerations_with_prescribed(self, kin: Kinematics, tau: np.ndarray, prescribed: Sequence[int],
                                      prescribed_udot: np.ndarray) -> tuple:
        """Solve (43) when the speeds ``prescribed`` follow a given motion (a moving base, a driven joint):
        ``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p``. Returns ``(u̇, M, C)`` with the full ``u̇``.

        The efforts that realise the prescribed motion are ``(M u̇ + C u − τ)_p``; the reaction wrenches
        come out of :mod:`reactions` with the full ``u̇`` as usual.
        """
        M, C = self.mass_and_coriolis(kin)
        p, f, ff = self._partition(prescribed)
        udot = np.zeros(self.n)
        udot[p] = prescribed_udot
        rhs = (tau - C @ kin.u - M[:, p] @ udot[p])[f]
        udot[f] = self.solve(M[ff], rhs)
        return udot, M, C

    def _partition(self, prescribed: Sequence[int]) -> tuple:
        """Prescribed and free indices and the free block's index (made once per set: a model asks for the
        same set at every evaluation)."""
        key = tuple(int(i) for i in prescribed)
        cached = self._partitions.get(key)
        if cached is None:
            p = np.array(key, dtype=int)
            f = np.setdiff1d(np.arange(self.n), p)
            cached = self._partitions[key] = (p, f, np.ix_(f, f))
        return cached

    def body_accelerations(self, kin: Kinematics, udot: np.ndarray) -> np.ndarray:
        """``ṫ_{0k/m_k} = P_k u̇ + Ṗ_k u`` of eq. (27), stacked (nb, 6)."""
        return kin.P @ udot + kin.Pdot @ kin.u

    def inertial_wrenches(self, kin: Kinematics, udot: np.ndarray) -> np.ndarray:
        """Inertial wrenches ``W_in = Π (D ṫ + W D t)`` of eqs. (47)-(48), as ``[f; n]`` at each COG."""
        if self.native is not None and kin.record is not None:
            return self.native.inertial_wrenches(self.native.projections_record(kin), udot)
        tdot = self.body_accelerations(kin, udot)
        w, v = kin.twist[:, :3], kin.twist[:, 3:]
        wx = skew_stack(w)
        n = (self.inertia @ tdot[:, :3, None] + wx @ (self.inertia @ w[:, :, None]))[:, :, 0]
        f = self.mass[:, None] * (tdot[:, 3:] + (wx @ v[:, :, None])[:, :, 0])
        return np.concatenate((f, n), axis=1)

    def kinetic_energy(self, kin: Kinematics) -> float:
        return 0.5 * float(kin.u @ self.mass_matrix(kin) @ kin.u)

    def potential_energy(self, kin: Kinematics, g: float) -> float:
        return float(g * self.mass @ kin.cog[:, 2])
