"""State events in the co-simulation stepper (integration/cosimulation.py): a step never crosses an indicator's
sign change; the crossing is narrowed by the Illinois variant of regula falsi to EVENT_TIME_TOLERANCE, with
bisection after as many estimates as bisection would have needed.

The models: y' = v while the indicator ``1 - y`` is positive, v = 0.7, so the crossing time is 1/v exactly;
past it y' = 2v (``Kink``: the indicator goes on falling, as a wire's does) or y' = 0 (``Stop``: the indicator
stays at zero, the case that stalls plain regula falsi). Both speeds are constant, so the state at the end of
the step is exact given the crossing time: its error is the located time's error times v.
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.integration.cosimulation import EVENT_TIME_TOLERANCE, CoSimulation

SPEED = 0.7


class Kink:
    input_names: list = []
    state_size = 1
    after = 2.0 * SPEED

    def derivative(self, t, x, inputs):
        return np.array([SPEED if x[0] < 1.0 else self.after]), None

    def event_indicators(self, t, x, inputs):
        return np.array([1.0 - x[0], 2.0])  # a second indicator that never changes: ignored by the estimate

    def outputs(self, t, x, inputs, aux):
        return {"y": float(x[0])}

    def check_state(self, x):
        pass


class Stop(Kink):
    after = 0.0


@pytest.mark.parametrize("stepper", ["rk23", "dopri5"])
@pytest.mark.parametrize("model,most", [(Kink(), 12), (Stop(), 48)])
def test_a_state_event_is_located_to_the_tolerance_in_few_reintegrations(stepper, model, most):
    sim = CoSimulation(model, np.array([0.0]), rtol=1e-8, atol=1e-12, stepper=stepper, max_step=0.01)
    for _ in range(142):  # 1/0.7 = 1.4286 s: the crossing lies inside the 143rd 10 ms step
        sim.step(0.01)
    integrations = []
    integrate = sim._integrate
    sim._integrate = lambda t, x, t_end, k, aux: integrations.append(t_end) or integrate(t, x, t_end, k, aux)
    sim.step(0.01)
    exact = 1.0 + model.after * (1.43 - 1.0 / SPEED)
    # the located time within the tolerance (x v), plus the stepper's own error at rtol 1e-8
    assert abs(sim.x[0] - exact) <= SPEED * EVENT_TIME_TOLERANCE + 1e-8, sim.x[0] - exact
    # The step, the narrowing, then the rest of the step from just past the crossing. Bisection from 10 ms to
    # 1e-9 s takes 24 re-integrations; Illinois on the falling indicator 8 (rk23) and 10 (dopri5, whose
    # re-integrations across the kink are noisier); where the indicator stays at zero past the crossing
    # regula falsi stalls and bisection takes over after 24: measured 43-45, bounded by twice bisection's.
    narrowing = len(integrations) - 2
    assert 1 <= narrowing <= most, (narrowing, integrations)
