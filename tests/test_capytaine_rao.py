"""Issue 36, item 2: RAOs computed with Capytaine (crane_models/models/wave_vessel/capytaine_rao.py) for a small
coarse box, checked against what does not come from the BEM: the box's hydrostatics written out, the long-wave
limit of heave, the Haskind relation (the radiation damping from the diffraction forces: energy conservation in
the far field), the reciprocity of added mass, and the CSV writer against the format's phase convention."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from crane_models.models.wave_vessel.capytaine_rao import BoxHull, hull_raos, write_rao_csv

# Each test skips, not the module's collection: a run selecting other tests (-m ecospy) then records no skip here.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("capytaine") is None,
                                reason="capytaine is not installed (pip install 'crane-cosim[bem]'): the RAO "
                                       "computation is an optional extra")

RHO, G = 1025.0, 9.81
BOX = BoxHull(length=20.0, beam=8.0, draught=3.0, kg=2.5, radii=(3.0, 5.0, 5.2))
PANEL = 1.0  # m: 20 x 8 panels on the bottom, 3 rows on the sides; a few seconds of BEM
OMEGAS = np.array([0.1, 0.6, 1.0, 1.4])
HEADINGS = np.radians(np.arange(0.0, 360.0, 15.0))
HEAVE, ROLL, PITCH, SURGE = 2, 3, 4, 0


@pytest.fixture(scope="module")
def box_table():
    return hull_raos(BOX, OMEGAS, HEADINGS, panel_size=PANEL, rho=RHO, g=G)


def test_hydrostatic_stiffness_is_the_box_s(box_table):
    """C33 = rho g L B, C44 = rho g V GM, C55 = rho g V GM_L with GM = T/2 + B^2/(12 T) - KG and
    GM_L = T/2 + L^2/(12 T) - KG (the box's metacentric heights written out), the others zero (a box symmetric
    about O's vertical planes): exact for flat panels integrated with Gauss points, to round-off (1e-9)."""
    L, B, T, KG = BOX.length, BOX.beam, BOX.draught, BOX.kg
    volume, c = L * B * T, box_table.stiffness
    assert c[HEAVE, HEAVE] == pytest.approx(RHO * G * L * B, rel=1e-9)
    assert c[ROLL, ROLL] == pytest.approx(RHO * G * volume * (T / 2 + B ** 2 / (12 * T) - KG), rel=1e-9)
    assert c[PITCH, PITCH] == pytest.approx(RHO * G * volume * (T / 2 + L ** 2 / (12 * T) - KG), rel=1e-9)
    off_diagonal = c - np.diag(np.diag(c))
    assert np.max(np.abs(off_diagonal)) <= 1e-9 * c[HEAVE, HEAVE]


def test_heave_follows_long_waves(box_table):
    """At w = 0.1 rad/s (wavelength 6 km) the 20 m box rises and falls with the surface: deviations kT = 0.003
    (pressure decay over the draught) and (w / wn)^2 < 0.01 (heave natural frequency above 1 rad/s for a 3 m
    draught), so within 0.02 in amplitude and 0.02 rad in phase."""
    heave = box_table.rao[0, :, HEAVE]
    np.testing.assert_allclose(np.abs(heave), 1.0, atol=0.02)
    np.testing.assert_allclose(np.angle(heave), 0.0, atol=0.02)


def test_radiation_damping_obeys_the_haskind_relation(box_table):
    """Haskind (Newman 1962; Marine Hydrodynamics, chapter 6; deep water): B_jj = k / (8 pi rho g c_g) * the integral over
    all headings of |X_j|^2, X_j the wave exciting force per unit amplitude, c_g = g / (2 w). The damping comes
    from the radiation problems, the forces from the diffraction problems: they agree when the BEM conserves
    energy, to the discretisation error of this coarse mesh: 1.8-2.6 % measured at 0.6-1.4 rad/s, 0.2-1.2 % with
    0.5 m panels (it converges), so 4 %. The heading integral of a smooth periodic function on 24 equal steps is
    exact to far better than that (trapezoidal rule)."""
    for i, w in enumerate(OMEGAS[1:], start=1):
        k, group_velocity = w ** 2 / G, G / (2 * w)
        for j in (SURGE, HEAVE, PITCH):
            integral = np.sum(np.abs(box_table.excitation[i, :, j]) ** 2) * (2 * np.pi / HEADINGS.size)
            haskind = k / (8 * np.pi * RHO * G * group_velocity) * integral
            assert box_table.damping[i, j, j] == pytest.approx(haskind, rel=0.04), (w, j)


def test_added_mass_is_symmetric(box_table):
    """Reciprocity of the radiation problems (Green's theorem): A_ij = A_ji, to the discretisation of a coarse
    mesh: 1 % of sqrt(A_ii A_jj), the scale of a coupling term (the indirect BEM's matrix is not symmetric; the
    surge-pitch pair differs by 0.4 % of it here)."""
    for a in box_table.added_mass:
        scale = np.sqrt(np.outer(np.abs(np.diag(a)), np.abs(np.diag(a))))
        assert np.all(np.abs(a - a.T) <= 0.01 * scale)


def test_the_csv_holds_the_format_s_phase(box_table, tmp_path):
    """Capytaine's motion X means Re(X e^{-iwt}); the format's phase p means amp cos(wt + p): p = -arg X. The
    written file, read back with numpy, holds |X| and -arg X of the BEM's motion (the table's conj(X))."""
    path = write_rao_csv(tmp_path / "box.csv", box_table, ["a test box"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# a test box"
    header = [line for line in lines if not line.startswith("#")][0]
    data = np.genfromtxt(path, delimiter=",", comments="#", skip_header=lines.index(header) + 1,
                         names=header.split(","))
    impedance = (-OMEGAS[2] ** 2 * (box_table.mass_matrix + box_table.added_mass[2])
                 - 1j * OMEGAS[2] * box_table.damping[2] + box_table.stiffness)
    h = 6  # heading 90 degrees: waves travelling to port, heave and roll both excited
    x = np.linalg.solve(impedance, box_table.excitation[2, h])  # Capytaine's convention, solved here
    row = data[(np.abs(data["omega"] - OMEGAS[2]) < 1e-9) & (np.abs(data["heading"] - HEADINGS[h]) < 1e-9)][0]
    for name, j in (("heave", HEAVE), ("roll", ROLL)):
        assert row[f"{name}_amplitude"] == pytest.approx(abs(x[j]), rel=1e-6)
        assert math.remainder(row[f"{name}_phase"] + np.angle(x[j]), 2 * math.pi) == pytest.approx(0.0, abs=1e-6)


def write_box_gdf(path, length: float, beam: float, draught: float, freeboard: float, panel: float) -> None:
    """The box as a closed WAMIT .gdf mesh reaching ``freeboard`` above the waterline (its deck included), written
    here, not by the package: quads of side ``panel``, corners counter-clockwise seen from outside."""
    def rectangle(corner, u, v):
        nu, nv = round(np.linalg.norm(u) / panel), round(np.linalg.norm(v) / panel)
        corner, du, dv = np.asarray(corner, float), np.asarray(u, float) / nu, np.asarray(v, float) / nv
        return [[corner + i * du + j * dv, corner + (i + 1) * du + j * dv, corner + (i + 1) * du + (j + 1) * dv,
                 corner + i * du + (j + 1) * dv] for i in range(nu) for j in range(nv)]

    x, y, z0, z1, h = length / 2, beam / 2, -draught, freeboard, draught + freeboard
    faces = (rectangle((-x, -y, z0), (0, beam, 0), (length, 0, 0))  # bottom, normal -z
             + rectangle((-x, -y, z1), (length, 0, 0), (0, beam, 0))  # deck, +z
             + rectangle((-x, -y, z0), (length, 0, 0), (0, 0, h))  # starboard side y = -B/2, normal -y
             + rectangle((x, y, z0), (-length, 0, 0), (0, 0, h))  # port side, +y
             + rectangle((x, -y, z0), (0, beam, 0), (0, 0, h))  # bow x = L/2, +x
             + rectangle((-x, y, z0), (0, -beam, 0), (0, 0, h)))  # stern, -x
    lines = ["box written by tests/test_capytaine_rao.py", f"1.0 {G}", "0 0", str(len(faces))]
    lines += [" ".join(f"{c:.6f}" for c in vertex) for face in faces for vertex in face]
    path.write_text("\n".join(lines) + "\n")


def test_a_mesh_file_gives_the_box_s_raos(box_table, tmp_path):
    """The same box read from a mesh file (with a freeboard and a deck, cut at the waterline, no symmetry used, the
    lid Capytaine generates) gives the same hydrostatics (Gauss points: to round-off) and RAOs within 5 % of the
    largest value of each motion at these frequencies, below the box's first irregular frequency (about 2.2 rad/s):
    the physics is the same, the discretisations differ (no row of side vertices at the lid's height, a lid of 114
    panels in place of 160), each within the 2-4 % of the Haskind check at this coarse resolution (measured: pitch
    3.0 %, the others 0.2-1.1 %)."""
    from crane_models.models.wave_vessel.capytaine_rao import MeshHull

    path = tmp_path / "box.gdf"
    write_box_gdf(path, BOX.length, BOX.beam, BOX.draught, freeboard=2.0, panel=PANEL)
    hull = MeshHull(path, center_of_gravity=(0.0, 0.0, BOX.kg - BOX.draught), radii=BOX.radii)
    table = hull_raos(hull, OMEGAS, HEADINGS, panel_size=PANEL, rho=RHO, g=G)
    np.testing.assert_allclose(table.stiffness, box_table.stiffness, rtol=0, atol=1e-9 * box_table.stiffness[2, 2])
    for j in range(6):
        scale = np.max(np.abs(box_table.rao[..., j]))
        np.testing.assert_allclose(table.rao[..., j], box_table.rao[..., j], rtol=0, atol=0.05 * scale)
    with pytest.raises(ValueError, match=r"centre of gravity \(1.0, 0.0, -0.5\): not above the centre of buoyancy"):
        hull_raos(MeshHull(path, center_of_gravity=(1.0, 0.0, -0.5), radii=BOX.radii), OMEGAS, HEADINGS)
