"""Active heave compensation of the winch (issue 37, models/knuckle_boom/ahc.py) on the moving-base crane in a
regular wave of 8 s: the vessel heaves 1 m (amplitude) through the crane's base-motion inputs, the payload hangs in
air on 15 m of wire. The reduction is measured here independently of the model's output, from the payload's and the
tip's heights in the sea frame (the base's heave plus their heights above the base point, the crane held still),
as 1 − std(payload height) / std(tip height) over the last two wave periods."""
import math

import numpy as np
import pytest

from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.knuckle_boom.crane import KnuckleBoomController
from crane_models.models.knuckle_boom.spec import knuckle_boom_on_moving_base_spec

PERIOD, HEAVE = 8.0, 1.0
# The paper's PD gains × 100 (K_D × 10): the booms then follow the heaving base (with the paper's gains they deflect
# under the heave's inertia, the tip moves 10 % of the heave against the vessel, and the AHC -- which compensates the
# vessel's motion at the tip, as an MRU on the hull measures it -- leaves that part: 89.5 % measured)
_C = KnuckleBoomController()
STIFF = {**{f"kp{i}": getattr(_C, f"kp{i}") * 100.0 for i in (1, 2, 3)},
         **{f"kd{i}": getattr(_C, f"kd{i}") * 10.0 for i in (1, 2, 3)}}
OMEGA = 2.0 * math.pi / PERIOD


def heaving_run(ahc: bool, t_end: float = 40.0, lowering: float = 0.0, **params):
    """The run of the module docstring; ``lowering`` [m/s]: the operator pays out at that speed from 10 to 30 s."""
    spec = knuckle_boom_on_moving_base_spec()
    values = {v.name: v.start for v in spec.parameters}
    values.update(payload_enabled=True, ahc_enabled=ahc, wire_length_0=5.0, integrator=2, rtol=1e-6,
                  mean_wrench_outputs=False, **STIFF, **params)
    model, x0, options = spec.build(values)
    names = [v.name for v in spec.inputs]
    inputs = np.array([float(v.start) for v in spec.inputs])
    sim = CoSimulation(model, x0, inputs=inputs, rtol=options["rtol"], max_step=options["max_step"],
                       stepper=options["stepper"])
    at = {n: names.index(n) for n in ("base_acceleration_z", "base_velocity_z", "base_position_z", "winch_speed")}
    dt = 0.01
    rows = []
    for k in range(int(round(t_end / dt)) + 1):
        t = k * dt
        # from a trough (at rest: the AHC starts with the winch still, as the vessel)
        inputs[at["base_position_z"]] = -HEAVE * math.cos(OMEGA * t)
        inputs[at["base_velocity_z"]] = HEAVE * OMEGA * math.sin(OMEGA * t)
        inputs[at["base_acceleration_z"]] = HEAVE * OMEGA ** 2 * math.cos(OMEGA * t)
        inputs[at["winch_speed"]] = lowering if 10.0 <= t < 30.0 else 0.0
        sim.set_inputs(inputs)
        out = model.outputs(sim.t, sim.x, sim.inputs, sim._current()[1])
        rows.append((t, inputs[at["base_position_z"]], out["payload_z"], out["tip_z"], out["wire_length"],
                     out["ahc_heave_reduction"]))
        if k * dt < t_end:
            sim.step(dt)
    return np.array(rows)


def measured_reduction(rows) -> float:
    last = rows[rows[:, 0] >= rows[-1, 0] - 2 * PERIOD]
    payload, tip = last[:, 1] + last[:, 2], last[:, 1] + last[:, 3]
    return 1.0 - np.std(payload) / np.std(tip)


def test_heave_reduction_with_a_tenth_of_a_second_delay():
    rows = heaving_run(True, t_end=60.0, ahc_delay=0.1, winch_speed_max=2.0)
    reduction = measured_reduction(rows)
    assert reduction >= 0.90, reduction
    # The running output (heights over an exponential window of 30 s) agrees: measured 0.985 against 0.982 from the
    # heights (the window still holds the first periods, when the filter and the winch were catching up): 0.02
    assert rows[-1, 5] >= 0.90
    assert rows[-1, 5] == pytest.approx(reduction, abs=0.02)

def test_lowering_is_not_heave():
    """The operator lowers 4 m during the run: the reduction is the same (the lowering is the operator's, not the
    waves'); the payload went down by the payout."""
    rows = heaving_run(True, t_end=50.0, lowering=0.2, ahc_delay=0.1, winch_speed_max=2.0)
    assert rows[-1, 5] >= 0.95
    height = rows[:, 1] + rows[:, 2]  # in the sea frame
    assert height[-1] - height[0] == pytest.approx(-4.0, abs=0.05)  # the heave residual and the stretch: 5 cm


def test_no_reduction_when_switched_off():
    rows = heaving_run(False)
    # the payload follows the tip (the wire's axial mode, 50 rad/s, is far above the wave's 0.79 rad/s): 0 within 2 %
    assert abs(measured_reduction(rows)) < 0.02
    assert np.all(rows[:, 5] == 0.0)  # the output is 0 without AHC


def test_winch_speed_and_acceleration_limits_hold():
    """A heave the winch cannot follow (tip velocity amplitude 0.79 m/s, limit 0.5 m/s; acceleration limit 0.3 m/s²
    against the 0.62 m/s² the heave needs): dL/dt and d²L/dt² from the wire length stay within the limits (finite
    differences of the 10 ms record: 1e-6 of the limit for rounding; acceleration from three points, the speed being
    continuous)."""
    rows = heaving_run(True, t_end=24.0, winch_speed_max=0.5, winch_acceleration_max=0.3)
    t, length = rows[:, 0], rows[:, 4]
    speed = np.diff(length) / np.diff(t)
    acceleration = np.diff(speed) / np.diff(t)[1:]
    assert np.max(np.abs(speed)) <= 0.5 * (1 + 1e-6)
    assert np.max(np.abs(speed)) > 0.45  # the limit is reached
    assert np.max(np.abs(acceleration)) <= 0.3 * (1 + 1e-3)
    assert np.max(np.abs(acceleration)) > 0.25
    assert measured_reduction(rows) < 0.85  # the limits cost compensation
