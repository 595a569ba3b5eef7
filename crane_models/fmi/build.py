"""Build every FMU of the project into one folder, with ``crane_models`` bundled inside each.

Each FMU gets its own copy of the package under a unique module name
(``<fmu>_fmi<version>_<content digest>_crane_models``, :func:`bundle_namespace`) and a uniquely named slave script, so that several FMUs -- and the host's own ``crane_models`` -- can live in
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
import uuid
import warnings
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Optional

from .. import __version__
from .bundle import copy_bundle
from .registry import SPECS
from .spec import BASE_UNITS

# The checkout's top folder: the slave scripts (fmu_src/) when the project is not installed.
ROOT = Path(__file__).resolve().parents[2]

def slave_script_name(fmu_name: str) -> str:
    """The FMU's slave script in ``fmu_src/``: its name in snake case, ``KnuckleBoomCrane`` ->
    ``knuckle_boom_crane_fmu.py``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", fmu_name).lower() + "_fmu.py"


DISPLAY_UNITS = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi)}


def _slave_dir() -> Path:
    """The slave scripts that belong to this package: ``fmu_src/`` beside it in a checkout (whichever checkout the
    package was imported from), else the installed ``crane_cosim_fmu_src``."""
    if (ROOT / "fmu_src").is_dir():
        return ROOT / "fmu_src"
    import crane_cosim_fmu_src

    return Path(crane_cosim_fmu_src.__file__).resolve().parent


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


def slave_source(name: str, bundle: str, fmi_version: int) -> str:
    """The slave script of ``fmu_src/`` with the bundled package name; for FMI 3.0 the same script on
    pythonfmu3 (the slaves only use what both libraries share)."""
    text = (_slave_dir() / slave_script_name(name)).read_text().replace("crane_models", bundle)
    if fmi_version == 3:
        text = text.replace("from pythonfmu import Fmi2Slave", "from pythonfmu3 import Fmi3Slave")
        text = text.replace("(Fmi2Slave)", "(Fmi3Slave)")
    return text


def build_fmu(name: str, out_dir: Path, fmi_version: int = 2, binaries: dict | None = None) -> Path:
    """Build one FMU (FMI 2.0 with pythonfmu, or FMI 3.0 with pythonfmu3) into ``out_dir``, byte-identical for
    identical sources (:func:`make_reproducible`). ``binaries``: {(library, platform): path} from
    :func:`platforms.build_binaries`; None: :func:`default_binaries` (this machine's kernel). The FMU carries
    those binaries instead of the kernel compiled in place by ``pip install`` (:func:`bundle_binaries`)."""
    if binaries is None:
        binaries = default_binaries()
    if fmi_version == 3:
        from pythonfmu3.builder import FmuBuilder

        options = {"canGetAndSetFMUState": True, "canSerializeFMUState": True}
    else:
        from pythonfmu.builder import FmuBuilder

        options = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}
    spec = SPECS[name]()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = bundle_namespace(name, fmi_version, binaries)
    bundle = f"{tag}_crane_models"
    src_pkg = Path(__file__).resolve().parents[1]  # this package: the FMU carries the part it runs (bundle.py)
    with tempfile.TemporaryDirectory(prefix="crane_cosim_build_") as tmp:
        tmp = Path(tmp)
        copy_bundle(src_pkg, tmp / bundle)
        if binaries:
            bundle_binaries(tmp / bundle, binaries)
        script = tmp / f"{tag}_slave.py"
        script.write_text(slave_source(name, bundle, fmi_version))
        dest = out_dir / f"{name}.fmu" if fmi_version == 2 else out_dir
        # The builder imports the script by name: an FMU of this same build loaded in this process (same
        # namespace) must not stand in for it, nor the build's modules stay behind for the next one.
        _forget_modules(tag)
        fmu_path = Path(FmuBuilder.build_FMU(script, dest=dest, project_files=[tmp / bundle], **options))
        _forget_modules(tag)
        if str(tmp) in sys.path:
            sys.path.remove(str(tmp))
    builder, copied = builder_in_namespace(fmu_path, tag, "pythonfmu3" if fmi_version == 3 else "pythonfmu")
    replace = {**copied, **model_binaries(binaries or {}, fmu_path.stem, fmi_version)}
    replace.update(runtime_entries(fmu_path.stem, script.stem, replace, fmi_version))
    runtime = any(name.endswith(f"/{fmu_path.stem}.so") for name in replace)  # pythonfmu's binary has no derivatives
    if fmi_version == 2:
        complete = lambda xml: complete_model_description(xml, spec, __version__, runtime)  # noqa: E731
    else:
        complete = lambda xml: complete_fmi3_model_description(xml, runtime)  # noqa: E731
    # pythonfmu3 adds sources/, the C++ of its own binary: not run by anyone (the FMU carries binaries)
    make_reproducible(fmu_path, complete, replace, drop=("sources/", f"resources/{builder}/"))
    return fmu_path


def builder_in_namespace(fmu_path: Path, tag: str, builder: str) -> tuple:
    """(builder, {entry: bytes}) that move the copy of ``builder`` (pythonfmu or pythonfmu3) the builder put into
    the FMU's resources/ to ``<tag>_<builder>`` and point the slave script at it: loaded by its own name, the copy
    would take the host's ``import pythonfmu`` for the rest of the process (and another FMU's copy would serve
    this one). pythonfmu imports itself relatively only (its ``__main__``, the command line, aside)."""
    entries = {}
    with zipfile.ZipFile(fmu_path) as z:
        for name in z.namelist():
            if name.startswith(f"resources/{builder}/") and not name.endswith("/"):
                entries[f"resources/{tag}_{name[len('resources/'):]}"] = z.read(name)
        script = f"resources/{tag}_slave.py"
        text = z.read(script).decode()
    entries[script] = text.replace(f"from {builder} import", f"from {tag}_{builder} import").encode()
    return builder, entries


def _forget_modules(tag: str) -> None:
    """Drop the modules of the namespace ``tag`` (slave script, bundled package, pythonfmu's copy) from sys.modules."""
    for mod in [m for m in sys.modules if m == tag or m.startswith(tag + "_")]:
        sys.modules.pop(mod)


def bundle_namespace(name: str, fmi_version: int, binaries: dict) -> str:
    """The prefix of every module name an FMU brings into a Python process (``<prefix>_crane_models``,
    ``<prefix>_slave``): the FMU's name and FMI version and a digest of everything it is made of
    (:func:`build_inputs_sha256`: the bundled code, the variables its specs make, the binaries, the builder's
    version). Python caches modules by name, so two FMUs -- or two builds of one FMU, before and after a change --
    whose modules shared a name would run the first one's code and variable table in one process (issue 21); a
    name from the content, not from name and version, keeps them apart, and equal sources still give equal bytes.
    16 hex digits (64 bits): a collision between two builds is as unlikely as one of the content GUIDs."""
    return f"{name.lower()}_fmi{fmi_version}_{build_inputs_sha256(name, fmi_version, binaries)[:16]}"


def complete_fmi3_model_description(xml_text: bytes, runtime: bool) -> bytes:
    """pythonfmu3's model description with what the project's FMI 3.0 runtime offers: any communication step
    size (the adapter steps to each host point; pythonfmu3 0.3.4 writes false there by mistake) and, with the
    runtime inside, ``fmi3GetDirectionalDerivative`` (fmi/derivatives.py)."""
    root = ET.fromstring(xml_text)
    cs = root.find("CoSimulation")
    cs.set("canHandleVariableCommunicationStepSize", "true")
    if runtime:
        cs.set("providesDirectionalDerivatives", "true")
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def runtime_cache_dir() -> Path:
    """Where compiled runtimes are kept between builds (keyed by a hash of their sources)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "crane-cosim" / "runtime"


def default_binaries() -> dict:
    """{(library, platform): path} of a build without ``--platforms``: the kernel compiled here for this machine
    (:mod:`.host_kernel`, independent of the folder and the Python that installed the package); {} where there is
    none (not Linux, no C compiler), and the FMU carries the extension ``pip install`` compiled in place."""
    from .host_kernel import host_kernel
    from .platforms import KERNEL, host_platform

    kernel = host_kernel(runtime_cache_dir().parent / "kernel")
    return {(KERNEL.name, host_platform()): kernel} if kernel else {}


def runtime_binary(fmi_version: int = 2) -> Optional[Path]:
    """The project's FMI 2.0 or FMI 3.0 runtime (fmi/runtime) for this machine,
    compiled once per source hash, or None with a warning when there is no C compiler: the FMUs then keep
    pythonfmu's (pythonfmu3's) binary."""
    from .runtime import compile_runtime, find_c_compiler

    if find_c_compiler() is None:
        warnings.warn("no C compiler found: the FMUs keep pythonfmu's binary, which native hosts cannot load "
                      "without LD_PRELOAD of libpython (docs/fmi-runtime.md)", stacklevel=3)
        return None
    return compile_runtime(runtime_cache_dir(), fmi_version=fmi_version)


def fmi2_runtime_binary() -> Optional[Path]:
    """The project's FMI 2.0 runtime for this machine (see :func:`runtime_binary`)."""
    return runtime_binary(2)


def fmi3_runtime_binary() -> Optional[Path]:
    """The project's FMI 3.0 runtime for this machine (see :func:`runtime_binary`)."""
    return runtime_binary(3)


def runtime_entries(model_identifier: str, slave_module: str, placed: dict, fmi_version: int = 2) -> dict:
    """{entry: file or bytes} that put the project's runtime into an FMU: its record in ``resources/`` and,
    unless ``placed`` already holds a cross-built one, this machine's runtime as the Linux binary
    (``binaries/linux64`` for FMI 2.0, ``binaries/x86_64-linux`` for FMI 3.0), replacing pythonfmu's."""
    from .runtime import RECORD_NAME, runtime_record

    folder = "linux64" if fmi_version == 2 else "x86_64-linux"
    binary = f"binaries/{folder}/{model_identifier}.so"
    entries = {f"resources/{RECORD_NAME}": runtime_record(slave_module, model_identifier).encode()}
    if binary not in placed and sys.platform.startswith("linux"):
        runtime = runtime_binary(fmi_version)
        if runtime is None:
            return {}
        entries[binary] = runtime
    return entries


def install_runtime(fmu_path: Path, runtime: Path) -> None:
    """Put the project's runtime into any pythonfmu FMI 2 FMU (replacing its linux64 binary) with its record."""
    from .runtime import RECORD_NAME, runtime_record

    fmu_path = Path(fmu_path)
    with zipfile.ZipFile(fmu_path) as z:
        module = z.read("resources/slavemodule.txt").decode().strip()
        identifier = ET.fromstring(z.read("modelDescription.xml")).find("CoSimulation").get("modelIdentifier")
    make_reproducible(fmu_path, None, {f"binaries/linux64/{identifier}.so": Path(runtime),
                                       f"resources/{RECORD_NAME}": runtime_record(module, identifier).encode()})


def bundle_binaries(package: Path, binaries: dict) -> None:
    """Put every platform's kernel beside its sources in the bundled ``package`` (core/native/
    ``multibody-<platform>.<ext>``, which core/native/system.py loads on that platform) in place of the
    extension compiled on this machine, which depends on the build machine's compiler."""
    from .platforms import libraries

    native = package / "core" / "native"
    for local in native.glob("multibody*"):
        if local.suffix in (".so", ".pyd", ".dylib", ".dll"):
            local.unlink()
    for library in (lib for lib in libraries() if lib.in_package):
        folder = package / library.sources[0].parent.relative_to(Path(__file__).resolve().parents[1])
        for (name, _), path in binaries.items():
            if name == library.name:
                shutil.copyfile(path, folder / path.name)


def model_binaries(binaries: dict, model_identifier: str, fmi_version: int) -> dict:
    """{name in the FMU: file} of the library that goes to ``binaries/<platform>/`` under the model identifier:
    the FMU runtime of the FMU's FMI version (``platforms.RUNTIME_FOR_VERSION``), replacing pythonfmu's or
    pythonfmu3's binary there."""
    from .platforms import PLATFORMS, RUNTIME_FOR_VERSION

    placed = {}
    for (name, platform_name), path in binaries.items():
        if name == RUNTIME_FOR_VERSION[fmi_version]:
            platform = PLATFORMS[platform_name]
            folder = platform.fmi2_folder if fmi_version == 2 else platform.name
            placed[f"binaries/{folder}/{model_identifier}{platform.extension}"] = Path(path)
    return placed


# Every entry of a reproducible FMU gets this time stamp (the zip format's earliest) and these permissions.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def content_guid(xml_text: bytes, entries: dict) -> str:
    """GUID (FMI 2.0) or instantiation token (FMI 3.0) that identifies the FMU's content: a name-based UUID of
    the sha256 over every other entry and the model description without GUID and generation time."""
    digest = hashlib.sha256()
    for name in sorted(entries):
        digest.update(name.encode() + b"\0" + hashlib.sha256(entries[name]).digest())
    digest.update(xml_text)
    return "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, "crane-cosim:" + digest.hexdigest())) + "}"


def _identify_model_description(xml_text: bytes, entries: dict) -> bytes:
    """The model description without generation time (a build time inside the FMU would change its hash)
    and with the content GUID."""
    root = ET.fromstring(xml_text)
    root.attrib.pop("generationDateAndTime", None)
    key = "guid" if "guid" in root.attrib else "instantiationToken"
    root.set(key, "")
    neutral = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    root.set(key, content_guid(neutral, entries))
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


# The FMI 3.0 runtime's copy of the instantiation token: hosts need not unpack modelDescription.xml (fmpy's
# simulate_fmu extracts only binaries/ and resources/), and the runtime checks the host's token against it.
TOKEN_ENTRY = "resources/crane_cosim_token.txt"


def _record_name() -> str:
    from .runtime import RECORD_NAME

    return RECORD_NAME


def make_reproducible(fmu_path: Path, complete=None, replace: dict | None = None, drop: tuple = ()) -> None:
    """Rewrite the FMU so that identical content gives identical bytes: entries sorted by name, fixed time
    stamps and permissions, a fixed compression level, the GUID from the content (:func:`content_guid`).
    ``complete``: a function applied to the model description first; ``replace``: {entry: file or bytes} to
    add or overwrite; ``drop``: prefixes of entries to leave out."""
    with zipfile.ZipFile(fmu_path) as zin:
        entries = {item.filename: zin.read(item.filename) for item in zin.infolist()
                   if not item.is_dir() and not item.filename.startswith(tuple(drop))}
    for name, content in (replace or {}).items():
        entries[name] = content if isinstance(content, bytes) else Path(content).read_bytes()
    xml_text = entries.pop("modelDescription.xml")
    if complete is not None:
        xml_text = complete(xml_text)
    entries.pop(TOKEN_ENTRY, None)  # a copy of the token, not content: the token must not depend on itself
    entries["modelDescription.xml"] = _identify_model_description(xml_text, entries)
    root = ET.fromstring(entries["modelDescription.xml"])
    if "instantiationToken" in root.attrib and f"resources/{_record_name()}" in entries:
        entries[TOKEN_ENTRY] = root.get("instantiationToken").encode()
    tmp_path = fmu_path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp_path, "w") as zout:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.external_attr = (0o755 if name.startswith("binaries/") else 0o644) << 16
            info.create_system = 3  # Unix, whatever the build machine
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, entries[name], compresslevel=9)
    tmp_path.replace(fmu_path)


def compiled_kernel() -> str | None:
    """File name of the compiled kernel that the FMUs will carry, or None when it is not built."""
    from ..core.native import library

    lib = library()
    return Path(lib._name).name if lib is not None else None


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def build_inputs_sha256(name: str, fmi_version: int, binaries: dict) -> str:
    """sha256 over everything an FMU is made of: the package's files (without caches; without the kernel
    compiled in place when platform binaries replace it), the slave script, the binaries, the FMI version and
    the builder library's version. Equal inputs give an equal FMU (:func:`make_reproducible`)."""
    from importlib.metadata import version

    src_pkg = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{name} fmi{fmi_version} {__version__} ".encode())
    digest.update(version("pythonfmu3" if fmi_version == 3 else "pythonfmu").encode())
    for path in sorted(src_pkg.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        if binaries and path.name.startswith("multibody") and path.suffix in (".so", ".pyd", ".dylib", ".dll"):
            continue
        digest.update(str(path.relative_to(src_pkg)).encode() + b"\0" + path.read_bytes())
    digest.update(slave_source(name, "crane_models", fmi_version).encode())
    # the runtime's record (what the FMU needs of a Python; the runtime's sources are part of the package above)
    from .runtime import runtime_record

    digest.update(runtime_record("", name).encode())
    for key in sorted(binaries):
        digest.update(repr(key).encode() + Path(binaries[key]).read_bytes())
    return digest.hexdigest()


def _previous_entries(out_dir: Path) -> dict:
    """{FMU file: manifest entry} of an earlier build in ``out_dir`` ({} when there is none or it is unreadable)."""
    try:
        return {f["file"]: f for f in json.loads((out_dir / "manifest.json").read_text())["fmus"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def build_all(out_dir: Path, fmi_version: int = 2, platforms=None) -> list:
    """Build every FMU into ``out_dir`` and write ``manifest.json`` (and the OSP files) beside them.

    ``platforms``: None (this machine's kernel, :func:`default_binaries`), ``"all"`` or names of
    :data:`platforms.PLATFORMS` (``["x86_64-linux", "x86_64-windows"]``, FMI 2.0 folder names too): every FMU
    then carries every platform's kernel, cross-built with zig (:mod:`.platforms`).
    An FMU already in ``out_dir`` whose inputs are unchanged (``inputs_sha256`` in the manifest) and whose
    file still has its recorded sha256 is kept as it is, not rebuilt; a rebuilt FMU with the bytes of the
    file already there leaves that file untouched."""
    from .platforms import build_binaries, host_platform, resolve_platforms

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    chosen = resolve_platforms(platforms)
    previous = _previous_entries(out_dir)
    entries = []
    with tempfile.TemporaryDirectory(prefix="crane_cosim_all_") as tmp:
        tmp = Path(tmp)
        binaries = build_binaries(chosen, tmp / "binaries") if chosen else default_binaries()
        kernels = {p: path.name for (lib, p), path in sorted(binaries.items()) if lib == "multibody"}
        kernel = kernels.get(host_platform()) if binaries else compiled_kernel()
        if kernel is None and not chosen:
            warnings.warn("the compiled dynamics kernel (crane_models/core/native/*.c) is not built -- was a C "
                          "compiler missing at pip install? The FMUs will run the numpy implementation, 3-6 "
                          "times slower (README, Performance)", stacklevel=2)
        for name in SPECS:
            inputs = build_inputs_sha256(name, fmi_version, binaries)
            target = out_dir / f"{name}.fmu"
            old = previous.get(target.name, {})
            reused = (old.get("inputs_sha256") == inputs and target.is_file()
                      and _sha256(target) == old.get("sha256"))
            if not reused:
                fresh = build_fmu(name, tmp / name, fmi_version, binaries)
                target = out_dir / fresh.name
                if not (target.is_file() and _sha256(target) == _sha256(fresh)):
                    shutil.move(fresh, target)
            entries.append({"name": name, "file": target.name, "fmi_version": f"{fmi_version}.0",
                            "sha256": _sha256(target), "inputs_sha256": inputs})
    manifest = {
        "project_version": __version__,
        "compiled_kernel": kernel,  # the kernel this machine loads from every FMU (None: numpy only)
        "kernels": kernels,         # {platform: kernel file} in every FMU ({}: the one pip compiled in place)
        # Outside the FMUs: the FMUs themselves carry no build time (byte-identical rebuilds).
        "build_time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "fmus": entries,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
    if fmi_version == 2:  # OSP files and SSP packages for the FMUs and the vessel-crane pairs, from the specs
        from .osp import SHIP_PAIRS, variable_connections, write_osp_files
        from .ssp import write_ssp_files

        write_osp_files(out_dir)
        write_ssp_files(out_dir, SPECS, SHIP_PAIRS, variable_connections, BASE_UNITS)
    return [out_dir / e["file"] for e in entries]
