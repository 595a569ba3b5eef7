"""The kernel's record of a body moved by harmonic series (``mbs_harmonic``, harmonic.c): its values at a time
(``mbs_harmonic_values``, what every output path calls) and its communication step over the FMI runtime's value
table (``mbs_harmonic_step``, the runtime's step without Python: fmi/kernel_steps.py ``TimeSteps``).
core/moving_base/harmonic.py is the specification."""
from __future__ import annotations

import ctypes
from typing import Optional, Sequence

import numpy as np

from .system import library

__all__ = ["NativeHarmonic", "HARMONIC_REASONS"]

_P, _I, _D, _L = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_long

HARMONIC_REASONS = {1: "the step's times", 6: "a value not finite"}  # mbs_harmonic_step's declines (harmonic.h)


class _Harmonic(ctypes.Structure):
    """``mbs_harmonic`` of harmonic.h, field by field."""
    _fields_ = ([("n", _I), ("series", _I)] + [(name, _P) for name in ("omega", "phase", "c", "s")]
                + [("origin", _D * 3), ("z_down", _I), ("build_up", _D), ("values", _P)]
                + [(name, _I) for name in ("n_real", "n_int", "time_vr")]
                + [(name, _P) for name in ("real_vr", "real_from", "int_vr", "int_from")]
                + [("t", _D), ("steps", _L)])


def _ints(values: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(list(values) or [0], dtype=np.intc)


class NativeHarmonic:
    """The record of one :class:`core.moving_base.harmonic.HarmonicBody` (its arrays kept alive here)."""

    ENTRY_POINT = "mbs_harmonic_step"

    def __init__(self, body, lib) -> None:
        self._lib = lib
        self._keep = (body.omega, body.phase, body.c, body.s)
        self._values = np.zeros(body.size)
        r = self._record = _Harmonic()
        r.n, r.series = body.omega.size, body.c.shape[0]
        r.omega, r.phase, r.c, r.s = (a.ctypes.data for a in self._keep)
        r.origin[:] = [float(v) for v in body.origin]
        r.z_down = int(body.z_down)
        r.build_up = float(body.build_up)
        r.values = self._values.ctypes.data
        if lib.mbs_harmonic_values_size(ctypes.byref(r)) != body.size:
            raise ValueError("the kernel's harmonic values do not match the specification's")
        r.time_vr = -1
        self.record = ctypes.addressof(r)
        self.function = ctypes.cast(getattr(lib, self.ENTRY_POINT), ctypes.c_void_p).value

    @classmethod
    def of(cls, body) -> Optional["NativeHarmonic"]:
        """The record of ``body``, or None without a kernel."""
        lib = library()
        return None if lib is None else cls(body, lib)

    def values(self, t: float) -> np.ndarray:
        """The values at ``t`` (the record's array: copy to keep them)."""
        self._lib.mbs_harmonic_values(self.record, float(t))
        return self._values

    # -- the step over a value table ------------------------------------------------------------------
    def attach(self, real_slots: Sequence[tuple], int_slots: Sequence[tuple], time_slot: Optional[int]) -> None:
        """The table's slots: ``(slot, value index)`` of each Real and Integer output, the time's slot (None)."""
        self._slots = [_ints([s for s, _ in real_slots]), _ints([p for _, p in real_slots]),
                       _ints([s for s, _ in int_slots]), _ints([p for _, p in int_slots])]
        r = self._record
        r.n_real, r.n_int = len(real_slots), len(int_slots)
        r.real_vr, r.real_from, r.int_vr, r.int_from = (a.ctypes.data for a in self._slots)
        r.time_vr = -1 if time_slot is None else int(time_slot)

    def load(self, t: float) -> None:
        """The point the next step starts from; the step count at zero."""
        self._record.t, self._record.steps = float(t), 0

    @property
    def t(self) -> float:
        return self._record.t

    @property
    def steps(self) -> int:
        return self._record.steps

    def step(self, t: float, h: float, reals: np.ndarray, ints: np.ndarray) -> int:
        """One step as the runtime takes it, over ``reals`` and ``ints`` (for tests): 0 or a reason."""
        return getattr(self._lib, self.ENTRY_POINT)(self.record, float(t), float(h), reals.ctypes.data,
                                                    ints.ctypes.data)
