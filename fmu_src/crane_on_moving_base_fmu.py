"""FMU ``CraneOnMovingBase``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.vessel_crane.spec import crane_on_moving_base_spec


class CraneOnMovingBase(Fmi2Slave):
    author = "crane-cosim"
    description = "Three-link crane on a moving base: vessel motion in, interface wrench on the vessel out (Cibicik & Egeland)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, crane_on_moving_base_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
