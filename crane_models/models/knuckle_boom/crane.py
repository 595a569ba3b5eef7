"""Knuckle boom crane of Cibicik & Egeland (2018), section 5: seven bodies, ``q = [q1 q2 q3]``.

Body 1 is the king (slew ``q1`` about z0), Bodies 2 and 3 the booms, b2/p2 and b3/p3 barrel and piston
of the inner and outer cylinder; ``q2``, ``q3`` are the piston extensions. The crane is described as
data (:func:`crane_bodies`); the dynamics, reactions and controller come from the shared core.

Choices where the paper is silent (see also the field descriptions below):

* Frames (Fig. 5 is not reproduced in the text): Frame 2 sits at the top of the king ``[0, 0, l1]`` in
  Frame 1, Frame 3 at the boom tip ``[0, 0, l2]`` in Frame 2, both turned about x by ``α_k``; the
  barrel frame ``bk`` sits at ``[0, a_bk, l_{k-1} − e_bk]`` (70), (72) and the piston frame ``pk`` at the
  piston attachment point ``P_k``, i.e. ``l_bk + q_k`` along ``z_bk``. This is the only placement for
  which the cosine-rule angles (29), (30) close the loop; the tests check the closure.
* COGs: Body k at ``[0, 0, d_k]``, barrel at ``[0, 0, d_bk]`` from its joint, piston ``d_pk`` back from
  ``P_k`` (the paper's definition below eq. (41)).
* Stroke limits: the paper gives none. ``q_k ∈ [0, 1.7] m`` keeps ≥ 0.3 m of the 2.0 m piston inside
  the 2.3 m barrel and stays well inside the range where (29)-(30) exist.
* The crane tip is the end of Body 3, ``[0, 0, l3]`` in Frame 3.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.effort_laws import CoordinateEffortLaw, end_stop_efforts
from ...core.kane import Body, Kinematics, MultibodySystem, identity_map
from ...core.native.outputs import NativeCraneOutputs, OutputWriters, kernel_writer
from ...core.state_derivative import StateDerivative
from ...core.parameters import ParameterError, validate
from ...core.reactions import CylinderUnit, ReactionSolver
from .parameters import KnuckleBoomController, KnuckleBoomInitialState, KnuckleBoomParameters

__all__ = ["KnuckleBoomParameters", "KnuckleBoomCrane", "KnuckleBoomController", "KnuckleBoomInitialState",
           "KnuckleBoomModel", "crane_bodies", "crane_effort_law", "BODY_NAMES", "INPUTS", "OUTPUTS", "INTEGER_OUTPUTS"]

BODY_NAMES = ("king", "boom2", "barrel2", "piston2", "boom3", "barrel3", "piston3")

def slender_inertia(m: float, length: float, axial_fraction: float = 0.0) -> np.ndarray:
    """Inertia tensor of eq. (66): ``diag(m l²/12, m l²/12, axial_fraction · m l²/12)``."""
    i = m * length * length / 12.0
    return np.diag([i, i, axial_fraction * i])


def crane_bodies(p: KnuckleBoomParameters, base: str | None = None, mount=(0.0, 0.0, 0.0)) -> list:
    """The seven bodies of section 5 as data (joint screws, maps (29)-(30), inertias (66)); the king stands on
    body ``base`` (``None``: the ground) at ``mount`` in its coordinates, with coordinates ``q1, q2, q3``
    = 0, 1, 2."""
    c2, c3 = p.cylinder(2), p.cylinder(3)
    x, z = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    return [
        Body("king", base, "revolute", z, tuple(mount), 0, mass=p.m1,
             inertia=slender_inertia(p.m1, p.l1, 0.1), com=(0, 0, p.d1)),
        Body("boom2", "king", "revolute", x, (0, 0, p.l1), 1, c2.alpha_map, p.m2,
             slender_inertia(p.m2, p.l2), (0, 0, p.d2)),
        Body("barrel2", "king", "revolute", x, (0, p.ab2, p.l1 - p.eb2), 1, c2.beta_map, p.mb2,
             slender_inertia(p.mb2, p.lb2), (0, 0, p.db2)),
        Body("piston2", "barrel2", "prismatic", z, (0, 0, p.lb2), 1, mass=p.mp2,
             inertia=slender_inertia(p.mp2, p.lp2), com=(0, 0, -p.dp2)),
        Body("boom3", "boom2", "revolute", x, (0, 0, p.l2), 2, c3.alpha_map, p.m3,
             slender_inertia(p.m3, p.l3), (0, 0, p.d3)),
        Body("barrel3", "boom2", "revolute", x, (0, p.ab3, p.l2 - p.eb3), 2, c3.beta_map, p.mb3,
             slender_inertia(p.mb3, p.lb3), (0, 0, p.db3)),
        Body("piston3", "barrel3", "prismatic", z, (0, 0, p.lb3), 2, mass=p.mp3,
             inertia=slender_inertia(p.mp3, p.lp3), com=(0, 0, -p.dp3)),
    ]


class KnuckleBoomCrane:
    """Equations of motion, actuator efforts and reactions of the knuckle boom crane.

    Actuator efforts ``e = [T1, F2, F3]``: king torque (67) and cylinder forces (68). Each drives one
    generalized coordinate (``τ_act = e``), so efforts and generalized forces coincide.
    """

    n = 3

    def __init__(self, params: KnuckleBoomParameters | None = None, base_bodies: tuple = (), n_coordinates: int = 3,
                 mount=(0.0, 0.0, 0.0)):
        """``base_bodies``: a chain the king stands on (its last body, at ``mount`` in its coordinates; their
        coordinates from 3 up to ``n_coordinates``): a moving base or a vessel; none for the paper's fixed crane."""
        self.params = p = params if params is not None else KnuckleBoomParameters()
        validate(p)
        self.cylinders = {2: p.cylinder(2), 3: p.cylinder(3)}
        for k, cyl in self.cylinders.items():
            lo, hi = cyl.extension_range()
            q_lo, q_hi = p.stroke(k)
            if not q_lo < q_hi:
                raise ParameterError(f"q{k}_min = {q_lo} m must be below q{k}_max = {q_hi} m")
            if not (lo < q_lo and q_hi < hi):
                raise ParameterError(
                    f"stroke range [q{k}_min, q{k}_max] = [{q_lo}, {q_hi}] m must lie inside ({lo:.4g}, {hi:.4g}) m, "
                    f"where cylinder {k} of this geometry can close its loop (eqs. (29)-(30))")
            for q in np.linspace(q_lo, q_hi, 7):
                a, b = cyl.alpha(q), cyl.beta(q)
                if abs(cyl.transmission(a, b)) < 1e-3 * cyl.b2:
                    raise ParameterError(f"cylinder {k} passes a dead point (eq. (37) singular) at q{k} = {q:.4g} m")
        base = base_bodies[-1].name if base_bodies else None
        self.n = int(n_coordinates)
        self.system = MultibodySystem(list(base_bodies) + crane_bodies(p, base, mount), self.n)
        self.reaction_solver = ReactionSolver(
            self.system, [CylinderUnit("barrel2", "piston2", "boom2"), CylinderUnit("barrel3", "piston3", "boom3")])
        ix = self.system.index
        self._king, self._barrels, self._pistons = ix["king"], [ix["barrel2"], ix["barrel3"]], [ix["piston2"], ix["piston3"]]
        self.total_mass = float(self.system.mass.sum())
        self.actuated = [ix["king"], ix["piston2"], ix["piston3"]]  # bodies whose joints T1, F2, F3 drive
        self._stroke = [(-np.inf, np.inf), p.stroke(2), p.stroke(3)]
        self._end_stops = self.end_stops()

    # -- forces ---------------------------------------------------------------------------------
    def actuator_wrenches(self, efforts: np.ndarray) -> np.ndarray:
        """``T1`` on the king about z1 (67); ``−F_k`` on barrel k, ``+F_k`` on piston k along z (68)."""
        w = np.zeros((self.system.nb, 6))
        w[self._king, 5] = efforts[0]
        for j, (b, pst) in enumerate(zip(self._barrels, self._pistons)):
            w[b, 2] = -efforts[j + 1]
            w[pst, 2] = efforts[j + 1]
        return w

    def gravity_forces(self, kin: Kinematics) -> np.ndarray:
        """Generalized gravity forces ``τ_g = Σ Pᵀ Π W_gravity`` (46)."""
        return self.system.gravity_forces(kin, self.params.g)

    def end_stops(self) -> tuple:
        """``(low, high, stiffness, damping)`` per coordinate: the stroke limits of both cylinders with the
        end-stop spring-damper; none on the king."""
        p = self.params
        low, high = np.array([s[0] for s in self._stroke]), np.array([s[1] for s in self._stroke])
        return (low, high, np.array([0.0, p.end_stop_stiffness, p.end_stop_stiffness]),
                np.array([0.0, p.end_stop_damping, p.end_stop_damping]))

    def end_stop_forces(self, q: np.ndarray, u: np.ndarray) -> tuple:
        """Spring-damper force of the end stops, pushing back into the stroke range (the damper may only
        push: a stop cannot pull the piston back into contact), and whether a piston is beyond a limit."""
        low, high, k, c = self._end_stops
        q, u = np.asarray(q, dtype=float), np.asarray(u, dtype=float)
        if not any(qi < lo or qi > hi for qi, lo, hi in zip(q.tolist(), low, high)):  # the usual case, cheaply
            return np.zeros(3), False
        return end_stop_efforts(q, u, low, high, k, c), True

    # -- dynamics -------------------------------------------------------------------------------
    def evaluate(self, q: np.ndarray, u: np.ndarray, efforts: np.ndarray, kin: Kinematics | None = None):
        """Solve (43) with ``τ`` formed literally as ``Σ Pᵀ Π W_e`` (46) from the wrenches (67)-(68),
        end stops added; returns ``(kin, u̇, W_e, stop)``. The simulation uses the equivalent faster
        :meth:`KnuckleBoomModel.derivative`; this form is its check (tests/test_fast_paths.py)."""
        if kin is None:
            kin = self.system.kinematics(q, u)
        stop, _ = self.end_stop_forces(kin.q, kin.u)
        wrenches = self.system.gravity_wrenches(kin, self.params.g) + self.actuator_wrenches(efforts + stop)
        tau = self.system.generalized_forces(kin, wrenches)
        udot, _, _ = self.system.accelerations(kin, tau)
        return kin, udot, wrenches, stop

    def tip_position(self, kin: Kinematics) -> np.ndarray:
        k = self.system.index["boom3"]
        return kin.origin[k] + kin.rotation[k] @ np.array([0.0, 0.0, self.params.l3])

    def angles(self, kin: Kinematics) -> dict:
        ix = self.system.index
        return {"alpha2": kin.theta[ix["boom2"]], "alpha3": kin.theta[ix["boom3"]],
                "beta2": kin.theta[ix["barrel2"]], "beta3": kin.theta[ix["barrel3"]]}

    def reactions(self, kin: Kinematics, udot: np.ndarray, wrenches: np.ndarray) -> dict:
        """Joint 1 in Frame 0, Joint 2 in Frame 2, Joint 3 in Frame 3 (69)-(74), and the reaction
        wrenches on barrel and piston of each cylinder at their supports (cylinder frame)."""
        _, supports, joints = self.reaction_solver.solve(kin, wrenches, udot)
        ix = self.system.index
        r1 = joints[ix["king"]]
        r1 = np.concatenate((kin.rotation[ix["king"]] @ r1[:3], kin.rotation[ix["king"]] @ r1[3:]))
        return {
            "joint1": r1,
            "joint2": joints[ix["boom2"]],
            "joint3": joints[ix["boom3"]],
            # The support acts on the cylinder with minus the equivalent wrench of (53).
            "cylinder2_barrel": -supports[0][0],
            "cylinder2_piston": -supports[0][1],
            "cylinder3_barrel": -supports[1][0],
            "cylinder3_piston": -supports[1][1],
        }


# (name, unit, description) -- the public contract of the FMU, in this order.
INPUTS = (
    ("king_torque", "N.m", "king slew torque T1 added to the controller effort"),
    ("cylinder2_force", "N", "cylinder 2 piston force F2 added to the controller effort"),
    ("cylinder3_force", "N", "cylinder 3 piston force F3 added to the controller effort"),
    ("q1_ref", "rad", "king slew angle set-point"),
    ("q2_ref", "m", "cylinder 2 extension set-point"),
    ("q3_ref", "m", "cylinder 3 extension set-point"),
)


def _wrench_outputs(prefix: str, frame: str, what: str, moments: bool = True) -> list:
    out = [(f"{prefix}_force_{a}", "N", f"{what} force, {a} in {frame}") for a in "xyz"]
    if moments:
        out += [(f"{prefix}_moment_{a}", "N.m", f"{what} moment, {a} in {frame}") for a in "xyz"]
    return out


# The joint coordinates, speeds and angles: outputs of every knuckle boom FMU, fixed or moving base.
COORDINATE_OUTPUTS = (
    [("q1", "rad", "king slew angle"), ("q2", "m", "piston extension of cylinder 2"),
     ("q3", "m", "piston extension of cylinder 3"), ("u1", "rad/s", "king slew rate"),
     ("u2", "m/s", "piston speed of cylinder 2"), ("u3", "m/s", "piston speed of cylinder 3"),
     ("alpha2", "rad", "angle of Joint 2 (Frame 1 to 2), eq. (29)"),
     ("alpha3", "rad", "angle of Joint 3 (Frame 2 to 3), eq. (29)"),
     ("beta2", "rad", "angle of barrel 2 (Frame 1 to b2), eq. (30)"),
     ("beta3", "rad", "angle of barrel 3 (Frame 2 to b3), eq. (30)")])

OUTPUTS = (
    list(COORDINATE_OUTPUTS) + [("tip_x", "m", "crane tip x in Frame 0"), ("tip_y", "m", "crane tip y in Frame 0"),
                                ("tip_z", "m", "crane tip z in Frame 0")]
    + _wrench_outputs("joint1", "Frame 0", "reaction on the king in Joint 1, eq. (69)")
    + _wrench_outputs("joint2", "Frame 2", "reaction on Body 2 in Joint 2, eq. (71)")
    + _wrench_outputs("joint3", "Frame 3", "reaction on Body 3 in Joint 3, eq. (73)")
    + _wrench_outputs("cylinder2_barrel", "Frame b2", "support reaction on barrel 2 at its joint, eq. (53)", False)
    + _wrench_outputs("cylinder2_piston", "Frame p2", "support reaction on piston 2 at P2, eq. (53)", False)
    + _wrench_outputs("cylinder3_barrel", "Frame b3", "support reaction on barrel 3 at its joint, eq. (53)", False)
    + _wrench_outputs("cylinder3_piston", "Frame p3", "support reaction on piston 3 at P3, eq. (53)", False)
    + [("applied_king_torque", "N.m", "total king torque: controller plus input (Fig. 15)"),
       ("applied_cylinder2_force", "N", "total cylinder 2 force: controller plus input (Fig. 15)"),
       ("applied_cylinder3_force", "N", "total cylinder 3 force: controller plus input (Fig. 15)"),
       ("end_stop_force2", "N", "end-stop force on piston 2 (nonzero only beyond a stroke limit)"),
       ("end_stop_force3", "N", "end-stop force on piston 3 (nonzero only beyond a stroke limit)")]
)
INTEGER_OUTPUTS = (("end_stop_active", "", "1 while a piston is beyond a stroke limit, else 0"),)


_REAL_OUTPUT_ORDER = (
    ["q1", "q2", "q3", "u1", "u2", "u3", "alpha2", "alpha3", "beta2", "beta3", "tip_x", "tip_y", "tip_z"]
    + [f"{j}_{kind}_{a}" for j in ("joint1", "joint2", "joint3") for kind in ("force", "moment") for a in "xyz"]
    + [f"cylinder{k}_{part}_force_{a}" for k in (2, 3) for part in ("barrel", "piston") for a in "xyz"]
    + ["applied_king_torque", "applied_cylinder2_force", "applied_cylinder3_force", "end_stop_force2",
       "end_stop_force3"])
# The values mbs_crane_outputs computes, in its order (crane_outputs.h): the real outputs, with the load on the base
# (zero: the crane stands on the ground) after the tip, the king's end-stop force among the stops (None: not
# outputs) and the integer output last.
_KERNEL_VALUE_ORDER = (_REAL_OUTPUT_ORDER[:13] + [None] * 6 + _REAL_OUTPUT_ORDER[13:-2] + [None]
                       + _REAL_OUTPUT_ORDER[-2:] + ["end_stop_active"])


def crane_effort_law(crane: KnuckleBoomCrane, controller: KnuckleBoomController, enabled: bool) -> CoordinateEffortLaw:
    """The law of ``q1, q2, q3``. Inputs ``w = [T1, F2, F3, q1_ref, q2_ref, q3_ref]``: efforts ``w[:3]`` plus,
    with the controller, ``K_P (q_ref − q) − K_D u − τ_g``, plus the end stops of both cylinders
    (:meth:`KnuckleBoomCrane.end_stop_forces`). The efforts act along the actuated joints, which are
    the coordinates themselves (identity maps), so they are the generalized forces."""
    sys = crane.system
    if [sys.bodies[b].coordinate for b in crane.actuated] != [0, 1, 2] or any(
            sys.bodies[b].joint_map is not identity_map for b in crane.actuated):
        raise ValueError("the knuckle boom's actuated joints must be its coordinates q1, q2, q3")
    gain, linear, damping = np.zeros((3, 6)), np.zeros(3), np.zeros(3)
    gain[:, :3] = np.eye(3)
    if enabled:
        gain[:, 3:] = np.diag(controller.kp)
        linear, damping = -controller.kp, -controller.kd
    return CoordinateEffortLaw(np.zeros(3), gain, linear, np.zeros(3), damping, *crane.end_stops(),
                               gravity_compensation=enabled)


class KnuckleBoomModel:
    """The crane with its controller: inputs, state ``x = [q, u]``, outputs (the FMU's contract).

    The efforts -- inputs, the PD controller with gravity compensation, the end stops -- are one
    :class:`effort_laws.CoordinateEffortLaw` on the three actuated joints, whose coordinates are their joint
    variables (king angle, piston extensions): a state derivative, and the stepping, run in the kernel."""

    input_names = [name for name, _, _ in INPUTS]
    state_size = 6

    def __init__(self, params: KnuckleBoomParameters | None = None,
                 controller: KnuckleBoomController | None = None, controller_enabled: bool = True):
        self.crane = KnuckleBoomCrane(params)
        self.controller = controller if controller is not None else KnuckleBoomController()
        validate(self.controller)
        self.controller_enabled = bool(controller_enabled)
        self._kp, self._kd = self.controller.kp, self.controller.kd
        self.law = self._effort_law()
        self._dynamics = StateDerivative(self.crane.system, self.law, self.crane.params.g)
        self._native_outputs = None  # (NativeSystem, NativeCraneOutputs) once built
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call
        self.write_outputs = OutputWriters(self.output_writer)
        self._cylinder_ranges = [(k, self.crane.cylinders[k].extension_range()) for k in (2, 3)]

    def _effort_law(self) -> CoordinateEffortLaw:
        return crane_effort_law(self.crane, self.controller, self.controller_enabled)

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``ẋ = [u; u̇]`` from (43) with gravity (67)-(68), controller, inputs and end stops.

        Generalized forces are formed without building wrenches (the hot path): gravity in Frame 0 and
        the efforts along their joints give the same ``τ`` as ``Σ Pᵀ Π W_e`` (46); the wrenches needed
        for the reactions are built only in :meth:`outputs`.
        """
        kin = self._dynamics(x, inputs)
        return kin.xdot, kin

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook), None without the kernel."""
        return self._dynamics.compiled(inputs)

    def update_inputs(self, x: np.ndarray, aux, old: np.ndarray, new: np.ndarray):
        """``(ẋ, aux)`` for new inputs at the same state, from the previous evaluation.

        ``ẋ`` is affine in the inputs (efforts enter (43) linearly, the set-points through ``Kp``), so
        ``Δu̇ = M⁻¹ Δτ`` is exact; this saves a full evaluation at every communication point.
        """
        kin = self._dynamics.with_new_inputs(aux, old, new)
        return kin.xdot, kin

    def applied_efforts(self, kin: Kinematics) -> tuple:
        """``(effort, stop, active)``: actuator efforts (inputs and controller), end-stop forces and whether a
        piston is beyond its stroke, at the evaluation ``kin``."""
        stop, active = self.crane.end_stop_forces(kin.q, kin.u)
        return kin.efforts - stop, stop, active

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        return self.crane_outputs(aux, x, aux.udot)

    def crane_outputs(self, kin: Kinematics, x: np.ndarray, udot: np.ndarray, applied=None) -> dict:
        """The outputs at the evaluation ``kin`` with accelerations ``udot``; ``applied``: further wrenches on
        the bodies (``[f; n]`` at each COG, body coordinates), e.g. a hoisting wire on Body 3, which enter
        every reaction."""
        effort, stop, active = self.applied_efforts(kin)
        crane = self.crane
        wrenches = crane.system.gravity_wrenches(kin, crane.params.g) + crane.actuator_wrenches(effort + stop)
        if applied is not None:
            wrenches = wrenches + applied
        r = crane.reactions(kin, udot, wrenches)
        angles = crane.angles(kin)
        # One flat vector in the order of _REAL_OUTPUT_ORDER; tolist() gives Python floats in one call.
        values = np.concatenate((x, [angles["alpha2"], angles["alpha3"], angles["beta2"], angles["beta3"]],
                                 crane.tip_position(kin), r["joint1"], r["joint2"], r["joint3"],
                                 r["cylinder2_barrel"][:3], r["cylinder2_piston"][:3], r["cylinder3_barrel"][:3],
                                 r["cylinder3_piston"][:3], effort, stop[1:])).tolist()
        out = dict(zip(_REAL_OUTPUT_ORDER, values))
        out["end_stop_active"] = int(active)
        return out

    def output_writer(self, names: tuple, constants: dict | None = None):
        """``write(x, inputs, aux, out)``: the outputs ``names`` at the state ``x`` with the evaluation ``aux`` there
        into ``out``; ``constants``: further outputs of fixed value (name: number) among ``names``. By
        ``mbs_crane_outputs`` when ``aux`` is the kernel's, else from :meth:`crane_outputs` (numpy's kinematics)."""
        return kernel_writer(self._kernel_outputs(), names, constants or {},
                             lambda x, inputs, aux: self.crane_outputs(aux, x, aux.udot),
                             lambda aux: aux.record is not None)

    def kernel_step_parts(self, names: tuple, constants: dict | None = None):
        """What the kernel's communication step (``mbs_cosim_step``, fmi/kernel_steps.py) needs besides the stepping:
        ``(kernel outputs, index map of names, bounds of check_state)``, None without the kernel."""
        outputs = self._kernel_outputs()
        if outputs is None:
            return None
        return outputs, outputs.plan(names, constants), [(k - 1, lo, hi) for k, (lo, hi) in self._cylinder_ranges]

    def _kernel_outputs(self) -> NativeCraneOutputs | None:
        """The kernel's record of this crane's outputs (built on first use), None without the kernel."""
        native, solver = self.crane.system.native, self.crane.reaction_solver.native
        if native is None or solver is None:
            return None
        if self._native_outputs is None or self._native_outputs[0] is not native:
            ix = self.crane.system.index
            crane = self.crane
            king, (b2, b3), (p2, p3) = crane._king, crane._barrels, crane._pistons
            actuators = [(6 * king + 5, 0, 1.0), (6 * b2 + 2, 1, -1.0), (6 * p2 + 2, 1, 1.0), (6 * b3 + 2, 2, -1.0),
                         (6 * p3 + 2, 2, 1.0)]  # (67)-(68): T1 about z1; -F_k on barrel k, +F_k on piston k
            outputs = NativeCraneOutputs(
                native, solver, self._dynamics._law_record(native), _KERNEL_VALUE_ORDER, range(6),
                [ix[n] for n in ("boom2", "boom3", "barrel2", "barrel3")], ix["boom3"], (0.0, 0.0, self.crane.params.l3),
                3, actuators, [(king, True), (ix["boom2"], False), (ix["boom3"], False)])
            self._native_outputs = (native, outputs)
        return self._native_outputs[1]

    def check_state(self, x: np.ndarray) -> None:
        v = x.tolist()  # floats: cheaper to test one by one than numpy's calls at this size (once per step)
        if not all(map(math.isfinite, v)):
            raise ValueError(f"state became non-finite: {x}")
        for k, (lo, hi) in self._cylinder_ranges:
            if not lo < v[k - 1] < hi:
                self.crane.cylinders[k].check(v[k - 1])  # raises with the message
