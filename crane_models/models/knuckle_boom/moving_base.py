"""The knuckle boom crane (Cibicik & Egeland 2018, section 5) on a moving base: the vessel's motion is an input,
the wrench the crane puts on the vessel an output, by the moving-base paper's method of auxiliary generalized
speeds (Cibicik & Egeland, *Determination of constraint forces for an offshore crane on a moving base*, §II-C,
eqs. (40)-(50), the cut (67) of §III-C applied to the king joint).

The body tree is the fixed crane's (:func:`.crane.crane_bodies`, with all its parameters, controller, end stops
and reactions) standing on a massless base chain: translation of the base point along the Frame 0 axes
(``q7 … q9``), then yaw ``q6``, pitch ``q5``, roll ``q4`` with ``R^0_1 = R_z R_y R_x`` (53)
(:func:`core.moving_base.base_chain.base_bodies`). The six base speeds are *prescribed*: the effort law gives their
accelerations (:func:`core.effort_laws.prescribed_accelerations`) and the kernel solves
``M_ff u̇_f = τ_f − (C u)_f − M_fp u̇_p`` (43) in the same call that steps the crane -- the compiled kernel path
of the fixed crane, one tree, no second dynamics engine.

Motion interface (vectors in Frame 1, the base frame, as :mod:`vessel_crane.split`): ``roll``, ``pitch``,
``yaw``; ``angular_velocity_*`` ``ω^1_{01}``; ``angular_acceleration_*``; ``base_acceleration_*`` the
acceleration of the crane base point (origin of Frame 1, where the king joint sits) relative to Frame 0,
gravity **not** included (gravity is ``−g z0`` of Frame 0, applied to every body).

Choices where the papers are silent:

* At each communication point the base's angles and Euler rates are put to the inputs' values
  (``impose_inputs``; the base point at the origin and at rest: the dynamics are Galilean-invariant and
  gravity uniform). Inside the step the base moves on with the Euler-angle accelerations and the Frame 0
  translational acceleration of the step's start held -- one consistent motion, so FMU and standalone
  solver integrate the same thing.
* The controller's gravity compensation ``− τ_g`` uses the crane's generalized gravity forces in the tilted
  base (what a crane controller with an inclinometer would compensate); on a level, resting base it is the
  fixed crane's.
* ``interface_moment_z`` is the reaction of the slewing torque ``T1`` on the vessel (not a constraint
  moment: the cut (67) has none about the slewing axis); a ship simulator needs the full wrench.
* Not in the papers: with ``mean_wrench_outputs`` the crane also returns the wrench averaged over the last
  communication step (``interface_*_mean_*``, as :mod:`vessel_crane.split`'s crane): seven quadrature states
  ``[∫W dt (6), elapsed time]`` after ``[q; u]``, ``W`` exactly the ``interface_*`` outputs, restarted at every step's
  start and kept out of the step-size control. A vessel held at that mean over the step receives the crane's impulse.
  Also that mean predicted over the coming step, ``2 W̄ₙ − W̄ₙ₋₁`` (``interface_*_predicted_*``): the step before's
  integrals are seven more states after them, set at each step's start (``core.moving_base.interface``).

With the compiled kernel the right-hand side, the stepping, the outputs and the whole communication step -- the base
imposed and the step integrals restarted included -- run there (:mod:`.moving_base_kernel`); the numpy methods here
are the specification and the path without the kernel.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.constraint_forces import AuxiliarySpeeds, ConstraintCut
from ...core.effort_laws import CoordinateEffortLaw, prescribed_accelerations, stacked
from ...core.kane import Kinematics
from ...core.native.outputs import OutputWriters
from ...core.native.wrenches import NativeBaseLoads, NativeInterfaceInertia
from ...core.parameters import validate
from ...core.screws import rot_x, rot_y, rot_z
from ...core.state_derivative import StateDerivative
from ...core.moving_base.interface_inertia import (INERTIA_OUTPUTS, INERTIA_ZEROS, WRENCH0_OUTPUTS, inertia_values,
                                              interface_inertia)
from ...core.moving_base.base_chain import base_bodies
from ...core.moving_base.euler import base_motion_of, euler_rate_matrix_inverse
from ...core.moving_base.interface import (BASE_VELOCITY, MOTION, STEP_INTEGRALS, STEP_WRENCH_NAMES, WRENCH, restarted,
                                           step_rates, step_wrenches)
from .crane import (COORDINATE_OUTPUTS, INPUTS as KB_INPUTS, INTEGER_OUTPUTS, KnuckleBoomController,
                    KnuckleBoomCrane, KnuckleBoomParameters, _wrench_outputs, crane_effort_law)
from .moving_base_kernel import MovingBaseKernel

__all__ = ["KnuckleBoomOnMovingBaseModel", "KING_CUT", "INPUTS", "OUTPUTS", "INTEGER_OUTPUTS", "BASE_ANGLES",
           "BASE_TRANSLATION"]

# Coordinates: q1-q3 the crane (as the fixed crane), q4-q6 roll, pitch, yaw, q7-q9 the base point along x0, y0, z0.
BASE_ANGLES, BASE_TRANSLATION = (3, 4, 5), (6, 7, 8)
N_COORDINATES = 9
PITCH_LIMIT = 1.4  # |base pitch| [rad] check_state allows: E of (53) is singular at ±π/2
_PRESCRIBED, _FREE = slice(3, 9), slice(0, 3)
# The cut of §III-C on the king joint: moments about x, y and forces along x, y, z of the king frame (67).
KING_CUT = ConstraintCut("king", ("rx", "ry", "tx", "ty", "tz"))

INPUTS = tuple(KB_INPUTS) + tuple(MOTION) + tuple(BASE_VELOCITY)
_MOTION_AT = len(KB_INPUTS)  # inputs[_MOTION_AT:] = roll, pitch, yaw, ω (3), ω̇ (3), base acceleration (3)

OUTPUTS = (
    list(COORDINATE_OUTPUTS)
    + [(f"tip_{a}", "m", f"crane tip relative to the crane base, {a} in the base frame") for a in "xyz"]
    + list(WRENCH)
    + _wrench_outputs("joint1", "the base frame", "reaction on the king in Joint 1, eq. (69)")
    + _wrench_outputs("joint2", "Frame 2", "reaction on Body 2 in Joint 2, eq. (71)")
    + _wrench_outputs("joint3", "Frame 3", "reaction on Body 3 in Joint 3, eq. (73)")
    + [("applied_king_torque", "N.m", "total king torque: controller plus input (Fig. 15)"),
       ("applied_cylinder2_force", "N", "total cylinder 2 force: controller plus input (Fig. 15)"),
       ("applied_cylinder3_force", "N", "total cylinder 3 force: controller plus input (Fig. 15)"),
       ("end_stop_force2", "N", "end-stop force on piston 2 (nonzero only beyond a stroke limit)"),
       ("end_stop_force3", "N", "end-stop force on piston 3 (nonzero only beyond a stroke limit)")]
)
_OUTPUT_NAMES = [name for name, _, _ in OUTPUTS]
_WRENCH_NAMES = _OUTPUT_NAMES[13:19]  # the interface force and moment, W of W = W0 - A a
# The values mbs_crane_outputs computes, in its order (crane_outputs.h): the real outputs up to the joint reactions,
# the cylinders' support forces and the king's end-stop force (None: not outputs here), the rest, the integer output.
_KERNEL_VALUE_ORDER = (_OUTPUT_NAMES[:37] + [None] * 12 + _OUTPUT_NAMES[37:40] + [None] + _OUTPUT_NAMES[40:42]
                       + ["end_stop_active"])
OUTPUTS = tuple(OUTPUTS) + tuple(INERTIA_OUTPUTS) + tuple(WRENCH0_OUTPUTS)


class KnuckleBoomOnMovingBaseModel:
    """The knuckle boom crane with its controller on a prescribed base motion; state ``x = [q; u]`` of all nine
    coordinates (the base part is the inputs' at every communication point), and with ``mean_wrench_outputs`` the
    step integrals ``[∫W dt (6), elapsed time]`` of the last step and of the step before after them."""

    input_names = [name for name, _, _ in INPUTS]
    state_size = 2 * N_COORDINATES
    # CoSimulation's hooks that the kernel's communication step runs itself (mbs_cosim_moving_step), and new inputs
    # evaluated afresh there (no exact input update: the base enters M)
    kernel_step_hooks = ("impose", "restart")
    kernel_fresh_inputs = True

    def __init__(self, params: KnuckleBoomParameters | None = None,
                 controller: KnuckleBoomController | None = None, controller_enabled: bool = True,
                 inertia_outputs: bool = True, mean_wrench_outputs: bool = False):
        """``inertia_outputs``: also output A and W₀ (:mod:`core.moving_base.interface_inertia`; 0 otherwise);
        ``mean_wrench_outputs``: also the step-mean wrench (the module's docstring; 0 otherwise)."""
        self.inertia_outputs = bool(inertia_outputs)
        self.mean_wrench_outputs = mean = bool(mean_wrench_outputs)
        self.state_size = 2 * N_COORDINATES + (STEP_INTEGRALS if mean else 0)
        # The quadrature states do not steer the step size (step_control._error_part); without them every state does.
        self.controlled_states = 2 * N_COORDINATES if mean else None
        if mean:
            self.restart_step_integrals = lambda x: restarted(x, 2 * N_COORDINATES)
        base = base_bodies(BASE_ANGLES, BASE_TRANSLATION)
        self.crane = KnuckleBoomCrane(params, tuple(base), N_COORDINATES)
        self.controller = controller if controller is not None else KnuckleBoomController()
        validate(self.controller)
        self.law: CoordinateEffortLaw = stacked(crane_effort_law(self.crane, self.controller, controller_enabled),
                                                prescribed_accelerations(6))
        self.system = system = self.crane.system
        self._dynamics = StateDerivative(system, self.law, self.crane.params.g)
        self.interface = AuxiliarySpeeds(system, KING_CUT)
        ix = system.index
        self._base, self._king = ix["vessel"], ix["king"]
        self._angle_bodies = [ix[n] for n in ("boom2", "boom3", "barrel2", "barrel3")]  # alpha2, alpha3, beta2, beta3
        # The kernel's W and A (one call each) when it is loaded; the numpy forms below are their specification.
        self._native_inertia = (NativeInterfaceInertia(N_COORDINATES, range(3, 9), range(3))
                                if self.interface.native is not None else None)
        self._cached = (None, None)
        self._imposed = (None, None)  # (the base angles it was imposed for, the state impose_inputs returned last)
        # Outputs that do not change: the point of attack is the base point itself; A and W₀ when not computed.
        self._fixed_outputs = dict.fromkeys(("point_of_attack_x", "point_of_attack_y", "point_of_attack_z"), 0.0)
        if not self.inertia_outputs:
            self._fixed_outputs.update(INERTIA_ZEROS)
        self._reactions_at = [ix["king"], ix["boom2"], ix["boom3"]]
        self._weights = -self.crane.params.g * system.mass[:, None]  # as MultibodySystem.gravity_wrenches
        self._actuator_entries = [6 * ix[n] + c for n, c in (("king", 5), ("barrel2", 2), ("barrel3", 2),
                                                              ("piston2", 2), ("piston3", 2))]  # in the (nb, 6) array
        self._tip_body, self._tip_length = ix["boom3"], self.crane.params.l3
        solver = self.crane.reaction_solver
        self._native_loads = None  # loads() in one kernel call; loads_reference() is its specification
        if self.interface.native is not None and solver.native is not None:
            self._native_loads = NativeBaseLoads(
                system.native, solver.native, self.interface.native, self._base, self._actuator_entries,
                self._reactions_at, [self._base] + self._reactions_at[1:], self._tip_body, (0.0, 0.0, self._tip_length),
                self.crane.params.g)
        self._cylinder_ranges = [self.crane.cylinders[k].extension_range() for k in (2, 3)]
        self._kernel = MovingBaseKernel(self, _KERNEL_VALUE_ORDER, _MOTION_AT)
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call
        self.write_outputs = OutputWriters(self.output_writer)

    # -- the base motion ------------------------------------------------------------------------------
    def base_motion(self, inputs: np.ndarray) -> tuple:
        """``(angles, Euler rates, kernel inputs)`` of the inputs (cached: asked for by ``impose_inputs``,
        ``derivative`` and ``compiled`` with the same inputs). The kernel inputs are the crane's six, then the
        prescribed ``u̇`` of the base: the Euler-angle accelerations ``E⁻¹ (ω̇ − Ė q̇)`` and the base-point
        acceleration in Frame 0, ``R^0_1 a`` -- by the kernel (``mbs_moving_base_inputs``, as its step does) when it
        is loaded, else :func:`base_motion_of`."""
        key = inputs.tobytes()
        if self._cached[0] == key:
            return self._cached[1]
        if self._kernel.parts() is not None:
            values = self._kernel.base_inputs(inputs)
            n = len(values) - 6
            out = (values[n:n + 3], values[n + 3:], values[:n])
        else:
            values = inputs.tolist()
            angles, rates, udot_base = base_motion_of(values[_MOTION_AT:])
            out = (np.array(angles), np.array(rates), np.array(values[:_MOTION_AT] + udot_base))
        self._cached = (key, out)
        return out

    def impose_inputs(self, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """``x`` with the base at the inputs' angles and Euler rates ``E⁻¹ ω`` (53), the base point at the
        origin and at rest (Galilean invariance). The simulation imposes at every input change and again at
        the start of every step: a state this method returned for the same inputs (the same object -- states are
        never changed in place) comes back as it is."""
        angles, rates, _ = self.base_motion(inputs)
        if x is self._imposed[1] and self._imposed[0] is angles:  # its own result for these inputs: in place
            return x
        n = N_COORDINATES
        out = np.array(x, dtype=float)
        out[3:6], out[n + 3:n + 6] = angles, rates
        out[6:9] = out[n + 6:n + 9] = 0.0  # (not the step integrals after [q; u])
        self._imposed = (angles, out)
        return out

    def kernel_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """The effort law's inputs (see :meth:`base_motion`)."""
        return self.base_motion(inputs)[2]

    # -- the model interface of integration.cosimulation -------------------------------------------
    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``(ẋ, kinematics)``: one kernel evaluation (:mod:`.moving_base_kernel`) when the kernel is loaded, else
        :meth:`reference_derivative`."""
        evaluated = self._kernel.derivative(x, inputs)
        return evaluated if evaluated is not None else self.reference_derivative(t, x, inputs)

    def reference_derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``ẋ = [u; u̇]`` of (43) with the base's accelerations prescribed, and with the step-mean wrench its
        integrand ``[W; 1]`` (:meth:`point_wrench`; the step before's integrals: 0): the kernel's specification."""
        n = 2 * N_COORDINATES
        kin = self._dynamics(x[:n], self.kernel_inputs(inputs))
        if not self.mean_wrench_outputs:
            return kin.xdot, kin
        return np.concatenate((kin.xdot, step_rates(self.point_wrench(kin, kin.udot)))), kin

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook), None without the kernel."""
        return self._kernel.compiled(inputs)

    def point_wrench(self, kin: Kinematics, udot: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        """``[f; n]``: the wrench on the base that the ``interface_force_*``, ``interface_moment_*`` outputs give at the
        evaluation ``kin`` with accelerations ``udot`` and further applied wrenches ``extra`` (:meth:`outputs_with`),
        without the reactions: the integrand of the step-mean wrench."""
        effort, stop, _ = self.applied_efforts(kin)
        actuators = effort + stop
        applied = self.applied_wrenches(kin, actuators)
        if extra is not None:
            applied = applied + extra
        return np.concatenate(self.interface_wrench(kin, udot, actuators, applied))

    def applied_efforts(self, kin: Kinematics) -> tuple:
        """``(effort, stop, active)`` of the three actuators (as :meth:`KnuckleBoomModel.applied_efforts`)."""
        stop, active = self.crane.end_stop_forces(kin.q[:3], kin.u[:3])
        return kin.efforts[:3] - stop, stop, active

    def applied_wrenches(self, kin: Kinematics, actuators: np.ndarray) -> np.ndarray:
        """Weights and actuator wrenches (67)-(68) ``[f; n]`` at each COG; ``actuators = [T1, F2, F3]`` in total --
        ``gravity_wrenches + actuator_wrenches`` of the crane in one array (the same sums, bit for bit)."""
        w = np.zeros((self.system.nb, 6))
        w[:, :3] = self._weights * kin.rotation[:, 2, :]  # R^k_0 [0, 0, −m g]
        t1, f2, f3 = actuators.tolist()
        flat = w.reshape(-1)  # a view: scalar updates cost less than a fancy-indexed one at this size
        for i, value in zip(self._actuator_entries, (t1, -f2, -f3, f2, f3)):  # king about z; −F barrel, +F piston
            flat[i] += value
        return w

    def interface_wrench(self, kin: Kinematics, udot: np.ndarray, actuators: np.ndarray,
                         applied: np.ndarray | None = None) -> tuple:
        """``(force, moment)`` the crane exerts on the base at the crane base point, base frame: minus the
        constraint wrench ``S ρ`` of the king joint (50), (67) and minus the slewing torque about the slewing
        axis -- in one kernel call (``mbs_interface_wrench``) when the kinematics are the kernel's, else
        :meth:`interface_wrench_reference`. ``applied``: :meth:`applied_wrenches`, when the caller has them."""
        if applied is None:
            applied = self.applied_wrenches(kin, actuators)
        native = self.interface.native
        if native is None or kin.record is None or "P" not in kin._layout:  # a record without P: numpy's way
            return self.interface_wrench_reference(kin, udot, actuators, applied)
        w = native.interface_wrench(kin.record, udot, applied, self._base, actuators[0])
        return w[:3], w[3:]

    def interface_wrench_reference(self, kin: Kinematics, udot: np.ndarray, actuators: np.ndarray,
                                   applied: np.ndarray) -> tuple:
        """:meth:`interface_wrench` in numpy, step by step: ``ρ`` of (50), the wrench ``S ρ`` on the king, the
        slewing torque, turned into the base frame and negated (the kernel's specification)."""
        rho = self.interface.magnitudes(kin, udot, applied)
        w = self.interface.wrench(rho)  # [n; f] on the king, king frame
        w[2] += actuators[0]
        r = self.base_from_king(kin)
        return -(r @ w[3:]), -(r @ w[:3])

    def base_from_king(self, kin: Kinematics) -> np.ndarray:
        """``R^1_king``: king-frame vectors in the base frame."""
        return kin.rotation[self._base].T @ kin.rotation[self._king]

    def tip_position(self, kin: Kinematics) -> np.ndarray:
        """Crane tip relative to the crane base point, base frame."""
        b = self._base
        return kin.rotation[b].T @ (self.crane.tip_position(kin) - kin.origin[b])

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        n = 2 * N_COORDINATES
        integral = x[n:n + STEP_INTEGRALS] if self.mean_wrench_outputs else None
        return self.outputs_with(aux, x, inputs, aux.udot, integral=integral)

    def outputs_with(self, kin: Kinematics, x: np.ndarray, inputs: np.ndarray, udot: np.ndarray,
                     extra: np.ndarray | None = None, integral: np.ndarray | None = None) -> dict:
        """The outputs at the evaluation ``kin`` with accelerations ``udot``; ``extra``: further applied wrenches
        (``[f; n]`` at each COG, body coordinates; a hoisting wire on Body 3), which enter every reaction and
        the interface wrench; ``integral``: the step integrals ``[∫W dt, Δt]`` of the last step and the step before
        (:func:`interface.step_wrenches`; None: the step-mean and predicted wrench 0)."""
        effort, stop, active = self.applied_efforts(kin)
        _, force, moment, joints, tip = self.loads(kin, udot, effort + stop, extra)
        values = np.concatenate((x[:3], x[9:12], kin.theta[self._angle_bodies], tip, force, moment, joints.ravel(),
                                 effort, stop[1:])).tolist()
        out = dict(zip(_OUTPUT_NAMES, values))
        out["end_stop_active"] = int(active)
        out.update(self._fixed_outputs)
        mean = np.zeros(12) if integral is None else step_wrenches(integral, np.concatenate((force, moment)))
        out.update(zip(STEP_WRENCH_NAMES, mean.tolist()))
        if not self.inertia_outputs:
            return out
        A = self.interface_inertia(kin)
        m = inputs[_MOTION_AT:]
        w0 = np.concatenate((force, moment)) + A @ np.concatenate((m[9:12], m[6:9]))  # W = W0 - A a
        out.update(inertia_values(A, w0[:3], w0[3:]))
        return out

    def output_writer(self, names: tuple, constants: dict | None = None):
        """``write(x, inputs, aux, out)``: the outputs ``names`` at the state ``x`` with the evaluation ``aux`` there
        into ``out``; ``constants``: further outputs of fixed value (name: number) among ``names``. By
        ``mbs_moving_outputs`` (:mod:`.moving_base_kernel`) when ``aux`` is the kernel's, else :meth:`outputs`."""
        fixed = {**self._fixed_outputs, **(constants or {})}
        return self._kernel.output_writer(names, fixed, lambda x, inputs, aux: self.outputs(0.0, x, inputs, aux))

    def kernel_step_parts(self, names: tuple, constants: dict | None = None):
        """What the kernel's communication step (``mbs_cosim_moving_step``, fmi/kernel_steps.py) needs: the outputs,
        the index map of ``names``, the bounds of :meth:`check_state` (the cylinders' ranges, the base pitch; every
        entry finite, which the kernel checks) and the maker of the record; None without the kernel."""
        bounds = [(k - 1, lo, hi) for k, (lo, hi) in zip((2, 3), self._cylinder_ranges)] + [(4, -PITCH_LIMIT,
                                                                                               PITCH_LIMIT)]
        return self._kernel.kernel_step_parts(names, {**self._fixed_outputs, **(constants or {})}, bounds)

    def loads(self, kin: Kinematics, udot: np.ndarray, actuators: np.ndarray, extra: np.ndarray | None = None) -> tuple:
        """``(applied, force, moment, joints, tip)`` for the outputs: :meth:`loads_reference` in one kernel call
        (``mbs_base_loads``) when the kinematics are the kernel's."""
        if self._native_loads is None or kin.record is None or "P" not in kin._layout:
            return self.loads_reference(kin, udot, actuators, extra)
        t1, f2, f3 = actuators.tolist()
        applied, wrench, joints, tip = self._native_loads(kin.record, udot, (t1, -f2, -f3, f2, f3), extra)
        return applied, wrench[:3], wrench[3:], joints, tip

    def loads_reference(self, kin: Kinematics, udot: np.ndarray, actuators: np.ndarray,
                        extra: np.ndarray | None = None) -> tuple:
        """What the outputs need from one evaluation with accelerations ``udot``: the applied wrenches
        (:meth:`applied_wrenches` plus ``extra``), the load on the base (:meth:`interface_wrench`), the joint
        reactions (69)-(74) as :meth:`KnuckleBoomCrane.reactions` gives them -- Joint 1 turned into the base frame,
        Joints 2 and 3 in Frames 2 and 3 -- (3, 6), and the crane tip from the base point, base frame."""
        applied = self.applied_wrenches(kin, actuators)
        if extra is not None:
            applied = applied + extra
        force, moment = self.interface_wrench(kin, udot, actuators, applied)
        joints = self.crane.reaction_solver.solve(kin, applied, udot)[2][self._reactions_at]
        rotation = kin.rotation
        base = rotation[self._base]
        joints[0] = (joints[0].reshape(2, 3) @ (rotation[self._king].T @ base)).ravel()  # row vectors: R_b^T R_k v
        origin, b3 = kin.origin, self._tip_body
        tip = (origin[b3] + rotation[b3][:, 2] * self._tip_length - origin[self._base]) @ base  # crane.tip_position
        return applied, force, moment, joints, tip

    def interface_inertia(self, kin: Kinematics) -> np.ndarray:
        """``A`` of ``W = W₀ − A a`` at the state of ``kin`` (:mod:`core.moving_base.interface_inertia`): in the kernel
        (``mbs_interface_inertia``) when it is loaded, else :meth:`interface_inertia_reference`."""
        if self._native_inertia is None or kin.record is None:
            return self.interface_inertia_reference(kin)
        return self._native_inertia(kin.M, euler_rate_matrix_inverse(kin.q[3], kin.q[4]), kin.rotation[self._base])

    def interface_inertia_reference(self, kin: Kinematics) -> np.ndarray:
        """:meth:`interface_inertia` in numpy (:func:`core.moving_base.interface_inertia.interface_inertia`); ``M`` formed
        by (44) when the kinematics are numpy's (they carry none)."""
        M = kin.M if kin.M is not None else self.system.mass_matrix(kin)
        return interface_inertia(M, _PRESCRIBED, _FREE, euler_rate_matrix_inverse(kin.q[3], kin.q[4]),
                                 kin.rotation[self._base])

    def check_state(self, x: np.ndarray) -> None:
        v = x.tolist()
        if not math.isfinite(math.fsum(v)) and not all(map(math.isfinite, v)):  # fsum may overflow: then one by one
            raise ValueError(f"state became non-finite: {x}")
        for k, (lo, hi) in zip((2, 3), self._cylinder_ranges):
            if not lo < v[k - 1] < hi:
                self.crane.cylinders[k].check(v[k - 1])  # raises with the message
        if abs(v[4]) > PITCH_LIMIT:  # E of (53) is singular at pitch ±π/2
            raise ValueError(f"base pitch = {x[4]:.4g} rad is beyond ±{PITCH_LIMIT} rad, near the Euler-angle "
                             "singularity of eq. (53)")


def base_rotation(angles: np.ndarray) -> np.ndarray:
    """``R^0_1 = R_z(yaw) R_y(pitch) R_x(roll)``, eq. (53)."""
    return rot_z(angles[2]) @ rot_y(angles[1]) @ rot_x(angles[0])
