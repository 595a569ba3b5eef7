"""The split pair's vessel (:class:`.split.VesselModel`) in the compiled kernel: its right-hand side is one kernel
call -- the cubic springs (§III-D) as an effort law whose load (``core/native/point_load.c``) is the crane's wrench
at the crane base, taken into ``τ`` as ``Σ P_kᵀ Π W`` (32)/(46), and, when the crane's interface inertia ``A`` is
given, its inertia there (``(M + Gᵀ A G) u̇ = τ − C u − Gᵀ A c``) -- stepped by the kernel's steppers; its outputs
are written by ``mbs_point_outputs`` and its whole communication step is ``mbs_cosim_step`` (fmi/kernel_steps.py),
which evaluates afresh for new inputs, as the Python path does (the model has no exact input update: ``A`` makes
``u̇`` non-affine in the inputs). VesselModel's numpy code (``external_wrenches``,
``accelerations_with_crane_inertia``, ``motion``) stays the specification: tests/test_kernel_outputs.py compares."""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from ...core.moving_base.interface import BASE_VELOCITY, MOTION, WRENCH
from ...core.native import NativeIntegration, NativeKinematics
from ...core.native.outputs import kernel_writer
from ...core.native.point_load import INERTIA_INPUTS, NativePointLoad, NativePointOutputs

__all__ = ["VesselKernel", "WRENCH_INPUT", "INERTIA_INPUT"]

# The vessel's inputs (split.VESSEL_INPUTS, then INERTIA_NAMES): the wrench [f; n] at the crane base, then A.
WRENCH_INPUT = 0
INERTIA_INPUT = WRENCH_INPUT + len(WRENCH)
_INPUTS = INERTIA_INPUT + INERTIA_INPUTS

_NAMES = {name for name, _, _ in tuple(MOTION) + tuple(BASE_VELOCITY)}
# The values mbs_point_outputs computes, in its order (point_load.h): the state (the rates are no outputs), the
# vessel's ω and ω̇, the crane base's velocity and acceleration -- all in Frame 1.
_VALUE_ORDER = (["roll", "pitch", "yaw", None, None, None]
                + [f"{kind}_{a}" for kind in ("angular_velocity", "angular_acceleration", "base_velocity",
                                              "base_acceleration") for a in "xyz"])
assert _NAMES == set(_VALUE_ORDER) - {None}  # every output of the vessel is a kernel value


class VesselKernel:
    """The kernel's records of one vessel -- its tree ``system`` with the effort law ``springs`` under gravity ``g``
    and the load on ``body`` at ``point`` (body coordinates) -- made on first use for the system's kernel (None
    without one)."""

    def __init__(self, system, springs, g: float, body: int, point: np.ndarray) -> None:
        self._system, self._springs, self._g = system, springs, float(g)
        self._body, self._point = int(body), np.array(point, dtype=float)
        # The vessel turns about the origin of Frame 0 (53): every joint on its path is a revolute one at its parent's
        # origin, so its load is pivoted (point_load.h) -- the form of VesselModel.motion, exact zeros included.
        path = np.flatnonzero(system.path[self._body])
        if system.prismatic[path].any() or system.offset[path].any():
            raise ValueError("the vessel's load is pivoted: its body must turn about the origin of Frame 0")
        self._made = None  # (NativeSystem, law, integration, outputs)
        self._every = None  # (outputs, the plan of every output)

    def _parts(self) -> Optional[tuple]:
        native = self._system.native
        if native is None:
            return None
        if self._made is None or self._made[0] is not native:
            load = NativePointLoad(self._body, self._point, WRENCH_INPUT, INERTIA_INPUT, pivoted=True)
            law = native.effort_law(self._springs, self._g, load)
            self._made = (native, law, NativeIntegration(native, law), NativePointOutputs(native, load, _VALUE_ORDER))
        return self._made

    def derivative(self, x: np.ndarray, inputs: np.ndarray) -> Optional[NativeKinematics]:
        """The evaluation at ``x`` (``mbs_derivative``: ``kin.xdot``, ``kin.udot``), None without the kernel;
        ``inputs``: the wrench alone (6, no inertia) or with ``A`` (27)."""
        parts = self._parts()
        if parts is None:
            return None
        native, law = parts[0], parts[1]
        return native.derivative(x, law, self._all_inputs(inputs))

    @staticmethod
    def _all_inputs(inputs: np.ndarray) -> np.ndarray:
        if inputs.size == _INPUTS:
            return inputs
        if inputs.size == INERTIA_INPUT:  # the wrench alone: A = 0, as the numpy model takes it
            return np.concatenate((inputs, np.zeros(INERTIA_INPUTS)))
        raise ValueError(f"the vessel takes {INERTIA_INPUT} or {_INPUTS} inputs, got {inputs.size}")

    def compiled(self, inputs: np.ndarray) -> Optional[tuple]:
        """``(NativeIntegration, inputs)`` of the right-hand side in the kernel, None without it."""
        parts = self._parts()
        return None if parts is None else (parts[2], self._all_inputs(inputs))

    def output_writer(self, names: tuple, constants: dict, outputs: Callable) -> Callable:
        """``write(x, inputs, aux, out)`` of the outputs ``names``: by ``mbs_point_outputs`` for the kernel's
        evaluation, else from the dict ``outputs(x, inputs, aux)`` (the numpy specification)."""
        parts = self._parts()
        return kernel_writer(parts[3] if parts else None, names, constants, outputs,
                             lambda aux: getattr(aux, "record", None) is not None)

    def outputs(self, x: np.ndarray, kin: NativeKinematics) -> dict:
        """Every output from the kernel's evaluation ``kin`` at ``x``, as a dict."""
        outputs = self._parts()[3]
        if self._every is None or self._every[0] is not outputs:
            self._every = (outputs, outputs.plan(tuple(name for name in _VALUE_ORDER if name is not None)))
        plan = self._every[1]
        out = np.empty(len(plan.names))
        outputs.write(plan, np.ascontiguousarray(x, dtype=float), kin.record, out)
        return dict(zip(plan.names, out.tolist()))

    def step_parts(self, names: tuple, constants: Optional[dict], pitch_limit: float) -> Optional[tuple]:
        """What ``mbs_cosim_step`` needs besides the stepping (``kernel_step_parts``): the outputs, the index map of
        ``names`` and ``check_state``'s pitch bound |q2| <= pitch_limit as the open interval between its
        neighbouring doubles (the same set of values), None without the kernel."""
        parts = self._parts()
        if parts is None:
            return None
        pitch = (1, math.nextafter(-pitch_limit, -math.inf), math.nextafter(pitch_limit, math.inf))
        return parts[3], parts[3].plan(names, constants), [pitch]
