"""The explicit steppers run inside the compiled kernel (``mbs_integrate``) for models whose right-hand side
is compiled (VesselCrane, FlexibleCrane). The Python steppers of integrators.py are the specification: the
kernel must take the same steps (same accepted/rejected counts, so the same error-control decisions) and
reach the same states. Both sum the same terms in a different order, so states agree to rounding, which the
error control may amplify over many steps; 1e-9 of each output's range over the short runs here is far
above that and far below the 0.1 % of range the FMU validation checks."""
import math

import numpy as np
import pytest

from crane_models.core import native as kane_native
from crane_models.core.effort_laws import CoordinateEffortLaw
from crane_models.models.flexible_crane.spec import build_model
from crane_models.integration.integrators import DormandPrince54, DormandPrince853, EmbeddedRK23, StepFailure
from crane_models.core.state_derivative import StateDerivative
from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
from crane_models.models.vessel_crane.scenarios import vessel_crane_hoisting
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.vessel_crane.crane import VesselCraneInitialState, VesselCraneModel
from fmu_helpers import NO_KERNEL

pytestmark = pytest.mark.skipif(kane_native.library() is None, reason=NO_KERNEL)


def _without_kernel_stepping(model):
    model.compiled = lambda t, inputs: None  # the Python stepper calls the (kernel) derivative per stage
    return model


def _run(sim, steps, step, inputs_at=None):
    rows = []
    for i in range(steps):
        if inputs_at is not None:
            sim.set_inputs(np.asarray(inputs_at(i * step), dtype=float))
        sim.step(step)
        rows.append(list(sim.outputs().values()))
    return np.array(rows)


def _agree(a, b, rel=1e-9):
    span = np.maximum(np.ptp(b, axis=0), 1e-6)
    return float(np.max(np.abs(a - b) / span))


@pytest.mark.parametrize("stepper, atol", [("dopri5", 3e-6), ("rk23", 1e-6), ("dop853", 3e-6)])
def test_vessel_crane_steps_in_the_kernel_as_in_python(stepper, atol):
    sc = vessel_crane_hoisting()
    sims = []
    for model in (VesselCraneModel(), _without_kernel_stepping(VesselCraneModel())):
        sims.append(CoSimulation(model, VesselCraneInitialState().state(), max_step=0.01, rtol=1e-5, atol=atol,
                                 stepper=stepper))
    compiled, python = (_run(s, 300, 0.01, sc.signals) for s in sims)
    assert sims[0].model.compiled(0.0, sims[0].inputs) is not None
    assert _agree(compiled, python) < 1e-9
    for key in ("evaluations", "accepted", "rejected"):
        assert sims[0].stepper.stats[key] == sims[1].stepper.stats[key], key


def test_knuckle_boom_steps_in_the_kernel_as_in_python_with_its_end_stops():
    """The hoisting demo driven into the stroke limit of cylinder 3 (set-point beyond it): the law's end stops
    and gravity compensation in the kernel, against the Python stepper."""
    from crane_models.models.registry import SPECS
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting

    sc = knuckle_boom_hoisting()
    spec = SPECS["KnuckleBoomCrane"]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(sc.start_values)
    hi3 = KnuckleBoomModel().crane._stroke[2][1]
    values.update(q3_0=hi3 - 0.001, u3_0=0.05)  # running into the stop, the PD pushing it further
    sims = []
    for compiled in (True, False):
        model, x0, opts = spec.build(values)
        sims.append(CoSimulation(model if compiled else _without_kernel_stepping(model), x0, **opts))
    push = lambda t: np.concatenate((np.zeros(3), [0.0, 0.6, hi3 + 0.05]))  # noqa: E731
    a, b = (_run(s, 100, 0.01, push) for s in sims)
    assert _agree(a, b) < 1e-9
    assert sims[0].outputs()["end_stop_active"] == 1 and sims[0].outputs()["end_stop_force3"] < 0.0
    for key in ("evaluations", "accepted", "rejected"):
        assert sims[0].stepper.stats[key] == sims[1].stepper.stats[key], key


@pytest.mark.parametrize("n_rfe, integrator", [(1, 3), (4, 3), (4, 2)])
def test_flexible_crane_steps_in_the_kernel_as_in_python_across_the_torque_pulse_end(n_rfe, integrator):
    """Steps of 0.0099 s (not a divisor of the pulse's 0.1 s): the switching time falls inside a step, which
    CoSimulation splits; the kernel must hold the pulse on before it and off after it. The FMU's automatic
    stepper (DOP853 here: its two error estimates combined in the kernel as in Python) and DP5."""
    sims = []
    for compiled in (True, False):
        model, x0, opts = build_model({"n_rfe": n_rfe, "integrator": integrator})
        sims.append(CoSimulation(model if compiled else _without_kernel_stepping(model), x0, **opts))
    steps = 16 if n_rfe == 1 else 12
    a, b = (_run(s, steps, 0.0099) for s in sims)
    assert _agree(a, b) < 1e-9
    drive = list(sims[0].outputs()).index("drive_torque")
    assert a[9, drive] != 0.0 and a[10, drive] == 0.0  # 0.099 s: on; 0.1089 s: off
    for key in ("evaluations", "accepted", "rejected"):
        assert sims[0].stepper.stats[key] == sims[1].stepper.stats[key], key


def test_a_stage_outside_the_models_domain_is_rejected_like_in_python():
    """A cylinder loop (knuckle boom, maps in the kernel) oscillating 0.3 m before the end of its stroke on
    a stiff spring (generalized mass ≈ 2e6 kg, 1e9 N/m: ω ≈ 22 rad/s, amplitude 2/ω ≈ 0.09 m): the first
    0.2 s trial step's stages land beyond the closable range, which both steppers must treat as a rejected
    step (not an error), and then they must integrate the same motion."""
    from crane_models.core.cylinders import CylinderOutOfRange

    system = KnuckleBoomModel().crane.system
    lo, hi = KnuckleBoomModel().crane.cylinders[2].extension_range()  # the cylinder of q2
    n = system.n
    rest = np.array([0.0, hi - 0.3, 1.0])
    stiffness = np.array([0.0, 1e9, 1e8])
    law = CoordinateEffortLaw(constant=stiffness * rest, input_gain=np.zeros((n, 0)), linear=-stiffness,
                              cubic=np.zeros(n), damping=np.array([-1e4, -1e3, -1e3]))
    dynamics = StateDerivative(system, law, 9.81)
    x0 = np.concatenate((rest, [0.0, 2.0, 0.0]))
    outside = []

    def f(t, x):
        try:
            return dynamics(x, np.zeros(0)).xdot, None
        except CylinderOutOfRange:
            outside.append(t)
            raise

    for stepper_cls in (DormandPrince54, EmbeddedRK23, DormandPrince853):
        results = []
        for compiled in (True, False):
            st = stepper_cls(rtol=1e-6, atol=1e-9, max_step=0.2)
            k = dynamics(x0, np.zeros(0)).xdot.copy()
            if compiled:
                integration, w = dynamics.compiled(np.zeros(0))
                y, _, _ = integration.advance(st, 0.0, x0, 0.3, k, None, w)
            else:
                del outside[:]
                y, _, _ = st.advance(f, 0.0, x0, 0.3, k)
                assert outside, "the scenario must send a stage out of the cylinder's range"
            results.append((y, dict(st.stats)))
        (ya, sa), (yb, sb) = results
        assert sa["rejected"] == sb["rejected"] >= 1 and sa["accepted"] == sb["accepted"]
        assert np.allclose(ya, yb, rtol=1e-9, atol=1e-12)
        assert lo < ya[1] < hi - 0.15


def test_step_size_underflow_raises_and_leaves_the_state_unchanged():
    model = VesselCraneModel()
    sim = CoSimulation(model, VesselCraneInitialState().state(), max_step=0.01, rtol=1e-12, atol=1e-14,
                       stepper="dopri5")
    sim.stepper.min_step = 2e-3  # far above what rtol 1e-12 needs after a set-point jump
    sim.set_inputs(np.array([0.5, 0.8, -0.6, 0.0, 0.0, 0.0]))
    x, t = sim.x.copy(), sim.t
    with pytest.raises(StepFailure, match="step size fell below"):
        sim.step(0.01)
    assert np.array_equal(sim.x, x) and sim.t == t and math.isfinite(sim.stepper.h)


@pytest.mark.parametrize("stepper_cls", [DormandPrince54, EmbeddedRK23, DormandPrince853])
def test_step_growth_from_a_tiny_step_is_the_same_as_in_python(stepper_cls):
    """From h = 1e-7 on a smooth motion the controller grows the step by its cap (5×) per step until the
    error counts: the number of steps to reach 0.1 s depends on that cap and on the last-step rule. The final
    step sizes agree to 1e-12, DOP853's to 1e-8: its estimates are sums whose terms cancel to the h^6 and h^4
    parts (Σ|e_i K_i| up to 2e7 times |Σ e_i K_i| on this slow motion), so the two summation orders' rounding
    reaches ~4e-9 of the error, an eighth of that per step in h, over 11 steps."""
    model = VesselCraneModel()
    x0 = VesselCraneInitialState().state()
    w = np.array([0.0, 0.2, -1.4, 0.0, 0.0, 0.0])  # the initial pose held: a slow sag under gravity
    k0 = model.derivative(0.0, x0, w)[0].copy()
    counts = []
    for compiled in (True, False):
        st = stepper_cls(rtol=1e-3, atol=1e-6, max_step=0.1)
        st.h = 1e-7
        if compiled:
            integration, inputs = model.compiled(0.0, w)
            y, _, _ = integration.advance(st, 0.0, x0, 0.1, k0, None, inputs)
        else:
            y, _, _ = st.advance(lambda t, x: model.derivative(t, x, w), 0.0, x0, 0.1, k0)
        counts.append((st.stats["accepted"], st.stats["rejected"], st.h, y))
    (na, ra, ha, ya), (nb, rb, hb, yb) = counts
    rel = 1e-8 if stepper_cls is DormandPrince853 else 1e-12
    assert (na, ra) == (nb, rb) and na >= 8 and ha == pytest.approx(hb, rel=rel)
    assert np.allclose(ya, yb, rtol=1e-10, atol=1e-13)
