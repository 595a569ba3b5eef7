"""Where the command line finds FMUs: ``NAME`` (a crane-cosim FMU, built on demand into a folder) or a
path to any ``.fmu`` file; and the folders and files it may write to, checked before any work starts."""
from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path

__all__ = ["DEFAULT_FMU_DIRS", "default_fmu_dir", "resolve_fmu", "writable_dir", "writable_file", "CliError",
           "MissingTool"]

# One folder per FMI version: FMI 2 and FMI 3 FMUs have the same file names.
DEFAULT_FMU_DIRS = {2: Path("crane-cosim-out/fmus"), 3: Path("crane-cosim-out/fmus-fmi3")}


class CliError(ValueError):
    """A user error the command line reports as ``crane-cosim CMD: error: ...`` (exit code 2)."""


class MissingTool(CliError):
    """A program or library the command needs is not on this machine: reported in one line, exit code 2, without
    the usage (the command line was right; the machine lacks something)."""


def default_fmu_dir(fmi_version: int = 2) -> Path:
    return DEFAULT_FMU_DIRS[fmi_version]


def _cannot_create_in(folder: Path) -> str | None:
    """Why no file can be created in the existing ``folder``, or None. Tried with a temporary file, removed at
    once: ``os.access`` says yes to root everywhere, also on /sys, /proc or a read-only mount."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".crane-cosim-probe-")
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(handle)
    os.unlink(name)
    return None


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _unwritable_dir(path: Path) -> str | None:
    """Why files cannot be written into the folder ``path`` (existing, or to be created), or None."""
    if path.exists():
        if not path.is_dir():
            return f"{path} is not a folder"
        why = _cannot_create_in(path)
        return f"cannot write into {path} ({why})" if why else None
    base = _existing_ancestor(path.absolute())
    if not base.is_dir():
        return f"cannot create the folder {path} ({base} is a file)"
    why = _cannot_create_in(base)
    return f"cannot create the folder {path} ({why} in {base})" if why else None


def writable_dir(path: Path, option: str, create: bool = True) -> Path:
    """Check that files can be written into the folder ``path`` (existing, or to be created), then create it
    (``create``); a clear error naming ``option`` otherwise, before anything is written."""
    path = Path(path)
    why = _unwritable_dir(path)
    if why:
        raise CliError(f"{option} {path}: {why}")
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"{option} {path}: cannot create the folder ({exc.strerror or exc})") from None
    return path


def writable_file(path: Path, option: str) -> Path:
    """Check, without writing anything, that the file ``path`` can be written when the run is done: not a
    folder, not a read-only file, its folder writable or creatable. The folder is created when the file is
    written (:func:`app.results.write_csv`)."""
    path = Path(path)
    if path.is_dir():
        raise CliError(f"{option} {path}: is a folder; give a file name (e.g. {path / 'result.csv'})")
    if path.exists() and not os.access(path, os.W_OK):
        raise CliError(f"{option} {path}: the file is not writable")
    why = _unwritable_dir(path.parent)
    if why:
        raise CliError(f"{option} {path}: {why}")
    return path


def resolve_fmu(name_or_path: str, fmu_dir: Path | None = None, quiet: bool = False) -> Path:
    """A path to an existing ``.fmu`` file, or the name of a crane-cosim FMU: ``fmu_dir/NAME.fmu``, built
    there first if it is missing."""
    path = Path(name_or_path)
    if path.suffix.lower() == ".fmu" or path.exists():
        if not path.is_file():
            raise CliError(f"FMU file {path} not found")
        return path
    from ..models.registry import SPECS

    if name_or_path not in SPECS:
        close = difflib.get_close_matches(name_or_path, list(SPECS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CliError(f"{name_or_path!r} is neither an .fmu file nor an FMU of crane-cosim{hint}; "
                       f"known FMUs: {', '.join(SPECS)}")
    fmu_dir = Path(fmu_dir) if fmu_dir else default_fmu_dir()
    target = fmu_dir / f"{name_or_path}.fmu"
    if not target.is_file():
        from ..models.build import build_fmu

        writable_dir(fmu_dir, "--fmus")
        if not quiet:
            print(f"building {name_or_path} into {fmu_dir} ...", flush=True)
        target = build_fmu(name_or_path, fmu_dir)
    return target
