"""Every parameter of the flexible crane (Jarzębowska, Urbaś & Augustynek 2019), with its source.

The paper gives the support stiffnesses, the friction parameters (Table 1), the programmed motion, the
driving torque (21), the initial configuration (23), the integration step and the Baumgarte parameters.
It gives **no dimensions, masses or section properties**. Those below describe a compact truck-mounted
hydraulic loader crane (1-2 t·m class) sized so that the programmed ellipse fits its workspace:

* The end effector must reach from 2 m (``b``) to 3 m (``a``) from the column axis at about the height of
  the link (c,2) root, and at the initial pose (23) (link (c,2) at +45°, link (c,3) at −90° to it) its
  reach is ``(l2 + l3) cos 45°``. ``l2 + l3 = 3.3 m`` keeps the arm bent by ≥ 47° at the 3 m end of the
  ellipse (far from the stretched-arm singularity) and puts the initial end effector 0.33 m outside the
  ellipse, as the paper's Fig. 6e shows ("the initial position is outside the planned trajectory").
* Masses and section: typical of such cranes (booms of 100-150 kg per 2 m including hydraulic cylinders
  and hoses, rectangular hollow steel booms ~160 × 120 mm, 40-60 mm pins; e.g. manufacturer data sheets
  of 1-2 t·m loader cranes), steel E = 210 GPa, G = 81 GPa.

Frames (Fig. 4, Denavit-Hartenberg, eqs. (12)): the base frame sits at the top of the carrier frame on
the slewing axis; the column turns about z^(b); link (c,2) turns about a horizontal axis at height
``l1`` (its frame's z), the link lies along its own x axis; link (c,3) turns about the parallel axis at
the end of link (c,2); E lies on the x axis of link (c,3) at ``l3``.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ...core.parameters import param
from ...core.springs import box_section

__all__ = ["FlexibleCraneParameters", "SupportParameters", "FrictionTable", "ProgrammedMotionParameters",
           "FlexibleCraneInitialState", "SUPPORT_LAYOUT"]

_POS = dict(low=0.0, low_open=True)
_BOOM = box_section(width=0.12, height=0.16, wall=0.006)  # link (c,2) section, see below


@dataclass
class FlexibleCraneParameters:
    """Geometry, masses, inertias and the link (c,2) section (not in the paper; see module docstring)."""

    g: float = param(9.81, "m/s2", "acceleration of gravity", 0.0, 100.0)
    # Base (b): the carrier sub-frame that carries the slewing column, a steel box 2.4 × 1.6 × 0.3 m.
    m_b: float = param(1500.0, "kg", "m^(b), base mass: carrier sub-frame with outriggers (not in the paper)", **_POS)
    base_length: float = param(2.4, "m", "base box length along x^(b) (inertia only; not in the paper)", **_POS)
    base_width: float = param(1.6, "m", "base box width along y^(b) (inertia only; not in the paper)", **_POS)
    base_height: float = param(0.3, "m", "base box height; its COG lies half of it below the base frame", **_POS)
    # Rotary column (c,1): 1.6 m high, 250 kg (column, slewing gear), a 0.3 m diameter cylinder for inertia.
    l1: float = param(1.6, "m", "l^(c,1), height of the link (c,2) pivot above the base frame (eq. (12))", **_POS)
    m1: float = param(250.0, "kg", "m^(c,1), column mass (not in the paper)", **_POS)
    column_radius: float = param(0.15, "m", "column radius (inertia only; not in the paper)", **_POS)
    # Flexible link (c,2): 1.8 m, 120 kg (box boom + lift cylinder), box 120 (z) × 160 (y) × 6 mm.
    l2: float = param(1.8, "m", "l^(c,2), length of link (c,2)", **_POS)
    m2: float = param(120.0, "kg", "m^(c,2), link (c,2) mass incl. its cylinder, spread uniformly", **_POS)
    E: float = param(2.1e11, "Pa", "Young's modulus of link (c,2): steel", **_POS)
    G: float = param(8.1e10, "Pa", "shear modulus of link (c,2): steel", **_POS)
    A2: float = param(_BOOM["A"], "m2", "section area of link (c,2) (box 120x160x6 mm; sets the mass "
                      "distribution of the elements)", **_POS)
    I_y2: float = param(_BOOM["I_y"], "m4", "second moment of area of link (c,2) about y (out-of-plane bending, "
                        "box 120x160x6 mm)", **_POS)
    I_z2: float = param(_BOOM["I_z"], "m4", "second moment of area of link (c,2) about z (bending in the luffing "
                        "plane, box 120x160x6 mm)", **_POS)
    J2: float = param(_BOOM["J"], "m4", "torsion constant of link (c,2) (Bredt, box 120x160x6 mm)", **_POS)
    sde_damping: float = param(0.0, "s", "stiffness-proportional damping of the spring-damping elements, "
                               "c = value * s (the paper omits damping: 0)", 0.0)
    # Rigid link (c,3): 1.5 m, 80 kg, same kind of section (radius of gyration of a 100 x 120 mm box).
    l3: float = param(1.5, "m", "l^(c,3), distance from the link (c,3) joint to E", **_POS)
    m3: float = param(80.0, "kg", "m^(c,3), link (c,3) mass (not in the paper)", **_POS)
    section3: float = param(0.11, "m", "link (c,3) section size (inertia about its axis only)", **_POS)
    # The load carried at E (the paper: "the crane carries loads"): a grapple with a small load.
    m_E: float = param(150.0, "kg", "mass carried at the end effector E (point mass; not in the paper)", 0.0)


# Eight supports (n_s = 8): corners and side middles of the 2.4 × 1.6 m base, 0.3 m below the base frame
# (the paper gives stiffnesses only). Positions in the base frame.
SUPPORT_LAYOUT = ((1.2, 0.8), (0.0, 0.8), (-1.2, 0.8), (-1.2, 0.0), (-1.2, -0.8), (0.0, -0.8), (1.2, -0.8), (1.2, 0.0))
_SUPPORT_Z = -0.3

_support_fields = []
for _s, (_x, _y) in enumerate(SUPPORT_LAYOUT, start=1):
    for _axis, _value in zip("xyz", (_x, _y, _SUPPORT_Z)):
        _support_fields.append((f"sup{_s}_{_axis}", float, param(
            _value, "m", f"{_axis}^(sup,{_s}), position of support {_s} in the base frame (not in the paper)")))
_support_fields += [
    ("s_x", float, param(1e5, "N/m", "s_x^(sup,s), horizontal stiffness of every support (paper, section 4)", 0.0)),
    ("s_y", float, param(1e5, "N/m", "s_y^(sup,s), horizontal stiffness of every support (paper, section 4)", 0.0)),
    ("s_z", float, param(1e7, "N/m", "s_z^(sup,s), vertical stiffness of every support (paper, section 4)", **_POS)),
    ("c_x", float, param(0.0, "N.s/m", "horizontal damping of every support (the paper omits damping: 0)", 0.0)),
    ("c_y", float, param(0.0, "N.s/m", "horizontal damping of every support (the paper omits damping: 0)", 0.0)),
    ("c_z", float, param(0.0, "N.s/m", "vertical damping of every support (the paper omits damping: 0)", 0.0)),
]
SupportParameters = dataclasses.make_dataclass("SupportParameters", _support_fields)
SupportParameters.__doc__ = "Positions, stiffnesses and damping of the eight base supports (20)."


def support_arrays(p) -> tuple:
    """Positions (8, 3), stiffness (8, 3) and damping (8, 3) of the supports."""
    pts = np.array([[getattr(p, f"sup{s}_{a}") for a in "xyz"] for s in range(1, 9)])
    k = np.tile([p.s_x, p.s_y, p.s_z], (8, 1))
    c = np.tile([p.c_x, p.c_y, p.c_z], (8, 1))
    return pts, k, c


# Table 1 of the paper, joints i = 1 (column (c,1)), 2 (link (c,2) root), 3 (link (c,3)); then the pin
# diameters of eq. (13), which the paper does not give.
TABLE1 = (
    ("mu_s", (0.2, 0.2, 0.2), "", "mu_s,{i}, static coefficient of friction, Table 1", dict(low=0.0, low_open=True)),
    ("mu_k", (0.1, 0.1, 0.1), "", "mu_k,{i}, kinetic coefficient of friction, Table 1", dict(low=0.0, low_open=True)),
    ("sigma0", (1.0, 5.0, 5.0), "1/rad", "sigma_0,{i}, bristle stiffness, Table 1", dict(low=0.0, low_open=True)),
    ("sigma1", (0.1, 0.022, 0.022), "s/rad", "sigma_1,{i}, bristle damping, Table 1", dict(low=0.0)),
    ("sigma2", (0.0, 0.0, 0.0), "s/rad", "sigma_2,{i}, viscous friction, Table 1", dict(low=0.0)),
    ("gamma", (1.0, 1.0, 1.0), "", "gamma, shape of the Dahl material curve (1 or 2), Table 1", dict(low=1.0, high=2.0)),
    ("v_s", (0.0175, 0.0175, 0.0175), "rad/s", "characteristic Stribeck velocity of joint {i}, Table 1",
     dict(low=0.0, low_open=True)),
    # Pins: the column turns in a 200 mm bearing, the boom pins are 50 mm and 40 mm (not in the paper).
    ("d", (0.2, 0.05, 0.04), "m", "d^(c,{i}), pin diameter of joint {i} in eq. (13) (not in the paper)",
     dict(low=0.0, low_open=True)),
)
FrictionTable = dataclasses.make_dataclass("FrictionTable", [
    (f"{name}_{i}", float, param(values[i - 1], unit, text.format(i=i), **rng))
    for name, values, unit, text, rng in TABLE1 for i in (1, 2, 3)])
FrictionTable.__doc__ = "Dahl/LuGre parameters of Table 1 and pin diameters of the three joints (13)-(15)."


def friction_arrays(p, name: str) -> np.ndarray:
    return np.array([getattr(p, f"{name}_{i}") for i in (1, 2, 3)])


@dataclass
class ProgrammedMotionParameters:
    """Programmed constraints (17), (22), Baumgarte stabilisation and the driving torque (21)."""

    a: float = param(3.0, "m", "a_E,a, semi-axis of the ellipse along x0 (paper, section 4)", **_POS)
    b: float = param(2.0, "m", "b_E,a, semi-axis of the ellipse along y0 (paper, section 4)", **_POS)
    z_rise: float = param(0.2, "m", "z_inc = z_E,c - z_E,s, rise of E in eq. (22) (paper: 0.2 m)")
    t_c: float = param(1.0, "s", "t_c, duration of the rise (22) (paper: 1 s)", **_POS)
    alpha: float = param(110.0, "1/s2", "Baumgarte alpha (paper: 110), multiplies Phi in "
                         "Phi'' + beta Phi' + alpha Phi = 0", 0.0)
    beta: float = param(20.0, "1/s", "Baumgarte beta (paper: 20), multiplies Phi'", 0.0)
    paper_torque: float = param(-4000.0, "N.m", "t_dr^(c,1) of eq. (21) during the first paper_torque_time")
    paper_torque_time: float = param(0.1, "s", "duration of the driving torque pulse of eq. (21)", 0.0)


@dataclass
class FlexibleCraneInitialState:
    """Initial configuration (23): base at rest at the origin, link (c,2) undeformed."""

    x_b0: float = param(0.0, "m", "x^(b) at t = 0, eq. (23)")
    y_b0: float = param(0.0, "m", "y^(b) at t = 0, eq. (23)")
    z_b0: float = param(0.0, "m", "z^(b) at t = 0, eq. (23)")
    psi_b0: float = param(0.0, "rad", "psi^(b) at t = 0, eq. (23)")
    theta_b0: float = param(0.0, "rad", "theta^(b) at t = 0, eq. (23)")
    phi_b0: float = param(0.0, "rad", "phi^(b) at t = 0, eq. (23)")
    q_c1_0: float = param(1.5 * math.pi, "rad", "psi^(c,1), column angle at t = 0, eq. (23): 3/2 pi")
    q_c2_0: float = param(0.25 * math.pi, "rad", "psi^(c,2,0), link (c,2) angle at t = 0, eq. (23): pi/4")
    q_c3_0: float = param(1.5 * math.pi, "rad", "psi^(c,3), link (c,3) angle at t = 0, eq. (23): 3/2 pi")
    u_c1_0: float = param(0.0, "rad/s", "column rate at t = 0, eq. (23)")
    u_c2_0: float = param(0.0, "rad/s", "link (c,2) root rate at t = 0, eq. (23)")
    u_c3_0: float = param(0.0, "rad/s", "link (c,3) rate at t = 0, eq. (23)")
