"""fmi2GetDirectionalDerivative through the FMU (the project's runtime and fmi/derivatives.py).

Independent expectations: (1) KnuckleBoomCrane's applied king torque is the controller's torque plus the input
``king_torque`` (the output's definition, Fig. 15), and the controller does not see the input, so
d(applied_king_torque)/d(king_torque) = 1 exactly; (2) on the moving base the load on the vessel is
W = W0 − A a, so dW/da = −A with A the FMU's interface-inertia outputs (a Schur complement of the mass matrix,
a separate computation: core/moving_base/interface_inertia.py). Tolerances: the outputs are affine in the
inputs, so the central difference is exact up to rounding; 1e-7 relative to the largest entry leaves room for
rounding in W (~3.5e5 N) over the step (1e-6 of the inputs' scale).
"""
from __future__ import annotations

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException

from crane_models.core.moving_base.interface_inertia import inertia_matrix
from fmu_helpers import Slave, build_fmus, needs_runtime

ACC = [f"base_acceleration_{a}" for a in "xyz"] + [f"angular_acceleration_{a}" for a in "xyz"]
WRENCH = [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


@needs_runtime
def test_the_fmus_declare_directional_derivatives(fmu_dir):
    md = read_model_description(str(fmu_dir / "KnuckleBoomCrane.fmu"))
    assert md.coSimulation.providesDirectionalDerivative


@needs_runtime
def test_an_input_added_to_an_output_has_derivative_one(fmu_dir):
    s = Slave(fmu_dir / "KnuckleBoomCrane.fmu")
    s.init()
    s.set("q2_ref", 1.0)
    assert s.step() == 0
    vr = s.vr
    before = s.get("q1")
    d = s.fmu.getDirectionalDerivative([vr["applied_king_torque"], vr["applied_cylinder2_force"]],
                                       [vr["king_torque"]], [1.0])
    assert d[0] == pytest.approx(1.0, rel=1e-9) and abs(d[1]) < 1e-6
    assert s.get("q1") == before and s.step() == 0  # the state is untouched
    with pytest.raises(FMICallException) as refused:  # an input as unknown: not an output
        s.fmu.getDirectionalDerivative([vr["king_torque"]], [vr["king_torque"]], [1.0])
    assert refused.value.status == 3
    s.close()


def test_the_load_on_the_vessel_changes_with_base_acceleration_by_minus_the_interface_inertia(fmu_dir):
    s = Slave(fmu_dir / "KnuckleBoomCraneOnMovingBase.fmu")
    s.fmu.enterInitializationMode()
    s.fmu.setBoolean([s.vr["inertia_outputs"]], [True])
    s.fmu.exitInitializationMode()
    s.set("base_acceleration_x", 0.3)
    s.set("angular_acceleration_y", -0.2)
    assert s.step() == 0
    A = inertia_matrix({n: s.get(n) for n in s.vr if n.startswith("interface_inertia_")})
    columns = []
    for j, known in enumerate(ACC):
        columns.append(s.fmu.getDirectionalDerivative([s.vr[w] for w in WRENCH], [s.vr[known]], [1.0]))
    derivative = np.array(columns).T
    assert np.max(np.abs(derivative + A)) <= 1e-7 * np.max(np.abs(A))
    # A seed along two inputs at once is the sum of the columns (linearity of the directional derivative).
    both = s.fmu.getDirectionalDerivative([s.vr[w] for w in WRENCH], [s.vr[ACC[0]], s.vr[ACC[4]]], [2.0, -1.0])
    assert np.allclose(both, 2.0 * derivative[:, 0] - derivative[:, 4], rtol=0, atol=1e-7 * np.max(np.abs(A)))
    s.close()
