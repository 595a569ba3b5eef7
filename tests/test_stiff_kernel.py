"""The kernel's stiff stepper (issue 24): its LU (lu.c) against numpy, its Jacobian (jacobian.c) against central
differences of the derivative, its steps (rosenbrock.c) against the Python specification RosenbrockW, its order on
a linear stiff problem with a known solution, and cancellation from another thread."""
from __future__ import annotations

import ctypes
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from crane_models.core import native as kernel
from crane_models.core.effort_laws import CoordinateEffortLaw
from crane_models.core.friction import BristleParameters, bristle_rate, bristle_rate_derivatives
from crane_models.core.kane import Body, MultibodySystem
from crane_models.core.state_derivative import StateDerivative
from crane_models.models.flexible_crane.spec import build_model
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.integrators import StepCancelled

pytestmark = pytest.mark.skipif(kernel.library() is None, reason="kernel not loaded")


# -- LU (lu.c) ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lu_library(tmp_path_factory):
    """lu.c compiled alone into a shared library: the LU is internal to the kernel (the kernel exports only the
    entry points Python calls, core/native/entry_points.py), so the test builds its own copy of the same file."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "native_host"))
    from c_host import NO_CC, c_compiler

    cc = c_compiler()
    if cc is None:
        pytest.skip(NO_CC)
    source = Path(kernel.__file__).resolve().parent / "lu.c"
    out = tmp_path_factory.mktemp("lu") / "lu.so"
    subprocess.run([cc, "-shared", "-fPIC", "-std=c99", "-O2", "-o", str(out), str(source)], check=True)
    lib = ctypes.CDLL(str(out))
    lib.mbs_lu_factor.restype, lib.mbs_lu_factor.argtypes = ctypes.c_int, [ctypes.c_int] + [ctypes.c_void_p] * 2
    lib.mbs_lu_solve.restype, lib.mbs_lu_solve.argtypes = None, [ctypes.c_int] + [ctypes.c_void_p] * 3
    return lib


def _lu_solve(lib, A: np.ndarray, b: np.ndarray) -> tuple:
    n = A.shape[0]
    lu, piv, x = np.ascontiguousarray(A, dtype=float).copy(), np.zeros(n, dtype=np.intc), np.array(b, dtype=float)
    code = lib.mbs_lu_factor(n, lu.ctypes.data, piv.ctypes.data)
    if code == 0:
        lib.mbs_lu_solve(n, lu.ctypes.data, piv.ctypes.data, x.ctypes.data)
    return code, x


@pytest.mark.parametrize("n", [1, 2, 7, 57, 120])
def test_lu_solves_as_numpy(lu_library, n):
    """Random systems (condition numbers up to ~1e4) and one whose diagonal is zero, so that every step must
    pivot: the solution agrees with numpy.linalg.solve (LAPACK) to 1e-10 relative, i.e. to the rounding of
    the condition number times eps."""
    rng = np.random.default_rng(n)
    cases = [rng.normal(size=(n, n)), np.roll(np.eye(n), 1, axis=0) + 1e-3 * rng.normal(size=(n, n)) * (n > 1)]
    for A in cases:
        b = rng.normal(size=n)
        code, x = _lu_solve(lu_library, A, b)
        assert code == 0
        expected = np.linalg.solve(A, b)
        assert np.linalg.norm(x - expected) <= 1e-10 * np.linalg.norm(expected)


def test_lu_reports_a_singular_or_nan_matrix_by_its_column(lu_library):
    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])  # row 2 = 2 row 1: no pivot in column 3
    assert _lu_solve(lu_library, A, np.ones(3))[0] == 3
    assert _lu_solve(lu_library, np.array([[np.nan, 1.0], [1.0, 1.0]]), np.ones(2))[0] != 0


# -- the bristle rows (analytic) ---------------------------------------------------------------------------
TABLE1 = BristleParameters(*[np.array(v) for v in ([0.2, 0.2, 0.2], [0.1, 0.1, 0.1], [1.0, 5.0, 5.0],
                                                   [0.1, 0.022, 0.022], [0.0, 0.0, 0.0], [1.0, 2.0, 1.5],
                                                   [0.0175, 0.0175, 0.0175])])


@pytest.mark.parametrize("model", ["dahl", "lugre"])
def test_bristle_rate_derivatives_are_the_rates_slopes(model):
    """∂ż/∂q̇ and ∂ż/∂z of (14) against central differences of bristle_rate (away from q̇ = 0, where sgn jumps):
    1e-8 relative, the differences' own truncation at a 1e-6 increment."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        v = rng.choice([-1.0, 1.0], 3) * 10 ** rng.uniform(-3, 0, 3)
        z = rng.uniform(-0.03, 0.03, 3)
        dv, dz = bristle_rate_derivatives(model, v, z, TABLE1)
        hv, hz = 1e-6 * np.abs(v), 1e-6
        cv = (bristle_rate(model, v + hv, z, TABLE1) - bristle_rate(model, v - hv, z, TABLE1)) / (2 * hv)
        cz = (bristle_rate(model, v, z + hz, TABLE1) - bristle_rate(model, v, z - hz, TABLE1)) / (2 * hz)
        assert np.allclose(dv, cv, rtol=1e-8, atol=1e-8) and np.allclose(dz, cz, rtol=1e-8, atol=1e-8)


# -- the kernel's Jacobian ---------------------------------------------------------------------------------
def _crane_state(n_rfe: int, friction: int, steps: int):
    """The paper's scenario after ``steps`` communication steps of 10 ms: a state with the link vibrating,
    the joints moving and the bristles deflected."""
    model, x0, opts = build_model({"n_rfe": n_rfe, "friction_model": friction})
    sim = CoSimulation(model, x0, **opts)
    for _ in range(steps):
        sim.step(0.01)
    return model, sim.t, sim.x.copy()


def _central_reference(model, t: float, x: np.ndarray) -> np.ndarray:
    """∂ẋ/∂x by Richardson-extrapolated central differences of the model's derivative (4th order), column by
    column: coordinates with 1e-6 max(|x|, 1e-2) (the joint normal forces turn on the scale of the elastic
    deflections, ~1e-4 rad, so a coordinate's increment must stay far below it), rates and bristles with
    1e-4 max(|x|, 1) (smooth, and weak against the ~1e5 larger spring forces inside the accelerations:
    a small increment would drown in their rounding)."""
    n, size, inputs = model.n, x.size, np.zeros(1)
    J = np.empty((size, size))
    for j in range(size):
        d = 1e-6 * max(abs(x[j]), 1e-2) if j < n else 1e-4 * max(abs(x[j]), 1.0)

        def central(h):
            xp, xm = x.copy(), x.copy()
            xp[j] += h
            xm[j] -= h
            return (model.derivative(t, xp, inputs)[0] - model.derivative(t, xm, inputs)[0]) / (xp[j] - xm[j])

        J[:, j] = (4.0 * central(0.5 * d) - central(d)) / 3.0
    return J


def _block_errors(J: np.ndarray, ref: np.ndarray, n: int) -> dict:
    """Relative Frobenius error of each block of the acceleration rows (by coordinates, rates, bristles) and of
    the bristle rows."""
    blocks = {"udot/q": (slice(n, 2 * n), slice(0, n)), "udot/u": (slice(n, 2 * n), slice(n, 2 * n)),
              "udot/z": (slice(n, 2 * n), slice(2 * n, None)), "zdot": (slice(2 * n, None), slice(None))}
    out = {}
    for name, (r, c) in blocks.items():
        scale = np.linalg.norm(ref[r, c])
        if scale > 0.0:
            out[name] = float(np.linalg.norm(J[r, c] - ref[r, c]) / scale)
    return out


@pytest.mark.parametrize("n_rfe, friction, steps", [(1, 2, 15), (4, 2, 15), (4, 1, 40), (4, 0, 20), (8, 2, 5)])
def test_kernel_jacobian_matches_central_differences(n_rfe, friction, steps):
    """mbs_task_jacobian against central differences of the derivative (the issue's 1e-6 relative, per block):
    its central differences to 1e-6, the stepper's forward ones to 1e-4 (their rounding, eps |f| / sqrt(eps)
    with the ~1e5 larger spring forces inside the accelerations: ~2e-3 in the weakest column, ~1e-5 per block);
    the rows q' = u exactly [0 I 0]; the bristle rows, analytic, to 1e-9 (the reference's truncation)."""
    model, t, x = _crane_state(n_rfe, friction, steps)
    n = model.n
    ref = _central_reference(model, t, x)
    central = model.jacobian(t, x, np.zeros(1), central=True)
    forward = model.jacobian(t, x, np.zeros(1), central=False)
    for J, bound in ((central, 1e-6), (forward, 1e-4)):
        assert np.array_equal(J[:n], np.hstack((np.zeros((n, n)), np.eye(n), np.zeros((n, 3)))))
        errors = _block_errors(J, ref, n)
        assert max(errors.values()) < bound, errors
        if friction:
            assert errors["zdot"] < 1e-9, errors
    if friction:  # the bristle rows are nonzero only in the joint's rate and its own deflection
        rows = central[2 * n:]
        assert np.count_nonzero(rows) <= 6 and np.all(rows[:, n + model.crane.joint_coords].diagonal() != 0.0)


@pytest.mark.parametrize("friction", [1, 2])
def test_kernel_bristle_rows_are_the_specifications(friction):
    """The kernel's analytic bristle rows (mbs_bristle_jacobian) equal friction.bristle_rate_derivatives (the
    specification) to rounding, with the joint rates in the Stribeck range (|q̇| ~ q̇_S, where LuGre's g(q̇) turns)
    and Dahl exponents 1, 2 and 1.5."""
    model, x0, _ = build_model({"n_rfe": 2, "friction_model": friction, "gamma_2": 2.0, "gamma_3": 1.5})
    crane, n = model.crane, model.n
    rng = np.random.default_rng(friction)
    for _ in range(5):
        x = x0.copy()
        v = rng.choice([-1.0, 1.0], 3) * rng.uniform(0.2, 3.0, 3) * crane.bristle.v_s
        x[n + crane.joint_coords] = v
        x[2 * n:] = rng.uniform(-0.03, 0.03, 3)
        J = model.jacobian(0.05, x, np.zeros(1), central=False)
        dv, dz = bristle_rate_derivatives(crane.friction_model, v, x[2 * n:], crane.bristle)
        rows = J[2 * n:]
        assert np.allclose(rows[:, n + crane.joint_coords].diagonal(), dv, rtol=1e-13, atol=1e-15)
        assert np.allclose(rows[:, 2 * n:].diagonal(), dz, rtol=1e-13, atol=1e-15)


# -- the stepper against its specification -----------------------------------------------------------------
def _paired(values: dict, stop: float):
    """The FMU's model stepped by ROS34PW2 twice: in the kernel, and by the Python RosenbrockW (the
    specification) given the kernel's forward-difference Jacobian, so that both steppers see the same J."""
    sims = []
    for compiled in (True, False):
        model, x0, opts = build_model({**values, "integrator": 1})
        sim = CoSimulation(model, x0, **opts)
        if not compiled:
            jac_model = build_model({**values, "integrator": 1})[0]
            model.compiled = lambda t, inputs: None
            sim.stepper.jacobian = lambda t, y, f0, s=sim: jac_model.jacobian(t, y, s.inputs, central=False)
        sims.append(sim)
    rows = [[], []]
    for _ in range(int(round(stop / 0.01))):
        for sim, out in zip(sims, rows):
            sim.step(0.01)
            out.append(sim.x.copy())
    return sims, [np.array(r) for r in rows]


@pytest.mark.parametrize("values", [{"n_rfe": 2}, {"n_rfe": 4, "friction_model": 1, "sde_damping": 1e-4}])
def test_kernel_rosenbrock_takes_the_python_steppers_steps(values):
    """Across the end of the torque pulse (21) at 0.1 s: the same accepted, rejected and Jacobian counts as
    RosenbrockW, and states within 1e-9 of their range (both solve W by different orders of the same sums:
    the full W⁻¹ against the LU of its Schur complement, so they agree to rounding, which error control may
    amplify; 1e-9 is far above that and far below any accuracy the FMU promises)."""
    sims, (kernel_x, python_x) = _paired(values, 0.3)
    for key in ("accepted", "rejected", "jacobians"):
        assert sims[0].stepper.stats[key] == sims[1].stepper.stats[key], key
    assert sims[0].stepper.stats["accepted"] > 100  # many steps: the comparison means something
    span = np.maximum(np.ptp(python_x, axis=0), 1e-9)
    assert np.max(np.abs(kernel_x - python_x) / span) < 1e-9


def _linear_chain(m1=100.0, m2=1e-2, k1=1e4, k2=1e4, c2=1e3):
    """Two bodies on prismatic joints along x0 (the second relative to the first), springs k1, k2 and a damper
    c2 on the relative coordinates: ``M ü = −K q − C u`` with constant ``M = [[m1 + m2, m2], [m2, m2]]`` -- a
    linear system whose exact solution is ``expm(A t) y0``. Eigenvalues about ±10i (the heavy body), −10 (the
    light one creeping on its damper) and −1e5 (its overdamped fast mode): stiffness ratio 1e4."""
    bodies = [Body("a", None, "prismatic", (1.0, 0.0, 0.0), coordinate=0, mass=m1, inertia=np.eye(3)),
              Body("b", "a", "prismatic", (1.0, 0.0, 0.0), coordinate=1, mass=m2, inertia=np.eye(3))]
    system = MultibodySystem(bodies, 2)
    law = CoordinateEffortLaw(np.zeros(2), np.zeros((2, 0)), np.array([-k1, -k2]), np.zeros(2), np.array([0.0, -c2]))
    M = np.array([[m1 + m2, m2], [m2, m2]])
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M, np.diag([k1, k2])),
                                                  -np.linalg.solve(M, np.diag([0.0, c2]))]])

    class Chain:
        input_names, state_size = [], 4
        dynamics = StateDerivative(system, law, 9.81)

        def derivative(self, t, x, inputs):
            kin = self.dynamics(x, inputs)
            return kin.xdot, kin

        def compiled(self, t, inputs):
            return self.dynamics.compiled(inputs)

        def check_state(self, x):
            pass

    return Chain(), A


def test_kernel_rosenbrock_is_third_order_on_a_linear_stiff_problem():
    """ROS34PW2 has classical order 3 and, being L-stable and stiffly accurate, keeps it on a linear stiff
    problem with steps 1250-1e4 times the fast time constant (h |λ_max| = 1e4 ... 1.25e3, where the explicit
    pair would need h < 3.3e-5 s). Error at t = 1 s against expm(A t) y0, steps 1/10 ... 1/80 s (error control
    switched off: rtol far above any error, max_step the step): each halving divides the error by 2³ (observed
    order 2.8-3.3; the fast mode, excited at the start, is gone after the first step: R(∞) = 0)."""
    from scipy.linalg import expm

    model, A = _linear_chain()
    lam = np.linalg.eigvals(A)
    assert np.max(np.abs(lam)) > 9e4 and np.min(np.abs(lam.real[np.abs(lam.imag) > 1])) < 1.0
    y0 = np.array([0.1, 0.01, 0.0, 0.0])
    exact = expm(A) @ y0
    errors = []
    for steps in (10, 20, 40, 80):
        sim = CoSimulation(model, y0, max_step=1.0 / steps, rtol=1e3, atol=1e3, stepper="rosenbrock")
        sim.stepper.h = 1.0 / steps
        sim.step(1.0)
        assert sim.stepper.stats["accepted"] == steps and sim.stepper.stats["rejected"] == 0
        assert sim.stepper.stats["jacobians"] == 1  # computed once by the kernel, reused: a W-method
        errors.append(np.linalg.norm(sim.x - exact) / np.linalg.norm(exact))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 2.8) & (orders < 3.3)), (errors, orders)


# -- cancellation ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("integrator, in_kernel, through_address", [(1, True, False), (2, True, False),
                                                                     (1, False, False), (1, True, True)])
def test_a_long_step_ends_early_when_cancelled_from_another_thread(integrator, in_kernel, through_address):
    """A communication step of 5 s of the 16-element crane (minutes of work) runs in a thread; 0.3 s later the
    main thread cancels it -- by CoSimulation.cancel(), or by writing 1 to the C int at cancel_flag_address as
    the FMI runtime's fmi2CancelStep would (issue 21). The step must end within 20 s with StepCancelled, the
    state left at its start; the next step starts uncancelled. The kernel is called through ctypes, which
    releases the GIL, so the flag is set while the kernel runs."""
    model, x0, opts = build_model({"n_rfe": 16, "integrator": integrator})
    if not in_kernel:
        model.compiled = lambda t, inputs: None
    sim = CoSimulation(model, x0, **opts)
    outcome = {}

    def run():
        try:
            sim.step(5.0)
            outcome["result"] = "finished"
        except StepCancelled as exc:
            outcome["result"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()  # still at work: the cancel has something to end
    if through_address:
        ctypes.c_int.from_address(sim.cancel_flag_address).value = 1
    else:
        sim.cancel()
    worker.join(20.0)
    assert not worker.is_alive(), "the cancelled step did not end"
    assert isinstance(outcome["result"], StepCancelled), outcome
    assert sim.t == 0.0 and np.array_equal(sim.x, x0)
    sim.step(1e-4)  # short: the Python stepper with 16 elements takes seconds per 10 ms
    assert sim.t == pytest.approx(1e-4)
