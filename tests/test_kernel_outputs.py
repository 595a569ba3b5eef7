"""The step in the kernel (issue 23, item 3) against the numpy specification, to 1e-12.

A KnuckleBoomCrane FMU's model (payload off: the crane behind the payload wrapper, as the FMU builds it) runs with
moving set-points and input efforts, a saved state restored half-way, and -- in the second case -- a cylinder driven
into its end stop; KnuckleBoomCraneOnMovingBase likewise on a moving base (``mbs_base_loads`` under the outputs), and
VesselCrane with moving set-points and torques (``mbs_cut_outputs``: the interface wrench by auxiliary speeds), and the
split pair's Vessel under a moving wrench at its crane base and a crane's interface inertia A that changes at every
communication point (``point_load.c``: the load in the right-hand side, ``(M + Gᵀ A G) u̇ = τ − C u − Gᵀ A c``, and
``mbs_point_outputs``). At every communication point the kernel's three parts are checked against a twin of the
model with the kernel switched off (numpy kinematics, reactions and dynamics: ``core/kane.py``, ``core/reactions.py``):

* the input update (``mbs_update_inputs``: the same evaluation for new inputs, ``x'`` and the efforts, which the outputs
  read before the next step) against a fresh numpy evaluation at the new inputs -- exact in exact arithmetic, since
  the efforts are affine in the inputs;
* the step (``mbs_integrate`` with the integration's own buffers and pre-made arguments) against the Python stepper
  on the numpy derivative over the same step from the same state and step size (no accumulation over the run);
* every output written by ``write_outputs`` (``mbs_crane_outputs``, one call into the table) against the numpy
  model's ``outputs`` dict at the same state and inputs.

Tolerance 1e-12 of each quantity's scale over the run -- for a state component its largest magnitude, for an output
the largest magnitude any output of its unit takes (a joint's moment about its own axis is zero up to rounding of the
other moments; an output that is zero throughout must be exactly zero): both sides do the same arithmetic in another order, ~1e-16 per operation, and the
largest cancellation -- the weight of the booms against the controller's gravity compensation and the joint
reactions' sums of ~1e6 N -- leaves ~1e-14 of the scale (measured ~1e-15); 1e-12 catches any wrong term.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.core import native
from crane_models.core.moving_base.interface import BASE_VELOCITY, MOTION
from crane_models.integration.cosimulation import CoSimulation
from crane_models.integration.integrators import make_stepper
from crane_models.models.registry import SPECS
from fmu_helpers import NO_KERNEL
from vessel_reference import crane_inertia, inertia_inputs

pytestmark = pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)

STEP = 0.01  # s, the FMU's communication step
STEPS = 60
SAVE_AT, RESTORE_AT = 20, 40  # a state saved at step 20 is restored after step 40: steps 20-40 run again
TOLERANCE = 1e-12


# Amplitudes of the base motion inputs (a crane on a moving base), by unit: a rolling, heaving ship.
MOTION_AMPLITUDE = {"rad": 0.05, "rad/s": 0.05, "rad/s2": 0.1, "m/s2": 0.5, "m/s": 0.5}
BASE_MOTION = {name for name, _, _ in tuple(MOTION) + tuple(BASE_VELOCITY)}


def _inputs(spec, k: int, push_stop: bool) -> np.ndarray:
    """Moving set-points (a slew and both cylinders), input efforts and base motion, changing at every communication
    point; with ``push_stop`` the set-point of cylinder 3 lies beyond its stroke limit."""
    start = {v.name: float(v.start) for v in spec.inputs}
    t = k * STEP
    u = dict(start)
    if "q1_ref" in start:  # a knuckle boom crane
        u.update(king_torque=2e4 * math.sin(3.0 * t), cylinder2_force=5e4 * math.cos(2.0 * t),
                 cylinder3_force=-3e4 * math.sin(5.0 * t), q1_ref=start["q1_ref"] + 0.3 * math.sin(1.5 * t),
                 q2_ref=start["q2_ref"] + 0.1 * math.sin(2.0 * t), q3_ref=start["q3_ref"] - 0.1 * math.sin(2.5 * t))
    for i, v in enumerate(spec.inputs):
        wave = math.sin((1.0 + 0.3 * i) * t + i)
        if v.name in BASE_MOTION:
            u[v.name] = MOTION_AMPLITUDE[v.unit] * wave
        elif v.name.startswith("joint"):  # the vessel crane's joint torques and set-points
            u[v.name] = 2e4 * wave
        elif v.name.endswith("_ref") and v.name not in ("q1_ref", "q2_ref", "q3_ref"):
            u[v.name] = start[v.name] + 0.2 * wave
        elif v.name == "winch_speed":
            u[v.name] = 0.3 * wave
        elif v.name.startswith("interface_force_"):  # the Vessel's wrench at the crane base: ~ the crane's weight
            u[v.name] = 1e3 * wave
        elif v.name.startswith("interface_moment_"):
            u[v.name] = 3e3 * wave
    inertia = [v.name for v in spec.inputs if v.name.startswith("interface_inertia_")]  # the Vessel's A, moving
    u.update(zip(inertia, inertia_inputs(crane_inertia(t))))
    if push_stop:  # the set-point beyond the stroke limit of 1.7 m, the input force pushing outwards too
        u.update(q3_ref=1.75, cylinder3_force=5e4 + 3e4 * math.sin(5.0 * t))
    return np.array([u[v.name] for v in spec.inputs])


def _run(name: str, push_stop: bool, payload: bool = False, inertia: bool = False) -> dict:
    """The kernel model's run; per communication point the kernel's and numpy's input update (when the model has
    one: not on a moving base, whose inputs prescribe part of the state), step (when the model has no state events:
    where a crossing falls inside a step, the kernel and the Python stepper locate it by different internal steps)
    and outputs. ``payload``: the payload on, lifted 0.2 m above its rest so that the wire goes slack and taut."""
    spec = SPECS[name]()
    values = {v.name: v.start for v in spec.parameters}
    if push_stop:
        values.update(q3_0=1.69, u3_0=0.05)
    values["payload_enabled"] = payload
    # the step-mean wrench off (on by default): its restarted step states are test_moving_base_kernel.py's and
    # test_split_crane_kernel.py's; here the Python stepper takes the step from the state as it was
    if "mean_wrench_outputs" in values:
        values["mean_wrench_outputs"] = False
    if inertia:  # the interface inertia A and W0 among the outputs (a crane on a moving base)
        values["inertia_outputs"] = True
    model, x0, options = spec.build(values)
    if payload:
        x0 = x0 + np.eye(len(x0))[8] * 0.2
    twin = spec.build(values)[0]
    _system(twin).native = None  # numpy kinematics: the reactions and the outputs follow (no kernel record)
    assert _system(model).native is not None and model.compiled(0.0, np.zeros(len(spec.inputs))) is not None
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, push_stop), **options)
    names = tuple(v.name for v in spec.outputs)
    table = np.empty(len(names))
    rows = {"update": [], "step": [], "outputs": [], "active": [], "slack": []}
    sim.write_outputs(names, table)  # as the adapter at initialization: the evaluation the first update starts from
    saved = None
    k = 0
    for count in range(STEPS):
        if count == SAVE_AT:
            saved = sim.get_state()
        if count == RESTORE_AT:
            sim.set_state(saved)
            k = SAVE_AT + 100  # other inputs than the first time
        u = _inputs(spec, k, push_stop)
        sim.set_inputs(u)  # from the cached evaluation (sim._k is None if it evaluated afresh: the test then fails)
        if hasattr(model, "update_inputs"):
            fresh, kin = twin.derivative(sim.t, sim.x, u)
            rows["update"].append((np.concatenate((sim._k, _efforts(sim._aux))), np.concatenate((fresh, _efforts(kin)))))
        x, h = sim.x.copy(), sim.stepper.h
        sim.step(STEP)
        if not hasattr(model, "event_indicators"):
            python = make_stepper(options.get("stepper", "rk23"), rtol=sim.stepper.rtol, atol=sim.stepper.atol,
                                  max_step=sim.stepper.max_step)
            python.h = h
            f = lambda t, y: twin.derivative(t, y, u)  # noqa: E731
            k0, aux0 = f(sim.t - STEP, x)
            rows["step"].append((sim.x.copy(), python.advance(f, sim.t - STEP, x, sim.t, k0, aux0)[0]))
        sim.write_outputs(names, table)
        reference = twin.outputs(sim.t, sim.x, u, twin.derivative(sim.t, sim.x, u)[1])
        rows["outputs"].append((table.copy(), np.array([float(reference[n]) for n in names])))
        rows["active"].append(reference.get("end_stop_active", 0))  # the vessel crane has no end stops
        rows["slack"].append(reference.get("wire_slack", False))
        k += 1
    return {"names": names, "units": [v.unit for v in spec.outputs], **rows}


def _system(model):
    """The model's tree: its crane's, or (the Vessel) its own."""
    return model.crane.system if hasattr(model, "crane") else model.system


def _efforts(aux) -> np.ndarray:
    """The efforts of an evaluation: its kinematics', first in a payload's aux."""
    return (aux[0] if isinstance(aux, tuple) else aux).efforts


CASES = {"KnuckleBoomCrane, moving set-points": ("KnuckleBoomCrane", False, False, False),
         "KnuckleBoomCrane, into the end stop": ("KnuckleBoomCrane", True, False, False),
         "KnuckleBoomCrane + payload, slack and taut": ("KnuckleBoomCrane", False, True, False),
         "KnuckleBoomCraneOnMovingBase": ("KnuckleBoomCraneOnMovingBase", False, False, False),
         "KnuckleBoomCraneOnMovingBase, interface inertia": ("KnuckleBoomCraneOnMovingBase", False, False, True),
         "VesselCrane": ("VesselCrane", False, False, False),
         "Vessel, moving wrench and crane inertia": ("Vessel", False, False, False)}


@pytest.fixture(scope="module", params=list(CASES))
def run(request):
    name, push_stop, payload, inertia = CASES[request.param]
    return {"push_stop": push_stop, "payload": payload, "inertia": inertia,
            **_run(name, push_stop, payload, inertia)}


def worst(pairs: list, groups: list | None = None) -> tuple:
    """(largest deviation over the run in units of each component's scale, its component) for (kernel, numpy)
    pairs; the scale is the largest magnitude numpy gives the component, or any component of its group (``groups``:
    a label per component); a component whose scale is zero must be zero in the kernel too (deviation inf else)."""
    kernel = np.array([a for a, _ in pairs])
    reference = np.array([b for _, b in pairs])
    scale = np.max(np.abs(reference), axis=0)
    if groups is not None:
        largest = {g: max(s for s, h in zip(scale, groups) if h == g) for g in set(groups)}
        scale = np.array([largest[g] for g in groups])
    deviation = np.max(np.abs(kernel - reference), axis=0)
    relative = np.where(scale > 0.0, deviation / np.where(scale > 0.0, scale, 1.0), np.where(deviation > 0, np.inf, 0))
    i = int(np.argmax(relative))
    return float(relative[i]), i


def test_the_input_update_in_the_kernel_is_a_fresh_numpy_evaluation(run):
    if not run["update"]:
        pytest.skip("no exact input update: the model evaluates anew for new inputs (a crane on a moving base: they "
                    "prescribe its base's state; the Vessel: the crane's inertia A makes u' non-affine in them)")
    deviation, i = worst(run["update"])
    assert deviation < TOLERANCE, f"[x'; efforts] component {i}: {deviation:.3g} of its scale"


def test_a_step_in_the_kernel_is_the_python_steppers_on_numpys_derivative(run):
    if not run["step"]:
        pytest.skip("state events: tests/test_payload_kernel.py compares the kernel's stepping with them")
    deviation, i = worst(run["step"])
    assert deviation < TOLERANCE, f"state component {i}: {deviation:.3g} of its scale"


def test_write_outputs_writes_every_output_as_numpy_computes_it(run):
    deviation, i = worst(run["outputs"], run["units"])
    assert deviation < TOLERANCE, f"output {run['names'][i]}: {deviation:.3g} of its scale"
    if run["inertia"]:  # A and W0 computed, not the zeros they are with inertia_outputs off
        kernel = np.array([a for a, _ in run["outputs"]])
        for prefix in ("interface_inertia_", "interface_force0_", "interface_moment0_"):
            at = [j for j, name in enumerate(run["names"]) if name.startswith(prefix)]
            assert at and np.max(np.abs(kernel[:, at])) > 0.0, prefix


def test_an_output_numpy_gives_as_zero_throughout_is_zero_from_the_kernel(run):
    """Exact zeros stay exact (the Vessel's crane base on its upright axis has no vertical velocity, ω × [0, 0, l1]):
    a master or an engine comparing runs against a tiny floor must not see rounding noise there."""
    kernel = np.array([a for a, _ in run["outputs"]])
    reference = np.array([b for _, b in run["outputs"]])
    zero = [j for j in range(reference.shape[1]) if not reference[:, j].any()]
    assert not kernel[:, zero].any(), [run["names"][j] for j in zero if kernel[:, j].any()]


def test_the_end_stop_case_reaches_the_stop_and_the_other_does_not(run):
    """The cases cover both branches of the end stops (forces and the active flag computed, or zero) and of the
    wire (taut and slack)."""
    assert set(run["slack"]) == ({False, True} if run["payload"] else {False})
    active = run["active"]
    if run["push_stop"]:
        assert sum(active) > STEPS // 2 and active[-1] == 1
    else:
        assert not any(active)


def test_a_crane_on_a_ship_writes_its_outputs_in_the_ships_frame():
    """A crane mounted on a ship at a heading (core/moving_base/ship.py) gives its wrench and tip in the ship's frame:
    the wrapped model's kernel writer, which knows only the base frame, must not be taken for the ship's."""
    spec = SPECS["KnuckleBoomCraneOnMovingBase"]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(mount_heading=0.7, mount_x=12.0)
    model, x0, options = spec.build(values)
    sim = CoSimulation(model, x0, inputs=_inputs(spec, 0, False), **options)
    names = tuple(v.name for v in spec.outputs)
    table = np.empty(len(names))
    for k in range(5):
        sim.set_inputs(_inputs(spec, k, False))
        sim.step(STEP)
    sim.write_outputs(names, table)
    reference = sim.outputs()
    assert table.tolist() == [float(reference[n]) for n in names]
    assert reference["interface_force_x"] != 0.0 and reference["point_of_attack_x"] != 0.0
