"""The compiled kernel (crane_models/core/native/*.c) against the numpy implementation in kane.py.

The numpy code is the specification (it is what the physics tests in test_kane.py and
test_knuckle_boom_physics.py were first written against); the kernel must reproduce it to rounding for
every model in the project, at random states, including the reaction wrenches and the cylinder maps.
Tolerance: both sides evaluate the same formulas in double precision in a different order, so they agree
to a few ulps of the largest magnitude involved; 1e-12 of each array's largest entry leaves room for the
~10-term sums and is still 1e4 below any physical effect the tests elsewhere check.
"""
import os

import numpy as np
import pytest

from crane_models.core import native as kane_native
from crane_models.core.cylinders import CylinderOutOfRange
from crane_models.models.flexible_crane.crane import FlexibleCrane
from crane_models.core.kane import MultibodySystem
from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
from crane_models.models.vessel_crane.crane import VesselCrane
from crane_models.models.vessel_crane.split import CraneOnMovingBaseModel
from fmu_helpers import NO_KERNEL, kernel_expected

FIELDS = ("rotation", "origin", "cog", "P", "Pdot", "twist", "theta", "theta_dot", "G", "cog_jacobian")
REL = 1e-12


def close(a, b, rel=REL):
    scale = max(1.0, float(np.max(np.abs(b)))) if np.size(b) else 1.0
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0)) <= rel * scale


def numpy_twin(system: MultibodySystem) -> MultibodySystem:
    return MultibodySystem(system.bodies, system.n, native=False)


def systems():
    kb = KnuckleBoomModel().crane.system
    return {"knuckle_boom": (kb, [0.0, 0.8, 0.8], [0.0, 0.5, 0.5]),
            "vessel_crane": (VesselCrane().system, None, None),
            "crane_on_moving_base": (CraneOnMovingBaseModel().system, None, None),
            "flexible_rigid_link": (FlexibleCrane(n_rfe=1, constraints_enabled=False).system, None, None),
            "flexible_4_elements": (FlexibleCrane(n_rfe=4, constraints_enabled=False).system, None, None)}


@kernel_expected
def test_kernel_is_built_and_loaded():
    """Without the kernel every FMU silently runs 3-5x slower: the install must have built it."""
    if os.environ.get("CRANE_COSIM_NATIVE") == "0":
        pytest.skip("kernel disabled by CRANE_COSIM_NATIVE=0")
    assert kane_native.library() is not None, "crane_models/core/native/multibody*.so missing: pip install failed to compile it"
    assert KnuckleBoomModel().crane.system.native is not None


@pytest.mark.parametrize("name", list(systems()))
def test_kinematics_mass_coriolis_gravity_match_numpy(name):
    system, q_mid, q_span = systems()[name]
    if system.native is None:
        pytest.skip(NO_KERNEL)
    ref = numpy_twin(system)
    rng = np.random.default_rng(7)
    for _ in range(5):
        if q_mid is None:
            q = rng.normal(scale=0.4, size=system.n)
        else:
            q = np.array(q_mid) + np.array(q_span) * rng.uniform(-1, 1, size=system.n)
        u = rng.normal(size=system.n)
        a, b = system.kinematics(q, u), ref.kinematics(q, u)
        for f in FIELDS:
            assert close(getattr(a, f), getattr(b, f)), f
        Ma, Ca = system.mass_and_coriolis(a)
        Mb, Cb = ref.mass_and_coriolis(b)
        assert close(Ma, Mb) and close(Ca, Cb)
        assert close(system.gravity_forces(a, 9.81), ref.gravity_forces(b, 9.81))
        udot = rng.normal(size=system.n)
        assert close(system.inertial_wrenches(a, udot), ref.inertial_wrenches(b, udot))
        if np.linalg.cond(Mb) < 1e8:  # not for a prescribed (massless) base, whose M is singular
            tau = rng.normal(size=system.n) * np.abs(Mb).max()
            # the solve loses cond(M) × ulp: 1e8 × 1e-16 → 1e-8 relative at worst
            assert close(system.accelerations(a, tau)[0], ref.accelerations(b, tau)[0], 1e-7)


def test_small_systems_get_the_inverse_mass_matrix_and_it_survives_pickling():
    import pickle

    system = KnuckleBoomModel().crane.system
    if system.native is None:
        pytest.skip(NO_KERNEL)
    kin = system.kinematics(np.array([0.3, 0.9, 1.1]), np.array([0.1, -0.2, 0.3]))
    assert np.allclose(kin.Minv @ kin.M, np.eye(3), rtol=0, atol=1e-12)
    again = pickle.loads(pickle.dumps(kin))
    assert np.array_equal(again.Minv, kin.Minv) and np.array_equal(again.M, kin.M)
    big = FlexibleCrane(n_rfe=4, constraints_enabled=False).system  # n = 18: no inverse, Cholesky solves
    kin = big.kinematics(np.zeros(big.n), np.zeros(big.n))
    assert kin.Minv is None and pickle.loads(pickle.dumps(kin)).Minv is None


def test_spd_solve_and_fallback_for_indefinite_matrix():
    system = KnuckleBoomModel().crane.system
    if system.native is None:
        pytest.skip(NO_KERNEL)
    rng = np.random.default_rng(3)
    A = rng.normal(size=(3, 3))
    M = A @ A.T + 3 * np.eye(3)
    b = rng.normal(size=3)
    assert np.allclose(system.solve(M, b), np.linalg.solve(M, b), rtol=1e-12, atol=0)
    B = rng.normal(size=(3, 4))  # several right-hand sides at once (the flexible crane's constraint solve)
    assert np.allclose(system.solve(M, B), np.linalg.solve(M, B), rtol=1e-12, atol=0)
    # a diagonal block (the free coordinates under prescribed motion) goes through the kernel too
    assert np.allclose(system.solve(M[:2, :2].copy(), b[:2]), np.linalg.solve(M[:2, :2], b[:2]), rtol=1e-12, atol=0)
    assert system.native.solve_spd(M[:2, :2].copy(), b[:2]) is not None
    indefinite = np.diag([1.0, -2.0, 3.0])  # Cholesky refuses it; the numpy fallback solves it
    assert np.allclose(system.solve(indefinite, b), b / np.diag(indefinite), rtol=1e-14)


def test_knuckle_boom_outputs_and_reactions_match_numpy(monkeypatch):
    native = KnuckleBoomModel()
    if native.crane.system.native is None:
        pytest.skip(NO_KERNEL)
    monkeypatch.setattr(kane_native.system, "native_enabled", lambda: False)
    reference = KnuckleBoomModel()
    assert reference.crane.system.native is None and reference.crane.reaction_solver.native is None
    scale = reference.crane.total_mass * 9.81 * 15.0  # weight × reach: the size of every wrench output
    rng = np.random.default_rng(11)
    for _ in range(5):
        x = np.concatenate(([rng.uniform(-3, 3)], rng.uniform(0.1, 1.6, 2), rng.normal(size=3)))
        inputs = np.concatenate((rng.normal(size=3) * 1e4, [0.2], rng.uniform(0.2, 1.5, 2)))
        da, aux_a = native.derivative(0.0, x, inputs)
        db, aux_b = reference.derivative(0.0, x, inputs)
        assert close(da, db, 1e-10)
        oa, ob = native.outputs(0.0, x, inputs, aux_a), reference.outputs(0.0, x, inputs, aux_b)
        for key in ob:
            assert abs(oa[key] - ob[key]) <= 1e-12 * max(scale, abs(ob[key])), key


def test_cylinder_maps_in_kernel_match_python_and_refuse_out_of_range():
    model = KnuckleBoomModel()
    system = model.crane.system
    if system.native is None:
        pytest.skip(NO_KERNEL)
    assert system.native.python_maps == []  # both cylinders' maps run in the kernel
    for q2 in np.linspace(0.01, 1.69, 9):
        kin = system.kinematics(np.array([0.0, q2, 1.0]), np.array([0.0, 0.3, 0.0]))
        for body, fmap in system._maps:
            theta, d1, d2 = fmap(float(kin.q[system.bodies[body].coordinate]))
            assert kin.theta[body] == pytest.approx(theta, rel=0, abs=1e-13)
            assert kin.G[body, system.bodies[body].coordinate] == pytest.approx(d1, rel=1e-12)
    lo, hi = model.crane.cylinders[2].extension_range()
    with pytest.raises(CylinderOutOfRange, match="outside the closable range"):
        system.kinematics(np.array([0.0, hi + 0.1, 1.0]), np.zeros(3))


@pytest.mark.parametrize("make", [VesselCrane, CraneOnMovingBaseModel], ids=["VesselCrane", "CraneOnMovingBase"])
def test_constraint_forces_by_auxiliary_speeds_match_numpy(make, monkeypatch):
    """The kernel's projection (42), (47)-(50) against the numpy one, on random states of the two models that
    use it; wrench tolerance 1e-12 of the crane's weight × reach (the size of every interface output)."""
    from crane_models.models.vessel_crane.crane import VesselCraneModel

    model_cls = VesselCraneModel if make is VesselCrane else CraneOnMovingBaseModel
    native = model_cls()
    if kane_native.library() is None:
        pytest.skip(NO_KERNEL)
    monkeypatch.setattr(kane_native.system, "native_enabled", lambda: False)
    reference = model_cls()
    monkeypatch.undo()
    interface = getattr(reference, "crane", reference).interface
    assert interface.native is None and getattr(native, "crane", native).interface.native is not None
    scale = 90.0 * 9.81 * 6.0
    rng = np.random.default_rng(5)
    for _ in range(5):
        x = rng.normal(size=native.state_size) * 0.3
        inputs = rng.normal(size=len(native.input_names)) * 0.3
        oa = native.outputs(0.0, x, inputs, native.derivative(0.0, x, inputs)[1])
        ob = reference.outputs(0.0, x, inputs, reference.derivative(0.0, x, inputs)[1])
        for key in ob:
            assert abs(oa[key] - ob[key]) <= 1e-12 * max(scale, abs(ob[key])), key


def _random_law(rng, n: int, n_inputs: int, scale: float):
    from crane_models.core.effort_laws import CoordinateEffortLaw

    return CoordinateEffortLaw(constant=scale * rng.normal(size=n), input_gain=scale * rng.normal(size=(n, n_inputs)),
                               linear=scale * rng.normal(size=n), cubic=scale * rng.normal(size=n),
                               damping=scale * rng.normal(size=n))


@pytest.mark.parametrize("name", [k for k in systems() if k != "crane_on_moving_base"])
def test_state_derivative_with_an_effort_law_matches_numpy(name):
    """mbs_derivative (kinematics, M, C, gravity, the law and the solve in one call) against the numpy core,
    with M⁻¹ (n ≤ 12) and with the Cholesky solve (the flexible crane with 4 elements has n = 19); and the
    exact input update against a fresh evaluation with the new inputs."""
    from crane_models.core.state_derivative import StateDerivative

    system, q_mid, q_span = systems()[name]
    if system.native is None:
        pytest.skip(NO_KERNEL)
    n = system.n
    rng = np.random.default_rng(11)
    ref = numpy_twin(system)
    scale = float(np.abs(ref.mass_and_coriolis(ref.kinematics(np.zeros(n), np.zeros(n)))[0]).max()) if q_mid is None else 1e3
    law = _random_law(rng, n, 3, scale)
    fast, spec = StateDerivative(system, law, 9.81), StateDerivative(ref, law, 9.81)
    for _ in range(4):
        q = rng.normal(scale=0.3, size=n) if q_mid is None else np.array(q_mid) + np.array(q_span) * rng.uniform(-1, 1, n)
        x = np.concatenate((q, rng.normal(size=n)))
        w, w2 = rng.normal(size=3), rng.normal(size=3)
        a, b = fast(x, w), spec(x, w)
        assert close(a.efforts, b.efforts)
        # the solve loses cond(M) × ulp (≤ 1e8 × 1e-16 here), as in the test above
        assert close(a.udot, b.udot, 1e-7) and np.array_equal(a.xdot, np.concatenate((x[n:], a.udot)))
        before = a.udot.copy()
        a2, b2 = fast.with_new_inputs(a, w, w2), spec(x, w2)
        assert close(a2.efforts, b2.efforts, 1e-10) and close(a2.udot, b2.udot, 1e-7)
        assert np.array_equal(a2.xdot[n:], a2.udot) and np.array_equal(a.udot, before)  # the original unchanged
        b3 = spec.with_new_inputs(b, w, w2)
        assert close(b3.udot, b2.udot, 1e-7) and np.array_equal(b.efforts, spec(x, w).efforts)


def test_state_derivative_refuses_a_singular_mass_matrix_like_numpy():
    """A tree with massless bodies (the prescribed base of CraneOnMovingBase) has a singular M: the
    kernel reports it and the numpy solve decides, with the same error as the numpy core."""
    from crane_models.core.state_derivative import StateDerivative

    system = CraneOnMovingBaseModel().system
    if system.native is None:
        pytest.skip(NO_KERNEL)
    law = _random_law(np.random.default_rng(3), system.n, 0, 1.0)
    x = np.zeros(2 * system.n)
    for s in (system, numpy_twin(system)):
        with pytest.raises(np.linalg.LinAlgError):
            StateDerivative(s, law, 9.81)(x, np.zeros(0))


@pytest.mark.parametrize("n_rfe", [1, 4])
@pytest.mark.parametrize("friction", ["none", "dahl", "lugre"])
@pytest.mark.parametrize("constrained", [True, False], ids=["constrained", "free"])
def test_flexible_crane_evaluation_in_one_kernel_call_matches_numpy(n_rfe, friction, constrained, monkeypatch):
    """mbs_task_derivative (supports (20), element springs (8), programmed constraint (17)-(22) with its
    multipliers, joint normal forces and Dahl/LuGre friction (13)-(15) with the fixed point) against
    FlexibleCrane.evaluate in numpy, at random states and times (the quintic (22) rising and after it).
    Tolerance: the constrained solve loses cond(M) (≈ 1e4 with elements) times the ulp, so 1e-10 of each
    quantity's largest entry."""
    from crane_models.models.flexible_crane.crane import FlexibleCrane

    if kane_native.library() is None:
        pytest.skip(NO_KERNEL)
    make = dict(n_rfe=n_rfe, friction_model=friction, constraints_enabled=constrained)
    native = FlexibleCrane(**make)
    monkeypatch.setattr(kane_native.system, "native_enabled", lambda: False)
    reference = FlexibleCrane(**make)
    monkeypatch.undo()
    assert reference.native_task() is None and native.native_task() is not None
    rng = np.random.default_rng(17)
    for t in (0.05, 0.6, 1.5):
        q = rng.normal(scale=0.03, size=native.n)
        q[native.joint_coords] = rng.uniform(-3, 3), rng.uniform(0.0, 1.0), rng.uniform(-1.0, 0.0)
        u, z = rng.normal(scale=0.3, size=native.n), rng.normal(scale=0.01, size=3)
        a, b = native.evaluate(t, q, u, z, 150.0), reference.evaluate(t, q, u, z, 150.0)
        for key in ("udot", "zdot", "lam", "friction_torque", "normal_force", "phi", "constraint_force"):
            assert np.shape(a[key]) == np.shape(b[key]) and close(a[key], b[key], 1e-10), key
        if friction != "none":
            assert np.all(np.abs(b["friction_torque"]) > 0.0)  # the fixed point was exercised


def test_branched_tree_with_coordinates_out_of_path_order_matches_numpy():
    """The kernel assembles M row-wise when the coordinates on a body's path are consecutive (every crane
    here) and entry by entry otherwise: a branched tree numbered across its branches takes the second way."""
    from crane_models.core.kane import Body
    from crane_models.core.state_derivative import StateDerivative

    rng = np.random.default_rng(23)

    def inertia():
        a = rng.normal(size=(3, 3))
        return a @ a.T + np.eye(3)

    bodies = [Body("a", None, "revolute", (0.0, 0.0, 1.0), coordinate=0, mass=3.0, inertia=inertia(), com=(0.3, 0.1, 0.0)),
              Body("c", None, "prismatic", (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), coordinate=1, mass=2.0, inertia=inertia()),
              Body("b", "a", "revolute", (0.0, 1.0, 0.0), (1.0, 0.0, 0.0), coordinate=3, mass=1.5, inertia=inertia(),
                   com=(0.5, 0.0, 0.2)),
              Body("d", "c", "revolute", (1.0, 0.0, 0.0), (0.0, 0.0, 0.5), coordinate=2, mass=1.0, inertia=inertia(),
                   com=(0.0, 0.4, 0.0))]
    system = MultibodySystem(bodies, 4)
    if system.native is None:
        pytest.skip(NO_KERNEL)
    ref = numpy_twin(system)
    law = _random_law(rng, 4, 2, 10.0)
    for _ in range(3):
        q, u = rng.normal(size=4), rng.normal(size=4)
        assert close(system.mass_and_coriolis(system.kinematics(q, u))[0], ref.mass_and_coriolis(ref.kinematics(q, u))[0])
        x, w = np.concatenate((q, u)), rng.normal(size=2)
        a, b = StateDerivative(system, law, 9.81)(x, w), StateDerivative(ref, law, 9.81)(x, w)
        assert close(a.udot, b.udot, 1e-9)


@pytest.mark.parametrize("enabled", [True, False])
def test_knuckle_boom_law_with_end_stops_and_gravity_compensation_matches_numpy(enabled, monkeypatch):
    """The knuckle boom's effort law in the kernel (inputs, PD, gravity compensation, one-sided end stops)
    against its numpy form, at states inside the strokes, beyond either limit, and moving out of a stop
    fast enough that the damper term would pull (the stop must give zero there)."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel

    native = KnuckleBoomModel(controller_enabled=enabled)
    if native.crane.system.native is None:
        pytest.skip(NO_KERNEL)
    monkeypatch.setattr(kane_native.system, "native_enabled", lambda: False)
    reference = KnuckleBoomModel(controller_enabled=enabled)
    monkeypatch.undo()
    (lo2, hi2), (lo3, hi3) = native.crane._stroke[1], native.crane._stroke[2]
    rng = np.random.default_rng(29)
    states = [([0.2, 0.5 * (lo2 + hi2), 0.5 * (lo3 + hi3)], [0.1, 0.2, -0.2]),
              ([0.2, lo2 - 2e-3, hi3 + 3e-3], [0.0, -0.01, 0.01]),  # both stops pushing
              ([0.2, lo2 - 2e-3, hi3 + 3e-3], [0.0, 0.5, -0.5])]  # leaving fast: no pull
    for q, u in states:
        x = np.array(q + u)
        inputs = np.concatenate((rng.normal(size=3) * 1e4, [0.1, 0.9, 1.0]))
        a, b = native.derivative(0.0, x, inputs)[1], reference.derivative(0.0, x, inputs)[1]
        assert close(a.efforts, b.efforts, 1e-12) and close(a.udot, b.udot, 1e-9)
        stop, _ = native.crane.end_stop_forces(x[:3], x[3:])
        assert close(native.applied_efforts(a)[1], stop)


# A fresh process: the kernel is loaded by the first library() call of a process; this one already made it.
# Kernel's constructor is slowed by 0.2 s of sleep (which, like dlopen, releases the GIL) so that the threads'
# calls overlap the load whatever the machine's speed.
_CONCURRENT_FIRST_LOAD = r"""
import sys, threading, time
from crane_models.core.native import system

class SlowKernel(system.Kernel):
    def __init__(self, *args, **kwargs):
        time.sleep(0.2)
        super().__init__(*args, **kwargs)

system.Kernel = SlowKernel
barrier, found = threading.Barrier(8), []

def ask():
    barrier.wait()
    found.append(system.library())

threads = [threading.Thread(target=ask) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(k is not None for k in found), len({id(k) for k in found}))
"""


@kernel_expected
def test_threads_asking_for_the_kernel_at_once_all_get_it(tmp_path):
    """Two FMU instances made at once on a host's threads each ask for the kernel; the load releases the GIL (dlopen,
    the file system). Every thread must get the kernel -- before the lock, the ones asking while the first loaded it
    got None, and their models ran on numpy (a C host's two-thread run took 16 s instead of 1.9 s)."""
    import subprocess
    import sys

    if os.environ.get("CRANE_COSIM_NATIVE") == "0":
        pytest.skip("kernel disabled by CRANE_COSIM_NATIVE=0")
    # From a folder of its own: ``python -c`` puts the working directory first on sys.path, and the checkout's
    # crane_models has no kernel where the package is installed into site-packages (CI).
    run = subprocess.run([sys.executable, "-c", _CONCURRENT_FIRST_LOAD], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["8", "1"], run.stdout  # eight kernels, all the same one
