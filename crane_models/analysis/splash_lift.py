"""A lift through the splash zone (issue 37): the knuckle boom crane on a heaving vessel lowers a 20 t subsea module
from the air to 10 m below the still water level, with and without active heave compensation; the time domain's
peaks beside DNV-RP-N103's simplified method (:mod:`.splash_zone`); a sweep over Hs × Tp for the limiting sea state.

The scenario (:class:`Lift`), stated so that its numbers can be checked:

* **module**: a closed box 3 m × 2 m × 1.5 m (V = 9 m³), 20 t in air, 10.8 t submerged weight, C_D 2.5 (DNV's value
  for subsea modules in oscillatory flow), DNV's added mass for its shape (:mod:`core.hydro`: A33 = 9.8 t);
* **crane**: ``KnuckleBoomCraneOnMovingBase`` at its default pose, the controller's gains × 100 (K_D × 10: with
  the paper's the 20 t sag the tip by 2.4 m, as its gravity compensation covers the crane alone), base point 10 m above the still water level
  (``base_position_z`` = 10 m + the vessel's heave), 30 mm wire (EA 4e7 N), winch 2 m/s and 5 m/s² (an AHC winch's:
  the irregular sea's heave accelerations pass 2 m/s², at which the AHC removes less, docs/splash-zone.md), the
  load starting with its bottom 3 m above the water;
* **vessel**: a stand-in until the lead wires the ``WaveVessel`` FMU in -- it heaves with the wave elevation at its
  reference point averaged over ``hull_length`` (40 m) along each wave's direction: each component scaled by
  ``sin(k L/2)/(k L/2)`` (0.76 at 8 s, 0.35 at 6 s, the short waves averaging out over the hull, as a hull's heave
  RAO falls for waves shorter than the vessel; no resonance, no phase lag), times ``heave_rao`` (1); no roll, pitch
  or surge. With the elevation itself (RAO 1 at every frequency) the short waves' accelerations shook the module
  into slack at Hs 1.5 m, Tp 6 s. The payload meets the same sea (the same components and seed);
* **operation**: hold 5 s, pay out at 0.3 m/s, ramped up and down over 2 s, until the module's centre is 10 m deep
  (48 s), hold to the end (80 s); the time domain's heave is measured over the last two peak periods. (With an
  abrupt start and stop the stop's snap, not the waves, set the least slack-sling margin of every sea state
  with Tp >= 8 s.)

Runs the model of the FMU's spec (its ``build``) under :class:`integration.cosimulation.CoSimulation` at 10 ms with
the inputs set each communication step, as an FMU host would.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.hydro import body_of
from ..core.sea import SeaState, wave_components
from ..core.sea.kinematics import phases
from ..integration.cosimulation import CoSimulation
from ..models.knuckle_boom.crane import KnuckleBoomController
from ..models.knuckle_boom.spec import knuckle_boom_on_moving_base_spec
from .splash_zone import stages, tz_of_jonswap

__all__ = ["Lift", "run_lift", "hull_average", "lift_summary", "simplified_for", "sweep_sea_states", "limiting_sea_states",
           "RECORDED"]

RECORDED = ("hook_load", "wire_length", "payload_z", "payload_vz", "payload_submergence", "payload_buoyancy",
            "payload_hydro_force_z", "wave_elevation_at_payload", "slack_sling_margin", "ahc_heave_reduction",
            "wire_slack", "tip_z")


@dataclass(frozen=True)
class Lift:
    """The lift of the module docstring; every field an FMU parameter or a number of the operation."""

    hs: float = 2.5
    tp: float = 8.0
    ahc: bool = False
    seed: int = 1
    heave_rao: float = 1.0
    hull_length: float = 40.0      # m, over which the stand-in vessel averages the waves
    base_height: float = 10.0      # m, crane base point above the still water level
    clearance: float = 3.0         # m, module bottom above the water at the start
    target_depth: float = 10.0     # m, module centre below the still water level at the end
    lowering_speed: float = 0.3    # m/s
    hold: float = 5.0              # s before paying out
    ramp: float = 2.0              # s, the payout's speed ramps up and down (0.15 m/s²)
    duration: float = 80.0         # s
    step: float = 0.01             # s
    parameters: dict = field(default_factory=lambda: dict(
        payload_mass=20000.0, payload_shape=0, payload_size_x=3.0, payload_size_y=2.0, payload_size_z=1.5,
        payload_cd=2.5, winch_speed_max=2.0, winch_acceleration_max=5.0, wire_length_max=60.0, wire_ea=4.0e7,
        integrator=2, rtol=1e-6, **_stiff_controller(100.0)))

    def sea(self) -> SeaState:
        return SeaState(sea_hs=self.hs, sea_tp=self.tp, sea_seed=self.seed)


def _stiff_controller(scale: float) -> dict:
    """The paper's PD gains, K_P × ``scale`` and K_D × √scale (the same damping ratios): its gravity compensation
    covers the crane's own weight, not the hook load, and with the paper's gains 20 t sag the tip by 2.4 m."""
    c = KnuckleBoomController()
    return {**{f"kp{i}": getattr(c, f"kp{i}") * scale for i in (1, 2, 3)},
            **{f"kd{i}": getattr(c, f"kd{i}") * math.sqrt(scale) for i in (1, 2, 3)}}


def _values(lift: Lift, spec) -> dict:
    values = {v.name: v.start for v in spec.parameters}
    values.update(lift.parameters)
    values.update(payload_enabled=True, hydro_enabled=True, ahc_enabled=lift.ahc, mean_wrench_outputs=False,
                  sea_hs=lift.hs, sea_tp=lift.tp, sea_seed=lift.seed)
    return values


def _hanging_length(model, x0, lift: Lift) -> float:
    """The wire length that puts the module's bottom ``clearance`` above the water (the tip from the build's pose)."""
    kin = model.crane.system.kinematics(x0[:9], x0[9:18])
    tip_z = float(model._tip(kin)[0][2]) + lift.base_height
    half = 0.5 * float(lift.parameters["payload_size_z"])
    return tip_z - (lift.clearance + half)


def run_lift(lift: Lift) -> dict:
    """The lift: ``{"t": times, name: series for name in RECORDED, "tip_heave": the tip's height in the sea frame,
    "payload_height": the module centre's}``."""
    spec = knuckle_boom_on_moving_base_spec()
    values = _values(lift, spec)
    probe, x0, _ = spec.build(values)  # the tip's height at the build's pose: where the wire must start
    values["wire_length_0"] = _hanging_length(probe, x0, lift)
    model, x0, options = spec.build(values)
    names = [v.name for v in spec.inputs]
    inputs = np.array([float(v.start) for v in spec.inputs])
    at = {n: names.index(n) for n in ("base_position_z", "base_velocity_z", "base_acceleration_z", "winch_speed")}
    components = wave_components(lift.sea())
    a, w = components.amplitude * lift.heave_rao * hull_average(components.wave_number, lift.hull_length), \
        components.omega
    # the operator pays out the distance to the target depth at the lowering speed, ramped up and down over `ramp`
    # seconds (a trapezoid of the same distance; by time: the AHC's own payout is not the operator's)
    distance = lift.clearance + 0.5 * float(lift.parameters["payload_size_z"]) + lift.target_depth
    payout = distance / lift.lowering_speed + lift.ramp
    sim = CoSimulation(model, x0, inputs=inputs, rtol=options["rtol"], max_step=options["max_step"],
                       stepper=options["stepper"])
    steps = int(round(lift.duration / lift.step))
    series = {n: np.zeros(steps + 1) for n in RECORDED + ("t", "tip_heave", "payload_height", "vessel_heave")}
    for k in range(steps + 1):
        t = k * lift.step
        c = np.cos(phases(components, t, 0.0, 0.0))
        s = np.sin(phases(components, t, 0.0, 0.0))
        heave = float(c @ a)
        inputs[at["base_position_z"]] = lift.base_height + heave
        inputs[at["base_velocity_z"]] = float(-(s @ (a * w)))
        inputs[at["base_acceleration_z"]] = float(-(c @ (a * w * w)))
        inputs[at["winch_speed"]] = lift.lowering_speed * max(0.0, min(1.0, (t - lift.hold) / lift.ramp,
                                                                      (lift.hold + payout - t) / lift.ramp))
        sim.set_inputs(inputs)
        out = model.outputs(sim.t, sim.x, sim.inputs, sim._current()[1])
        series["t"][k], series["vessel_heave"][k] = t, heave
        for n in RECORDED:
            series[n][k] = float(out[n])
        series["tip_heave"][k] = lift.base_height + heave + out["tip_z"]
        series["payload_height"][k] = lift.base_height + heave + out["payload_z"]
        if k < steps:
            sim.step(lift.step)
    return series


def hull_average(wave_number: np.ndarray, length: float) -> np.ndarray:
    """The stand-in vessel's heave per unit wave amplitude: the elevation averaged over ``length`` of hull along
    the wave, ``sin(k L/2)/(k L/2)`` (signed: a wave of 1.5 hull lengths lifts the ends against the middle)."""
    x = 0.5 * np.asarray(wave_number, dtype=float) * length
    return np.sinc(x / np.pi)


def simplified_for(lift: Lift, tip_amplitude: float) -> dict:
    """DNV-RP-N103's simplified method for the lift's module and sea (Tz of the JONSWAP spectrum), the crane tip
    heaving with ``tip_amplitude`` at Tp (AHC: what is left of it)."""
    p = lift.parameters
    body = body_of(int(p["payload_shape"]), (p["payload_size_x"], p["payload_size_y"], p["payload_size_z"]), 1025.0)
    return stages(body, float(p["payload_mass"]), lift.hs, tz_of_jonswap(lift.tp, 3.3), lift.lowering_speed,
                  tip_amplitude, lift.tp, cd=float(p["payload_cd"]))


def lift_summary(series: dict, lift: Lift) -> dict:
    """The time domain's characteristic numbers: hook load extremes, the least slack-sling margin, slack time, the
    largest dynamic hydrodynamic force, the heave of tip and module over the hold at depth. From the end of the first
    hold on: the vessel's motion starts at t = 0 in mid-wave (an acceleration step the wire rings at), not the lift's."""
    t = series["t"]
    lifting = t >= lift.hold
    series = {k: np.asarray(v)[lifting] for k, v in series.items()}
    t = series["t"]
    wet = series["payload_submergence"] > 0.0
    deep = t >= t[-1] - 2.0 * lift.tp
    dynamic = series["payload_hydro_force_z"] - series["payload_buoyancy"]
    return {"hook_load_max": float(np.max(series["hook_load"])), "hook_load_min": float(np.min(series["hook_load"])),
            "slack_sling_margin_min": float(np.min(np.where(wet, series["slack_sling_margin"], np.inf)))
            if wet.any() else math.inf,
            "slack_time": float(np.sum(series["wire_slack"] > 0.5) * lift.step),
            "hydro_dynamic_max": float(np.max(np.abs(dynamic))),
            "tip_heave_std": float(np.std(series["tip_heave"][deep])),
            "payload_heave_std": float(np.std(series["payload_height"][deep])),
            "ahc_heave_reduction": float(series["ahc_heave_reduction"][-1])}


def sweep_sea_states(hs_values, tp_values, ahc: bool, lift: Lift | None = None) -> list:
    """:func:`lift_summary` of the lift for each (Hs, Tp): ``[(hs, tp, summary)]``."""
    base = lift or Lift()
    return [(hs, tp, lift_summary(run_lift(replace(base, hs=hs, tp=tp, ahc=ahc)), base))
            for tp in tp_values for hs in hs_values]


def limiting_sea_states(rows: list, criterion: str = "slack_sling_margin_min", limit: float = 0.0) -> dict:
    """For each Tp the largest Hs of ``rows`` (:func:`sweep_sea_states`) up to which every Hs meets ``criterion >=
    limit`` (DNV's slack-sling criterion by default): ``{tp: hs or None}`` (None: not even the smallest)."""
    out = {}
    for tp in sorted({r[1] for r in rows}):
        passed = None
        for hs, _, summary in sorted((r for r in rows if r[1] == tp), key=lambda r: r[0]):
            if summary[criterion] < limit:
                break
            passed = hs
        out[tp] = passed
    return out
