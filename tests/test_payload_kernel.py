"""The payload's wire, winch and deck in the compiled kernel (core/native/payload.c) against their specification,
the numpy :meth:`KnuckleBoomPayloadModel.reference_derivative` (core/payload.py), and the kernel's stepping that
stops before a state event.

Tolerances: the kernel sums the same terms as numpy in another order (J_tipᵀ F column by column instead of the
matrix J first; M⁻¹ rows in C instead of numpy's product), so each block of ``ẋ`` agrees to a few ulp of its
largest entry; 1e-12 of that is a thousand times rounding and far below any physical effect (a wrong sign or a
missing term is of order one). Stepping: the kernel and the Python stepper split the communication step at
different points (the kernel checks the indicators after each of its steps, the Python stepper after each
``event_check_interval``), so they agree to the integration error, which at rtol 1e-10 is ~1e-8 of the hook load's
range; 1e-6 leaves margin and is still a thousand times below the FMU validation's 0.1 %.
"""
import numpy as np
import pytest

from crane_models.core import native as kane_native
from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
from crane_models.models.knuckle_boom.payload import KnuckleBoomPayloadModel, PayloadParameters
from crane_models.integration.cosimulation import CoSimulation
from fmu_helpers import NO_KERNEL

pytestmark = pytest.mark.skipif(kane_native.library() is None, reason=NO_KERNEL)

POSE = np.array([0.7, 1.2, 1.0])
INPUTS = np.array([3.0e3, 2.0e4, -1.0e4, 0.75, 1.15, 1.05, 0.3])  # efforts, set-points, winch paying out
BLOCKS = {"q'": slice(0, 3), "u'": slice(3, 6), "p'": slice(6, 9), "v'": slice(9, 12), "L'": slice(12, 13)}


def model_with_deck(deck_height: float) -> KnuckleBoomPayloadModel:
    return KnuckleBoomPayloadModel(KnuckleBoomModel(), PayloadParameters(deck_height=deck_height),
                                   deck_enabled=True)


def random_states(model, rng, count, load_offset_scale):
    """The crane near POSE with random speeds; the load around its static hanging point with random offsets
    and velocities."""
    x0 = model.initial_state(np.concatenate((POSE, np.zeros(3))))
    states = []
    for _ in range(count):
        x = x0.copy()
        x[:3] += rng.normal(0.0, 0.05, 3)
        x[3:6] = rng.normal(0.0, 0.2, 3)
        x[6:9] += rng.normal(0.0, load_offset_scale, 3)
        x[9:12] = rng.normal(0.0, 1.0, 3)
        x[12] += rng.uniform(-0.5, 0.5)
        states.append(x)
    return states


def kernel_and_reference(model, x, inputs=INPUTS):
    xdot_k, aux_k = model.derivative(0.0, x, inputs)
    ind_k = np.array(model.event_indicators(0.0, x, inputs))
    xdot_r, aux_r = model.reference_derivative(0.0, x, inputs)
    ind_r = np.array(model.event_indicators(0.0, x, inputs))
    return (xdot_k, aux_k, ind_k), (xdot_r, aux_r, ind_r)


def assert_blockwise_close(a, b, rel=1e-12):
    for name, s in BLOCKS.items():
        scale = max(np.max(np.abs(b[s])), 1e-300)
        assert np.max(np.abs(a[s] - b[s])) <= rel * scale, (name, a[s], b[s])


@pytest.mark.parametrize("case", ["taut", "slack", "on deck"])
def test_kernel_derivative_and_indicators_equal_the_reference(case):
    rng = np.random.default_rng({"taut": 1, "slack": 2, "on deck": 3}[case])
    if case == "on deck":  # the deck just above the hanging point: the load presses into it, the wire slack
        model = model_with_deck(model_with_deck(-100.0).initial_state(np.concatenate((POSE, np.zeros(3))))[8] + 0.3)
        states = random_states(model, rng, 20, 0.005)
    else:  # the deck far below: off it
        model = model_with_deck(-100.0)
        states = random_states(model, rng, 200, 0.02 if case == "taut" else 0.3)
    seen = set()
    for x in states:
        (xdot_k, aux_k, ind_k), (xdot_r, aux_r, ind_r) = kernel_and_reference(model, x)
        assert_blockwise_close(xdot_k, xdot_r)
        # indicators are lengths (m): absolute, 1e-12 of the wire length
        np.testing.assert_allclose(ind_k, ind_r, rtol=0.0, atol=1e-12 * model.payload.wire_length_max)
        np.testing.assert_allclose(aux_k[1], aux_r[1], rtol=0.0, atol=1e-12 * np.max(np.abs(aux_r[1])))  # u'
        np.testing.assert_allclose(aux_k[2], aux_r[2], rtol=0.0, atol=1e-12 * max(aux_r[3], 1.0))  # F
        assert aux_k[3] == pytest.approx(aux_r[3], rel=1e-12, abs=1e-9)  # T
        np.testing.assert_allclose(aux_k[4], aux_r[4], rtol=1e-14)  # tip
        assert aux_k[5] == pytest.approx(aux_r[5], rel=1e-12, abs=1e-9)  # deck force
        seen.add((ind_r[0] > 0.0, ind_r[3] > 0.0))
    expected = {"taut": (True, False), "slack": (False, False), "on deck": (False, True)}[case]
    assert expected in seen  # the case is really there (a random draw could miss it)


def test_update_inputs_equals_a_fresh_evaluation():
    """New inputs at the same state from the last evaluation (the crane's u' is affine in them): as the kernel's
    derivative at the new inputs, for the kernel's aux and the reference's."""
    model = model_with_deck(-100.0)
    x = random_states(model, np.random.default_rng(4), 1, 0.02)[0]
    new = INPUTS * np.array([0.5, -1.0, 2.0, 1.1, 0.9, 1.02, -2.0])
    fresh, _ = model.derivative(0.0, x, new)
    for derivative in (model.derivative, model.reference_derivative):
        _, aux = derivative(0.0, x, INPUTS)
        updated, _ = model.update_inputs(x, aux, INPUTS, new)
        assert_blockwise_close(updated, fresh)


def test_kernel_stepping_stops_before_the_step_that_crosses():
    """From a slack wire (the load lifted 0.2 m, falling) the kernel stops at the start of the step in which the
    wire goes taut: the signs there are still the start's, at the end of that step they have changed; without
    a crossing in the interval it reaches its end."""
    model = model_with_deck(-100.0)
    x0 = model.initial_state(np.concatenate((POSE, np.zeros(3))))
    x0[8] += 0.2
    sim = CoSimulation(model, x0, inputs=INPUTS * [0, 0, 0, 1, 1, 1, 0], stepper="dopri5", rtol=1e-8)
    k, aux = sim._current()
    signs = model.event_indicators(0.0, x0, sim.inputs) > 0.0
    assert not signs[0]  # slack
    integration, inputs = model.compiled(0.0, sim.inputs)
    # free fall of 0.2 m takes ≈ 0.2 s: no crossing in the first 0.1 s
    t_stop, t_cross, x, _, _ = integration.advance_to_event(sim.stepper, 0.0, x0, 0.1, k, aux, inputs, signs)
    assert t_stop == 0.1 and t_cross is None
    k, aux = model.derivative(0.1, x, inputs)
    t_stop, t_cross, x, k, aux = integration.advance_to_event(sim.stepper, 0.1, x, 0.5, k, aux, inputs, signs)
    assert 0.1 < t_stop < t_cross < 0.5
    assert np.array_equal(model.event_indicators(t_stop, x, inputs) > 0.0, signs)
    x_end, _, _ = integration.advance(sim.stepper, t_stop, x, t_cross, k, aux, inputs)
    assert model.event_indicators(t_cross, x_end, inputs)[0] > 0.0  # taut at the end of the crossing step


def test_kernel_stepping_matches_the_python_stepper_across_slack_and_taut_phases():
    """The co-simulation stepper with the kernel stepping against the same stepper in Python (the kernel's
    derivative per stage, the Python event checks): a bouncing load, 1 s at 10 ms."""
    def run(compiled: bool):
        model = model_with_deck(-100.0)
        x0 = model.initial_state(np.concatenate((POSE, np.zeros(3))))
        x0[6:9] += [0.3, -0.2, 0.15]  # lifted: slack, then snaps, bounces and swings
        if not compiled:
            model.compiled = lambda t, inputs: None
        sim = CoSimulation(model, x0, inputs=INPUTS * [0, 0, 0, 1, 1, 1, 0], stepper="dopri5", rtol=1e-10,
                           atol=1e-12)
        rows = []
        for _ in range(100):
            sim.step(0.01)
            out = sim.outputs()
            rows.append([out["hook_load"], out["payload_x"], out["payload_z"], out["joint1_force_z"]])
        return np.array(rows)
    kernel, python = run(True), run(False)
    assert np.count_nonzero(python[:, 0] == 0.0) >= 3 and np.count_nonzero(python[:, 0] > 0.0) >= 10
    span = np.ptp(python, axis=0)
    assert np.all(np.max(np.abs(kernel - python), axis=0) <= 1e-6 * span)
