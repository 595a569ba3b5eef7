"""The lift through the splash zone (issue 37, analysis/splash_lift.py): in still water the crane starts settled
under the module and the module ends at rest at its target depth on the hook load of its weight in water; in a sea
the crane's inputs are the WaveVessel's outputs of the same names (the FMU's own model), the vessel's motion builds up
from rest so that the wire does not ring at the start, the module's height is the FMU's against the water; the
limiting sea state is the largest Hs up to which every Hs meets the criterion."""
from dataclasses import replace

import numpy as np
import pytest

from crane_models.analysis.sea_states import wave_vessel_motion
from crane_models.analysis.splash_lift import (WORST_OF_SEEDS, Lift, connected_inputs,
                                               limiting_sea_states, lift_summary, run_lift, sweep_sea_states)
from crane_models.core.screws import rot_x, rot_y, rot_z

RHO, G = 1025.0, 9.81


def quintic(s: float) -> float:
    """The build-up's e(s) = 10 s³ − 15 s⁴ + 6 s⁵ written out here (the issue's formula, not the code's)."""
    return 10.0 * s ** 3 - 15.0 * s ** 4 + 6.0 * s ** 5


def test_still_water_lift_ends_on_the_weight_in_water_at_the_target_depth():
    lift = Lift(hs=0.0, ahc=False)
    s = run_lift(lift)
    m, volume = lift.parameters["payload_mass"], 3.0 * 2.0 * 1.5
    # the crane starts in its pose at rest under the module: nothing moves before the payout, the hook load is the
    # module's weight m g (to 1e-6: the pose solved to 1e-12, the integrator's rtol 1e-6). Started at the
    # set-points, the booms sag under the load and the wire rings (135-252 kN).
    before = s["t"] < lift.hold
    np.testing.assert_allclose(s["hook_load"][before], m * G, rtol=1e-6)
    # at rest at the end (the payout stopped 27 s before; wire damping 8 % of critical): the weight in water, the
    # wire's ringing left within 1e-4 of it
    assert s["hook_load"][-1] == pytest.approx((m - RHO * volume) * G, rel=1e-4)
    assert s["payload_buoyancy"][-1] == pytest.approx(RHO * G * volume, rel=1e-12)
    # the centre 10 m deep: the scenario's lengths leave out the wire's stretch under the weight in water
    # (W_water L / EA = 6 cm) and the crane's sag under the hook load (2.4 cm at 20 t): within 0.1 m
    assert s["payload_height"][-1] == pytest.approx(-lift.target_depth, abs=0.1)
    summary = lift_summary(s, lift)
    assert summary["slack_time"] == 0.0 and summary["slack_sling_margin_min"] > 0.0


def test_limiting_sea_state_is_the_last_hs_before_the_first_failure():
    rows = [(hs, tp, {"slack_sling_margin_min": margin}) for tp, margins in
            ((6.0, {1.0: 0.5, 2.0: 0.2, 3.0: -0.1, 4.0: 0.1}), (8.0, {1.0: -0.2, 2.0: 0.3}),
             (10.0, {1.0: 0.9, 2.0: 0.8}))
            for hs, margin in margins.items()]
    # Tp 6: 3.0 fails, so 4.0 does not count though it passes; Tp 8: not even the smallest; Tp 10: all pass
    assert limiting_sea_states(rows) == {6.0: 2.0, 8.0: None, 10.0: 2.0}
    assert limiting_sea_states(rows, limit=0.25) == {6.0: 1.0, 8.0: None, 10.0: 2.0}


# One lift in Hs 2.5 m, Tp 8 s from the start through the module's entry (the payout starts at 12 s, its bottom meets
# the still water level at 24 s): the tests below share it.
SHORT = replace(Lift(), duration=30.0)


@pytest.fixture(scope="module")
def short_lift():
    return run_lift(SHORT)


def test_the_cranes_inputs_are_the_wave_vessels_outputs_of_the_same_names(short_lift):
    """After the build-up every input the system connects equals the WaveVessel FMU's own output of that name at
    the same communication point (the same model: to rounding, 1e-12); the vessel rolls and pitches (a heave-only
    stand-in fails). During the build-up the vessel's displacement and angles are the FMU's times e(t), and its
    velocity and acceleration their time derivatives: checked by central differences of the recorded inputs
    (h = 10 ms: error h²/6 of the third derivative, below 1e-4 of the motion's amplitudes at these periods;
    tolerance 2e-3 m/s and m/s²)."""
    s, names = short_lift, connected_inputs()
    assert {"roll", "pitch", "base_position_z", "base_acceleration_z", "angular_velocity_y"} <= set(names)
    vessel = wave_vessel_motion(SHORT.sea())
    t = s["t"]
    after = np.flatnonzero(t >= SHORT.build_up)
    want = np.array([[vessel(t[k])[n] for n in names] for k in after])
    np.testing.assert_allclose(s["inputs"][after], want, rtol=1e-12, atol=1e-12)
    column = {n: s["inputs"][:, i] for i, n in enumerate(names)}
    assert np.abs(column["roll"][after]).max() > 1e-3 and np.abs(column["pitch"][after]).max() > 5e-3
    during = np.flatnonzero(t < SHORT.build_up)
    full = wave_vessel_motion({**SHORT.sea(), "sea_build_up": 0.0})
    for n in ("roll", "pitch", "yaw", "base_position_x", "base_position_y", "base_position_z"):
        want = [quintic(t[k] / SHORT.build_up) * full(t[k])[n] for k in during]
        np.testing.assert_allclose(column[n][during], want, rtol=1e-9, atol=1e-12)
    # O's velocity and acceleration in the sea frame (the inputs give them in the vessel's axes: turned by R_S)
    R = [rot_z(column["yaw"][k]) @ rot_y(column["pitch"][k]) @ rot_x(column["roll"][k]) for k in range(len(t))]
    position = np.array([[column[f"base_position_{a}"][k] for a in "xyz"] for k in range(len(t))])
    velocity = np.array([R[k] @ [column[f"base_velocity_{a}"][k] for a in "xyz"] for k in range(len(t))])
    acceleration = np.array([R[k] @ [column[f"base_acceleration_{a}"][k] for a in "xyz"] for k in range(len(t))])
    inner = during[(during > 0) & (during < len(t) - 1)]
    h = SHORT.step
    np.testing.assert_allclose((position[inner + 1] - position[inner - 1]) / (2 * h), velocity[inner], atol=2e-3)
    np.testing.assert_allclose((velocity[inner + 1] - velocity[inner - 1]) / (2 * h), acceleration[inner], atol=2e-3)
    assert np.abs(velocity[0]).max() == 0.0 and np.abs(acceleration[0]).max() == 0.0  # from rest


def test_the_start_is_smooth(short_lift):
    """While the vessel's motion builds up, the wire (its axial period 2π√(m L/EA) = 0.42 s on 8.8 m) carries the
    module quasi-statically: hook load = m (g + z̈_tip), z̈_tip the tip's vertical acceleration in the sea (central
    differences of its height), to 2e-3 m g: the wave periods' dynamic correction (ω/ω_n)² ≤ 1 % of m z̈_tip
    (z̈_tip < 0.1 m/s² while the motion builds up) is below 1e-4 m g, the swing's share of the tension (m v²/L,
    m g θ²/2 for θ < 2°) below 1e-3 m g. A motion that starts in mid-wave rings the wire at 4 % of m g."""
    s, m = short_lift, SHORT.parameters["payload_mass"]
    t = s["t"]
    z_acc = np.gradient(np.gradient(s["tip_heave"], t), t)
    k = (t > 2 * SHORT.step) & (t <= SHORT.build_up)
    swing = np.hypot(s["swing_radial"][k], s["swing_tangential"][k])
    assert np.abs(z_acc[k]).max() < 0.1 and swing.max() < np.radians(2.0)
    assert np.abs(s["hook_load"][k] - m * (G + z_acc[k])).max() <= 2e-3 * m * G
    assert np.abs(s["hook_load"][t <= SHORT.step] - m * G).max() <= 1e-6 * m * G  # at rest under its weight at t = 0


def test_the_modules_height_is_the_fmus_against_the_water(short_lift):
    """The module's height in the sea frame (the lift's, from the crane's outputs through the vessel's attitude and
    the mounting) is the one the FMU's water forces use: partly submerged, its submergence is the wave elevation over
    its bottom, h = η − (z − H/2), to 1e-9 m."""
    s = short_lift
    partly = (s["payload_submergence"] > 1e-6) & (s["payload_submergence"] < 1.5 - 1e-6)
    assert partly.sum() > 100
    bottom = s["payload_height"][partly] - 0.75
    np.testing.assert_allclose(s["payload_submergence"][partly], s["wave_elevation_at_payload"][partly] - bottom,
                               atol=1e-9)


def test_the_module_goes_into_the_water_outboard_of_the_hull(short_lift):
    """The module enters the sea clear of the hull: the default RAO table's hull is 25 m wide (its file's header),
    centred on O's mean track; the module's centre stays more than half the beam plus its own half-diagonal
    (√(1.5² + 1²) m) to starboard whenever it is wet. The crane 9 m to starboard with a 9 m boom: 5.4 m outboard when
    the boom points over the side (at zero slew it points forward along the deck, over the hull)."""
    from crane_models.models.wave_vessel.spec import DEFAULT_TABLE

    header = DEFAULT_TABLE.read_text().split("\n# hull:", 1)[1].split("\n", 1)[0]
    beam = float(header.split("beam ", 1)[1].split(" m", 1)[0])
    assert beam == 25.0
    s = short_lift
    wet = s["payload_submergence"] > 0.0
    assert wet.any()
    assert np.max(s["payload_sea_y"][wet]) < -(0.5 * beam + np.hypot(1.5, 1.0))


def test_a_sweep_of_several_seeds_reports_each_sea_states_worst_realisation():
    """Two realisations of Hs 3.5 m, Tp 6 s (the module in the water from 24 s to the end, 40 s): the sweep's row is
    the worst of the two lifts run one by one -- the least margin and air gap, the largest hook load -- and the two
    seas differ (so a sweep that ignored the seeds would fail)."""
    lift = replace(Lift(), duration=40.0, seed=3)
    one_by_one = [lift_summary(run_lift(replace(lift, hs=3.5, tp=6.0, seed=seed)), lift) for seed in (3, 4)]
    ((hs, tp, row),) = sweep_sea_states([3.5], [6.0], False, lift, seeds=2)
    assert (hs, tp, row["seeds"]) == (3.5, 6.0, 2)
    margins = [s["slack_sling_margin_min"] for s in one_by_one]
    assert margins[0] != margins[1] and row["slack_sling_margin_per_seed"] == margins
    assert row["slack_sling_margin_min"] == min(margins)
    assert row["hook_load_max"] == max(s["hook_load_max"] for s in one_by_one)
    assert row["air_gap_min"] == min(s["air_gap_min"] for s in one_by_one)
    assert set(WORST_OF_SEEDS) == set(one_by_one[0])  # every number of the summary has its worst case
