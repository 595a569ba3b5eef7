"""System Structure and Parameterization (SSP 1.0) packages: a ``.ssp`` zip holding ``SystemStructure.ssd`` (the
system: components with typed connectors and units, connections, default experiment), the FMUs under
``resources/`` and the parameters as SSV sets: one per component (``resources/<component>.ssv``, bound to it), or one
for the whole system (``resources/<system>.ssv``, bound to every component: a value several components share, a sea,
is then written once).

Generic: components, connections, parameter values and units are arguments; nothing here knows a crane. The
crane-cosim packages (one per FMU, one per vessel-crane pair) are put together by :func:`write_ssp_files` from FMU
specs and pair definitions that the caller passes in.

What the readers of these files need, beyond the SSP 1.0 schemas (checked against them in tests/test_ssp_files.py):

* The namespace prefixes ``ssd``, ``ssc``, ``ssv``: Ecos (and libcosim) find elements by their prefixed names,
  not by namespace.
* Every connector typed (``ssc:Real`` with its unit, ``ssc:Integer``, ``ssc:Boolean``): Ecos refuses a connection
  between connectors of different types and types a connector without type element as nothing.
* Parameter names in a component's SSV are the FMU's variable names (a binding on a component has no prefix).
* A system-wide set: every engine read here applies exactly one set to a component (libcosim's SSP loader a
  component's first binding, Ecos one set per component and set name -- a second binding of the same name replaces
  the first), so a system either binds one set per component or one set to all. Bound to all, a set holds names
  some component lacks; SSP lets a tool skip a parameter it cannot apply, and libcosim and Ecos do, logging one
  warning per name and component. Hence the system-wide set holds only what the system sets (its
  shared values and what it changes from the FMUs' start values), not every parameter.
  Every SSV of a package carries the same set name, :data:`PARAMETER_SET`: Ecos gathers the sets of all
  components by that name (``EcosSimulation.init(parameter_set="crane-cosim")`` applies them).
* SSP 1.0 has no place for the communication step: it goes into the OSP annotation of the default experiment
  (``osp:FixedStepAlgorithm baseStepSize``), which libcosim reads; other tools take the step as an argument.

The zip is written byte-reproducibly (fixed member order and time stamps), like the FMUs themselves.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

__all__ = ["SSD_NAMESPACE", "SSC_NAMESPACE", "SSV_NAMESPACE", "OSP_ANNOTATION_NAMESPACE", "PARAMETER_SET",
           "SspConnector", "SspParameter", "SspComponent", "SspConnection", "system_structure_description",
           "parameter_set", "write_ssp", "spec_component", "system_parameters", "system_set_source",
           "write_ssp_files", "SSP_TYPE"]

SSD_NAMESPACE = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSC_NAMESPACE = "http://ssp-standard.org/SSP1/SystemStructureCommon"
SSV_NAMESPACE = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
OSP_ANNOTATION_NAMESPACE = "http://opensimulationplatform.com/SSP/OSPAnnotations"
_PREFIXES = {"ssd": SSD_NAMESPACE, "ssc": SSC_NAMESPACE, "ssv": SSV_NAMESPACE, "osp": OSP_ANNOTATION_NAMESPACE}
for _prefix, _uri in _PREFIXES.items():  # the conventional prefixes, which Ecos and libcosim rely on
    ET.register_namespace(_prefix, _uri)

PARAMETER_SET = "crane-cosim"  # the name of every component's parameter set (Ecos applies sets by name)
SSP_TYPE = {"real": "Real", "integer": "Integer", "boolean": "Boolean"}  # FmuVariable.kind -> SSP type element
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member time stamps: the same inputs give the same bytes


@dataclass(frozen=True)
class SspConnector:
    name: str
    kind: str  # "input" | "output" | "parameter"
    type: str  # "Real" | "Integer" | "Boolean"
    unit: str = ""  # "" for dimensionless or non-real


@dataclass(frozen=True)
class SspParameter:
    name: str
    type: str
    value: Any
    unit: str = ""


@dataclass(frozen=True)
class SspConnection:
    start_element: str
    start_connector: str
    end_element: str
    end_connector: str


@dataclass
class SspComponent:
    """One FMU instance of the system: its file (copied to ``resources/``), connectors and parameter values."""

    name: str
    fmu: Path
    connectors: list
    parameters: list = field(default_factory=list)
    set_source: str = ""  # the system-wide set it is bound to instead of its own (:func:`system_set_source`)

    @property
    def source(self) -> str:
        return f"resources/{Path(self.fmu).name}"

    @property
    def parameter_source(self) -> str:
        return self.set_source or f"resources/{self.name}.ssv"

    @property
    def bound(self) -> bool:
        return bool(self.parameters or self.set_source)


def system_set_source(system: str) -> str:
    """The file of a system-wide parameter set inside the package."""
    return f"resources/{system}.ssv"


def _q(prefix: str, tag: str) -> str:
    return f"{{{_PREFIXES[prefix]}}}{tag}"


def _text(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _value_text(type_: str, value) -> str:
    if type_ == "Boolean":
        return "true" if value else "false"
    if type_ == "Integer":
        return str(int(value))
    return repr(float(value))  # shortest text that reads back to the same double


def _add_units(parent: ET.Element, prefix: str, names: set, units: dict) -> None:
    """``<prefix:Units>`` with one ``ssc:Unit`` per unit name used, SI base-unit exponents from ``units``."""
    names = sorted(n for n in names if n)
    if not names:
        return
    missing = [n for n in names if n not in units]
    if missing:
        raise ValueError(f"unit(s) {', '.join(missing)} have no SI base-unit exponents (fmi.spec.BASE_UNITS)")
    element = ET.SubElement(parent, _q(prefix, "Units"))
    for name in names:
        unit = ET.SubElement(element, _q("ssc", "Unit"), name=name)
        ET.SubElement(unit, _q("ssc", "BaseUnit"), {k: str(v) for k, v in units[name].items()})


def _add_connectors(parent: ET.Element, connectors: list) -> None:
    if not connectors:
        return
    element = ET.SubElement(parent, _q("ssd", "Connectors"))
    for c in connectors:
        connector = ET.SubElement(element, _q("ssd", "Connector"), name=c.name, kind=c.kind)
        ET.SubElement(connector, _q("ssc", c.type), {"unit": c.unit} if c.unit and c.type == "Real" else {})


def system_structure_description(name: str, components: list, connections: list, units: dict, start: float,
                                 stop: float, step: float) -> str:
    """``SystemStructure.ssd`` (SSP 1.0): one system ``name`` of ``components`` joined by ``connections``, the
    units of the connectors, the default experiment ``[start, stop]`` with the fixed ``step`` (OSP annotation)."""
    root = ET.Element(_q("ssd", "SystemStructureDescription"), version="1.0", name=name)
    system = ET.SubElement(root, _q("ssd", "System"), name=name)
    elements = ET.SubElement(system, _q("ssd", "Elements"))
    used = set()
    for comp in components:
        element = ET.SubElement(elements, _q("ssd", "Component"), name=comp.name, source=comp.source,
                                type="application/x-fmu-sharedlibrary")
        _add_connectors(element, comp.connectors)
        used.update(c.unit for c in comp.connectors)
        if comp.bound:
            bindings = ET.SubElement(element, _q("ssd", "ParameterBindings"))
            ET.SubElement(bindings, _q("ssd", "ParameterBinding"), type="application/x-ssp-parameter-set",
                          source=comp.parameter_source)
    if connections:
        conns = ET.SubElement(system, _q("ssd", "Connections"))
        for c in connections:
            ET.SubElement(conns, _q("ssd", "Connection"), startElement=c.start_element,
                          startConnector=c.start_connector, endElement=c.end_element, endConnector=c.end_connector)
    _add_units(root, "ssd", used, units)
    experiment = ET.SubElement(root, _q("ssd", "DefaultExperiment"), startTime=repr(float(start)),
                               stopTime=repr(float(stop)))
    annotation = ET.SubElement(ET.SubElement(experiment, _q("ssd", "Annotations")), _q("ssc", "Annotation"),
                               type="com.opensimulationplatform")
    ET.SubElement(ET.SubElement(annotation, _q("osp", "Algorithm")), _q("osp", "FixedStepAlgorithm"),
                  baseStepSize=repr(float(step)))
    return _text(root)


def parameter_set(parameters: list, units: dict, name: str = PARAMETER_SET) -> str:
    """An SSV parameter set (SSP 1.0) of ``parameters``, with the units they use."""
    root = ET.Element(_q("ssv", "ParameterSet"), version="1.0", name=name)
    params = ET.SubElement(root, _q("ssv", "Parameters"))
    for p in parameters:
        attributes = {"value": _value_text(p.type, p.value)}
        if p.unit and p.type == "Real":
            attributes["unit"] = p.unit
        ET.SubElement(ET.SubElement(params, _q("ssv", "Parameter"), name=p.name), _q("ssv", p.type), attributes)
    _add_units(root, "ssv", {p.unit for p in parameters if p.type == "Real"}, units)
    return _text(root)


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def write_ssp(path: Path, name: str, components: list, connections: list, units: dict, start: float, stop: float,
              step: float, system_set: list | None = None) -> Path:
    """The ``.ssp`` package at ``path``: the system description, each component's FMU and parameter set, or
    ``system_set`` (:func:`system_parameters`) bound to every component instead."""
    sources = [c.source for c in components]
    if len(set(sources)) != len({Path(c.fmu).resolve() for c in components}):
        raise ValueError(f"{path}: two different FMU files of the same name")
    if system_set is not None:
        if any(c.parameters for c in components):  # an engine applies one set per component: not both
            raise ValueError(f"{path}: a system-wide parameter set and a component's own set")
        components = [replace(c, set_source=system_set_source(name)) for c in components]
    path = Path(path)
    with zipfile.ZipFile(path, "w") as archive:
        ssd = system_structure_description(name, components, connections, units, start, stop, step)
        _write_member(archive, "SystemStructure.ssd", ssd.encode())
        for source, comp in sorted({c.source: c for c in components}.items()):
            _write_member(archive, source, Path(comp.fmu).read_bytes())
        for comp in components:
            if comp.parameters:
                _write_member(archive, comp.parameter_source, parameter_set(comp.parameters, units).encode())
        if system_set is not None:
            _write_member(archive, system_set_source(name), parameter_set(system_set, units).encode())
    return path


def spec_component(name: str, spec, fmu: Path, values: dict | None = None) -> SspComponent:
    """A component from an FMU spec (:class:`fmi.spec.FmuSpec`): every input and output as a typed connector,
    every parameter with its start value, or its value in ``values``, and the inputs ``values`` gives a start value."""
    values = values or {}
    unknown = set(values) - {p.name for p in spec.parameters} - {v.name for v in spec.inputs}
    if unknown:
        raise ValueError(f"{spec.model_name} has no parameter(s) or input(s) {', '.join(sorted(unknown))}")

    def unit(v) -> str:
        return v.unit if v.kind == "real" else ""

    connectors = [SspConnector(v.name, kind, SSP_TYPE[v.kind], unit(v))
                  for kind, variables in (("input", spec.inputs), ("output", spec.outputs)) for v in variables]
    parameters = [SspParameter(p.name, SSP_TYPE[p.kind], values.get(p.name, p.start), unit(p)) for p in spec.parameters]
    # start values of inputs given in ``values`` (a pair's consistent start: vessel_crane.vessels) bind like parameters
    parameters += [SspParameter(v.name, SSP_TYPE[v.kind], values[v.name], unit(v)) for v in spec.inputs if v.name in values]
    return SspComponent(name, Path(fmu), connectors, parameters)


def system_parameters(system: str, specs: dict, values: dict) -> list:
    """The system-wide set of ``system``: each of ``values`` (``{name: value}``) typed by the components that have
    it (``specs``: ``{component: FMU spec}``) -- a parameter, or an input whose start value the system sets, of at
    least one component, of one type and unit wherever it is (else ValueError: the set could not mean one thing)."""
    out = []
    for name, value in values.items():
        kinds = {(v.kind, v.unit if v.kind == "real" else "") for spec in specs.values()
                 for v in (*spec.parameters, *spec.inputs) if v.name == name}
        if len(kinds) != 1:
            where = "no component" if not kinds else "components of different types or units"
            raise ValueError(f"{system}: system parameter {name} is a variable of {where} ({', '.join(specs)})")
        ((kind, unit),) = kinds
        out.append(SspParameter(name, SSP_TYPE[kind], value, unit))
    return out


def write_ssp_files(fmu_dir: Path, specs: dict, pairs: dict, connect: Callable, units: dict,
                    system_sets: dict | None = None) -> list:
    """``<FMU>.ssp`` for every FMU of ``specs`` (``{name: spec factory}``) found in ``fmu_dir`` -- one component
    with all its parameters -- and ``<system>.ssp`` for every system of ``pairs`` (``{system: {component: (FMU,
    parameter values)}}``), joined by ``connect(system, members)`` (``(start component, connector, end component,
    connector)`` tuples). A system of ``system_sets`` (``{system: {name: value}}``) binds that one set to every
    component (:func:`system_parameters`); the others one set per component, every parameter in it. Default
    experiment: the specs' (the shortest stop time, the smallest step of the system's FMUs)."""
    fmu_dir = Path(fmu_dir)
    system_sets = system_sets or {}
    built = {name: factory() for name, factory in specs.items() if (fmu_dir / f"{name}.fmu").is_file()}
    paths = []
    for name, spec in built.items():
        comp = spec_component(name, spec, fmu_dir / f"{name}.fmu")
        paths.append(write_ssp(fmu_dir / f"{name}.ssp", name, [comp], [], units, 0.0, spec.stop_time,
                               spec.step_size))
    for system, members in pairs.items():
        if not all(fmu in built for fmu, _ in members.values()):
            continue
        shared = None
        if system in system_sets:
            shared = system_parameters(system, {inst: built[fmu] for inst, (fmu, _) in members.items()},
                                       system_sets[system])
            comps = [replace(spec_component(inst, built[fmu], fmu_dir / f"{fmu}.fmu"), parameters=[])
                     for inst, (fmu, _) in members.items()]
        else:
            comps = [spec_component(inst, built[fmu], fmu_dir / f"{fmu}.fmu", values)
                     for inst, (fmu, values) in members.items()]
        stop = min(built[fmu].stop_time for fmu, _ in members.values())
        step = min(built[fmu].step_size for fmu, _ in members.values())
        connections = [SspConnection(*c) for c in connect(system, members)]
        paths.append(write_ssp(fmu_dir / f"{system}.ssp", system, comps, connections, units, 0.0, stop, step,
                               shared))
    return paths
