"""Wave spectra of a sea state, as DNV-RP-C205 (2021) section 3.5.5 writes them, in angular frequency ω [rad/s]
with spectral density S(ω) [m² s/rad]: the Pierson-Moskowitz spectrum (3.5.5.1) and JONSWAP (3.5.5.2) with the
normalizing factor A_γ = 1 − 0.287 ln γ and the spectral width σ = 0.07 below and 0.09 above the peak. Both are
given by the significant wave height Hs and the peak period Tp; their zeroth moment is Hs²/16 (exactly for
Pierson-Moskowitz, to within 1 % for JONSWAP with 1 <= γ <= 7, the range DNV gives A_γ for)."""
from __future__ import annotations

import numpy as np

__all__ = ["pierson_moskowitz", "jonswap", "spectrum", "SPECTRA"]


def pierson_moskowitz(omega: np.ndarray, hs: float, tp: float) -> np.ndarray:
    """S_PM(ω) = 5/16 Hs² ωp⁴ ω⁻⁵ exp(−5/4 (ω/ωp)⁻⁴), ωp = 2π/Tp (DNV-RP-C205 3.5.5.1); 0 at ω <= 0."""
    w = np.asarray(omega, dtype=float)
    wp = 2.0 * np.pi / tp
    out = np.zeros_like(w)
    pos = w > 0.0
    r = wp / w[pos]
    out[pos] = 5.0 / 16.0 * hs * hs * r ** 4 / w[pos] * np.exp(-1.25 * r ** 4)
    return out


def jonswap(omega: np.ndarray, hs: float, tp: float, gamma: float) -> np.ndarray:
    """S_J(ω) = A_γ S_PM(ω) γ^exp(−½ ((ω − ωp)/(σ ωp))²), A_γ = 1 − 0.287 ln γ, σ = 0.07 for ω <= ωp, 0.09 above
    (DNV-RP-C205 3.5.5.2); γ = 1 is Pierson-Moskowitz."""
    w = np.asarray(omega, dtype=float)
    wp = 2.0 * np.pi / tp
    sigma = np.where(w <= wp, 0.07, 0.09)
    peak = gamma ** np.exp(-0.5 * ((w - wp) / (sigma * wp)) ** 2)
    return (1.0 - 0.287 * np.log(gamma)) * pierson_moskowitz(w, hs, tp) * peak


# sea_spectrum codes of the irregular seas (state.REGULAR, 0, is one wave, no spectrum)
SPECTRA = {1: "JONSWAP", 2: "Pierson-Moskowitz"}


def spectrum(kind: int, omega: np.ndarray, hs: float, tp: float, gamma: float) -> np.ndarray:
    """The spectrum ``kind`` (:data:`SPECTRA`) at ``omega``."""
    if kind == 1:
        return jonswap(omega, hs, tp, gamma)
    if kind == 2:
        return pierson_moskowitz(omega, hs, tp)
    raise ValueError(f"sea_spectrum = {kind} has no spectrum: allowed 1 (JONSWAP) or 2 (Pierson-Moskowitz)")
