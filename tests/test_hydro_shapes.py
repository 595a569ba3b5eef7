"""The payload shapes of core/hydro.py (issue 37) against their geometry and DNV-RP-N103's coefficients written out
here, and a tabulated body against the box it tabulates."""
import math

import numpy as np
import pytest

from crane_models.core.hydro import (BoxBody, CylinderBody, SphereBody, TabulatedBody, WaterAtPayload, hydro_forces,
                                     plate_added_mass_coefficient)

RHO = 1025.0


def test_sphere_volume_added_mass_and_areas():
    s = SphereBody(2.0, RHO)
    assert s.volume(2.0) == pytest.approx(4.0 / 3.0 * math.pi, rel=1e-14)
    assert s.volume(1.0) == pytest.approx(2.0 / 3.0 * math.pi, rel=1e-14)  # half
    assert s.added_mass(2.0) == pytest.approx(0.5 * RHO * 4.0 / 3.0 * math.pi, rel=1e-14)  # C_A = 0.5
    assert s.plan_area(1.0) == pytest.approx(math.pi, rel=1e-14) and s.side_areas(2.0)[0] == pytest.approx(math.pi)
    # dA33/dh against a central difference of A33(h)
    h, e = 0.7, 1e-6
    assert s.added_mass_slope(h) == pytest.approx((s.added_mass(h + e) - s.added_mass(h - e)) / (2 * e), rel=1e-8)


def test_cylinder_and_box_added_mass_are_dnv_s():
    # vertical cylinder, D 2 m, H 2 m: disc (8/3) ρ a³ (table A-2), λ = √(π)/(2 + √π), 4.6.3.3's factor
    lam = math.sqrt(math.pi) / (2.0 + math.sqrt(math.pi))
    factor = 1.0 + math.sqrt((1.0 - lam ** 2) / (2.0 * (1.0 + lam ** 2)))
    assert CylinderBody(2.0, 2.0, RHO).full_added_mass == pytest.approx(factor * 8.0 / 3.0 * RHO, rel=1e-14)
    # box 4 m × 2 m × 1 m: plate b/a = 2, C_A 0.757 of ρ π/4 a² b with a = 2, b = 4
    lam = math.sqrt(8.0) / (1.0 + math.sqrt(8.0))
    factor = 1.0 + math.sqrt((1.0 - lam ** 2) / (2.0 * (1.0 + lam ** 2)))
    assert BoxBody(4.0, 2.0, 1.0, RHO).full_added_mass == pytest.approx(factor * 0.757 * RHO * math.pi / 4.0 * 2.0 ** 2 * 4.0, rel=1e-14)
    assert plate_added_mass_coefficient(1.0) == 0.579 and plate_added_mass_coefficient(1e9) == pytest.approx(1.0)


def test_tabulated_box_gives_the_box_s_forces():
    box = BoxBody(3.0, 2.0, 1.5, RHO)
    depths = np.linspace(0.0, 1.5, 4)
    table = TabulatedBody(tuple(depths), tuple(3.0 * 2.0 * depths), tuple(box.full_added_mass * depths / 1.5), 6.0,
                          (2.0, 3.0), RHO)
    rng = np.random.default_rng(3)
    for _ in range(50):
        water = WaterAtPayload(float(rng.normal()), float(rng.normal()), rng.normal(size=3), rng.normal(size=3))
        bottom, velocity = float(rng.uniform(-2.5, 1.0)), rng.normal(size=3)
        a, b = hydro_forces(box, water, bottom, velocity, 1.2, 9.81), hydro_forces(table, water, bottom, velocity, 1.2,
                                                                                     9.81)
        np.testing.assert_allclose(a.explicit, b.explicit, rtol=1e-12, atol=1e-9)
        assert a.added_mass == pytest.approx(b.added_mass, rel=1e-12, abs=1e-12)


def test_tabulated_body_refuses_bad_tables():
    with pytest.raises(ValueError, match="depths must start at 0"):
        TabulatedBody((0.1, 1.0), (0.0, 1.0), (0.0, 1.0), 1.0, (1.0, 1.0), RHO)
    with pytest.raises(ValueError, match="volumes must be 2 finite values"):
        TabulatedBody((0.0, 1.0), (0.0, math.nan), (0.0, 1.0), 1.0, (1.0, 1.0), RHO)
