"""Where the command line finds FMUs: ``NAME`` (a crane-cosim FMU, built on demand into a folder) or a
path to any ``.fmu`` file; and folders it may write to."""
from __future__ import annotations

import difflib
import os
from pathlib import Path

__all__ = ["DEFAULT_FMU_DIRS", "default_fmu_dir", "resolve_fmu", "writable_dir", "CliError", "MissingTool"]

# One folder per FMI version: FMI 2 and FMI 3 FMUs have the same file names.
DEFAULT_FMU_DIRS = {2: Path("crane-cosim-out/fmus"), 3: Path("crane-cosim-out/fmus-fmi3")}


class CliError(ValueError):
    """A user error the command line reports as ``crane-cosim CMD: error: ...`` (exit code 2)."""


class MissingTool(CliError):
    """A program or library the command needs is not on this machine: reported in one line, exit code 2, without
    the usage (the command line was right; the machine lacks something)."""


def default_fmu_dir(fmi_version: int = 2) -> Path:
    return DEFAULT_FMU_DIRS[fmi_version]


def writable_dir(path: Path, option: str) -> Path:
    """Create ``path`` if needed and check that files can be written into it; a clear error otherwise."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{option} {path}: cannot create the folder ({exc.strerror or exc})") from None
    if not path.is_dir():
        raise CliError(f"{option} {path}: not a folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise CliError(f"{option} {path}: the folder is not writable")
    return path


def resolve_fmu(name_or_path: str, fmu_dir: Path | None = None, quiet: bool = False) -> Path:
    """A path to an existing ``.fmu`` file, or the name of a crane-cosim FMU: ``fmu_dir/NAME.fmu``, built
    there first if it is missing."""
    path = Path(name_or_path)
    if path.suffix.lower() == ".fmu" or path.exists():
        if not path.is_file():
            raise CliError(f"FMU file {path} not found")
        return path
    from ..fmi.registry import SPECS

    if name_or_path not in SPECS:
        close = difflib.get_close_matches(name_or_path, list(SPECS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CliError(f"{name_or_path!r} is neither an .fmu file nor an FMU of crane-cosim{hint}; "
                       f"known FMUs: {', '.join(SPECS)}")
    fmu_dir = Path(fmu_dir) if fmu_dir else default_fmu_dir()
    target = fmu_dir / f"{name_or_path}.fmu"
    if not target.is_file():
        from ..fmi.build import build_fmu

        writable_dir(fmu_dir, "--fmus")
        if not quiet:
            print(f"building {name_or_path} into {fmu_dir} ...", flush=True)
        target = build_fmu(name_or_path, fmu_dir)
    return target
