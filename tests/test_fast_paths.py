"""The hot path of the right-hand side against the paper's literal form.

``derivative`` forms τ from gravity in Frame 0 and efforts along joints; eq. (46) forms it from wrenches
``Σ Pᵀ Π W_e``. Both are exact, so they must agree to round-off (1e-9 relative: a few hundred flops on
numbers of size 1e6). ``update_inputs`` must equal a fresh evaluation with the new inputs.
"""
import numpy as np
import pytest

from crane_models.models.knuckle_boom.crane import KnuckleBoomModel

RNG = np.random.default_rng(7)
STATES = [np.concatenate((RNG.uniform([-3, 0.05, 0.05], [3, 1.65, 1.65]), RNG.normal(0, 0.3, 3))) for _ in range(5)]


@pytest.fixture(scope="module")
def model():
    return KnuckleBoomModel()


@pytest.mark.parametrize("x", STATES)
def test_gravity_and_joint_forces_equal_eq46(model, x):
    crane = model.crane
    kin = crane.system.kinematics(x[:3], x[3:])
    tau_g = crane.system.generalized_forces(kin, crane.system.gravity_wrenches(kin, crane.params.g))
    assert np.allclose(crane.system.gravity_forces(kin, crane.params.g), tau_g, rtol=1e-9, atol=1e-6)
    e = RNG.normal(0, 1e5, 3)
    tau_e = crane.system.generalized_forces(kin, crane.actuator_wrenches(e))
    assert np.allclose(crane.system.joint_forces(kin, crane.actuated, e), tau_e, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("x", STATES)
def test_derivative_equals_wrench_form(model, x):
    inputs = np.concatenate((RNG.normal(0, 1e4, 3), x[:3] + 0.1))
    xdot, aux = model.derivative(0.0, x, inputs)
    effort, _, _ = model.applied_efforts(aux)
    _, udot, _, _ = model.crane.evaluate(x[:3], x[3:], effort)
    assert np.allclose(xdot[3:], udot, rtol=1e-9, atol=1e-9)
    assert np.array_equal(xdot[:3], x[3:])


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("x", STATES[:3])
def test_input_update_equals_fresh_evaluation(x, enabled):
    model = KnuckleBoomModel(controller_enabled=enabled)
    old = np.concatenate((RNG.normal(0, 1e4, 3), x[:3]))
    new = old + np.concatenate((RNG.normal(0, 1e4, 3), RNG.normal(0, 0.1, 3)))
    _, aux = model.derivative(0.0, x, old)
    updated, aux_u = model.update_inputs(x, aux, old, new)
    fresh, aux_f = model.derivative(0.0, x, new)
    assert np.allclose(updated, fresh, rtol=1e-9, atol=1e-9)
    assert np.allclose(aux_u.efforts, aux_f.efforts, rtol=1e-12)


@pytest.mark.parametrize("x", STATES[:3])
def test_prescribed_speeds_reproduce_the_free_motion(model, x):
    """Prescribing q2 with exactly the acceleration the free system has must give the same u̇ for q1, q3,
    and the effort that realises it must be zero (nothing extra is needed to move that way)."""
    sys = model.crane.system
    kin = sys.kinematics(x[:3], x[3:])
    tau = sys.gravity_forces(kin, 9.81) + RNG.normal(0, 1e4, 3)
    free, M, C = sys.accelerations(kin, tau)
    udot, _, _ = sys.accelerations_with_prescribed(kin, tau, [1], free[[1]])
    assert np.allclose(udot, free, rtol=1e-10, atol=1e-10)
    effort = (M @ udot + C @ kin.u - tau)[1]
    assert abs(effort) < 1e-6 * np.abs(tau).max()
    # Holding piston 2 instead changes the outer boom's acceleration through the coupling M23 != 0, by
    # exactly -M33^-1 M32 (0 - u̇2_free).
    held, _, _ = sys.accelerations_with_prescribed(kin, tau, [1], np.zeros(1))
    assert held[1] == 0.0
    assert held[2] == pytest.approx(free[2] + M[2, 1] * free[1] / M[2, 2], rel=1e-9)
