"""The sea: wave spectra (:mod:`.spectra`), a sea state and its wave components (:mod:`.state`,
:mod:`.components`), linear (Airy) wave kinematics at any point (:mod:`.kinematics`). Numpy only: every FMU that
needs the sea carries it, and the same parameters and seed give the same components in each of them."""
from .components import WaveComponents, wave_components
from .kinematics import elevation, particle_kinematics, wave_numbers
from .spectra import SPECTRA, jonswap, pierson_moskowitz, spectrum
from .state import SeaState, REGULAR, JONSWAP, PIERSON_MOSKOWITZ

__all__ = ["SeaState", "WaveComponents", "wave_components", "elevation", "particle_kinematics", "wave_numbers",
           "jonswap", "pierson_moskowitz", "spectrum", "SPECTRA", "REGULAR", "JONSWAP", "PIERSON_MOSKOWITZ"]
