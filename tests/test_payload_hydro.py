"""The payload in the water (issue 37): statics, heave period and its quadratic decay, terminal velocity, slamming,
energy -- each against physics written out here (DNV-RP-N103's added mass of a box computed in the test from its
table A-2 value and 4.6.3.3's formula, the linear oscillator, the quadratically damped one by harmonic balance, the
terminal velocity of the force balance, the momentum of the body and its added mass).

Payload: a 2 m × 2 m × 1 m box (V = 4 m³) in still water, on the knuckle boom crane with the controller's gains
×1e4 (the tip then yields to the load by < 1e-4 of the wire's stretch: the wire alone is the spring)."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from crane_models.core.sea import SeaState, wave_components
from crane_models.models.knuckle_boom.crane import KnuckleBoomController, KnuckleBoomModel
from crane_models.models.knuckle_boom.hydro import HydroLoad, HydroParameters, KnuckleBoomSplashPayloadModel
from crane_models.models.knuckle_boom.payload import PayloadParameters

G = 9.81
RHO = 1025.0
POSE = np.array([0.7, 1.2, 1.0])
LX, LY, H = 2.0, 2.0, 1.0
VOLUME = LX * LY * H
# DNV-RP-N103 table A-2: square plate C_A = 0.579 of ρ π/4 a² b; 4.6.3.3: the body of height H on that plan
_PLATE = 0.579 * RHO * math.pi / 4.0 * LX * LX * LY
_LAMBDA = math.sqrt(LX * LY) / (H + math.sqrt(LX * LY))
A33 = (1.0 + math.sqrt((1.0 - _LAMBDA ** 2) / (2.0 * (1.0 + _LAMBDA ** 2)))) * _PLATE
STILL = wave_components(SeaState(sea_hs=0.0))


def stiff_controller(scale: float, damped: bool = True) -> KnuckleBoomController:
    c, r = KnuckleBoomController(), math.sqrt(scale)
    kd = (c.kd1 * r, c.kd2 * r, c.kd3 * r) if damped else (0.0, 0.0, 0.0)
    return KnuckleBoomController(c.kp1 * scale, kd[0], c.kp2 * scale, kd[1], c.kp3 * scale, kd[2])


def hydro_model(water_level: float, cd: float = 0.0, controller=None, components=STILL, **payload):
    water = HydroParameters(payload_shape=0, payload_size_x=LX, payload_size_y=LY, payload_size_z=H, payload_cd=cd,
                            water_level=water_level, water_density=RHO)
    crane = KnuckleBoomModel(controller=controller or stiff_controller(1e4))
    return KnuckleBoomSplashPayloadModel(crane, PayloadParameters(**payload), False,
                                        HydroLoad.of(water, components, G), water_level)


def tip(model, q=POSE):
    kin = model.crane.system.kinematics(q, np.zeros(3))
    position, _, J = model._tip(kin)
    return position, J


def hanging_state(model, weight: float, dz: float = 0.0, length=None):
    """Crane at rest at POSE, the load at rest below the tip on the wire stretched by ``weight`` [N], ``dz`` higher."""
    p = model.payload
    length = p.wire_length_0 if length is None else length
    top, _ = tip(model)
    d = length * (1.0 + weight / p.wire_ea)
    return np.concatenate((POSE, np.zeros(3), top - [0.0, 0.0, d - dz], np.zeros(3), [length]))


def inputs_for(model, weight: float, winch: float = 0.0):
    """Set-points with which the crane at rest at POSE carries ``weight`` at its tip."""
    _, J = tip(model)
    q_ref = POSE + (J.T @ np.array([0.0, 0.0, weight])) / model.base.controller.kp
    return np.concatenate((np.zeros(3), q_ref, [winch]))


def deep_water_level(model, depth: float = 30.0) -> float:
    """The water level ``depth`` above the hanging load's centre."""
    return float(hanging_state(model, 0.0)[8]) + depth


def run(model, x0, inputs, t_end, points=4001, **kw):
    sol = solve_ivp(lambda t, y: model.derivative(t, y, inputs)[0], (0.0, t_end), x0, method="DOP853",
                    rtol=kw.get("rtol", 1e-10), atol=1e-10, dense_output=True, max_step=kw.get("max_step", 0.05))
    assert sol.success, sol.message
    return sol


# -- statics --------------------------------------------------------------------------------------------------
def test_still_water_hook_load_is_the_weight_less_the_buoyancy():
    m = 6000.0
    level = deep_water_level(hydro_model(0.0, payload_mass=m))
    model = hydro_model(level, cd=1.0, payload_mass=m)
    weight = (m - RHO * VOLUME) * G
    x = hanging_state(model, weight)
    inputs = inputs_for(model, weight)
    xdot, aux = model.derivative(0.0, x, inputs)
    # At rest at the stretch of the weight in water: every acceleration zero to rounding (1e-9 g).
    assert np.max(np.abs(xdot[3:12])) < 1e-9 * G, xdot
    out = model.outputs(0.0, x, inputs, aux)
    assert out["hook_load"] == pytest.approx(weight, rel=1e-9)
    assert out["payload_buoyancy"] == pytest.approx(RHO * G * VOLUME, rel=1e-12)
    assert out["payload_submergence"] == H
    assert out["payload_hydro_force_z"] == pytest.approx(RHO * G * VOLUME, rel=1e-9)
    assert out["slack_sling_margin"] == pytest.approx(1.0 - 0.0, abs=1e-9)  # no dynamic unloading at rest


# -- heave: the period with the added mass, the quadratic decay --------------------------------------------
def heave_peaks(model, x0, inputs, t_end, centre):
    sol = run(model, x0, inputs, t_end)
    grid = np.linspace(0.0, t_end, int(t_end * 400) + 1)
    z = sol.sol(grid)[8] - centre
    ups = [brentq(lambda t: sol.sol(t)[8] - centre, a, b, xtol=1e-12)
           for a, b, za, zb in zip(grid[:-1], grid[1:], z[:-1], z[1:]) if za < 0.0 <= zb]
    peaks = [np.max(np.abs(z[(grid >= a) & (grid < b)])) for a, b in zip(ups[:-1], ups[1:])]
    tension = [model.derivative(t, sol.sol(t), inputs)[1][3] for t in grid[::50]]
    assert min(tension) > 0.0  # taut throughout: a linear spring
    return np.array(ups), np.array(peaks)


def test_heave_period_of_the_submerged_payload_includes_its_added_mass():
    m, ea, length = 6000.0, 4.0e6, 20.0
    model = hydro_model(0.0, payload_mass=m, wire_ea=ea, wire_damping=0.0, wire_length_0=length)
    model = hydro_model(deep_water_level(model), payload_mass=m, wire_ea=ea, wire_damping=0.0, wire_length_0=length)
    weight = (m - RHO * VOLUME) * G
    inputs = inputs_for(model, weight)
    centre = hanging_state(model, weight)[8]
    ups, _ = heave_peaks(model, hanging_state(model, weight, dz=0.05), inputs, 8.0, centre)
    period = (ups[-1] - ups[0]) / (len(ups) - 1)
    expected = 2.0 * math.pi * math.sqrt((m + A33) / (ea / length))
    assert A33 > 0.8 * m  # the added mass matters: without it the period is 25 % shorter
    assert period == pytest.approx(expected, rel=5e-3)


def test_heave_decay_with_drag_is_that_of_a_quadratically_damped_oscillator():
    """x'' + ω² x + (c/M) |x'| x' = 0, c = ½ ρ C_D A_p, M = m + A33: one cycle of amplitude A loses
    ∮ c |v|³ dt = (8/3) c ω² A³ of the energy ½ M ω² A², so 1/A grows by 8c/(3M) per cycle (harmonic balance,
    first order in the decrement; here 2.5 % a cycle, its second-order error ~1e-3 of the slope)."""
    m, ea, length, cd = 6000.0, 4.0e6, 20.0, 1.0
    model = hydro_model(0.0, payload_mass=m, wire_ea=ea, wire_damping=0.0, wire_length_0=length)
    model = hydro_model(deep_water_level(model), cd=cd, payload_mass=m, wire_ea=ea, wire_damping=0.0,
                        wire_length_0=length)
    weight = (m - RHO * VOLUME) * G
    inputs = inputs_for(model, weight)
    centre = hanging_state(model, weight)[8]
    _, peaks = heave_peaks(model, hanging_state(model, weight, dz=0.05), inputs, 18.0, centre)
    slope = np.polyfit(np.arange(len(peaks)), 1.0 / peaks, 1)[0]
    expected = 8.0 * 0.5 * RHO * cd * LX * LY / (3.0 * (m + A33))
    assert len(peaks) >= 10
    assert slope == pytest.approx(expected, rel=0.02)


# -- free fall: terminal velocity, slamming --------------------------------------------------------------
def falling_model(level, cd, m=6000.0):
    return hydro_model(level, cd=cd, payload_mass=m, winch_speed_max=20.0, wire_length_max=500.0,
                       wire_damping=0.0)


def test_terminal_velocity_of_the_payload_lowered_freely():
    m, cd = 6000.0, 1.0
    model = falling_model(0.0, cd, m)
    model = falling_model(deep_water_level(model, depth=5.0), cd, m)
    inputs = inputs_for(model, 0.0, winch=20.0)  # the winch pays out faster than the load sinks: the wire is slack
    x0 = hanging_state(model, 0.0)
    sol = run(model, x0, inputs, 15.0)
    x_end = sol.sol(15.0)
    assert model.derivative(15.0, x_end, inputs)[1][3] == 0.0  # slack
    expected = math.sqrt(2.0 * (m - RHO * VOLUME) * G / (RHO * cd * LX * LY))
    assert -x_end[11] == pytest.approx(expected, rel=5e-3)
    assert x_end[8] - model.water_level < -20.0  # deep: no surface effect


def test_slamming_impulse_through_the_surface_is_the_added_mass_growth():
    """A box dropped 1 m onto still water (no drag, wire slack). The model's slamming force, integrated over the
    entry, equals ∫ (dA33/dh) v² dt over the recorded fall with dA33/dh = A33/H (the box's A33 grows with its wetted
    height; A33 from DNV's formula above); and the momentum of body and added mass, (m + A33(h)) v, changes by the
    weight and the buoyancy alone: d/dt ((m + A33) v) = (m + A33) v' + A33' h' v = −m g + ρ g V(h) (slamming is
    the A33' h' v part)."""
    m = 6000.0
    model = falling_model(0.0, 0.0, m)
    start = hanging_state(model, 0.0)
    level = float(start[8]) - 0.5 * H - 1.0  # the box's bottom 1 m above the water
    model = falling_model(level, 0.0, m)
    inputs = inputs_for(model, 0.0, winch=20.0)
    t_end = 0.8  # through the surface (1 m of free fall, then the 1 m box enters in ~0.2 s)
    sol = run(model, start, inputs, t_end, max_step=1e-3)
    t = np.linspace(0.0, t_end, 16001)
    states = sol.sol(t)
    bottom = states[8] - 0.5 * H - level
    entering = (bottom < 0.0) & (bottom > -H)
    assert entering.any() and bottom[-1] < -H  # it went through
    v = states[11]
    slam_model = np.array([model.derivative(ti, xi, inputs)[1][6][0].slamming for ti, xi in zip(t, states.T)])
    expected = np.trapezoid(np.where(entering, A33 / H * v * v, 0.0), t)
    got = np.trapezoid(slam_model, t)
    assert expected > 0.05 * m * 4.0  # the slamming impulse is a fair part of the momentum (m v at 4 m/s)
    # trapezoids over 5e-5 s on a force that switches on and off: 1e-3
    assert got == pytest.approx(expected, rel=1e-3)
    # momentum of body + added mass: (m + A33(h)) v at the end against m v0 + ∫ (−m g + ρ g V(h)) dt
    h = np.clip(-bottom, 0.0, H)
    momentum_change = np.trapezoid(-m * G + RHO * G * LX * LY * h, t)
    assert (m + A33) * v[-1] - m * v[0] == pytest.approx(momentum_change, rel=1e-3)


# -- energy ---------------------------------------------------------------------------------------------------
def payload_energy(model, x, inputs):
    """The system's energy with the water: the crane, wire and load's (KnuckleBoomPayloadModel.energy), the added
    mass's kinetic energy ½ A33(h) ż², and the buoyancy's potential −∫ ρ g V(h) dz (in still water a function of
    the height alone: for the box ρ g Lx Ly ∫_0^h s ds... written out here)."""
    e = model.energy(x, inputs)
    bottom = x[8] - 0.5 * H - model.water_level
    h = min(max(-bottom, 0.0), H)
    # U_b(z) with dU/dz = −ρ g V(h(z)), h = −bottom: U = ρ g Lx Ly (h²/2) for h <= H, + ρ g V (h − H) beyond
    depth = max(-bottom, 0.0)
    u_b = RHO * G * LX * LY * (0.5 * h * h + H * max(depth - H, 0.0))
    return e + 0.5 * (A33 * h / H) * x[11] ** 2 + u_b


def test_buoyancy_and_drag_never_add_energy_in_still_water():
    """The payload bounces on the wire in and out of the water (wire damping off, the controller a pure spring):
    the energy never rises -- buoyancy is conservative, drag and slamming dissipate, and so does the added mass
    leaving the water (no exit force) -- and drag dissipates a fair part of it."""
    m = 3000.0
    ea = 2.0e6
    model = hydro_model(0.0, payload_mass=m, wire_ea=ea, wire_damping=0.0,
                        controller=stiff_controller(1e2, damped=False))
    x0 = hanging_state(model, 0.0)
    level = float(x0[8])  # the still water at the box's centre, the load let go 0.6 m higher: it will bounce
    model = hydro_model(level, cd=1.0, payload_mass=m, wire_ea=ea, wire_damping=0.0,
                        controller=stiff_controller(1e2, damped=False))
    inputs = np.concatenate((np.zeros(3), POSE, [0.0]))
    x0 = hanging_state(model, 0.0, dz=0.6)
    sol = run(model, x0, inputs, 6.0, max_step=2e-3)
    t = np.linspace(0.0, 6.0, 3001)
    e = np.array([payload_energy(model, x, inputs) for x in sol.sol(t).T])
    scale = m * G * 1.0
    rises = np.diff(e)
    assert np.max(rises) < 1e-6 * scale, np.max(rises)
    assert e[0] - e[-1] > 0.1 * scale  # it dissipates


def test_the_kernel_declines_the_steps_of_the_payload_in_the_water():
    """fmi/kernel_steps.py: the payload in air steps in the kernel (when it is loaded), in the water in Python."""
    from crane_models.fmi.kernel_steps import _qualifies
    from crane_models.integration.cosimulation import CoSimulation
    from crane_models.models.knuckle_boom.payload import KnuckleBoomPayloadModel

    wet = hydro_model(0.0, payload_mass=3000.0)
    x0 = hanging_state(wet, 3000.0 * G)
    assert not _qualifies(CoSimulation(wet, x0, inputs=inputs_for(wet, 3000.0 * G), stepper="dopri5"))
    assert wet.compiled(0.0, inputs_for(wet, 0.0)) is None and wet.kernel_step_parts(("hook_load",)) is None
    dry = KnuckleBoomPayloadModel(KnuckleBoomModel(), PayloadParameters(payload_mass=3000.0))
    if dry.compiled(0.0, inputs_for(wet, 0.0)) is not None:  # with the kernel: the same payload in air qualifies
        assert _qualifies(CoSimulation(dry, x0, inputs=inputs_for(wet, 3000.0 * G), stepper="dopri5"))


def test_base_position_is_turned_by_the_mounting_and_the_axis_convention():
    """The moving-base crane mounted 5 m forward and 3 m above the vessel's reference point O, heaving: the same sea
    and motion given z up and z down (NED: y, z and pitch, yaw flipped; the mount point too) give the same payload in
    the water -- and mounted at O with O raised by 3 m, the same again (P = O + R r: no rotation here)."""
    from crane_models.integration.cosimulation import CoSimulation
    from crane_models.models.knuckle_boom.spec import knuckle_boom_on_moving_base_spec

    spec = knuckle_boom_on_moving_base_spec()
    names = [v.name for v in spec.inputs]

    def run(z_down: bool, mount: tuple, raise_o: float):
        values = {v.name: v.start for v in spec.parameters}
        values.update(payload_enabled=True, hydro_enabled=True, sea_hs=1.0, sea_spectrum=0, z_down=z_down,
                      mount_x=mount[0], mount_y=mount[1], mount_z=mount[2], wire_length_0=9.0, payload_mass=20000.0)
        model, x0, options = spec.build(values)
        inputs = np.array([float(v.start) for v in spec.inputs])
        sign = -1.0 if z_down else 1.0
        sim = None
        for k in range(100):
            t = 0.01 * k
            inputs[names.index("base_position_z")] = sign * (raise_o + 4.5 + 0.5 * math.sin(t))  # the load at the surface
            inputs[names.index("base_velocity_z")] = sign * 0.5 * math.cos(t)
            inputs[names.index("base_acceleration_z")] = -sign * 0.5 * math.sin(t)
            if sim is None:
                sim = CoSimulation(model, x0, inputs=inputs, rtol=1e-8, stepper="dopri5")
            sim.set_inputs(inputs)
            sim.step(0.01)
        return model.outputs(sim.t, sim.x, sim.inputs, sim._current()[1])

    up = run(False, (5.0, 0.0, 3.0), 0.0)
    down = run(True, (5.0, 0.0, -3.0), 0.0)
    at_o = run(False, (0.0, 0.0, 0.0), 3.0)
    below = run(False, (5.0, 0.0, 3.0), -0.5)  # O 0.5 m lower: the payload deeper by that
    assert 0.0 < up["payload_submergence"] < 1.5  # partly wet: its height counts
    for name in ("payload_submergence", "payload_buoyancy", "hook_load", "wave_elevation_at_payload"):
        assert down[name] == pytest.approx(up[name], rel=1e-9, abs=1e-9), name
    # mounted at O raised by 3 m: the same heights, the sea seen 5 m further aft (another wave elevation)
    assert at_o["wave_elevation_at_payload"] != pytest.approx(up["wave_elevation_at_payload"], abs=1e-3)
    assert below["payload_submergence"] > up["payload_submergence"] + 0.3
