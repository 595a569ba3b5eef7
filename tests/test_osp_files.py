"""OSP files (crane_models/fmi/osp.py): valid against the OSP-IS 1.0.1 rules, naming real variables, and the
system structures of both vessel-crane pairs run by libcosim as the fmpy Jacobi master runs them.

The schemas in tests/schemas are the rules of the published OSP-IS XSDs written down for this project (not copies);
the tests first show that they reject what the issue found wrong in the old files (the 1.0.0 namespace,
AngularMechanicalPort before LinearMechanicalPort, Generic groups last), so that a passing validation means
something. libcosim vs fmpy: both run the explicit Jacobi exchange, so they agree to round-off; tolerance 0.1 % of
range (as the existing pair's test).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) is needed to validate the OSP files")

from crane_models.fmi.osp import MD_NAMESPACE, osp_model_description  # noqa: E402
from crane_models.models.build import write_osp_files  # noqa: E402
from crane_models.fmi.osp import ported_wrench  # noqa: E402
from crane_models.models.registry import OSP_PAIRS as PAIRS, OSP_WIRINGS, SPECS  # noqa: E402
from crane_models.models.sea_systems import SEA_SYSTEMS, sea_osp_file  # noqa: E402
from engine_runs import NO_LIBCOSIM, libcosim_missing  # noqa: E402
from fmu_helpers import build_fmus  # noqa: E402

SCHEMAS = Path(__file__).parent / "schemas"
TOL = 1e-3


@pytest.fixture(scope="module")
def schemas():
    return (xmlschema.XMLSchema(str(SCHEMAS / "osp_model_description_rules.xsd")),
            xmlschema.XMLSchema(str(SCHEMAS / "osp_system_structure_rules.xsd")))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("osp")
    return {p.name: p for p in write_osp_files(out)}


def test_every_fmu_and_both_pairs_have_osp_files_that_validate(schemas, written):
    md, ss = schemas
    systems = set(PAIRS) | {sea_osp_file(s) for s in SEA_SYSTEMS}
    assert {f"{n}_OspModelDescription.xml" for n in SPECS} | systems == set(written)
    for name, path in written.items():
        (ss if name in systems else md).validate(str(path))


def test_the_rules_reject_what_the_old_files_did(schemas):
    md, _ = schemas
    good = osp_model_description(SPECS["Vessel"]())
    assert md.is_valid(good)
    assert not md.is_valid(good.replace("/1.0.1", "/1.0.0"))  # superseded namespace
    root = ET.fromstring(good)
    groups = root[0]
    kinds = [g.tag.split("}")[1] for g in groups]
    assert kinds.index("LinearMechanicalPort") < kinds.index("AngularMechanicalPort")
    swapped = list(groups)
    i, j = kinds.index("LinearMechanicalPort"), kinds.index("AngularMechanicalPort")
    swapped[i], swapped[j] = swapped[j], swapped[i]
    groups[:] = swapped
    assert not md.is_valid(ET.tostring(root, encoding="unicode"))  # ports out of order
    generic = ET.fromstring(osp_model_description(SPECS["Vessel"]()))
    ET.SubElement(generic[0], f"{{{MD_NAMESPACE}}}Generic", name="late")  # a Generic group after typed ones
    assert not md.is_valid(ET.tostring(generic, encoding="unicode"))


@pytest.mark.parametrize("name", sorted(SPECS))
def test_groups_name_real_variables_of_one_causality_and_matching_units(name, written):
    spec = SPECS[name]()
    causality = {v.name: "input" for v in spec.inputs} | {v.name: "output" for v in spec.outputs}
    unit = {v.name: v.unit for v in spec.variables()}
    expected_unit = {"Force": "N", "Torque": "N.m", "LinearVelocity": "m/s", "AngularVelocity": "rad/s",
                     "LinearDisplacement": "m", "AngularDisplacement": "rad", "LinearAcceleration": "m/s2",
                     "AngularAcceleration": "rad/s2"}
    root = ET.parse(written[f"{name}_OspModelDescription.xml"]).getroot()
    seen = []
    for group in root.iter():
        kind = group.tag.split("}")[1]
        refs = [v.get("ref") for v in group if v.tag.endswith("Variable")]
        if not refs:
            continue
        assert set(refs) <= set(causality), (kind, refs)
        assert len({causality[r] for r in refs}) == 1, (kind, refs)
        if kind in expected_unit:
            assert {unit[r] for r in refs} == {expected_unit[kind]}, (kind, refs)
        seen += refs
    assert sorted(seen) == sorted(set(seen))  # each variable in one group
    real = {v.name for v in list(spec.inputs) + list(spec.outputs) if v.kind == "real"}
    assert set(seen) == real  # every real input and output is offered to a connection


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def _crane_setpoints(fmu: str):
    """Set-point signals for the crane of each pair (a slew and a luff, as the demo scenarios)."""
    from crane_models.integration.scenario import smoothstep

    if fmu == "CraneOnMovingBase":
        return lambda t: {"q4_ref": smoothstep(t, 0.2, 1.5, 0.0, 0.8), "q5_ref": smoothstep(t, 0.0, 1.0, 0.2, 0.6)}
    return lambda t: {"q1_ref": smoothstep(t, 0.2, 1.5, 0.0, 0.8), "q2_ref": smoothstep(t, 0.0, 1.5, 0.6, 1.2)}


@pytest.mark.parametrize("structure", sorted(PAIRS))
@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosim_runs_the_system_structure_like_the_fmpy_jacobi_master(fmu_dir, structure):
    from fmpy import read_model_description
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver

    from crane_models.simulation.split_masters import SplitSettings, run_split

    log_output_level(CosimLogLevel.ERROR)
    (_, (vessel_fmu, vessel_start)), (_, (crane_fmu, crane_start)) = sorted(PAIRS[structure].items(),
                                                                          key=lambda kv: kv[0] != "vessel")
    wrench = OSP_WIRINGS.get(structure) or ported_wrench(SPECS[crane_fmu]())  # the wrench the structure connects
    step, stop = 0.01, 2.0
    setpoints = _crane_setpoints(crane_fmu)
    names = {"vessel": ["roll", "pitch", "yaw"], "crane": ["interface_force_x", "interface_force_z", "interface_moment_y"]}
    execution = CosimExecution.from_osp_config_file(str(fmu_dir / structure))
    observer, manipulator = CosimObserver.create_last_value(), CosimManipulator.create_override()
    assert execution.add_observer(observer) and execution.add_manipulator(manipulator)
    index = {s: execution.slave_index_from_instance_name(s) for s in names}
    vr = {s: {v.name: v.valueReference for v in read_model_description(str(fmu_dir / f"{f}.fmu")).modelVariables}
          for s, f in (("vessel", vessel_fmu), ("crane", crane_fmu))}
    rows = []
    for k in range(int(round(stop / step))):
        values = setpoints(k * step)
        assert manipulator.slave_real_values(index["crane"], [vr["crane"][n] for n in values], list(values.values()))
        assert execution.step(1)
        rows.append([x for s in names for x in observer.last_real_values(index[s], [vr[s][n] for n in names[s]])])
    assert execution.stop()
    got = np.array(rows)
    r = run_split(fmu_dir / f"{vessel_fmu}.fmu", fmu_dir / f"{crane_fmu}.fmu", stop, step, setpoints,
                  SplitSettings(scheme="jacobi", vessel_start=vessel_start, crane_start=crane_start, wrench=wrench))
    ref = np.column_stack([r[f"{s}.{n}"] for s in names for n in names[s]])[1:]
    dev = np.abs(got - ref).max(axis=0) / np.maximum(np.ptp(ref, axis=0), 1e-6)
    assert dev.max() < TOL, dict(zip([n for s in names for n in names[s]], dev))
    assert np.ptp(ref[:, 0]) > 1e-4 and np.ptp(ref[:, 3]) > 10.0  # the vessel rolls, the load changes
