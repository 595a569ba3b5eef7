"""The slave's side of the value table the project's FMI runtime owns (issue 23, item 2; docs/fmi-runtime.md).

The runtime allocates one C array per storage type, indexed by value reference -- doubles for Real (Float64)
variables, int64 for Integer and Boolean (0 or 1) ones -- and offers them to the slave
(``slave._fmi_attach_value_table(real_address, int_address, n)``). :class:`ValueTable` is a mapping by variable name
over numpy arrays on that memory, so that the adapter's code that reads and writes ``values[name]`` (initialization,
saved states, the directional derivative) works unchanged, while the hot paths read the inputs and write the outputs
as whole vectors (:meth:`ValueTable.inputs`, :meth:`ValueTable.publish`). The runtime serves the host's get and set
calls from the same memory in C.
"""
from __future__ import annotations

import ctypes
import math
import operator
from collections.abc import MutableMapping
from typing import Iterator, Sequence

import numpy as np

__all__ = ["ValueTable", "all_finite", "finite", "values_getter", "input_vector"]


def all_finite(values) -> bool:
    """True when every value is finite, tested as one sum (the common case); False may also mean that
    the sum (for an array: its squares' sum) overflowed, so a caller that gets False checks the values one by one."""
    try:
        if isinstance(values, np.ndarray):  # a dot product: one pass in C (x @ x overflows from 1e154: False)
            return math.isfinite(values @ values)
        return math.isfinite(math.fsum(values))
    except (OverflowError, ValueError):  # inf - inf, or finite values beyond 1e308 in sum
        return False


def finite(value) -> bool:
    """True when ``value`` is a finite number (False for anything that is not a number)."""
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def values_getter(names: list):
    """``values -> tuple of values[name] for name in names`` in one call (``operator.itemgetter``, which returns a
    bare value for a single name)."""
    if len(names) == 1:
        name = names[0]
        return lambda values: (values[name],)
    return operator.itemgetter(*names) if names else (lambda values: ())


def input_vector(table, values, inputs_of, units: dict, report):
    """The inputs (``units``: name -> unit, in the inputs' order) as a float vector -- from ``table`` when there is one,
    else through ``inputs_of(values)`` --, or None after ``report(message)`` named a non-finite one."""
    try:
        if table is not None:
            vals = table.inputs()
            if all_finite(vals):
                return vals
        vals = inputs_of(values)  # one C-level call: a per-name loop costs ~0.15 us an input
        if all_finite(vals):  # the common case in one test; the loop below names the culprit
            return np.array(vals, dtype=float)
    except (TypeError, ValueError, OverflowError):
        pass
    for name, unit in units.items():
        x = values[name]
        if not finite(x):
            report(f"input {name} = {x!r} is not allowed; it must be a finite number ({unit})")
            return None
    return np.array([float(values[name]) for name in units])  # finite, only huge


def _array_at(address: int, ctype, n: int) -> np.ndarray:
    """A numpy array over ``n`` C values of ``ctype`` at ``address`` (memory the runtime owns and frees)."""
    return np.ctypeslib.as_array((ctype * max(n, 1)).from_address(address))[:n]


class ValueTable(MutableMapping):
    """The variables' values by name, stored in the runtime's arrays: a Real as a float, an Integer as an int,
    a Boolean as a bool (what the per-variable path's dict holds, and what a saved state's values must be)."""

    def __init__(self, reals: np.ndarray, integers: np.ndarray, names: Sequence[str], kinds: Sequence[str],
                 inputs: Sequence[str], outputs: Sequence[str]):
        """``names``, ``kinds`` ("real", "integer", "boolean"): every variable by value reference; ``inputs``: the
        Real inputs in the order of the model's input vector; ``outputs``: the outputs the slave publishes."""
        self.reals, self.integers = reals, integers
        self._slot = {name: (vr, kind) for vr, (name, kind) in enumerate(zip(names, kinds))}
        self._input_vrs = np.array([self._slot[name][0] for name in inputs], dtype=np.intp)
        self.output_names = tuple(outputs)  # the order of :meth:`compute_outputs`' vector
        slots = [self._slot[name] for name in outputs]
        real = [k for k, (_, kind) in enumerate(slots) if kind == "real"]
        other = [k for k, (_, kind) in enumerate(slots) if kind != "real"]
        self._publish_index = tuple(np.array(ix, dtype=np.intp) for ix in (
            [slots[k][0] for k in real], real, [slots[k][0] for k in other], other))
        self._outputs = np.zeros(len(slots))

    @classmethod
    def at(cls, real_address: int, int_address: int, names: Sequence[str], kinds: Sequence[str],
           inputs: Sequence[str], outputs: Sequence[str]) -> "ValueTable":
        """The table over the runtime's arrays of ``len(names)`` values each."""
        n = len(names)
        return cls(_array_at(real_address, ctypes.c_double, n), _array_at(int_address, ctypes.c_int64, n),
                   names, kinds, inputs, outputs)

    def __getitem__(self, name: str):
        vr, kind = self._slot[name]
        if kind == "real":
            return float(self.reals[vr])
        x = int(self.integers[vr])
        return bool(x) if kind == "boolean" else x

    def __setitem__(self, name: str, value) -> None:
        vr, kind = self._slot[name]
        if kind == "real":
            self.reals[vr] = float(value)
        else:
            self.integers[vr] = int(value)

    def __delitem__(self, name: str) -> None:
        raise TypeError("the value table holds every variable of the FMU: none can be removed")

    def __iter__(self) -> Iterator[str]:
        return iter(self._slot)

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, name) -> bool:  # without the KeyError Mapping's own would raise and catch
        return name in self._slot

    def converted(self, values: dict) -> list:
        """``values`` as (array, value reference, C value) triples, every one converted before any is written:
        a value that does not fit (a huge integer) raises here and the table is unchanged."""
        out = []
        for name, value in values.items():
            vr, kind = self._slot[name]
            if kind == "real":
                out.append((self.reals, vr, float(value)))
            else:
                out.append((self.integers, vr, int(np.int64(int(value)))))
        return out

    @staticmethod
    def write(converted: list) -> None:
        """What :meth:`converted` returned into the table."""
        for array, vr, x in converted:
            array[vr] = x

    def assign(self, values: dict) -> None:
        """Every value of ``values`` into the table, or (a value that does not fit) none."""
        self.write(self.converted(values))

    def kernel_slots(self) -> tuple:
        """Where a step in C (fmi/kernel_steps.py) finds the inputs and puts the outputs of :attr:`output_names`:
        ``(input slots, [(real slot, position)], [(integer slot, position)], time slot or None)``."""
        real_vrs, real_at, int_vrs, int_at = self._publish_index
        time = self._slot.get("time")
        return (self._input_vrs.tolist(), list(zip(real_vrs.tolist(), real_at.tolist())),
                list(zip(int_vrs.tolist(), int_at.tolist())), time[0] if time is not None else None)

    def inputs(self) -> np.ndarray:
        """The inputs as a new float64 vector (the model's input order)."""
        return self.reals.take(self._input_vrs)

    def compute_outputs(self, sim) -> np.ndarray:
        """The outputs of ``sim`` (a CoSimulation) at its current point as one float64 vector in
        :attr:`output_names`' order (integers and booleans as their float values), not yet published."""
        sim.write_outputs(self.output_names, self._outputs)
        return self._outputs

    def publish(self) -> None:
        """The vector of the last :meth:`compute_outputs` into the outputs' slots: the Real ones into the doubles,
        the others (whole numbers, booleans 0 or 1) into the int64s."""
        real_vrs, real_at, int_vrs, int_at = self._publish_index
        self.reals[real_vrs] = self._outputs[real_at]
        if len(int_vrs):
            self.integers[int_vrs] = self._outputs[int_at]
