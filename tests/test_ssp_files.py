"""SSP packages (crane_models/fmi/ssp.py, written by the build): valid against the SSP 1.0 schemas, connections
between real connectors of real FMU variables, the same connections as the OSP system structures, parameter values
equal to the FMUs' start values (and the pairs' parameter sets), and the engines that read SSP run them as libcosim
runs the OSP structures.

The schemas are the SSP 1.0 XSDs that fmpy ships (``fmpy/ssp/schema``), used as they are at test time (the project
holds no copy). Everything a test compares against is read independently of the writer: the FMUs' own
``modelDescription.xml`` (from the FMU inside each package), the OSP files.

Engines: libcosim and Ecos both run the fixed-step Jacobi exchange, so the vessel's and the crane's motion agree to
rounding (checked to 1e-9 of each signal's largest magnitude; measured ~1e-15). Ecos reports an output *after* it has
passed the step's outputs on to the connected inputs (``simulation::step``: transfer, then set, then get), libcosim
before, so outputs with direct feedthrough of a connected input (the crane's interface wrench depends on the base
acceleration it receives) are sampled at different input values: the motion, which integrates the exchanged wrench,
is what both schemes determine and what is compared.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) is needed to validate the SSP files")

from crane_models.models.registry import OSP_PAIRS as PAIRS  # noqa: E402
from crane_models.models.registry import SPECS  # noqa: E402
from crane_models.models.vessel_crane.vessels import SHIP_PAIRS, WIRINGS  # noqa: E402
from crane_models.models.sea_systems import SEA_SYSTEMS  # noqa: E402
from crane_models.fmi.osp import ported_wrench  # noqa: E402
from engine_runs import needs_ecospy  # noqa: E402
from fmu_helpers import build_fmus  # noqa: E402
from crane_models.app.ship_demo import ecos_scratch  # noqa: E402

NS = {"ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
      "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
      "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues"}
OSP_FILE = {pair: osp for osp, members in PAIRS.items() for pair, m in SHIP_PAIRS.items() if m is members}
STEP, STOP = 0.01, 2.0


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


@pytest.fixture(scope="module")
def schemas():
    import fmpy

    folder = Path(fmpy.__file__).parent / "ssp" / "schema"
    return (xmlschema.XMLSchema(str(folder / "SystemStructureDescription.xsd")),
            xmlschema.XMLSchema(str(folder / "SystemStructureParameterValues.xsd")))


def _package(fmu_dir: Path, name: str) -> dict:
    """Members of ``name.ssp``: the SSD and SSV texts and the FMU variables ``{component: {name: variable}}``."""
    from fmpy import read_model_description

    with zipfile.ZipFile(fmu_dir / f"{name}.ssp") as z:
        ssd = z.read("SystemStructure.ssd").decode()
        ssv = {n: z.read(n).decode() for n in z.namelist() if n.endswith(".ssv")}
        root = ET.fromstring(ssd)
        variables = {}
        for comp in root.iterfind(".//ssd:Component", NS):
            tmp = fmu_dir / f"_{name}_{comp.get('name')}.fmu"
            tmp.write_bytes(z.read(comp.get("source")))
            md = read_model_description(str(tmp), validate=False)
            tmp.unlink()
            variables[comp.get("name")] = {v.name: v for v in md.modelVariables}
    return {"ssd": ssd, "ssv": ssv, "root": root, "variables": variables}


def test_every_fmu_and_pair_has_a_package_valid_against_the_ssp_schemas(fmu_dir, schemas):
    ssd_schema, ssv_schema = schemas
    packages = set(SPECS) | set(SHIP_PAIRS) | set(SEA_SYSTEMS)
    assert {p.stem for p in fmu_dir.glob("*.ssp")} == packages
    for name in sorted(packages):
        p = _package(fmu_dir, name)
        ssd_schema.validate(p["ssd"])
        assert p["ssv"], name
        for text in p["ssv"].values():
            ssv_schema.validate(text)
    # The schemas are strict enough to matter: a connector kind SSP does not know, a default experiment
    # before the system, a parameter set without version are refused.
    good = _package(fmu_dir, "KnuckleBoomOnVessel")
    assert not ssd_schema.is_valid(good["ssd"].replace('kind="input"', 'kind="in"', 1))
    root = ET.fromstring(good["ssd"])
    experiment = root.find("ssd:DefaultExperiment", NS)
    root.remove(experiment)
    root.insert(0, experiment)
    assert not ssd_schema.is_valid(ET.tostring(root, encoding="unicode"))
    assert not ssv_schema.is_valid(good["ssv"]["resources/vessel.ssv"].replace('version="1.0" name=', "name=", 1))


@pytest.mark.parametrize("name", sorted(set(SPECS) | set(SHIP_PAIRS)))
def test_connectors_and_connections_name_fmu_variables_with_their_causality_type_and_unit(fmu_dir, name):
    p = _package(fmu_dir, name)
    connectors = {}
    for comp in p["root"].iterfind(".//ssd:Component", NS):
        variables = p["variables"][comp.get("name")]
        declared = {}
        for c in comp.iterfind("ssd:Connectors/ssd:Connector", NS):
            v = variables[c.get("name")]  # a connector names a variable of the FMU
            assert c.get("kind") == v.causality, c.get("name")
            (type_element,) = list(c)
            assert type_element.tag == f"{{{NS['ssc']}}}{v.type}", c.get("name")
            assert type_element.get("unit") == (v.unit if v.type == "Real" else None), c.get("name")
            declared[c.get("name")] = c.get("kind")
        # every input and output of the FMU is offered as a connector
        assert set(declared) == {n for n, v in variables.items() if v.causality in ("input", "output")}
        connectors[comp.get("name")] = declared
    units = {u.get("name") for u in p["root"].iterfind("ssd:Units/ssc:Unit", NS)}
    used = {e.get("unit") for e in p["root"].iter(f"{{{NS['ssc']}}}Real")}
    assert used - {None} <= units
    for c in p["root"].iterfind(".//ssd:Connection", NS):
        start, end = (c.get("startElement"), c.get("startConnector")), (c.get("endElement"), c.get("endConnector"))
        assert connectors[start[0]][start[1]] == "output" and connectors[end[0]][end[1]] == "input", (start, end)
        a, b = p["variables"][start[0]][start[1]], p["variables"][end[0]][end[1]]
        assert (a.type, a.unit) == (b.type, b.unit), (start, end)


def _osp_variable_pairs(fmu_dir: Path, structure: str) -> set:
    """The OSP structure's group connections expanded with the OSP model descriptions: ``{(simulator, variable,
    simulator, variable)}`` unordered (as frozensets of the two ends)."""
    root = ET.parse(fmu_dir / structure).getroot()
    ns = {"s": root.tag[1:].split("}")[0]}
    fmu_of = {s.get("name"): Path(s.get("source")).stem for s in root.iterfind(".//s:Simulator", ns)}

    def members(sim: str, group: str) -> list:
        md = ET.parse(fmu_dir / f"{fmu_of[sim]}_OspModelDescription.xml").getroot()
        (g,) = [e for e in md.iter() if e.get("name") == group]
        return [v.get("ref") for v in g.iter() if v.tag.endswith("Variable")]

    out = {frozenset((v.get("simulator"), v.get("name")) for v in c)  # a wiring other than the ports': one by one
           for c in root.iterfind(".//s:VariableConnection", ns)}
    for c in root.iterfind(".//s:VariableGroupConnection", ns):
        (a, ga), (b, gb) = [(g.get("simulator"), g.get("name")) for g in c]
        for x, y in zip(members(a, ga), members(b, gb), strict=True):
            out.add(frozenset({(a, x), (b, y)}))
    return out


@pytest.mark.parametrize("pair", sorted(SHIP_PAIRS))
def test_a_pair_has_the_connections_of_its_osp_system_structure(fmu_dir, pair):
    root = _package(fmu_dir, pair)["root"]
    ssp = {frozenset({(c.get("startElement"), c.get("startConnector")), (c.get("endElement"), c.get("endConnector"))})
           for c in root.iterfind(".//ssd:Connection", NS)}
    expected = _osp_variable_pairs(fmu_dir, OSP_FILE[pair])
    assert len(expected) == 21  # five groups: two ports of 2 x 3 variables, three groups of 3
    assert ssp == expected


def _typed(v, text: str):
    return {"Real": float, "Integer": int, "Boolean": lambda s: s in ("true", "1")}[v.type](text)


def _typed_text(element) -> object:
    """An OSP InitialValue's value: its ``Real`` or ``Boolean`` element's."""
    text = element.get("value")
    return text in ("true", "1") if element.tag.endswith("Boolean") else float(text)


def _ssv_values(text: str) -> dict:
    root = ET.fromstring(text)
    assert root.get("name") == "crane-cosim"  # the one set name Ecos applies: init(parameter_set="crane-cosim")
    out = {}
    for p in root.iterfind("ssv:Parameters/ssv:Parameter", NS):
        (typed,) = list(p)
        out[p.get("name")] = (typed.tag.split("}")[1], typed.get("value"), typed.get("unit"))
    return out


@pytest.mark.parametrize("name", sorted(set(SPECS) | set(SHIP_PAIRS)))
def test_parameter_values_are_the_fmus_start_values_or_the_pairs_set(fmu_dir, name):
    p = _package(fmu_dir, name)
    members = SHIP_PAIRS.get(name, {name: (name, {})})
    osp_initial = {}
    if name in SHIP_PAIRS:  # the values the OSP structure of the pair gives
        root = ET.parse(fmu_dir / OSP_FILE[name]).getroot()
        for sim in root.iter():
            if sim.tag.endswith("Simulator"):
                osp_initial[sim.get("name")] = {iv.get("variable"): _typed_text(iv[0])
                                                for iv in sim.iter() if iv.tag.endswith("InitialValue")}
    for comp in p["root"].iterfind(".//ssd:Component", NS):
        inst = comp.get("name")
        (binding,) = comp.iterfind("ssd:ParameterBindings/ssd:ParameterBinding", NS)
        values = _ssv_values(p["ssv"][binding.get("source")])
        variables = p["variables"][inst]
        overrides = members[inst][1]
        inputs = {n for n in overrides if variables[n].causality == "input"}  # a pair's consistent start of its inputs
        assert set(values) == {n for n, v in variables.items() if v.causality == "parameter"} | inputs
        assert overrides == osp_initial.get(inst, {})
        for n, (type_, text, unit) in values.items():
            v = variables[n]
            assert type_ == v.type and unit == (v.unit if v.type == "Real" else None), n
            expected = overrides.get(n, _typed(v, v.start))
            assert _typed(v, text) == expected, (inst, n, text, v.start)
        if name == "KnuckleBoomOnVessel" and inst == "vessel":
            assert values["m1"][1] == "3000000.0" != variables["m1"].start  # the 3000 t vessel, not the default


def _crane_setpoints(fmu: str):
    from crane_models.integration.scenario import smoothstep

    if fmu == "CraneOnMovingBase":
        return lambda t: {"q4_ref": smoothstep(t, 0.2, 1.5, 0.0, 0.8), "q5_ref": smoothstep(t, 0.0, 1.0, 0.2, 0.6)}
    return lambda t: {"q1_ref": smoothstep(t, 0.2, 1.5, 0.0, 0.8), "q2_ref": smoothstep(t, 0.0, 1.5, 0.6, 1.2)}


def _motion_signals(crane_fmu: str) -> dict:
    """States and outputs computed from states alone (no direct feedthrough of an input)."""
    k = (4, 5, 6) if crane_fmu == "CraneOnMovingBase" else (1, 2, 3)
    q = tuple(f"q{i}" for i in k) + tuple(f"u{i}" for i in k)
    return {"vessel": ["roll", "pitch", "yaw"] + [f"angular_velocity_{a}" for a in "xyz"]
            + [f"base_velocity_{a}" for a in "xyz"], "crane": list(q) + [f"tip_{a}" for a in "xyz"]}


def _run_libcosim(execution, fmu_dir: Path, members: dict, signals: dict, setpoints) -> np.ndarray:
    from fmpy import read_model_description
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver

    log_output_level(CosimLogLevel.ERROR)
    observer, manipulator = CosimObserver.create_last_value(), CosimManipulator.create_override()
    assert execution.add_observer(observer) and execution.add_manipulator(manipulator)
    index = {s: execution.slave_index_from_instance_name(s) for s in signals}
    vr = {s: {v.name: v.valueReference
              for v in read_model_description(str(fmu_dir / f"{members[s][0]}.fmu")).modelVariables} for s in signals}
    rows = []
    for k in range(int(round(STOP / STEP))):
        values = setpoints(k * STEP)
        assert manipulator.slave_real_values(index["crane"], [vr["crane"][n] for n in values], list(values.values()))
        assert execution.step(1)
        rows.append([x for s in signals for x in observer.last_real_values(index[s], [vr[s][n] for n in signals[s]])])
    assert execution.stop()
    return np.array(rows)


def _libcosim_osp(fmu_dir: Path, pair: str, signals: dict, setpoints) -> np.ndarray:
    from libcosimpy.CosimExecution import CosimExecution

    execution = CosimExecution.from_osp_config_file(str(fmu_dir / OSP_FILE[pair]))
    return _run_libcosim(execution, fmu_dir, SHIP_PAIRS[pair], signals, setpoints)


def _assert_close(got: np.ndarray, ref: np.ndarray, names: list, rtol: float) -> None:
    scale = np.maximum(np.abs(ref).max(axis=0), 1e-12)
    dev = np.abs(got - ref).max(axis=0) / scale
    assert dev.max() <= rtol, dict(zip(names, dev))


@needs_ecospy
@pytest.mark.parametrize("pair", sorted(SHIP_PAIRS))
def test_ecospy_runs_the_pair_package_like_libcosim_runs_the_osp_structure(fmu_dir, pair, tmp_path, monkeypatch):
    from ecospy import EcosLib, EcosSimulation

    crane_fmu = SHIP_PAIRS[pair]["crane"][0]
    signals, setpoints = _motion_signals(crane_fmu), _crane_setpoints(crane_fmu)
    names = [f"{s}::{n}" for s in signals for n in signals[s]]
    # Ecos' initial value propagation: its sets take effect a round after its gets, so the pair enters the first
    # step as after one round of the fmpy Jacobi master (libcosim: two; Ecos' vessel starts with the crane's wrench
    # for a base at rest, libcosim's with the wrench for the vessel's first acceleration)
    from crane_models.simulation.split_masters import SplitSettings, run_split

    r = run_split(fmu_dir / f"{SHIP_PAIRS[pair]['vessel'][0]}.fmu", fmu_dir / f"{crane_fmu}.fmu", STOP, STEP, setpoints,
                  SplitSettings(scheme="jacobi", vessel_start=SHIP_PAIRS[pair]["vessel"][1],
                                crane_start=SHIP_PAIRS[pair]["crane"][1], init_rounds=1,
                                wrench=WIRINGS.get(pair) or ported_wrench(SPECS[crane_fmu]())))
    ref = np.column_stack([r[f"{s}.{n}"] for s in signals for n in signals[s]])[1:]
    EcosLib.set_log_level("warn")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    with ecos_scratch():  # Ecos leaves its unpacked package (ecos_ssp_*) in $TMPDIR
        sim = EcosSimulation(step_size=STEP, ssp_path=str(fmu_dir / f"{pair}.ssp"))
        try:
            assert sim.init(parameter_set="crane-cosim"), EcosLib.get_last_error()
            parameters = {v.name for v in SPECS["Vessel"]().parameters}  # (inputs follow the connections after init)
            for n, value in ((n, x) for n, x in SHIP_PAIRS[pair]["vessel"][1].items() if n in parameters):
                assert sim.get_real(f"vessel::{n}") == value
            rows = []
            for k in range(int(round(STOP / STEP))):
                for n, value in setpoints(k * STEP).items():
                    sim.set_real(f"crane::{n}", float(value))
                sim.step()
                rows.append([sim.get_real(n) for n in names])
            sim.terminate()
        finally:
            sim.free()
    assert not list(tmpdir.iterdir())  # nothing of Ecos' left in $TMPDIR
    got = np.array(rows)
    _assert_close(got, ref, names, 1e-9)
    # the vessel rolls, the crane slews
    assert np.ptp(ref[:, 0]) > 1e-4 and np.ptp(ref[:, len(signals["vessel"])]) > 0.1


@needs_ecospy
def test_the_ship_demo_s_ecos_runs_leave_nothing_in_tmpdir(fmu_dir, tmp_path, monkeypatch):
    """Ecos unpacks an SSP package into $TMPDIR/ecos_ssp_<uuid> and leaves it after free(): ~1 MB a run."""
    from crane_models.app.ship_demo import run_in_ecos

    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    result = run_in_ecos(fmu_dir / "CraneOnVessel.ssp", lambda t: {}, STEP, 0.1)
    assert len(result["time"]) == 10
    assert not list(tmpdir.iterdir())
    assert os.environ["TMPDIR"] == str(tmpdir)  # given back


@pytest.mark.parametrize("pair", sorted(SHIP_PAIRS))
def test_libcosim_runs_the_pair_package_as_it_runs_the_osp_structure(fmu_dir, pair):
    """libcosim reads SSP too: same system, same parameter values, same step (from the OSP annotation)."""
    from libcosimpy.CosimExecution import CosimExecution

    crane_fmu = SHIP_PAIRS[pair]["crane"][0]
    signals, setpoints = _motion_signals(crane_fmu), _crane_setpoints(crane_fmu)
    signals["crane"] += [f"interface_force_{a}" for a in "xyz"]  # same sampling in both: outputs compare too
    ref = _libcosim_osp(fmu_dir, pair, signals, setpoints)
    got = _run_libcosim(CosimExecution.from_ssp_file(str(fmu_dir / f"{pair}.ssp")), fmu_dir, SHIP_PAIRS[pair],
                        signals, setpoints)
    _assert_close(got, ref, [f"{s}.{n}" for s in signals for n in signals[s]], 1e-12)


@pytest.mark.parametrize("name", sorted(set(SPECS) | set(SHIP_PAIRS)))
def test_fmpy_reads_every_package(fmu_dir, name):
    """fmpy's reader validates the SSD against its schema and resolves the parameter bindings; its
    ``simulate_ssp`` cannot run these packages (docs/ssp-and-view.md says why)."""
    from fmpy.ssp.ssd import read_ssd

    ssd = read_ssd(str(fmu_dir / f"{name}.ssp"))
    comps = {c.name: c for c in ssd.system.elements}
    assert set(comps) == set(SHIP_PAIRS.get(name, {name: None}))
    for comp in comps.values():
        (binding,) = comp.parameterBindings
        (values,) = binding.parameterValues
        assert values.name == "crane-cosim" and values.parameters
    assert len(ssd.system.connections) == (21 if name in SHIP_PAIRS else 0)
    assert os.path.basename(comps[next(iter(comps))].source).endswith(".fmu")
