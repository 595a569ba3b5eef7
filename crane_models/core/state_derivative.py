"""The state derivative ``ẋ = [u; u̇]`` of a :class:`core.kane.MultibodySystem` under a joint effort law, in the
compiled kernel when it is loaded (one call, and stepping in the kernel), else by the numpy core."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .kane import Kinematics, MultibodySystem
from .native import NativeIntegration, NativeSystem

__all__ = ["StateDerivative"]


class StateDerivative:
    """``ẋ = [u; u̇]`` of ``M u̇ + C u = τ`` (43) with ``τ`` = gravity (46) + the generalized forces of a
    :class:`effort_laws.CoordinateEffortLaw` -- one kernel call (``mbs_derivative``) when the compiled
    kernel is loaded, the numpy core otherwise (the specification; tests/test_native.py compares them).
    """

    def __init__(self, system: MultibodySystem, law, g: float):
        if law.n != system.n:
            raise ValueError(f"effort law has {law.n} coordinates, the system {system.n}")
        self.system, self.law, self.g = system, law, float(g)
        self._native_law = None  # built on first use with the kernel (the system may drop its kernel)
        self._integration = None

    def compiled(self, inputs: np.ndarray):
        """``(NativeIntegration, inputs)`` that steps ``ẋ`` in the kernel, or None without the kernel (the
        ``compiled`` hook of :mod:`integration.cosimulation`)."""
        native = self.system.native
        if native is None:
            return None
        if self._integration is None or self._integration[0] is not native:
            self._integration = (native, NativeIntegration(native, self._law_record(native)))
        return self._integration[1], inputs

    def _law_record(self, native: NativeSystem):
        if self._native_law is None:
            self._native_law = native.effort_law(self.law, self.g)
        return self._native_law

    def __call__(self, x: np.ndarray, inputs: np.ndarray) -> Kinematics:
        """The kinematics at ``x = [q; u]`` with ``udot``, ``efforts`` and ``xdot`` set."""
        system = self.system
        if system.native is not None:
            return system.native.derivative(x, self._law_record(system.native), inputs)
        n = system.n
        kin = system.kinematics(x[:n], x[n:])
        gravity = system.gravity_forces(kin, self.g)
        efforts = self.law.efforts(kin.q, kin.u, inputs, gravity)
        if self.law.prescribed is None:
            udot, _, _ = system.accelerations(kin, gravity + efforts)
        else:  # a moving base: the law gives u̇_p; the effort there becomes the one that realises it
            p = self.law.prescribed_indices
            udot, M, C = system.accelerations_with_prescribed(kin, gravity + efforts, p, efforts[p])
            efforts[p] = (M @ udot + C @ kin.u - gravity)[p]
        kin.udot, kin.efforts, kin.xdot = udot, efforts, np.concatenate((kin.u, udot))
        return kin

    def with_new_inputs(self, kin: Kinematics, old: np.ndarray, new: np.ndarray) -> Kinematics:
        """The same evaluation for other inputs, without a new one: the efforts are affine in the inputs,
        so ``Δu̇ = M⁻¹ B Δw`` is exact. Returns a new object; ``kin`` stays as it was (a saved FMU state
        may hold it). Not for a law with prescribed coordinates (a model with one evaluates anew)."""
        if self.law.prescribed is not None:
            raise ValueError("with_new_inputs does not apply to a law with prescribed coordinates")
        native = self.system.native
        if kin.record is not None and native is not None:  # the kernel's evaluation: updated by the kernel
            out = native.update_inputs(kin, self._law_record(native), old, new)
            if out is not None:
                return out
        d_efforts = self.law.input_gain @ (np.asarray(new, dtype=float) - old)
        d_udot = self.system.solve_with(kin, d_efforts)
        if kin.record is not None:  # a kernel record: changed in a copy
            out = kin.copy()
            out.udot[:] += d_udot
            out.efforts[:] += d_efforts
            return out
        udot = kin.udot + d_udot
        return replace(kin, udot=udot, efforts=kin.efforts + d_efforts, xdot=np.concatenate((kin.u, udot)))
