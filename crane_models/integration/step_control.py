"""What every FMU stepper shares (:mod:`.integrators`, :mod:`.rosenbrock`): its failures, the budget of
internal steps, the rounding of communication times, and the error norm."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

__all__ = ["StepFailure", "StepBudgetExceeded", "StepCancelled"]


class StepFailure(RuntimeError):
    """The integrator could not advance (step size underflow or a non-finite state)."""


class StepBudgetExceeded(StepFailure):
    """The integrator used up its budget of internal steps (``step_budget``) before reaching the end."""


class StepCancelled(StepFailure):
    """The caller cancelled the step (``stepper.cancel_flag`` set, e.g. from another thread) between two
    internal steps."""


def _spend_step(stepper, t: float) -> None:
    """Count one trial step against ``stepper.step_budget`` (None: unbounded), and end the step when its
    ``cancel_flag`` (a ``ctypes.c_int``, or None) is set. Why a budget: a step size that cannot advance ``t``
    (``t + h == t``), a huge communication step or a model driven far outside its design would otherwise keep
    ``doStep`` busy for hours; with it, the call ends with a message."""
    flag = stepper.cancel_flag
    if flag is not None and flag.value:
        raise StepCancelled(f"the step was cancelled at t = {t:.9g} s")
    if stepper.step_budget is not None:
        if stepper.step_budget <= 0:
            raise StepBudgetExceeded(f"the budget of internal steps ran out at t = {t:.9g} s")
        stepper.step_budget -= 1


def _rounding(t: float) -> float:
    """Times closer than this are the same communication point: a master that accumulates its steps
    (``0.09 + 0.01 = 0.09999999999999999``) is off by a few ulp per step, ~1e-13 after 1e3 steps."""
    return 1e-12 * max(1.0, abs(t))


def _error_part(controlled: Optional[int], *arrays: np.ndarray) -> tuple:
    """The leading ``controlled`` states of each array (all when None): the ones the error control watches.
    Trailing quadrature states that feed nothing back (a model's step integrals) are carried at the steps the
    others need; watching them would only shorten the steps to resolve an integrand's fast transients."""
    return arrays if controlled is None else tuple(a[:controlled] for a in arrays)


def _rms(e: np.ndarray) -> float:
    return math.sqrt(float(e @ e) / e.size)  # RMS norm, as scipy's solvers


def _new_stats() -> dict:
    return {"evaluations": 0, "accepted": 0, "rejected": 0, "jacobians": 0, "jacobian_evaluations": 0}
