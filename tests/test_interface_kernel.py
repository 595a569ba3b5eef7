"""The output path of the knuckle boom crane on its moving base in the kernel (core/native/reactions.c:
``mbs_interface_wrench``, ``mbs_interface_inertia``, ``mbs_base_loads``) against the numpy forms they replace
(``KnuckleBoomOnMovingBaseModel.interface_wrench_reference``, ``.loads_reference``,
``core.moving_base.interface_inertia.interface_inertia``), the reference evaluated on kinematics from the numpy core
(no kernel anywhere on its side); and the fused weights-and-actuators array against the crane's two forms.

Tolerance 1e-12 of the largest entry: both sides evaluate the same closed forms in another order (sums over seven
bodies of terms up to |m g l| ~ 1e7 N·m for results ~1e5-1e6, mass-matrix entries 1e3-1e7), so they differ by a
few ulp of the largest term, ~1e-14 relative; the kinematics themselves agree to ~1e-15.
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.core.kane import MultibodySystem
from crane_models.core.native import library
from crane_models.core.state_derivative import StateDerivative
from crane_models.models.knuckle_boom.moving_base import KnuckleBoomOnMovingBaseModel
from fmu_helpers import NO_KERNEL

pytestmark = pytest.mark.skipif(library() is None, reason=NO_KERNEL)

G = 9.81
TOLERANCE = 1e-12  # of the largest entry; see the module docstring


def _evaluations(seed: int) -> tuple:
    """``(model, kin from the kernel, kin from numpy)`` at a random crane state, base motion and inputs."""
    rng = np.random.default_rng(seed)
    model = KnuckleBoomOnMovingBaseModel()
    motion = np.concatenate((rng.normal(size=12) * 0.3, np.zeros(3)))
    w = np.concatenate(([rng.normal() * 1e5, rng.normal() * 1e5, rng.normal() * 1e5, 0.3, 0.9, 0.8], motion))
    x = np.zeros(model.state_size)
    x[:3], x[9:12] = [rng.normal(), 0.6 + 0.5 * rng.random(), 0.6 + 0.5 * rng.random()], rng.normal(size=3) * 0.2
    x = model.impose_inputs(x, w)
    kin = model._dynamics(x, model.kernel_inputs(w))
    numpy_system = MultibodySystem(model.system.bodies, model.system.n, native=False)
    twin = StateDerivative(numpy_system, model.law, G)(x, model.kernel_inputs(w))
    assert kin.record is not None and twin.record is None  # one kernel path, one numpy path
    return model, kin, twin, w


@pytest.mark.parametrize("seed", range(5))
def test_interface_wrench_in_the_kernel_matches_numpy(seed):
    model, kin, twin, _ = _evaluations(seed)
    result = []
    for k in (kin, twin):
        effort, stop, _ = model.applied_efforts(k)
        actuators = effort + stop
        applied = model.applied_wrenches(k, actuators)
        wrench = (model.interface_wrench(k, k.udot, actuators, applied) if k is kin
                  else model.interface_wrench_reference(k, k.udot, actuators, applied))
        result.append(np.concatenate(wrench))
    kernel, reference = result
    assert np.abs(kernel - reference).max() <= TOLERANCE * np.abs(reference).max()


@pytest.mark.parametrize("seed", range(5))
def test_interface_inertia_in_the_kernel_matches_numpy(seed):
    model, kin, twin, _ = _evaluations(seed)
    kernel, reference = model.interface_inertia(kin), model.interface_inertia_reference(twin)
    assert np.abs(kernel - reference).max() <= TOLERANCE * np.abs(reference).max()
    assert np.array_equal(kernel, kernel.T)  # symmetric exactly, as the outputs list one triangle


def test_a_moving_base_derivative_has_no_inverse_mass_matrix():
    """The kernel skips M⁻¹ for a law with prescribed coordinates (it solves the free block itself); the
    record must then say that it has none rather than offer its zeros."""
    _, kin, _, _ = _evaluations(0)
    assert kin.Minv is None


def test_interface_inertia_refuses_a_mass_matrix_without_a_positive_crane_block():
    from crane_models.core.native.wrenches import NativeInterfaceInertia

    inertia = NativeInterfaceInertia(9, range(3, 9), range(3))
    M = np.eye(9)
    M[1, 1] = -1.0
    with pytest.raises(np.linalg.LinAlgError, match="M_ff"):
        inertia(M, np.eye(3), np.eye(3))
    with pytest.raises(ValueError, match="prescribed"):
        NativeInterfaceInertia(9, range(2, 8), range(3))


@pytest.mark.parametrize("seed", range(3))
def test_applied_wrenches_in_one_array_equal_weights_plus_actuators(seed):
    """The output path's fused weights-and-actuators array against the crane's two separate forms (67)-(68):
    the same additions, so equal bit for bit."""
    model, kin, _, _ = _evaluations(seed)
    actuators = np.random.default_rng(seed).normal(size=3) * np.array([1e5, 1e6, 1e6])
    crane = model.crane
    separate = crane.system.gravity_wrenches(kin, crane.params.g) + crane.actuator_wrenches(actuators)
    assert np.array_equal(model.applied_wrenches(kin, actuators), separate)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("with_extra", [False, True])
def test_output_loads_in_the_kernel_match_numpy(seed, with_extra):
    """``mbs_base_loads`` (applied wrenches, interface wrench, joint reactions with Joint 1 in the base frame, tip)
    against ``loads_reference`` on numpy kinematics; ``extra`` stands for a hoisting wire's wrenches."""
    model, kin, twin, _ = _evaluations(seed)
    rng = np.random.default_rng(seed)
    actuators = rng.normal(size=3) * np.array([1e5, 1e6, 1e6])
    extra = rng.normal(size=(model.system.nb, 6)) * 1e4 if with_extra else None
    kernel = model.loads(kin, kin.udot, actuators, extra)
    reference = model.loads_reference(twin, twin.udot, actuators, extra)
    assert model._native_loads is not None and kin.record is not None
    for name, got, want in zip(("applied", "force", "moment", "joints", "tip"), kernel, reference):
        assert np.abs(np.asarray(got) - want).max() <= TOLERANCE * np.abs(want).max(), name
