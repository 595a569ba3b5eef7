"""What a shared library built for any platform exports, read from its file with LIEF (PyPI ``lief``: one parser
of ELF, PE and Mach-O, so that every build machine checks every platform's binaries without binutils).

What the checks need: the architecture, the exported names (ELF: the defined global dynamic symbols; PE: the export
directory; Mach-O: the exported symbols without the leading underscore of C names) and, for ELF, the glibc symbol
versions it requires (``.gnu.version_r``), for the glibc baseline of the Linux builds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["BinaryInfo", "LiefMissing", "require_lief", "read_binary", "exported_symbols"]

# Machine numbers of the headers: ELF e_machine, PE/COFF Machine, Mach-O cputype (values of the formats'
# specifications, so that they do not depend on how a LIEF version names its enumerations).
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
PE_MACHINES = {0x8664: "x86_64", 0xAA64: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "aarch64"}


@dataclass(frozen=True)
class BinaryInfo:
    format: str            # "elf", "pe" or "macho"
    architecture: str      # "x86_64", "aarch64", or the raw machine number
    exports: frozenset     # exported function and data names (no Mach-O leading underscore)
    glibc_versions: tuple  # (major, minor) of every GLIBC_x.y an ELF file requires, sorted; () otherwise


class LiefMissing(RuntimeError):
    """LIEF is not installed: ``pip install lief`` (in the ``platforms`` and ``test`` extras)."""


def require_lief():
    """The ``lief`` module, or LiefMissing with the command that installs it."""
    try:
        import lief
    except ImportError:
        raise LiefMissing("checking the platforms' binaries needs LIEF: pip install lief "
                          "(or pip install 'crane-cosim[platforms]')") from None
    return lief


def _machine(table: dict, value) -> str:
    number = int(value)
    return table.get(number, str(number))


def _elf(binary) -> BinaryInfo:
    exports = {s.name for s in binary.dynamic_symbols if s.exported}
    versions = set()
    for needed in binary.symbols_version_requirement:
        for aux in needed.get_auxiliary_symbols():
            name = aux.name
            if name.startswith("GLIBC_") and name[6:].replace(".", "").isdigit():
                versions.add(tuple(int(x) for x in name[6:].split(".")[:2]))
    return BinaryInfo("elf", _machine(ELF_MACHINES, binary.header.machine_type), frozenset(exports),
                      tuple(sorted(versions)))


def _pe(binary) -> BinaryInfo:
    table = binary.get_export() if binary.has_exports else None
    exports = {entry.name for entry in table.entries if entry.name} if table is not None else set()
    return BinaryInfo("pe", _machine(PE_MACHINES, binary.header.machine), frozenset(exports), ())


def _macho(binary) -> BinaryInfo:
    exports = {s.name[1:] if s.name.startswith("_") else s.name for s in binary.exported_symbols}
    return BinaryInfo("macho", _machine(MACHO_CPUS, binary.header.cpu_type), frozenset(exports), ())


def read_binary(path: Path) -> BinaryInfo:
    """Format, architecture, exports and required glibc versions of a shared library; ValueError for a file
    that is none of ELF, PE or Mach-O (a universal Mach-O file: its first architecture)."""
    lief = require_lief()
    # LIEF warns on stderr about parts of a file it cannot read that no check here uses (every Mach-O file zig
    # links: "Can't read value at offset"); what matters, a file it cannot parse at all, raises below.
    lief.logging.disable()
    try:
        binary = lief.parse(str(path))
    finally:
        lief.logging.enable()
    if isinstance(binary, lief.ELF.Binary):
        return _elf(binary)
    if isinstance(binary, lief.PE.Binary):
        return _pe(binary)
    if isinstance(binary, lief.MachO.Binary):
        return _macho(binary)
    raise ValueError(f"{path}: not an ELF, PE or Mach-O shared library")


def exported_symbols(path: Path) -> frozenset:
    """The names a shared library exports (see :func:`read_binary`)."""
    return read_binary(path).exports
