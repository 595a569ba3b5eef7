"""RAO tables: a vessel's response amplitude operators -- the motion of its reference point O per metre of wave
amplitude, per wave frequency and heading, 6 degrees of freedom -- read from the CSV format of docs/sea.md, "RAO
tables", and interpolated at any frequency and heading (:meth:`RaoTable.at`).

The format, in short: ``#`` starts a comment, blank lines are skipped; the first other line is the header, the 14
column names below in any order; then one row per (frequency, heading). Units are SI: ``omega`` [rad/s] > 0,
``heading`` [rad] in [−2π, 2π] (the direction the waves travel towards, as ``sea_heading``: 0 following seas, π/2
waves travelling to port, π head seas), amplitudes >= 0 [m/m for surge, sway, heave; rad/m for roll, pitch, yaw],
phases [rad] in [−2π, 2π]. DOF j moves as ``|H_j| a cos(ω t + ε + φ_j)`` in a wave whose elevation at O is
``a cos(ω t + ε)``: the phase is the motion's lead on the wave crest at O. Translations are O's along the sea frame
(x forward, y to port, z up); rotations are the Euler angles of (53). Every frequency at every heading (a full grid).

Interpolation: linear in the complex value ``|H| e^{iφ}``, in heading on the circle (the last heading joined to the
first across 2π) and then in frequency, held at the end values outside the table's frequencies. A table whose
headings all lie in [0, π] is of a hull symmetric about its centre plane: the other side is its mirror image (sway,
roll and yaw change sign). One heading: its RAOs at every heading.

Errors are :class:`RaoError`, one line naming the table, the line and what is wrong.

>>> table = parse_rao_table(EXAMPLE, "example")
>>> float(abs(table.at(np.array([0.75]), np.array([math.pi]))[2, 0]))  # heave, between 0.5 and 1.0 rad/s
0.75
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["RaoTable", "RaoError", "read_rao_table", "parse_rao_table", "DOFS", "COLUMNS", "write_rao_table"]

DOFS = ("surge", "sway", "heave", "roll", "pitch", "yaw")
COLUMNS = ("omega", "heading") + tuple(f"{d}_{k}" for d in DOFS for k in ("amplitude", "phase"))
_MIRRORED = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])  # y -> -y: sway, roll and yaw change sign
_TWO_PI = 2.0 * math.pi

EXAMPLE = "omega,heading," + ",".join(COLUMNS[2:]) + "\n" + "\n".join(
    f"{w},{math.pi},0,0,0,0,{h},0,0,0,0,0,0,0" for w, h in ((0.5, 1.0), (1.0, 0.5)))


class RaoError(ValueError):
    """An RAO table that cannot be read: one line naming the table, the line and the fault."""


@dataclass(frozen=True)
class RaoTable:
    """RAOs on a grid: ``omega`` (ascending, rad/s), ``heading`` (ascending in [0, 2π), rad), ``values`` complex
    ``|H| e^{iφ}`` of shape (6, headings, frequencies) in :data:`DOFS` order; ``source``: where it was read."""

    omega: np.ndarray
    heading: np.ndarray
    values: np.ndarray
    source: str = ""

    def at(self, omega: np.ndarray, heading: np.ndarray) -> np.ndarray:
        """The complex RAOs (6, n) at the frequencies ``omega`` and headings ``heading`` (n each)."""
        omega, heading = np.atleast_1d(np.asarray(omega, float)), np.atleast_1d(np.asarray(heading, float))
        beta = np.mod(heading, _TWO_PI)
        grid = self.heading
        if grid.size == 1:
            by_heading = np.broadcast_to(self.values[:, :1, :], (6, omega.size, self.omega.size))
        else:
            ring = np.concatenate((grid, [grid[0] + _TWO_PI]))
            values = np.concatenate((self.values, self.values[:, :1, :]), axis=1)
            b = np.where(beta < ring[0], beta + _TWO_PI, beta)
            j = np.clip(np.searchsorted(ring, b, side="right") - 1, 0, grid.size - 1)
            w = ((b - ring[j]) / (ring[j + 1] - ring[j]))[None, :, None]
            by_heading = (1.0 - w) * values[:, j, :] + w * values[:, j + 1, :]
        out = np.empty((6, omega.size), dtype=complex)
        for i in range(omega.size):
            for d in range(6):
                row = by_heading[d, i]
                out[d, i] = np.interp(omega[i], self.omega, row.real) + 1j * np.interp(omega[i], self.omega,
                                                                                        row.imag)
        return out


def read_rao_table(path) -> RaoTable:
    """The table in the file ``path``; :class:`RaoError` when it cannot be read or is not a valid table."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RaoError(f"RAO table {path}: cannot be read ({exc.__class__.__name__}: "
                       f"{getattr(exc, 'strerror', None) or exc})") from None
    return parse_rao_table(text, str(path))


def _number(text: str, where: str, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RaoError(f"{where}, column {column}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise RaoError(f"{where}, column {column}: {text.strip()} is not finite")
    return value


def _rows(text: str, source: str) -> tuple:
    """``(header, [(line number, cells)])`` of the lines that are neither blank nor comments."""
    lines = [(n, line.split("#", 1)[0]) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line.strip()]
    if not lines:
        raise RaoError(f"RAO table {source}: no header line (expected the columns {','.join(COLUMNS)})")
    parsed = [(n, [c.strip() for c in next(csv.reader(io.StringIO(line)))]) for n, line in lines]
    return parsed[0], parsed[1:]


def _columns(header: tuple, source: str) -> dict:
    n, names = header
    where = f"RAO table {source}, line {n} (header)"
    seen = set()
    for name in names:
        if name not in COLUMNS:
            raise RaoError(f"{where}: unknown column {name!r} (the columns are {','.join(COLUMNS)})")
        if name in seen:
            raise RaoError(f"{where}: column {name} appears twice")
        seen.add(name)
    missing = [c for c in COLUMNS if c not in seen]
    if missing:
        raise RaoError(f"{where}: missing column{'s' * (len(missing) > 1)} {', '.join(missing)}")
    return {name: i for i, name in enumerate(names)}


def parse_rao_table(text: str, source: str = "<text>") -> RaoTable:
    """The table in ``text`` (the format of the module's docstring); ``source`` names it in errors."""
    header, rows = _rows(text, source)
    at = _columns(header, source)
    if not rows:
        raise RaoError(f"RAO table {source}: no rows after the header")
    grid, first = {}, {}
    for n, cells in rows:
        where = f"RAO table {source}, line {n}"
        if len(cells) != len(COLUMNS):
            raise RaoError(f"{where}: {len(cells)} values, the header has {len(COLUMNS)}")
        v = {name: _number(cells[i], where, name) for name, i in at.items()}
        if v["omega"] <= 0.0:
            raise RaoError(f"{where}, column omega: {v['omega']!r} rad/s must be > 0")
        for name in ("heading",) + tuple(f"{d}_phase" for d in DOFS):
            if abs(v[name]) > _TWO_PI:
                raise RaoError(f"{where}, column {name}: {v[name]!r} is outside [-2 pi, 2 pi] rad (angles are "
                               "in radians)")
        for d in DOFS:
            if v[f"{d}_amplitude"] < 0.0:
                raise RaoError(f"{where}, column {d}_amplitude: {v[f'{d}_amplitude']!r} must be >= 0")
        key = (v["omega"], float(np.mod(v["heading"], _TWO_PI)))
        if key in first:
            raise RaoError(f"{where}: omega = {v['omega']!r} rad/s at heading {v['heading']!r} rad repeats line "
                           f"{first[key]} (headings are the same modulo 2 pi)")
        first[key] = n
        grid[key] = [v[f"{d}_amplitude"] * complex(math.cos(v[f"{d}_phase"]), math.sin(v[f"{d}_phase"]))
                     for d in DOFS]
    omegas = sorted({w for w, _ in grid})
    given = sorted({b for _, b in grid})
    for b in given:
        for w in omegas:
            if (w, b) not in grid:
                raise RaoError(f"RAO table {source}: heading {b!r} rad has no row for omega = {w!r} rad/s (every "
                               "frequency at every heading)")
    if len(omegas) < 2:
        raise RaoError(f"RAO table {source}: {len(omegas)} frequency; at least 2 are needed")
    values = np.array([[grid[(w, b)] for w in omegas] for b in given]).transpose(2, 0, 1)
    headings = np.array(given)
    if len(given) > 1 and all(b <= math.pi for b in given):  # one side: the hull's mirror image
        mirror = [b for b in given if 0.0 < b < math.pi]
        headings = np.concatenate((headings, [_TWO_PI - b for b in mirror]))
        values = np.concatenate((values, values[:, [given.index(b) for b in mirror], :] * _MIRRORED[:, None, None]),
                                axis=1)
        order = np.argsort(headings)
        headings, values = headings[order], values[:, order, :]
    return RaoTable(np.array(omegas), headings, values, source)


def write_rao_table(path, omega, heading, values, comment: str = "") -> None:
    """Write RAOs (complex, (6, headings, frequencies)) on the grid ``omega`` × ``heading`` in the format above."""
    lines = [f"# {line}" for line in comment.splitlines()] + [",".join(COLUMNS)]
    for j, b in enumerate(heading):
        for i, w in enumerate(omega):
            cells = [repr(float(w)), repr(float(b))]
            for d in range(6):
                h = complex(values[d, j, i])
                cells += [repr(abs(h)), repr(math.atan2(h.imag, h.real))]
            lines.append(",".join(cells))
    Path(path).write_text("\n".join(lines) + "\n")
