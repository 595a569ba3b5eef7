"""Crane on a moving base of Cibicik & Egeland, *Determination of constraint forces for an offshore crane on
a moving base*, section III: a vessel and a three-link crane in one model, ``q = [q1 … q6]`` (51).

Bodies (Fig. 4): Body 1 the vessel, Body 2 the king, Body 3 the inner boom, Body 4 the outer boom. The
vessel turns about the origin of Frame 0 with ``R^0_1 = R_z(q3) R_y(q2) R_x(q1)`` (53); it is written as a
chain of two massless bodies (yaw, pitch) and the vessel (roll), so the three rotations are ordinary
joints of the shared Kane core. The crane joints follow (54)-(56). Restoring springs
``T_si = −k_i q_i³`` act in the roll, pitch and yaw joints (§III-D); the PD controller (63) drives
``q4 … q6`` towards set-points. The constraint wrench between vessel and crane comes from the method of
auxiliary generalized speeds (§III-C, :mod:`constraint_forces`) with the five directions of (67).

Choices where the paper is silent (Fig. 4 is not reproduced in the text):

* Frame 2 (king base) sits at ``[0, 0, l1]`` in Frame 1: ``p^1_{21} = [0 0 −l1]`` below (60). Likewise
  Frame 3 at the top of the king, ``[0, 0, l2]`` in Frame 2, and Frame 4 at the inner boom tip,
  ``[l3, 0, 0]`` in Frame 3.
* COGs: ``[0, 0, d2]`` for the king (``p_{m2,2} = [0 0 −d2]`` below (60)) and ``[d_k, 0, 0]`` for the
  booms, which lie along their x axes: (73) gives them no inertia about x, and (55) makes ``z3`` -- the
  luffing axis -- horizontal.
* Vessel COG: ``d1`` from the rotation centre along z1, but on which side only Fig. 4 shows. We put it
  **below**, at ``[0, 0, −d1]``, so that the vessel's weight rights it (righting moment
  ``m1 g d1 sin q`` ≈ 29 kN·m/rad against the crane's heeling ≈ 5 kN·m/rad): a stable vessel. Above
  the rotation centre, weight would tip the upright vessel while the cubic springs have no stiffness at
  ``q = 0``: a double-well (Duffing) potential whose motion after the slew is chaotic -- a 1e-9 rad
  perturbation grows a thousandfold in 10 s -- which no real hull does. ``d1 < 0`` gives that reading.
* ``l4``: not given; ``l4 = l3 = 2.0 m`` (the outer boom equals the inner one, as do ``d3 = d4``).
* The crane tip is the end of the outer boom, ``[l4, 0, 0]`` in Frame 4.
* PD gains, set-points and the joint-torque inputs: see :class:`VesselCraneController`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.constraint_forces import AuxiliarySpeeds, ConstraintCut, joint_effort_wrenches
from ...core.effort_laws import CoordinateEffortLaw, cubic_springs, pd_control, stacked
from ...core.kane import Body, Kinematics, MultibodySystem
from ...core.native.outputs import NativeCutOutputs, OutputWriters, kernel_writer
from ...core.state_derivative import StateDerivative
from ...core.parameters import param, validate
from ...core.moving_base.base_chain import vessel_bodies
from ...core.screws import rot_x, rot_z

__all__ = ["VesselCraneParameters", "VesselCraneController", "VesselCraneInitialState", "VesselCrane",
           "VesselCraneModel", "vessel_bodies", "crane_bodies", "INTERFACE_CUT", "INPUTS", "OUTPUTS"]

_POS = dict(low=0.0, low_open=True)

# The cut of §III-C: moments about x2, y2 and forces along x2, y2, z2 in the king joint, eq. (67).
# The vessel pitch the model admits, rad: R_z R_y R_x (53) is singular at q2 = ±π/2 (roll and yaw axes align).
PITCH_LIMIT = 1.4
INTERFACE_CUT = ConstraintCut("king", ("rx", "ry", "tx", "ty", "tz"))


@dataclass
class VesselCraneParameters:
    """Table I (masses in kg), ``l4`` (not in the paper), the vessel springs of §III-D and gravity."""

    l1: float = param(5.0, "m", "l_1, rotation centre to crane base (Frame 1 to 2) along z1, Table I", **_POS)
    l2: float = param(2.0, "m", "l_2, length of the king (Frame 2 to 3) along z2, Table I", **_POS)
    l3: float = param(2.0, "m", "l_3, length of the inner boom (Frame 3 to 4) along x3, Table I", **_POS)
    l4: float = param(2.0, "m", "l_4, length of the outer boom along x4 (not in the paper: l4 = l3)", **_POS)
    d1: float = param(2.5, "m", "d_1, vessel COG below the rotation centre (at -d1 along z1), Table I; "
                      "the side is not in the text (see the module docstring)")
    d2: float = param(1.0, "m", "d_2, king COG along z2 from Frame 2, Table I")
    d3: float = param(1.0, "m", "d_3, inner boom COG along x3 from Frame 3, Table I")
    d4: float = param(1.0, "m", "d_4, outer boom COG along x4 from Frame 4, Table I")
    m1: float = param(1200.0, "kg", "m_1, vessel mass, Table I: 1.2 t", **_POS)
    m2: float = param(30.0, "kg", "m_2, king mass, Table I", **_POS)
    m3: float = param(30.0, "kg", "m_3, inner boom mass, Table I", **_POS)
    m4: float = param(30.0, "kg", "m_4, outer boom mass, Table I", **_POS)
    k1: float = param(8.0e7, "N.m/rad3", "k_1, roll spring T_s1 = -k_1 q1^3 (section III-D)", 0.0)
    k2: float = param(8.0e7, "N.m/rad3", "k_2, pitch spring T_s2 = -k_2 q2^3 (section III-D)", 0.0)
    k3: float = param(8.0e7, "N.m/rad3", "k_3, yaw spring T_s3 = -k_3 q3^3 (section III-D)", 0.0)
    g: float = param(9.81, "m/s2", "acceleration of gravity", 0.0, 100.0)

    @property
    def crane_mass(self) -> float:
        return self.m2 + self.m3 + self.m4


def _inertia(m: float, length: float, weights: tuple) -> np.ndarray:
    """``diag(w · m l²/12)`` -- the pattern of all four tensors of eq. (73)."""
    return np.diag(np.asarray(weights, dtype=float) * m * length * length / 12.0)


def crane_bodies(p: VesselCraneParameters, base: str | None = "vessel", first: int = 3) -> list:
    """King, inner and outer boom, eqs. (54)-(56) and (73), on body ``base`` (``None``: a fixed base in
    the upright vessel's pose) with coordinates ``first … first+2``."""
    z = (0.0, 0.0, 1.0)
    return [
        Body("king", base, "revolute", z, (0.0, 0.0, p.l1), first, mass=p.m2,
             inertia=_inertia(p.m2, p.l2, (1, 1, 0.1)), com=(0.0, 0.0, p.d2)),
        Body("boom", "king", "revolute", z, (0.0, 0.0, p.l2), first + 1, mass=p.m3,
             inertia=_inertia(p.m3, p.l3, (0, 1, 1)), com=(p.d3, 0.0, 0.0),
             rotation0=rot_z(np.pi / 2) @ rot_x(np.pi / 2)),
        Body("outer_boom", "boom", "revolute", z, (p.l3, 0.0, 0.0), first + 2, mass=p.m4,
             inertia=_inertia(p.m4, p.l4, (0, 1, 1)), com=(p.d4, 0.0, 0.0)),
    ]


class VesselCrane:
    """Equations of motion (37), springs, joint efforts and the vessel-crane constraint forces (50)."""

    n = 6

    def __init__(self, params: VesselCraneParameters | None = None):
        self.params = p = params if params is not None else VesselCraneParameters()
        validate(p)
        self.system = MultibodySystem(vessel_bodies(p) + crane_bodies(p), self.n)
        self.interface = AuxiliarySpeeds(self.system, INTERFACE_CUT)
        self.springs = cubic_springs([p.k1, p.k2, p.k3])
        # joint_of[i] = body whose joint coordinate i drives (identity joint maps: effort = generalized force).
        self._joint_of = np.array([next(k for k, b in enumerate(self.system.bodies) if b.coordinate == i)
                                   for i in range(self.n)])
        ix = self.system.index
        self._vessel, self._king, self._outer = ix["vessel"], ix["king"], ix["outer_boom"]

    def spring_torques(self, q: np.ndarray) -> np.ndarray:
        """``T_si = −k_i q_i³`` in roll, pitch and yaw (§III-D)."""
        return self.springs.efforts(q[:3], np.zeros(3), np.zeros(0))

    def effort_wrenches(self, kin: Kinematics, efforts: np.ndarray) -> np.ndarray:
        """Wrenches of joint efforts given per coordinate (springs for q1-q3, crane torques for q4-q6)."""
        per_body = np.zeros(self.system.nb)
        per_body[self._joint_of] = efforts
        return joint_effort_wrenches(self.system, kin, per_body)

    def efforts(self, q: np.ndarray, crane_torques: np.ndarray) -> np.ndarray:
        """Joint efforts per coordinate: springs in q1-q3, crane torques in q4-q6."""
        return np.concatenate((self.spring_torques(q), crane_torques))

    def evaluate(self, kin: Kinematics, efforts: np.ndarray) -> tuple:
        """Solve (37) with gravity and the joint efforts; returns ``(u̇, M)``.

        A joint effort acting between body and parent does the virtual power ``e_i u_i`` (identity joint
        maps), so its generalized force is the effort itself, and gravity's is ``Σ Pᵀ Π W_g`` (46) taken in
        Frame 0 (:meth:`kane.MultibodySystem.gravity_forces`); the wrenches of :meth:`applied_wrenches`
        give the same ``τ`` (tested) but are only needed for the constraint forces.
        """
        tau = self.system.gravity_forces(kin, self.params.g) + efforts
        udot, M, _ = self.system.accelerations(kin, tau)
        return udot, M

    def applied_wrenches(self, kin: Kinematics, efforts: np.ndarray) -> np.ndarray:
        """``W_e``: weights and joint efforts as wrenches ``[f; n]`` at each COG (body coordinates)."""
        return self.system.gravity_wrenches(kin, self.params.g) + self.effort_wrenches(kin, efforts)

    def interface_wrench(self, kin: Kinematics, udot: np.ndarray, efforts: np.ndarray) -> tuple:
        """``ρ_c`` of (64)/(50) -- the wrench of the vessel on the crane at the origin of Frame 2 --
        as ``(moment, force)`` in Frame 2 and in Frame 1 (Fig. 7). The moment about z2 is the slewing
        torque, not a constraint force: it is zero here."""
        rho = self.interface.magnitudes(kin, udot, self.applied_wrenches(kin, efforts))
        w2 = self.interface.wrench(rho)  # [n; f], Frame 2
        r12 = kin.rotation[self._vessel].T @ kin.rotation[self._king]
        return (w2[:3], w2[3:]), (r12 @ w2[:3], r12 @ w2[3:])

    def tip_position(self, kin: Kinematics) -> np.ndarray:
        k = self._outer
        return kin.origin[k] + kin.rotation[k] @ np.array([self.params.l4, 0.0, 0.0])


@dataclass
class VesselCraneController:
    """PD gains of eq. (63), ``τ_a = k_P (q_ref − q) − k_D u`` per crane joint (no gravity compensation,
    as in the paper). Not in the paper: at the demo's reach the joint inertias are about 250 kg·m²
    (slew, luff) and 40 kg·m² (outer boom) and the gravity torques at most 1.2 kN·m and 0.3 kN·m;
    ``k_P = 5e4, 5e4, 1e4`` N·m/rad keep the sag under gravity below 0.03 rad (2°) and ``k_D`` gives
    damping ratios of about 0.7-0.8. Stiffer gains sag less but make the closed loop stiffer: every
    set-point jump at a communication point then costs the FMU's integrator more steps."""

    kp4: float = param(5.0e4, "N.m/rad", "proportional gain k_P of the slewing joint q4, eq. (63)", 0.0)
    kd4: float = param(5.0e3, "N.m.s/rad", "derivative gain k_D of the slewing joint q4, eq. (63)", 0.0)
    kp5: float = param(5.0e4, "N.m/rad", "proportional gain k_P of the inner boom joint q5, eq. (63)", 0.0)
    kd5: float = param(5.0e3, "N.m.s/rad", "derivative gain k_D of the inner boom joint q5, eq. (63)", 0.0)
    kp6: float = param(1.0e4, "N.m/rad", "proportional gain k_P of the outer boom joint q6, eq. (63)", 0.0)
    kd6: float = param(1.0e3, "N.m.s/rad", "derivative gain k_D of the outer boom joint q6, eq. (63)", 0.0)

    @property
    def kp(self) -> np.ndarray:
        return np.array([self.kp4, self.kp5, self.kp6])

    @property
    def kd(self) -> np.ndarray:
        return np.array([self.kd4, self.kd5, self.kd6])


@dataclass
class VesselCraneInitialState:
    """The vessel starts at its origin and at rest (§III-D); the crane in the first pose of the demo."""

    q1_0: float = param(0.0, "rad", "initial vessel roll q1")
    q2_0: float = param(0.0, "rad", "initial vessel pitch q2", -1.4, 1.4)
    q3_0: float = param(0.0, "rad", "initial vessel yaw q3")
    q4_0: float = param(0.0, "rad", "initial slewing angle q4")
    q5_0: float = param(0.2, "rad", "initial inner boom angle q5 (above horizontal)")
    q6_0: float = param(-1.4, "rad", "initial outer boom angle q6 (relative to the inner boom)")
    u1_0: float = param(0.0, "rad/s", "initial roll rate u1")
    u2_0: float = param(0.0, "rad/s", "initial pitch rate u2")
    u3_0: float = param(0.0, "rad/s", "initial yaw rate u3")
    u4_0: float = param(0.0, "rad/s", "initial slewing rate u4")
    u5_0: float = param(0.0, "rad/s", "initial inner boom rate u5")
    u6_0: float = param(0.0, "rad/s", "initial outer boom rate u6")

    def state(self) -> np.ndarray:
        return np.array([getattr(self, f"{c}{i}_0") for c in "qu" for i in range(1, 7)])


# (name, unit, description) -- the public contract of the FMU, in this order.
INPUTS = (
    ("q4_ref", "rad", "slewing angle set-point of the PD controller (63)"),
    ("q5_ref", "rad", "inner boom angle set-point of the PD controller (63)"),
    ("q6_ref", "rad", "outer boom angle set-point of the PD controller (63)"),
    ("joint4_torque", "N.m", "slewing torque added to the PD effort"),
    ("joint5_torque", "N.m", "inner boom joint torque added to the PD effort"),
    ("joint6_torque", "N.m", "outer boom joint torque added to the PD effort"),
)

_COORDS = ("vessel roll", "vessel pitch", "vessel yaw", "slewing angle", "inner boom angle", "outer boom angle")
_ON_CRANE = "constraint {} of the vessel on the crane at the crane base, eq. (50)"
OUTPUTS = (
    [(f"q{i}", "rad", f"{d} q{i}") for i, d in enumerate(_COORDS, 1)]
    + [(f"u{i}", "rad/s", f"{d} rate u{i}") for i, d in enumerate(_COORDS, 1)]
    + [(f"interface_moment_{a}", "N.m", _ON_CRANE.format(f"moment about {a}2 (Frame 2)")) for a in "xy"]
    + [(f"interface_force_{a}", "N", _ON_CRANE.format(f"force along {a}2 (Frame 2)")) for a in "xyz"]
    + [(f"interface_f1_moment_{a}", "N.m", _ON_CRANE.format(f"moment, {a} in Frame 1")) for a in "xy"]
    + [(f"interface_f1_force_{a}", "N", _ON_CRANE.format(f"force, {a} in Frame 1")) for a in "xyz"]
    + [(f"tip_{a}", "m", f"crane tip (end of the outer boom) {a} in Frame 0") for a in "xyz"]
    + [(f"applied_joint{i}_torque", "N.m", f"total torque in joint {i}: PD effort (63) plus input")
       for i in (4, 5, 6)]
)


_OUTPUT_NAMES = [name for name, _, _ in OUTPUTS]
# The values mbs_cut_outputs computes, in its order (crane_outputs.h): the state, the interface wrench [n; f] in Frame 2
# and in Frame 1 (the moments about z, the slewing torque's axis, are not outputs), the tip, the efforts (of the
# vessel's springs: not outputs).
_KERNEL_VALUE_ORDER = (_OUTPUT_NAMES[:12] + _OUTPUT_NAMES[12:14] + [None] + _OUTPUT_NAMES[14:19] + [None]
                       + _OUTPUT_NAMES[19:25] + [None] * 3 + _OUTPUT_NAMES[25:28])


class VesselCraneModel:
    """The vessel crane with its PD controller: inputs, state ``x = [q, u]``, outputs (the FMU's contract).

    All efforts -- the vessel springs (§III-D) and the PD controller (63) with the torque inputs -- are one
    :class:`effort_laws.CoordinateEffortLaw`, so a state derivative is one kernel call."""

    input_names = [name for name, _, _ in INPUTS]
    state_size = 12

    def __init__(self, params: VesselCraneParameters | None = None,
                 controller: VesselCraneController | None = None):
        self.crane = VesselCrane(params)
        self.controller = controller if controller is not None else VesselCraneController()
        validate(self.controller)
        self.law: CoordinateEffortLaw = stacked(self.crane.springs, pd_control(self.controller.kp, self.controller.kd))
        self._dynamics = StateDerivative(self.crane.system, self.law, self.crane.params.g)
        self._native_outputs = None  # (NativeSystem, NativeCutOutputs) once built
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call
        self.write_outputs = OutputWriters(self.output_writer)

    def output_writer(self, names: tuple, constants: dict | None = None):
        """``write(x, inputs, aux, out)``: the outputs ``names`` at the state ``x`` with the evaluation ``aux`` there
        into ``out`` -- by ``mbs_cut_outputs`` when ``aux`` is the kernel's, else from :meth:`outputs`."""
        return kernel_writer(self._kernel_outputs(), names, constants or {},
                             lambda x, inputs, aux: self.outputs(0.0, x, inputs, aux),
                             lambda aux: aux.record is not None)

    def kernel_step_parts(self, names: tuple, constants: dict | None = None):
        """What the kernel's communication step (``mbs_cosim_step``, fmi/kernel_steps.py) needs besides the stepping:
        ``(kernel outputs, index map of names, bounds of check_state)``, None without the kernel. The pitch bound
        |q2| <= PITCH_LIMIT as the open interval between its neighbouring doubles: the same set of values."""
        outputs = self._kernel_outputs()
        if outputs is None:
            return None
        pitch = (1, math.nextafter(-PITCH_LIMIT, -math.inf), math.nextafter(PITCH_LIMIT, math.inf))
        return outputs, outputs.plan(names, constants), [pitch]

    def _kernel_outputs(self) -> NativeCutOutputs | None:
        """The kernel's record of the outputs (built on first use), None without the kernel."""
        crane = self.crane
        native, aux = crane.system.native, crane.interface.native
        if native is None or aux is None:
            return None
        if self._native_outputs is None or self._native_outputs[0] is not native:
            outputs = NativeCutOutputs(native, aux, self._dynamics._law_record(native), _KERNEL_VALUE_ORDER,
                                       crane._joint_of, crane._vessel, crane._outer, (crane.params.l4, 0.0, 0.0))
            self._native_outputs = (native, outputs)
        return self._native_outputs[1]

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        kin = self._dynamics(x, inputs)
        return kin.xdot, kin

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook), None without the kernel."""
        return self._dynamics.compiled(inputs)

    def update_inputs(self, x: np.ndarray, aux, old: np.ndarray, new: np.ndarray):
        """``(ẋ, aux)`` for new inputs at the same state: exact, the efforts are affine in the inputs."""
        kin = self._dynamics.with_new_inputs(aux, old, new)
        return kin.xdot, kin

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        kin = aux
        efforts = kin.efforts
        (n2, f2), (n1, f1) = self.crane.interface_wrench(kin, kin.udot, efforts)
        # One flat vector in the order of OUTPUTS; tolist() gives Python floats in one call.
        values = np.concatenate((x, n2[:2], f2, n1[:2], f1, self.crane.tip_position(kin), efforts[3:])).tolist()
        return dict(zip(_OUTPUT_NAMES, values))

    def check_state(self, x: np.ndarray) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f"state became non-finite: {x}")
        # R_z R_y R_x (53) is singular at q2 = ±π/2 (roll and yaw axes align, M loses rank).
        if abs(x[1]) > PITCH_LIMIT:
            raise ValueError(f"vessel pitch q2 = {x[1]:.4g} rad is beyond ±{PITCH_LIMIT} rad, near the Euler-angle "
                             "singularity of eq. (53)")
