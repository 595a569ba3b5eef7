"""Declaring model parameters once: value, unit, description and allowed range in one place.

Every parameter set is a dataclass whose fields are made with :func:`param`. The FMU adapters read the
metadata to declare FMI variables, and :func:`validate` gives the error message a user needs.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

__all__ = ["param", "validate", "describe", "ParameterError"]


class ParameterError(ValueError):
    """A parameter or input value is outside its allowed range."""


def param(default: float, unit: str, description: str, low: float = -math.inf, high: float = math.inf,
          low_open: bool = False, kind: str = "real") -> Any:
    """A dataclass field carrying unit, description and the closed range ``[low, high]``
    (``low_open=True`` makes it ``(low, high]``)."""
    return dataclasses.field(
        default=default,
        metadata={"unit": unit, "description": description, "low": low, "high": high,
                  "low_open": low_open, "kind": kind},
    )


def describe(obj: Any, name: str) -> dict:
    for f in dataclasses.fields(obj):
        if f.name == name:
            return dict(f.metadata)
    raise KeyError(name)


def range_text(meta: dict, whole: bool = False) -> str:
    """``[low, high]`` as a message writes it; ``whole``: an Integer's bounds written out (2147483647, not 2.1e+09)."""
    lo, hi = meta["low"], meta["high"]
    left = "(" if meta.get("low_open") or lo == -math.inf else "["
    right = ")" if hi == math.inf else "]"

    def text(x: float) -> str:
        return str(int(x)) if whole and math.isfinite(x) else f"{x:g}"

    return f"{left}{text(lo)}, {text(hi)}{right}"


def check_value(name: str, value: float, meta: dict) -> None:
    """Raise :class:`ParameterError` naming ``name``, its value and the allowed range."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} = {value!r} is not a number; allowed range {range_text(meta)} {meta['unit']}")
    lo, hi = meta["low"], meta["high"]
    ok = math.isfinite(v) and v <= hi and (v > lo if meta.get("low_open") else v >= lo)
    if not ok:
        raise ParameterError(f"{name} = {v!r} {meta['unit']} is outside the allowed range {range_text(meta)} {meta['unit']}")


def validate(obj: Any) -> None:
    """Check every field of a parameter dataclass against its declared range."""
    for f in dataclasses.fields(obj):
        check_value(f.name, getattr(obj, f.name), f.metadata)
