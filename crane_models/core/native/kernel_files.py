"""Where the compiled kernel's files are: the platform tuple of the running Python and the kernel files to try, best
first (those an FMU carries for each platform, then the one ``pip install`` compiled in place)."""
from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Optional

__all__ = ["host_platform", "kernel_candidates"]

_HERE = Path(__file__).resolve().parent
_SYSTEMS = {"linux": ("linux", ".so"), "win32": ("windows", ".dll"), "darwin": ("darwin", ".dylib")}
_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def host_platform() -> Optional[str]:
    """FMI 3.0 platform tuple of the running Python (``x86_64-linux``, ``aarch64-darwin``, ...), or None for a
    system or processor the FMUs carry no kernel for."""
    system, machine = _SYSTEMS.get(sys.platform), _MACHINES.get(platform.machine().lower())
    return f"{machine}-{system[0]}" if system and machine else None


def kernel_candidates(folder: Path = _HERE) -> list[Path]:
    """Kernel files to try, best first: the one cross-built for this platform (``multibody-<platform><ext>``,
    what an FMU built with platforms carries, see fmi/platforms.py), then the extension that ``pip install``
    compiled in place (``multibody.cpython-*.so``, ``multibody*.pyd``). Other platforms' files are skipped."""
    host = host_platform()
    ext = _SYSTEMS.get(sys.platform, ("", ".so"))[1]
    own = [folder / f"multibody-{host}{ext}"] if host else []
    local = [p for p in sorted(folder.glob("multibody*"))
             if p.suffix in (".so", ".pyd", ".dylib") and not p.name.startswith("multibody-")]
    return [p for p in own if p.is_file()] + local
