"""The lift through the splash zone (issue 37, analysis/splash_lift.py): in still water the module ends at rest at
its target depth on the hook load of its weight in water; the limiting sea state is the largest Hs up to which every
Hs meets the criterion."""
import math

import numpy as np
import pytest

from crane_models.analysis.splash_lift import Lift, limiting_sea_states, lift_summary, run_lift

RHO, G = 1025.0, 9.81


def test_still_water_lift_ends_on_the_weight_in_water_at_the_target_depth():
    lift = Lift(hs=0.0, ahc=False)
    s = run_lift(lift)
    m, volume = lift.parameters["payload_mass"], 3.0 * 2.0 * 1.5
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


def test_the_stand_in_vessel_averages_the_wave_over_its_hull():
    """∫ cos(k x) dx over [−L/2, L/2] / L = sin(kL/2)/(kL/2): a wave as long as the hull averages out, a long one
    lifts the whole hull, a wave of 2L/3 lifts the ends against the middle (negative)."""
    from crane_models.analysis.splash_lift import hull_average

    length = 40.0
    k = 2.0 * math.pi / np.array([length, 1e6, 2.0 * length / 3.0])
    x = np.linspace(-0.5 * length, 0.5 * length, 200001)
    expected = [np.trapezoid(np.cos(ki * x), x) / length for ki in k]
    np.testing.assert_allclose(hull_average(k, length), expected, atol=1e-9)
    assert abs(hull_average(k[:1], length)[0]) < 1e-12 and hull_average(k[2:], length)[0] < 0.0
