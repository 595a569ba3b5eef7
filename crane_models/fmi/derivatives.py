"""``fmi2GetDirectionalDerivative`` of the crane FMUs: how the outputs change with the inputs at the current
state, ``dvUnknown = (∂y/∂u) dvKnown``, by a central difference of the outputs along the seed direction.

Why a difference and why it is accurate here: every output of these models is the state's function plus the
accelerations, and the inputs (set-points, forces and torques, base accelerations) enter the accelerations
linearly -- through the effort law and one linear solve -- so the outputs are affine in the inputs at a
fixed state and the central difference is exact up to rounding (relative ~1e-10 with the step below). The
exception is the FlexibleCrane's joint friction, where the normal-force magnitude |f_n| makes the outputs
piecewise smooth in the column torque: there the difference is a second-order approximation. The state,
cached derivative and inputs are restored bit for bit afterwards (a rollback still replays exactly).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["directional_derivative", "RELATIVE_STEP"]

RELATIVE_STEP = 1e-6  # of max(1, |inputs|): far above rounding (1e-16), far below any input's scale


def directional_derivative(adapter, unknowns, knowns, seed) -> list:
    """``(∂ outputs[unknowns] / ∂ inputs[knowns]) · seed`` for a :class:`fmi.adapter.SlaveAdapter`."""
    names, outputs, inputs = adapter._names, adapter._output_vrs, adapter._input_names
    bad = [vr for vr in unknowns if vr not in outputs] + [vr for vr in knowns if vr >= len(names)
                                                          or names[vr] not in inputs]
    if bad:
        return adapter.fail(f"fmi2GetDirectionalDerivative: value references {bad} are not outputs (unknowns) "
                            "or inputs (knowns) of this FMU; it offers the derivatives of outputs by inputs")
    if adapter.sim is None or adapter.error is not None:
        return adapter.fail("fmi2GetDirectionalDerivative: the FMU is not initialized")
    if not all(math.isfinite(float(s)) for s in seed):
        return adapter.fail(f"fmi2GetDirectionalDerivative: dvKnown = {list(seed)!r} must be finite")
    u0 = adapter._input_vector(adapter.fail)
    if u0 is None:
        return None
    direction = np.zeros(len(inputs))
    for vr, ds in zip(knowns, seed):
        direction[inputs.index(names[vr])] += float(ds)
    scale = float(np.max(np.abs(direction))) if direction.size else 0.0
    if scale == 0.0:
        return [0.0] * len(unknowns)
    h = RELATIVE_STEP * max(1.0, float(np.max(np.abs(u0)))) / scale
    sim = adapter.sim
    saved = sim.get_state()
    try:
        with np.errstate(all="ignore"):
            sim.set_inputs(u0 + h * direction)
            plus = sim.outputs()
            sim.set_inputs(u0 - h * direction)
            minus = sim.outputs()
    finally:
        sim.set_state(saved)
    return [(plus[names[vr]] - minus[names[vr]]) / (2.0 * h) for vr in unknowns]
