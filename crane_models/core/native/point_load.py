"""A load on one body given by inputs at a point of it, in the kernel (``point_load.c``): the record an effort law
carries (``mbs_point_load``: the wrench ``[f; n]`` there and, optionally, the inertia ``A`` of ``W = W₀ − A a`` hanging
there, both from the inputs) and the outputs of that point's motion (``mbs_point_outputs``). The vessel of the split
pair (``models/vessel_crane/split.py`` ``VesselModel``) is the specification."""
from __future__ import annotations

import ctypes
from typing import Optional, Sequence

import numpy as np

from .outputs import OutputPlan, _KernelOutputs
from .system import NativeSystem, _address, library

__all__ = ["NativePointLoad", "NativePointOutputs", "INERTIA_INPUTS"]

INERTIA_INPUTS = 21  # MBS_INERTIA_INPUTS: A's upper triangle row by row (interface_inertia.INERTIA_NAMES)


class _PointLoad(ctypes.Structure):
    """``mbs_point_load`` of point_load.h."""
    _fields_ = ([(name, ctypes.c_int) for name in ("body", "wrench_input", "inertia_input", "pivoted")]
                + [("point", ctypes.c_double * 3)])


class NativePointLoad:
    """The load on ``body`` at ``point`` (body coordinates): the six inputs from ``wrench_input`` on, ``[f; n]`` at
    the point in body coordinates, and the 21 from ``inertia_input`` on (None: none), the upper triangle of ``A``
    (rows ``[f; n]``, columns ``[a_P; ω̇]``) row by row; ``pivoted``: the body turns about its frame's origin, fixed in
    Frame 0 (the point's motion then in the form ``ω × P``: exact zeros stay zero). ``inputs_end``: the inputs it
    reads."""

    def __init__(self, body: int, point: Sequence[float], wrench_input: int, inertia_input: Optional[int],
                 pivoted: bool = False) -> None:
        if wrench_input < 0 or (inertia_input is not None and inertia_input < 0):
            raise ValueError(f"input indices must be >= 0, got {wrench_input} and {inertia_input}")
        self.body = int(body)
        self._struct = _PointLoad(self.body, int(wrench_input), -1 if inertia_input is None else int(inertia_input),
                                  int(bool(pivoted)), (ctypes.c_double * 3)(*map(float, point)))
        self.pointer = ctypes.addressof(self._struct)
        self.inputs_end = max(wrench_input + 6, -1 if inertia_input is None else inertia_input + INERTIA_INPUTS)


class NativePointOutputs(_KernelOutputs):
    """The motion of a load's point as outputs (``mbs_point_outputs``): ``value_names`` as
    :class:`outputs.NativeCraneOutputs`', in the order of point_load.h -- the state, the body's ``ω`` and ``ω̇``, the
    point's velocity and acceleration relative to Frame 0, all in body coordinates."""

    COSIM_KIND = 2  # MBS_COSIM_POINT_OUTPUTS of cosim_step.h

    def __init__(self, native: NativeSystem, load: NativePointLoad, value_names: Sequence) -> None:
        lib = library()
        self._keep = load
        self._ptr = load.pointer
        super().__init__(value_names, lib.mbs_point_values_size(native._model_ptr))
        self._work = np.empty(6 * native.n + 6)
        self._work_ptr = self._work.ctypes.data
        self._fn = lib.mbs_point_outputs
        self._head = (native._model_ptr, self._ptr)

    def write(self, plan: OutputPlan, x: np.ndarray, record: np.ndarray, out: np.ndarray) -> None:
        """The outputs of ``plan`` at the state ``x`` with the evaluation ``record`` there into ``out``."""
        self._fn(*self._head, _address(x), _address(record), plan.values_pointer, plan.index_pointer, len(plan.names),
                 self._table(out, plan), self._work_ptr)
