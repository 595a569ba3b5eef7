"""Running a model: the co-simulation stepper behind every FMU (the reference solver is :mod:`.reference`).

A *model* here is any object with

* ``input_names``, ``state_size``;
* ``derivative(t, x, inputs) -> (ẋ, aux)`` -- ``aux`` carries what the outputs need at that point;
* ``outputs(t, x, inputs, aux) -> dict`` of output name to float;
* optionally ``write_outputs(t, x, inputs, aux, names, out)``: the outputs ``names`` into the float64 array ``out``
  (the compiled models: one kernel call with an index map made once per ``names``, ``core.native.outputs``);
* ``check_state(x)`` raising ``ValueError`` when the state left the model's validity;
* ``state_size`` may be 0: a model whose outputs are functions of time alone (the WaveVessel) is stepped without
  its stepper, each step one evaluation at the step's end, and any step is within reach;
* optionally ``update_inputs(x, aux, old_inputs, new_inputs) -> (ẋ, aux)``, a cheap exact update of
  the last evaluation when only the inputs changed;
* optionally ``impose_inputs(x, inputs) -> x``: the state with the part the inputs prescribe put in place
  (the position and velocity of a moving base at a communication point), applied when the inputs change
  and at the start of every step; inside a step that part evolves with the model;
* optionally ``event_indicators(t, x, inputs) -> array``: functions of the state whose sign changes are
  state events (a wire going taut or slack); a step never crosses one: the crossing is located by regula falsi
  (Illinois; re-integrating from the step's start) to ``EVENT_TIME_TOLERANCE`` and the integration restarts just past it;
  ``event_check_interval`` (seconds, optional) bounds how far the stepper runs between sign checks, so that
  two crossings in one check (a short taut phase) are not missed;
* optionally ``compiled(t, inputs) -> (core.native.NativeIntegration, kernel inputs) | None``: the whole
  right-hand side in the compiled kernel, valid from ``t`` up to the next switching time; an explicit
  stepper, and the Rosenbrock-W stepper with the kernel's Jacobian, then run their steps in the kernel too
  (same tableau, step-size control and Jacobian policy; ``integration.can_advance(stepper)``). When that integration
  has ``advance_to_event`` (``core.native.NativePayload``) it checks the event indicators after each of its
  steps, with steps no longer than the model's check interval, and stops before a step that changes a sign:
  the crossing is then located inside that step as above, and a communication step without a switch is one
  kernel call.

The optional hooks other than ``compiled`` are looked up once, when the :class:`CoSimulation` is made (a wrapper's
``__getattr__`` made each failed look-up cost more than a step's other bookkeeping). :class:`CoSimulation` is what
``doStep`` calls; :func:`.reference.simulate_reference` is the standalone solver (``scipy.integrate.solve_ivp``,
tight tolerances) used to validate the FMUs.
"""
from __future__ import annotations

import ctypes
import math
from typing import Optional

import numpy as np

from .integrators import StepBudgetExceeded, StepCancelled, StepFailure, _rounding, make_stepper
from .state_checks import cosimulation_state_problem

__all__ = ["CoSimulation", "StepFailure", "StepCancelled", "EVENT_TIME_TOLERANCE"]

# A located state event lies within this many seconds before the restart point: far below any time scale the
# models resolve (the fastest, a wire's axial mode, has periods of milliseconds).
EVENT_TIME_TOLERANCE = 1e-9


def _crossing_estimate(lo: float, g_lo: np.ndarray, hi: float, g_hi: np.ndarray, signs: np.ndarray) -> float:
    """The earliest zero in ``(lo, hi)`` of the indicators that changed sign, by linear interpolation of their
    values at the two ends, kept a quarter of the tolerance inside the bracket so that it always shrinks."""
    changed = (g_hi > 0.0) != signs
    share = np.min(g_lo[changed] / (g_lo[changed] - g_hi[changed])) if changed.any() else 0.5
    guard = 0.25 * EVENT_TIME_TOLERANCE
    return min(max(lo + float(share) * (hi - lo), lo + guard), hi - guard)


class CoSimulation:
    """State, inputs and integrator of one model instance, advanced one communication step at a time.

    ``stepper``: ``"rk23"`` (explicit Bogacki-Shampine 3(2), default) or ``"rosenbrock"`` (linearly
    implicit ROS34PW2 for stiff models, :class:`rosenbrock.RosenbrockW`); ``max_step`` bounds the
    internal step of either (for the explicit one it is where a model puts its stability limit);
    ``max_internal_steps`` bounds the trial steps of one :meth:`step` (None: no bound), so that no
    communication step can keep its caller busy without end. :meth:`cancel`, from another thread, ends a
    running :meth:`step` between two internal steps (:class:`StepCancelled`, the state left at its start)."""

    def __init__(self, model, x0: np.ndarray, t0: float = 0.0, max_step: float = 0.01,
                 rtol: float = 1e-5, atol: float = 1e-9, inputs: Optional[np.ndarray] = None,
                 stepper: str = "rk23", max_internal_steps: Optional[int] = None):
        self.model = model
        self.t = float(t0)
        self.x = np.array(x0, dtype=float)
        self.inputs = np.zeros(len(model.input_names)) if inputs is None else np.array(inputs, dtype=float)
        self.stepper = make_stepper(stepper, rtol=rtol, atol=atol, max_step=max_step)
        self.stepper.controlled = getattr(model, "controlled_states", None)  # None: every state
        # Read by the stepper before every internal step, in Python or in the kernel (which gets its address):
        # a plain int in C memory, so that a thread that does not hold the GIL may set it too.
        self._cancel = ctypes.c_int(0)
        self.stepper.cancel_flag = self._cancel
        self.max_internal_steps = None if max_internal_steps is None else int(max_internal_steps)
        self._impose = getattr(model, "impose_inputs", None)
        # The optional hooks a step asks for, looked up once (see the module's docstring); not ``compiled``.
        self._restart = getattr(model, "restart_step_integrals", None)
        self._has_switch_times = hasattr(model, "switch_times")
        self._has_events = hasattr(model, "event_indicators")
        self._update = getattr(model, "update_inputs", None)
        if self._impose is not None:
            self.x = self._impose(self.x, self.inputs)
        model.check_state(self.x)
        self._k = self._aux = None  # derivative and aux at (t, x) for the current inputs

    def set_inputs(self, inputs: np.ndarray) -> None:
        inputs = np.asarray(inputs, dtype=float)
        if inputs.shape != self.inputs.shape or inputs.tolist() != self.inputs.tolist():  # np.array_equal, cheaper
            # Updated incrementally only from a finite derivative: one from an overflowed input (1e308 N m) would
            # stay poisoned (inf - inf) after the input is put back; it is evaluated afresh instead (k·k is finite
            # only when every k is, and beyond 1e154 an evaluation afresh is as right).
            if self._aux is not None and self._update is not None and math.isfinite(self._k @ self._k):
                self._k, self._aux = self._update(self.x, self._aux, self.inputs, inputs)
            else:
                self._k = self._aux = None
            self.inputs = inputs.copy()
            self._impose_inputs()

    def _impose_inputs(self) -> None:
        """Put the input-prescribed part of the state in place (a moving base); a change drops the cache."""
        if self._impose is not None:
            x = self._impose(self.x, self.inputs)
            if x is not self.x and not np.array_equal(x, self.x):  # a model may return the state itself: nothing to do
                self.x, self._k, self._aux = x, None, None

    def _restart_step_integrals(self) -> None:
        """Quadrature states that measure one communication step (a model's step-mean outputs) start each
        step at zero; a change drops the cache."""
        if self._restart is not None:
            x = self._restart(self.x)
            if x is not self.x:
                self.x, self._k, self._aux = x, None, None

    def _f(self, t: float, x: np.ndarray):
        return self.model.derivative(t, x, self.inputs)

    def _current(self):
        if self._k is None:
            self._k, self._aux = self._f(self.t, self.x)
        return self._k, self._aux

    def cancel(self) -> None:
        """End the :meth:`step` running in another thread before its next internal step: it raises
        :class:`StepCancelled` and leaves the state at the step's start. A cancel applies to the step in
        progress only (each step starts uncancelled)."""
        self._cancel.value = 1

    @property
    def cancel_flag_address(self) -> int:
        """Address of the C ``int`` that :meth:`cancel` sets: a native caller (the FMI runtime's
        ``fmi2CancelStep``) may write 1 there from any thread, without the GIL."""
        return ctypes.addressof(self._cancel)

    @property
    def reach(self) -> float:
        """The longest communication step :meth:`step` can reach within its budget: ``max_internal_steps`` trial
        steps of at most the stepper's ``max_step`` (inf without either bound). A longer step cannot end before
        the budget runs out however smooth the model: ``doStep(t, 1e308)`` with the budget at 2^31 - 1 ran for
        hours until it was spent; the FMU refuses such a step before any work (fmi/adapter.py)."""
        if self.x.size == 0:  # nothing to integrate: any step is one evaluation
            return math.inf
        budget = math.inf if self.max_internal_steps is None else self.max_internal_steps
        return budget * float(self.stepper.max_step)

    def unreachable(self, dt: float) -> str:
        """Why a step ``dt`` longer than :attr:`reach` is refused, naming the budget."""
        return (f"communication step size = {dt!r} s cannot be reached within the step budget (max_internal_steps = "
                f"{self.max_internal_steps} internal steps of at most max_step = {self.stepper.max_step!r} s: "
                f"{self.reach!r} s); shorten the step or raise max_internal_steps")

    def step(self, dt: float) -> None:
        """Advance by ``dt`` with the inputs held constant; on failure the state is left unchanged and the cached
        derivative dropped: it may come from the inputs that made the step fail (1e308 N m), and an incremental
        update from it (:meth:`set_inputs`) would carry their rounding back (1e308 - 1e308 (1 - 1e-16))."""
        self._cancel.value = 0
        self.stepper.step_budget = self.max_internal_steps
        x = self.x  # the state at the step's start, before its hooks (a moving base imposed, step integrals restarted)
        try:
            self._step(dt)
        except StepBudgetExceeded as exc:
            self.x, self._k, self._aux = x, None, None
            raise StepBudgetExceeded(
                f"more than max_internal_steps = {self.max_internal_steps} internal steps would be needed for "
                f"this communication step ({exc}); raise max_internal_steps or shorten the step") from None
        except Exception:
            self.x, self._k, self._aux = x, None, None
            raise
        finally:
            self.stepper.step_budget = None

    def _step(self, dt: float) -> None:
        self._impose_inputs()
        self._restart_step_integrals()
        k, aux = self._current()
        t, x = self.t, self.x
        t_end = t + dt
        # The model's switching times (the end of a torque pulse) are met, not searched for by error control:
        # * a start within rounding before a switch (0.09 + 0.01 = 0.09999999999999999 for a pulse that ends
        #   at 0.1) starts at the switch, from the value after it (and so does an implicit stepper's Jacobian);
        # * a switch inside the step: integrate to four ulp before it (the last stage of a step sits at its
        #   end and must still see the left value; four ulp of time are below anything a model resolves) and
        #   restart from the value after it; a switch within rounding of t_end ends the step there.
        for ts in (self.model.switch_times if self._has_switch_times else ()):
            if t < ts <= t + _rounding(t):  # a start rounded just before a switch: start at it, after it
                t = ts
                k, aux = self._f(ts, x)
                continue
            near_end = abs(ts - t_end) <= _rounding(t_end)
            if t + _rounding(t) < ts and (near_end or ts < t_end):
                x, _, _ = self._advance(t, x, ts - 4.0 * math.ulp(ts), k, aux)
                t = t_end if near_end else ts
                k, aux = self._f(max(ts, t), x)  # the value after the switch
        if t_end - t > _rounding(t_end):
            x, k, aux = self._advance(t, x, t_end, k, aux)
        self.model.check_state(x)
        self.t, self.x, self._k, self._aux = t_end, x, k, aux

    def _advance(self, t: float, x: np.ndarray, t_end: float, k: np.ndarray, aux) -> tuple:
        """The stepper from ``t`` to ``t_end`` (no switching time in between), stopping at the model's state
        events (:meth:`_advance_to_events`)."""
        if not self._has_events:
            return self._integrate(t, x, t_end, k, aux)
        return self._advance_to_events(t, x, t_end, k, aux)

    def _indicators(self, t: float, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.event_indicators(t, x, self.inputs), dtype=float)

    def _signs(self, t: float, x: np.ndarray) -> np.ndarray:
        return self._indicators(t, x) > 0.0

    def _advance_to_events(self, t: float, x: np.ndarray, t_end: float, k: np.ndarray, aux) -> tuple:
        """Integrate in checks of at most ``event_check_interval``; where an indicator changed sign, narrow the
        check down to ``EVENT_TIME_TOLERANCE`` (re-integrating from its start, the stepper's step size restored)
        and continue from the point just past the crossing, with the derivative there. The narrowing is the
        Illinois variant of regula falsi on the indicators (continuous in the state): ~5-8 re-integrations per
        event where bisection took ~22 (:func:`_crossing_estimate`)."""
        interval = float(getattr(self.model, "event_check_interval", math.inf))
        while t_end - t > _rounding(t_end):
            signs = self._signs(t, x)
            checking = self._checking_integration(t)
            if checking is not None:  # the kernel checks after each of its steps and stops before a crossing
                t, t1, x, k, aux = checking[0].advance_to_event(self.stepper, t, x, t_end, k, aux, checking[1],
                                                                signs)
                if t1 is None:
                    break
                t1 = min(t1, t_end)
            else:
                t1 = t_end if t + interval >= t_end - _rounding(t_end) else t + interval
            h0 = self.stepper.get_state()
            x1, k1, aux1 = self._integrate(t, x, t1, k, aux)
            if np.array_equal(self._signs(t1, x1), signs):
                t, x, k, aux = t1, x1, k1, aux1
                continue
            lo, g_lo, g_hi, kept = t, self._indicators(t, x), self._indicators(t1, x1), 0
            estimates = 0
            while t1 - lo > EVENT_TIME_TOLERANCE:
                # An indicator that stays at zero past the crossing (a winch at its limit) stalls regula falsi:
                # after as many estimates as bisection needs from 10 ms, bisect (at most about twice its count).
                stalled = estimates >= 24
                estimates += 1
                mid = 0.5 * (lo + t1) if stalled else _crossing_estimate(lo, g_lo, t1, g_hi, signs)
                self.stepper.set_state(h0)
                xm, km, auxm = self._integrate(lo, x, mid, k, aux)
                g_mid = self._indicators(mid, xm)
                if np.array_equal(g_mid > 0.0, signs):
                    lo, x, k, aux, g_lo = mid, xm, km, auxm, g_mid  # no crossing before mid: continue from there
                    h0 = self.stepper.get_state()
                    kept = kept + 1 if kept > 0 else 1
                    if kept > 1:  # Illinois: the far end stayed twice, halve its values so it moves next
                        g_hi = 0.5 * g_hi
                else:
                    t1, x1, k1, aux1, g_hi = mid, xm, km, auxm, g_mid
                    kept = kept - 1 if kept < 0 else -1
                    if kept < -1:
                        g_lo = 0.5 * g_lo
            t, x = t1, x1
            k, aux = self._f(t, x)  # the value past the crossing
        return x, k, aux

    def _checking_integration(self, t: float):
        """``(integration, inputs)`` of a compiled right-hand side that checks the event indicators itself
        (``advance_to_event``: stepping stops before a step that changes a sign), or None."""
        if not hasattr(self.stepper, "tableau") or not hasattr(self.model, "compiled"):
            return None
        compiled = self.model.compiled(t, self.inputs)
        return compiled if compiled is not None and hasattr(compiled[0], "advance_to_event") else None

    def _integrate(self, t: float, x: np.ndarray, t_end: float, k: np.ndarray, aux) -> tuple:
        """The stepper from ``t`` to ``t_end``: in the kernel when the model has a compiled right-hand side
        and the stepper a tableau, else in Python; a model without state (its outputs functions of time alone: the
        WaveVessel) has nothing to integrate, only its evaluation at ``t_end``."""
        if x.size == 0:
            return (x,) + tuple(self._f(t_end, x))
        compiled = self.model.compiled(t, self.inputs) if hasattr(self.model, "compiled") else None
        if compiled is not None and compiled[0].can_advance(self.stepper):
            integration, inputs = compiled
            return integration.advance(self.stepper, t, x, t_end, k, aux, inputs)
        return self.stepper.advance(self._f, t, x, t_end, k, aux)

    def step_hooks(self) -> dict:
        """Which optional hooks of the model a step runs (the module's docstring), True for each it has: ``impose``,
        ``restart`` (step integrals), ``switch_times``, ``events``, ``update`` (an exact input update)."""
        return {"impose": self._impose is not None, "restart": self._restart is not None,
                "switch_times": self._has_switch_times, "events": self._has_events, "update": self._update is not None}

    def point(self) -> tuple:
        """``(t, x, k, aux, inputs)``: the point reached, the derivative and aux cached there (None: not evaluated
        yet) and the inputs in force -- for a caller that steps the model elsewhere (fmi/kernel_steps.py)."""
        return self.t, self.x, self._k, self._aux, self.inputs

    def take_point(self, t: float, x: np.ndarray, k: np.ndarray, aux, inputs: np.ndarray) -> None:
        """The point such a caller reached, with the evaluation there, as :meth:`step` would have left it."""
        self.t, self.x, self._k, self._aux, self.inputs = t, x, k, aux, inputs

    def get_state(self) -> tuple:
        """Everything a bit-identical replay needs: time, state, inputs, the stepper's carried data
        (step size, and the Jacobian of the implicit stepper) and the cached derivative at ``t`` -- None when
        it is not finite (an overflowed input): the next step evaluates it afresh, as it would here."""
        k, aux = self._k, self._aux
        if k is not None and not np.isfinite(k).all():
            k = aux = None
        return (self.t, self.x.copy(), self.inputs.copy(), self.stepper.get_state(), k, aux)

    def set_state(self, state: tuple) -> None:
        """Restore a :meth:`get_state`; a state from outside passes :meth:`state_problem` first."""
        t, x, inputs, stepper, self._k, self._aux = state
        self.t, self.x, self.inputs = t, x.copy(), inputs.copy()
        self.stepper.set_state(stepper)

    def state_problem(self, state) -> Optional[str]:
        """None when ``state`` (a :meth:`get_state` of this model with the same parameters) fits what this
        simulation allocates, else one line naming the first field that does not (:func:`cosimulation_state_problem`)."""
        return cosimulation_state_problem(state, self.model, self.x.shape, self.inputs.shape, self.stepper)

    def outputs(self) -> dict:
        _, aux = self._current()
        return self.model.outputs(self.t, self.x, self.inputs, aux)

    def write_outputs(self, names: tuple, out: np.ndarray) -> None:
        """The outputs named ``names`` at the current point into ``out`` (float64, one per name, in that order;
        integer and boolean outputs as their float values): what the FMI adapter publishes into the value table
        the runtime owns (issue 23). A model with a compiled path may offer ``write_outputs(t, x, inputs, aux,
        names, out)`` (same contract, no dict); otherwise the outputs come from :meth:`outputs`."""
        _, aux = self._current()
        writer = getattr(self.model, "write_outputs", None)
        if writer is not None:
            writer(self.t, self.x, self.inputs, aux, names, out)
            return
        values = self.model.outputs(self.t, self.x, self.inputs, aux)
        out[:] = [values[name] for name in names]
