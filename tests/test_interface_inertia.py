"""Interface inertia A and W₀ of the moving-base crane FMUs (core/moving_base/interface_inertia.py).

The load on the vessel is affine in the base acceleration, ``W = W₀ − A a``: A from the FMU (a Schur complement
of the mass matrix) must equal central differences of W with respect to the acceleration inputs -- exact up to
rounding, since W is affine; tolerance 1e-6 of A's largest entry per block (the issue's figure; rounding in W,
whose scale is m g ~ 3.5e5 N for the knuckle boom, divided by the step 1e-2 gives ~1e-9 of A). A must be
symmetric and positive semi-definite (eigenvalues ≥ −1e-12 of the largest), and W at zero acceleration is W₀.
Checked in both FMUs, in the default frame and in the NED-style, turned mounting of the ship conventions.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from crane_models.models.registry import SPECS
from crane_models.core.moving_base.interface_inertia import inertia_matrix

NAMES = ["CraneOnMovingBase", "KnuckleBoomCraneOnMovingBase"]
ACC = [f"base_acceleration_{a}" for a in "xyz"] + [f"angular_acceleration_{a}" for a in "xyz"]
WRENCH = [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]


def evaluate(name: str, overrides: dict, changes: dict) -> dict:
    spec = SPECS[name]()
    values = {v.name: v.start for v in spec.parameters}
    values.update(overrides, inertia_outputs=True)
    model, x0, _ = spec.build(values)
    rng = np.random.default_rng(11)
    inputs = {v.name: v.start for v in spec.inputs}
    motion = rng.normal(size=12) * [0.1, 0.1, 0.5, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 1.0, 1.0, 1.0]
    for k, n in enumerate(["roll", "pitch", "yaw"] + [f"{q}_{a}" for q in ("angular_velocity", "angular_acceleration",
                                                                        "base_acceleration") for a in "xyz"]):
        inputs[n] = float(motion[k])
    inputs.update(changes)
    w = np.array([inputs[n] for n in model.input_names])
    x = np.array(x0, dtype=float)
    x[len(x) // 2:len(x) // 2 + 3] = [0.1, -0.05, 0.08]  # the crane moves
    if hasattr(model, "impose_inputs"):
        x = model.impose_inputs(x, w)
    _, aux = model.derivative(0.0, x, w)
    out = model.outputs(0.0, x, w, aux)
    out["_inputs"] = inputs
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("frame", [{}, {"z_down": True, "mount_heading": 0.6}])
def test_inertia_equals_differences_of_the_load_and_is_symmetric_positive(name, frame):
    base = evaluate(name, frame, {})
    A = inertia_matrix(base)
    delta = 1e-2
    columns = []
    for n in ACC:
        plus = evaluate(name, frame, {n: base["_inputs"][n] + delta})
        minus = evaluate(name, frame, {n: base["_inputs"][n] - delta})
        columns.append([(plus[w] - minus[w]) / (2 * delta) for w in WRENCH])
    fd = -np.array(columns).T  # W = W0 - A a
    for rows in (slice(0, 3), slice(3, 6)):
        for cols in (slice(0, 3), slice(3, 6)):
            scale = np.abs(A[rows, cols]).max() + np.abs(A).max() * 1e-9
            assert np.allclose(A[rows, cols], fd[rows, cols], rtol=0, atol=1e-6 * scale), (rows, cols)
    assert np.array_equal(A, A.T)
    eig = np.linalg.eigvalsh(A)
    assert eig.min() >= -1e-12 * eig.max()
    assert eig.max() > 0.5 * {"CraneOnMovingBase": 90.0, "KnuckleBoomCraneOnMovingBase": 36000.0}[name]  # ≈ its mass
    zero = evaluate(name, frame, {n: 0.0 for n in ACC})
    w0 = np.array([base[f"interface_{k}0_{a}"] for k in ("force", "moment") for a in "xyz"])
    scale = np.abs(w0).max()
    assert np.allclose([zero[w] for w in WRENCH], w0, rtol=0, atol=1e-9 * scale)


@pytest.mark.parametrize("name,mass", [("CraneOnMovingBase", 90.0), ("KnuckleBoomCraneOnMovingBase", 36000.0)])
def test_translational_inertia_is_at_most_the_crane_mass(name, mass):
    """The free joints can only shed inertia: the Schur complement is below the locked crane's ``M_pp``, whose
    translational block is the total mass times the identity (Table I: 3 × 30 kg; Table 2: 36 t)."""
    A = inertia_matrix(evaluate(name, {}, {}))
    eig = np.linalg.eigvalsh(mass * np.eye(3) - A[:3, :3])
    assert eig.min() >= -1e-9 * mass
    assert np.trace(A[:3, :3]) > 0.1 * mass  # but the crane is not weightless to the vessel
