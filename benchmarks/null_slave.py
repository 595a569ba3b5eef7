"""A do-nothing pythonfmu slave with the full KnuckleBoomCrane interface (parameters, inputs, outputs):
the floor of FMI + Python call cost and of pythonfmu's own per-instance memory. ``FMU_NAME`` names the FMU whose
interface it copies (benchmarks/bench_step_cost.py writes copies for the other FMUs)."""
from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real

from crane_models.models.registry import SPECS

FMU_NAME = "KnuckleBoomCrane"


class NullCrane(Fmi2Slave):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        spec = SPECS[FMU_NAME]()
        for v in spec.parameters:
            cls = {"real": Real, "integer": Integer, "boolean": Boolean}[v.kind]
            setattr(self, v.name, v.start)
            self.register_variable(cls(v.name, causality=Fmi2Causality.parameter, start=v.start,
                                       variability=Fmi2Variability.fixed))
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
