"""The FlexibleCrane as a co-simulation model: state ``x = [q, q̇, z]``, derivative, outputs and switching times for
:class:`simulation.CoSimulation` (and the kernel's stepping when it is loaded)."""
from __future__ import annotations

import numpy as np

from ...core.native import NativeKinematics
from ...core.native.outputs import OutputWriters
from ...core.native.task_outputs import NativeTaskOutputs
from ...core.programmed_motion import quintic_rise
from .crane import INPUTS, FlexibleCrane
from .parameters import FlexibleCraneInitialState
from .statics import elastic_equilibrium, link_deflection, static_equilibrium

__all__ = ["FlexibleCraneModel"]

# The outputs in the order the kernel computes them (task_outputs.h): state entries, tip, z_E,a, Φ, constraint force,
# λ, friction torques, normal forces, support resultant, link (c,2) deflection, drive (x_at: _kernel_outputs).
_STATE_OUTPUTS = ("q_c1", "q_c2", "q_c3", "u_c1", "u_c2", "u_c3", "x_b", "y_b", "z_b", "psi_b", "theta_b", "phi_b",
                  "bristle_z_1", "bristle_z_2", "bristle_z_3")
_KERNEL_VALUE_ORDER = (_STATE_OUTPUTS + ("tip_x", "tip_y", "tip_z", "z_E_programmed", "phi1", "phi2")
                       + tuple(f"constraint_force_{a}" for a in "xyz") + ("lambda1", "lambda2")
                       + tuple(f"friction_torque_{i}" for i in (1, 2, 3)) + tuple(f"normal_force_{i}" for i in (1, 2, 3))
                       + tuple(f"support_force_{a}" for a in "xyz") + tuple(f"support_moment_{a}" for a in "xyz")
                       + ("link2_deflection_y", "link2_deflection_z", "link2_torsion", "drive_torque"))


class FlexibleCraneModel:
    """The crane as a co-simulation model: input ``column_torque``, state ``x = [q, q̇, z]``, outputs."""

    input_names = [name for name, _, _ in INPUTS]

    def __init__(self, crane: FlexibleCrane | None = None):
        self.crane = crane if crane is not None else FlexibleCrane()
        self.n = self.crane.n_state  # the state's coordinates: q, or q_r with a reduced link
        self.state_size = 2 * self.n + 3
        self._kernel = None  # (the kernel's task, NativeTaskOutputs) once built
        # The outputs named by the caller into its table (CoSimulation.write_outputs), one kernel call; timed: the
        # programmed height z_E,a(t) (22) is the time's, not the evaluation's
        self.write_outputs = OutputWriters(self.output_writer, timed=True)

    def output_writer(self, names: tuple):
        """``write(t, x, inputs, aux, out)``: the outputs ``names`` at time ``t`` and state ``x`` with the evaluation
        ``aux`` there into ``out`` -- by ``mbs_task_outputs`` when ``aux`` is the kernel's, else from :meth:`outputs`
        (the specification)."""
        def from_dict(t, x, inputs, aux, out) -> None:
            values = self.outputs(t, x, inputs, aux)
            out[:] = [values[name] for name in names]

        # NativeTaskOutputs -> its index map of names, looked up at each call: the crane's task may be made anew
        # (set_programmed_start); an unknown name fails here, at once
        kernel = self._kernel_outputs()
        made = {} if kernel is None else {kernel: kernel.plan(names)}

        def write(t, x, inputs, aux, out) -> None:
            kin = aux["kin"]
            kernel = self._kernel_outputs()
            if kernel is None or not isinstance(kin, NativeKinematics):
                return from_dict(t, x, inputs, aux, out)
            plan = made.get(kernel)
            if plan is None:
                made.clear()
                plan = made[kernel] = kernel.plan(names)
            kernel.write(plan, t, x, kin.record, out)

        return write

    def _kernel_outputs(self) -> NativeTaskOutputs | None:
        """The kernel's record of the outputs (built on first use, again when the crane's task is new), None
        without the kernel."""
        native = self.crane.native_task()
        if native is None:
            return None
        system, _, task, _ = native
        if self._kernel is None or self._kernel[0] is not task:
            crane, n = self.crane, self.n
            jc = [int(i) for i in crane.state_joint_coords]
            x_at = jc + [n + i for i in jc] + list(range(6)) + [2 * n + i for i in range(3)]
            outputs = NativeTaskOutputs(system, task, _KERNEL_VALUE_ORDER, x_at, crane.i_tip, crane.i_root,
                                        crane.i_last, crane.i_link3, int(crane.joint_coords[0]))
            self._kernel = (task, outputs)
        return self._kernel[1]

    def initial_state(self, init: FlexibleCraneInitialState | None = None, static: bool = False,
                      equilibrium: bool = False) -> np.ndarray:
        """``x0`` of (23): base and joints from ``init``, link (c,2) undeformed, bristles unloaded. With ``static``
        the static equilibrium with the joints held (statics.static_equilibrium); with ``equilibrium`` the base
        and the link's elastic coordinates at rest in equilibrium with the loads of t = 0, their accelerations
        zero under the model's own equations (statics.elastic_equilibrium; joints, their rates and the bristles
        as (23): the programmed constraints, not friction, hold the arm at rest)."""
        q = self.crane.initial_coordinates(init)
        if static:
            q = static_equilibrium(self.crane, q)
        i = init if init is not None else FlexibleCraneInitialState()
        u = np.zeros(self.n)
        u[self.crane.state_joint_coords] = [i.u_c1_0, i.u_c2_0, i.u_c3_0]
        z = np.zeros(3)
        if equilibrium:
            q = elastic_equilibrium(self.crane, q, u, z)
        return np.concatenate((q, u, z))

    @property
    def switch_times(self) -> tuple:
        """Times at which the model's right-hand side jumps (the end of the torque pulse (21)):
        :class:`simulation.CoSimulation` integrates up to them and restarts after them."""
        m = self.crane.motion
        return (m.paper_torque_time,) if self.crane.paper_torque_enabled else ()

    def compiled(self, t: float, inputs: np.ndarray):
        """The whole right-hand side in the kernel (:mod:`integration.cosimulation`'s hook) from ``t`` to the next switching
        time, over which the column torque (21) plus input is constant; None without the kernel."""
        crane = self.crane
        native = crane.native_task()
        if native is None:
            return None
        crane._drive[0] = crane.drive_torque(t) + float(inputs[0])
        return native[3], crane._drive

    def jacobian(self, t: float, x: np.ndarray, inputs: np.ndarray, central: bool = True):
        """``∂ẋ/∂x`` at ``(t, x)`` by the kernel (``mbs_task_jacobian``: kinematic and bristle rows exact, the
        accelerations by central, or forward, differences), or None without the kernel (then
        ``integration.stiffness.model_jacobian`` differentiates :meth:`derivative`)."""
        compiled = self.compiled(t, inputs)
        return None if compiled is None else compiled[0].jacobian(t, x, compiled[1], central=central)

    def evaluate(self, t: float, x: np.ndarray, inputs: np.ndarray) -> dict:
        n = self.n
        return self.crane.evaluate(t, x[:n], x[n:2 * n], x[2 * n:], float(inputs[0]))

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        ev = self.evaluate(t, x, inputs)
        n = self.n
        return np.concatenate((x[n:2 * n], ev["udot"], ev["zdot"])), ev

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        crane, n = self.crane, self.n
        kin = aux["kin"]
        q, u = x[:n], x[n:2 * n]
        jc = crane.state_joint_coords
        out = {"q_c1": q[jc[0]], "q_c2": q[jc[1]], "q_c3": q[jc[2]], "u_c1": u[jc[0]], "u_c2": u[jc[1]],
               "u_c3": u[jc[2]]}
        out.update(zip(("x_b", "y_b", "z_b", "psi_b", "theta_b", "phi_b"), q[:6]))
        tip = crane.tip_position(kin)
        out.update(tip_x=tip[0], tip_y=tip[1], tip_z=tip[2])
        c = crane.constraint
        out["z_E_programmed"] = quintic_rise(t, c.z_start, c.z_inc, c.t_c)[0] if c is not None else tip[2]
        out["phi1"], out["phi2"] = aux["phi"]
        for i, a in enumerate("xyz"):
            out[f"constraint_force_{a}"] = aux["constraint_force"][i]
        lam = aux["lam"] if len(aux["lam"]) else np.zeros(2)
        out["lambda1"], out["lambda2"] = lam
        for i in range(3):
            out[f"friction_torque_{i + 1}"] = aux["friction_torque"][i]
            out[f"bristle_z_{i + 1}"] = x[2 * n + i]
            out[f"normal_force_{i + 1}"] = aux["normal_force"][i]
        force, moment = crane.supports.resultant(kin)
        for i, a in enumerate("xyz"):
            out[f"support_force_{a}"] = force[i]
            out[f"support_moment_{a}"] = moment[i]
        out.update(link_deflection(crane, kin))
        out["drive_torque"] = aux["drive"]
        return {k: float(v) for k, v in out.items()}

    def check_state(self, x: np.ndarray) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f"state became non-finite: {x}")
