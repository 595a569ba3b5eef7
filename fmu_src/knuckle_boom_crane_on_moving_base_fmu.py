"""FMU ``KnuckleBoomCraneOnMovingBase``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.knuckle_boom.spec import knuckle_boom_on_moving_base_spec


class KnuckleBoomCraneOnMovingBase(Fmi2Slave):
    author = "crane-cosim"
    description = ("Knuckle boom crane (Cibicik & Egeland 2018) on a moving base: base motion in, the wrench on the "
                   "vessel out (Cibicik & Egeland, moving base)")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, knuckle_boom_on_moving_base_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
