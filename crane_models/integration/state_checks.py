"""Checks of a restored state's data against what the model allocates: each returns None when the value fits, else
one line naming the field and what was expected.

Why: a saved state is data from outside (a host's bytes; the checksum of ``fmi/state_format`` is integrity, not
authenticity), and the compiled kernel writes its arrays by the lengths the model implies -- a cached derivative
one element long would be a heap overflow. Everything restored is therefore compared with the model first."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

__all__ = ["array_problem", "number_problem", "layout_problem", "cosimulation_state_problem"]


def _shape_text(shape: tuple) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def array_problem(where: str, value: Any, shape: tuple, dtype=np.float64, finite: bool = True) -> Optional[str]:
    """None when ``value`` is a numpy array of ``dtype`` and ``shape`` (and, for ``finite``, only finite values)."""
    dtype = np.dtype(dtype)
    if not isinstance(value, np.ndarray):
        return f"{where} must be an array of {dtype} {_shape_text(shape)}, not {type(value).__name__}"
    if value.dtype != dtype or value.shape != tuple(shape):
        return (f"{where} must be an array of {dtype} {_shape_text(shape)}, not {value.dtype} "
                f"{_shape_text(value.shape)}")
    if finite and dtype.kind == "f" and not np.isfinite(value).all():
        return f"{where} must hold finite numbers only"
    return None


def number_problem(where: str, value: Any, low: float = -math.inf, high: float = math.inf,
                   integer: bool = False) -> Optional[str]:
    """None when ``value`` is a finite number (an ``int`` for ``integer``) in ``[low, high]``."""
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        return f"{where} must be {'an integer' if integer else 'a number'}, not {type(value).__name__}"
    if not (math.isfinite(value) and low <= value <= high):
        return f"{where} = {value!r} must be finite and in [{low:g}, {high:g}]"
    return None


def _fields(obj) -> Optional[dict]:
    """The data of a model object (what a saved state keeps of it), or None for plain data."""
    if hasattr(type(obj), "__getstate__") and type(obj).__module__ != "builtins" \
            and not isinstance(obj, (np.ndarray, np.generic)):
        state = obj.__getstate__()
        return state if isinstance(state, dict) else None
    return None


def layout_problem(where: str, value: Any, template: Any) -> Optional[str]:
    """None when ``value`` has the layout of ``template`` (what the model computes at the same point): the same
    types, dict keys and sequence lengths, arrays of the same dtype and shape, and the same integers, strings and
    flags (those are structure -- offsets, sizes -- not results). Values are not judged: a kernel record marks
    what it did not compute with NaN (an inverse mass matrix not formed), and outputs computed from a record are
    checked where they are made (non-finite ones are refused there)."""
    if type(value) is not type(template):
        return f"{where} must be {type(template).__name__}, not {type(value).__name__}"
    if isinstance(template, np.ndarray):
        return array_problem(where, value, template.shape, template.dtype, finite=False)
    if isinstance(template, float):
        return None
    if isinstance(template, (tuple, list)):
        if len(value) != len(template):
            return f"{where} must hold {len(template)} items, not {len(value)}"
        return next((p for p in (layout_problem(f"{where}[{i}]", v, t) for i, (v, t) in
                                 enumerate(zip(value, template))) if p), None)
    if isinstance(template, dict):
        if set(value) != set(template):
            return f"{where} must have the keys {sorted(template)}, not {sorted(value)}"
        return next((p for p in (layout_problem(f"{where}.{k}", value[k], template[k]) for k in template) if p),
                    None)
    fields = _fields(template)
    if fields is not None:
        return layout_problem(where, _fields(value), fields)
    if hasattr(template, "__dataclass_fields__"):
        return layout_problem(where, vars(value), vars(template))
    return None if value == template else f"{where} = {value!r} must be {template!r}"


def cosimulation_state_problem(state, model, x_shape: tuple, inputs_shape: tuple, stepper) -> Optional[str]:
    """None when ``state`` (an ``integration.cosimulation.CoSimulation.get_state`` of ``model`` with the same
    parameters) fits what that simulation allocates -- time, state (``x_shape``), inputs (``inputs_shape``), the
    ``stepper``'s data, and the cached evaluation compared with the model's own at that point -- else one line naming
    the first field that does not."""
    if not (isinstance(state, tuple) and len(state) == 6):
        return "the co-simulation state must be a tuple of 6 items"
    t, x, inputs, carried, k, aux = state
    problem = (number_problem("the time t", t) or array_problem("the state x", x, x_shape)
               or array_problem("the inputs", inputs, inputs_shape)
               or stepper.state_problem(carried, int(np.prod(x_shape)))
               or (k is not None and array_problem("the cached derivative k", k, x_shape)))
    if problem:
        return problem
    if (k is None) != (aux is None):
        return "the cached derivative k and its evaluation aux must both be present or both None"
    try:
        model.check_state(x)
        if aux is None:
            return None
        _, reference = model.derivative(t, x, inputs)  # what the model allocates at that point
    except (ValueError, ArithmeticError) as exc:
        return f"the state x is outside the model's domain ({exc})"
    return layout_problem("the cached evaluation aux", aux, reference)
