"""ECCO system structures (crane_models/fmi/osp_ecco.py): the ECCO variant of each vessel-crane pair, valid against
the project's rules (tests/schemas), wiring exactly what the fixed-step file wires, loaded and run by libcosim with
an adaptive step; the energy residual as libcosim defines it on a worked example; and a watch on libcosimpy's
power-bond limit (0.0.6 loads a structure with one power bond and refuses a second).
"""
from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) is needed to validate the OSP files")

from crane_models.fmi.osp import MD_NAMESPACE, SS_NAMESPACE  # noqa: E402
from crane_models.fmi.osp_ecco import (EccoSettings, ecco_file_name, ecco_system_structure,  # noqa: E402
                                       port_bonds)
from crane_models.models.build import pair_connections, write_ecco_files, write_osp_files  # noqa: E402
from crane_models.models.registry import OSP_ECCO, OSP_PAIRS, SPECS  # noqa: E402
from engine_runs import NO_LIBCOSIM, libcosim_missing  # noqa: E402
from fmu_helpers import build_fmus  # noqa: E402

SCHEMAS = Path(__file__).parent / "schemas"
NS = {"s": SS_NAMESPACE, "m": MD_NAMESPACE}
SIX_BONDS_LIFTED = ("libcosimpy now loads a system structure with six power bonds: switch the shipped ECCO files to "
                    "the six bonds of the mechanical ports (SHIP_ECCO in crane_models/models/registry.py), "
                    "measure them and update docs/ship-cosimulation.md, 'ECCO'")


@pytest.fixture(scope="module")
def rules():
    return xmlschema.XMLSchema(str(SCHEMAS / "osp_system_structure_rules.xsd"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("osp_ecco")
    fixed = {p.name: p for p in write_osp_files(out)}
    return fixed, {p.name: p for p in write_ecco_files(out)}


def test_file_names_and_port_bonds():
    assert ecco_file_name("OspSystemStructure.xml") == "Ecco_OspSystemStructure.xml"
    assert (ecco_file_name("KnuckleBoomOnVessel_OspSystemStructure.xml")
            == "KnuckleBoomOnVessel_Ecco_OspSystemStructure.xml")
    with pytest.raises(ValueError):
        ecco_file_name("KnuckleBoomOnVessel.ssp")
    unit = {v.name: v.unit for v in SPECS["Vessel"]().variables()}
    bonds = port_bonds()
    assert len(bonds) == 6
    assert {(unit[e], unit[f]) for e, f in bonds.values()} == {("N", "m/s"), ("N.m", "rad/s")}  # force-velocity
    assert bonds["interface_angular_port_y"] == ("interface_moment_y", "angular_velocity_y")


def test_every_pair_has_an_ecco_structure_that_validates(rules, written):
    _, ecco = written
    assert set(ecco) == {ecco_file_name(f) for f in OSP_ECCO}  # the default wiring of each pair
    for path in ecco.values():
        rules.validate(str(path))


def test_the_rules_reject_what_libcosim_would_refuse(rules):
    pair, bonds, settings = OSP_ECCO["OspSystemStructure.xml"]
    good = ecco_system_structure(pair, pair_connections(pair), bonds, settings)
    assert rules.is_valid(good)
    broken = [good.replace("<AbsoluteTolerance>", "<Tolerance>").replace("</AbsoluteTolerance>", "</Tolerance>"),
              good.replace('causality="output"', 'causality="out"', 1),
              good.replace("<Algorithm>ecco</Algorithm>", "<Algorithm>energyConserving</Algorithm>")]
    root = ET.fromstring(good)  # the configuration before the connections
    config = root.find("s:EccoConfiguration", NS)
    root.remove(config)
    root.insert(list(root).index(root.find("s:Connections", NS)), config)
    broken.append(ET.tostring(root, encoding="unicode"))
    for text in broken:
        assert not rules.is_valid(text)


def _group_members(md_path: Path) -> dict:
    """{group name: [variables]} of an OSP model description, a port's two sub-groups in order."""
    root = ET.parse(md_path).getroot()
    return {g.get("name"): [v.get("ref") for v in g.iter(f"{{{MD_NAMESPACE}}}Variable")] for g in root[0]}


def _causality(fmu: str) -> dict:
    spec = SPECS[fmu]()
    return {v.name: "input" for v in spec.inputs} | {v.name: "output" for v in spec.outputs}


@pytest.mark.parametrize("fixed_name", sorted(OSP_ECCO))
def test_the_ecco_file_wires_what_the_fixed_step_file_wires(written, fixed_name):
    """The fixed-step file's variable-group connections, expanded as libcosim expands them (the groups' variables
    in order, from the model descriptions), are the ECCO file's connections; the bonds are the pair's, each on two
    connections that run opposite ways with their causality named, one the effort, one the flow."""
    fixed, ecco = written
    pair, bonds, settings = OSP_ECCO[fixed_name]
    fmus = {sim: fmu for sim, (fmu, _) in pair.items()}
    expected = set()
    for c in ET.parse(fixed[fixed_name]).getroot().iterfind("s:Connections/s:VariableGroupConnection", NS):
        (sa, ga), (sb, gb) = ((g.get("simulator"), g.get("name")) for g in c)
        va = _group_members(fixed[fixed_name].parent / f"{fmus[sa]}_OspModelDescription.xml")[ga]
        vb = _group_members(fixed[fixed_name].parent / f"{fmus[sb]}_OspModelDescription.xml")[gb]
        for a, b in zip(va, vb, strict=True):
            out = _causality(fmus[sa])[a] == "output"
            expected.add((sa, a, sb, b) if out else (sb, b, sa, a))
    root = ET.parse(ecco[ecco_file_name(fixed_name)]).getroot()
    assert root.find("s:Algorithm", NS).text == "ecco"
    got, by_bond = set(), {}
    for c in root.iterfind("s:Connections/s:VariableConnection", NS):
        (a, b) = c.findall("s:Variable", NS)
        got.add((a.get("simulator"), a.get("name"), b.get("simulator"), b.get("name")))
        if "powerBond" in c.attrib:
            assert (a.get("causality"), b.get("causality")) == ("output", "input")
            assert _causality(fmus[a.get("simulator")])[a.get("name")] == "output"
            by_bond.setdefault(c.get("powerBond"), []).append((a.get("simulator"), a.get("name"), b.get("simulator"),
                                                              b.get("name")))
        else:
            assert a.get("causality") is None and b.get("causality") is None
    assert got == expected
    assert set(by_bond) == set(bonds)
    for name, conns in by_bond.items():
        (a1, v1, b1, w1), (a2, v2, b2, w2) = conns
        assert (a1, b1) == (b2, a2)  # one each way
        assert set(bonds[name]) <= {v1, w1, v2, w2}  # the effort and the flow of the bond (the crane's wrench by its name)
    values = {e.tag.split("}")[1]: float(e.text) for e in root.find("s:EccoConfiguration", NS)}
    assert values["AbsoluteTolerance"] == settings.abs_tolerance and values["MaximumStepSize"] == settings.max_step_size


def test_the_energy_residual_on_a_worked_example():
    """libcosim's residual per bond and step: crane's held velocity times its new force against the vessel's held
    force times its new velocity. Steps 0.1, 0.1, 0.2 s; F = 1, 2, 2 N, v = 1, 1, 3 m/s at their ends: step 2:
    1*2 - 1*1 = 1 W for 0.1 s; step 3: 1*2 - 2*3 = -4 W for 0.2 s -> residual 0.9 J, net -0.7 J, vessel side
    1*0.1 + 6*0.2 = 1.3 J."""
    from crane_models.app.ship_ecco import bond_energies, bond_sources

    pair = OSP_PAIRS["OspSystemStructure.xml"]
    result = {"step": np.array([0.1, 0.1, 0.2])}
    for name, ends in bond_sources(pair).items():
        for sim, var in ends:
            result[f"bond.{sim}.{var}"] = np.zeros(3)
    (fs, fv), (vs, vv) = bond_sources(pair)["interface_linear_port_x"]
    result[f"bond.{fs}.{fv}"], result[f"bond.{vs}.{vv}"] = np.array([1.0, 2.0, 2.0]), np.array([1.0, 1.0, 3.0])
    energies = bond_energies(result, pair)
    assert energies["interface_linear_port_x"] == pytest.approx((0.9, -0.7, 1.3))
    assert all(v == (0.0, 0.0, 0.0) for k, v in energies.items() if k != "interface_linear_port_x")


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


@pytest.mark.parametrize("fixed_name", sorted(OSP_ECCO))
@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosim_runs_each_ecco_structure_with_an_adaptive_step(fmu_dir, fixed_name):
    """2 s of the demo's scenario: the steps stay within the file's bounds and adapt (some below the grid's), the
    outputs are finite and the crane loads the vessel."""
    from crane_models.app.ship_demo import PAIR_RUNS
    from crane_models.app.ship_ecco import run_ecco_in_libcosim

    settings = OSP_ECCO[fixed_name][2]
    result = run_ecco_in_libcosim(fmu_dir / ecco_file_name(fixed_name), PAIR_RUNS[fixed_name][1]()[2], 0.01, 2.0)
    h = result["step"]
    assert result["time"][-1] >= 2.0 - 1e-9 and np.all(h > 0)
    assert h.min() >= settings.min_step_size * (1 - 1e-6) and h.max() <= settings.max_step_size * (1 + 1e-6)
    assert h.min() < 0.5 * settings.max_step_size, (h.min(), h.max())  # the bond's residual made it shorten
    assert all(np.all(np.isfinite(result[n])) for n in ("roll", "pitch", "yaw", "interface_force_x",
                                                         "interface_force_y", "interface_force_z"))
    # the pair starts at rest in equilibrium and the set-points move from 0.2 s: the 3000 t vessel rolls ~1e-5 rad in 2 s
    assert np.ptp(result["interface_force_y"]) > 1.0 and np.ptp(result["roll"]) > 1e-6


@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
def test_libcosimpy_refuses_six_power_bonds(fmu_dir, tmp_path):
    """libcosimpy 0.0.6 (libcosim 0.11.2) checks the number of bonds against the number of bond names while it
    reads the first bond, so any second bond is refused. When this test fails, a release lifted the limit. The file
    is tried as written today (causality on each bond's variables) and without causality, the form of libcosim's
    unreleased rework (it takes the causality from the model descriptions and drops the attribute)."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level

    log_output_level(CosimLogLevel.ERROR)
    pair, _, settings = OSP_ECCO["OspSystemStructure.xml"]
    for fmu, _ in pair.values():
        shutil.copy(fmu_dir / f"{fmu}.fmu", tmp_path)
    text = ecco_system_structure(pair, pair_connections(pair), port_bonds(), settings)
    refusals = {}
    for form, xml in (("with causality", text), ("without causality", re.sub(r' causality="\w+"', "", text))):
        path = tmp_path / "Ecco_OspSystemStructure.xml"
        path.write_text(xml)
        try:
            CosimExecution.from_osp_config_file(str(path))
        except (AssertionError, RuntimeError) as exc:
            refusals[form] = str(exc)
            continue
        pytest.fail(f"{SIX_BONDS_LIFTED} (the file loads {form})")
    limit = "The number of powerbonds (1) is not equal to the number of unique power bond names (6)"
    assert limit in refusals["with causality"], (
        f"libcosimpy refuses the six-bond ECCO file for another reason than the one-bond limit: "
        f"{refusals['with causality']}; the ECCO format changed: update crane_models/fmi/osp_ecco.py")


def test_the_demo_skips_the_ecco_runs_with_a_reason_when_their_files_are_missing(tmp_path, capsys):
    from crane_models.app.demo import ecco_rows

    assert ecco_rows(tmp_path, 0.01) == []
    assert "Ecco_OspSystemStructure.xml" in capsys.readouterr().out
