"""The standalone reference solver that validates the FMUs: :func:`simulate_reference` runs a model (the
:mod:`.cosimulation` contract) on a communication grid with ``scipy.integrate.solve_ivp`` at tight tolerances, the
inputs held over each interval as a co-simulation master holds them, state events located by the solver. The FMUs
carry it (the package's ``__init__`` names it) but never run it; the demo, the runners and the tests do."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .cosimulation import EVENT_TIME_TOLERANCE
from .integrators import StepFailure

__all__ = ["simulate_reference", "IMPLICIT_METHODS"]


IMPLICIT_METHODS = ("Radau", "BDF", "LSODA")  # solve_ivp's methods that take a Jacobian


def simulate_reference(model, x0: np.ndarray, times: np.ndarray, inputs_at: Callable[[float], np.ndarray],
                       rtol: float = 1e-10, atol: float = 1e-10, method: str = "DOP853",
                       on_step: Callable[[float], None] | None = None) -> dict:
    """Standalone solution on the grid ``times`` with inputs sampled at each grid point and held until
    the next one (exactly what a co-simulation master feeds an FMU). Returns ``{name: array}`` with
    the outputs at every grid point, computed with the inputs of the step that ends there. An implicit
    ``method`` (``IMPLICIT_METHODS``, e.g. ``"Radau"`` for a stiff model) gets the model's ``jacobian(t, x, inputs)``
    when it has one (the kernel's), else differences its own."""
    # Imported here, not at module level: scipy.integrate (through scipy._lib._uarray) makes a native host that
    # embeds Python crash at exit (docs/validation.md, "Hosts and co-simulation engines"); this module must stay
    # harmless to import.
    from scipy.integrate import solve_ivp

    times = np.asarray(times, dtype=float)
    x = np.array(x0, dtype=float)
    rows = []
    impose = getattr(model, "impose_inputs", lambda x, u: x)
    # step integrals (a step-mean wrench's quadrature states) restart at every grid point, as a co-simulation step does
    restart = getattr(model, "restart_step_integrals", lambda x: x)
    u_in = np.asarray(inputs_at(times[0]), dtype=float)
    x = impose(x, u_in)
    _, aux = model.derivative(times[0], x, u_in)
    rows.append(model.outputs(times[0], x, u_in, aux))
    for t0, t1 in zip(times[:-1], times[1:]):
        u_in = np.asarray(inputs_at(t0), dtype=float)
        x = restart(impose(x, u_in))
        x = _reference_interval(solve_ivp, model, x, t0, t1, u_in, rtol, atol, method)
        model.check_state(x)
        _, aux = model.derivative(t1, x, u_in)
        rows.append(model.outputs(t1, x, u_in, aux))
        if on_step:  # progress bars
            on_step(t1)
    out = {"time": times}
    for name in rows[0]:
        out[name] = np.array([r[name] for r in rows])
    return out


def _reference_interval(solve_ivp, model, x: np.ndarray, t0: float, t1: float, u_in: np.ndarray, rtol: float,
                        atol: float, method: str) -> np.ndarray:
    """``x(t1)`` from ``x(t0)`` by ``solve_ivp``; with the model's state events (``event_indicators``) as
    terminal events located by the solver, restarting after each one just past it: a stretch integrated without
    events (``EVENT_TIME_TOLERANCE``, ten times longer up to 1e-6 s until the indicators' signs have changed), and
    the indicators held at their restart signs for ``EVENT_TIME_TOLERANCE`` more, so that the solver's root search
    never starts on a value within rounding of zero (scipy's brentq then finds no sign change and fails)."""
    def rhs(t, y):
        try:
            return model.derivative(t, y, u_in)[0]
        except (ValueError, ArithmeticError):  # a trial stage left the model's domain: NaN makes the solver
            return np.full(y.size, np.nan)     # reject the step and retry a shorter one, as the FMU's steppers do

    jac = None
    if method in IMPLICIT_METHODS and getattr(model, "jacobian", None) is not None:
        def jac(t, y):
            J = model.jacobian(t, y, u_in)
            return J if J is not None else _difference_jacobian(rhs, t, y)

    indicators = getattr(model, "event_indicators", None)
    t = t0
    while t1 - t > 0.0:
        events = None
        if indicators is not None:
            start_signs = np.sign(indicators(t, x, u_in))
            events = [_terminal(lambda tt, y, i=i, ts=t, s0=float(s0): s0 if tt - ts < EVENT_TIME_TOLERANCE
                                else indicators(tt, y, u_in)[i]) for i, s0 in enumerate(start_signs)]
        options = {"jac": jac} if jac is not None else {}
        with np.errstate(invalid="ignore"):  # the NaN stages of a rejected step (rhs) are not worth a warning
            sol = solve_ivp(rhs, (t, t1), x, method=method, rtol=rtol, atol=atol, first_step=min(t1 - t, 1e-3),
                            events=events, **options)
        if not sol.success:
            raise StepFailure(f"reference solver failed at t = {t:.6g} s: {sol.message}")
        x, t = sol.y[:, -1], sol.t[-1]
        if sol.status == 1:  # an event: step past it without events
            before, nudge = start_signs, EVENT_TIME_TOLERANCE
            while True:
                t_past = min(t + nudge, t1)
                y = solve_ivp(rhs, (t, t_past), x, method=method, rtol=rtol, atol=atol, **options).y[:, -1]
                if t_past >= t1 or nudge >= 1e-6 or not np.array_equal(np.sign(indicators(t_past, y, u_in)), before):
                    break
                nudge *= 10.0
            x, t = y, t_past
    return x


def _difference_jacobian(rhs, t: float, y: np.ndarray) -> np.ndarray:
    from .rosenbrock import forward_difference_jacobian

    return forward_difference_jacobian(lambda tt, yy: (rhs(tt, yy), None), t, y, rhs(t, y))


def _terminal(fun):
    fun.terminal = True
    return fun
