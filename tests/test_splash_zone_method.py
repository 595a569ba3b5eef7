"""DNV-RP-N103's simplified method (issue 37, analysis/splash_zone.py): each characteristic force against the
formulas written out here for two cases (a box entering the water with the tip heaving; a sphere fully submerged
in a short sea with the tip still), and the command's report."""
import json
import math

import numpy as np
import pytest

from crane_models.core.sea import jonswap

from crane_models.analysis.splash_zone import SplashCase, simplified_method, tz_of_jonswap
from crane_models.app.cli import main

RHO, G = 1025.0, 9.81

CASES = [
    # M, V, A33, A_p, A_s, A_w, d, Hs, Tz, v_c, η_ct, v_ct, a_ct, C_D, C_s, ζa/Hs
    (20000.0, 3.0, 9000.0, 6.0, 6.0, 6.0, 0.25, 2.5, 7.0, 0.5, 0.4, 0.314, 0.247, 2.5, 5.0, 0.9),
    (8000.0, 4.19, 2146.0, 3.14, 0.0, 0.0, 3.0, 1.5, 5.5, 0.3, 0.0, 0.0, 0.0, 0.6, 5.0, 2.0),
]


@pytest.mark.parametrize("values", CASES)
def test_each_characteristic_force_is_dnv_s_formula(values):
    m, v, a33, ap, a_s, aw, d, hs, tz, vc, eta, vct, act, cd, cs, factor = values
    got = simplified_method(SplashCase(m, v, a33, ap, a_s, aw, d, hs, tz, vc, eta, vct, act, cd, cs, RHO, G, factor))
    za = factor * hs
    vw = za * (2 * math.pi / tz) * math.exp(-4 * math.pi ** 2 * d / (tz ** 2 * G))
    aw_ = za * (2 * math.pi / tz) ** 2 * math.exp(-4 * math.pi ** 2 * d / (tz ** 2 * G))
    vr = vc + math.sqrt(vct ** 2 + vw ** 2)
    f_slam = 0.5 * RHO * cs * a_s * vr ** 2
    f_rho = RHO * aw * math.sqrt(za ** 2 + eta ** 2) * G
    f_m = math.sqrt(((m + a33) * act) ** 2 + ((RHO * v + a33) * aw_) ** 2)
    f_d = 0.5 * RHO * cd * ap * vr ** 2
    f_hyd = math.sqrt((f_d + f_slam) ** 2 + (f_m - f_rho) ** 2)
    static_min = m * G - RHO * v * G
    for name, expected in (("water_velocity", vw), ("water_acceleration", aw_), ("relative_velocity", vr),
                           ("slamming", f_slam), ("varying_buoyancy", f_rho), ("mass_force", f_m), ("drag", f_d),
                           ("hydrodynamic", f_hyd), ("static_min", static_min), ("total", m * G + f_hyd)):
        assert getattr(got, name) == pytest.approx(expected, rel=1e-12), name
    assert got.slack_sling_ok == (f_hyd <= 0.9 * static_min)


@pytest.mark.parametrize("gamma", [1.0, 3.3, 5.0])
def test_tz_of_jonswap_is_that_of_the_spectral_moments(gamma):
    """Tz = 2π √(m0/m2) of the JONSWAP spectrum (DNV-RP-C205 3.5.5, the sea core's), numerically: DNV's polynomial
    Tz/Tp is a fit, within 0.5 % of it (0.2 % measured at γ = 1)."""
    w = np.linspace(0.05, 20.0, 400001)
    s = jonswap(w, 2.0, 10.0, gamma)
    m0, m2 = np.trapezoid(s, w), np.trapezoid(w * w * s, w)
    assert tz_of_jonswap(10.0, gamma) == pytest.approx(2.0 * math.pi * math.sqrt(m0 / m2), rel=5e-3)


def test_command_reports_the_three_positions_and_refuses_bad_numbers(capsys):
    assert main(["splash-zone", "--mass", "20000", "--size", "3", "2", "1.5", "--hs", "1.0", "--tz", "7",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["positions"]) == {"slamming", "half submerged", "fully submerged"}
    full = data["positions"]["fully submerged"]
    assert full["static_min"] == pytest.approx((20000.0 - RHO * 9.0) * G)
    assert full["slamming"] == 0.0 and data["positions"]["slamming"]["slamming"] > 0.0
    with pytest.raises(SystemExit) as exit_:
        main(["splash-zone", "--mass", "20000", "--hs", "1.0"])
    assert exit_.value.code == 2
    assert "give one of --tp" in capsys.readouterr().err
