"""Crane with flexible supports, a flexible link, joint friction and programmed motion
(Jarzębowska, Urbaś & Augustynek, *Analysis of influence of a crane flexible supports, link flexibility,
and joint friction on vibration associated with programmed motion execution*, J. Vib. Eng. Technol. 2019).

Bodies (Fig. 2, eqs. (9), (12)) as data for the Kane core (:mod:`kane`):

* base (b): six coordinates ``x, y, z, ψ, θ, φ`` -- three prismatic joints along x0, y0, z0 and three
  revolute joints about z, y, x through massless intermediate bodies (``T̃^(b)`` of (12), ZYX angles);
  it rests on eight springs (20) (:class:`springs.PointSprings`);
* column (c,1): ``ψ^(c,1)`` about z^(b);
* link (c,2): ``n_rfe`` rigid finite elements (7); element 0 turns about the horizontal pivot at height
  ``l1`` (``ψ^(c,2,0)``), element r ≥ 1 is joined to element r−1 by a spring-damping element with the three
  rotations ``ψ, θ, φ`` about z, y, x (8) -- three revolute joints in series through massless bodies;
* link (c,3): ``ψ^(c,3)`` about the pivot at the end of link (c,2); E at ``l3`` on its x axis, carrying
  the load ``m_E``.

Generalized coordinates ``q = [q̃^(b), ψ^(c,1), ψ^(c,2,0), q̃^(c,2,1..n_rfe−1), ψ^(c,3)]`` (9);
``n_dof = 9 + 3 (n_rfe − 1)``. The state is ``x = [q, q̇, z]`` with the bristle deflections ``z`` of the
three joints (14).

Forces: gravity, support springs (20), element springs ``−S q̃ − c q̇`` (8), (20), the driving torque
(21) plus the input on the column, friction torques (13)-(15) in the joints (c,1), (c,2,0), (c,3), and,
when enabled, the programmed constraints (17) as Lagrange multipliers (see :mod:`programmed_motion`).

Joint normal forces (13): the force that the inboard body exerts on the outboard body of a joint is
``Σ_subtree (m a_COG) − Σ_subtree F_ext`` (the force half of the Newton-Euler balance of everything
outboard, eq. (56) of Cibicik & Egeland); ``f_n`` is its part perpendicular to the joint axis. It is
affine in the friction torques, and the friction torques depend on ``f_n``: that loop is closed by a
fixed-point iteration on the three torques (contraction factor ≈ μ d / (2 × lever) ≈ 1e-2; five
passes leave < 1e-9 of the torque).
"""
from __future__ import annotations

import numpy as np

from ...core.effort_laws import CoordinateEffortLaw
from .parameters import (FlexibleCraneInitialState, FlexibleCraneParameters, FrictionTable,
                                        ProgrammedMotionParameters, SupportParameters, friction_arrays,
                                        support_arrays)
from ...core.friction import FRICTION_MODELS, BristleParameters, bristle_rate, check_parameters, friction_coefficient
from ...core.kane import Body, Kinematics, MultibodySystem
from ...core.native import NativeIntegration, NativeKinematics, NativeTask
from ...core.parameters import ParameterError, validate
from ...core.programmed_motion import EllipseHeightConstraint, constrained_accelerations
from ...core.springs import PointSprings, cross, rfe_inertia, rfe_lengths, sde_stiffness
from .reduction import LinkReduction, check_link_options
from .statics import static_equilibrium

__all__ = ["FlexibleCrane", "crane_bodies", "INPUTS", "OUTPUTS"]

_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_RX90 = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # link pivot axis z ⟂ column axis
FRICTION_ITERATIONS = 5


def _box_inertia(m: float, lx: float, ly: float, lz: float) -> np.ndarray:
    return m / 12.0 * np.diag([ly * ly + lz * lz, lx * lx + lz * lz, lx * lx + ly * ly])


def crane_bodies(p: FlexibleCraneParameters, n_rfe: int) -> tuple:
    """The bodies of Fig. 2 as data; returns ``(bodies, n_dof)``."""
    bodies = [Body("base_x", None, "prismatic", _X, coordinate=0),
              Body("base_y", "base_x", "prismatic", _Y, coordinate=1),
              Body("base_z", "base_y", "prismatic", _Z, coordinate=2),
              Body("base_psi", "base_z", "revolute", _Z, coordinate=3),
              Body("base_theta", "base_psi", "revolute", _Y, coordinate=4),
              Body("base", "base_theta", "revolute", _X, coordinate=5, mass=p.m_b,
                   inertia=_box_inertia(p.m_b, p.base_length, p.base_width, p.base_height),
                   com=(0.0, 0.0, -0.5 * p.base_height)),
              Body("column", "base", "revolute", _Z, coordinate=6, mass=p.m1,
                   inertia=p.m1 * np.diag([(3 * p.column_radius ** 2 + p.l1 ** 2) / 12.0] * 2 + [p.column_radius ** 2 / 2]),
                   com=(0.0, 0.0, 0.5 * p.l1))]
    lengths = rfe_lengths(p.l2, n_rfe)
    masses = p.m2 * lengths / p.l2

    def element(r: int, parent: str, axis: tuple, coordinate: int, offset=(0.0, 0.0, 0.0), rotation0=np.eye(3)):
        return Body(f"link2_{r}", parent, "revolute", axis, offset, coordinate, mass=masses[r],
                    inertia=rfe_inertia(masses[r], lengths[r], p.A2, p.I_y2, p.I_z2),
                    com=(0.5 * lengths[r], 0.0, 0.0), rotation0=rotation0)

    bodies.append(element(0, "column", _Z, 7, (0.0, 0.0, p.l1), _RX90))
    c = 8
    for r in range(1, n_rfe):
        prev = f"link2_{r - 1}"
        bodies += [Body(f"link2_{r}_psi", prev, "revolute", _Z, (lengths[r - 1], 0.0, 0.0), c),
                   Body(f"link2_{r}_theta", f"link2_{r}_psi", "revolute", _Y, coordinate=c + 1),
                   element(r, f"link2_{r}_theta", _X, c + 2)]
        c += 3
    s3 = p.section3
    bodies.append(Body("link3", f"link2_{n_rfe - 1}", "revolute", _Z, (lengths[-1], 0.0, 0.0), c, mass=p.m3,
                       inertia=_box_inertia(p.m3, p.l3, s3, s3), com=(0.5 * p.l3, 0.0, 0.0)))
    bodies.append(Body("end_effector", "link3", "fixed", offset=(p.l3, 0.0, 0.0), mass=p.m_E))
    return bodies, c + 1


class FlexibleCrane:
    """Equations of motion of the crane (Kane's form of (6)) with springs, friction and constraints."""

    def __init__(self, params: FlexibleCraneParameters | None = None, supports=None, friction=None,
                 motion: ProgrammedMotionParameters | None = None, n_rfe: int = 4, friction_model: str = "lugre",
                 constraints_enabled: bool = True, paper_torque_enabled: bool = True,
                 init: FlexibleCraneInitialState | None = None, link_modes: int = 0, link_damping_ratio: float = 0.0):
        self.params = p = params if params is not None else FlexibleCraneParameters()
        self.supports_params = supports if supports is not None else SupportParameters()
        self.friction_table = friction if friction is not None else FrictionTable()
        self.motion = motion if motion is not None else ProgrammedMotionParameters()
        for obj in (p, self.supports_params, self.friction_table, self.motion):
            validate(obj)
        if int(n_rfe) != n_rfe or not 1 <= int(n_rfe) <= 64:
            raise ParameterError(f"n_rfe = {n_rfe!r} must be an integer in [1, 64]")
        if friction_model not in FRICTION_MODELS.values():
            raise ParameterError(f"friction model {friction_model!r} must be one of {sorted(FRICTION_MODELS.values())}")
        self.n_rfe = int(n_rfe)
        check_link_options(self.n_rfe, link_modes, link_damping_ratio)
        self.link_modes, self.link_damping_ratio = int(link_modes), float(link_damping_ratio)
        self.friction_model = friction_model
        self.constraints_enabled = bool(constraints_enabled)
        self.paper_torque_enabled = bool(paper_torque_enabled)
        bodies, self.n = crane_bodies(p, self.n_rfe)
        self.system = sys = MultibodySystem(bodies, self.n)
        ix = sys.index
        self.i_base, self.i_column, self.i_link3, self.i_tip = ix["base"], ix["column"], ix["link3"], ix["end_effector"]
        self.i_root, self.i_last = ix["link2_0"], ix[f"link2_{self.n_rfe - 1}"]
        self.joint_bodies = np.array([self.i_column, self.i_root, self.i_link3])
        self.joint_coords = np.array([6, 7, self.n - 1])  # q^(c) of (14)
        self.rfe_coords = np.arange(8, self.n - 1)
        self.free_static = np.concatenate((np.arange(6), self.rfe_coords))  # moved by the static analysis
        pts, k, c = support_arrays(self.supports_params)
        self.supports = PointSprings(self.i_base, pts, k, c)
        if self.n_rfe > 1:
            d = p.l2 / (self.n_rfe - 1)
            stiff = sde_stiffness(p.E, p.G, p.I_y2, p.I_z2, p.J2, d)
        else:
            stiff = np.zeros(3)
        self.k_rfe = np.tile(stiff, self.n_rfe - 1)
        self.c_rfe = p.sde_damping * self.k_rfe
        # The link's options (reduction.py): reduced, or full with modal damping (the kernel's reduced solve with
        # P = I), the modal damping ζ on every mode of the link as a cantilever; sde_damping stays beside it
        self.reduction = None
        if self.link_modes or self.link_damping_ratio > 0.0:
            self.reduction = LinkReduction(bodies, self.n, self.n_rfe, self.k_rfe, self.link_modes or None,
                                           self.link_damping_ratio, self.joint_coords)
        self.n_state = self.n if self.reduction is None else self.reduction.n  # coordinates of the state
        self.state_joint_coords = (self.joint_coords if self.reduction is None
                                   else self.reduction.state_joint_coords)
        if self.reduction is not None:
            self.free_static = np.concatenate((np.arange(6), self.reduction.eta))
        ft = self.friction_table
        self.bristle = BristleParameters(*(friction_arrays(ft, name) for name in
                                           ("mu_s", "mu_k", "sigma0", "sigma1", "sigma2", "gamma", "v_s")))
        check_parameters(self.bristle)
        self.pin_diameter = friction_arrays(ft, "d")
        # Subtree masses for the joint forces: W[k, j] = m_j if body j is outboard of joint k.
        self._subtree_mass = sys.path[:, self.joint_bodies].T * sys.mass[None, :]
        self._extra = np.zeros((self.n_state, 3))
        self._extra[self.state_joint_coords, [0, 1, 2]] = 1.0
        self.law = self._effort_law()
        self._drive = np.zeros(1)  # the law's one input, filled before each kernel call
        self.z_static = None
        self.constraint = None
        self._native = None  # (native system, law, task, integration) of the kernel path, made on first use
        if self.constraints_enabled:
            self.set_programmed_start(init)

    # -- geometry -----------------------------------------------------------------------------------
    @property
    def total_mass(self) -> float:
        return float(self.system.mass.sum())

    def initial_coordinates(self, init: FlexibleCraneInitialState | None = None) -> np.ndarray:
        """``q`` of (23) (the state's: ``q_r`` with a reduced link): base and joints from ``init``, link (c,2)
        undeformed."""
        i = init if init is not None else FlexibleCraneInitialState()
        q = np.zeros(self.n_state)
        q[:6] = [i.x_b0, i.y_b0, i.z_b0, i.psi_b0, i.theta_b0, i.phi_b0]
        q[self.state_joint_coords] = [i.q_c1_0, i.q_c2_0, i.q_c3_0]
        return q

    def full(self, q: np.ndarray) -> np.ndarray:
        """The tree's coordinates (or speeds) of the state's: ``P q_r`` with a reduced link, else ``q``."""
        return q if self.reduction is None else self.reduction.P @ q

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        """The mass matrix of the state's coordinates at rest: ``M`` or ``Pᵀ M P``."""
        M = self.system.mass_matrix(self.system.kinematics(self.full(q), np.zeros(self.n)))
        return M if self.reduction is None else self.reduction.P.T @ M @ self.reduction.P

    def set_programmed_start(self, init: FlexibleCraneInitialState | None) -> None:
        """Static analysis at the initial joint angles (23) gives ``z_E,static`` = ``z_E,s`` of (22)."""
        q_static = static_equilibrium(self, self.initial_coordinates(init))
        self.z_static = float(self.tip_position(self.system.kinematics(self.full(q_static), np.zeros(self.n)))[2])
        m = self.motion
        self.constraint = EllipseHeightConstraint(m.a, m.b, self.z_static, m.z_rise, m.t_c)
        self._native = None  # the kernel's record holds the constraint's parameters

    def tip_position(self, kin: Kinematics) -> np.ndarray:
        return kin.origin[self.i_tip]

    # -- forces -------------------------------------------------------------------------------------
    def drive_torque(self, t: float) -> float:
        """``t_dr^(c,1)(t)`` of eq. (21) (zero when disabled), on ``[0, t_pulse)``: the pulse is off *at*
        its end time, so a step that starts there (a communication point) starts from the right-hand
        value. The end is a declared switching time (:attr:`FlexibleCraneModel.switch_times`), so
        :class:`simulation.CoSimulation` also treats a communication point reached with rounding just
        before it (0.09 + 0.01 = 0.09999999999999999) as the switch."""
        m = self.motion
        on = 0.0 <= t < m.paper_torque_time
        return m.paper_torque if self.paper_torque_enabled and on else 0.0

    def _effort_law(self) -> CoordinateEffortLaw:
        """The spring-damping elements (8), ``−s q̃ − c q̃̇`` per deformation coordinate, and the column
        torque (21) plus input as the law's one input."""
        n, r = self.n, self.rfe_coords
        linear, damping, gain = np.zeros(n), np.zeros(n), np.zeros((n, 1))
        linear[r], damping[r] = -self.k_rfe, -self.c_rfe
        gain[self.joint_coords[0], 0] = 1.0
        return CoordinateEffortLaw(np.zeros(n), gain, linear, np.zeros(n), damping)

    def spring_forces(self, kin: Kinematics) -> np.ndarray:
        """Generalized forces of the supports (20) and of the spring-damping elements (8)."""
        return self.supports.generalized_forces(kin) + self.law.efforts(kin.q, kin.u, np.zeros(1))

    def native_task(self):
        """``(native system, effort law, task, integration)`` for the kernel's ``mbs_task_derivative`` and
        ``mbs_integrate``, or None when the kernel is not loaded (the numpy path of :meth:`evaluate` is the
        specification)."""
        native = self.system.native
        if native is None:
            return None
        if self._native is None or self._native[0] is not native:
            m = self.motion
            task = NativeTask(native, self.supports, self.constraint, self.i_tip, m.alpha, m.beta, self.friction_model,
                              self.joint_bodies, self.joint_coords, self._subtree_mass, self.pin_diameter,
                              self.bristle, FRICTION_ITERATIONS, self.reduction)
            law = native.effort_law(self.law, self.params.g)
            integration = NativeIntegration(native, law, task, self._native_result)
            self._native = (native, law, task, integration)
        return self._native

    def _native_result(self, record: np.ndarray, tail: np.ndarray) -> dict:
        """:meth:`evaluate`'s result from a kernel record and its tail ``[z | ż | λ | t_f | f_n | Φ | F_c]``."""
        system = self._native[0]
        kin = NativeKinematics(record, system._task_layout, system.invert)
        res = tail[3:]
        lam = res[3:5] if self.constraint is not None else res[3:3]
        udot = kin.udot if self.reduction is None else res[res.size - self.n_state:]  # u_r' ends a reduced result
        return {"kin": kin, "drive": float(self._drive[0]), "udot": udot, "zdot": res[:3], "lam": lam,
                "friction_torque": res[5:8], "normal_force": res[8:11], "phi": res[11:13],
                "constraint_force": res[13:16]}

    def static_forces(self, q: np.ndarray) -> np.ndarray:
        """Gravity and spring forces at rest (the residual of the static analysis), on the state's coordinates."""
        kin = self.system.kinematics(self.full(q), np.zeros(self.n))
        f = self.system.gravity_forces(kin, self.params.g) + self.spring_forces(kin)
        return f if self.reduction is None else self.reduction.P.T @ f

    def joint_force_maps(self, kin: Kinematics) -> tuple:
        """World-frame joint forces as ``f_k = S_k u̇ + c_k − F_E``: returns ``(S, c)``, (3, 3, n), (3, 3)."""
        sys = self.system
        tw = kin.twist
        acc_bias = (kin.Pdot[:, 3:, :] @ kin.u) + cross(tw[:, :3], tw[:, 3:])
        acc_bias = (kin.rotation @ acc_bias[:, :, None])[:, :, 0]
        W = self._subtree_mass
        S = np.einsum("kj,jan->kan", W, kin.cog_jacobian)
        c = W @ acc_bias
        c[:, 2] += self.params.g * W.sum(axis=1)
        return S, c

    def tip_kinematics(self, kin: Kinematics) -> tuple:
        """Position, velocity, Jacobian (3, n) and acceleration bias ``J̇ u`` of E in Frame 0."""
        e = self.i_tip
        R = kin.rotation[e]
        tw = kin.twist[e]
        bias = R @ (kin.Pdot[e, 3:] @ kin.u + cross(tw[:3], tw[3:]))
        return kin.origin[e], R @ tw[3:], kin.cog_jacobian[e], bias

    # -- dynamics -----------------------------------------------------------------------------------
    def evaluate(self, t: float, q: np.ndarray, u: np.ndarray, z: np.ndarray, column_torque: float) -> dict:
        """Accelerations, multipliers, friction torques, normal forces and bristle rates at ``(t, q, u, z)``:
        one kernel call (``mbs_task_derivative``) when the kernel is loaded, else the numpy version below,
        which is the specification (tests/test_native.py compares them). ``q``, ``u`` are the state's: with a reduced
        link (or the full one with modal damping, ``reduction.py``) ``q_r``, ``u_r``, and ``udot`` is ``u_r'`` of
        Kane's equations (6) projected on the reduced speeds, ``Pᵀ M P u_r' = Pᵀ (τ − C u + ...) − D u``."""
        drive = self.drive_torque(t) + column_torque
        native = self.native_task()
        if native is not None:
            system, law, task, _ = native
            self._drive[0] = drive
            kin, _ = system.task_derivative(self.full(q), self.full(u), z, law, self._drive, task, t)
            return self._native_result(kin.record[:system.size], kin.record[system.size:])
        sys, red, u_state = self.system, self.reduction, u
        q, u = self.full(q), self.full(u)
        kin = sys.kinematics(q, u)
        maps = self.joint_force_maps(kin)
        M, C = sys.mass_and_coriolis(kin)
        tau = sys.gravity_forces(kin, self.params.g) + self.spring_forces(kin)
        tau[self.joint_coords[0]] += drive
        rhs = tau - C @ u
        lift = (lambda a: a) if red is None else (lambda a: red.P @ a)  # u' = P u_r'
        if red is not None:  # Kane's equations on the reduced speeds: Pᵀ (...) (reduced.c)
            M, rhs = red.P.T @ M @ red.P, red.P.T @ rhs - (0.0 if red.D is None else red.D @ u)
        out = {"kin": kin, "drive": drive}
        if self.constraint is not None:
            p, v, J, bias = self.tip_kinematics(kin)
            grad = self.constraint.gradient(p)
            target = self.constraint.acceleration_target(t, p, v, self.motion.alpha, self.motion.beta) - grad @ bias
            a0, A, l0, L = constrained_accelerations(M, rhs, grad @ J if red is None else grad @ J @ red.P, target,
                                                     self._extra)
            out["phi"] = self.constraint.residual(t, p)
        else:
            grad = np.zeros((0, 3))
            X = np.linalg.solve(M, np.concatenate((rhs[:, None], self._extra), axis=1))
            a0, A, l0, L = X[:, 0], X[:, 1:], np.zeros(0), np.zeros((0, 3))
            out["phi"] = np.zeros(2)
        v_joint = u_state[self.state_joint_coords]
        if self.friction_model == "none":
            zdot, torque = np.zeros(3), np.zeros(3)
            f0 = self.joint_forces(kin, maps, lift(a0), l0, grad)
            fn = np.hypot(f0[:, 0], f0[:, 1])
        else:
            zdot = bristle_rate(self.friction_model, v_joint, z, self.bristle)
            mu = friction_coefficient(self.friction_model, v_joint, z, zdot, self.bristle)
            f0 = self.joint_forces(kin, maps, lift(a0), l0, grad)
            F1 = self.joint_forces(kin, maps, lift(A), L, grad, homogeneous=True)  # one column per friction torque
            torque = np.zeros(3)
            for _ in range(FRICTION_ITERATIONS):
                f = f0 + F1 @ torque
                fn = np.hypot(f[:, 0], f[:, 1])
                torque = -mu * fn * 0.5 * self.pin_diameter
            f = f0 + F1 @ torque
            fn = np.hypot(f[:, 0], f[:, 1])
        out.update(udot=a0 + A @ torque, lam=l0 + L @ torque, friction_torque=torque, zdot=zdot, normal_force=fn)
        out["constraint_force"] = grad.T @ out["lam"] if self.constraint is not None else np.zeros(3)
        return out

    def joint_forces(self, kin: Kinematics, maps: tuple, udot: np.ndarray, lam: np.ndarray, grad: np.ndarray,
                     homogeneous: bool = False) -> np.ndarray:
        """Force of the inboard on the outboard body in the three friction joints, joint frames (3, 3).
        ``homogeneous``: only the part linear in ``(u̇, λ)`` (no velocity, gravity terms). ``udot`` (n, k)
        and ``lam`` (m, k) give k such forces at once, (3, 3, k)."""
        S, c = maps
        f = S @ udot - (grad.T @ lam)[None]
        if not homogeneous:
            f = f + c
        R = kin.rotation[self.joint_bodies]
        if f.ndim == 2:
            return (R.transpose(0, 2, 1) @ f[:, :, None])[:, :, 0]
        return R.transpose(0, 2, 1) @ f

    # -- energy -------------------------------------------------------------------------------------
    def energy(self, q: np.ndarray, u: np.ndarray) -> dict:
        """Kinetic, gravity and spring energies (the ``E_k``, ``E_p`` of (16)) at the state's ``q``, ``u``."""
        q = self.full(q)
        kin = self.system.kinematics(q, self.full(u))
        r = self.rfe_coords
        return {"kinetic": self.system.kinetic_energy(kin),
                "gravity": self.system.potential_energy(kin, self.params.g),
                "supports": self.supports.energy(kin),
                "link": 0.5 * float(np.sum(self.k_rfe * q[r] ** 2))}


INPUTS = (("column_torque", "N.m", "torque on the column (c,1), added to the paper's t_dr of eq. (21) when enabled"),)

OUTPUTS = (
    [("q_c1", "rad", "psi^(c,1), column angle"), ("q_c2", "rad", "psi^(c,2,0), link (c,2) root angle"),
     ("q_c3", "rad", "psi^(c,3), link (c,3) angle"), ("u_c1", "rad/s", "column rate"),
     ("u_c2", "rad/s", "link (c,2) root rate"), ("u_c3", "rad/s", "link (c,3) rate"),
     ("x_b", "m", "x^(b), base displacement"), ("y_b", "m", "y^(b), base displacement"),
     ("z_b", "m", "z^(b), base displacement"), ("psi_b", "rad", "psi^(b), base rotation about z"),
     ("theta_b", "rad", "theta^(b), base rotation about y"), ("phi_b", "rad", "phi^(b), base rotation about x"),
     ("tip_x", "m", "x_E^(0), end effector"), ("tip_y", "m", "y_E^(0), end effector"),
     ("tip_z", "m", "z_E^(0), end effector"), ("z_E_programmed", "m", "z_E,a(t) of eq. (22)"),
     ("phi1", "", "Phi_1 of eq. (17.1), ellipse residual"), ("phi2", "m", "Phi_2 of eq. (17.2), height residual"),
     ("constraint_force_x", "N", "programmed-constraint force on E, x in Frame 0"),
     ("constraint_force_y", "N", "programmed-constraint force on E, y in Frame 0"),
     ("constraint_force_z", "N", "programmed-constraint force on E, z in Frame 0"),
     ("lambda1", "N.m", "Lagrange multiplier of Phi_1: the constraint force on E is (dPhi/dp)^T lambda"),
     ("lambda2", "N", "Lagrange multiplier of Phi_2 (vertical constraint force)")]
    + [(f"friction_torque_{i}", "N.m", f"friction torque t_f in joint {i} (13), on the outboard body about the "
        "joint axis") for i in (1, 2, 3)]
    + [(f"bristle_z_{i}", "rad", f"bristle deflection z_{i} of joint {i} (14)") for i in (1, 2, 3)]
    + [(f"normal_force_{i}", "N", f"joint normal force f_n of joint {i} (13)") for i in (1, 2, 3)]
    + [(f"support_force_{a}", "N", f"resultant support force on the base, {a} in Frame 0") for a in "xyz"]
    + [(f"support_moment_{a}", "N.m", f"resultant support moment on the base about its frame origin, {a} in "
        "Frame 0") for a in "xyz"]
    + [("link2_deflection_y", "m", "tip deflection of link (c,2) in its luffing plane (root element frame)"),
       ("link2_deflection_z", "m", "tip deflection of link (c,2) out of its luffing plane (root element frame)"),
       ("link2_torsion", "rad", "twist of the link (c,2) tip about the link axis relative to its root"),
       ("drive_torque", "N.m", "torque applied to the column: eq. (21) plus the input")]
)
