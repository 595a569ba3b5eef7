"""FMU ``FlexibleCrane``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.flexible_crane.spec import flexible_crane_spec


class FlexibleCrane(Fmi2Slave):
    author = "crane-cosim"
    description = ("Crane on flexible supports with a flexible link (RFEM), Dahl/LuGre joint friction and "
                   "programmed motion of the end effector (Jarzebowska, Urbas & Augustynek 2019)")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, flexible_crane_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
