"""FMU ``WaveVessel``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi.adapter import SlaveAdapter
from crane_models.models.wave_vessel.spec import wave_vessel_spec


class WaveVessel(Fmi2Slave):
    author = "crane-cosim"
    description = "Vessel in waves from its RAO table: the motion of its reference point in the sea of the sea_* parameters"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.author, self.description = type(self).author, type(self).description  # pythonfmu3 resets them
        SlaveAdapter(self, wave_vessel_spec())  # registers the variables, installs the FMI calls

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)
