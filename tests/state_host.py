"""A careless or hostile host of the crane FMUs, run in a child process by tests/test_state_validation.py and
tests/test_state_fuzz.py (a crash there must not take pytest with it): FMI 2.0 and 3.0 through fmpy with one API,
and saved states decoded, changed in content and re-encoded with a correct checksum, as anyone can.

Usage: python state_host.py CASE FMU_PATH FMI_VERSION JSON_LIST_OF_ARGUMENTS; prints one JSON line
``RESULT {...}``; exit 0."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException

from crane_models.fmi import saved_states  # noqa: F401 -- registers the model objects a state may hold
from crane_models.fmi.state_format import MAGIC, _from_tree, encode_state

OK, DISCARD, ERROR = 0, 2, 3


class Host:
    """One instance of an FMU, FMI 2.0 or 3.0, whose calls return the FMI status instead of raising."""

    def __init__(self, path: Path, version: int, start_time: float = 0.0, unzip: str | None = None):
        self.md = read_model_description(str(path))
        self.version = version
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.types = {v.name: v.type for v in self.md.modelVariables}
        self.outputs = [v.name for v in self.md.modelVariables if v.causality == "output"]
        self.inputs = [v.name for v in self.md.modelVariables if v.causality == "input"]
        self.start = {v.name: v.start for v in self.md.modelVariables if v.start is not None}
        self.unzip = unzip or extract(str(path))
        self.t = start_time
        self.messages: list = []
        if version == 3:
            from fmpy.fmi3 import FMU3Slave

            self.fmu = FMU3Slave(guid=self.md.instantiationToken, unzipDirectory=self.unzip,
                                 modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName="host",
                                 fmiCallLogger=None)
            self.fmu.instantiate(loggingOn=True, logMessage=self._log3)
            self.fmu.enterInitializationMode(startTime=start_time)
        else:
            from crane_models.fmi.instance import FmuInstance

            self.instance = FmuInstance(path, "host", unzip=self.unzip, logger=lambda s, c, m: self.messages.append(m))
            self.fmu = self.instance.fmu
            self.fmu.setupExperiment(startTime=start_time)
            self.fmu.enterInitializationMode()

    def _log3(self, env, status, category, message):
        self.messages.append((message or b"").decode("utf-8", "replace"))

    def call(self, fn, *args):
        """``(status, result)`` of an FMI call."""
        try:
            return OK, fn(*args)
        except FMICallException as exc:
            return int(exc.status), None

    def set(self, name: str, value) -> int:
        kind, vr = self.types[name], [self.vr[name]]
        if self.version == 3:
            fn = {"Float64": self.fmu.setFloat64, "Int32": self.fmu.setInt32, "Boolean": self.fmu.setBoolean}[kind]
        else:
            fn = {"Real": self.fmu.setReal, "Integer": self.fmu.setInteger, "Boolean": self.fmu.setBoolean}[kind]
        return self.call(fn, vr, [value])[0]

    def exit_init(self) -> int:
        return self.call(self.fmu.exitInitializationMode)[0]

    def get_outputs(self) -> list:
        vrs = [self.vr[n] for n in self.outputs if self.types[n] in ("Real", "Float64")]
        get = self.fmu.getFloat64 if self.version == 3 else self.fmu.getReal
        return list(get(vrs))

    def step(self, h: float, t: float | None = None) -> int:
        """doStep from ``t`` (default: the host's clock, which advances on OK)."""
        t = self.t if t is None else t
        if self.version == 3:  # the raw call: fmpy raises on Error and loses lastSuccessfulTime
            import ctypes

            flags = [ctypes.c_bool() for _ in range(3)]
            last = ctypes.c_double(math.nan)
            status = self.fmu.dll.fmi3DoStep(self.fmu.component, ctypes.c_double(t), ctypes.c_double(h),
                                             ctypes.c_bool(True), *(ctypes.byref(f) for f in flags),
                                             ctypes.byref(last))
            self.last_successful = last.value
        else:
            status, _ = self.call(self.fmu.doStep, t, h)
        if status == OK:
            self.t = t + h
        return status

    def last_successful_time(self) -> float:
        if self.version == 3:
            return self.last_successful
        import ctypes

        from fmpy.fmi2 import fmi2Real

        value = fmi2Real()
        self.fmu.fmi2GetRealStatus(self.fmu.component, 2, ctypes.byref(value))  # fmi2LastSuccessfulTime
        return value.value

    def save(self) -> bytes:
        if self.version == 3:
            return bytes(self.fmu.serializeFMUState(self.fmu.getFMUState()))
        return bytes(self.fmu.serializeFMUstate(self.fmu.getFMUstate()))

    def load(self, blob: bytes) -> int:
        """Deserialize and set; the status of the first call that is not OK."""
        if self.version == 3:
            status, state = self.call(self.fmu.deserializeFMUState, blob)
            return status if status else self.call(self.fmu.setFMUState, state)[0]
        status, state = self.call(self.fmu.deSerializeFMUstate, blob)
        return status if status else self.call(self.fmu.setFMUstate, state)[0]


def decode(blob: bytes) -> tuple:
    """``(state, identity)`` of genuine state bytes, without the identity check: what anyone can read."""
    doc = json.loads(blob.split(b"\n", 3)[3])
    return _from_tree(doc["state"]), doc["fmu"]


def encode(state, identity: dict) -> bytes:
    """Bytes of ``state`` with a correct checksum (the checksum is integrity, not authenticity)."""
    blob = encode_state(state, identity)
    assert blob.startswith(MAGIC)
    return blob


def with_sim_item(state: dict, index: int, value) -> dict:
    """``state`` with item ``index`` of its co-simulation tuple (t, x, inputs, stepper, k, aux) replaced."""
    sim = list(state["sim"])
    sim[index] = value
    return dict(state, sim=tuple(sim))


def running_host(path: Path, version: int, steps: int = 2, start_time: float = 0.0) -> Host:
    host = Host(path, version, start_time)
    assert host.exit_init() == OK, host.messages[-3:]
    for _ in range(steps):
        assert host.step(0.01) == OK, host.messages[-3:]
    return host


def finite(values) -> bool:
    return all(math.isfinite(v) for v in values)


# ---- cases --------------------------------------------------------------------------------------------------
def case_crafted_k(path: Path, version: int, shape: str) -> dict:
    """The issue's crafted state: a cached derivative of 1 element (or a 1x1 array), correct checksum."""
    host = running_host(path, version)
    state, ident = decode(host.save())
    bad = np.zeros(1) if shape == "1" else np.zeros((1, 1))
    load = host.load(encode(with_sim_item(state, 4, bad), ident))
    step = host.step(0.01)
    return {"load": load, "step": step, "finite": finite(host.get_outputs()),
            "message": next((m for m in host.messages if "cached derivative" in m), "")}


def case_restored_time(path: Path, version: int) -> dict:
    """A state saved at 0.03 s, two more steps, the state restored: lastSuccessfulTime (FMI 2.0 asked directly;
    FMI 3.0 reports it from a doStep, here one with a refused step size), then a step from the restored time; and
    the wording of a refused state's message (the standard's own call name)."""
    host = running_host(path, version, steps=3)
    blob = host.save()
    for _ in range(2):
        assert host.step(0.01) == OK
    load = host.load(blob)
    direct = host.last_successful_time() if version == 2 else None
    refused = host.step(-0.01, 0.03)
    after_refused = host.last_successful_time()
    host.t = 0.03
    step = host.step(0.01)
    state, ident = decode(blob)
    host.load(encode(with_sim_item(state, 4, np.zeros(1)), ident))
    return {"load": load, "direct": direct, "refused": refused, "after_refused": after_refused, "step": step,
            "after_step": host.last_successful_time(),
            "message": next((m for m in host.messages if "cached derivative" in m), "")}


def case_parameter(path: Path, version: int, name: str, value: str, variable: str | None = None) -> dict:
    """A state whose parameters (in force) carry ``name = value`` (a Python literal), e.g. max_step = 1e-300, and, with
    ``variable`` (a literal too), whose variable values carry ``name = variable``."""
    host = running_host(path, version)
    state, ident = decode(host.save())
    params = dict(state["params"])
    literal = lambda text: eval(text, {"__builtins__": {}}, {"inf": math.inf, "nan": math.nan})  # noqa: E731,S307
    params[name] = literal(value)
    if name == "max_step":
        params["max_internal_steps"] = 2 ** 31 - 1
    if variable is not None:
        state = dict(state, values=dict(state["values"], **{name: literal(variable)}))
    load = host.load(encode(dict(state, params=params), ident))
    step = host.step(0.01)
    return {"load": load, "step": step, "message": next((m for m in host.messages if name in m), "")}


def case_overflow(path: Path, version: int, names: str) -> dict:
    """Each input of ``names`` (comma-separated, or 'all' Real inputs) set to 1e308 for one step, then put back:
    the statuses of that step and of the three after it, and whether the outputs then match an undisturbed run."""
    reference = running_host(path, version)
    ref_outputs = []
    for _ in range(4):
        reference.step(0.01)
        ref_outputs.append(reference.get_outputs())
    wanted = [n for n in reference.inputs if reference.types[n] in ("Real", "Float64")] if names == "all" \
        else names.split(",")
    out = {}
    for name in wanted:
        host = running_host(path, version)
        host.set(name, 1e308)
        first = host.step(0.01)
        host.set(name, float(host.start.get(name, 0.0)))
        after = [host.step(0.01) for _ in range(3)]
        outputs = host.get_outputs()
        deviation = None
        if first != OK and finite(outputs):  # the discarded step left the state as it was: 2 + 3 steps, as ref[2]
            deviation = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(outputs, ref_outputs[2]))
        out[name] = {"first": first, "after": after, "finite": finite(outputs), "deviation": deviation}
    return out


def case_start_time(path: Path, version: int, start: float, steps: int, h: float, offsets: dict) -> dict:
    """``steps`` steps of ``h`` from ``start``, the host's points start + k h, with the inputs held at their start
    values plus ``offsets``: the outputs at each step."""
    host = Host(path, version, start)
    assert host.exit_init() == OK, host.messages[-3:]
    for name, offset in offsets.items():
        host.set(name, float(host.start[name]) + offset)
    rows, statuses = [host.get_outputs()], []
    for k in range(steps):
        statuses.append(host.step(h, start + k * h))
        rows.append(host.get_outputs())
    return {"statuses": sorted(set(statuses)), "outputs": host.outputs, "rows": rows,
            "names": [n for n in host.outputs if host.types[n] in ("Real", "Float64")]}


def case_absurd_steps(path: Path, version: int) -> dict:
    """doStep calls a careless host makes: the status of each and lastSuccessfulTime after it."""
    host = running_host(path, version, steps=1)
    out = {}
    for label, t, h in (("huge", 1e308, 1e308), ("overflowing end", 0.01, 1.7e308), ("ahead", 5.0, 0.01),
                        ("behind", 0.0, 0.01), ("off by 1e-9 s", 0.01 + 1e-9, 0.01), ("zero", 0.01, 0.0),
                        ("negative", 0.01, -0.01), ("nan step", 0.01, math.nan), ("inf step", 0.01, math.inf),
                        ("nan time", math.nan, 0.01), ("below the spacing at t", 0.01, 1e-20)):
        status = host.step(h, t)
        out[label] = {"status": status, "last": host.last_successful_time()}
    out["then"] = {"status": host.step(0.01), "last": host.last_successful_time(), "t": host.t}
    return out


# ---- the state-content fuzzer --------------------------------------------------------------------------------
def _places(node, path=()):
    """Every place of a decoded state tree: ``(path, value)``; model objects (NativeKinematics) are entered
    through their attributes."""
    yield path, node
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, (list, tuple)):
        items = enumerate(node)
    elif hasattr(node, "__dict__") and not isinstance(node, type):
        items = vars(node).items()
    else:
        return
    for key, value in list(items):
        yield from _places(value, path + (key,))


def _replace(node, path: tuple, make):
    """``node`` with the value at ``path`` replaced by ``make(old)`` (``_DROP``: removed) -- tuples rebuilt, dicts
    and objects changed in place (the tree is a fresh decode)."""
    if not path:
        return make(node)
    key, rest = path[0], path[1:]
    if isinstance(node, tuple):
        items = list(node)
        new = _replace(items[key], rest, make)
        return tuple(items[:key] + items[key + 1:]) if new is _DROP else tuple(items[:key] + [new] + items[key + 1:])
    container = node if isinstance(node, (dict, list)) else vars(node)
    new = _replace(container[key], rest, make)
    if new is _DROP:
        del container[key]
    else:
        container[key] = new
    return node


_DROP = object()
_NUMBERS = [math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, -1.0, 5e-324, 1e-300, 2.0 ** 31, -(2 ** 31), 1e6]


def _mutations():
    from hypothesis import strategies as st

    number = st.one_of(st.sampled_from(_NUMBERS), st.floats(allow_nan=True, allow_infinity=True),
                       st.integers(-2 ** 63, 2 ** 63))
    odd = st.sampled_from(["text", None, True, [], {}, (1.0,)])

    def on_array(a, draw):
        kind = draw(st.sampled_from(["shape", "dtype", "value", "empty", "2d"]))
        if kind == "shape":
            n = draw(st.integers(0, max(2 * a.size, 2)))
            return np.resize(a.ravel(), n)
        if kind == "dtype":
            return a.astype(draw(st.sampled_from([np.float32, np.int64, np.int32, np.uint8, np.bool_, np.float16])))
        if kind == "empty":
            return np.zeros((0,) * max(a.ndim, 1))
        if kind == "2d":
            return a.reshape(1, -1) if a.size else np.zeros((1, 1))
        b = a.astype(float, copy=True).ravel() if a.dtype.kind == "f" else a.copy().ravel()
        if b.size:
            i = draw(st.integers(0, b.size - 1))
            v = draw(number)
            try:
                b[i] = v
            except (OverflowError, ValueError):
                b[i] = 0
        return b.reshape(a.shape)

    @st.composite
    def mutation(draw, places):
        # Half the changes hit an array (the stepper's buffers, the state, the cached derivative: what the kernel
        # writes through), the rest any place: uniform over the ~100 places of a state, an array's shape was
        # changed too rarely for a short run to reach the kernel with it.
        arrays = [(p, v) for p, v in places if isinstance(v, np.ndarray)]
        path, value = draw(st.one_of(st.sampled_from(arrays), st.sampled_from(places)) if arrays
                           else st.sampled_from(places))
        if isinstance(value, np.ndarray):
            return path, lambda old: on_array(old, draw)
        choice = draw(st.sampled_from(["number", "odd", "drop", "extra"]))
        if choice == "drop" and path:
            return path, lambda old: _DROP
        if choice == "extra" and isinstance(value, dict):
            return path, lambda old: dict(old, extra=draw(st.one_of(number, odd)))
        if choice == "extra" and isinstance(value, (list, tuple)):
            return path, lambda old: type(old)(list(old) + [draw(st.one_of(number, odd))])
        new = draw(number if choice == "number" else odd)
        return path, lambda old: new

    return mutation


def case_fuzz(path: Path, version: int, examples: int, seed: int) -> dict:
    """``examples`` genuine states of the FMU (after 2 steps, one with a changed input), each decoded, changed
    in content at 1-3 places, re-encoded with a correct checksum, then deserialized + set + 3 doSteps. Returns
    the counts; raises (exit status not 0) when a call answers other than OK/Discard/Error, an output is not
    finite, or an example takes over 10 s (faulthandler ends the process, printing where)."""
    import faulthandler

    from hypothesis import HealthCheck, given, seed as hyp_seed, settings, strategies as st

    host = running_host(path, version)
    genuine = host.save()
    state, ident = decode(genuine)
    places = [(p, v) for p, v in _places(state) if p and p[0] != "fmu"]
    mutation = _mutations()
    counts = {"examples": 0, "accepted": 0, "refused": 0, "steps_ok": 0, "steps_discard": 0, "steps_error": 0}

    @hyp_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(mutation(places), min_size=1, max_size=3))
    def one(changes):
        faulthandler.dump_traceback_later(10.0, exit=True)  # a hang: the process ends with where it was
        try:
            tree, _ = decode(genuine)
            for where, make in changes:
                try:
                    tree = _replace(tree, where, make)
                except (KeyError, IndexError, TypeError):  # an earlier change removed the place
                    pass
            try:
                blob = encode(tree, ident)
            except ValueError:  # not encodable (an object array): no bytes a host could hand over
                return
            counts["examples"] += 1
            assert host.load(genuine) == OK  # every example from the genuine state
            t_before = host.t = state["sim"][0]
            status = host.load(blob)
            assert status in (OK, ERROR), status
            assert finite(host.get_outputs())
            if status == ERROR:
                counts["refused"] += 1
                return
            counts["accepted"] += 1
            host.t = t_before if not isinstance(tree.get("sim"), tuple) else _time_of(tree, t_before)
            for _ in range(3):
                step = host.step(0.01)
                assert step in (OK, DISCARD, ERROR), step
                counts[{OK: "steps_ok", DISCARD: "steps_discard", ERROR: "steps_error"}[step]] += 1
                if step == ERROR:
                    counts.setdefault("step_errors", set()).add(host.messages[-1][:160])
                assert finite(host.get_outputs())
        finally:
            faulthandler.cancel_dump_traceback_later()

    one()
    counts["step_errors"] = sorted(counts.get("step_errors", ()))[:10]
    return counts


def _time_of(tree: dict, default: float) -> float:
    t = tree["sim"][0] if len(tree["sim"]) else default
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) else default


CASES = {"crafted_k": case_crafted_k, "parameter": case_parameter, "overflow": case_overflow,
         "start_time": case_start_time, "absurd_steps": case_absurd_steps, "fuzz": case_fuzz,
         "restored_time": case_restored_time}


def main(argv: list) -> None:
    case, path, version, args = argv
    result = CASES[case](Path(path), int(version), *json.loads(args))
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
