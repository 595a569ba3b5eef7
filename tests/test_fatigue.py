"""Rainflow counting, range-mean matrix, damage-equivalent loads and the load-spectrum factor Kp.

Expected numbers come from ASTM E1049-85 (the rainflow example of section 5.4.4, Fig. 6) and from hand
counts of a constructed history, not from the code."""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.analysis.fatigue import (Quantity, damage_equivalent_load, fatigue_summary, load_spectrum_factor,
                                           miner_damage, rainflow_cycles, range_mean_matrix, spectrum_class,
                                           spectrum_factor)

# ASTM E1049-85 (reapproved 2017), Fig. 6(a): the load history A..I used for every counting method.
ASTM_HISTORY = [-2, 1, -3, 5, -1, 3, -4, 4, -2]
# Its rainflow result, Fig. 6 / section 5.4.4.3 table "Range (units): Cycle counts":
# 10: 0, 9: 0.5, 8: 1.0, 7: 0, 6: 0.5, 5: 0, 4: 1.5, 3: 0.5.
ASTM_TABLE = {10: 0.0, 9: 0.5, 8: 1.0, 7: 0.0, 6: 0.5, 5: 0.0, 4: 1.5, 3: 0.5}

# A constructed history [N] counted by hand with the ASTM rules: the inner loop 60-20 closes as a full
# cycle (range 40, mean 40), then 100-20-100 closes (range 80, mean 60), and the residue 0-100-0 is two half
# cycles of range 100 (mean 50). N_T = 3.
HISTORY = [0.0, 100.0, 20.0, 60.0, 20.0, 100.0, 0.0]


def test_astm_e1049_example_gives_the_standards_cycle_table():
    cycles = rainflow_cycles(ASTM_HISTORY)
    table = {r: 0.0 for r in ASTM_TABLE}
    for r, n in zip(cycles.ranges, cycles.counts):
        table[int(r)] += n
    assert table == ASTM_TABLE
    assert cycles.total == sum(ASTM_TABLE.values())  # 4 cycles


def test_constructed_history_cycles_match_the_hand_count():
    cycles = rainflow_cycles(HISTORY, "N")
    got = sorted(zip(cycles.ranges.tolist(), cycles.means.tolist(), cycles.counts.tolist()))
    assert got == [(40.0, 40.0, 1.0), (80.0, 60.0, 1.0), (100.0, 50.0, 0.5), (100.0, 50.0, 0.5)]


@pytest.mark.parametrize("m", [3, 4, 5])
def test_damage_equivalent_load_equals_the_hand_computation(m):
    cycles = rainflow_cycles(HISTORY, "N")
    n_ref = 1.0e3
    expected = ((40.0 ** m + 80.0 ** m + 100.0 ** m) / n_ref) ** (1.0 / m)
    got = damage_equivalent_load(cycles, m, n_ref)
    # 1e-12 relative: a sum of three powers and one root, well inside double precision
    assert got.value == pytest.approx(expected, rel=1e-12)
    assert got.unit == "N"
    # the DEL is the constant range doing the same Miner damage over N_ref cycles: against a strength of
    # 150 N at N_ref cycles, D = N_ref DEL^m / (N_ref 150^m)
    assert miner_damage(cycles, m, Quantity(150.0, "N"), n_ref) == pytest.approx((got.value / 150.0) ** m, rel=1e-12)


def test_load_spectrum_factor_equals_the_hand_computation():
    cycles = rainflow_cycles(HISTORY, "N")
    # ranges 40, 80, 100 once each over N_T = 3: (0.4^3 + 0.8^3 + 1) / 3
    assert load_spectrum_factor(cycles) == pytest.approx((0.064 + 0.512 + 1.0) / 3.0, rel=1e-12)
    # peaks |mean| + range/2: 60, 100, 100
    assert load_spectrum_factor(cycles, "peak") == pytest.approx((0.216 + 1.0 + 1.0) / 3.0, rel=1e-12)
    assert spectrum_factor([10.0, 5.0], [1, 3]) == pytest.approx(0.25 + 0.75 / 8.0, rel=1e-12)


def test_spectrum_classes_follow_the_nominal_factors():
    assert [spectrum_class(k) for k in (0.0, 0.125, 0.126, 0.25, 0.3, 0.5, 0.51, 1.0)] == \
        ["Q1", "Q1", "Q2", "Q2", "Q3", "Q3", "Q4", "Q4"]
    with pytest.raises(ValueError, match=r"Kp = 1.2 .*\[0, 1\]"):
        spectrum_class(1.2)


def test_units_are_carried_and_scale_as_physics_says():
    """A DEL is a load (scales with the unit, carries it); Kp is a ratio of loads (unit-free)."""
    in_newton = fatigue_summary(HISTORY, "N")
    in_kilonewton = fatigue_summary(np.array(HISTORY) / 1000.0, "kN")
    for m in (3, 4, 5):
        assert in_kilonewton[f"del_m{m}"] * 1000.0 == pytest.approx(in_newton[f"del_m{m}"], rel=1e-12)
    assert in_kilonewton["kp"] == pytest.approx(in_newton["kp"], rel=1e-12)
    assert damage_equivalent_load(rainflow_cycles(HISTORY, "N.m"), 3).unit == "N.m"
    assert range_mean_matrix(rainflow_cycles(HISTORY, "N")).unit == "N"
    with pytest.raises(ValueError, match="unit"):
        miner_damage(rainflow_cycles(HISTORY, "N"), 3, Quantity(1.0, "N.m"))


def test_range_mean_matrix_bins_the_hand_counted_cycles():
    matrix = range_mean_matrix(rainflow_cycles(HISTORY, "N"), range_bins=5, mean_bins=2)
    # ranges over [0, 100] in classes of 20 N, means over [40, 60] in classes of 10 N
    expected = np.zeros((5, 2))
    expected[2, 0] = 1.0  # range 40, mean 40
    expected[4, 1] = 2.0  # range 80 mean 60, and the two halves of range 100 mean 50
    np.testing.assert_array_equal(matrix.counts, expected)
    np.testing.assert_array_equal(matrix.range_edges, [0, 20, 40, 60, 80, 100])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="series has non-finite"):
        rainflow_cycles([0.0, math.nan, 1.0])
    with pytest.raises(ValueError, match="S-N slope m = -3"):
        damage_equivalent_load(rainflow_cycles(HISTORY), -3)
    with pytest.raises(ValueError, match="range_bins = 0"):
        range_mean_matrix(rainflow_cycles(HISTORY), range_bins=0)
    assert damage_equivalent_load(rainflow_cycles([1.0, 1.0, 1.0], "N"), 3) == Quantity(0.0, "N")
