"""FMU archives unpacked once per process, into one temporary folder that is removed when the process exits.

A host must unpack an FMU to load its binary. fmpy's ``extract`` makes a new temporary folder per call and
leaves it behind (about 2 MB per run of a crane-cosim FMU: a 200-case sweep or a demo filled ``$TMPDIR``
with hundreds of them). Here every FMU file, by content, is unpacked once per process into
``$TMPDIR/crane-cosim-fmus-XXXX/<sha256 prefix>/``; an FMU rebuilt at the same path is another folder.
The folder goes at exit (``atexit``). On POSIX each process also holds a lock on a file in its folder for
its whole life -- the system releases it when the process dies, SIGKILL included -- so the next process
that unpacks an FMU removes the folders of dead processes (their lock is free) and never those of live
ones. On Windows a loaded FMU binary cannot be deleted before the process ends, so a folder may stay there.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

__all__ = ["unpacked_fmu", "PREFIX"]

PREFIX = "crane-cosim-fmus-"
_LOCK_NAME = ".owner.lock"
_guard = threading.Lock()
_state: dict = {"folder": None, "pid": None, "lock": None, "unpacked": {}}


def unpacked_fmu(fmu_path) -> Path:
    """The folder holding ``fmu_path`` unpacked (an FMU that is a folder already is returned as it is); the
    same folder for every call of this process with the same file content."""
    path = Path(fmu_path)
    if path.is_dir():
        return path
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    with _guard:
        unpacked = _state["unpacked"]
        if digest not in unpacked:
            from fmpy import extract  # checks the archive's names (no absolute paths, no drive letters)

            target = _process_folder() / digest
            extract(str(path), str(target))
            unpacked[digest] = target
        return unpacked[digest]


def _process_folder() -> Path:
    """This process's folder, made on first use (a forked child keeps using its parent's while it runs)."""
    if _state["folder"] is None:
        folder = Path(tempfile.mkdtemp(prefix=PREFIX))
        _state.update(folder=folder, pid=os.getpid(), lock=_hold(folder))
        atexit.register(_remove, folder, os.getpid())
        _remove_abandoned(folder.parent, keep=folder)
    return _state["folder"]


def _hold(folder: Path):
    """Lock a file in ``folder`` for the life of this process (POSIX ``flock``); the open file, or None where
    there is no ``flock`` (Windows) or the file system refuses it. The file gets its final name only once
    locked, so no other process ever finds it unlocked while this one lives."""
    try:
        import fcntl
    except ImportError:
        return None
    draft = folder / (_LOCK_NAME + ".draft")
    handle = open(draft, "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        draft.unlink(missing_ok=True)
        return None
    draft.rename(folder / _LOCK_NAME)
    return handle


def _remove_abandoned(root: Path, keep: Path) -> None:
    """Remove the folders of processes that died without cleaning up (their lock file is free). Folders
    without a lock file (another platform, or a process starting) and folders of other users stay."""
    try:
        import fcntl
    except ImportError:
        return
    for folder in root.glob(PREFIX + "*"):
        if folder == keep:
            continue
        try:
            handle = open(folder / _LOCK_NAME, "r+")
        except OSError:
            continue
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: its process runs
                continue
            shutil.rmtree(folder, ignore_errors=True)


def _remove(folder: Path, pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child that exits: the folder is its parent's
        shutil.rmtree(folder, ignore_errors=True)
