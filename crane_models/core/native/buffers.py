"""The lengths of the buffers a stepping call of the kernel writes (``mbs_lengths``), which the kernel compares with
the ones it computes from the model: for every stepper binding (:mod:`.stepping`, :mod:`.implicit`,
:mod:`.payload`), below them all."""
from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["BAD_BUFFERS", "buffer_lengths"]


class _Lengths(ctypes.Structure):
    """``mbs_lengths``: the lengths (doubles) of the buffers a stepping call writes, which it compares with the ones
    it computes from the model (``MBS_BAD_BUFFERS`` on a mismatch: the C side does not trust Python's sizes)."""
    _fields_ = [(name, ctypes.c_long) for name in ("y", "k1", "recs", "work")]


BAD_BUFFERS = 6  # MBS_BAD_BUFFERS of multibody.h


def buffer_lengths(y: np.ndarray, k: np.ndarray, recs: np.ndarray, work: np.ndarray) -> _Lengths:
    """The ``mbs_lengths`` record of a stepping call's buffers."""
    return _Lengths(y.size, k.size, recs.size, work.size)
