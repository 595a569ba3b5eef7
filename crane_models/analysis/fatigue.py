"""Load spectra and fatigue measures of an output time series (a joint force, a cylinder force, a hook load).

The papers compute the reaction forces "for structural integrity calculations and fatigue lifetime
prediction"; this module turns such a history into what a crane engineer classifies and designs with:

* rainflow cycles (ASTM E1049-85 (2017) section 5.4.4, counted by the ``rainflow`` package: half cycles of
  the residue kept as halves, reversals exact -- no binning of the signal);
* the range-mean (Markov) matrix of those cycles;
* the damage-equivalent load ``DEL_m = (sum n_i S_i^m / N_ref)^(1/m)`` for S-N slopes ``m`` (Basquin
  ``N(S) = N_ref (S_ref / S)^m``, Palmgren-Miner summation): the constant range that, applied ``N_ref``
  times, does the damage of the whole history;
* Miner's damage sum against an S-N curve;
* the load-spectrum factor ``Kp = sum (n_i/N_T)(P_i/P_max)^3`` of ISO 4301-1 / FEM 1.001 and its class
  Q1-Q4 (the mechanisms' L1-L4 share the boundaries).

Every result carries the unit of the series it came from (``Quantity``); Kp and damage are pure numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np
import rainflow

__all__ = ["Quantity", "Cycles", "RangeMeanMatrix", "rainflow_cycles", "range_mean_matrix",
           "damage_equivalent_load", "miner_damage", "spectrum_factor", "load_spectrum_factor",
           "spectrum_class", "SPECTRUM_CLASSES", "REFERENCE_CYCLES", "SN_SLOPES", "fatigue_summary"]

# The reference cycle count of a DEL: 2e6, the count at which EN 1993-1-9 states the detail categories
# (the fatigue strength Delta sigma_C of a steel detail), so a DEL reads directly against a detail category.
REFERENCE_CYCLES = 2.0e6
SN_SLOPES = (3, 4, 5)  # m = 3 welded steel (EN 1993-1-9), 5 its second branch; 4 in between (e.g. bolts, wire)

# Upper bounds of the load-spectrum classes for Kp = sum (n_i/N_T)(P_i/P_max)^3: ISO 4301-1:1986 and
# FEM 1.001 (3rd ed. 1998, booklet 2) state the nominal factors 0.125, 0.25, 0.5, 1 for Q1 (light) ... Q4
# (very heavy), a class holding the Kp above the previous nominal value up to its own. ISO 4301-1:2016
# and several crane calculators quote the same classes by the cube root K'p = Kp^(1/3): 0.50, 0.63, 0.80,
# 1.00 (0.5^3 = 0.125, 0.63^3 = 0.25, 0.8^3 = 0.512).
SPECTRUM_CLASSES = (("Q1", 0.125), ("Q2", 0.25), ("Q3", 0.5), ("Q4", 1.0))


class Quantity(NamedTuple):
    """A number with its unit (SI, as the FMU's variable declares it)."""

    value: float
    unit: str


@dataclass(frozen=True)
class Cycles:
    """Rainflow cycles of one series: ``counts`` is 1 for a full cycle and 0.5 for a half cycle."""

    ranges: np.ndarray
    means: np.ndarray
    counts: np.ndarray
    unit: str = ""

    @property
    def total(self) -> float:
        """N_T, the number of cycles (half cycles count one half)."""
        return float(self.counts.sum())


@dataclass(frozen=True)
class RangeMeanMatrix:
    """Cycle counts binned by range (rows) and mean (columns); edges in the series' unit."""

    counts: np.ndarray
    range_edges: np.ndarray
    mean_edges: np.ndarray
    unit: str = ""


def _finite_series(series: Sequence[float], name: str) -> np.ndarray:
    y = np.asarray(series, dtype=float).ravel()
    if y.size and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} has non-finite values (NaN or inf); a load history must be finite")
    return y


def rainflow_cycles(series: Sequence[float], unit: str = "") -> Cycles:
    """Rainflow cycles of ``series`` by ASTM E1049-85 section 5.4.4 (``rainflow.extract_cycles``).

    >>> c = rainflow_cycles([-2, 1, -3, 5, -1, 3, -4, 4, -2], "N")  # the standard's Fig. 6 history
    >>> sorted(zip(c.ranges.tolist(), c.counts.tolist()))[:3]
    [(3.0, 0.5), (4.0, 0.5), (4.0, 1.0)]
    """
    y = _finite_series(series, "series")
    rows = [(r, m, n) for r, m, n, _, _ in rainflow.extract_cycles(y)] if y.size > 1 else []
    data = np.array(rows, dtype=float).reshape(-1, 3)
    return Cycles(data[:, 0], data[:, 1], data[:, 2], unit)


def range_mean_matrix(cycles: Cycles, range_bins: int = 32, mean_bins: int = 32) -> RangeMeanMatrix:
    """The Markov matrix: counts of ``cycles`` in ``range_bins`` equal range classes from 0 to the largest
    range and ``mean_bins`` equal mean classes over the means' span (a cycle on an edge goes up)."""
    for name, n in (("range_bins", range_bins), ("mean_bins", mean_bins)):
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"{name} = {n!r} is not allowed; it must be an integer >= 1")
    top = float(cycles.ranges.max()) if cycles.ranges.size else 1.0
    lo, hi = (float(cycles.means.min()), float(cycles.means.max())) if cycles.means.size else (0.0, 1.0)
    if hi <= lo:  # all cycles about one mean: one class of width 1 unit around it
        lo, hi = lo - 0.5, hi + 0.5
    counts, r_edges, m_edges = np.histogram2d(cycles.ranges, cycles.means, bins=(range_bins, mean_bins),
                                              range=((0.0, top if top > 0 else 1.0), (lo, hi)),
                                              weights=cycles.counts)
    return RangeMeanMatrix(counts, r_edges, m_edges, cycles.unit)


def _check_slope(m: float) -> None:
    if not (isinstance(m, (int, float)) and math.isfinite(m) and m > 0):
        raise ValueError(f"S-N slope m = {m!r} is not allowed; it must be a finite number > 0")


def damage_equivalent_load(cycles: Cycles, m: float, reference_cycles: float = REFERENCE_CYCLES) -> Quantity:
    """``DEL_m = (sum_i n_i S_i^m / N_ref)^(1/m)`` in the unit of the series (Basquin S-N line of slope m,
    Palmgren-Miner sum). Zero for a history without cycles."""
    _check_slope(m)
    if not (math.isfinite(reference_cycles) and reference_cycles > 0):
        raise ValueError(f"reference_cycles = {reference_cycles!r} is not allowed; it must be finite and > 0")
    total = float(np.sum(cycles.counts * cycles.ranges ** m))
    return Quantity((total / reference_cycles) ** (1.0 / m), cycles.unit)


def miner_damage(cycles: Cycles, m: float, strength: Quantity, strength_cycles: float = REFERENCE_CYCLES) -> float:
    """Palmgren-Miner ``D = sum n_i / N(S_i)`` with ``N(S) = strength_cycles (strength / S)^m``;
    ``strength`` is the range the component survives ``strength_cycles`` times, in the series' unit."""
    _check_slope(m)
    if strength.unit != cycles.unit:
        raise ValueError(f"strength unit {strength.unit!r} differs from the load unit {cycles.unit!r}")
    if not (math.isfinite(strength.value) and strength.value > 0):
        raise ValueError(f"strength = {strength.value!r} {strength.unit} is not allowed; it must be finite and > 0")
    return float(np.sum(cycles.counts * (cycles.ranges / strength.value) ** m) / strength_cycles)


def spectrum_factor(loads: Sequence[float], counts: Sequence[float], exponent: float = 3.0) -> float:
    """``Kp = sum_i (n_i / N_T) (P_i / P_max)^3`` (ISO 4301-1, FEM 1.001) of loads ``P_i`` occurring
    ``n_i`` times; ``P_max`` is the largest |P_i|. 0 for no loads or all loads zero.

    >>> spectrum_factor([10.0, 5.0], [1, 3])  # (1/4) 1 + (3/4) (1/2)^3
    0.34375
    """
    p = np.abs(_finite_series(loads, "loads"))
    n = _finite_series(counts, "counts")
    if p.shape != n.shape:
        raise ValueError(f"loads ({p.size}) and counts ({n.size}) must have the same length")
    if np.any(n < 0):
        raise ValueError("counts must be >= 0")
    total, top = float(n.sum()), float(p.max()) if p.size else 0.0
    if total == 0.0 or top == 0.0:
        return 0.0
    return float(np.sum(n / total * (p / top) ** exponent))


def load_spectrum_factor(cycles: Cycles, measure: str = "range") -> float:
    """Kp of a rainflow-counted history: each cycle is one load event ``P_i``, measured as its range
    (``"range"``: what drives fatigue of a structural member) or its peak ``|mean| + range/2``
    (``"peak"``: the largest load the cycle reaches, as in the hoist-load spectrum of the standard)."""
    if measure == "range":
        loads = cycles.ranges
    elif measure == "peak":
        loads = np.abs(cycles.means) + 0.5 * cycles.ranges
    else:
        raise ValueError(f"measure = {measure!r} is not allowed; it must be 'range' or 'peak'")
    return spectrum_factor(loads, cycles.counts)


def spectrum_class(kp: float) -> str:
    """The load-spectrum class of ``kp``: Q1 (Kp <= 0.125), Q2 (<= 0.25), Q3 (<= 0.5), Q4 (<= 1)."""
    if not (math.isfinite(kp) and 0.0 <= kp <= 1.0):
        raise ValueError(f"Kp = {kp!r} is not allowed; a load-spectrum factor lies in [0, 1]")
    return next(name for name, bound in SPECTRUM_CLASSES if kp <= bound)


def fatigue_summary(series: Sequence[float], unit: str, slopes: Sequence[float] = SN_SLOPES,
                    reference_cycles: float = REFERENCE_CYCLES) -> dict:
    """DEL for each slope (``del_m3`` ...; unit of the series), Kp by ranges, its class and N_T."""
    cycles = rainflow_cycles(series, unit)
    out = {f"del_m{m:g}": damage_equivalent_load(cycles, m, reference_cycles).value for m in slopes}
    kp = load_spectrum_factor(cycles)
    out.update(kp=kp, kp_class=spectrum_class(kp), cycles=cycles.total)
    return out
