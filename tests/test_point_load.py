"""The kernel's load at a point of a body (core/native/point_load.c: a wrench W and an inertia A of W = W0 - A a from
the inputs, part of an effort law) and its outputs (mbs_point_outputs), against an independent computation with the
numpy core (core/kane.py), on a tree whose bodies' frames move: the vessel crane of section III (the vessel rolling,
pitching and yawing, the king and both booms turning on it) with a load on the outer boom (mass, frame origin moving),
on the vessel and on the massless pitch frame of the Euler-angle chain (whose projection rows a state derivative
otherwise skips), each at a point off the body's COG -- and on the vessel as a pivoted load (it turns about the origin
of Frame 0: its point's motion in the form w x P, as the Vessel FMU takes it) -- at random states:

* the point's motion: its velocity v_P and the body's w from numpy's kinematics (COG velocity + w x (point - COG), in
  Frame 0, turned into body coordinates); its acceleration a = [a_P; w'] the time derivative of those Frame 0
  velocities along the motion (q' = u, u' = the kernel's), by central differences in time -- not the kernel's way
  (body-coordinate twist rates Pdot u and the transport terms);
* the dynamics: the kernel's u' satisfies M u' + C u = tau_g + e + G^T (W - A a) with numpy's M, C (44), gravity (46)
  and the law's efforts, where G = d[v_P; w]/du (body coordinates) comes from numpy's velocities at unit speeds (they
  are linear in u: exact) -- the virtual power of the wrench at the point (46) -- and a is the difference quotient.

Tolerances: the central difference with dt = 1e-5 s errs by dt^2 |a'''| / 6 ~ 1e-10 of the scale plus rounding
1e-16 / 1e-5 ~ 1e-11; 1e-7 of each quantity's scale (its largest magnitude) is far above both and far below any
wrong term (a missing transport term or a wrong arm is of the order of the scale itself).
"""
from __future__ import annotations

import numpy as np
import pytest

from crane_models.core import native
from crane_models.core.kane import MultibodySystem
from crane_models.core.native.point_load import NativePointLoad, NativePointOutputs
from crane_models.models.vessel_crane.crane import VesselCraneModel
from fmu_helpers import NO_KERNEL
from vessel_reference import crane_inertia, inertia_inputs

pytestmark = pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)

DT = 1e-5  # s, the central difference in time
G_EARTH = 9.81  # m/s2, the model's g (VesselCraneParameters)
TOLERANCE = 1e-7
WRENCH_AT = 6  # the law's 6 inputs (set-points and torques of the PD law (63)), then the wrench, then A's 21
INERTIA_AT = WRENCH_AT + 6
POINTS = {"outer_boom": (0.3, -0.2, 0.4), "vessel": (0.5, 0.2, 5.0), "pitch": (0.4, -0.6, 1.0)}
LOADS = [("outer_boom", False), ("vessel", False), ("vessel", True), ("pitch", False)]  # (body, pivoted)
LOAD_IDS = [f"{body}{'-pivoted' if pivoted else ''}" for body, pivoted in LOADS]
VALUES = [None] * 12 + [f"{k}_{a}" for k in ("w", "w_dot", "v", "a") for a in "xyz"]


@pytest.fixture(scope="module")
def crane():
    model = VesselCraneModel()
    system = model.crane.system
    twin = MultibodySystem(system.bodies, system.n, native=False)  # numpy kinematics
    return model, system, twin


def point_velocity(twin, k: int, point: np.ndarray, q: np.ndarray, u: np.ndarray) -> tuple:
    """(v_P, w) of body k's point in Frame 0 and the rotation R^0_k, from numpy's kinematics."""
    kin = twin.kinematics(q, u)
    R = kin.rotation[k]
    w0 = R @ kin.twist[k, :3]
    v0 = kin.cog_jacobian[k] @ u + np.cross(w0, R @ (point - twin.com[k]))
    return v0, w0, R


def point_map(twin, k: int, point: np.ndarray, q: np.ndarray) -> np.ndarray:
    """G = d[v_P; w]/du in body coordinates: the velocities at unit speeds (linear in u)."""
    columns = []
    for j in range(twin.n):
        v0, w0, R = point_velocity(twin, k, point, q, np.eye(twin.n)[j])
        columns.append(np.concatenate((R.T @ v0, R.T @ w0)))
    return np.array(columns).T


def point_acceleration(twin, k: int, point: np.ndarray, q: np.ndarray, u: np.ndarray, udot: np.ndarray) -> np.ndarray:
    """[a_P; w'] in body coordinates: d/dt of the Frame 0 velocities along q' = u, u' = udot, central differences."""
    ahead = point_velocity(twin, k, point, q + DT * u, u + DT * udot)
    behind = point_velocity(twin, k, point, q - DT * u, u - DT * udot)
    R = point_velocity(twin, k, point, q, u)[2]
    return np.concatenate((R.T @ (ahead[0] - behind[0]), R.T @ (ahead[1] - behind[1]))) / (2 * DT)


def cases(crane, body: str, pivoted: bool, inertia: bool, count: int = 4):
    """(x, inputs, kernel evaluation, kernel outputs (dict), G, a) at random states and inputs."""
    model, system, twin = crane
    k, point = system.index[body], np.array(POINTS[body])
    load = NativePointLoad(k, point, WRENCH_AT, INERTIA_AT if inertia else None, pivoted)
    law = system.native.effort_law(model.law, G_EARTH, load)
    outputs = NativePointOutputs(system.native, load, VALUES)
    names = tuple(name for name in VALUES if name is not None)
    plan = outputs.plan(names)
    rng = np.random.default_rng(23 + k + 7 * inertia)
    for _ in range(count):
        x = np.concatenate((rng.uniform(-0.3, 0.3, 3), rng.uniform(-1.0, 1.0, 3), rng.uniform(-0.5, 0.5, 6)))
        inputs = np.concatenate((rng.uniform(-1.0, 1.0, 3), rng.uniform(-2e3, 2e3, 3), rng.uniform(-1e5, 1e5, 3),
                                 rng.uniform(-3e5, 3e5, 3),
                                 inertia_inputs(crane_inertia(rng.uniform(0.0, 10.0))) if inertia else np.zeros(21)))
        kin = system.native.derivative(x, law, inputs)
        out = np.empty(len(names))
        outputs.write(plan, x, kin.record, out)
        n = system.n
        G = point_map(twin, k, point, x[:n])
        a = point_acceleration(twin, k, point, x[:n], x[n:], kin.udot)
        yield x, inputs, kin, dict(zip(names, out)), G, a


def close(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


@pytest.mark.parametrize("inertia", (False, True), ids=("wrench", "wrench+inertia"))
@pytest.mark.parametrize("body, pivoted", LOADS, ids=LOAD_IDS)
def test_the_points_motion_is_the_derivative_of_its_velocity(crane, body, pivoted, inertia):
    model, system, twin = crane
    k, point = system.index[body], np.array(POINTS[body])
    for x, inputs, kin, out, G, a in cases(crane, body, pivoted, inertia):
        n = system.n
        v0, w0, R = point_velocity(twin, k, point, x[:n], x[n:])
        got = lambda kind: np.array([out[f"{kind}_{c}"] for c in "xyz"])  # noqa: E731
        assert close(got("v"), R.T @ v0) < TOLERANCE and close(got("w"), R.T @ w0) < TOLERANCE
        assert close(np.concatenate((got("a"), got("w_dot"))), a) < TOLERANCE


@pytest.mark.parametrize("inertia", (False, True), ids=("wrench", "wrench+inertia"))
@pytest.mark.parametrize("body, pivoted", LOADS, ids=LOAD_IDS)
def test_the_kernels_accelerations_balance_the_load(crane, body, pivoted, inertia):
    """M u' + C u - tau_g - e = G^T (W - A a): the residual against the scale of the generalized forces."""
    model, system, twin = crane
    for x, inputs, kin, out, G, a in cases(crane, body, pivoted, inertia):
        n = system.n
        nkin = twin.kinematics(x[:n], x[n:])
        M, C = twin.mass_and_coriolis(nkin)
        tau_g = twin.gravity_forces(nkin, G_EARTH)
        e = model.law.efforts(x[:n], x[n:], inputs[:WRENCH_AT], tau_g)
        A = np.zeros((6, 6))
        A[np.triu_indices(6)] = inputs[INERTIA_AT:]
        A = A + np.triu(A, 1).T
        load = G.T @ (inputs[WRENCH_AT:INERTIA_AT] - A @ a)
        left = M @ kin.udot + C @ x[n:] - tau_g - e
        scale = max(np.abs(load).max(), np.abs(tau_g).max(), np.abs(M @ kin.udot).max())
        assert np.abs(load).max() > 1e-3 * scale  # the load matters here: the check can fail
        assert np.abs(left - load).max() < TOLERANCE * scale, (body, left - load)
