"""The payload on a hoisting wire in the kernel (``payload.c``): the record of :class:`core.payload`'s wire, winch
and deck for ``mbs_payload_derivative`` and the stepping that stops before a state event
(``mbs_payload_integrate``). ``core/payload.py`` and ``models/knuckle_boom/payload.py`` are the specification."""
from __future__ import annotations

import ctypes
import math
from typing import Callable, Optional

import numpy as np

from .buffers import buffer_lengths
from .stepping import NativeIntegration, NativeTableau
from .system import NativeEffortLaw, NativeSystem, _address, library

__all__ = ["NativePayload", "PAYLOAD_RESULT", "PAYLOAD_INDICATORS"]

PAYLOAD_INDICATORS = 4  # taut, L - L_min, L_max - L, deck contact (MBS_PAYLOAD_INDICATORS)
PAYLOAD_RESULT = 11 + PAYLOAD_INDICATORS  # [T, F (3), tip (3), tip velocity (3), N, indicators]


class _Payload(ctypes.Structure):
    _fields_ = ([(name, ctypes.c_int) for name in ("body", "winch_input", "deck")] + [("point", ctypes.c_double * 3)]
                + [(name, ctypes.c_double) for name in ("mass", "g", "ea", "damping", "v_max", "l_min", "l_max",
                                                        "deck_height", "deck_k", "deck_c", "check_interval")])


class NativePayload(NativeIntegration):
    """A tree with a point-mass load on a wire from the point ``point`` of ``body``, ``y = [q; u; p; v; L]``:
    its derivative (:meth:`derivative`) and its stepping in the kernel, as :class:`NativeIntegration` (same
    tableau and step-size control) plus :meth:`advance_to_event`, which stops before a step that changes an
    indicator's sign. ``make_aux(record, tail, y)``: the model's ``aux`` from the record of the evaluation at
    ``y`` and its tail (the ``PAYLOAD_RESULT`` doubles of ``mbs_payload_derivative``)."""

    implicit_steps = False  # the kernel's Jacobian is a tree's (mbs_tree_jacobian), not the wire's

    def __init__(self, native: NativeSystem, law: NativeEffortLaw, body: int, point, mass: float, g: float, wire,
                 winch, winch_input: int, deck=None, deck_height: float = 0.0,
                 make_aux: Optional[Callable] = None) -> None:
        super().__init__(native, law, make_aux=lambda record, tail: make_aux(record, tail, self._y))
        self._make_aux_at = make_aux
        lib = library()
        deck_on = deck is not None
        self._struct = _Payload(int(body), int(winch_input), int(deck_on), (ctypes.c_double * 3)(*map(float, point)),
                                float(mass), float(g), float(wire.ea), float(wire.damping), float(winch.v_max),
                                float(winch.l_min), float(winch.l_max), float(deck_height),
                                float(deck.stiffness) if deck_on else 1.0, float(deck.damping) if deck_on else 0.0,
                                math.inf)
        self.pointer = ctypes.addressof(self._struct)
        self.size = 2 * native.n + 7
        self._tail = PAYLOAD_RESULT
        self._stride = native.size + PAYLOAD_RESULT
        self._recs = np.zeros(3 * self._stride)
        self._fn = lib.mbs_payload_integrate
        self._derivative_fn = lib.mbs_payload_derivative
        self._signs = -1
        self._y = None
        self._crossing = None
        self._mass_over_ea = float(mass) / float(wire.ea)
        self._winch = winch

    def derivative(self, y: np.ndarray, inputs: np.ndarray) -> tuple:
        """``(ẏ, record, tail)`` at ``y`` (``mbs_payload_derivative``); raises ``ValueError`` for a map outside its
        domain or a load at the suspension point, ``LinAlgError`` for a singular mass matrix."""
        native = self._native
        rec, base = native._new_record(y[:native.n], y[native.n:2 * native.n], PAYLOAD_RESULT)
        ydot = np.empty(self.size)
        yc = np.ascontiguousarray(y, dtype=float)
        code = self._derivative_fn(native._model_ptr, self._law.pointer, native._inputs_address(inputs),
                                   self.pointer, yc.ctypes.data, _address(ydot), base, base + 8 * native.size,
                                   native._work_ptr)
        if code == -2:
            raise ValueError("payload at the suspension point: wire direction undefined")
        if code:
            native._finish(rec, code, self._law, task=True)  # raises the kernel's error
        return ydot, rec[:native.size], rec[native.size:]

    def aux_at(self, record: np.ndarray, y: np.ndarray):
        """The model's ``aux`` of the evaluation ``record`` (with its tail) at the state ``y``."""
        size = self._native.size
        return self._make_aux_at(record[:size], record[size:], y)

    def check_interval(self, length: float, duration: float) -> float:
        """A quarter of the shortest taut phase (half the axial period ``π √(m L/EA)``) over the next
        ``duration`` seconds, at the shortest length the winch can reach in it."""
        shortest = max(self._winch.l_min, length - self._winch.v_max * duration)
        return 0.25 * math.pi * math.sqrt(self._mass_over_ea * shortest)

    def advance_to_event(self, stepper, t: float, y: np.ndarray, t_end: float, k1: np.ndarray, aux,
                         inputs: np.ndarray, signs: np.ndarray) -> tuple:
        """:meth:`advance` towards ``t_end`` until a step would change the sign of an indicator (``signs``: the
        booleans ``indicator > 0`` at ``t``): ``(t_stop, t_cross, y, k, aux)`` with the values at ``t_stop``, and
        the crossing inside ``(t_stop, t_cross]``; ``t_cross`` is None when ``t_end`` was reached."""
        self._signs = int(sum(1 << i for i, s in enumerate(signs) if s))
        self._struct.check_interval = self.check_interval(float(y[-1]), t_end - t)
        try:
            y, k, aux = self.advance(stepper, t, y, t_end, k1, aux, inputs)
        finally:
            self._signs, self._struct.check_interval = -1, math.inf
        crossing, self._crossing = self._crossing, None
        if crossing is None:
            return t_end, None, y, k, aux
        return crossing[0], crossing[0] + crossing[1], y, k, aux

    def _run(self, tableau: NativeTableau, inputs: np.ndarray, t: float, t_end: float, y: np.ndarray,
             k: np.ndarray) -> int:
        self._y = y
        st = self._stepper
        code = self._fn(self._native._model_ptr, self._law.pointer, self._native._inputs_address(inputs),
                        self.pointer, tableau.pointer, ctypes.addressof(st), t, t_end, _address(y), _address(k),
                        self._signs, _address(self._recs), self._native.size, self._stride,
                        ctypes.addressof(self._final), self._model_work, _address(self._work),
                        ctypes.byref(buffer_lengths(y, k, self._recs, self._work)))
        if code == 3:  # stopped before the step that crosses, at st.t
            self._crossing = (st.t, st.h)
            return 0
        return code
