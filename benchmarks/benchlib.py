"""Shared pieces of the benchmark scripts: timing a call, the model's costs with and without the compiled
kernel, and the printed table. Figures are wall-clock on a shared machine: compare ratios from one run."""
from __future__ import annotations

import time


def per_call(fn, repeat: int = 2000) -> float:
    """Mean wall time of ``fn()`` in seconds."""
    fn()
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def without_kernel(model) -> None:
    """Make ``model`` use the numpy implementation of the core: its multibody systems (found up to two
    attributes deep, e.g. ``model.crane.system``) drop the kernel; kinematics from numpy carry no kernel
    record, so reactions and constraint forces fall back with them."""
    from crane_models.core.kane import MultibodySystem

    for obj in [model, *vars(model).values()]:
        for sub in [obj, *getattr(obj, "__dict__", {}).values()]:
            if isinstance(sub, MultibodySystem):
                sub.native = None


def model_costs(make_model, x, inputs) -> dict:
    """Seconds per derivative and per output evaluation, with the compiled kernel and with numpy."""
    out = {}
    for label in ("kernel", "numpy"):
        model = make_model()
        if label == "numpy":
            without_kernel(model)
        _, aux = model.derivative(0.0, x, inputs)
        out[label] = (per_call(lambda: model.derivative(0.0, x, inputs)),
                      per_call(lambda: model.outputs(0.0, x, inputs, aux)))
    return out


def print_costs(costs: dict, outputs_what: str) -> None:
    k, n = costs["kernel"], costs["numpy"]
    print(f"\none model evaluation: {k[0] * 1e6:.0f} us with the compiled kernel, {n[0] * 1e6:.0f} us with numpy "
          f"(x{n[0] / k[0]:.1f}); {outputs_what}: {k[1] * 1e6:.0f} us / {n[1] * 1e6:.0f} us (x{n[1] / k[1]:.1f})")


def print_table(rows: list, width: int = 54) -> None:
    """Rows of ``(what, communication step, real-time factor or text)``."""
    print(f"{'what':<{width}} {'comm. step':>10} {'real-time factor':>18}")
    for what, step, rtf in rows:
        print(f"{what:<{width}} {step:>10} {rtf if isinstance(rtf, str) else f'{rtf:.1f}':>18}")
