"""Build FMUs from their specs into one folder, with ``crane_models`` bundled inside each: the FMI layer's build,
which takes the FMUs as arguments (``{name: spec factory}``; the project's own are ``models.registry.SPECS``,
built by name in :mod:`models.build`).

Each FMU gets its own copy of the package under a unique module name
(``<fmu>_fmi<version>_<content digest>_crane_models``, :func:`bundle_namespace`) and a uniquely named slave
script, so that several FMUs -- and the host's own ``crane_models`` -- can live in one Python process. pythonfmu's model description is completed
(:mod:`.model_description`); the FMU is rewritten to be byte-identical for identical content (:mod:`.reproducible`)
with the project's runtime and kernels inside (:mod:`.fmu_binaries`).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import re
import shutil
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Callable

from .. import __version__
from .bundle import copy_bundle
from .fmu_binaries import bundle_binaries, compiled_kernel, default_binaries, model_binaries, runtime_entries
from .model_description import complete_fmi3_model_description, complete_model_description
from .reproducible import make_reproducible
from .spec import FmuSpec

__all__ = ["build_fmu", "build_fmus", "build_inputs_sha256", "bundle_namespace", "slave_script_name", "slave_source"]

# The checkout's top folder: the slave scripts (fmu_src/) when the project is not installed.
ROOT = Path(__file__).resolve().parents[2]


def slave_script_name(fmu_name: str) -> str:
    """The FMU's slave script in ``fmu_src/``: its name in snake case, ``KnuckleBoomCrane`` ->
    ``knuckle_boom_crane_fmu.py``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", fmu_name).lower() + "_fmu.py"


def _slave_dir() -> Path:
    """The slave scripts that belong to this package: ``fmu_src/`` beside it in a checkout (whichever checkout the
    package was imported from), else the installed ``crane_cosim_fmu_src``."""
    if (ROOT / "fmu_src").is_dir():
        return ROOT / "fmu_src"
    import crane_cosim_fmu_src

    return Path(crane_cosim_fmu_src.__file__).resolve().parent


def slave_source(name: str, bundle: str, fmi_version: int) -> str:
    """The slave script of ``fmu_src/`` with the bundled package name; for FMI 3.0 the same script on
    pythonfmu3 (the slaves only use what both libraries share)."""
    text = (_slave_dir() / slave_script_name(name)).read_text().replace("crane_models", bundle)
    if fmi_version == 3:
        text = text.replace("from pythonfmu import Fmi2Slave", "from pythonfmu3 import Fmi3Slave")
        text = text.replace("(Fmi2Slave)", "(Fmi3Slave)")
    return text


def build_fmu(name: str, spec: FmuSpec, out_dir: Path, fmi_version: int = 2, binaries: dict | None = None,
              files: dict | None = None) -> Path:
    """Build the FMU ``name`` of ``spec`` (its slave script is ``fmu_src/``'s :func:`slave_script_name`; FMI 2.0
    with pythonfmu, or FMI 3.0 with pythonfmu3) into ``out_dir``, byte-identical for
    identical sources (:func:`make_reproducible`). ``binaries``: {(library, platform): path} from
    :func:`platforms.build_binaries`; None: :func:`default_binaries` (this machine's kernel). The FMU carries
    those binaries instead of the kernel compiled in place by ``pip install`` (:func:`bundle_binaries`).
    ``files``: ``{path inside the bundled package: file}`` the FMU carries besides (a user's RAO table), part of
    its build's digest (:func:`build_inputs_sha256`)."""
    if binaries is None:
        binaries = default_binaries()
    if fmi_version == 3:
        from pythonfmu3.builder import FmuBuilder

        options = {"canGetAndSetFMUState": True, "canSerializeFMUState": True}
    else:
        from pythonfmu.builder import FmuBuilder

        options = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = bundle_namespace(name, fmi_version, binaries, files)
    bundle = f"{tag}_crane_models"
    src_pkg = Path(__file__).resolve().parents[1]  # this package: the FMU carries the part it runs (bundle.py)
    with tempfile.TemporaryDirectory(prefix="crane_cosim_build_") as tmp:
        tmp = Path(tmp)
        copy_bundle(src_pkg, tmp / bundle)
        for inside, source in sorted((files or {}).items()):
            (tmp / bundle / inside).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, tmp / bundle / inside)
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


def bundle_namespace(name: str, fmi_version: int, binaries: dict, files: dict | None = None) -> str:
    """The prefix of every module name an FMU brings into a Python process (``<prefix>_crane_models``,
    ``<prefix>_slave``): the FMU's name and FMI version and a digest of everything it is made of
    (:func:`build_inputs_sha256`: the bundled code, the variables its specs make, the binaries, the builder's
    version). Python caches modules by name, so two FMUs -- or two builds of one FMU, before and after a change --
    whose modules shared a name would run the first one's code and variable table in one process (issue 21); a
    name from the content, not from name and version, keeps them apart, and equal sources still give equal bytes.
    16 hex digits (64 bits): a collision between two builds is as unlikely as one of the content GUIDs."""
    return f"{name.lower()}_fmi{fmi_version}_{build_inputs_sha256(name, fmi_version, binaries, files)[:16]}"


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def build_inputs_sha256(name: str, fmi_version: int, binaries: dict, files: dict | None = None) -> str:
    """sha256 over everything an FMU is made of: the package's files (without caches; without the kernel
    compiled in place when platform binaries replace it), the slave script, the binaries, the files it carries
    besides (``files``, :func:`build_fmu`), the FMI version and the builder library's version. Equal inputs give an
    equal FMU (:func:`make_reproducible`)."""
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
    for inside in sorted(files or {}):
        digest.update(b"file " + inside.encode() + b"\0" + Path(files[inside]).read_bytes())
    return digest.hexdigest()


def _previous_entries(out_dir: Path) -> dict:
    """{FMU file: manifest entry} of an earlier build in ``out_dir`` ({} when there is none or it is unreadable)."""
    try:
        return {f["file"]: f for f in json.loads((out_dir / "manifest.json").read_text())["fmus"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def build_fmus(specs: dict[str, Callable[[], FmuSpec]], out_dir: Path, fmi_version: int = 2, platforms=None,
               write_systems: Callable[[Path], None] | None = None, files: dict | None = None) -> list:
    """Build the FMUs of ``specs`` (``{name: spec factory}``) into ``out_dir`` and write ``manifest.json`` beside
    them; for FMI 2.0 ``write_systems(out_dir)`` then adds the system files of the FMUs (OSP, SSP).

    ``platforms``: None (this machine's kernel, :func:`default_binaries`), ``"all"`` or names of
    :data:`platforms.PLATFORMS` (``["x86_64-linux", "x86_64-windows"]``, FMI 2.0 folder names too): every FMU
    then carries every platform's kernel, cross-built with zig (:mod:`.platforms`).
    An FMU already in ``out_dir`` whose inputs are unchanged (``inputs_sha256`` in the manifest) and whose
    file still has its recorded sha256 is kept as it is, not rebuilt; a rebuilt FMU with the bytes of the
    file already there leaves that file untouched. ``files``: ``{FMU name: {path inside its bundle: file}}``, what
    an FMU carries besides (:func:`build_fmu`)."""
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
                          "times slower (docs/performance.md)", stacklevel=2)
        for name, make_spec in specs.items():
            extra = (files or {}).get(name)
            inputs = build_inputs_sha256(name, fmi_version, binaries, extra)
            target = out_dir / f"{name}.fmu"
            old = previous.get(target.name, {})
            reused = (old.get("inputs_sha256") == inputs and target.is_file()
                      and _sha256(target) == old.get("sha256"))
            if not reused:
                fresh = build_fmu(name, make_spec(), tmp / name, fmi_version, binaries, extra)
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
    if fmi_version == 2 and write_systems is not None:
        write_systems(out_dir)
    return [out_dir / e["file"] for e in entries]
