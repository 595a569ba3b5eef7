"""Build every FMU of the project into one folder, with ``crane_models`` bundled inside each.

Each FMU gets its own copy of the package under a unique module name
(``<fmu>_fmi<version>_v<project version>_crane_models``) and a uniquely named slave script, so that several FMUs -- and the host's own ``crane_models`` -- can live in
one Python process. pythonfmu's model description is completed (units, display units, ranges,
``InitialUnknowns``, ``DefaultExperiment``) so that it passes ``fmpy.validation.validate_fmu``.
Run through ``crane-cosim build --out OUT_DIR`` or ``python -m crane_cosim_build.build_fmus OUT_DIR``.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import re
import shutil
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Optional

from .. import __version__
from .registry import SPECS
from .spec import BASE_UNITS

# The checkout's top folder: the slave scripts (fmu_src/) when the project is not installed.
ROOT = Path(__file__).resolve().parents[2]

def slave_script_name(fmu_name: str) -> str:
    """The FMU's slave script in ``fmu_src/``: its name in snake case, ``KnuckleBoomCrane`` ->
    ``knuckle_boom_crane_fmu.py``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", fmu_name).lower() + "_fmu.py"


DISPLAY_UNITS = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi)}


def _source_dir(package: str, fallback: Path) -> Path:
    """Folder of an installed or checked-out package (works for editable and normal installs)."""
    try:
        mod = __import__(package)
        return Path(mod.__file__).resolve().parent
    except ImportError:
        return fallback


def complete_model_description(xml_text: bytes, spec, version: str) -> bytes:
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
        if typed.tag != "Real":
            continue
        if v.unit:
            typed.set("unit", v.unit)
            if v.display_unit or v.unit in DISPLAY_UNITS:
                typed.set("displayUnit", DISPLAY_UNITS[v.unit][0])
        if sv.get("causality") == "parameter":
            if math.isfinite(v.low):
                typed.set("min", repr(float(v.low)))
            if math.isfinite(v.high):
                typed.set("max", repr(float(v.high)))
    structure = root.find("ModelStructure")
    for old in structure.findall("InitialUnknowns"):
        structure.remove(old)
    init = ET.SubElement(structure, "InitialUnknowns")
    for index in outputs:
        ET.SubElement(init, "Unknown", index=str(index))
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def slave_source(name: str, bundle: str, fmi_version: int) -> str:
    """The slave script of ``fmu_src/`` with the bundled package name; for FMI 3.0 the same script on
    pythonfmu3 (the slaves only use what both libraries share)."""
    slave_dir = _source_dir("crane_cosim_fmu_src", ROOT / "fmu_src")
    text = (slave_dir / slave_script_name(name)).read_text().replace("crane_models", bundle)
    if fmi_version == 3:
        text = text.replace("from pythonfmu import Fmi2Slave", "from pythonfmu3 import Fmi3Slave")
        text = text.replace("(Fmi2Slave)", "(Fmi3Slave)")
    return text


def build_fmu(name: str, out_dir: Path, fmi_version: int = 2) -> Path:
    """Build one FMU (FMI 2.0 with pythonfmu, or FMI 3.0 with pythonfmu3) into ``out_dir``."""
    if fmi_version == 3:
        from pythonfmu3.builder import FmuBuilder

        options = {"canGetAndSetFMUState": True, "canSerializeFMUState": True}
    else:
        from pythonfmu.builder import FmuBuilder

        options = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}
    spec = SPECS[name]()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Unique per FMU, FMI version and project version: Python caches modules by name, so two FMUs (or
    # two builds of one FMU) sharing a module name in one process would run each other's code.
    tag = f"{name.lower()}_fmi{fmi_version}_v{__version__.replace('.', '_')}"
    bundle = f"{tag}_crane_models"
    src_pkg = Path(__file__).resolve().parents[1]  # this package, bundled whole
    with tempfile.TemporaryDirectory(prefix="crane_cosim_build_") as tmp:
        tmp = Path(tmp)
        shutil.copytree(src_pkg, tmp / bundle, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        script = tmp / f"{tag}_slave.py"
        script.write_text(slave_source(name, bundle, fmi_version))
        dest = out_dir / f"{name}.fmu" if fmi_version == 2 else out_dir
        fmu_path = Path(FmuBuilder.build_FMU(script, dest=dest, project_files=[tmp / bundle], **options))
        sys.modules.pop(script.stem, None)
        for mod in [m for m in sys.modules if m == bundle or m.startswith(bundle + ".")]:
            sys.modules.pop(mod)
        if str(tmp) in sys.path:
            sys.path.remove(str(tmp))
    if fmi_version == 2:
        _rewrite_fmu(fmu_path, spec, runtime=fmi2_runtime_binary())
    return fmu_path


def runtime_cache_dir() -> Path:
    """Where compiled runtimes are kept between builds (keyed by a hash of their sources)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "crane-cosim" / "runtime"


def fmi2_runtime_binary() -> Optional[Path]:
    """The project's FMI 2.0 runtime for this platform (compiled once per source hash), or None with a
    warning when there is no C compiler: the FMUs then keep pythonfmu's binary."""
    from .runtime import compile_runtime, find_c_compiler

    if find_c_compiler() is None:
        warnings.warn("no C compiler found: the FMUs keep pythonfmu's binary, which native hosts cannot load "
                      "without LD_PRELOAD of libpython (docs/fmi-runtime.md)", stacklevel=3)
        return None
    return compile_runtime(runtime_cache_dir())


def install_runtime(fmu_path: Path, runtime: Path) -> None:
    """Put the project's runtime into any pythonfmu FMI 2 FMU (replacing its linux64 binary) with its record."""
    _rewrite_fmu(Path(fmu_path), None, runtime)


def _rewrite_fmu(fmu_path: Path, spec, runtime: Optional[Path]) -> None:
    """Complete the model description (with ``spec``) and, with ``runtime``, replace pythonfmu's linux64
    binary by the project's runtime and add its record to ``resources/``."""
    from .runtime import RECORD_NAME, runtime_record

    tmp_path = fmu_path.with_suffix(".tmp")
    with zipfile.ZipFile(fmu_path) as zin, zipfile.ZipFile(tmp_path, "w", zipfile.ZIP_DEFLATED) as zout:
        xml = zin.read("modelDescription.xml")
        if spec is not None:
            xml = complete_model_description(xml, spec, __version__)
        slave_module = zin.read("resources/slavemodule.txt").decode().strip()
        root = ET.fromstring(xml)
        identifier = root.find("CoSimulation").get("modelIdentifier")
        binary = f"binaries/linux64/{identifier}.so"
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "modelDescription.xml":
                data = xml
            elif item.filename == binary and runtime is not None:
                data = runtime.read_bytes()
            zout.writestr(item, data)
        if runtime is not None:
            if binary not in zin.namelist():
                zout.writestr(binary, runtime.read_bytes())
            # pythonfmu names the model (and its binary) after the slave class
            zout.writestr(f"resources/{RECORD_NAME}", runtime_record(slave_module, identifier, root.get("guid")))
    tmp_path.replace(fmu_path)


def compiled_kernel() -> str | None:
    """File name of the compiled kernel that the FMUs will carry, or None when it is not built."""
    from ..core.native import library

    lib = library()
    return Path(lib._name).name if lib is not None else None


def build_all(out_dir: Path, fmi_version: int = 2) -> list:
    """Build every FMU into ``out_dir`` and write ``manifest.json`` (and the OSP files) beside them."""
    out_dir = Path(out_dir)
    kernel = compiled_kernel()
    if kernel is None:
        warnings.warn("the compiled dynamics kernel (crane_models/core/native/*.c) is not built -- was a C "
                      "compiler missing at pip install? The FMUs will run the numpy implementation, 3-6 times "
                      "slower (README, Performance)", stacklevel=2)
    paths = [build_fmu(name, out_dir, fmi_version) for name in SPECS]
    manifest = {
        "project_version": __version__,
        "compiled_kernel": kernel,  # the library bundled in every FMU (None: numpy only)
        "build_time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "fmus": [{"name": p.stem, "file": p.name, "fmi_version": f"{fmi_version}.0",
                  "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in paths],
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
    if fmi_version == 2:  # OSP files for the Vessel + CraneOnMovingBase pair, generated from the specs
        from .osp import write_osp_files

        write_osp_files(out_dir)
    return paths

