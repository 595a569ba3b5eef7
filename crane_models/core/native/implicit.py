"""The kernel's stiff stepper (``mbs_rosenbrock_integrate``, ``rosenbrock.c``) and its Jacobian
(``mbs_task_jacobian``, ``jacobian.c``) for a :class:`stepping.NativeIntegration`: the records they take and
the stepping call. :class:`integration.rosenbrock.RosenbrockW` is the specification (same coefficients, step-size
control and Jacobian policy) and carries what the kernel keeps between calls: J, its age and the LU of W."""
from __future__ import annotations

import ctypes
import math

import numpy as np

from .buffers import buffer_lengths
from .system import _address, library

__all__ = ["NativeRosenbrock", "rosenbrock_tableau"]


class _WTableau(ctypes.Structure):
    _fields_ = [("stages", ctypes.c_int), ("order", ctypes.c_int), ("gamma", ctypes.c_double)] + [
        (name, ctypes.c_void_p) for name in ("alpha", "g", "b", "e", "c")]


class _Implicit(ctypes.Structure):
    _fields_ = ([(name, ctypes.c_void_p) for name in ("J", "lu", "piv")]
                + [(name, ctypes.c_int) for name in ("have_J", "J_age", "max_age", "lu_valid")]
                + [("lu_h", ctypes.c_double)] + [(name, ctypes.c_long) for name in ("jacobians", "jacobian_evaluations")]
                + [("fixed_h", ctypes.c_double), ("fixed_columns", ctypes.c_int), ("next_column", ctypes.c_int)])


def rosenbrock_tableau() -> tuple:
    """``(stages, order, gamma, alpha, g, b, e, c)`` of ROS34PW2 as :mod:`integration.rosenbrock` defines it."""
    from ...integration import rosenbrock as ros

    stages = len(ros._RW_B)
    alpha, g = np.zeros((stages, stages)), np.zeros((stages, stages))
    for i in range(stages):
        alpha[i, :len(ros._RW_ALPHA[i])] = ros._RW_ALPHA[i]
        g[i, :len(ros._RW_G[i])] = ros._RW_G[i]
    return stages, 3, ros._RW_GAMMA, alpha, g, np.array(ros._RW_B), np.array(ros._RW_E), np.array(ros._RW_C)


class NativeRosenbrock:
    """The stiff stepper of one :class:`stepping.NativeIntegration` (its right-hand side, records and scratch)."""

    def __init__(self, integration) -> None:
        self._it = integration
        stages, order, gamma, *arrays = rosenbrock_tableau()
        self._arrays = [np.ascontiguousarray(a, dtype=float) for a in arrays]
        self._tableau = _WTableau(stages, order, gamma, *(a.ctypes.data for a in self._arrays))
        self.size = integration.size
        n = integration._task.n_state if integration._task is not None else integration._native.n
        self.reduced = self.size - n  # unknowns of the LU: [u; z]
        self._work = np.empty((stages + 9) * self.size)  # see mbs_rosenbrock_rhs
        self._imp = _Implicit()
        lib = library()
        self._integrate, self._jacobian = lib.mbs_rosenbrock_integrate, lib.mbs_task_jacobian

    def advance(self, stepper, st, t: float, y: np.ndarray, t_end: float, k: np.ndarray, inputs: np.ndarray) -> int:
        """``mbs_rosenbrock_integrate`` on ``y``, ``k`` in place with the stepper record ``st`` (set by the caller)
        and what ``stepper`` (a RosenbrockW) carries; returns the kernel's code. J, its age, the LU and the
        Jacobian counts go back to ``stepper``."""
        imp, size, nr = self._imp, self.size, self.reduced
        if stepper.J is None or stepper.J.shape != (size, size):
            stepper.J, imp.have_J = np.empty((size, size)), 0
        else:
            imp.have_J = 1
        if stepper._lu is None or stepper._lu.shape != (nr, nr) or stepper._lu_piv.shape != (nr,):
            stepper._lu, stepper._lu_piv, imp.lu_valid = np.empty((nr, nr)), np.zeros(nr, dtype=np.intc), 0
        else:
            imp.lu_valid = 1
        imp.J, imp.lu, imp.piv = _address(stepper.J), _address(stepper._lu), stepper._lu_piv.ctypes.data
        imp.J_age, imp.max_age, imp.lu_h = stepper.J_age, int(stepper.jacobian_max_age), stepper._lu_h
        imp.jacobians = imp.jacobian_evaluations = 0
        fixed = hasattr(stepper, "jacobian_period")  # rosenbrock.FixedStepRosenbrockW
        imp.fixed_h = stepper.max_step if fixed else 0.0
        if fixed:
            steps = max(1, math.ceil((t_end - t) / stepper.max_step - 1e-9))
            imp.fixed_columns, imp.next_column = stepper.columns(size, (t_end - t) / steps), stepper.next_column
        it = self._it
        code = self._integrate(it._native._model_ptr, it._law.pointer, it._native._inputs_address(inputs),
                               it._task.pointer if it._task is not None else None, ctypes.addressof(self._tableau),
                               ctypes.addressof(st), ctypes.addressof(imp), t, t_end, _address(y), _address(k),
                               _address(it._recs), it._native.size, it._stride, ctypes.addressof(it._final),
                               it._model_work, _address(self._work),
                               ctypes.byref(buffer_lengths(y, k, it._recs, self._work)))
        if not imp.have_J:
            stepper.J = None
        if not imp.lu_valid:
            stepper._lu = stepper._lu_piv = None
        stepper.J_age, stepper._lu_h = imp.J_age, imp.lu_h
        if fixed:
            stepper.next_column = imp.next_column
        stepper.stats["jacobians"] += imp.jacobians
        stepper.stats["jacobian_evaluations"] += imp.jacobian_evaluations
        return code

    def jacobian(self, t: float, y: np.ndarray, f0: np.ndarray, inputs: np.ndarray,
                 central: bool = False) -> np.ndarray:
        """``∂ẏ/∂y`` at ``(t, y)`` with ``f0 = ẏ`` there (``mbs_task_jacobian``, forward or central differences
        where it has no closed form); ValueError when an evaluation fails."""
        it, size = self._it, self.size
        J = np.empty((size, size))
        y = np.array(y, dtype=float)
        f0 = np.array(f0, dtype=float)
        code = self._jacobian(it._native._model_ptr, it._law.pointer, it._native._inputs_address(inputs),
                              it._task.pointer if it._task is not None else None, it._native.size, t, _address(y),
                              _address(f0), _address(J), int(central), _address(it._recs), it._model_work,
                              _address(self._work))
        if code:
            raise ValueError(f"the Jacobian could not be evaluated at t = {t:.9g} s (kernel code {code})")
        return J
