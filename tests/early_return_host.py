"""An FMI 3.0 importer that asks for an early return (issue 21: FMI 3.0's way to cancel a step), run in a child
process by tests/test_fmi3_early_return.py: fmpy's FMU3Slave instantiated with ``earlyReturnAllowed`` and an
``intermediateUpdate`` callback that counts its calls and, from call ``request_at`` on, asks to return early.

Usage: python early_return_host.py FMU_PATH STEP_SIZE REQUEST_AT ALLOW JSON_START_VALUES; prints one JSON line
``RESULT {...}``: the callback's calls (count, times, flags), doStep's flags and lastSuccessfulTime, the wall time of
the step, and the Float64 outputs after a following plain 10 ms step next to those of a fresh instance that made only
that step."""
from __future__ import annotations

import json
import sys
import time

from fmpy import extract, read_model_description
from fmpy.fmi3 import FMU3Slave


def instance(path: str, md, unzipped: str, start: dict, allow: bool, callback=None) -> FMU3Slave:
    fmu = FMU3Slave(guid=md.instantiationToken, unzipDirectory=unzipped,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="early")
    fmu.instantiate(earlyReturnAllowed=allow, intermediateUpdate=callback, logMessage=lambda *a: None)
    fmu.enterInitializationMode(startTime=0.0)
    by_name = {v.name: v for v in md.modelVariables}
    for name, value in start.items():
        v = by_name[name]
        setter = {"Float64": fmu.setFloat64, "Int32": fmu.setInt32, "Boolean": fmu.setBoolean}[v.type]
        setter([v.valueReference], [value])
    fmu.exitInitializationMode()
    return fmu


def main(path: str, step: str, request_at: str, allow: str, start: str) -> None:
    md = read_model_description(path)
    unzipped = extract(path)
    start_values = json.loads(start)
    calls, armed = [], [True]

    def intermediate_update(env, t, set_requested, get_allowed, step_finished, can_return_early, requested, when):
        calls.append({"t": t, "set": bool(set_requested), "get": bool(get_allowed), "finished": bool(step_finished),
                      "can_return_early": bool(can_return_early)})
        if armed[0] and len(calls) >= int(request_at):
            requested[0] = True

    fmu = instance(path, md, unzipped, start_values, allow == "1", intermediate_update)
    t0 = time.perf_counter()
    event, terminate, early, last = fmu.doStep(0.0, float(step))
    seconds = time.perf_counter() - t0
    n_calls = len(calls)
    armed[0] = False
    outputs = [v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == "Float64"]
    plain = fmu.doStep(last, 0.01) if early else None  # from where it returned, no request now
    after = list(fmu.getFloat64(outputs)) if early else None
    fresh = instance(path, md, unzipped, start_values, False)
    fresh.doStep(0.0, 0.01)
    reference = list(fresh.getFloat64(outputs))
    print("RESULT " + json.dumps({"calls": calls[:n_calls][:50], "n_calls": n_calls, "early": bool(early),
                                  "last": last, "event": bool(event), "terminate": bool(terminate),
                                  "seconds": seconds, "plain": None if plain is None else list(map(float, plain)),
                                  "after": after, "reference": reference}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
