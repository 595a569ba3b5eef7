"""The kernel's communication step of a tree model with a payload on its hoisting wire (``mbs_cosim_payload_step``,
cosim_payload.c): :class:`NativeCosimStep`'s record with the payload's part -- the wire, winch and deck of the
model's :class:`NativePayload`, the bodies the payload's outputs need and where those outputs go. The model says
what it needs (``kernel_step_parts``); this binding only fills the record."""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

from .cosim_step import Cosim, NativeCosimStep
from .payload import NativePayload

__all__ = ["NativePayloadCosimStep", "PAYLOAD_VALUES"]

PAYLOAD_VALUES = 12  # MBS_COSIM_PAYLOAD_VALUES: the payload's outputs and wire_slack, in cosim_payload.h's order


class _CosimPayload(ctypes.Structure):
    """``mbs_cosim_payload`` of cosim_payload.h, field by field."""
    _fields_ = ([("c", Cosim), ("pl", ctypes.c_void_p)]
                + [(name, ctypes.c_int) for name in ("crane_rec_size", "n_law", "nb", "tip_body", "king")]
                + [("mass_over_ea", ctypes.c_double), ("payload_at", ctypes.c_void_p), ("extra", ctypes.c_void_p)])


class NativePayloadCosimStep(NativeCosimStep):
    """The record of ``mbs_cosim_payload_step`` for one instance of a model with a payload: the arguments of
    :class:`NativeCosimStep` (``integration`` a :class:`NativePayload`) and ``payload_at`` (the index in the plan's
    values of each of the :data:`PAYLOAD_VALUES` values, -1 for one not published), ``n_law`` (the crane's inputs),
    ``nb``, ``tip_body``, ``king`` (bodies: the wire's suspension, the one whose y axis lies in the boom plane) and
    ``point_record(t, x, inputs, aux)`` (the model's: the record with the payload's result of the evaluation at a
    point, its event indicators those ``event_indicators`` gives there; None when ``aux`` is not the kernel's)."""

    ENTRY_POINT = "mbs_cosim_payload_step"

    def __init__(self, integration: NativePayload, *args, payload_at: Sequence[int], n_law: int, nb: int,
                 tip_body: int, king: int, point_record: Callable) -> None:
        if len(payload_at) != PAYLOAD_VALUES:
            raise ValueError(f"{len(payload_at)} payload values for {PAYLOAD_VALUES}")
        self._payload_at = np.ascontiguousarray(payload_at, dtype=np.intc)
        self._extra = np.zeros((nb, 6))
        self._point_record = point_record
        self._part = dict(pl=integration.pointer, crane_rec_size=integration._native.size, n_law=n_law, nb=nb,
                          tip_body=tip_body, king=king, mass_over_ea=integration._mass_over_ea,
                          payload_at=self._payload_at.ctypes.data, extra=self._extra.ctypes.data)
        super().__init__(integration, *args)

    def _new_record(self) -> tuple:
        whole = _CosimPayload(**self._part)
        return whole, whole.c

    def point_record(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> np.ndarray | None:
        return self._point_record(t, x, inputs, aux)
