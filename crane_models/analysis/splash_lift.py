"""A lift through the splash zone (issue 37): the knuckle boom crane on the ``WaveVessel`` lowers a 20 t subsea module
from the air to 10 m below the still water level, with and without active heave compensation; the time domain's
peaks beside DNV-RP-N103's simplified method (:mod:`.splash_zone`); a sweep over Hs × Tp for the limiting sea state.

The scenario (:class:`Lift`), stated so that its numbers can be checked:

* **module**: a closed box 3 m × 2 m × 1.5 m (V = 9 m³), 20 t in air, 10.8 t submerged weight, C_D 2.5 (DNV's value
  for subsea modules in oscillatory flow), DNV's added mass for its shape (:mod:`core.hydro`: A33 = 9.8 t);
* **crane**: ``KnuckleBoomCraneOnMovingBase`` at its default pose, the controller's gains × 100 (K_D × 10: with
  the paper's the 20 t sag the tip by 2.4 m, as its gravity compensation covers the crane alone), 30 mm wire
  (EA 4e7 N), winch 2 m/s and 5 m/s² (an AHC winch's: the irregular sea's heave accelerations pass 2 m/s², at which
  the AHC removes less, docs/splash-zone.md), the load starting with its bottom ``clearance`` above the still water;
  slewed so that the boom points along ``boom_direction`` (over the starboard side: at zero slew the shipped
  mounting points it forward along the deck, over the hull) and starting in its pose at rest under the module
  (:func:`_settled_pose`: its gravity compensation covers the crane alone, so the hook load sags it from the
  set-points -- started there, it sagged at t = 0 and the wire rang at 135-252 kN even in still water);
* **vessel**: the ``WaveVessel`` FMU's own model (:func:`.sea_states.wave_vessel_model`, its default RAO table)
  wired to the crane exactly as the shipped system ``KnuckleBoomOnWaveVessel`` wires them
  (:mod:`models.sea_systems`: the crane mounted by ``KNUCKLE_BOOM_MOUNT``, 40 m aft, 9 m to starboard, its base
  10 m above the vessel's reference point O, heading -π/2; every output of the vessel that is an input
  of the crane, by name, ``base_position_*`` included), each communication step (10 ms) set from the vessel's
  outputs at its start and held over it, as libcosim does. One sea for both, the vessel's (``with_sea``): the
  payload meets the same components and seed. Its heading (``heading``, default −5π/6): the waves travel towards
  210°, coming 30° off the **port** bow -- the vessel heads near the weather and the crane lifts over its lee
  side, as marine operations are planned (the shipped system's 5π/6 mirrored: the same roll and pitch, the crane on
  the weather side there). The model has no hull shielding: the module meets the incident wave on either side;
* **start**: the sea is built up from rest over ``build_up`` (10 s, the system's sea's ``sea_build_up``: one
  parameter on the vessel and, by ``with_sea``, on the crane, core/sea/build_up.py): the vessel's motion, the wave
  elevation and the water's kinematics at the module are those of the full sea times ``e(t) = 10 s³ − 15 s⁴ +
  6 s⁵``, ``s = t/build_up``, rates and accelerations by the product rule (e, ė, ë continuous: no acceleration
  step), computed by the FMUs themselves. The module is in air while the sea builds up. Without it the motion
  starts in mid-wave at t = 0, a step in velocity and acceleration at which the wire rings (with the crane settled:
  193-203 kN in the first second about the static 196 kN; the 100-250 kN of before were mostly the crane's sag);
* **operation**: hold ``hold`` (12 s: the build-up and 2 s), pay out at 0.3 m/s, ramped up and down over 2 s,
  until the module's centre is 10 m deep (60 s), hold to the end (87 s: 27 s at depth); the time domain's heave
  is measured over the last two peak periods. (With an abrupt start and stop the stop's snap, not the waves, set
  the least slack-sling margin of every sea state with Tp >= 8 s.)

Runs the model of the crane FMU's spec (its ``build``) under :class:`integration.cosimulation.CoSimulation` at
10 ms with the inputs set each communication step, as an FMU host would.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import fsolve

from ..core.hydro import body_of
from ..core.screws import rot_x, rot_y, rot_z
from ..integration.cosimulation import CoSimulation
from ..models.knuckle_boom.crane import KnuckleBoomController
from ..models.registry import SPECS
from ..models.sea_systems import DEMO_SEA, KNUCKLE_BOOM_MOUNT, SEA_SYSTEMS, sea_connections, with_sea
from .sea_states import wave_vessel_model
from .splash_zone import stages, tz_of_jonswap

__all__ = ["Lift", "run_lift", "lift_summary", "simplified_for", "sweep_sea_states",
           "limiting_sea_states", "worst_of_seeds", "connected_inputs", "RECORDED", "SYSTEM", "WORST_OF_SEEDS",
           "MAX_SEEDS"]

SYSTEM = "KnuckleBoomOnWaveVessel"  # the shipped system whose wiring the lift runs (models/sea_systems.py)
RECORDED = ("hook_load", "wire_length", "payload_z", "payload_vz", "payload_submergence", "payload_buoyancy",
            "payload_hydro_force_z", "wave_elevation_at_payload", "slack_sling_margin", "ahc_heave_reduction",
            "wire_slack", "tip_z", "swing_radial", "swing_tangential")


@dataclass(frozen=True)
class Lift:
    """The lift of the module docstring; every field an FMU parameter or a number of the operation."""

    hs: float = 2.5
    tp: float = 8.0
    ahc: bool = False
    seed: int = 1
    heading: float = -5.0 * math.pi / 6.0  # rad, the waves travel towards: 30° off the port bow (crane on the lee)
    boom_direction: float = -math.pi / 2  # rad, from the bow about the up axis: the boom over the starboard side
    build_up: float = 10.0         # s, the sea built up from rest: its sea_build_up (module docstring)
    clearance: float = 3.0         # m, module bottom above the still water at the start
    target_depth: float = 10.0     # m, module centre below the still water level at the end
    lowering_speed: float = 0.3    # m/s
    hold: float = 12.0             # s before paying out: the build-up and 2 s
    ramp: float = 2.0              # s, the payout's speed ramps up and down (0.15 m/s²)
    duration: float = 87.0         # s: 27 s at depth after the payout
    step: float = 0.01             # s
    parameters: dict = field(default_factory=lambda: dict(
        payload_mass=20000.0, payload_shape=0, payload_size_x=3.0, payload_size_y=2.0, payload_size_z=1.5,
        payload_cd=2.5, winch_speed_max=2.0, winch_acceleration_max=5.0, wire_length_max=60.0, wire_ea=4.0e7,
        integrator=2, rtol=1e-6, **_stiff_controller(100.0)))

    def sea(self) -> dict:
        """The sea of the system (the shipped one's, :data:`models.sea_systems.DEMO_SEA`, with this lift's Hs, Tp,
        seed, heading and build-up), set on the vessel and from it on the crane."""
        return {**DEMO_SEA, "sea_hs": self.hs, "sea_tp": self.tp, "sea_seed": self.seed, "sea_heading": self.heading,
                "sea_build_up": self.build_up}


def _stiff_controller(scale: float) -> dict:
    """The paper's PD gains, K_P × ``scale`` and K_D × √scale (the same damping ratios): its gravity compensation
    covers the crane's own weight, not the hook load, and with the paper's gains 20 t sag the tip by 2.4 m."""
    c = KnuckleBoomController()
    return {**{f"kp{i}": getattr(c, f"kp{i}") * scale for i in (1, 2, 3)},
            **{f"kd{i}": getattr(c, f"kd{i}") * math.sqrt(scale) for i in (1, 2, 3)}}


def _members(lift: Lift) -> dict:
    """The system's components with the lift's sea on the vessel and, by ``with_sea``, on the crane."""
    members = {name: (fmu, dict(values)) for name, (fmu, values) in SEA_SYSTEMS[SYSTEM].items()}
    members["vessel"][1].update(lift.sea())
    return with_sea(members, SPECS)


def _values(lift: Lift, spec) -> dict:
    """The crane's parameter values: its start values, the system's (mounting, sea), the lift's."""
    values = {v.name: v.start for v in spec.parameters}
    values.update(_members(lift)["crane"][1])
    values.update(lift.parameters)
    values.update(payload_enabled=True, hydro_enabled=True, ahc_enabled=lift.ahc, mean_wrench_outputs=False)
    return values


def connected_inputs() -> tuple:
    """The crane's inputs the system sets from the vessel's outputs of the same names (``sea_connections``)."""
    members = SEA_SYSTEMS[SYSTEM]
    return tuple(var for a, var, b, _ in sea_connections(members, SPECS) if a == "vessel" and b == "crane")


def _vessel(lift: Lift):
    """``t -> the WaveVessel's outputs``: its model's own (the sea built up by its ``sea_build_up``)."""
    model = wave_vessel_model(_members(lift)["vessel"][1])
    return lambda t: model.outputs(t, np.zeros(0), (), None)


def _slew_over_the_side(spec, values: dict, lift: Lift) -> float:
    """The king's slew angle that points the boom along ``boom_direction`` in the vessel's frame: the mounting's
    heading and the boom's own direction at zero slew (the tip at the build's pose, the base level) taken off. The
    shipped mounting's heading -π/2 puts the boom at zero slew forward along the deck (the crane's boom lies along
    its base y), where the module would be lowered through the hull: the lift slews it over the side first."""
    model, x0, _ = spec.build({**values, "q1_0": 0.0})
    kin = model.crane.system.kinematics(x0[:9], x0[9:18])
    tip = model._tip(kin)[0]
    angle = lift.boom_direction - KNUCKLE_BOOM_MOUNT["mount_heading"] - math.atan2(float(tip[1]), float(tip[0]))
    return math.remainder(angle, 2.0 * math.pi)


def _settled_pose(spec, values: dict, inputs: np.ndarray) -> dict:
    """``{q1_0, q2_0, q3_0}``: the crane's pose at rest under the hanging module, the vessel at rest (the crane's
    accelerations zero with the load hung below the tip): its controller's gravity compensation covers the crane
    alone, so the hook load sags the booms from the set-points by the stiffness of the PD law. Started at the
    set-points instead, the crane sags at t = 0 and the wire rings (hook load 135-252 kN in still water)."""
    names = ("q1_0", "q2_0", "q3_0")

    def accelerations(q: np.ndarray) -> np.ndarray:
        model, x0, _ = spec.build({**values, **dict(zip(names, (float(v) for v in q)))})
        x = model.impose_inputs(x0, inputs)  # the load hung at rest below the tip, stretched by its weight
        return model.derivative(0.0, x, inputs)[0][9:12]

    q, _, found, message = fsolve(accelerations, [float(values[n]) for n in names], full_output=True, xtol=1e-12)
    if found != 1:
        raise RuntimeError(f"the crane's pose under the hook load was not found: {message}")
    return dict(zip(names, (float(v) for v in q)))


def _hanging_length(model, x0, lift: Lift) -> float:
    """The wire length that puts the module's bottom ``clearance`` above the still water with the vessel at rest
    (the tip from the build's pose; the base point ``mount_z`` above O, O on the still water level)."""
    kin = model.crane.system.kinematics(x0[:9], x0[9:18])
    tip_z = float(model._tip(kin)[0][2]) + KNUCKLE_BOOM_MOUNT["mount_z"]
    half = 0.5 * float(lift.parameters["payload_size_z"])
    return tip_z - (lift.clearance + half)


def _in_sea(vessel: dict, point: np.ndarray) -> np.ndarray:
    """A point given in the vessel's frame S from O (z up), in the sea frame: ``O + R_S point``."""
    R = rot_z(vessel["yaw"]) @ rot_y(vessel["pitch"]) @ rot_x(vessel["roll"])
    return np.array([vessel[f"base_position_{a}"] for a in "xyz"]) + R @ point


def _payload_in_ship(out: dict) -> np.ndarray:
    """The module's centre from O in S: the mount point plus ``payload_*`` (from the base point, base frame) turned
    by the mounting's heading."""
    m = KNUCKLE_BOOM_MOUNT
    return (np.array([m["mount_x"], m["mount_y"], m["mount_z"]])
            + rot_z(m["mount_heading"]) @ np.array([out[f"payload_{a}"] for a in "xyz"]))


def run_lift(lift: Lift) -> dict:
    """The lift: ``{"t": times, name: series for name in RECORDED, "tip_heave": the tip's height in the sea frame,
    "tip_sea_x|y": its horizontal place, "payload_height", "payload_sea_x|y": the module centre's, "vessel_heave",
    "roll", "pitch", "inputs": the crane's connected inputs at each communication point (rows; columns
    :func:`connected_inputs`)}``."""
    spec = SPECS[SEA_SYSTEMS[SYSTEM]["crane"][0]]()
    values = _values(lift, spec)
    names = [v.name for v in spec.inputs]
    inputs = np.array([float(v.start) for v in spec.inputs])
    connected = connected_inputs()
    at = [names.index(n) for n in connected]
    winch_at = names.index("winch_speed")
    vessel = _vessel(lift)
    inputs[at] = [vessel(0.0)[n] for n in connected]  # the vessel at rest (its sea built up from it)
    values["q1_0"] = inputs[names.index("q1_ref")] = _slew_over_the_side(spec, values, lift)
    values.update(_settled_pose(spec, values, inputs))
    probe, x0, _ = spec.build(values)  # the tip's height at the settled pose: where the wire must start
    values["wire_length_0"] = _hanging_length(probe, x0, lift)
    model, x0, options = spec.build(values)
    # the operator pays out the distance to the target depth at the lowering speed, ramped up and down over `ramp`
    # seconds (a trapezoid of the same distance; by time: the AHC's own payout is not the operator's)
    distance = lift.clearance + 0.5 * float(lift.parameters["payload_size_z"]) + lift.target_depth
    payout = distance / lift.lowering_speed + lift.ramp
    steps = int(round(lift.duration / lift.step))
    series = {n: np.zeros(steps + 1) for n in RECORDED + ("t", "tip_heave", "tip_sea_x", "tip_sea_y", "payload_height",
                                                           "payload_sea_x", "payload_sea_y", "vessel_heave", "roll",
                                                           "pitch")}
    series["inputs"] = np.zeros((steps + 1, len(connected)))
    sim = None
    for k in range(steps + 1):
        t = k * lift.step
        motion = vessel(t)
        inputs[at] = [motion[n] for n in connected]  # zero-order hold over the coming step, as libcosim's
        inputs[winch_at] = lift.lowering_speed * max(0.0, min(1.0, (t - lift.hold) / lift.ramp,
                                                              (lift.hold + payout - t) / lift.ramp))
        if sim is None:  # the load hung below the tip at the first inputs (the model's first impose_inputs)
            sim = CoSimulation(model, x0, inputs=inputs, rtol=options["rtol"], max_step=options["max_step"],
                               stepper=options["stepper"])
        sim.set_inputs(inputs)
        out = model.outputs(sim.t, sim.x, sim.inputs, sim._current()[1])
        series["t"][k], series["vessel_heave"][k] = t, motion["heave"]
        series["roll"][k], series["pitch"][k] = motion["roll"], motion["pitch"]
        series["inputs"][k] = sim.inputs[at]
        for n in RECORDED:
            series[n][k] = float(out[n])
        tip = _in_sea(motion, np.array([out[f"tip_{a}"] for a in "xyz"]))
        series["tip_sea_x"][k], series["tip_sea_y"][k], series["tip_heave"][k] = tip
        series["payload_sea_x"][k], series["payload_sea_y"][k], series["payload_height"][k] = _in_sea(
            motion, _payload_in_ship(out))
        if k < steps:
            sim.step(lift.step)
    return series


def simplified_for(lift: Lift, tip_amplitude: float) -> dict:
    """DNV-RP-N103's simplified method for the lift's module and sea (Tz of the JONSWAP spectrum), the crane tip
    heaving with ``tip_amplitude`` at Tp (AHC: what is left of it)."""
    p = lift.parameters
    body = body_of(int(p["payload_shape"]), (p["payload_size_x"], p["payload_size_y"], p["payload_size_z"]), 1025.0)
    return stages(body, float(p["payload_mass"]), lift.hs, tz_of_jonswap(lift.tp, 3.3), lift.lowering_speed,
                  tip_amplitude, lift.tp, cd=float(p["payload_cd"]))


def lift_summary(series: dict, lift: Lift) -> dict:
    """The time domain's characteristic numbers over the whole run: hook load extremes, the least slack-sling
    margin, slack time, the largest dynamic hydrodynamic force, the heave of tip and module and the tip's horizontal
    motion (RMS) over the last two peak periods (at depth), the largest swing of the wire from the vertical, and the
    least air gap under the module before the payout (its bottom over the wave beneath it: < 0, the crests reached
    it while it hung at the start height; the sea builds up over the first ``build_up`` of that hold, so it is the
    full sea's over its last 2 s only). No window left out: the sea builds up from rest (module docstring)."""
    t = series["t"]
    wet = series["payload_submergence"] > 0.0
    deep = t >= t[-1] - 2.0 * lift.tp
    hanging = t < lift.hold
    dynamic = series["payload_hydro_force_z"] - series["payload_buoyancy"]
    horizontal = np.hypot(series["tip_sea_x"][deep] - np.mean(series["tip_sea_x"][deep]),
                          series["tip_sea_y"][deep] - np.mean(series["tip_sea_y"][deep]))
    gap = (series["payload_height"][hanging] - 0.5 * float(lift.parameters["payload_size_z"])
           - series["wave_elevation_at_payload"][hanging])
    return {"hook_load_max": float(np.max(series["hook_load"])), "hook_load_min": float(np.min(series["hook_load"])),
            "slack_sling_margin_min": float(np.min(np.where(wet, series["slack_sling_margin"], np.inf)))
            if wet.any() else math.inf,
            "slack_time": float(np.sum(series["wire_slack"] > 0.5) * lift.step),
            "hydro_dynamic_max": float(np.max(np.abs(dynamic))),
            "tip_heave_std": float(np.std(series["tip_heave"][deep])),
            "tip_horizontal_std": float(np.sqrt(np.mean(horizontal ** 2))),
            "payload_heave_std": float(np.std(series["payload_height"][deep])),
            "swing_max": float(np.max(np.hypot(series["swing_radial"], series["swing_tangential"]))),
            "air_gap_min": float(np.min(gap)),
            "ahc_heave_reduction": float(series["ahc_heave_reduction"][-1])}


# How the summaries of several seeds of one sea state make its worst case: every key of :func:`lift_summary`, the
# extreme that counts against the lift (the least margin and air gap, the largest loads and motions, the least
# heave reduction).
WORST_OF_SEEDS = {"hook_load_max": max, "hook_load_min": min, "slack_sling_margin_min": min, "slack_time": max,
                  "hydro_dynamic_max": max, "tip_heave_std": max, "tip_horizontal_std": max, "payload_heave_std": max,
                  "swing_max": max, "air_gap_min": min, "ahc_heave_reduction": min}


MAX_SEEDS = 100  # realisations per sea state: a sweep's cost grows with them (a lift is ~10 s of CPU)


def worst_of_seeds(summaries: list) -> dict:
    """The worst case of :func:`lift_summary` over the seeds of one sea state (:data:`WORST_OF_SEEDS`), with
    ``seeds`` (how many) and ``slack_sling_margin_per_seed``: one realisation of a sea state is one sample of its
    extremes, and lift planners take the worst of several."""
    out = {key: float(pick(s[key] for s in summaries)) for key, pick in WORST_OF_SEEDS.items()}
    out["seeds"] = len(summaries)
    out["slack_sling_margin_per_seed"] = [s["slack_sling_margin_min"] for s in summaries]
    return out


def sweep_sea_states(hs_values, tp_values, ahc: bool, lift: Lift | None = None, seeds: int = 1) -> list:
    """For each (Hs, Tp) the lift in ``seeds`` realisations of the sea (seeds ``lift.seed``, ``lift.seed + 1``,
    ...): ``[(hs, tp, summary)]``, the summary :func:`worst_of_seeds` (one seed: that run's, plus the count)."""
    base = lift or Lift()
    if not 1 <= int(seeds) <= MAX_SEEDS:
        raise ValueError(f"seeds = {seeds!r}: from 1 to {MAX_SEEDS}")
    return [(hs, tp, worst_of_seeds([lift_summary(run_lift(replace(base, hs=hs, tp=tp, ahc=ahc, seed=base.seed + k)),
                                                  base) for k in range(int(seeds))]))
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
