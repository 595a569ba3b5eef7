"""Hydrodynamic forces on a lifted payload in the time domain (issue 37), after DNV-RP-N103 (2021) "Modelling and
analysis of marine operations", section 3 (lifting through the wave zone, the general time-domain force model), with
its coefficients (appendix A: added mass of three-dimensional bodies).

The payload is described by its vertical extent ``H`` and, as functions of its **relative submergence**
``h = clip(η − z_bottom, 0, H)`` (the local wave elevation η over the payload's bottom), the submerged volume
``V(h)``, the vertical added mass ``A33(h)``, its slope ``dA33/dh`` and the projected areas the drag acts on.
With ``v_r = u_w − v`` the velocity of the water particles (at the centre of the wetted part, Wheeler-stretched:
:mod:`.sea.kinematics`) relative to the payload's, the water's force on it is (z up, sea frame)

* buoyancy ``ρ g V(h)`` (upward);
* Froude–Krylov and diffraction ``(ρ V + A33) a_w,z`` (vertical), Froude–Krylov ``ρ V a_w,h`` (horizontal: no
  horizontal added mass is modelled, the payload swings as a pendulum in the horizontal);
* added-mass inertia ``−A33 ẍ_z``: not a force computed here but a mass: the load's vertical equation becomes
  ``(m + A33) ẍ_z = F`` (:func:`load_acceleration`), so the system is never explicit in the acceleration and there
  is no algebraic loop;
* slamming, the rest of the momentum ``d/dt (A33 v_r,z)``: ``(dA33/dh) ḣ v_r,z`` while the payload enters the
  water (``ḣ = η̇ − ż > 0``; in still water ``ḣ = v_r,z`` and it is the issue's ``(dA33/dh) v_r²``). On exit
  (``ḣ < 0``) the momentum term would push the payload out of the water, adding energy; DNV-RP-N103 3.2.5 takes the
  water-exit force as a separate (suction-like) phenomenon, not modelled: there it is 0. The kinetic energy
  ``½ (m + A33) ż²`` then loses ``½ (dA33/dh) |ḣ| ż²`` on entry and on exit alike (the water's jets and waves);
* quadratic drag ``½ ρ C_D A_p(h) |v_r,z| v_r,z`` vertically (``A_p`` the horizontal projected area of the wetted
  part) and ``½ ρ C_D A_x(h) |v_r,h| v_r,x`` (and y) horizontally (``A_x`` the wetted area seen by a flow along x),
  one ``C_D`` for both (``payload_cd``).

Shapes (:func:`body_of`): box, vertical cylinder, sphere with DNV's added mass, and :class:`TabulatedBody` for
anything else. Numpy only: the FMUs carry it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .sea.build_up import FULL, built_up_rate
from .sea.kinematics import depth_factors, phases, sea_envelope

__all__ = ["BOX", "CYLINDER", "SPHERE", "SHAPES", "PayloadBody", "BoxBody", "CylinderBody", "SphereBody",
           "TabulatedBody", "body_of", "plate_added_mass_coefficient", "flat_based_added_mass", "default_cd",
           "WaterAtPayload", "water_at_payload", "HydroForces", "hydro_forces", "load_acceleration"]

BOX, CYLINDER, SPHERE = 0, 1, 2
SHAPES = {BOX: "box", CYLINDER: "vertical cylinder", SPHERE: "sphere"}

# DNV-RP-N103 (2021) table A-2 (= DNV-RP-C205 table A-2), rectangular flat plate moving normal to itself:
# A33 = C_A ρ (π/4) a² b, a the shorter side, b the longer; C_A against b/a (1.0 at b/a → ∞, the strip's value).
_PLATE_RATIO = (1.0, 1.25, 1.5, 1.59, 2.0, 2.5, 3.0, 3.17, 4.0, 5.0, 6.25, 8.0, 10.0)
_PLATE_CA = (0.579, 0.642, 0.690, 0.704, 0.757, 0.801, 0.830, 0.840, 0.872, 0.897, 0.917, 0.934, 0.947)


def plate_added_mass_coefficient(ratio: float) -> float:
    """C_A of a rectangular plate of side ratio ``b/a >= 1`` (table above; linear in a/b from 10 to ∞)."""
    if ratio < 1.0:
        raise ValueError(f"plate side ratio b/a = {ratio} must be >= 1")
    if ratio <= _PLATE_RATIO[-1]:
        return float(np.interp(ratio, _PLATE_RATIO, _PLATE_CA))
    return 1.0 - (1.0 - _PLATE_CA[-1]) * _PLATE_RATIO[-1] / ratio


def flat_based_added_mass(plate_added_mass: float, plan_area: float, height: float) -> float:
    """A33 of a body with a flat horizontal base and vertical sides, DNV-RP-N103 (2021) 4.6.3.3 (RP-H103 (2011)
    4.6.3.3): ``A33 ≈ [1 + √((1 − λ²)/(2 (1 + λ²)))] A33o``, ``λ = √A_p / (H + √A_p)``, from the added mass ``A33o``
    of the flat plate of its plan. (A cube: 0.70 ρ V, against 0.68 of DNV's table A-2 for square prisms.)"""
    root = math.sqrt(plan_area)
    lam = root / (height + root)
    return (1.0 + math.sqrt((1.0 - lam * lam) / (2.0 * (1.0 + lam * lam)))) * plate_added_mass


class PayloadBody:
    """A payload's hydrostatic and hydrodynamic description against its submergence ``h`` in ``[0, height]``
    (``h`` is clipped to that range by the callers). ``density``: the water's, ρ."""

    height: float
    density: float

    def volume(self, h: float) -> float:
        raise NotImplementedError

    def added_mass(self, h: float) -> float:
        raise NotImplementedError

    def added_mass_slope(self, h: float) -> float:
        """dA33/dh at ``h`` (the right derivative at a kink)."""
        raise NotImplementedError

    def plan_area(self, h: float) -> float:
        """The horizontal projected area of the wetted part (vertical drag)."""
        raise NotImplementedError

    def side_areas(self, h: float) -> tuple:
        """``(A_x, A_y)``: the wetted areas a horizontal flow along x and along y meets (horizontal drag)."""
        raise NotImplementedError


@dataclass(frozen=True)
class BoxBody(PayloadBody):
    """A box of edges ``size_x, size_y`` (plan) and ``height``. V(h) = Lx Ly h. Fully submerged A33 by
    :func:`flat_based_added_mass` on the plate of table A-2; partly submerged it grows in proportion to the wetted
    height, A33(h) = A33 h/H (a choice: the mean slope over the entry; DNV gives no A33(h) for a box -- a
    tabulated body takes a measured or computed one)."""

    size_x: float
    size_y: float
    height: float
    density: float

    @property
    def full_added_mass(self) -> float:
        a, b = sorted((self.size_x, self.size_y))
        plate = plate_added_mass_coefficient(b / a) * self.density * math.pi / 4.0 * a * a * b
        return flat_based_added_mass(plate, self.size_x * self.size_y, self.height)

    def volume(self, h: float) -> float:
        return self.size_x * self.size_y * h

    def added_mass(self, h: float) -> float:
        return self.full_added_mass * h / self.height

    def added_mass_slope(self, h: float) -> float:
        return self.full_added_mass / self.height if h < self.height else 0.0

    def plan_area(self, h: float) -> float:
        return self.size_x * self.size_y if h > 0.0 else 0.0

    def side_areas(self, h: float) -> tuple:
        return self.size_y * h, self.size_x * h


@dataclass(frozen=True)
class CylinderBody(PayloadBody):
    """A vertical cylinder of ``diameter`` and ``height``, moving along its axis: A33 by
    :func:`flat_based_added_mass` on the circular disc, A33o = (8/3) ρ a³ (table A-2: C_A = 2/π of ρ (4/3) π a³);
    partly submerged in proportion to the wetted height, as the box."""

    diameter: float
    height: float
    density: float

    @property
    def full_added_mass(self) -> float:
        a = 0.5 * self.diameter
        return flat_based_added_mass(8.0 / 3.0 * self.density * a ** 3, math.pi * a * a, self.height)

    def volume(self, h: float) -> float:
        return 0.25 * math.pi * self.diameter ** 2 * h

    def added_mass(self, h: float) -> float:
        return self.full_added_mass * h / self.height

    def added_mass_slope(self, h: float) -> float:
        return self.full_added_mass / self.height if h < self.height else 0.0

    def plan_area(self, h: float) -> float:
        return 0.25 * math.pi * self.diameter ** 2 if h > 0.0 else 0.0

    def side_areas(self, h: float) -> tuple:
        return self.diameter * h, self.diameter * h


@dataclass(frozen=True)
class SphereBody(PayloadBody):
    """A sphere of ``diameter`` (= its height): V(h) = π h² (3R − h)/3, the cap under the surface; A33 = ½ ρ V of
    the submerged part (table A-2: C_A = 0.5 for the whole sphere; a half-submerged sphere then has ¼ ρ V, half
    the deep value, as the double-body image of the free surface gives)."""

    diameter: float
    density: float

    @property
    def height(self) -> float:
        return self.diameter

    def volume(self, h: float) -> float:
        r = 0.5 * self.diameter
        return math.pi * h * h * (3.0 * r - h) / 3.0

    def added_mass(self, h: float) -> float:
        return 0.5 * self.density * self.volume(h)

    def added_mass_slope(self, h: float) -> float:
        r = 0.5 * self.diameter
        return 0.5 * self.density * math.pi * h * (2.0 * r - h) if h < self.diameter else 0.0

    def plan_area(self, h: float) -> float:
        r = 0.5 * self.diameter
        c = min(h, r)  # the widest wetted circle: at the surface below the equator, the equator above it
        return math.pi * c * (2.0 * r - c)

    def side_areas(self, h: float) -> tuple:
        r = 0.5 * self.diameter
        c = min(max(h, 0.0), 2.0 * r)
        s = r - c  # the wetted part's outline: the circle's segment below a chord s below the centre
        area = r * r * math.acos(max(-1.0, min(1.0, s / r))) - s * math.sqrt(max(0.0, r * r - s * s))
        return area, area


@dataclass(frozen=True)
class TabulatedBody(PayloadBody):
    """Any payload: ``V(h)`` and ``A33(h)`` tabulated at the submergences ``depths`` (from 0 to the height,
    increasing), linear between them (dA33/dh the slope of each interval); ``plan_area`` the horizontal projected
    area (vertical drag, once wetted) and ``widths`` ``(w_x, w_y)`` the widths a flow along x and y meets
    (horizontal drag on ``w · h``)."""

    depths: tuple
    volumes: tuple
    added_masses: tuple
    plan: float
    widths: tuple
    density: float

    def __post_init__(self) -> None:
        h = np.asarray(self.depths, dtype=float)
        if h.ndim != 1 or h.size < 2 or h[0] != 0.0 or np.any(np.diff(h) <= 0.0):
            raise ValueError("depths must start at 0 and increase (at least two points)")
        for name in ("volumes", "added_masses"):
            values = np.asarray(getattr(self, name), dtype=float)
            if values.shape != h.shape or not np.all(np.isfinite(values)) or np.any(values < 0.0):
                raise ValueError(f"{name} must be {h.size} finite values >= 0, one per depth")

    @property
    def height(self) -> float:
        return float(self.depths[-1])

    def volume(self, h: float) -> float:
        return float(np.interp(h, self.depths, self.volumes))

    def added_mass(self, h: float) -> float:
        return float(np.interp(h, self.depths, self.added_masses))

    def added_mass_slope(self, h: float) -> float:
        if h >= self.height:
            return 0.0
        i = int(np.searchsorted(self.depths, h, side="right")) - 1
        d, a = self.depths, self.added_masses
        return (a[i + 1] - a[i]) / (d[i + 1] - d[i])

    def plan_area(self, h: float) -> float:
        return self.plan if h > 0.0 else 0.0

    def side_areas(self, h: float) -> tuple:
        return self.widths[0] * h, self.widths[1] * h


# Drag coefficients of the shapes when payload_cd is negative (its default): a cube face-on 1.05, a short
# cylinder in axial flow 1.0, a sphere (subcritical) 0.5 -- steady-flow values (DNV-RP-N103 appendix B; DNV asks
# for C_D >= 2.5 for complex subsea modules in oscillatory flow: set payload_cd then).
_DEFAULT_CD = {BOX: 1.05, CYLINDER: 1.0, SPHERE: 0.5}


def default_cd(shape: int) -> float:
    return _DEFAULT_CD[shape]


def body_of(shape: int, size: Sequence[float], density: float) -> PayloadBody:
    """The body of ``payload_shape`` (0 box: edges x, y, z; 1 vertical cylinder: diameter x, height z; 2 sphere:
    diameter x)."""
    sx, sy, sz = (float(s) for s in size)
    if shape == BOX:
        return BoxBody(sx, sy, sz, density)
    if shape == CYLINDER:
        return CylinderBody(sx, sz, density)
    if shape == SPHERE:
        return SphereBody(sx, density)
    raise ValueError(f"payload_shape = {shape}: allowed 0 (box), 1 (vertical cylinder), 2 (sphere)")


@dataclass(frozen=True)
class WaterAtPayload:
    """The water at the payload: the elevation over it and its rate; the particle velocity and acceleration at the
    centre of its wetted part (zero while dry)."""

    elevation: float
    elevation_rate: float
    velocity: np.ndarray
    acceleration: np.ndarray


_DRY = (np.zeros(3), np.zeros(3))


def water_at_payload(components, t: float, x: float, y: float, bottom: float, height: float) -> WaterAtPayload:
    """One pass over the wave components (numpy: a sum per quantity): η and η̇ over ``(x, y)``, then the
    Wheeler-stretched particle kinematics of :func:`.sea.kinematics.particle_kinematics` at the centre of the wetted
    part, ``z = bottom + h/2`` (sea frame, z up from the still water level)."""
    c = components
    if c.size == 0:  # still water
        return WaterAtPayload(0.0, 0.0, *_DRY)
    theta = phases(c, t, x, y)
    cos, sin = np.cos(theta), np.sin(theta)
    a, w = c.amplitude, c.omega
    envelope = sea_envelope(c, t)
    eta = float(cos @ a)
    eta_rate = float(-(sin @ (a * w)))
    if envelope != FULL:  # a sea built up from rest (core/sea/build_up.py): e η, ė η + e η̇
        eta, eta_rate = built_up_rate(envelope, eta, eta_rate)
    h = min(max(eta - bottom, 0.0), height)
    if h <= 0.0:
        return WaterAtPayload(eta, eta_rate, *_DRY)
    z = bottom + 0.5 * h
    d = c.depth
    ch, sh = depth_factors(c.wave_number, max(d * (z - eta) / (d + eta), -d), d)
    horizontal, vertical = a * w * ch, a * w * sh
    ux, uy = np.cos(c.direction), np.sin(c.direction)
    hc, hs = horizontal * cos, horizontal * w * sin
    velocity = np.array([hc @ ux, hc @ uy, -(vertical @ sin)])
    acceleration = np.array([-(hs @ ux), -(hs @ uy), -((vertical * w) @ cos)])
    if envelope != FULL:  # e u, ė u + e u̇
        velocity, acceleration = built_up_rate(envelope, velocity, acceleration)
    return WaterAtPayload(eta, eta_rate, velocity, acceleration)


@dataclass(frozen=True)
class HydroForces:
    """The water's force on the payload apart from its added-mass inertia: ``explicit`` (3, sea frame) and the
    vertical added mass ``added_mass`` that joins the payload's mass; the parts for the outputs."""

    explicit: np.ndarray
    added_mass: float
    submergence: float
    buoyancy: float
    slamming: float
    elevation: float


def hydro_forces(body: PayloadBody, water: WaterAtPayload, bottom: float, velocity: np.ndarray, cd: float,
                 g: float) -> HydroForces:
    """The forces of the module docstring on a payload whose bottom is at ``bottom`` moving at ``velocity`` (sea
    frame), in ``water`` (:func:`water_at_payload`)."""
    rho = body.density
    h = min(max(water.elevation - bottom, 0.0), body.height)
    if h <= 0.0:
        return HydroForces(np.zeros(3), 0.0, 0.0, 0.0, 0.0, water.elevation)
    volume, added = body.volume(h), body.added_mass(h)
    vr = water.velocity - velocity
    buoyancy = rho * g * volume
    # ḣ: the submergence changes only while the payload is partly wet
    h_rate = water.elevation_rate - float(velocity[2]) if water.elevation - bottom < body.height else 0.0
    slamming = body.added_mass_slope(h) * h_rate * float(vr[2]) if h_rate > 0.0 else 0.0
    drag_z = 0.5 * rho * cd * body.plan_area(h) * abs(vr[2]) * vr[2]
    ax, ay = body.side_areas(h)
    speed_h = math.hypot(vr[0], vr[1])
    drag_h = 0.5 * rho * cd * speed_h
    fk = rho * volume * water.acceleration
    force = np.array([fk[0] + drag_h * ax * vr[0], fk[1] + drag_h * ay * vr[1],
                      buoyancy + fk[2] + added * water.acceleration[2] + slamming + drag_z])
    return HydroForces(force, added, h, buoyancy, slamming, water.elevation)


def load_acceleration(other_force: np.ndarray, mass: float, hydro: HydroForces) -> np.ndarray:
    """The payload's acceleration from ``(m + A33 e_z e_z) ẍ = F_other + F_hydro``: the added mass on the left-hand
    side of the vertical equation (``other_force``: wire, deck and gravity)."""
    total = other_force + hydro.explicit
    return np.array([total[0] / mass, total[1] / mass, total[2] / (mass + hydro.added_mass)])
