"""FlexibleCrane's outputs by the kernel (issue 23, item 3): ``mbs_task_outputs`` writes every output of the FMU into
the caller's table in one call; ``FlexibleCraneModel.outputs`` (numpy) is the specification.

The FMU's model runs communication steps of 10 ms with a moving input torque, across the end of the paper's torque
pulse (0.1 s, a switching time), with the programmed motion (22) rising or switched off, LuGre, Dahl or no friction,
four elements or the rigid link, and a state saved at step 15 restored after step 30 and replayed with other inputs.
At every communication point the table written by ``write_outputs`` is compared

* with ``outputs`` on the same evaluation (the kernel's record read by numpy): to 1e-12 of each output's own largest
  magnitude over the run. Both sides compute the same formulas from the same record, so only the order of the
  roundings could differ (~1e-16 per operation). Where that order is amplified, the specification writes plain sums
  that the kernel repeats, and those outputs must agree bit for bit (checked exactly): the support resultant (each
  support force is a stiffness times a deflection p - p_rest of ~1e-4 m taken from positions of ~1 m, and the eight
  nearly balance: another rounding of a position moved support_force_z by 1.4e-12 of itself through an FMU), the
  link's deflection and torsion (differences of ~10 m positions; the rigid link's are pure rounding noise);
* with a numpy twin (the kernel switched off: ``FlexibleCrane.evaluate`` in numpy) at the same state: the outputs
  the evaluation does not decide (state, tip, z_E,a, supports, deflection, drive) to 1e-12 of the largest magnitude of
  their unit, as tests/test_kernel_outputs.py; those of the constrained solve and the friction fixed point (Φ,
  λ, constraint force, friction torques, normal forces) to 1e-10, the bound of the kernel's evaluation against numpy
  (tests/test_native.py: the constrained solve loses cond(M) ≈ 1e4 times the rounding). Not at the end of the torque
  pulse: there the step's last evaluation, whose outputs the FMU shows, is the left-hand one (pulse on), while a
  fresh evaluation at that time takes the right-hand value (pulse off) -- as before this work.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.core import native
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.registry import SPECS
from fmu_helpers import NO_KERNEL, build_fmi3_fmus, build_fmus, needs_runtime
from value_table_host import Instance, Specification

pytestmark = pytest.mark.skipif(native.library() is None, reason=NO_KERNEL)

STEP = 0.01  # s, the FMU's communication step
STEPS = 45
SAVE_AT, RESTORE_AT = 15, 30
TOLERANCE = 1e-12
EVALUATION_TOLERANCE = 1e-10  # the kernel's constrained solve against numpy's (tests/test_native.py)
# Outputs that the evaluation's solve decides (constraint multipliers, friction fixed point).
SOLVED = ("phi1", "phi2", "constraint_force_x", "constraint_force_y", "constraint_force_z", "lambda1", "lambda2",
          "friction_torque_1", "friction_torque_2", "friction_torque_3", "normal_force_1", "normal_force_2",
          "normal_force_3")
BITWISE = (("link2_deflection_y", "link2_deflection_z", "link2_torsion") + tuple(f"support_force_{a}" for a in "xyz")
           + tuple(f"support_moment_{a}" for a in "xyz"))

CASES = {"4 elements, LuGre, programmed motion": dict(n_rfe=4, friction_model=2, constraints_enabled=True),
         "4 elements, Dahl, no programmed motion": dict(n_rfe=4, friction_model=1, constraints_enabled=False),
         "rigid link, no friction, programmed motion": dict(n_rfe=1, friction_model=0, constraints_enabled=True)}


def _torque(k: int) -> float:
    """The input torque at communication point k [N m]: moving at every point; other values after the restore."""
    return 800.0 * math.sin(0.7 * k) + 200.0


def _run(settings: dict) -> dict:
    spec = SPECS["FlexibleCrane"]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(settings)
    model, x0, options = spec.build(values)
    twin = spec.build(values)[0]
    twin.crane.system.native = None  # numpy evaluation (FlexibleCrane.evaluate's specification path)
    assert twin.crane.native_task() is None and model.crane.native_task() is not None
    names = tuple(v.name for v in spec.outputs)
    sim = CoSimulation(model, x0, inputs=np.array([_torque(0)]), **options)
    table = np.empty(len(names))
    rows = {"same": [], "twin": [], "fallback": []}
    saved, k = None, 0
    for count in range(STEPS):
        if count == SAVE_AT:
            saved = sim.get_state()
        if count == RESTORE_AT:
            sim.set_state(saved)
            k = SAVE_AT + 100  # other inputs than the first time
        u = np.array([_torque(k)])
        sim.set_inputs(u)
        sim.step(STEP)
        sim.write_outputs(names, table)
        _, aux = sim._current()
        spec_values = model.outputs(sim.t, sim.x, u, aux)
        rows["same"].append((table.copy(), np.array([spec_values[n] for n in names])))
        numpy_aux = twin.derivative(sim.t, sim.x, u)[1]
        reference = twin.outputs(sim.t, sim.x, u, numpy_aux)
        if not any(abs(sim.t - s) < 1e-9 for s in model.switch_times):
            rows["twin"].append((table.copy(), np.array([reference[n] for n in names])))
        fallback = np.empty(len(names))  # the writer given numpy's evaluation: the specification's dict
        model.write_outputs(sim.t, sim.x, u, numpy_aux, names, fallback)
        rows["fallback"].append((fallback, np.array([reference[n] for n in names])))
        k += 1
    return {"names": names, "units": [v.unit for v in spec.outputs], "settings": settings, **rows}


@pytest.fixture(scope="module", params=list(CASES))
def run(request):
    return _run(CASES[request.param])


def _deviations(pairs: list, names: tuple, scale_of) -> dict:
    """{name: largest |kernel - reference| over the run / its scale (inf when the scale is 0 and they differ)}."""
    kernel = np.array([a for a, _ in pairs])
    reference = np.array([b for _, b in pairs])
    deviation = np.max(np.abs(kernel - reference), axis=0)
    scale = scale_of(np.max(np.abs(reference), axis=0))
    return {n: (d / s if s > 0 else (math.inf if d > 0 else 0.0)) for n, d, s in zip(names, deviation, scale)}


def test_the_kernels_table_is_the_specifications_outputs_of_the_same_evaluation(run):
    names = run["names"]
    relative = _deviations(run["same"], names, lambda s: s)
    worst = max(relative, key=relative.get)
    assert relative[worst] < TOLERANCE, f"{worst}: {relative[worst]:.3g} of its scale"
    kernel = np.array([a for a, _ in run["same"]])
    reference = np.array([b for _, b in run["same"]])
    for name in BITWISE:
        j = names.index(name)
        assert kernel[:, j].tolist() == reference[:, j].tolist(), name


def test_the_kernels_table_is_a_numpy_evaluations_outputs(run):
    names, units = run["names"], run["units"]
    largest = {}

    def by_unit(scale):
        for s, unit in zip(scale, units):
            largest[unit] = max(largest.get(unit, 0.0), s)
        return np.array([largest[unit] for unit in units])

    relative = _deviations(run["twin"], names, by_unit)
    for name, r in relative.items():
        bound = EVALUATION_TOLERANCE if name in SOLVED else TOLERANCE
        assert r < bound, f"{name}: {r:.3g} of the scale of its unit"


def test_without_the_kernels_evaluation_the_writer_gives_the_specifications_values(run):
    for got, want in run["fallback"]:
        assert got.tolist() == want.tolist()


def test_the_run_covers_the_pulse_the_programmed_motion_and_the_friction(run):
    """Each case passes through what the outputs distinguish: the pulse (21) on and off, the programmed height rising
    (or the tip's height without the constraint, and λ zero), friction torques computed (or exactly zero)."""
    names, settings = run["names"], run["settings"]
    table = np.array([a for a, _ in run["same"]])
    column = {n: table[:, j] for j, n in enumerate(names)}
    torques = [_torque(k) for k in range(RESTORE_AT)]
    assert column["drive_torque"][:9].tolist() == [t - 4000.0 for t in torques[:9]]  # steps ending before 0.1 s
    assert column["drive_torque"][10:RESTORE_AT].tolist() == torques[10:RESTORE_AT]
    if settings["constraints_enabled"]:
        assert np.all(np.diff(column["z_E_programmed"][:SAVE_AT]) > 0.0)
        assert np.all(np.abs(column["lambda2"]) > 0.0)
    else:
        assert column["z_E_programmed"].tolist() == column["tip_z"].tolist()
        assert not np.any(column["lambda1"]) and not np.any(column["constraint_force_z"])
    friction = table[:, [names.index(f"friction_torque_{i}") for i in (1, 2, 3)]]
    assert np.all(friction != 0.0) if settings["friction_model"] else not np.any(friction)
    if settings["n_rfe"] > 1:
        assert np.min(np.abs(column["link2_deflection_y"])) > 1e-6  # the link bends under its weight


def test_the_kernel_writes_the_table_without_the_specifications_dict(monkeypatch):
    """With the kernel's evaluation the table comes from ``mbs_task_outputs`` alone: the numpy outputs are not
    called (the Python around the kernel call is bookkeeping)."""
    spec = SPECS["FlexibleCrane"]()
    model, x0, options = spec.build({v.name: v.start for v in spec.parameters})
    names = tuple(v.name for v in spec.outputs)
    sim = CoSimulation(model, x0, inputs=np.array([100.0]), **options)
    sim.step(STEP)
    expected = sim.outputs()

    def not_called(*args):
        raise AssertionError("the specification's outputs were computed")

    monkeypatch.setattr(model, "outputs", not_called)
    table = np.empty(len(names))
    sim.write_outputs(names, table)
    scale = np.array([abs(expected[n]) for n in names])
    assert np.all(np.abs(table - [expected[n] for n in names]) <= TOLERANCE * np.maximum(scale, 1e3))


def test_a_programmed_start_set_anew_reaches_the_kernels_outputs():
    """``set_programmed_start`` makes the crane's task anew (another z_E,s of (22)): a writer made before it writes
    z_E,a(t) of the new constraint, as the specification does, not the old task's."""
    from crane_models.models.flexible_crane.parameters import FlexibleCraneInitialState

    spec = SPECS["FlexibleCrane"]()
    model, x0, options = spec.build({v.name: v.start for v in spec.parameters})
    names = tuple(v.name for v in spec.outputs)
    sim = CoSimulation(model, x0, inputs=np.array([0.0]), **options)
    sim.step(STEP)
    table = np.empty(len(names))
    sim.write_outputs(names, table)  # the writer of these names is made and kept
    before = table[names.index("z_E_programmed")]
    init = FlexibleCraneInitialState()
    model.crane.set_programmed_start(type(init)(**{**vars(init), "q_c2_0": init.q_c2_0 + 0.2}))
    sim.write_outputs(names, table)
    expected = sim.outputs()["z_E_programmed"]
    assert abs(expected - before) > 0.1 and table[names.index("z_E_programmed")] == expected


FMU_SETTINGS = {"n_rfe": 4, "friction_model": 1, "constraints_enabled": True}  # Dahl: the FMU's other friction law


@needs_runtime
@pytest.mark.parametrize("version", (2, 3))
def test_the_fmus_table_equals_the_specification_across_the_pulse_and_a_restore(tmp_path_factory, version):
    """The FMU, FMI 2.0 and 3.0 (fmpy; the outputs served from the runtime's table, written by ``mbs_task_outputs``)
    against the model and its co-simulation driven in this process (``CoSimulation.outputs``, the dict): 10 ms steps
    across the pulse's end (0.1 s), a state saved at 0.05 s restored after 0.12 s and replayed with other torques,
    the outputs read after each step and after each input set. 1e-12 of each output's largest magnitude
    (tests/test_value_table.py's bound: both sides run the same code, the table's outputs are the dict's to the
    last bit on the same evaluation)."""
    fmus = build_fmus(tmp_path_factory) if version == 2 else build_fmi3_fmus(tmp_path_factory)
    spec = SPECS["FlexibleCrane"]()
    names = [v.name for v in spec.outputs]
    s = Instance(fmus / "FlexibleCrane.fmu", version, "flexible")
    s.enter_initialization()
    s.set({**FMU_SETTINGS, "column_torque": _torque(0)})
    s.fmu.exitInitializationMode()
    assert s.on_table, s.messages[:5]
    ref = Specification(spec, FMU_SETTINGS, {"column_torque": _torque(0)})
    got, want, saved = [], [], None

    def read(u: dict) -> None:
        values = s.get(names)
        got.append([values[n] for n in names])
        reference = ref.outputs(u)
        want.append([reference[n] for n in names])

    for k in list(range(13)) + [105 + j for j in range(7)]:  # 105...: the replay from 0.05 s, other torques
        if k == 105:
            s.set_state(saved)
            ref.sim.set_state(ref_saved)
        t = round((k if k < 100 else k - 100) * STEP, 12)
        u = {"column_torque": _torque(k)}
        s.set(u)
        read(u)  # the outputs for the new input, before the step
        assert s.step(t, STEP) == 0, s.errors()
        ref.step(t, STEP, u)
        read(u)
        if k == 4:
            saved, ref_saved = s.get_state(), ref.sim.get_state()
    got, want = np.array(got), np.array(want)
    scale = np.max(np.abs(want), axis=0)
    bad = [(n, float(np.max(np.abs(got[:, j] - want[:, j])) / scale[j])) for j, n in enumerate(names)
           if np.any(np.abs(got[:, j] - want[:, j]) > TOLERANCE * scale[j])]
    assert not bad, bad
    assert s.errors() == []
    s.close()
