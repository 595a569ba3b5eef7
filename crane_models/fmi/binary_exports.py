"""What a shared library built for any platform exports, read from its file: ELF (Linux), PE (Windows), Mach-O
(macOS). Pure Python, so that every build machine can check every platform's binaries without binutils.

Only what the checks need is parsed: the architecture, the exported function names (ELF ``.dynsym``, the PE
export directory, the external symbols of a Mach-O ``LC_SYMTAB``) and, for ELF, the glibc symbol versions it
requires (``.gnu.version_r``). Formats: System V ABI (ELF-64), Microsoft PE/COFF specification, Apple's
``<mach-o/loader.h>`` and ``<mach-o/nlist.h>``.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
PE_MACHINES = {0x8664: "x86_64", 0xAA64: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "aarch64"}


@dataclass(frozen=True)
class BinaryInfo:
    format: str            # "elf", "pe" or "macho"
    architecture: str      # "x86_64", "aarch64", or the raw machine number
    exports: frozenset     # exported function and data names (no Mach-O leading underscore)
    glibc_versions: tuple  # (major, minor) of every GLIBC_x.y an ELF file requires, sorted; () otherwise


def _cstring(data: bytes, offset: int) -> str:
    return data[offset:data.index(b"\0", offset)].decode("ascii", "replace")


def _elf(data: bytes) -> BinaryInfo:
    if data[4] != 2 or data[5] != 1:
        raise ValueError("only 64-bit little-endian ELF files are read")
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    exports, versions = set(), set()
    for _, kind, _, _, offset, size, link, info, _, entsize in sections:
        strtab = sections[link][4]
        if kind == 11:  # SHT_DYNSYM: Elf64_Sym (name, info, other, shndx, value, size)
            for at in range(offset + entsize, offset + size, entsize):  # entry 0 is the null symbol
                name, st_info, _, shndx = struct.unpack_from("<IBBH", data, at)
                if shndx != 0 and st_info >> 4 in (1, 2):  # defined, GLOBAL or WEAK
                    exports.add(_cstring(data, strtab + name))
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed: Elf64_Verneed entries, each with its Elf64_Vernaux list
            at = offset
            for _ in range(info):
                _, count, _, aux, next_need = struct.unpack_from("<HHIII", data, at)
                aux_at = at + aux
                for _ in range(count):
                    _, _, _, name, next_aux = struct.unpack_from("<IHHII", data, aux_at)
                    version = _cstring(data, strtab + name)
                    if version.startswith("GLIBC_") and version[6:].replace(".", "").isdigit():
                        versions.add(tuple(int(x) for x in version[6:].split(".")[:2]))
                    aux_at += next_aux
                at += next_need
    return BinaryInfo("elf", ELF_MACHINES.get(machine, str(machine)), frozenset(exports), tuple(sorted(versions)))


def _pe(data: bytes) -> BinaryInfo:
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("no PE signature")
    machine, nsections = struct.unpack_from("<HH", data, pe + 4)
    optional_size = struct.unpack_from("<H", data, pe + 20)[0]
    optional = pe + 24
    magic = struct.unpack_from("<H", data, optional)[0]
    directories = optional + (112 if magic == 0x20B else 96)  # PE32+ or PE32
    export_rva, _ = struct.unpack_from("<II", data, directories)
    table = optional + optional_size
    sections = [struct.unpack_from("<8sIIII", data, table + 40 * i) for i in range(nsections)]

    def file_offset(rva: int) -> int:
        for _, vsize, vaddr, rawsize, rawptr in sections:
            if vaddr <= rva < vaddr + max(vsize, rawsize):
                return rva - vaddr + rawptr
        raise ValueError(f"RVA {rva:#x} is in no section")

    exports = set()
    if export_rva:
        directory = file_offset(export_rva)
        count, names = struct.unpack_from("<I4xI", data, directory + 24)  # NumberOfNames, AddressOfNames
        for i in range(count):
            name_rva = struct.unpack_from("<I", data, file_offset(names) + 4 * i)[0]
            exports.add(_cstring(data, file_offset(name_rva)))
    return BinaryInfo("pe", PE_MACHINES.get(machine, str(machine)), frozenset(exports), ())


def _macho(data: bytes) -> BinaryInfo:
    cpu, _, _, ncmds = struct.unpack_from("<iIII", data, 4)
    at, exports = 32, set()  # mach_header_64
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        if cmd == 0x2:  # LC_SYMTAB: nlist_64 (strx, type, sect, desc, value)
            symoff, nsyms, stroff = struct.unpack_from("<III", data, at + 8)
            for i in range(nsyms):
                strx, n_type = struct.unpack_from("<IB", data, symoff + 16 * i)
                if n_type & 0x01 and n_type & 0x0E == 0x0E and not n_type & 0xE0:  # N_EXT, N_SECT, no stab
                    name = _cstring(data, stroff + strx)
                    exports.add(name[1:] if name.startswith("_") else name)
        at += size
    return BinaryInfo("macho", MACHO_CPUS.get(cpu & 0xFFFFFFFF, str(cpu)), frozenset(exports), ())


def read_binary(path: Path) -> BinaryInfo:
    """Format, architecture, exports and required glibc versions of a shared library; ValueError for a file
    that is none of ELF-64, PE or 64-bit Mach-O."""
    data = Path(path).read_bytes()
    if data[:4] == b"\x7fELF":
        return _elf(data)
    if data[:2] == b"MZ":
        return _pe(data)
    if data[:4] == b"\xcf\xfa\xed\xfe":
        return _macho(data)
    raise ValueError(f"{path}: not an ELF, PE or 64-bit Mach-O shared library")


def exported_symbols(path: Path) -> frozenset:
    """The names a shared library exports (see :func:`read_binary`)."""
    return read_binary(path).exports
