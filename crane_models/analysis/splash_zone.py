"""DNV-RP-N103's simplified method for lifting through the wave zone (issue 37), as lift engineers use it beside a
time-domain analysis: characteristic hydrodynamic forces from a sea state (Hs, Tz), the lowering speed and the crane
tip's vertical motion, the total F_hyd and the slack-sling check.

The formulas (DNV-RP-N103 (2021) section 4.3, "simplified method"; the same as DNV-RP-H103 (2011) 4.4), all forces
vertical and characteristic (amplitudes), in N:

* characteristic wave amplitude ``ζa = f Hs`` with ``amplitude_factor`` f, by default 0.9: the most probable largest
  wave amplitude of an operation of about an hour (Rayleigh crests: ``Hs/4 √(2 ln N)`` = 0.84-0.93 Hs for N = 300-
  1000 waves). **To check against the edition in use**: DNV-RP-N103 states the factor (0.9 for operations of limited
  duration; a larger value, which I could not confirm from the text here, for general lifts) -- give it explicitly;
  zero-up-crossing period ``Tz``;
* water particle velocity and acceleration at depth ``d`` of the centre of the submerged part:
  ``v_w = ζa (2π/Tz) exp(−4π² d/(Tz² g))``, ``a_w = ζa (2π/Tz)² exp(−4π² d/(Tz² g))``;
* slamming impact velocity and relative velocity ``v_s = v_r = v_c + √(v_ct² + v_w²)`` (``v_c`` the hook's lowering
  speed, ``v_ct`` the crane tip's characteristic vertical velocity);
* slamming ``F_slam = ½ ρ C_s A_s v_s²`` (``C_s`` >= 5 for a flat-bottomed box: DNV's value, the default);
* varying buoyancy ``F_ρ = ρ δV g``, ``δV = A_w √(ζa² + η_ct²)`` (``A_w`` the mean water-plane area);
* mass force ``F_M = √([(M + A33) a_ct]² + [(ρ V + A33) a_w]²)``;
* drag ``F_D = ½ ρ C_D A_p v_r²``;
* total ``F_hyd = √((F_D + F_slam)² + (F_M − F_ρ)²)``;
* slack sling avoided when ``F_hyd <= 0.9 F_static-min``, ``F_static-min = M g − ρ V g`` (the weight in water);
  characteristic total force ``F_total = F_static-max + F_hyd`` with ``F_static-max = M g`` (snap loads, the other
  term of DNV's maximum, are the time domain's).

:func:`stages` applies it at the three positions of a lift: the bottom meeting the water (slamming), half submerged
(varying buoyancy) and just fully submerged, with the submerged part's V, A33, areas from a
:class:`core.hydro.PayloadBody`. Pure numbers: no FMU.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SplashCase", "SplashForces", "simplified_method", "characteristic_kinematics", "tz_of_jonswap",
           "tz_range", "stages"]


@dataclass(frozen=True)
class SplashCase:
    """One position of the payload in the wave zone and the conditions: SI units."""

    mass: float            # M, in air [kg]
    volume: float          # V, submerged volume [m³]
    added_mass: float      # A33 [kg]
    drag_area: float       # A_p, horizontal projected area [m²]
    slam_area: float       # A_s, the area that slams [m²] (0: no slamming at this position)
    waterplane_area: float  # A_w, mean water-plane area [m²] (0 fully submerged)
    depth: float           # d, depth of the submerged part's centre below the still water level [m]
    hs: float
    tz: float
    lowering_speed: float  # v_c [m/s]
    tip_amplitude: float = 0.0     # η_ct [m]
    tip_velocity: float = 0.0      # v_ct [m/s]
    tip_acceleration: float = 0.0  # a_ct [m/s²]
    cd: float = 2.5
    cs: float = 5.0
    density: float = 1025.0
    g: float = 9.81
    amplitude_factor: float = 0.9


@dataclass(frozen=True)
class SplashForces:
    wave_amplitude: float
    water_velocity: float
    water_acceleration: float
    relative_velocity: float
    slamming: float
    varying_buoyancy: float
    mass_force: float
    drag: float
    hydrodynamic: float
    static_min: float
    static_max: float
    total: float

    @property
    def slack_sling_ratio(self) -> float:
        """F_hyd / (0.9 F_static-min): at most 1 meets DNV's criterion."""
        return self.hydrodynamic / (0.9 * self.static_min) if self.static_min > 0.0 else math.inf

    @property
    def slack_sling_ok(self) -> bool:
        return self.slack_sling_ratio <= 1.0


def characteristic_kinematics(hs: float, tz: float, depth: float, g: float = 9.81,
                              amplitude_factor: float = 0.9) -> tuple:
    """``(ζa, v_w, a_w)`` of the module docstring."""
    za = amplitude_factor * hs
    omega = 2.0 * math.pi / tz
    decay = math.exp(-4.0 * math.pi ** 2 * max(depth, 0.0) / (tz * tz * g))
    return za, za * omega * decay, za * omega * omega * decay


def simplified_method(case: SplashCase) -> SplashForces:
    """The characteristic forces of :class:`SplashCase` (module docstring)."""
    c = case
    za, vw, aw = characteristic_kinematics(c.hs, c.tz, c.depth, c.g, c.amplitude_factor)
    vr = c.lowering_speed + math.sqrt(c.tip_velocity ** 2 + vw * vw)
    slam = 0.5 * c.density * c.cs * c.slam_area * vr * vr
    buoyancy = c.density * c.waterplane_area * math.sqrt(za * za + c.tip_amplitude ** 2) * c.g
    mass = math.hypot((c.mass + c.added_mass) * c.tip_acceleration, (c.density * c.volume + c.added_mass) * aw)
    drag = 0.5 * c.density * c.cd * c.drag_area * vr * vr
    hyd = math.hypot(drag + slam, mass - buoyancy)
    static_min = (c.mass - c.density * c.volume) * c.g
    static_max = c.mass * c.g
    return SplashForces(za, vw, aw, vr, slam, buoyancy, mass, drag, hyd, static_min, static_max, static_max + hyd)


def tz_of_jonswap(tp: float, gamma: float = 3.3) -> float:
    """Tz of a JONSWAP spectrum from Tp (DNV-RP-C205 (2021) 3.5.5.4): Tz/Tp = 0.6673 + 0.05037 γ − 0.006230 γ² +
    0.0003341 γ³ (γ = 1, Pierson-Moskowitz: 0.7104)."""
    return tp * (0.6673 + 0.05037 * gamma - 0.006230 * gamma ** 2 + 0.0003341 * gamma ** 3)


def tz_range(hs: float, g: float = 9.81) -> tuple:
    """The Tz range the simplified method asks to cover for a given Hs: 8.9 √(Hs/g) <= Tz <= 13 s."""
    return 8.9 * math.sqrt(hs / g), 13.0


def stages(body, mass: float, hs: float, tz: float, lowering_speed: float, tip_amplitude: float = 0.0,
           tip_period: float = 8.0, cd: float = 2.5, cs: float = 5.0, g: float = 9.81,
           amplitude_factor: float = 0.9) -> dict:
    """The simplified method at three positions of ``body`` (:class:`core.hydro.PayloadBody`), the crane tip heaving
    harmonically with ``tip_amplitude`` at ``tip_period`` (v_ct = η_ct ω, a_ct = η_ct ω²): ``{"slamming": ...,
    "half submerged": ..., "fully submerged": ...}`` of :class:`SplashForces`. The added mass and areas are the
    submerged part's (:class:`core.hydro.PayloadBody`); slamming acts on the plan area at the first position only;
    the water plane is the plan area while the body cuts the surface."""
    w = 2.0 * math.pi / tip_period
    tip = dict(tip_amplitude=tip_amplitude, tip_velocity=tip_amplitude * w, tip_acceleration=tip_amplitude * w * w)
    common = dict(mass=mass, hs=hs, tz=tz, lowering_speed=lowering_speed, cd=cd, cs=cs, density=body.density,
                  g=g, amplitude_factor=amplitude_factor, **tip)
    top = body.height
    plan = body.plan_area(top)
    positions = {"slamming": (0.0, plan, plan), "half submerged": (0.5 * top, 0.0, plan),
                 "fully submerged": (top, 0.0, 0.0)}
    out = {}
    for name, (h, slam_area, waterplane) in positions.items():
        out[name] = simplified_method(SplashCase(volume=body.volume(h), added_mass=body.added_mass(h),
                                                 drag_area=plan, slam_area=slam_area, waterplane_area=waterplane,
                                                 depth=0.5 * h, **common))
    return out
