"""Open Simulation Platform files, generated from the FMU specs (OSP interface specification, OSP-IS 1.0.1).

* ``<FMU>_OspModelDescription.xml`` for every FMU: its inputs and outputs as typed variable groups, in the
  namespace ``https://open-simulation-platform.com/OspModelDescription/1.0.1``. The rules the published schema
  (osp-validator, ``OspModelDescription-1.0.1.xsd``) sets and these files follow: the root carries
  ``version="1.0"``; ``VariableGroups`` is an *ordered* sequence of group kinds (Generic first, then Force,
  Torque, …, LinearVelocity, AngularVelocity, …, LinearDisplacement, AngularDisplacement, …,
  LinearAcceleration, AngularAcceleration, then the ports LinearMechanicalPort, AngularMechanicalPort, …); a
  basic group holds one to three ``Variable ref=…``; a linear mechanical port holds one Force then one
  LinearVelocity, an angular one a Torque then an AngularVelocity. Each group is typed from its unit (N ->
  Force, N.m -> Torque, m -> LinearDisplacement, rad -> AngularDisplacement, m/s, rad/s, m/s2, rad/s2 -> the
  velocities and accelerations); variables with units OSP-IS has no type for go to Generic groups. A group
  holds the ``_x, _y, _z`` components of one quantity and one causality.
* The vessel-crane interface (``Vessel`` and both moving-base cranes) is five groups of the same names on both
  sides: ``interface_linear_port`` (force on the vessel, velocity of the crane base point),
  ``interface_angular_port`` (moment, angular velocity), ``orientation`` (AngularDisplacement: roll, pitch,
  yaw), ``angular_acceleration`` and ``base_acceleration``.
* System structures (``http://opensimulationplatform.com/MSMI/OSPSystemStructure``, version 0.1), one per
  pair, joined by five ``VariableGroupConnection`` s; the project's are ``models.registry.OSP_PAIRS``
  (``OspSystemStructure.xml``: Vessel + CraneOnMovingBase, the paper's scaled model;
  ``KnuckleBoomOnVessel_OspSystemStructure.xml``: Vessel with the ``vessels.KNUCKLE_BOOM_VESSEL`` parameter set +
  KnuckleBoomCraneOnMovingBase). Fixed-step algorithm.

The writers take the FMUs' specs and the pairs as arguments; ``crane-cosim build`` writes the project's beside
the FMUs (``models.build.write_osp_files``); libcosim finds a model description next to the FMU by its name.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path


__all__ = ["MD_NAMESPACE", "SS_NAMESPACE", "GROUP_ORDER", "variable_groups", "osp_model_description",
           "osp_system_structure", "write_osp_files", "GROUP_CONNECTIONS", "WRENCH_KINDS", "PORT_GROUPS",
           "MOTION_GROUPS", "interface_groups", "interface_ports", "offered_wrenches", "ported_wrench",
           "variable_connections"]

MD_NAMESPACE = "https://open-simulation-platform.com/OspModelDescription/1.0.1"
SS_NAMESPACE = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"

# The order of OSP-IS 1.0.1's VariableGroups sequence, for the kinds these FMUs use.
GROUP_ORDER = ("Generic", "Force", "Torque", "LinearVelocity", "AngularVelocity", "LinearDisplacement",
               "AngularDisplacement", "LinearAcceleration", "AngularAcceleration", "LinearMechanicalPort",
               "AngularMechanicalPort")
KIND_OF_UNIT = {"N": "Force", "N.m": "Torque", "m/s": "LinearVelocity", "rad/s": "AngularVelocity",
                "m": "LinearDisplacement", "rad": "AngularDisplacement", "m/s2": "LinearAcceleration",
                "rad/s2": "AngularAcceleration"}
PORTS = {"LinearMechanicalPort": ("Force", "LinearVelocity"), "AngularMechanicalPort": ("Torque", "AngularVelocity")}

_XYZ = tuple(f"_{a}" for a in "xyz")
# The wrenches a crane may hand the vessel, by the stems of their force and moment outputs, in order of preference:
# the step-mean wrench extrapolated to the coming step, its mean over the last step, the wrench at the step's end. An
# engine holds what it hands over for a whole step: the impulse-true kinds first (docs/ship-cosimulation.md). A crane's
# interface ports carry the first kind it offers (each variable stands in one group: the others are plain Force and
# Torque groups); a structure wired to another kind joins the ports' variables one by one.
WRENCH_KINDS = {"predicted": ("interface_force_predicted", "interface_moment_predicted"),
                "mean": ("interface_force_mean", "interface_moment_mean"),
                "point": ("interface_force", "interface_moment")}
PORT_GROUPS = ("interface_linear_port", "interface_angular_port")
# The vessel-crane interface beside the ports: group name -> (kind, its variables).
MOTION_GROUPS = {
    "orientation": ("AngularDisplacement", ["roll", "pitch", "yaw"]),
    "angular_acceleration": ("AngularAcceleration", [f"angular_acceleration{a}" for a in _XYZ]),
    "base_acceleration": ("LinearAcceleration", [f"base_acceleration{a}" for a in _XYZ]),
}
GROUP_CONNECTIONS = list(PORT_GROUPS) + list(MOTION_GROUPS)  # each joins the groups of that name of vessel and crane


def interface_ports(wrench: str) -> dict:
    """The two ports of the interface with the wrench ``wrench`` (a kind of :data:`WRENCH_KINDS`): group name ->
    (kind, its two sub-groups ``(name, variables)``)."""
    force, moment = WRENCH_KINDS[wrench]
    return {"interface_linear_port": ("LinearMechanicalPort", [(force, [f"{force}{a}" for a in _XYZ]),
                                                                ("base_velocity", [f"base_velocity{a}" for a in _XYZ])]),
            "interface_angular_port": ("AngularMechanicalPort",
                                       [(moment, [f"{moment}{a}" for a in _XYZ]),
                                        ("angular_velocity", [f"angular_velocity{a}" for a in _XYZ])])}


def _members(kind: str, content) -> list:
    return [m for _, members in content for m in members] if kind in PORTS else list(content)


def _names(spec) -> set:
    return {v.name for v in spec.inputs} | {v.name for v in spec.outputs}


def offered_wrenches(names: set) -> list:
    """The kinds of :data:`WRENCH_KINDS` whose ports an FMU with the variables ``names`` could have, by preference."""
    return [w for w in WRENCH_KINDS if all(set(_members(*g)) <= names for g in interface_ports(w).values())]


def ported_wrench(spec) -> str:
    """The wrench kind an FMU's interface ports carry (the first it offers): what a structure connects by default."""
    return offered_wrenches(_names(spec))[0]


def interface_groups(names: set) -> dict:
    """The interface groups of an FMU with the variables ``names``: group name -> (kind, content)."""
    offered = offered_wrenches(names)
    return {**(interface_ports(offered[0]) if offered else {}), **{g: v for g, v in MOTION_GROUPS.items() if set(v[1]) <= names}}


def variable_connections(simulators: dict, specs: dict, wrench: str | None = None) -> list:
    """The interface connections of a pair, variable by variable: ``(from simulator, variable, to simulator,
    variable)``, each from the side where the variable is an output to the side where it is an input
    (``simulators``: ``{"vessel": (FMU, initial values), "crane": (…)}``; ``specs``: ``{FMU: spec factory}``;
    ``wrench``: the crane's wrench kind connected, None for the first it offers: its ports)."""
    spec = {sim: specs[fmu]() for sim, (fmu, _) in simulators.items()}
    causality = {sim: {v.name: "input" for v in sp.inputs} | {v.name: "output" for v in sp.outputs}
                 for sim, sp in spec.items()}
    offered = {sim: offered_wrenches(_names(sp)) for sim, sp in spec.items()}
    if wrench is not None and wrench not in offered["crane"]:
        raise ValueError(f"{spec['crane'].model_name} offers the wrench kinds {offered['crane']}, not {wrench!r}")
    ports = {"vessel": interface_ports(offered["vessel"][0]), "crane": interface_ports(wrench or offered["crane"][0])}
    out = []
    for group in GROUP_CONNECTIONS:
        members = {sim: _members(*(ports[sim][group] if group in PORT_GROUPS else MOTION_GROUPS[group]))
                   for sim in ports}
        for v_var, c_var in zip(members["vessel"], members["crane"]):
            kinds = (causality["vessel"].get(v_var), causality["crane"].get(c_var))
            if kinds == ("output", "input"):
                out.append(("vessel", v_var, "crane", c_var))
            elif kinds == ("input", "output"):
                out.append(("crane", c_var, "vessel", v_var))
            else:
                raise ValueError(f"{group}: the vessel has {v_var} as {kinds[0]}, the crane {c_var} as {kinds[1]}; "
                                 "a connection needs one output and one input")
    return out


def _quantity_groups(variables: list, taken: set) -> list:
    """``(kind, name, [variables])`` of the variables not in ``taken``: the ``_x/_y/_z`` components of one
    quantity together, every other variable alone; the kind from the unit."""
    groups, seen = [], set()
    by_name = {v.name: v for v in variables}
    for v in variables:
        if v.name in taken or v.name in seen or v.kind != "real":
            continue
        stem = v.name[:-2] if v.name.endswith(_XYZ) else None
        members = [f"{stem}{a}" for a in _XYZ] if stem else []
        if stem and all(m in by_name and m not in taken and by_name[m].unit == v.unit for m in members):
            name = stem
        else:
            name, members = v.name, [v.name]
        seen.update(members)
        groups.append((KIND_OF_UNIT.get(v.unit, "Generic"), name, members))
    return groups


def variable_groups(spec) -> list:
    """``(kind, name, content)`` of an FMU spec's inputs and outputs in OSP-IS order; ``content`` is the
    variable names, or for a port ``[(sub-kind, sub-name, names), …]``."""
    groups, taken = [], set()
    for name, (kind, content) in interface_groups(_names(spec)).items():
        if kind in PORTS:
            groups.append((kind, name, [(sub_kind, sub_name, members)
                                        for sub_kind, (sub_name, members) in zip(PORTS[kind], content)]))
        else:
            groups.append((kind, name, list(content)))
        taken.update(_members(kind, content))
    for variables in (spec.inputs, spec.outputs):  # one causality per group
        groups += _quantity_groups(list(variables), taken)
    return sorted(groups, key=lambda g: GROUP_ORDER.index(g[0]))


def osp_model_description(spec) -> str:
    root = ET.Element("OspModelDescription", xmlns=MD_NAMESPACE, version="1.0")
    groups = ET.SubElement(root, "VariableGroups")
    for kind, name, content in variable_groups(spec):
        group = ET.SubElement(groups, kind, name=name)
        if kind in PORTS:
            for sub_kind, sub_name, members in content:
                _add_variables(ET.SubElement(group, sub_kind, name=sub_name), members)
        else:
            _add_variables(group, content)
    return _text(root)


def _add_variables(parent: ET.Element, names: list) -> None:
    for n in names:
        ET.SubElement(parent, "Variable", ref=n)


def _text(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def osp_system_structure(simulators: dict, step: float = 0.01, initial_values: dict | None = None,
                         port_connections: list | None = None, groups: list | None = None) -> str:
    """A vessel-crane pair; ``simulators`` is ``{name: (FMU, initial values)}`` (``vessel`` and ``crane``),
    ``initial_values`` ``{simulator: {variable: value}}`` added to those; ``port_connections`` (``(from simulator,
    variable, to simulator, variable)``, :func:`variable_connections`) join the ports' variables one by one instead
    of the port groups (a crane wired to another wrench than its ports carry); ``groups``: the variable groups joined
    (default: the ports' and the motion's, only the motion's with ``port_connections``; ``[]``: a system joined by
    ``port_connections`` alone, as a one-way system of models/sea_systems.py)."""
    root = ET.Element("OspSystemStructure", xmlns=SS_NAMESPACE, version="0.1")
    ET.SubElement(root, "StartTime").text = "0.0"
    ET.SubElement(root, "BaseStepSize").text = repr(float(step))
    ET.SubElement(root, "Algorithm").text = "fixedStep"
    sims = ET.SubElement(root, "Simulators")
    for name, (fmu, values) in simulators.items():
        sim = ET.SubElement(sims, "Simulator", name=name, source=f"{fmu}.fmu", stepSize=repr(float(step)))
        values = {**values, **(initial_values or {}).get(name, {})}
        if values:
            init = ET.SubElement(sim, "InitialValues")
            for var, value in values.items():
                typed = (("Boolean", str(value).lower()) if isinstance(value, bool) else
                         ("Integer", str(value)) if isinstance(value, int) else ("Real", repr(float(value))))
                ET.SubElement(ET.SubElement(init, "InitialValue", variable=var), typed[0], value=typed[1])
    conns = ET.SubElement(root, "Connections")
    for a, va, b, vb in port_connections or []:  # plain variable connections come first (OSP's schema)
        c = ET.SubElement(conns, "VariableConnection")
        ET.SubElement(c, "Variable", simulator=a, name=va)
        ET.SubElement(c, "Variable", simulator=b, name=vb)
    if groups is None:
        groups = GROUP_CONNECTIONS if port_connections is None else list(MOTION_GROUPS)
    for group in groups:
        c = ET.SubElement(conns, "VariableGroupConnection")
        ET.SubElement(c, "VariableGroup", simulator="vessel", name=group)
        ET.SubElement(c, "VariableGroup", simulator="crane", name=group)
    return _text(root)


def write_osp_files(out_dir: Path, specs: dict, pairs: dict, step: float = 0.01, wirings: dict | None = None) -> list:
    """The model description of every FMU of ``specs`` (``{name: spec factory}``) and the system structure of every
    pair of ``pairs`` (``{file name: {simulator: (FMU, initial values)}}``) into ``out_dir``; ``wirings``: ``{file
    name: wrench kind}`` for the structures that connect another than the crane's first (:data:`WRENCH_KINDS`)."""
    out_dir = Path(out_dir)
    paths = []
    for name in sorted(specs):
        path = out_dir / f"{name}_OspModelDescription.xml"
        path.write_text(osp_model_description(specs[name]()))
        paths.append(path)
    for file_name, simulators in pairs.items():
        path = out_dir / file_name
        wrench = (wirings or {}).get(file_name)
        ports = None
        if wrench is not None:  # the port variables one by one (the groups carry the crane's first wrench)
            motion = {m for _, members in MOTION_GROUPS.values() for m in members}
            ports = [c for c in variable_connections(simulators, specs, wrench) if c[1] not in motion]
        path.write_text(osp_system_structure(simulators, step, port_connections=ports))
        paths.append(path)
    return paths
