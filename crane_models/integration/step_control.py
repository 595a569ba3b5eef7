"""What every FMU stepper shares (:mod:`.integrators`, :mod:`.rosenbrock`): its failures, the budget of
internal steps, the rounding of communication times, and the error norm."""
from __future__ import annotations

import ctypes
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


_POLL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_double)


def _poll(poll: tuple, t: float) -> None:
    """Call the C poll function ``poll = (address, context)`` at time ``t`` (the GIL released meanwhile: the host's
    callback may be Python on another interpreter thread)."""
    address, context = poll
    _POLL(address)(context, t)


def _spend_step(stepper, t: float) -> None:
    """Count one trial step against ``stepper.step_budget`` (None: unbounded), and end the step when its
    ``cancel_flag`` (a ``ctypes.c_int``, or None) is set. Why a budget: a step size that cannot advance ``t``
    (``t + h == t``), a huge communication step or a model driven far outside its design would otherwise keep
    ``doStep`` busy for hours; with it, the call ends with a message. ``cancel_poll``, when set, is ``(function
    address, context)`` of a C ``void f(void *context, double t)`` called first: the host's chance to set the flag
    from this thread (FMI 3.0's intermediate update asking for an early return); the kernel calls it alike."""
    if stepper.cancel_poll is not None:
        _poll(stepper.cancel_poll, t)
    flag = stepper.cancel_flag
    if flag is not None and flag.value:
        raise StepCancelled(f"the step was cancelled at t = {t:.9g} s")
    if stepper.step_budget is not None:
        if stepper.step_budget <= 0:
            raise StepBudgetExceeded(f"the budget of internal steps ran out at t = {t:.9g} s")
        stepper.step_budget -= 1


# Times closer than TIME_ULPS units in the last place of t are the same instant (~3.6e-15 s at t = 10 s, 3.8e-6 s at
# t = 1.7e9 s, Unix time): the rounding of a master's clock (t0 + k h, a sum of steps, integer nanoseconds times
# 1e-9), each a few ulp off the FMU's t + h at a communication point (the FMU takes the master's time at every
# doStep, so the offsets do not accumulate), and of the switching times a model meets. The representable spacing,
# not a share of |t| (1e-12 |t| is 1.7 ms at 1.7e9 s: a 1 ms step would be empty); any step a master can express
# at t is ~1000 ulp or more, far above it.
TIME_ULPS = 16


def _rounding(t: float) -> float:
    """Times closer than this to ``t`` are ``t`` (:data:`TIME_ULPS` ulp of ``t``); the kernel's steppers use the
    same rule (``mbs_time_rounding``)."""
    return TIME_ULPS * math.ulp(t)


# A step that ends within this share of its length before the end of the interval ends there (stretched by at
# most a billionth): a stepper's own sum of steps drifts a few ulp a step (1000 steps of 1e-5 s end ~1e-16 s short of
# 0.01 s), and the remainder would otherwise cost a step of its own. The kernel's steppers: MBS_STEP_SLACK.
STEP_SLACK = 1e-9


def _reaches(t: float, h: float, t_end: float) -> bool:
    """Whether a step ``h`` from ``t`` reaches ``t_end``: to within the rounding of ``t_end`` (:func:`_rounding`) or
    :data:`STEP_SLACK` of the step -- the end-of-interval tolerance follows the step and the spacing at ``t_end``."""
    return t + h >= t_end - max(_rounding(t_end), STEP_SLACK * h)


def _error_part(controlled: Optional[int], *arrays: np.ndarray) -> tuple:
    """The leading ``controlled`` states of each array (all when None): the ones the error control watches.
    Trailing quadrature states that feed nothing back (a model's step integrals) are carried at the steps the
    others need; watching them would only shorten the steps to resolve an integrand's fast transients."""
    return arrays if controlled is None else tuple(a[:controlled] for a in arrays)


def _rms(e: np.ndarray) -> float:
    return math.sqrt(float(e @ e) / e.size)  # RMS norm, as scipy's solvers


def _new_stats() -> dict:
    return {"evaluations": 0, "accepted": 0, "rejected": 0, "jacobians": 0, "jacobian_evaluations": 0}
