"""The dynamics kernel an FMU of a default build (no ``--platforms``) carries for this machine.

Compiled here with the system C compiler from the kernel's own sources and flags (:data:`platforms.KERNEL`, as the
cross-builds use them), with relative source paths, ``-g0``, no build id and no run path: the FMU's bytes then
depend on the sources and the compiler only. The extension ``pip install`` compiles in place is not carried: it
has the flags of the Python that built it (``-g`` writes the build folder into it, and a pyenv Python's link line
writes its library folder as RUNPATH), so two checkouts or two virtual environments would give two FMUs.
Cached by a hash of sources, headers, flags and compiler, as the FMU runtime (:mod:`.runtime`).
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Optional

from .platforms import KERNEL, PACKAGE, PLATFORMS, Platform, export_flags, host_platform
from .runtime import compile_once, find_c_compiler

# Shared-library flags for this machine's compiler (GNU ld, Linux): no build id, symbols stripped (the entry
# points stay in the dynamic table).
LINK_FLAGS = ("-fPIC", "-shared", "-s", "-Wl,--build-id=none")


def compile_flags(platform: Platform) -> list[str]:
    """The kernel's own flags and, as in every build, the visibility flags that export exactly its entry points
    (:func:`.platforms.export_flags`)."""
    return [*KERNEL.flags, *export_flags(KERNEL, platform), *LINK_FLAGS]


def kernel_hash(cc: str, platform: Platform) -> str:
    digest = hashlib.sha256("\0".join((cc, *compile_flags(platform))).encode())
    for path in sorted({*KERNEL.sources, *KERNEL.sources[0].parent.glob("*.h")}):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def host_kernel(cache_dir: Path) -> Optional[Path]:
    """The kernel for this machine (Linux) in ``cache_dir``, compiled unless it is there already; None where this
    build does not make one (not Linux, or no C compiler: the FMUs then carry the extension compiled in place).
    Raises :class:`.runtime.RuntimeBuildError` with the compiler's message when compilation fails."""
    platform = PLATFORMS.get(host_platform() or "")
    cc = find_c_compiler()
    if not sys.platform.startswith("linux") or platform is None or cc is None:
        return None
    out = Path(cache_dir) / kernel_hash(cc, platform) / KERNEL.file_name(platform)
    # relative source paths from the package's parent: the compiler sees no folder of this machine
    return compile_once(out, [cc, *compile_flags(platform),
                              *(os.path.relpath(s, PACKAGE.parent) for s in KERNEL.sources), "-lm"], cwd=PACKAGE.parent)
