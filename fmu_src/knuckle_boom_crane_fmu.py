"""FMU ``KnuckleBoomCrane``: maps FMI variables onto ``crane_models`` (no physics here)."""
from pythonfmu import Fmi2Slave

from crane_models.fmi_adapter import SlaveAdapter
from crane_models.fmu_specs import knuckle_boom_spec


class KnuckleBoomCrane(Fmi2Slave):
    author = "crane-cosim"
    description = "Knuckle boom crane with two hydraulic cylinders and joint reaction forces (Cibicik & Egeland 2018)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.adapter = SlaveAdapter(self, knuckle_boom_spec())

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.adapter.setup_experiment(start_time)

    def exit_initialization_mode(self):
        self.adapter.exit_initialization_mode()

    def do_step(self, current_time, step_size):
        return self.adapter.do_step(current_time, step_size)

    def _get_fmu_state(self):
        return self.adapter.get_state()

    def _set_fmu_state(self, state):
        self.adapter.set_state(state)

    @staticmethod
    def _fmu_state_to_bytes(state):
        return SlaveAdapter.state_to_bytes(state)

    @staticmethod
    def _fmu_state_from_bytes(data):
        return SlaveAdapter.state_from_bytes(data)
