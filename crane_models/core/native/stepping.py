"""The kernel's right-hand sides with a task (``mbs_task_derivative``) and its explicit steppers
(``mbs_integrate``): the records they take and the stepping call."""
from __future__ import annotations

import ctypes
from typing import Optional

import numpy as np

from ...integration.integrators import StepBudgetExceeded, StepCancelled, StepFailure
from ...integration.rosenbrock import RosenbrockW
from .buffers import BAD_BUFFERS, buffer_lengths
from .system import NativeEffortLaw, NativeKinematics, NativeSystem, _address, library

__all__ = ["NativeTask", "NativeTableau", "NativeIntegration", "NativeModelIntegration", "FRICTION_KINDS",
           "MAX_FRICTION_JOINTS", "buffer_lengths", "BAD_BUFFERS"]


class _Task(ctypes.Structure):
    _fields_ = ([("spring_body", ctypes.c_int), ("n_springs", ctypes.c_int)]
                + [(name, ctypes.c_void_p) for name in ("spring_points", "spring_k", "spring_c")]
                + [("constraint_kind", ctypes.c_int), ("point_body", ctypes.c_int), ("cpar", ctypes.c_double * 7)]
                + [("friction_kind", ctypes.c_int), ("n_joints", ctypes.c_int), ("iterations", ctypes.c_int)]
                + [(name, ctypes.c_void_p) for name in ("joint_body", "joint_coord", "subtree_mass", "pin_diameter",
                                                       "mu_s", "mu_k", "sigma0", "sigma1", "sigma2", "gamma", "v_s")]
                + [("n_reduced", ctypes.c_int)]
                + [(name, ctypes.c_void_p) for name in ("reduction_rows", "reduction_cols", "state_joint_coord",
                                                       "reduction_values", "reduced_damping", "reduced_work",
                                                       "column_starts", "column_rows", "column_values")])


_LONG_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_long) - 1) - 1  # "no budget" for mbs_stepper.max_steps

FRICTION_KINDS = {"none": 0, "dahl": 1, "lugre": 2}
MAX_FRICTION_JOINTS = 8


class NativeTask:
    """Constant record of what ``mbs_task_derivative`` adds to a tree: point springs on one body
    (``springs.PointSprings``), the ellipse-and-height programmed constraint (17), (22) with Baumgarte's
    ``α``, ``β`` on one point-mass body, and Dahl/LuGre friction (13)-(15) in chosen joints."""

    def __init__(self, native: NativeSystem, springs, constraint, point_body: int, alpha: float, beta: float,
                 friction: str, joint_bodies, joint_coords, subtree_mass, pin_diameter, bristle, iterations: int,
                 reduction=None):
        nj = len(joint_bodies)
        if not 1 <= nj <= MAX_FRICTION_JOINTS:
            raise ValueError(f"the kernel takes 1 to {MAX_FRICTION_JOINTS} friction joints, got {nj}")
        # reduction: None, or an object with P (n, n_r), damping D (n_r, n) or None and state_joint_coords: the tree's
        # coordinates q = P q_r, the state [q_r; u_r; z] (reduced.c); the result then ends with u_r'
        self.reduction = reduction
        self.n_state = native.n if reduction is None else reduction.P.shape[1]
        nr = 0 if reduction is None else self.n_state
        self.n_joints, self.result_size = nj, 3 * nj + 10 + nr
        arrays = [springs.points, springs.stiffness, springs.damping, joint_bodies, joint_coords, subtree_mass,
                  pin_diameter, bristle.mu_s, bristle.mu_k, bristle.sigma0, bristle.sigma1, bristle.sigma2,
                  bristle.gamma, bristle.v_s]
        ints = (3, 4)
        self._arrays = [np.ascontiguousarray(a, dtype=np.intc if i in ints else float) for i, a in enumerate(arrays)]
        p = [a.ctypes.data for a in self._arrays]
        cpar = (ctypes.c_double * 7)()
        kind = 0
        if constraint is not None:
            kind = 1
            cpar[:] = [constraint.a, constraint.b, constraint.z_start, constraint.z_inc, constraint.t_c, alpha, beta]
        reduced = [None] * 9
        if reduction is not None:
            P = np.asarray(reduction.P, dtype=float)
            rows, cols = np.nonzero(P)  # row-major order: the rows' nonzeros in turn
            self._reduced = [np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=P.shape[0])))).astype(np.intc),
                             cols.astype(np.intc), np.ascontiguousarray(reduction.state_joint_coords, dtype=np.intc),
                             np.ascontiguousarray(P[rows, cols]),
                             None if reduction.D is None else np.ascontiguousarray(reduction.D, dtype=float)]
            nc = 3 + nj
            self._reduced.append(np.zeros(native.n ** 2 + native.n * nr + nr * nr + (native.n + 2 * nr) * nc
                                          + 48 * native.nb))  # mbs_reduced_work_size
            crows, ccols = np.nonzero(P.T)  # by columns of P: (column, row) pairs, columns in turn
            self._reduced += [np.concatenate(([0], np.cumsum(np.bincount(crows, minlength=P.shape[1])))).astype(np.intc),
                              ccols.astype(np.intc), np.ascontiguousarray(P[ccols, crows])]
            reduced = [None if a is None else a.ctypes.data for a in self._reduced]
        self._struct = _Task(int(springs.body), len(springs.points), p[0], p[1], p[2], kind, int(point_body), cpar,
                             FRICTION_KINDS[friction], nj, int(iterations), *p[3:], nr, *reduced)
        self.pointer = ctypes.addressof(self._struct)
        n, nb = native.n, native.nb
        # mbs_evaluate's scratch first, then (reused) the solve's and the joint-force maps'
        self._work = np.empty(native.work_size + nb * (50 + 9 * (3 + nj)) + n * (4 + nj))  # see mbs_task_derivative
        self.work_pointer = self._work.ctypes.data


class _Tableau(ctypes.Structure):
    _fields_ = [("stages", ctypes.c_int), ("order", ctypes.c_int)] + [
        (name, ctypes.c_void_p) for name in ("a", "c", "e", "e_low")]


class _Stepper(ctypes.Structure):
    _fields_ = [(name, ctypes.c_double) for name in ("rtol", "atol", "max_step", "min_step", "h", "t")] + [
        (name, ctypes.c_long) for name in ("evaluations", "accepted", "rejected", "max_steps")] + [
        ("cancel", ctypes.c_void_p), ("poll", ctypes.c_void_p), ("poll_ctx", ctypes.c_void_p)] + [
        ("controlled", ctypes.c_int)]


class NativeTableau:
    """An explicit pair's tableau ``(stages, order, a, c, e[, e_low])`` (from :mod:`integrators`) for
    ``mbs_integrate``; without ``e_low`` (DOP853's second estimator) the kernel gets NULL."""

    def __init__(self, stages: int, order: int, a: np.ndarray, c: np.ndarray, e: np.ndarray,
                 e_low: Optional[np.ndarray] = None) -> None:
        arrays = (a, c, e) if e_low is None else (a, c, e, e_low)
        self._arrays = [np.ascontiguousarray(x, dtype=float) for x in arrays]
        self._struct = _Tableau(stages, order, *(x.ctypes.data for x in self._arrays))
        self.stages, self.pointer = stages, ctypes.addressof(self._struct)


class NativeIntegration:
    """A model's whole right-hand side in the kernel -- ``mbs_derivative`` for ``y = [q; u]``, or with a
    :class:`NativeTask` ``mbs_task_derivative`` for ``y = [q; u; z]`` -- stepped by ``mbs_integrate`` with an
    explicit pair of :mod:`integrators`, or by ``mbs_rosenbrock_integrate`` with the Rosenbrock-W stepper
    (same tableau, same step-size control, the Python stepper being the specification): no Python between
    the stages of a communication step. The stepper's ``cancel_flag`` (a ``ctypes.c_int``) ends a call between
    two internal steps when another thread sets it.

    ``make_aux(record, tail)`` turns the record of the last evaluation into the model's ``aux`` (default:
    its kinematics, as :meth:`NativeSystem.derivative` returns them)."""

    def __init__(self, native: NativeSystem, law: NativeEffortLaw, task: Optional[NativeTask] = None,
                 make_aux=None) -> None:
        if task is not None and law.gravity_compensation:
            raise ValueError("mbs_task_derivative does not compute the weight term a gravity-compensating law needs")
        if task is not None and law.load is not None:
            raise ValueError("mbs_task_derivative does not take a law's load")
        self._native, self._law, self._task = native, law, task
        self._make_aux = make_aux if make_aux is not None else (lambda record, tail: self.kinematics(record))
        n = task.n_state if task is not None else native.n
        nj = task.n_joints if task is not None else 0
        self.size = 2 * n + nj
        self._tail = nj + task.result_size if task is not None else 0
        self._stride = native.size + self._tail
        self._recs = np.zeros(3 * self._stride)  # zeros: see NativeSystem._new_record
        self._model_work = task.work_pointer if task is not None else native._work_ptr
        self._fn = library().mbs_integrate
        self._final = ctypes.c_int(-1)
        self._stepper = _Stepper()
        self._stepper_ptr = ctypes.addressof(self._stepper)
        self._work = np.empty(0)  # the stages and the stage input
        self._tableaus = {}
        self._implicit = None  # implicit.NativeRosenbrock, made on first use
        # The state and derivative a stepping call advances in place: the caller's are copied in and out, so that
        # the kernel's arguments (addresses, the buffers' lengths) are made once (_arguments), not every step.
        self._settings, self._flag = None, None  # what the stepper record holds
        self._state = self._slope = np.zeros(0)  # of self.size values, made on first use (a subclass sets the size)
        self._arguments = {}  # tableau -> (the arguments before the inputs, those after t and t_end, lengths)
        self._task_pointer = task.pointer if task is not None else None
        # The inputs of a stepping call, copied here (one double more: an address even for a law without inputs).
        self._inputs_store = np.zeros(law.n_inputs + 1)
        self._inputs = self._inputs_store[:law.n_inputs]

    # Only the tree right-hand sides have the kernel's Jacobian (a payload's wire is not in it).
    implicit_steps = True

    def can_advance(self, stepper) -> bool:
        """Whether :meth:`advance` runs ``stepper`` in the kernel: an explicit pair (a ``tableau()``), or the
        Rosenbrock-W stepper without a Jacobian of its own and with every state under error control."""
        if hasattr(stepper, "tableau"):
            return True
        return (self.implicit_steps and isinstance(stepper, RosenbrockW) and stepper.jacobian is None
                and stepper.controlled in (None, self.size))

    def _rosenbrock(self):
        if self._implicit is None:
            from .implicit import NativeRosenbrock

            self._implicit = NativeRosenbrock(self)
        return self._implicit

    def advance(self, stepper, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux, inputs: np.ndarray) -> tuple:
        """``stepper.advance`` (see :meth:`can_advance`) in the kernel: ``(y, k_end, aux_end)`` at ``t_end``;
        raises the stepper's StepFailure as it does (StepCancelled when its ``cancel_flag`` was set)."""
        st = self._configure(stepper)
        budget = getattr(stepper, "step_budget", None)
        st.max_steps = self.max_steps(budget)
        st.evaluations = st.accepted = st.rejected = 0  # the budget counts this call's steps (mbs_integrate_rhs)
        if np.size(y) != self.size or np.size(k1) != self.size:
            raise ValueError(f"the kernel refused the buffers: y has {np.size(y)} and k {np.size(k1)} values, the "
                             f"model {self.size}")
        self._ensure_buffers()
        self._state[:] = y
        self._slope[:] = k1
        y, k = self._state, self._slope
        if hasattr(stepper, "tableau"):
            code = self._run(self._explicit_tableau(stepper), inputs, t, t_end, y, k)
        else:
            code = self._rosenbrock().advance(stepper, st, t, y, t_end, k, inputs)
        stats = stepper.stats
        accepted, rejected = st.accepted, st.rejected
        stats["evaluations"] += st.evaluations
        stats["accepted"] += accepted
        stats["rejected"] += rejected
        if budget is not None:
            stepper.step_budget = budget - (accepted + rejected)
        if code == 2:
            raise StepBudgetExceeded(f"the budget of internal steps ran out at t = {st.t:.9g} s")
        if code == 4:
            raise StepCancelled(f"the step was cancelled at t = {st.t:.9g} s")
        if code == 5:
            raise StepFailure(f"the Jacobian could not be evaluated at t = {st.t:.9g} s")
        if code == BAD_BUFFERS:
            raise ValueError(f"the kernel refused the buffers: y has {y.size} and k {k.size} values, the model "
                             f"{self.size}")
        if code:
            raise StepFailure(f"step size fell below {stepper.min_step:g} s at t = {st.t:.9g} s")
        stepper.h = st.h
        i = self._final.value
        if i >= 0:  # the record of the last accepted evaluation, copied: the buffers are reused
            rec = self._recs[i * self._stride:(i + 1) * self._stride].copy()
            aux = self._make_aux(rec[:self._native.size], rec[self._native.size:])
        return y.copy(), k.copy(), aux

    @staticmethod
    def max_steps(budget: Optional[int]) -> int:
        """``mbs_stepper.max_steps`` for a stepper's ``step_budget`` (None: no bound)."""
        return _LONG_MAX if budget is None else max(int(budget), 0)

    def _configure(self, stepper) -> _Stepper:
        """The stepper record with ``stepper``'s settings, step size, cancel flag and poll (what every stepping call
        takes from it)."""
        st = self._stepper
        settings = (stepper.rtol, stepper.atol, stepper.max_step, stepper.min_step)
        if settings != self._settings:  # the stepper's fixed settings: written when they change only
            st.rtol, st.atol, st.max_step, st.min_step = self._settings = settings
        st.h = stepper.h
        flag = getattr(stepper, "cancel_flag", None)
        if flag is not self._flag:  # kept: the record holds its address
            st.cancel, self._flag = (ctypes.addressof(flag) if flag is not None else None), flag
        st.poll, st.poll_ctx = getattr(stepper, "cancel_poll", None) or (None, None)
        st.controlled = getattr(stepper, "controlled", None) or 0  # the explicit pairs' error part (0: every state)
        return st

    def _ensure_buffers(self) -> None:
        if self._state.size != self.size:
            self._state, self._slope = np.zeros(self.size), np.zeros(self.size)
            self._arguments.clear()

    def explicit_stepping(self, stepper) -> dict:
        """What ``mbs_integrate`` takes for the explicit ``stepper``, for a caller that calls it from C
        (``mbs_cosim_step``): the addresses of the records and buffers of this integration, which stay while it
        lives, and the stepper record configured from ``stepper`` (no poll: such a caller cannot have one)."""
        if getattr(stepper, "cancel_poll", None) is not None or self._task_pointer is not None:
            raise ValueError("mbs_cosim_step steps a tree without a task, and calls no poll")
        self._configure(stepper)
        self._ensure_buffers()
        tableau = self._explicit_tableau(stepper)
        args = self._stepping_arguments(tableau)
        (model, law, _), (y, k, recs, rec_size, stride, final, model_work, work, lengths), _ = args
        return dict(m=model, law=law, tab=tableau.pointer, st=self._stepper_ptr, y=y, k=k, recs=recs, size=self.size,
                    rec_size=rec_size, rec_stride=stride, final=final, model_work=model_work, work=work, len=lengths,
                    keep=(tableau, args))

    def _explicit_tableau(self, stepper) -> NativeTableau:
        tableau = self._tableaus.get(type(stepper))
        if tableau is None:
            tableau = self._tableaus[type(stepper)] = NativeTableau(*stepper.tableau())
        if self._work.size < (tableau.stages + 1) * self.size:
            self._work = np.empty((tableau.stages + 1) * self.size)
            self._arguments.clear()  # they hold the old buffer's address
        return tableau

    def jacobian(self, t: float, y: np.ndarray, inputs: np.ndarray, f0: Optional[np.ndarray] = None,
                 central: bool = False) -> np.ndarray:
        """``∂ẏ/∂y`` (size × size) at ``(t, y)`` by the kernel (``mbs_task_jacobian``: the kinematic and bristle
        rows exact, the acceleration rows by forward differences as the stepper's, ~1e-5 per block, or
        ``central`` ones, ~1e-8); ``f0``: ``ẏ`` there, if known."""
        if f0 is None:
            f0 = self.derivative_of(t, y, inputs)
        return self._rosenbrock().jacobian(t, y, f0, inputs, central)

    def derivative_of(self, t: float, y: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """``ẏ`` at ``(t, y)``: one evaluation in the kernel (ValueError when it fails)."""
        native, n = self._native, self._native.n
        if self._task is None:
            kin = native.derivative(y, self._law, inputs)
            return kin.xdot.copy()
        task = self._task
        if task.reduction is not None:  # y = [q_r; u_r; z]
            nr, P = task.n_state, task.reduction.P
            kin, tail = native.task_derivative(P @ y[:nr], P @ y[nr:2 * nr], y[2 * nr:], self._law, inputs, task, t)
            return np.concatenate((y[nr:2 * nr], tail[task.result_size - nr:], tail[:task.n_joints]))
        kin, tail = native.task_derivative(y[:n], y[n:2 * n], y[2 * n:], self._law, inputs, self._task, t)
        return np.concatenate((kin.xdot, tail[:self._task.n_joints]))

    def _run(self, tableau: NativeTableau, inputs: np.ndarray, t: float, t_end: float, y: np.ndarray,
             k: np.ndarray) -> int:
        """The kernel's stepping call on ``y`` and ``k`` (this integration's own buffers) in place; its return
        code."""
        head, tail, _ = self._stepping_arguments(tableau)
        if inputs.size != self._inputs.size:
            raise ValueError(f"the law takes {self._inputs.size} inputs, got {inputs.size}")
        self._inputs[:] = inputs
        return self._fn(*head, self._task_pointer, tableau.pointer, self._stepper_ptr, t, t_end, *tail)

    def _stepping_arguments(self, tableau: NativeTableau) -> tuple:
        """``mbs_integrate``'s arguments that stay: before the task (model, law, inputs), and after ``t`` and
        ``t_end`` (the buffers, which do not move, and the record of their lengths, kept alive with them); made once
        per tableau and buffers (``_arguments``, cleared when a buffer is made anew)."""
        args = self._arguments.get(tableau)
        if args is None:
            args = self._arguments[tableau] = self._new_stepping_arguments(tableau)
        return args

    def _new_stepping_arguments(self, tableau: NativeTableau) -> tuple:
        lengths = buffer_lengths(self._state, self._slope, self._recs, self._work)
        return ((self._native._model_ptr, self._law.pointer, _address(self._inputs_store)),
                (_address(self._state), _address(self._slope), _address(self._recs), self._native.size, self._stride,
                 ctypes.addressof(self._final), self._model_work, _address(self._work), ctypes.addressof(lengths)),
                lengths)

    def aux_of(self, record: np.ndarray):
        """The model's ``aux`` of the record of an evaluation (with its tail), as :meth:`advance` returns it."""
        return self._make_aux(record[:self._native.size], record[self._native.size:])

    def aux_at(self, record: np.ndarray, y: np.ndarray):
        """:meth:`aux_of` for an evaluation known to be at the state ``y`` (a point taken back from the kernel)."""
        return self.aux_of(record)

    def kinematics(self, record: np.ndarray) -> "NativeKinematics":
        return NativeKinematics(record, self._native._derivative_layout, self._native.invert)


class NativeModelIntegration(NativeIntegration):
    """A model's own right-hand side over a tree, under the stepper: its record at ``pointer`` takes the task's place
    in the kernel's calls -- ``_derivative_fn(model, law, inputs, record, y, ẏ, evaluation, work)`` and
    ``_fn``, ``mbs_integrate``'s form (``held_base.c``, ``moving_base.c``). A subclass sets those, ``pointer``,
    ``size`` and ``n_inputs`` (with the input buffer ``_inputs`` of that size)."""

    def derivative(self, y: np.ndarray, inputs: np.ndarray) -> tuple:
        """``(ẏ, record)`` at ``y``, evaluated into a record of zeros; raises the kernel's error as
        :meth:`NativeSystem.derivative` (``LinAlgError`` when ``M_ff`` is not positive definite)."""
        native = self._native
        if np.size(y) != self.size or np.size(inputs) != self.n_inputs:
            raise ValueError(f"y has {np.size(y)} and the inputs {np.size(inputs)} values, the model {self.size} "
                             f"and {self.n_inputs}")
        rec, ydot = np.zeros(native.size), np.empty(self.size)
        y, inputs = np.array(y, dtype=float), np.array(inputs, dtype=float)
        code = self._derivative_fn(native._model_ptr, self._law.pointer, _address(inputs), self.pointer, _address(y),
                                   _address(ydot), _address(rec), native._work_ptr)
        if code:
            native._finish(rec, code, self._law)  # raises the kernel's error
        return ydot, rec

    def derivative_of(self, t: float, y: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        return self.derivative(y, inputs)[0]

    def _run(self, tableau: NativeTableau, inputs: np.ndarray, t: float, t_end: float, y: np.ndarray,
             k: np.ndarray) -> int:
        """The model's stepping call on ``y`` and ``k`` in place (:meth:`NativeIntegration._run` with the model's
        record in the task's place)."""
        head, tail, _ = self._stepping_arguments(tableau)
        if inputs.size != self._inputs.size:
            raise ValueError(f"the model takes {self._inputs.size} inputs, got {inputs.size}")
        self._inputs[:] = inputs
        return self._fn(*head, self.pointer, tableau.pointer, self._stepper_ptr, t, t_end, *tail)
