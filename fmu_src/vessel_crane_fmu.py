"""FMU ``VesselCrane``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.vessel_crane.spec import vessel_crane_spec


class VesselCrane(Fmi2Slave):
    author = "crane-cosim"
    description = "Crane on a moving vessel with vessel-crane constraint forces by auxiliary generalized speeds (Cibicik & Egeland)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, vessel_crane_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
