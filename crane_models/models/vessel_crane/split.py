"""The vessel crane of section III split for ship co-simulation (Cibicik & Egeland, *Determination of
constraint forces for an offshore crane on a moving base*): the ship simulator owns the vessel, the crane
receives the vessel's motion and returns the load it puts on the vessel.

* :class:`CraneOnMovingBaseModel` -- Bodies 2-4 (king, inner and outer boom, eqs. (54)-(56), (73)) on a
  base whose motion is an input. It is the same body tree as the monolithic model, rooted at the crane
  base point: three massless prismatic joints (the base point's translation), the yaw-pitch-roll chain of
  (53) (Frame 1), then the crane. All six base speeds are *prescribed*, eq. (43) with
  ``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p`` (:meth:`MultibodySystem.accelerations_with_prescribed`).
  The interface wrench is the constraint wrench of the king joint by auxiliary generalized speeds
  (50), (64)-(72) plus the slewing torque, negated: the wrench the crane exerts **on the vessel**.
* :class:`VesselModel` -- Body 1 alone (inertia (73), cubic springs ``T_si = −k_i q_i³`` of §III-D) with an
  external wrench input at the crane base, taken into ``τ`` by ``Σ P_kᵀ Π W`` (32)/(46).

Motion interface (all vectors in Frame 1, the vessel frame):

* ``roll``, ``pitch``, ``yaw``: ``R^0_1 = R_z(yaw) R_y(pitch) R_x(roll)``, eq. (53);
* ``angular_velocity_*`` ``ω^1_{01}``, ``angular_acceleration_*`` ``ω̇^1_{01}``;
* ``base_acceleration_*``: acceleration of the crane base point (origin of Frame 2) relative to Frame 0.

Choices where the paper is silent:

* The base point is the crane base (origin of Frame 2, ``[0, 0, l1]`` in Frame 1), where the constraint
  forces of §III-C act, so one point carries both the motion and the wrench of the interface.
* Base position and velocity are not inputs: the dynamics are Galilean-invariant and gravity is uniform,
  so the crane model takes the base at the origin, at rest at the current instant, and only the base
  acceleration enters (``u_p = 0``, ``u̇_p = a``). The crane then needs no ``l1``.
* Inside a communication step the inputs are held (FMI 2.0 zero-order hold): the base orientation does
  not advance with ``ω`` within the step. That makes a coupled run first order in the communication
  step (see :mod:`simulation.split_masters`).
* ``interface_moment_z`` is the reaction of the slewing torque on the vessel (not a constraint moment,
  (64) has none about ``z2``): a ship simulator needs the full wrench.
* Not in the paper: with ``mean_wrench_outputs`` the crane also returns the wrench **averaged over the last
  communication step** (its impulse over the step divided by the step, integrated by the FMU's own stepper
  as seven quadrature states: ``∫W dt`` and the elapsed time, restarted at every step's start). A vessel held
  at that mean over the step receives exactly the impulse the crane gave; the mean of the wrenches at the
  step's two ends, which is all a master can form from point values, misses the crane's fast response to
  each held set-point (the PD loop (63) settles within a few ms). The ``"averaged"`` scheme of
  :mod:`simulation.split_masters` uses it. Also that mean predicted over the coming step, ``2 W̄ₙ − W̄ₙ₋₁``
  (``interface_*_predicted_*``; the step before's integrals are seven more states, set at each step's start).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ...core.constraint_forces import AuxiliarySpeeds, joint_effort_wrenches
from ...core.effort_laws import cubic_springs, pd_control
from ...core.kane import Kinematics, MultibodySystem, skew_stack
from ...core.parameters import validate
from ...core.springs import cross
from ...core.moving_base.base_chain import base_bodies, vessel_bodies
from ...core.moving_base.euler import (euler_accelerations, euler_rate_matrix, euler_rate_matrix_inverse,  # noqa: F401
                                       euler_rates)  # (re-exported: the split's old home of the Euler rates)
from ...core.moving_base.interface import (BASE_VELOCITY, MEAN_WRENCH, MOTION, STEP_INTEGRALS, STEP_WRENCH_NAMES,
                                           WRENCH, restarted, step_rates, step_wrenches)
from ...core.moving_base.interface_inertia import (INERTIA_NAMES, INERTIA_OUTPUTS, INERTIA_ZEROS, WRENCH0_OUTPUTS,
                                                   inertia_matrix, inertia_values, interface_inertia)
from ...core.native.outputs import OutputWriters
from .crane import (INPUTS as VC_INPUTS, INTERFACE_CUT, PITCH_LIMIT, VesselCraneController, VesselCraneInitialState,
                    VesselCraneParameters, crane_bodies)
from .split_kernel import HeldBaseKernel
from .vessel_kernel import VesselKernel

__all__ = ["CraneOnMovingBaseParameters", "VesselParameters", "CraneInitialState", "VesselInitialState",
           "CraneOnMovingBaseModel", "VesselModel", "euler_rate_matrix", "euler_rate_matrix_inverse", "euler_rates",
           "euler_accelerations", "MOTION", "WRENCH", "MEAN_WRENCH", "BASE_VELOCITY", "CRANE_INPUTS", "CRANE_OUTPUTS",
           "VESSEL_INPUTS", "VESSEL_OUTPUTS"]


def _subset(name: str, source, fields: tuple):
    """A parameter dataclass holding some fields of ``source`` (same defaults, units, ranges, texts)."""
    chosen = [f for f in dataclasses.fields(source) if f.name in fields]
    return dataclasses.make_dataclass(name, [(f.name, float, dataclasses.field(default=f.default, metadata=f.metadata))
                                             for f in chosen])


CraneOnMovingBaseParameters = _subset("CraneOnMovingBaseParameters", VesselCraneParameters,
                                      ("l2", "l3", "l4", "d2", "d3", "d4", "m2", "m3", "m4", "g"))
CraneOnMovingBaseParameters.__doc__ = "Table I for Bodies 2-4 (masses in kg), ``l4`` (l4 = l3) and gravity."
VesselParameters = _subset("VesselParameters", VesselCraneParameters, ("l1", "d1", "m1", "k1", "k2", "k3", "g"))
VesselParameters.__doc__ = "Table I for Body 1, the springs of §III-D and gravity; ``l1`` places the crane base."
CraneInitialState = _subset("CraneInitialState", VesselCraneInitialState, ("q4_0", "q5_0", "q6_0", "u4_0", "u5_0", "u6_0"))
VesselInitialState = _subset("VesselInitialState", VesselCraneInitialState,
                             ("q1_0", "q2_0", "q3_0", "u1_0", "u2_0", "u3_0"))


def initial_state(init, names: str) -> np.ndarray:
    """``[q…, u…]`` of an initial-state dataclass, e.g. ``names = "456"``."""
    return np.array([getattr(init, f"{c}{i}_0") for c in "qu" for i in names])


# -- the crane's interface: (name, unit, description) ------------------------------------------------
# The crane also accepts the base velocity, which its dynamics do not need (Galilean invariance): with it
# force and velocity form the OSP linear mechanical port of the interface.
CRANE_INPUTS = tuple(VC_INPUTS) + tuple(MOTION) + tuple(BASE_VELOCITY)
_CRANE_COORDS = {4: "slewing angle", 5: "inner boom angle", 6: "outer boom angle"}
CRANE_OUTPUTS = tuple(
    [(f"q{i}", "rad", f"{d} q{i}") for i, d in _CRANE_COORDS.items()]
    + [(f"u{i}", "rad/s", f"{d} rate u{i}") for i, d in _CRANE_COORDS.items()]
    + WRENCH
    + [(f"tip_{a}", "m", f"crane tip (end of the outer boom) relative to the crane base, {a} in Frame 1")
       for a in "xyz"]
    + [(f"applied_joint{i}_torque", "N.m", f"total torque in joint {i}: PD effort (63) plus input") for i in (4, 5, 6)]
    + list(INERTIA_OUTPUTS) + list(WRENCH0_OUTPUTS)
)
# The outputs of fixed value: the point of attack is the crane base point itself (core.moving_base.ship).
_FIXED_OUTPUTS = {f"point_of_attack_{a}": 0.0 for a in "xyz"}
# Every output of the crane's model, in the order of its outputs dict.
_ALL_OUTPUTS = (tuple(name for name, _, _ in CRANE_OUTPUTS) + STEP_WRENCH_NAMES) + tuple(_FIXED_OUTPUTS)
VESSEL_INPUTS = tuple(WRENCH)
VESSEL_OUTPUTS = tuple(MOTION + BASE_VELOCITY)

# Coordinates of the split crane's tree: 0-2 roll, pitch, yaw (as in VesselCrane), 3-5 crane, 6-8 base x, y, z.
_BASE_SPEEDS = np.array([0, 1, 2, 6, 7, 8])
_CRANE_SPEEDS = np.array([3, 4, 5])
_INERTIA_INPUT_NAMES = [name for _, _, name in INERTIA_NAMES]


class _WithBaseAtOrigin:
    """``p`` seen with ``l1 = 0``: the king joint at the base point."""

    def __init__(self, p):
        self._p = p

    def __getattr__(self, name: str):
        return 0.0 if name == "l1" else getattr(self._p, name)


class CraneOnMovingBaseModel:
    """Bodies 2-4 on a prescribed base motion with the PD controller (63); state ``x = [q4..q6, u4..u6]``."""

    input_names = [name for name, _, _ in CRANE_INPUTS]
    state_size = 6

    def __init__(self, params=None, controller: VesselCraneController | None = None, inertia_outputs: bool = True,
                 mean_wrench_outputs: bool = False):
        self.inertia_outputs = bool(inertia_outputs)  # also output A and W0 (interface_inertia); 0 otherwise
        # Also the step-mean wrench and its prediction (module docstring): x gains [∫W dt (6), elapsed time] of the
        # last step and of the step before (interface.STEP_INTEGRALS), restarted each step.
        self.mean_wrench_outputs = bool(mean_wrench_outputs)
        self.state_size = 6 + STEP_INTEGRALS if self.mean_wrench_outputs else 6
        # The quadrature states do not steer the step size (step_control._error_part); without them every state does.
        self.controlled_states = 6 if self.mean_wrench_outputs else None
        # CoSimulation's hooks: step integrals to restart with the step-mean wrench; else the evaluation anew for new
        # inputs, as the kernel's step makes it (with the integrals restarted, each step evaluates anew anyway)
        if self.mean_wrench_outputs:
            self.restart_step_integrals = self._restart_step_integrals
            # the kernel's step restarts them itself and evaluates anew for new inputs (cosim_held.c)
            self.kernel_step_hooks, self.kernel_fresh_inputs = ("restart",), True
        else:
            self.update_inputs = self._evaluated_anew
        self.params = p = params if params is not None else CraneOnMovingBaseParameters()
        validate(p)
        self.controller = controller if controller is not None else VesselCraneController()
        validate(self.controller)
        # The king sits at the base point itself: l1 = 0 in crane_bodies (the vessel's l1 lives in VesselModel).
        crane = crane_bodies(_WithBaseAtOrigin(p), base="vessel")
        self.system = MultibodySystem(base_bodies() + crane, 9)
        self.interface = AuxiliarySpeeds(self.system, INTERFACE_CUT)
        ix = self.system.index
        self._vessel, self._king, self._outer = ix["vessel"], ix["king"], ix["outer_boom"]
        self._crane_bodies = [ix["king"], ix["boom"], ix["outer_boom"]]
        self._pd = pd_control(self.controller.kp, self.controller.kd)
        # The right-hand side, its stepping and the outputs in the kernel when it is loaded (split_kernel.py); the
        # numpy methods below are their specification.
        self._kernel = HeldBaseKernel(self)
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call
        self.write_outputs = OutputWriters(self.output_writer)

    def base_state(self, x: np.ndarray, inputs: np.ndarray) -> tuple:
        """Full ``(q, u)`` of the tree and the prescribed ``u̇_p`` from the motion inputs."""
        m = inputs[6:18]
        angles, omega, alpha, acc = m[:3], m[3:6], m[6:9], m[9:12]
        rates = euler_rates(angles, omega)
        q = np.concatenate((angles, x[:3], np.zeros(3)))
        u = np.concatenate((rates, x[3:6], np.zeros(3)))  # base point at rest at this instant (Galilean invariance)
        return q, u, angles, rates, alpha, acc

    def crane_torques(self, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """PD effort (63) towards the set-points plus the torque inputs (as :class:`VesselCraneModel`)."""
        return self._pd.efforts(x[:3], x[3:6], inputs[:6])

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``(ẋ, aux)``: one kernel evaluation (split_kernel.py) when the kernel is loaded, else
        :meth:`reference_derivative`."""
        evaluated = self._kernel.derivative(x, inputs)
        return evaluated if evaluated is not None else self.reference_derivative(t, x, inputs)

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook), None without the kernel."""
        return self._kernel.compiled(inputs)

    def _evaluated_anew(self, x: np.ndarray, aux, old: np.ndarray, new: np.ndarray):
        """``(ẋ, aux)`` for new inputs at the same state: the evaluation anew (the inputs hold the base, which enters
        ``M`` and the kinematics: no affine update), as the kernel's step does it (split_kernel.py)."""
        return self.derivative(0.0, x, new)

    def kernel_step_parts(self, names: tuple):
        """What the kernel's communication step (``mbs_cosim_held_step``, fmi/kernel_steps.py) needs: the outputs,
        the index map of ``names``, no bounds (``check_state``: every entry finite, which the kernel checks) and the
        maker of the record; None without the kernel. With the step-mean wrench that step restarts its integrals."""
        return self._kernel.kernel_step_parts(names, _FIXED_OUTPUTS)

    def output_writer(self, names: tuple, constants: dict | None = None):
        """``write(x, inputs, aux, out)``: the outputs ``names`` at the state ``x`` with the evaluation ``aux`` there
        into ``out`` -- by ``mbs_held_outputs`` when ``aux`` is the kernel's, else from :meth:`reference_outputs`."""
        fixed = {**_FIXED_OUTPUTS, **(constants or {})}
        reference = lambda x, inputs, aux: self.reference_outputs(0.0, x, inputs, aux)  # noqa: E731
        return self._kernel.output_writer(names, fixed, reference)

    def reference_derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """:meth:`derivative` in numpy (the kernel's specification): the base's q, u held at the inputs' values,
        ``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p`` (43)."""
        q, u, angles, rates, alpha, acc = self.base_state(x, inputs)
        kin = self.system.kinematics(q, u)
        torques = self.crane_torques(x, inputs)
        tau = self.system.gravity_forces(kin, self.params.g)
        tau[3:6] += torques  # identity joint maps: a joint torque is its generalized force
        prescribed = np.concatenate((euler_accelerations(angles, rates, alpha), kin.rotation[self._vessel] @ acc))
        udot, _, _ = self.system.accelerations_with_prescribed(kin, tau, _BASE_SPEEDS, prescribed)
        if not self.mean_wrench_outputs:
            return np.concatenate((x[3:], udot[3:6])), (kin, udot, torques)
        force, moment = self.interface_wrench(kin, udot, torques)
        return np.concatenate((x[3:6], udot[3:6], step_rates(np.concatenate((force, moment))))), (kin, udot, torques)

    def _restart_step_integrals(self, x: np.ndarray) -> np.ndarray:
        """``x`` with the step's quadrature states (``∫W dt`` and the elapsed time) moved to the step before's place
        and back at zero: called by :class:`integration.cosimulation.CoSimulation` at the start of every
        communication step."""
        return restarted(x, 6)

    def mean_wrench(self, x: np.ndarray, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
        """``[W̄ₙ; 2 W̄ₙ − W̄ₙ₋₁]`` (12): ``∫W dt / Δt`` over the last step and the mean predicted over the coming one
        (:func:`interface.step_wrenches`); the wrench itself before any step (``Δt = 0``)."""
        return step_wrenches(x[6:6 + STEP_INTEGRALS], np.concatenate((force, moment)))

    def interface_wrench(self, kin: Kinematics, udot: np.ndarray, torques: np.ndarray) -> tuple:
        """``(force, moment)`` the crane exerts on the vessel at the crane base, Frame 1: minus the
        constraint wrench ``S ρ`` (50), (67) and minus the slewing torque about ``z2``."""
        efforts = np.zeros(self.system.nb)
        efforts[self._crane_bodies] = torques
        applied = self.system.gravity_wrenches(kin, self.params.g) + joint_effort_wrenches(self.system, kin, efforts)
        w2 = self.interface.wrench(self.interface.magnitudes(kin, udot, applied))  # [n; f] on the crane, Frame 2
        w2[2] += torques[0]
        r12 = kin.rotation[self._vessel].T @ kin.rotation[self._king]
        return -(r12 @ w2[3:]), -(r12 @ w2[:3])

    def tip_position(self, kin: Kinematics) -> np.ndarray:
        """Crane tip relative to the crane base, Frame 1."""
        k, b = self._outer, self._vessel
        tip = kin.origin[k] + kin.rotation[k] @ np.array([self.params.l4, 0.0, 0.0])
        return kin.rotation[b].T @ (tip - kin.origin[b])

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        """Every output: by the kernel (``mbs_held_outputs``, as the table gets them) when ``aux`` is a kernel
        evaluation, so that a dict and the table agree to the last bit, else :meth:`reference_outputs`."""
        if getattr(aux[0], "record", None) is None or self._kernel.parts() is None:
            return self.reference_outputs(t, x, inputs, aux)
        out = np.empty(len(_ALL_OUTPUTS))
        self.write_outputs(t, x, inputs, aux, _ALL_OUTPUTS, out)
        return dict(zip(_ALL_OUTPUTS, out.tolist()))

    def reference_outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        """The outputs in numpy (the kernel's specification)."""
        kin, udot, torques = aux
        out = {f"{c}{i}": x[j * 3 + i - 4] for j, c in enumerate("qu") for i in (4, 5, 6)}
        force, moment = self.interface_wrench(kin, udot, torques)
        out.update({f"interface_force_{a}": force[i] for i, a in enumerate("xyz")})
        out.update({f"interface_moment_{a}": moment[i] for i, a in enumerate("xyz")})
        tip = self.tip_position(kin)
        out.update({f"tip_{a}": tip[i] for i, a in enumerate("xyz")})
        out.update({f"applied_joint{i}_torque": torques[i - 4] for i in (4, 5, 6)})
        out.update({f"point_of_attack_{a}": 0.0 for a in "xyz"})  # the crane base itself (core.moving_base.ship)
        out.update(zip(STEP_WRENCH_NAMES, self.mean_wrench(x, force, moment) if self.mean_wrench_outputs
                       else np.zeros(12)))
        if not self.inertia_outputs:
            out.update(INERTIA_ZEROS)
            return {k: float(v) for k, v in out.items()}
        M = kin.M if kin.record is not None else self.system.mass_matrix(kin)  # a kernel evaluation carries M
        A = interface_inertia(M, _BASE_SPEEDS, _CRANE_SPEEDS,
                              euler_rate_matrix_inverse(kin.q[0], kin.q[1]), kin.rotation[self._vessel])
        m = inputs[6:18]
        w0 = np.concatenate((force, moment)) + A @ np.concatenate((m[9:12], m[6:9]))  # W = W0 - A a
        out.update(inertia_values(A, w0[:3], w0[3:]))
        return {k: float(v) for k, v in out.items()}

    def check_state(self, x: np.ndarray) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f"state became non-finite: {x}")


class VesselModel:
    """Body 1 on its cubic springs under an external wrench at the crane base; ``x = [q1..q3, u1..u3]``.

    With the compiled kernel the right-hand side, the stepping, the outputs and the whole communication step run
    there (:mod:`.vessel_kernel`); the numpy code below is the specification and the path without the kernel."""

    input_names = [name for name, _, _ in VESSEL_INPUTS] + [name for _, _, name in INERTIA_NAMES]
    state_size = 6
    # No exact input update (A makes u̇ non-affine in the inputs): new inputs are evaluated afresh, and the kernel's
    # communication step does the same (fmi/kernel_steps.py).
    kernel_fresh_inputs = True

    def __init__(self, params=None):
        self.params = p = params if params is not None else VesselParameters()
        validate(p)
        self.system = MultibodySystem(vessel_bodies(p), 3)
        self._springs = cubic_springs([p.k1, p.k2, p.k3])
        self._vessel = self.system.index["vessel"]
        self._base = np.array([0.0, 0.0, p.l1])  # crane base in Frame 1
        self._arm = self._base - self.system.com[self._vessel]  # COG → crane base, Frame 1
        self._kernel = VesselKernel(self.system, self._springs, p.g, self._vessel, self._base)
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call
        self.write_outputs = OutputWriters(self.output_writer)

    def external_wrenches(self, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
        """The input wrench moved from the crane base to the vessel COG, ``[f; n]`` per body (46)."""
        w = np.zeros((self.system.nb, 6))
        w[self._vessel, :3] = force
        w[self._vessel, 3:] = moment + cross(self._arm, force)
        return w

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``(ẋ, aux)``: the kernel's evaluation (aux its kinematics) when it is loaded, else numpy's (aux
        ``(kin, u̇)``)."""
        kin = self._kernel.derivative(x, inputs)
        if kin is not None:
            return kin.xdot, kin
        kin = self.system.kinematics(x[:3], x[3:])
        tau = self.system.gravity_forces(kin, self.params.g) + self._springs.efforts(x[:3], x[3:], inputs[:0])
        tau += self.system.generalized_forces(kin, self.external_wrenches(inputs[:3], inputs[3:6]))
        A = inertia_matrix(dict(zip(_INERTIA_INPUT_NAMES, inputs[6:].tolist()))) if inputs.size > 6 else None
        if A is None or not A.any():
            udot, _, _ = self.system.accelerations(kin, tau)
        else:
            udot = self.accelerations_with_crane_inertia(kin, tau, A)
        return np.concatenate((x[3:], udot)), (kin, udot)

    def accelerations_with_crane_inertia(self, kin: Kinematics, tau: np.ndarray, A: np.ndarray) -> np.ndarray:
        """``u̇`` when the wrench input is ``W₀`` and the crane adds ``−A a`` (:mod:`.interface_inertia`):
        with ``a = [a_P; ω̇] = G u̇ + c`` (``ω̇ = P_ω u̇ + Ṗ_ω u``, ``a_P = ω̇ × r + ω × (ω × r)``, r the crane base)
        and ``τ_W = Gᵀ W`` (the same map carries velocities), ``(M + Gᵀ A G) u̇ = τ − C u − Gᵀ A c``."""
        b = self._vessel
        p_w = kin.P[b, :3, :]
        omega = kin.twist[b, :3]
        r_hat = skew_stack(self._base[None])[0]
        G = np.concatenate((-r_hat @ p_w, p_w))
        w_dot_u = kin.Pdot[b, :3, :] @ kin.u
        c = np.concatenate((-r_hat @ w_dot_u + cross(omega, cross(omega, self._base)), w_dot_u))
        M, C = self.system.mass_and_coriolis(kin)
        return np.linalg.solve(M + G.T @ A @ G, tau - C @ kin.u - G.T @ (A @ c))

    def motion(self, kin: Kinematics, udot: np.ndarray) -> dict:
        """ω, ω̇ (Frame 1) and velocity and acceleration of the crane base point: the vessel turns about
        the origin of Frame 0 (53), so ``v = ω × r``, ``a = ω̇ × r + ω × (ω × r)`` with ``r = [0, 0, l1]``."""
        b = self._vessel
        omega = kin.twist[b, :3]
        alpha = self.system.body_accelerations(kin, udot)[b, :3]
        wx = skew_stack(omega[None])[0]
        vel = wx @ self._base
        acc = cross(alpha, self._base) + wx @ vel
        return {"angular_velocity": omega, "angular_acceleration": alpha, "base_velocity": vel,
                "base_acceleration": acc}

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook), None without it."""
        return self._kernel.compiled(inputs)

    def output_writer(self, names: tuple, constants: dict | None = None):
        """``write(x, inputs, aux, out)``: the outputs ``names`` by ``mbs_point_outputs`` when ``aux`` is the
        kernel's, else from :meth:`outputs`."""
        return self._kernel.output_writer(names, constants or {}, functools.partial(self.outputs, 0.0))

    def kernel_step_parts(self, names: tuple, constants: dict | None = None):
        """What the kernel's communication step needs besides the stepping (fmi/kernel_steps.py), None without it."""
        return self._kernel.step_parts(names, constants, PITCH_LIMIT)

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        if not isinstance(aux, tuple):  # the kernel's evaluation
            return self._kernel.outputs(x, aux)
        kin, udot = aux
        out = {"roll": x[0], "pitch": x[1], "yaw": x[2]}
        for name, vec in self.motion(kin, udot).items():
            out.update({f"{name}_{a}": vec[i] for i, a in enumerate("xyz")})
        return {k: float(v) for k, v in out.items()}

    def check_state(self, x: np.ndarray) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f"state became non-finite: {x}")
        if abs(x[1]) > PITCH_LIMIT:  # as VesselCraneModel: E of (53) is singular at pitch ±π/2
            raise ValueError(f"vessel pitch = {x[1]:.4g} rad is beyond ±{PITCH_LIMIT} rad, near the Euler-angle "
                             "singularity of eq. (53)")
