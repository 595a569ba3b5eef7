"""When a time series is drawn as its min/max band instead of a line (the project's plot rule, :mod:`.plots`): a
vibration faster than the plot resolves -- many samples, or a mode near the sampling rate (aliasing) -- is drawn per
column of the time axis as the min/max of each column, without a line through it."""
from __future__ import annotations

import numpy as np

__all__ = ["envelope", "columns_for", "oscillates", "aliased", "band_columns", "enveloped", "COLUMNS", "DENSE"]

# A run of more than DENSE points is drawn per column of the time axis when it vibrates: the min/max of each
# column as a band, without a line through it -- a mean over a column of a mode near the sampling rate still
# zig-zags (aliasing: the flexible crane's ~40 Hz support modes sampled at 100 Hz). A column holds at least 10
# samples and is at least ~4 pixels wide (COLUMNS across the axis).
COLUMNS = 200
DENSE = 400
# A signal whose slope changes sign at more than this fraction of its samples is vibrating faster than the
# plot can show (a smooth crane motion over a run of 1000+ samples has a few dozen turning points).
OSCILLATING = 0.05
VISIBLE = 0.02  # a vibration narrower than 2 % of the axis is not worth a band
# A signal turning at more than this fraction of its samples has fewer than ~8 samples per period (a sine turns
# twice a period): the line through its samples draws a false, slower wave (the damped 16-element crane's 40 Hz
# support modes at 100 Hz turn at ~80 %); it is drawn as its band over columns of ALIAS_SAMPLES samples however
# few they are -- a column of 4 samples at 100 Hz spans 1.6 periods of the 40 Hz mode.
ALIASED = 0.25
ALIAS_SAMPLES = 4


def envelope(t: np.ndarray, y: np.ndarray, columns: int = COLUMNS) -> tuple:
    """Per column of equal width in time: ``(t_mid, y_min, y_max)`` (columns without samples left out)."""
    edges = np.linspace(t[0], t[-1], columns + 1)
    index = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, columns - 1)
    keep = np.bincount(index, minlength=columns) > 0
    y_min = np.full(columns, np.inf)
    y_max = np.full(columns, -np.inf)
    np.minimum.at(y_min, index, y)
    np.maximum.at(y_max, index, y)
    t_mid = 0.5 * (edges[:-1] + edges[1:])
    return t_mid[keep], y_min[keep], y_max[keep]


def columns_for(points: int, aliased: bool = False) -> int:
    """Envelope columns for a run of ``points`` samples; 0: draw every sample. ``aliased`` (:func:`aliased`):
    a run of fewer than :data:`DENSE` points too, in columns of :data:`ALIAS_SAMPLES` samples."""
    if points <= DENSE:
        return points // ALIAS_SAMPLES if aliased and points >= 5 * ALIAS_SAMPLES else 0
    return min(COLUMNS, points // 10)


def _turning(y: np.ndarray) -> float:
    """The fraction of the samples of ``y`` at which its slope changes sign."""
    slope = np.sign(np.diff(np.asarray(y, dtype=float)))
    slope = slope[slope != 0]
    return np.count_nonzero(slope[1:] != slope[:-1]) / len(y) if len(slope) > 2 else 0.0


def oscillates(y: np.ndarray) -> bool:
    """True when ``y`` turns (slope changes sign) at more than :data:`OSCILLATING` of its samples."""
    return _turning(y) > OSCILLATING


def aliased(y: np.ndarray) -> bool:
    """True when ``y`` turns at more than :data:`ALIASED` of its samples: a vibration with fewer than ~8 samples
    per period, which a line through the samples draws as a false, slower zig-zag."""
    return _turning(y) > ALIASED


def band_columns(t: np.ndarray, y: np.ndarray, scale: float | None = None) -> int:
    """The envelope columns to draw ``y`` with, 0 for a line: many samples (or an aliased vibration,
    :func:`aliased`) and a vibration the line cannot resolve, wide enough to see: in some column, min/max
    spread beyond the net change across the column (what a monotonic stretch spans) above :data:`VISIBLE` of
    ``scale`` (the axis' span; default the signal's range)."""
    columns = columns_for(len(t), aliased(y))
    if not columns or not oscillates(y):
        return 0
    t, y = np.asarray(t, float), np.asarray(y, float)
    cuts = np.searchsorted(t, np.linspace(t[0], t[-1], columns + 1)[1:-1])
    zigzag = max(float(np.ptp(c)) - abs(float(c[-1] - c[0])) for c in np.split(y, cuts) if len(c))
    return columns if zigzag > VISIBLE * (float(np.ptp(y)) if scale is None else scale) else 0


def enveloped(t: np.ndarray, y: np.ndarray, scale: float | None = None) -> bool:
    """Draw ``y`` as an envelope (:func:`band_columns`)."""
    return band_columns(t, y, scale) > 0
