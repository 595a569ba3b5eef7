"""Joint effort laws (crane_models/effort_laws.py) against the formulas of the moving-base paper:
the vessel springs ``T_si = −k_i q_i³`` (§III-D) and the PD controller (63) with torque inputs.
The expected values are written out here from the paper, not taken from the code."""
import numpy as np
import pytest

from crane_models.core.effort_laws import CoordinateEffortLaw, cubic_springs, pd_control, stacked
from crane_models.models.vessel_crane.crane import VesselCraneController, VesselCraneModel, VesselCraneParameters

RNG = np.random.default_rng(5)


def test_cubic_springs_are_the_papers_restoring_torques():
    k = np.array([8e7, 6e7, 1e7])
    q, u = RNG.normal(scale=0.05, size=3), RNG.normal(size=3)
    assert np.allclose(cubic_springs(k).efforts(q, u, np.zeros(0)), [-k[i] * q[i] ** 3 for i in range(3)],
                       rtol=1e-14, atol=0.0)


def test_pd_control_is_eq_63_plus_the_torque_inputs():
    kp, kd = np.array([5e4, 4e4, 1e4]), np.array([5e3, 3e3, 1e3])
    q, u = RNG.normal(size=3), RNG.normal(size=3)
    ref, tau = RNG.normal(size=3), RNG.normal(size=3) * 100
    expected = [kp[i] * (ref[i] - q[i]) - kd[i] * u[i] + tau[i] for i in range(3)]
    assert np.allclose(pd_control(kp, kd).efforts(q, u, np.concatenate((ref, tau))), expected, rtol=1e-12, atol=1e-9)


def test_stacked_laws_act_on_their_own_coordinates_and_inputs():
    a, b = cubic_springs([2.0, 3.0]), pd_control([10.0], [1.0])
    law = stacked(a, b)
    q, u, w = np.array([0.5, -1.0, 0.2]), np.array([1.0, 2.0, 3.0]), np.array([0.7, 4.0])
    assert law.n == 3 and law.n_inputs == 2
    assert np.allclose(law.efforts(q, u, w), [-2.0 * 0.125, 3.0, 10.0 * (0.7 - 0.2) - 3.0 + 4.0], rtol=1e-14)


def test_the_vessel_crane_law_is_springs_and_pd_with_the_fmu_inputs():
    p, c = VesselCraneParameters(k1=7e7, k2=8e7, k3=9e7), VesselCraneController(kp5=3e4, kd6=2e3)
    model = VesselCraneModel(p, c)
    q, u = RNG.normal(scale=0.1, size=6), RNG.normal(size=6)
    inputs = np.array([0.3, 0.6, -1.0, 10.0, -20.0, 30.0])  # q4_ref, q5_ref, q6_ref, joint4..6_torque
    k = [p.k1, p.k2, p.k3]
    kp, kd = [c.kp4, c.kp5, c.kp6], [c.kd4, c.kd5, c.kd6]
    expected = [-k[i] * q[i] ** 3 for i in range(3)] + [
        kp[j] * (inputs[j] - q[3 + j]) - kd[j] * u[3 + j] + inputs[3 + j] for j in range(3)]
    assert np.allclose(model.law.efforts(q, u, inputs), expected, rtol=1e-12, atol=1e-9)
    kin = model.derivative(0.0, np.concatenate((q, u)), inputs)[1]
    assert np.allclose(kin.efforts, expected, rtol=1e-12, atol=1e-9)


def test_a_law_with_mismatched_arrays_names_the_field():
    with pytest.raises(ValueError, match="damping must have shape"):
        CoordinateEffortLaw(constant=np.zeros(3), input_gain=np.zeros((3, 0)), linear=np.zeros(3), cubic=np.zeros(3),
                            damping=np.zeros(2))


def test_end_stops_push_back_and_never_pull():
    """The knuckle boom's stops (stroke limits, end_stop_stiffness k, end_stop_damping c of its parameters),
    written out: inside the stroke nothing; beyond the lower limit max(k δ − c u, 0) outward, beyond the
    upper one min(−k δ − c u, 0); leaving a stop fast enough that c u exceeds k δ gives 0, not a pull."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel

    model = KnuckleBoomModel()
    p = model.crane.params
    k, c = p.end_stop_stiffness, p.end_stop_damping
    (lo2, hi2), (lo3, hi3) = model.crane._stroke[1], model.crane._stroke[2]
    mid = np.array([0.1, 0.5 * (lo2 + hi2), 0.5 * (lo3 + hi3)])
    assert np.all(model.law.stops(mid, np.array([0.0, 0.1, -0.1])) == 0.0)
    q = np.array([0.0, lo2 - 1e-3, hi3 + 2e-3])
    slow = np.array([0.0, -0.05, 0.05])
    assert np.allclose(model.law.stops(q, slow), [0.0, k * 1e-3 - c * -0.05, -k * 2e-3 - c * 0.05], rtol=1e-9)
    fast_out = np.array([0.0, 1.0, -1.0])  # moving back into the stroke faster than the spring pushes
    assert np.all(model.law.stops(q, fast_out) == 0.0)
    stop, active = model.crane.end_stop_forces(q, slow)
    assert active and np.array_equal(stop, model.law.stops(q, slow))
    assert not model.crane.end_stop_forces(mid, slow)[1]


def test_knuckle_boom_controller_compensates_gravity():
    """Holding the pose (set-points at q, u = 0, no input efforts) the law's efforts are −τ_g exactly, so the
    crane stays at rest: u̇ = 0."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel

    model = KnuckleBoomModel()
    q = np.array([0.3, 0.9, 1.1])
    x = np.concatenate((q, np.zeros(3)))
    kin = model.derivative(0.0, x, np.concatenate((np.zeros(3), q)))[1]
    tau_g = model.crane.system.gravity_forces(model.crane.system.kinematics(q, np.zeros(3)), model.crane.params.g)
    assert np.allclose(kin.efforts, -tau_g, rtol=1e-12, atol=1e-9)
    assert np.allclose(kin.udot, 0.0, atol=1e-9)
