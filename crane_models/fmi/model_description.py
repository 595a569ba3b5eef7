"""The model description a build completes (FMI 2.0 and 3.0): pythonfmu's XML with units, display units, ranges,
``InitialUnknowns`` and ``DefaultExperiment`` from the FMU's spec, so that it passes ``fmpy.validation.validate_fmu``;
pythonfmu3's with what the project's FMI 3.0 runtime offers."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from .spec import BASE_UNITS

__all__ = ["DISPLAY_UNITS", "complete_model_description", "complete_fmi3_model_description"]

DISPLAY_UNITS = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi)}


def complete_model_description(xml_text: bytes, spec, version: str, directional: bool = False) -> bytes:
    """Add units, display units, ranges, InitialUnknowns and DefaultExperiment to pythonfmu's XML."""
    root = ET.fromstring(xml_text)
    root.set("version", version)
    meta = {v.name: v for v in spec.variables()}
    used = sorted({v.unit for v in meta.values() if v.unit})
    # Elements must keep the order of the FMI 2.0 schema: UnitDefinitions right after CoSimulation.
    units = ET.Element("UnitDefinitions")
    for unit in used:
        u = ET.SubElement(units, "Unit", name=unit)
        ET.SubElement(u, "BaseUnit", {k: str(v) for k, v in BASE_UNITS[unit].items()})
        if unit in DISPLAY_UNITS:
            name, factor = DISPLAY_UNITS[unit]
            ET.SubElement(u, "DisplayUnit", name=name, factor=repr(factor))
    children = list(root)
    cs_index = [i for i, c in enumerate(children) if c.tag == "CoSimulation"][0]
    if directional:  # the project's runtime answers fmi2GetDirectionalDerivative (fmi/derivatives.py)
        children[cs_index].set("providesDirectionalDerivative", "true")
    root.insert(cs_index + 1, units)
    for old in root.findall("DefaultExperiment"):
        root.remove(old)
    de = ET.Element("DefaultExperiment", startTime="0.0", stopTime=repr(spec.stop_time), stepSize=repr(spec.step_size))
    children = list(root)
    mv_index = [i for i, c in enumerate(children) if c.tag == "ModelVariables"][0]
    root.insert(mv_index, de)
    outputs = []
    for index, sv in enumerate(root.find("ModelVariables"), start=1):
        v = meta[sv.get("name")]
        typed = sv[0]
        if sv.get("causality") == "output":
            outputs.append(index)
        if typed.tag == "Integer" and sv.get("causality") == "parameter":
            _write_range(typed, v)
        if typed.tag != "Real":
            continue
        if typed.get("start") is not None:  # pythonfmu writes 16 digits, which do not give every double back
            typed.set("start", repr(float(v.start)))
        if v.unit:
            typed.set("unit", v.unit)
            if v.display_unit or v.unit in DISPLAY_UNITS:
                typed.set("displayUnit", DISPLAY_UNITS[v.unit][0])
        if sv.get("causality") == "parameter":
            _write_range(typed, v)
    structure = root.find("ModelStructure")
    for old in structure.findall("InitialUnknowns"):
        structure.remove(old)
    init = ET.SubElement(structure, "InitialUnknowns")
    for index in outputs:
        ET.SubElement(init, "Unknown", index=str(index))
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def _write_range(typed: ET.Element, v) -> None:
    """``min``/``max`` of a parameter as the values the FMU really accepts: FMI bounds are inclusive, so an open
    lower bound (a mass or length > 0) is written as the next representable value above it."""
    low = math.nextafter(float(v.low), math.inf) if v.low_open else float(v.low)
    number = (lambda x: str(int(x))) if typed.tag == "Integer" else (lambda x: repr(float(x)))
    if math.isfinite(low):
        typed.set("min", number(math.ceil(low) if typed.tag == "Integer" else low))
    if math.isfinite(v.high):
        typed.set("max", number(v.high))


def complete_fmi3_model_description(xml_text: bytes, runtime: bool) -> bytes:
    """pythonfmu3's model description with what the project's FMI 3.0 runtime offers: any communication step
    size (the adapter steps to each host point; pythonfmu3 0.3.4 writes false there by mistake) and, with the
    runtime inside, ``fmi3GetDirectionalDerivative`` (fmi/derivatives.py) and the early return an importer may ask
    for from its intermediateUpdate callback between internal steps (fmi3_step.c: the step then returns at its
    start)."""
    root = ET.fromstring(xml_text)
    cs = root.find("CoSimulation")
    cs.set("canHandleVariableCommunicationStepSize", "true")
    if runtime:
        cs.set("providesDirectionalDerivatives", "true")
        for flag in ("providesIntermediateUpdate", "mightReturnEarlyFromDoStep", "canReturnEarlyAfterIntermediateUpdate"):
            cs.set(flag, "true")
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)
