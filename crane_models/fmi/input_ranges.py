"""Inputs with an expected range (``FmuVariable.expected_range``: a set-point within its joint's stroke): a value
outside is not refused -- a host may drive a set-point through a limit on purpose, and the end stop then holds the
joint -- but the FMU says so, with status Warning, once per excursion: when the value leaves the range, not again
until it has come back and left again. Generic: the bounds are numbers or the names of parameters, read from the
parameters in force.

Checked where Python sees the inputs: when initialization ends (the start values) and at every communication step
Python takes. A step the compiled kernel would take by itself (fmi/kernel_steps.py) is declined when one of these
inputs crosses its range (in or out, against the inputs in force: ``kernel_ranges``), so Python takes it and this
check sees every excursion start and end."""
from __future__ import annotations

import math

__all__ = ["InputRanges"]


class InputRanges:
    """The expected ranges of ``inputs`` (FmuVariables, in the inputs' order) with the parameters ``params``;
    ``warn(message)`` logs a warning (:meth:`report`)."""

    def __init__(self, inputs: list, params: dict, warn=None) -> None:
        self._warn = warn
        def bound(x, default: float) -> float:
            return float(params[x]) if isinstance(x, str) else default if x is None else float(x)

        self._ranges = [(i, v.name, v.unit, bound(v.expected_range[0], -math.inf), bound(v.expected_range[1], math.inf))
                        for i, v in enumerate(inputs) if v.expected_range]
        self._outside: set = set()
        self._sources = {v.name: v.expected_range for v in inputs if v.expected_range}

    def kernel_ranges(self) -> list:
        """``(input index, low, high)`` of each input with an expected range: what the kernel's steps watch."""
        return [(i, low, high) for i, _, _, low, high in self._ranges]

    def report(self, inputs, t: float) -> None:
        """Each warning of :meth:`check` through ``warn``."""
        for message in self.check(inputs, t):
            self._warn(message)

    def check(self, inputs, t: float) -> list:
        """The warnings for the inputs (a vector in the inputs' order) at time ``t`` that have just left their
        range; an input back inside may warn again when it next leaves."""
        messages = []
        for i, name, unit, low, high in self._ranges:
            x = float(inputs[i])
            if low <= x <= high:
                self._outside.discard(name)
            elif name not in self._outside:
                self._outside.add(name)
                lo_name, hi_name = (n if isinstance(n, str) else "" for n in self._sources[name])
                limits = f" ({lo_name}, {hi_name})" if lo_name or hi_name else ""
                messages.append(f"input {name} = {x:g} {unit} at t = {t:g} s is outside its expected range "
                                f"[{low:g}, {high:g}] {unit}{limits}; the run goes on, the joint stops at its end "
                                "stop")
        return messages
