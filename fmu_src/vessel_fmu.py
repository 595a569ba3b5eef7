"""FMU ``Vessel``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.vessel_crane.spec import vessel_spec


class Vessel(Fmi2Slave):
    author = "crane-cosim"
    description = "Vessel on cubic roll, pitch and yaw springs under an external wrench at the crane base (Cibicik & Egeland)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, vessel_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
