"""Issue 36, item 2: the default RAO table the package ships (crane_models/models/wave_vessel/data/) -- its format
(docs/sea.md, "RAO tables") and its physics, checked against long-wave limits, the box's hydrostatics and the
hull's symmetry. Independent of Capytaine and of the package's reader: the file is parsed here.

Axes of the format: x forward, y to port, z up; heading = the direction the waves travel towards (0 following
seas, pi head seas); motion j = amp_j a cos(wt + eps + phase_j) for the wave a cos(wt + eps) at O.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import crane_models

TABLE = Path(crane_models.__file__).parent / "models" / "wave_vessel" / "data" / "default_rao.csv"
COLUMNS = ("omega,heading,surge_amplitude,surge_phase,sway_amplitude,sway_phase,heave_amplitude,heave_phase,roll_amplitude,roll_phase,"
           "pitch_amplitude,pitch_phase,yaw_amplitude,yaw_phase").split(",")
DOFS = ("surge", "sway", "heave", "roll", "pitch", "yaw")


def read_table(path: Path = TABLE) -> dict:
    """{"comments": [...], "header": [...], "omegas", "headings": sorted unique values, "amp"/"phase": {dof: array
    (omega, heading)}, "rows": number of rows}."""
    comments, header, rows = [], None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            comments.append(line[1:].strip())
        elif header is None:
            header = line.split(",")
        elif line.strip():
            rows.append([float(v) for v in line.split(",")])
    data = np.array(rows)
    col = {name: data[:, header.index(name)] for name in header}
    omegas, headings = np.unique(col["omega"]), np.unique(col["heading"])
    i, h = np.searchsorted(omegas, col["omega"]), np.searchsorted(headings, col["heading"])
    count = np.zeros((omegas.size, headings.size), int)
    np.add.at(count, (i, h), 1)
    amp, phase = {}, {}
    for dof in DOFS:
        amp[dof], phase[dof] = np.full(count.shape, np.nan), np.full(count.shape, np.nan)
        amp[dof][i, h], phase[dof][i, h] = col[f"{dof}_amplitude"], col[f"{dof}_phase"]
    return {"comments": comments, "header": header, "omegas": omegas, "headings": headings, "amp": amp,
            "phase": phase, "count": count}


@pytest.fixture(scope="module")
def table():
    return read_table()


def number_after(comments: list, line_start: str, pattern: str) -> float:
    """The number the comment line beginning with ``line_start`` gives after ``pattern`` (a regular expression)."""
    for line in comments:
        found = re.search(pattern + r"\s*([-+0-9.eE]+)", line) if line.startswith(line_start) else None
        if found:
            return float(found.group(1))
    raise AssertionError(f"no comment line '{line_start}...' gives {pattern!r}")


def hull(comments: list) -> dict:
    """The box and its mass data from the lines 'hull: box, length L m, beam B m, draught T m, KG .. m, .. kxx ..'
    and 'mass .. (.., rho .. kg/m3), g .. m/s2'."""
    keys = {"L": r"length", "B": r"beam", "T": r"draught", "KG": r"KG", "kxx": r"kxx"}
    out = {name: number_after(comments, "hull: box", pattern) for name, pattern in keys.items()}
    return {**out, "rho": number_after(comments, "mass", r"rho"), "g": number_after(comments, "mass", r"\bg")}


def wrapped(angle):
    """An angle difference brought into [-pi, pi)."""
    return (np.asarray(angle) + np.pi) % (2 * np.pi) - np.pi


def column_of(headings: np.ndarray, heading: float) -> int:
    index = int(np.argmin(np.abs(wrapped(headings - heading))))
    assert abs(wrapped(headings[index] - heading)) < 1e-9, f"no heading {heading} rad in the table"
    return index


def test_the_table_is_a_full_grid_of_the_agreed_format(table):
    assert sorted(table["header"]) == sorted(COLUMNS) and len(table["header"]) == 14
    assert np.all(table["count"] == 1), "every (omega, heading) pair exactly once"
    omegas, headings = table["omegas"], table["headings"]
    assert omegas[0] <= 0.2 and omegas[-1] >= 2.5 and omegas.size >= 60
    np.testing.assert_allclose(headings, np.radians(np.arange(0, 360, 15)), atol=1e-9)  # full circle, radians
    for dof in DOFS:
        assert np.all(np.isfinite(table["amp"][dof])) and np.all(table["amp"][dof] >= 0)
        assert np.all(np.abs(table["phase"][dof]) <= np.pi + 1e-9)
    text = "\n".join(table["comments"])
    for needed in ("reference point", "Capytaine", "regenerate: crane-cosim rao", "limits", "roll damping",
                   "mesh", "origin"):
        assert needed in text, f"the comment lines state {needed!r}"
    assert re.search(r"computed \d{4}-\d\d-\d\d", text), "the comment lines date the table"


# Long waves (the lowest omega, a wavelength 2 pi g / w^2 of ~6 km against a 120 m hull): the hull follows the
# surface. Deviations, bounded from above by physics: the pressure decays over the draught (Smith effect, ~kT),
# the dynamic amplification 1 / (1 - (w / wn)^2) with wn >= 0.5 rad/s (heave and pitch periods of a hull this
# size: 6-12 s), the averaging over the length ((kL/2)^2 / 6). At w = 0.1: 0.007 + 0.04 + 0.001 < 0.05.
LONG_WAVE_TOLERANCE = 0.05
# Phase: the damping lag 2 zeta r / (1 - r^2) with r = w / wn <= 0.2 and zeta < 0.3: below 0.13 rad.
LONG_WAVE_PHASE = 0.13


def lowest_omega(table) -> float:
    w = table["omegas"][0]
    assert w <= 0.1 + 1e-12, "the long-wave checks need the table to start at 0.1 rad/s or below"
    return w


def test_heave_follows_long_waves_at_every_heading(table):
    lowest_omega(table)
    np.testing.assert_allclose(table["amp"]["heave"][0], 1.0, atol=LONG_WAVE_TOLERANCE)
    np.testing.assert_allclose(wrapped(table["phase"]["heave"][0]), 0.0, atol=LONG_WAVE_PHASE)


def test_pitch_follows_the_wave_slope_and_surge_the_orbit_in_long_waves(table):
    """Waves a cos(wt - k x cos b - k y sin b). Head seas (b = pi): slope d(eta)/dx = -a k sin(wt) at O; a hull
    following the surface has its bow up when the slope is positive, and positive pitch (about +y, y to port) is
    bow down: pitch = +a k sin(wt) = a k cos(wt - pi/2). Following seas: the opposite, phase +pi/2. Surge follows
    the particles' horizontal orbit (radius a in deep water): x = a sin(wt) = a cos(wt - pi/2) in following seas,
    phase +pi/2 in head seas. These phases check the conversion from Capytaine's e^{-iwt} convention."""
    w = lowest_omega(table)
    k = w ** 2 / hull(table["comments"])["g"]
    for heading, pitch_phase, surge_phase in ((np.pi, -np.pi / 2, np.pi / 2), (0.0, np.pi / 2, -np.pi / 2)):
        h = column_of(table["headings"], heading)
        assert table["amp"]["pitch"][0, h] == pytest.approx(k, rel=LONG_WAVE_TOLERANCE)
        assert wrapped(table["phase"]["pitch"][0, h] - pitch_phase) == pytest.approx(0.0, abs=LONG_WAVE_PHASE)
        assert table["amp"]["surge"][0, h] == pytest.approx(1.0, abs=LONG_WAVE_TOLERANCE)
        assert wrapped(table["phase"]["surge"][0, h] - surge_phase) == pytest.approx(0.0, abs=LONG_WAVE_PHASE)


def roll_natural_frequency(comments: list) -> float:
    """w = sqrt(rho g V GM / (m kxx^2 + A44)) of the box: GM = KB + BM - KG, KB = T/2, BM = B^2 / (12 T), the
    mass the displaced water's m = rho V, A44 the added roll inertia the comment lines give (the table's BEM)."""
    p = hull(comments)
    volume = p["L"] * p["B"] * p["T"]
    gm = p["T"] / 2 + p["B"] ** 2 / (12 * p["T"]) - p["KG"]
    added = number_after(comments, "roll natural frequency", r"roll added inertia A44")
    return math.sqrt(p["rho"] * p["g"] * volume * gm / (p["rho"] * volume * p["kxx"] ** 2 + added))


def test_the_roll_peak_in_beam_seas_is_at_the_hydrostatic_natural_period(table):
    """The peak of the roll RAO lies at the natural frequency within 2 % plus half the grid spacing there: the
    damped peak moves by about zeta^2 (0.4 % for the table's ~6 % of critical), the roll moment's rise with w by
    as little, Capytaine's one-point panel quadrature of the waterplane's second moment makes its C44 1 % low
    (0.5 % in w) against the box's GM used here; A44 (the table's, at the natural frequency) is the same."""
    wn = roll_natural_frequency(table["comments"])
    omegas = table["omegas"]
    spacing = np.interp(wn, omegas[1:], np.diff(omegas))
    for heading in (np.pi / 2, 3 * np.pi / 2):
        roll = table["amp"]["roll"][:, column_of(table["headings"], heading)]
        peak = omegas[int(np.argmax(roll))]
        assert abs(peak - wn) <= 0.02 * wn + spacing / 2, (peak, wn)


def test_the_roll_peak_is_bounded_by_the_added_roll_damping(table):
    """At resonance the roll amplitude is the roll moment over w B44; the wave's roll moment in beam seas is at most
    C44 times the wave slope k a (its Froude-Krylov part on a wall-sided hull in waves long against the beam; the
    effective slope of a 25 m beam in 270 m waves is below 1), and B44 is at least the added 2 zeta sqrt(C44 I)
    = 2 zeta C44 / w: so roll / a <= k / (2 zeta), zeta the added fraction of critical the table states (the
    radiation damping only adds to it). Without the added damping the peak would pass this bound."""
    zeta = number_after(table["comments"], "roll damping", r"plus a linear")
    g = hull(table["comments"])["g"]
    for heading in (np.pi / 2, 3 * np.pi / 2):
        roll = table["amp"]["roll"][:, column_of(table["headings"], heading)]
        peak = int(np.argmax(roll))
        assert roll[peak] <= table["omegas"][peak] ** 2 / g / (2 * zeta), (roll[peak], zeta)


def test_head_and_following_seas_excite_no_sway_roll_or_yaw(table):
    """The hull is symmetric about its centre plane: waves along it cannot move it sideways. The BEM keeps this to
    round-off; the bound, 1e-6 of the largest amplitude of the motion anywhere in the table, is far above it."""
    for heading in (0.0, np.pi):
        h = column_of(table["headings"], heading)
        for dof in ("sway", "roll", "yaw"):
            assert np.max(table["amp"][dof][:, h]) <= 1e-6 * np.max(table["amp"][dof]), (heading, dof)


def test_mirror_headings_port_and_starboard_give_equal_amplitudes(table):
    """Waves from starboard (heading b) and from port (-b) are mirror images about the centre plane: surge, heave
    and pitch are the same, sway, roll and yaw change sign -- equal amplitudes. Each heading is a separate BEM
    diffraction problem, so this checks the computation, to 1e-6 of the motion's largest amplitude."""
    headings = table["headings"]
    for h, heading in enumerate(headings):
        m = column_of(headings, -heading)
        for dof in DOFS:
            scale = np.max(table["amp"][dof])
            np.testing.assert_allclose(table["amp"][dof][:, h], table["amp"][dof][:, m], rtol=0,
                                       atol=1e-6 * scale, err_msg=f"{dof}, headings {heading} and {-heading}")


def test_every_fmu_carries_the_table_but_not_the_bem():
    """The WaveVessel FMU reads the default table from its own files; the Capytaine computation (an optional extra,
    scipy and xarray behind it) stays out of every FMU."""
    from crane_models.fmi.bundle import is_bundled

    assert is_bundled("models/wave_vessel/data/default_rao.csv")
    assert not is_bundled("models/wave_vessel/capytaine_rao.py")
