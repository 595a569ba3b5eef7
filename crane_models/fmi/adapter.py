"""Glue between a pythonfmu slave and a crane model: variables, stepping, errors, saved states.

An FMU is described by an :class:`FmuSpec` (pure data: variables with units and ranges, and a function
that builds the model from parameter values). :class:`SlaveAdapter` registers those variables on a
``pythonfmu.Fmi2Slave`` and implements the FMI calls.

Errors: under the project's own FMI runtimes (``fmi/runtime``, FMI 2.0 and 3.0, which mark the slave with
``_fmi_runtime = "crane-cosim"``) a call with bad arguments or in a bad state raises :class:`FmiCallError`
and the runtime returns ``fmi2Error``/``fmi3Error`` with the message; a step the integrator could not
complete returns ``False`` (``fmi2Discard``/``fmi3Discard``), the state left at the start of the step. Under
pythonfmu's own binaries (an FMU built without a C compiler) an escaping exception would become ``fmiFatal`` and
destroy the instance, so there the same failures are only logged with status Error; the outputs keep their values.
"""
from __future__ import annotations

import ctypes
import functools
import math
from typing import Optional

import numpy as np

from ..integration.cosimulation import CoSimulation
from ..integration.integrators import StepCancelled, StepFailure
from ..integration.step_control import _rounding
from .builder_api import fmi_api
from .spec import STEP_BUDGET_PARAMETER, FmuSpec, check_parameters, check_range
from .derivatives import directional_derivative
from .initialization import InitialOutputs
from .input_ranges import InputRanges
from .kernel_steps import Handover, python_entry
from .saved_states import decode_or_refuse, identity, install_codecs, state_problem
from .value_table import (ValueTable, all_finite as _all_finite, finite as _finite, input_vector,
                          values_getter as _values_getter)

__all__ = ["SlaveAdapter", "FmiCallError", "RUNTIME_MARK"]

RUNTIME_MARK = "crane-cosim"  # value of ``slave._fmi_runtime`` set by the project's own FMI runtime


class FmiCallError(RuntimeError):
    """A call with bad arguments or in the wrong state: the runtime answers it with fmi2Error."""


class SlaveAdapter:
    """Implements the FMI calls of one slave instance on top of :class:`CoSimulation`."""

    def __init__(self, slave, spec: FmuSpec):
        api = fmi_api(slave)
        self.slave, self.spec = slave, spec
        self._status = api.Status
        self._set_state_call = "fmi3SetFMUState" if api.version == 3 else "fmi2SetFMUstate"  # for its messages
        self.values: dict = {}
        self.sim, self.error, self.start_time = None, None, 0.0  # Optional[CoSimulation], Optional[str], s
        self._outputs_valid, self._params_in_force = False, None  # (and Optional[dict])
        self._initial: Optional[InitialOutputs] = None  # in Initialization Mode: the outputs follow the inputs
        self._ranges = InputRanges([], {})  # the inputs' expected ranges: set when initialization ends
        C, V = api.Causality, api.Variability
        groups = ((spec.parameters, C.parameter, V.fixed), (spec.inputs, C.input, None), (spec.outputs, C.output, None))
        self._input_names = [v.name for v in spec.inputs]
        self._input_set = frozenset(self._input_names)  # _set asks for every value a host sets
        self._inputs_of = _values_getter(self._input_names)
        self._meta = {}
        for variables, causality, variability in groups:
            for v in variables:
                self._meta[v.name] = v
                self.values[v.name] = v.start
                kwargs = {"causality": causality, "description": v.description,
                          "variability": variability or (V.discrete if v.kind != "real" else V.continuous)}
                if api.units_on_variables and v.kind == "real" and v.unit:
                    kwargs["unit"] = v.unit
                if causality is C.output:
                    kwargs["getter"] = lambda n=v.name: self._get_output(n)
                else:
                    kwargs.update(start=v.start, getter=lambda n=v.name: self.values[n],
                                  setter=lambda x, n=v.name: self._set(n, x))
                slave.register_variable(api.kinds[v.kind](v.name, **kwargs))
        self._names = [v.name for v in spec.variables()]
        self._input_units = {name: self._meta[name].unit for name in self._input_names}  # the inputs' order
        self._kinds = [v.kind for v in spec.variables()]
        self._convert = [{"real": float, "integer": int, "boolean": bool}[v.kind] for v in spec.variables()]
        if api.version == 3:  # FMI 3.0 wants exactly one independent variable
            self.values["time"] = 0.0
            slave.register_variable(api.kinds["real"]("time", causality=C.independent, variability=V.continuous,
                                                      description="simulation time", unit="s",
                                                      getter=lambda: self.values["time"]))
            self._names.append("time")
            self._kinds.append("real")
            self._convert.append(float)
        if api.units_on_variables:
            slave.register_units([api.unit(u) for u in sorted({v.unit for v in spec.variables() if v.unit} | {"s"})])
        slave.default_experiment = api.DefaultExperiment(0.0, spec.stop_time, spec.step_size)
        # Value references are the registration order. pythonfmu's own get_/set_ methods walk its
        # variable objects one by one and raise on a wrong type (which becomes fmiFatal); these
        # replacements are list look-ups and never raise.
        self._output_vrs = {i for i, v in enumerate(spec.variables()) if v in spec.outputs}
        for kind in api.accessor_kinds:
            setattr(slave, f"get_{kind}", self.get_values)
            setattr(slave, f"set_{kind}", self.set_values)
        # The FMI calls themselves: instance attributes shadow the library's defaults, so a slave class
        # only needs ``do_step`` (abstract in pythonfmu) and the two class-level state (de)serializers.
        slave.setup_experiment = lambda start_time, *rest: self.setup_experiment(start_time)
        slave.enter_initialization_mode = self.enter_initialization_mode
        slave.exit_initialization_mode = self.exit_initialization_mode
        slave._get_fmu_state = self.get_state
        slave._set_fmu_state = self.set_state
        # pythonfmu's binaries call the (de)serializers on the slave's class, not the instance: they are
        # installed there, bound to this FMU's identity (the same for every instance of the class).
        install_codecs(type(slave), spec)
        slave._fmu_state_from_bytes = self.state_from_bytes  # the project's runtime calls it on the instance
        slave.get_directional_derivative = functools.partial(python_entry(directional_derivative), self)
        # The runtime's value table (fmi/value_table.py): get and set served in C, Python once per doStep; not
        # offered (pythonfmu's binary, a Python host): the per-variable path above.
        self._table: Optional[ValueTable] = None
        slave._fmi_attach_value_table = self.attach_value_table
        slave._fmi_refresh_outputs = self.refresh_outputs
        # Steps without Python (fmi/kernel_steps.py): the runtime takes them in C while the point is handed over.
        self.kernel_steps = Handover(slave, lambda message: slave.log(message, self._status.warning))
        slave.adapter = self

    # -- the value table ------------------------------------------------------------------------------
    def attach_value_table(self, real_address: int, int_address: int, n: int) -> bool:
        """Serve every variable from the runtime's arrays (``n`` values each, by value reference), which get the
        current values and become :attr:`values`; False (per-variable path) when ``n`` is not the slave's count."""
        if n != len(self._names) or not (real_address and int_address):
            return False
        table = ValueTable.at(real_address, int_address, self._names, self._kinds, self._input_names,
                              [v.name for v in self.spec.outputs])
        table.assign(self.values)
        self._table = self.values = table
        return True

    @python_entry
    def refresh_outputs(self) -> None:
        """The outputs for the current inputs into the table (the runtime's first get of an output after an input
        changed), in Initialization Mode for the start values too (fmi/initialization.py); nothing after an error."""
        if self._evaluable():
            self._refresh_outputs()

    # -- variable access (never raises) -----------------------------------------------------------
    def _set(self, name: str, value) -> None:
        self.values[name] = value
        if name in self._input_set:
            self._outputs_valid = False

    def get_values(self, vrs) -> list:
        try:
            if not self._outputs_valid and self._evaluable() and not self._output_vrs.isdisjoint(vrs):
                self._refresh_outputs()
            values, names, conv = self.values, self._names, self._convert
            return [conv[vr](values[names[vr]]) for vr in vrs]
        except Exception as exc:  # noqa: BLE001 -- a bad value reference from the host
            self.fail(f"get: {exc!r} (value references {list(vrs)!r})")
            return [0] * len(vrs)

    def set_values(self, vrs, values) -> None:
        try:
            names = self._names
            keys = [names[vr] for vr in vrs]  # all value references checked before any value is taken
            self.values.update(zip(keys, values))  # as _set for each, in one call
            if not self._input_set.isdisjoint(keys):
                self._outputs_valid = False
        except Exception as exc:  # noqa: BLE001
            self.fail(f"set: {exc!r} (value references {list(vrs)!r})")

    def _evaluable(self) -> bool:  # outputs can be evaluated: after initialization without an error, or in it
        return self.error is None and (self.sim is not None or self._initial is not None)

    def _get_output(self, name: str):
        if not self._outputs_valid and self._evaluable():
            self._refresh_outputs()
        return self.values[name]

    def log_error(self, message: str) -> None:
        self.slave.log(message, self._status.error)

    @property
    def under_own_runtime(self) -> bool:
        """True when the project's FMI runtime hosts this slave (it turns exceptions into fmi2Error)."""
        return getattr(self.slave, "_fmi_runtime", None) == RUNTIME_MARK

    def fail(self, message: str) -> None:
        """A call the host should not have made: fmi2Error under the project's runtime (the runtime logs
        the message), a logged error elsewhere (pythonfmu would make an exception fatal)."""
        if self.under_own_runtime:
            raise FmiCallError(message)
        self.log_error(message)

    # -- FMI calls --------------------------------------------------------------------------------
    def setup_experiment(self, start_time: float) -> None:
        self.start_time = float(start_time) if _finite(start_time) else 0.0

    def enter_initialization_mode(self) -> None:
        self._initial, self._outputs_valid = InitialOutputs(lambda p: self._simulation(p, self.start_time), lambda: {
            v.name: self.values[v.name] for v in self.spec.parameters}), False

    @python_entry
    def exit_initialization_mode(self) -> None:
        self._initial, self.error = None, None  # (a failure below sets the error)
        try:
            check_parameters(self.spec.parameters, self.values)
            params = {v.name: self.values[v.name] for v in self.spec.parameters}
            self._put_in_force(self._simulation(params, self.start_time), params)
            self._ranges = self.kernel_steps.ranges = InputRanges(self.spec.inputs, params, self.kernel_steps._warn)
            self._ranges.report(self.sim.inputs, self.start_time)
            if "time" in self.values:  # FMI 3.0's independent variable (FMI 2.0 has none)
                self.values["time"] = self.start_time
            self._refresh_outputs()
        except Exception as exc:  # noqa: BLE001 -- any failure must become an FMI error with its message
            self.sim = None
            self.error = f"initialization failed: {exc}"
            self.fail(self.error)

    def _simulation(self, params: dict, t0: float) -> CoSimulation:
        """A new co-simulation of the model that ``params`` build (inputs as they are now)."""
        model, x0, options = self.spec.build(params)
        budget = int(params.get(STEP_BUDGET_PARAMETER.name, STEP_BUDGET_PARAMETER.start))
        sim = CoSimulation(model, x0, t0=t0, inputs=self._input_vector(), max_internal_steps=budget, **options)
        # The project's FMI 2.0 runtime: fmi2CancelStep (another thread, no GIL) sets this int of the instance, which
        # the steppers read before every internal step; the runtime clears it before each doStep (none is lost).
        address = getattr(self.slave, "_fmi_cancel_flag_address", 0)
        if address:
            sim.stepper.cancel_flag = ctypes.c_int.from_address(address)
        # The FMI 3.0 runtime, early return allowed: (C function, instance) called before every internal step; it asks
        # the host's intermediateUpdate and may set that int.
        sim.stepper.cancel_poll = getattr(self.slave, "_fmi_step_poll", None)
        return sim

    def _put_in_force(self, sim: Optional[CoSimulation], params: Optional[dict]) -> None:
        """``sim`` and the parameters that built it in force; its reach (``CoSimulation.reach``) to the project's
        runtime, which then takes no longer step without Python (:meth:`_do_step` refuses one, naming the budget)."""
        self.sim, self._params_in_force = sim, params
        if getattr(self.slave, "_fmi_step_reach_address", 0):
            ctypes.c_double.from_address(self.slave._fmi_step_reach_address).value = sim.reach if sim else 0.0

    @python_entry
    def do_step(self, current_time: float, step_size: float) -> bool:
        with np.errstate(all="ignore"):  # non-finite results are detected and reported, not warned about
            return self._do_step(current_time, step_size)

    def _do_step(self, current_time: float, step_size: float) -> bool:
        """Bad arguments and calls in a bad state are the host's errors (:meth:`fail`); a step the
        integrator cannot complete is a discarded step, the state left at its start."""
        if self.error is not None:
            return self.fail(f"cannot step: {self.error}") or False
        if self.sim is None:
            return self.fail("cannot step: the FMU was not initialized") or False
        if not (_finite(step_size) and step_size > 0.0):
            return self.fail(f"communication step size = {step_size!r} s is not allowed; it must be finite "
                             "and > 0") or False
        if not _finite(current_time) or abs(current_time - self.sim.t) > _rounding(self.sim.t):
            return self.fail(f"currentCommunicationPoint = {current_time!r} s does not match the FMU time "
                             f"{self.sim.t!r} s within {_rounding(self.sim.t):.2g} s (restore a saved state to go "
                             "back in time)") or False
        t_end = float(current_time) + float(step_size)
        if not (math.isfinite(t_end) and t_end - current_time > _rounding(t_end)):
            return self.fail(f"communication step size = {step_size!r} s cannot advance the time from "
                             f"{current_time!r} s: the end would be {t_end!r} s, and times closer than "
                             f"{_rounding(t_end):.2g} s are the same there") or False
        if step_size > self.sim.reach:  # more internal steps than the budget allows: refused before any work
            return self.fail(self.sim.unreachable(step_size)) or False
        inputs = self._input_vector(self.fail)
        if inputs is None:
            return False
        self._ranges.report(inputs, current_time)
        try:
            self.sim.set_inputs(inputs)
            # The host's clock is the time: a host that computes its points as k h (or sums its steps)
            # differs from the FMU's sum of steps by rounding that would otherwise accumulate over hours.
            self.sim.t = float(current_time)
            self.sim.step(float(step_size))
            if "time" in self.values:
                self.values["time"] = self.sim.t
            if self._table is not None:  # published now: the host's gets are then served in C, no Python
                self._refresh_outputs_checked(inputs_in_force=True)
                return True
            # Outputs (reaction wrenches cost about as much as a model evaluation) are computed when a
            # host first reads one, from the integrator's last stage: a host that reads a few outputs,
            # or not every step, does not pay for all of them.
            self._outputs_valid = False
            return True
        except StepCancelled:  # the host asked for it (fmi2CancelStep, FMI 3.0 early return): the runtime reports it
            return False
        except (StepFailure, ValueError, ArithmeticError) as exc:  # the model or integrator gave up
            self.log_error(f"step from t = {current_time!r} s with h = {step_size!r} s failed: {exc}; "
                           "the state is left at the start of the step")
            return False
        except Exception as exc:  # noqa: BLE001 -- anything else is a defect, reported, never fatal
            self.fail(f"step from t = {current_time!r} s with h = {step_size!r} s failed unexpectedly: {exc!r}")
            return False

    # -- helpers ----------------------------------------------------------------------------------
    def _input_vector(self, report=None) -> Optional[np.ndarray]:
        """The inputs as a vector, or None after ``report`` (default: log) named a non-finite one."""
        return input_vector(self._table, self.values, self._inputs_of, self._input_units, report or self.log_error)

    def _refresh_outputs(self) -> None:
        with np.errstate(all="ignore"):
            self._refresh_outputs_checked()

    def _refresh_outputs_checked(self, inputs_in_force: bool = False) -> None:
        """The outputs for the current inputs into the values -- with the runtime's table: published, and
        ``slave._fmi_outputs_published`` set, both of which the runtime checks -- or, one not finite, kept."""
        table, sim = self._table, self.sim
        try:
            if not inputs_in_force:  # (after a step they are)
                inputs = self._input_vector()
                if inputs is None:
                    return
                if sim is None:  # Initialization Mode
                    sim = self._initial.simulation(inputs)
                    if sim is None:
                        return
                else:
                    sim.set_inputs(inputs)
            if table is not None:
                names, values = table.output_names, table.compute_outputs(sim)
            else:
                out = sim.outputs()
                names, values = out.keys(), out.values()
        except Exception as exc:  # noqa: BLE001
            self.log_error(f"outputs could not be evaluated: {exc}")
            return
        if not _all_finite(values):
            bad = [n for n, v in zip(names, values) if not math.isfinite(v)]
            if bad:
                self.log_error(f"outputs {', '.join(bad[:5])} are not finite for the current inputs; "
                               "the previous output values are kept")
                return
        if table is not None:
            table.publish()
            self.slave._fmi_outputs_published = True
        else:
            self.values.update(out)
            self._outputs_valid = True

    # -- saved FMU states ---------------------------------------------------------------------------
    # A state is plain data (see :mod:`state_format`): the variable values, the error, the start time,
    # the parameters in force and the co-simulation's state, tagged with this FMU's identity so that a
    # state of another FMU or build is refused before anything changes.

    def identity(self) -> dict:
        """What a saved state must match (see :func:`_identity`)."""
        return identity(type(self.slave), self.spec)

    @python_entry
    def get_state(self) -> dict:
        sim = self.sim
        # The cached derivative and the stepper's carried data (step size, Jacobian) are part of the
        # state: they make a replay bit-identical.
        core = sim.get_state() if sim is not None else None
        return {"fmu": self.identity(), "values": dict(self.values), "error": self.error,
                "start_time": self.start_time, "sim": core, "params": self._params_in_force}

    @python_entry
    def set_state(self, state: dict) -> Optional[float]:
        """Restore ``state`` entirely, or -- when it is not a state of this FMU or does not fit the model (every
        part is checked as data first: see :func:`saved_states.state_problem` and ``CoSimulation.state_problem``)
        -- nothing: the instance keeps its own state and the call fails with the reason. Returns the restored
        time, which the project's runtime takes as its own (lastSuccessfulTime, the next step's start)."""
        problem = state_problem(state, self.identity(), self.spec, set(self.values))
        if problem:
            return self.fail(f"{self._set_state_call}: {problem}; the FMU keeps its current state")
        sim, params = self.sim, self._params_in_force
        try:
            # converted before anything changes: a value the table cannot hold (an integer beyond 64 bits) is refused
            values = self._table.converted(state["values"]) if self._table is not None else dict(state["values"])
            core = state["sim"]
            if core is not None:
                if sim is None or state["params"] != params:
                    params = state["params"]
                    sim = self._simulation(params, 0.0)  # the state's parameters passed check_parameters
                problem = sim.state_problem(core)
                if problem is None:
                    backup = sim.get_state()
                    try:
                        sim.set_state(core)
                    except Exception:
                        sim.set_state(backup)
                        raise
        except Exception as exc:  # noqa: BLE001 -- a state that does not fit this model
            problem = f"the state cannot be applied ({exc})"
        if problem:
            return self.fail(f"{self._set_state_call}: {problem}; the FMU keeps its current state")
        self._put_in_force(sim if core is not None else None, params)
        if self._table is not None:
            self._table.write(values)
        else:
            self.values = values
        self.error, self.start_time = state["error"], state["start_time"]
        self._outputs_valid = False
        return self.sim.t if self.sim is not None else self.start_time

    def state_from_bytes(self, data: bytes) -> dict:
        """The state in ``data``; bytes that are not a state of this FMU: fmi2Error under the project's
        runtime, else the refusal that fmi2SetFMUstate then reports (see saved_states.decode_or_refuse)."""
        state = decode_or_refuse(data, self.identity())
        if set(state) == {"refused"} and self.under_own_runtime:
            raise FmiCallError(f"the bytes are not a state of this FMU: {state['refused']}")
        return state
