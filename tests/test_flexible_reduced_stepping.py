"""The fixed-step stiff stepper (integration/rosenbrock.py FixedStepRosenbrockW, the kernel's fixed_steps in
rosenbrock.c) that the FlexibleCrane's ``fixed_step`` selects: its stability function against the exponential
(order 3, L-stable), its numerical damping of an undamped oscillator against that function, the same work every
communication step, and the kernel against the Python stepper."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.rosenbrock import FixedStepRosenbrockW, amplification
from crane_models.models.flexible_crane.spec import build_model


def test_stability_function_is_third_order_and_l_stable():
    """|R(z) - e^z| = O(z^4) (order 3: the ratio to |z|^4 stays bounded as z shrinks, halving z divides the error
    by about 16) and R(z) -> 0 as z -> -inf or i inf (L-stability)."""
    errs = [abs(amplification(z) - np.exp(z)) for z in (0.08j, 0.04j, -0.04, -0.02)]
    assert errs[0] / errs[1] == pytest.approx(16.0, rel=0.1)
    assert errs[2] / errs[3] == pytest.approx(16.0, rel=0.1)
    assert abs(amplification(-1e9)) < 1e-6 and abs(amplification(1e9j)) < 1e-6


@pytest.mark.parametrize("omega_h", [0.5, 1.0, 3.0])
def test_numerical_damping_of_an_undamped_oscillator_is_the_stated_one(omega_h):
    """y'' = -w^2 y stepped at h = omega_h / w for 50 steps: the amplitude (energy norm) falls as |R(i w h)|^50, the
    docstring's damping per step, within 1e-6 (the Jacobian by forward differences is exact to ~1e-8 here)."""
    w, steps = 10.0, 50
    h = omega_h / w

    def f(t, y):
        return np.array([y[1], -w * w * y[0]]), None

    st = FixedStepRosenbrockW(max_step=h)
    y = np.array([1.0, 0.0])
    y, k, _ = st.advance(f, 0.0, y, steps * h, f(0.0, y)[0])
    amplitude = math.hypot(y[0], y[1] / w)
    assert amplitude == pytest.approx(abs(amplification(1j * omega_h)) ** steps, rel=1e-6)
    assert st.stats["accepted"] == steps and st.stats["rejected"] == 0


def test_fixed_step_costs_the_same_every_communication_step():
    """The reduced 16-element crane at a fixed step of 2.5 ms: after the first communication step (which computes
    the whole Jacobian), every 10 ms step takes 4 steps of 4 evaluations (3 stages, the end) plus
    ceil(size h / 0.1 s) Jacobian columns each -- the same count every step, also across the end of the torque pulse
    at 0.1 s."""
    model, x0, opts = build_model({"n_rfe": 16, "link_modes": 4, "link_damping_ratio": 0.02, "fixed_step": 0.0025})
    assert opts["stepper"] == "rosenbrock_fixed"
    sim = CoSimulation(model, x0, **opts)
    size = x0.size
    counts = []
    for _ in range(20):
        before = sim.stepper.stats["evaluations"]
        sim.step(0.01)
        counts.append(sim.stepper.stats["evaluations"] - before)
    per_step = 4 * (4 + math.ceil(size * 0.0025 / 0.1))
    assert counts[0] == per_step + size - math.ceil(size * 0.0025 / 0.1)
    assert counts[1:] == [per_step] * 19


def test_kernel_fixed_steps_follow_the_python_stepper():
    """The kernel's fixed steps against FixedStepRosenbrockW in Python over 0.05 s of the reduced crane: the same
    steps and Jacobian slices. Without friction (the kernel's bristle rows are analytic, at a joint at rest on the
    branch sgn 0 = 0, where Python's forward differences take one side) the Jacobians differ by the differences'
    rounding alone (~1e-8 relative, in the q' = u rows), which the stiffest kept mode amplifies by up to h w ~ 60
    (2.4e4 rad/s at 2.5 ms): within 1e-6 of each state's size (at least 1e-3; measured 2.8e-7), far below the
    method's own error."""
    values = {"n_rfe": 16, "link_modes": 4, "link_damping_ratio": 0.02, "fixed_step": 0.0025, "friction_model": 0}
    model, x0, opts = build_model(values)
    kernel = CoSimulation(model, x0, **opts)
    model2, _, _ = build_model(values)
    model2.compiled = lambda t, inputs: None  # the Python stepper on the model's (kernel) derivative
    python = CoSimulation(model2, x0, **opts)
    for _ in range(5):
        kernel.step(0.01)
        python.step(0.01)
    scale = np.maximum(np.abs(kernel.x), 1e-3)
    assert np.max(np.abs(kernel.x - python.x) / scale) < 1e-6
    assert kernel.stepper.next_column == python.stepper.next_column
