"""What Ecos' command-line host hides, brought back: the FMU's own messages and whether the run produced anything.

Measured with ecos 0.7 (ecospy 0.7.2): when ``fmi2Instantiate`` returns NULL (the runtime found no usable
Python, the slave module does not import) or ``fmi2DoStep`` returns ``fmi2Error``, ``ecos simulate`` carries on
(calling ``fmi2DoStep`` again at every step), exits 0 and writes a CSV -- of zeros after a NULL instance. The
FMU's messages reach the log only at ``-l debug``, on stdout, as
``[time] [ecos] [debug] [FMU path] fmi2Error <message>`` (FMI 3.0: ``[instance] Error <message>``), the message
ending with a newline of its own. ``crane-cosim ecos`` therefore runs ecos at debug level, shows ecos' own
lines of level info and above as ecos would, the FMU's warnings and errors on stderr (``FMU [Error] ...``, as
``crane-cosim run`` does), and judges the result (:func:`verdict`).
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator

__all__ = ["records", "relay", "outputs_stayed_at_start", "verdict"]

_RECORD = re.compile(r"\[[^\]]*\] \[ecos\] \[(?P<level>\w+)\] (?P<text>.*)", re.S)
# The FMU's message inside a record: "[source] fmi2Error text" (FMI 2.0) or "[source] Error text" (FMI 3.0).
_FMU_MESSAGE = re.compile(r"\[.*?\] (?:fmi[23])?(?P<status>OK|Warning|Discard|Error|Fatal|Pending) (?P<msg>.*)",
                          re.S)
_QUIET_LEVELS = ("trace", "debug")  # what ecos shows only when asked: crane-cosim asks for it, and filters
FAILED = ("Error", "Fatal")  # FMU statuses after which the run is no result


def records(lines: Iterable[str]) -> Iterator[tuple[str | None, str]]:
    """Ecos' log as ``(level, text)`` records: a line that does not start a record (the rest of a multi-line FMU
    message) belongs to the one before; a line outside any record (fmi4c's own notes) is ``(None, line)``."""
    level, text = None, None
    for line in lines:
        start = _RECORD.match(line)
        if start is None and text is not None:
            text += line
            continue
        if text is not None:
            yield level, text
            level, text = None, None
        if start is None:
            yield None, line
        else:
            level, text = start["level"], start.group(0)
    if text is not None:
        yield level, text


def relay(lines: Iterable[str], out: IO[str] | None = None, err: IO[str] | None = None) -> list[str]:
    """Show ecos' log as ecos would at its default level, plus the FMU's warnings and errors; return the FMU's
    error messages (status Error or Fatal), each on one line."""
    out = out or sys.stdout
    err = err or sys.stderr
    failures = []
    for level, text in records(lines):
        message = _FMU_MESSAGE.match(_RECORD.match(text)["text"]) if level else None
        if message:
            status, msg = message["status"], " ".join(message["msg"].split())
            if status != "OK":
                print(f"FMU [{status}] {msg}", file=err, flush=True)
            if status in FAILED:
                failures.append(msg)
        elif level not in _QUIET_LEVELS:
            out.write(text)
            out.flush()
    return failures


def _csv_name(column: str) -> str:
    """``instance::joint1_force_z[REAL]`` -> ``joint1_force_z`` (ecos' CSV header)."""
    column = column.strip()
    column = column.split("::", 1)[-1]
    return column[:column.rindex("[")] if column.endswith("]") and "[" in column else column


def outputs_stayed_at_start(csv_path: Path, outputs: Iterable[str]) -> bool:
    """True when every output column of ecos' CSV holds, in every row, the text of its first row."""
    wanted = set(outputs)
    with open(csv_path, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        columns = [i for i, name in enumerate(header) if _csv_name(name) in wanted]
        first = None
        for row in reader:
            values = [row[i].strip() for i in columns if i < len(row)]
            if first is None:
                first = values
            elif values != first:
                return False
    return True


def verdict(fmu: Path, csv_path: Path, outputs: Iterable[str], failures: list[str]) -> str | None:
    """One line refusing ecos' result, or None to accept it. Refused when the FMU reported an error (ecos exits 0
    regardless); when, in addition, every output stayed at its start value -- the CSV of an instance that was
    never made -- the CSV is removed, so that nothing passes it off as a result."""
    if not failures:
        return None
    if not csv_path.is_file() or outputs_stayed_at_start(csv_path, outputs):
        csv_path.unlink(missing_ok=True)
        return (f"{fmu.name} gave no result in ecos: every output stayed at its start value and the FMU reported: "
                f"{failures[0]} (ecos exits 0 regardless; its CSV was removed)")
    return (f"{fmu.name} reported an error in ecos, which carries on regardless: {failures[0]} "
            f"({csv_path} holds what ecos wrote, not a valid result)")
