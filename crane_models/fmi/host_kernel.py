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
import subprocess
import sys
from pathlib import Path
from typing import Optional

from .platforms import KERNEL, PACKAGE, PLATFORMS, host_platform
from .runtime import RuntimeBuildError, find_c_compiler

# Shared-library flags for this machine's compiler (GNU ld, Linux): no build id, symbols stripped (the entry
# points stay in the dynamic table).
LINK_FLAGS = ("-fPIC", "-shared", "-s", "-Wl,--build-id=none")


def kernel_hash(cc: str) -> str:
    digest = hashlib.sha256("\0".join((cc, *KERNEL.flags, *LINK_FLAGS)).encode())
    for path in sorted({*KERNEL.sources, *KERNEL.sources[0].parent.glob("*.h")}):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def host_kernel(cache_dir: Path) -> Optional[Path]:
    """The kernel for this machine (Linux) in ``cache_dir``, compiled unless it is there already; None where this
    build does not make one (not Linux, or no C compiler: the FMUs then carry the extension compiled in place).
    Raises :class:`RuntimeBuildError` with the compiler's message when compilation fails."""
    platform = PLATFORMS.get(host_platform() or "")
    cc = find_c_compiler()
    if not sys.platform.startswith("linux") or platform is None or cc is None:
        return None
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    out = cache_dir / f"{kernel_hash(cc)}" / KERNEL.file_name(platform)
    if out.exists():
        return out
    out.parent.mkdir(exist_ok=True)
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    cmd = [cc, *KERNEL.flags, *LINK_FLAGS, "-o", str(tmp),
           *(os.path.relpath(s, PACKAGE.parent) for s in KERNEL.sources), "-lm"]
    done = subprocess.run(cmd, cwd=PACKAGE.parent, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeBuildError(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    tmp.replace(out)  # atomic: parallel builds never see a half-written library
    return out
