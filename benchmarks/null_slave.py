"""A do-nothing pythonfmu slave with the KnuckleBoomCrane interface: the floor of FMI + Python call cost."""
from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real

from crane_models.fmu_specs import knuckle_boom_spec


class NullCrane(Fmi2Slave):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        spec = knuckle_boom_spec()
        for v in spec.inputs:
            setattr(self, v.name, float(v.start))
            self.register_variable(Real(v.name, causality=Fmi2Causality.input, start=float(v.start),
                                        variability=Fmi2Variability.continuous))
        for v in spec.outputs:
            cls = Integer if v.kind == "integer" else Real
            setattr(self, v.name, v.start)
            self.register_variable(cls(v.name, causality=Fmi2Causality.output,
                                       variability=Fmi2Variability.discrete if v.kind == "integer"
                                       else Fmi2Variability.continuous))

    def do_step(self, current_time, step_size):
        return True
