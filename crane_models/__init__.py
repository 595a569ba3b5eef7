"""crane-cosim: physics-based crane models (Kane's equations with screws) for FMI co-simulation."""
from .core.kane import Body, MultibodySystem, Kinematics
from .models.knuckle_boom.crane import (KnuckleBoomController, KnuckleBoomCrane, KnuckleBoomInitialState, KnuckleBoomModel,
                           KnuckleBoomParameters)
from .integration.cosimulation import CoSimulation
from .integration.reference import simulate_reference

__version__ = "0.1.0"

__all__ = [
    "Body", "MultibodySystem", "Kinematics", "KnuckleBoomController", "KnuckleBoomCrane",
    "KnuckleBoomInitialState", "KnuckleBoomModel", "KnuckleBoomParameters", "CoSimulation",
    "simulate_reference", "__version__",
]
