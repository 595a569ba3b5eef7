"""Per-step cost of every FMU against the do-nothing floor, in one interleaved run (issue 23, item 4).

For every FMU the project builds (and KnuckleBoomCrane with its payload on), per 10 ms communication step:

* fmpy's FMU2Slave loop -- set every input, doStep, get every output -- on this project's runtime, against
  a do-nothing pythonfmu slave with the same interface (benchmarks/null_slave.py) on this runtime ("/ null
  ours") and on pythonfmu's own binary ("/ null pf");
* the plain C host of the tests (tests/native_host/fmi2_host.c, ``env -i``), doStep only (the host's bench
  command sets and gets nothing), against the same two floors;
* two KnuckleBoomCrane instances in one process, from fmpy (N steps of both on one thread, serial, against each
  on its own thread) and from the C host of the tests (tests/native_host/threads_host.c, ``env -i``: one instance
  stepping 200 N times against two instances on two threads stepping 100 N times each, the start of the process
  and of the instances subtracted); throughput ratio = serial time / two-thread time (2.0: perfect parallelism);
* the moving-base cranes also without ``mean_wrench_outputs`` (on by default: the step-mean and predicted
  wrench; off: the end-of-step wrench only), the fmpy loop;
* every FMU with the runtime's value table switched off (``CRANE_COSIM_VALUE_TABLE=0``: the per-variable path,
  every get and set through Python, as before issue 23's item 2), the fmpy loop: "table / per-variable".

Rounds alternate the FMUs (every case once per round, each in a fresh process) so that the machine's load
falls on all of them alike; the figures are medians over the rounds, printed with /proc/loadavg.

    python benchmarks/bench_step_cost.py [--rounds 5] [--steps 300] [--null-steps 3000] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_runtime import c_host_ns, native_env_for_pythonfmu  # noqa: E402
from c_host import compile_host, compile_threads_host, extract  # noqa: E402  (bench_runtime: tests/native_host)

STEP = 0.01  # the communication step of the issue's figures [s]
PAYLOAD_ON = {"payload_enabled": True}
MEAN_WRENCH_OFF = {"mean_wrench_outputs": False}  # the default is on

# One fmpy process: the FMI 2.0 loop of a co-simulation master over one FMU (or two on two threads).
FMPY_LOOP = r"""
import json, sys, threading, time
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave
unzipped, identifier, n, h, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
params = json.loads(sys.argv[6])
md = read_model_description(unzipped)
by_name = {v.name: v for v in md.modelVariables}
inputs = [v for v in md.modelVariables if v.causality == "input" and v.type == "Real"]
outs = [v for v in md.modelVariables if v.causality == "output"]
real_out = [v.valueReference for v in outs if v.type == "Real"]
int_out = [v.valueReference for v in outs if v.type in ("Integer", "Enumeration")]
in_vr, in_x = [v.valueReference for v in inputs], [float(v.start or 0.0) for v in inputs]

def start(name):
    s = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=identifier, instanceName=name)
    s.instantiate(); s.setupExperiment(startTime=0.0); s.enterInitializationMode()
    for k, x in params.items():
        v = by_name[k]
        {"Boolean": s.setBoolean, "Integer": s.setInteger}.get(v.type, s.setReal)([v.valueReference], [x])
    s.exitInitializationMode()
    return s

def run(s, k0, n):
    for k in range(k0, k0 + n):
        s.setReal(in_vr, in_x)
        s.doStep(k * h, h)
        s.getReal(real_out)
        if int_out:
            s.getInteger(int_out)

if mode == "loop":
    s = start("bench")
    run(s, 0, 3)  # imports, caches
    t0 = time.perf_counter(); run(s, 3, n); print((time.perf_counter() - t0) / n * 1e6)
else:  # threads: two instances, serial then on two threads
    a, b = start("a"), start("b")
    run(a, 0, 3); run(b, 0, 3)
    t0 = time.perf_counter(); run(a, 3, n); run(b, 3, n); serial = time.perf_counter() - t0
    ts = [threading.Thread(target=run, args=(s, 3 + n, n)) for s in (a, b)]
    t0 = time.perf_counter()
    for t in ts: t.start()
    for t in ts: t.join()
    print(serial / (time.perf_counter() - t0))
"""


PER_VARIABLE = {"CRANE_COSIM_VALUE_TABLE": "0"}  # the runtime's switch: every slave on the per-variable path


def fmpy_figure(unzipped: Path, identifier: str, n: int, mode: str = "loop", params: dict | None = None,
                env: dict | None = None) -> float:
    """µs per step of the fmpy loop (mode "loop") or the two-thread throughput ratio (mode "threads"); ``env``:
    variables added to the process's environment."""
    proc = subprocess.run([sys.executable, "-c", FMPY_LOOP, str(unzipped), identifier, str(n), repr(STEP), mode,
                           json.dumps(params or {})], capture_output=True, text=True, timeout=1800,
                          env={**os.environ, **(env or {})})
    try:
        return float(proc.stdout.split()[-1])
    except (IndexError, ValueError):
        sys.exit(f"{identifier}: the fmpy loop failed: {proc.stderr[-1500:]}")


def c_host_seconds(threads_host: Path, unzipped: Path, identifier: str, guid: str, steps: int, copies: int) -> float:
    """Wall time of the C host instantiating ``copies`` instances of one FMU, each on its own thread, each then
    stepping ``steps`` times (10 ms), in one process started under ``env -i``."""
    args = [str(unzipped), identifier, guid] * copies
    t0 = time.perf_counter()
    proc = subprocess.run(["env", "-i", f"CRANE_COSIM_PYTHON={sys.executable}", str(threads_host), "first", "2",
                           str(steps), *args], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"{identifier}: the C host's threads failed: {proc.stderr[-1500:]}")
    return time.perf_counter() - t0


def c_host_threads_ratio(threads_host: Path, unzipped: Path, identifier: str, guid: str, steps: int) -> float:
    """Serial time / two-thread time from the C host: one instance making 2 ``steps`` steps against two instances
    on two threads making ``steps`` each; a 10-step run of each kind is subtracted (process and Python start,
    instantiation)."""
    def run(n: int, copies: int) -> float:
        return c_host_seconds(threads_host, unzipped, identifier, guid, n, copies)

    serial = run(2 * steps, 1) - run(10, 1)
    return serial / (run(steps, 2) - run(10, 2))


def null_fmu(fmu_name: str, out: Path) -> Path:
    """A do-nothing pythonfmu FMU (pythonfmu's binary) with ``fmu_name``'s interface, named Null<fmu_name>."""
    from pythonfmu.builder import FmuBuilder

    import crane_models

    text = (HERE / "null_slave.py").read_text()
    text = text.replace('FMU_NAME = "KnuckleBoomCrane"', f"FMU_NAME = {fmu_name!r}")
    script = out / f"null_{fmu_name}.py"
    out.mkdir(parents=True, exist_ok=True)
    script.write_text(text.replace("class NullCrane(", f"class Null{fmu_name}("))
    return Path(FmuBuilder.build_FMU(script, dest=out, project_files=[Path(crane_models.__file__).parent]))


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0] if Path("/proc/loadavg").exists() else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300, help="steps per measurement of a crane FMU")
    parser.add_argument("--null-steps", type=int, default=3000, help="steps per measurement of a do-nothing FMU")
    parser.add_argument("--only", nargs="*", help="FMU names (default: every FMU of the registry)")
    args = parser.parse_args()
    from fmpy import read_model_description

    from crane_models.fmi.build import build_fmu, fmi2_runtime_binary, install_runtime
    from crane_models.models.registry import SPECS

    runtime = fmi2_runtime_binary()
    if runtime is None:
        sys.exit("no C compiler: the runtime cannot be built")
    names = args.only or list(SPECS)
    with tempfile.TemporaryDirectory(prefix="bench_step_cost_") as tmp:
        tmp = Path(tmp)
        host, threads_host = compile_host(tmp), compile_threads_host(tmp)
        cases = {}  # case -> (unzipped dir, model identifier, guid, steps, params, runtime)
        for name in names:
            fmu = build_fmu(name, tmp / "ours")
            null_pf = null_fmu(name, tmp / "pf")
            null_ours = shutil.copy(null_pf, tmp / f"Null{name}_ours.fmu")
            install_runtime(Path(null_ours), runtime)
            for case, path, n, params in ((name, fmu, args.steps, {}),
                                          (f"{name} null ours", Path(null_ours), args.null_steps, {}),
                                          (f"{name} null pf", null_pf, args.null_steps, {})):
                md = read_model_description(str(path))
                cases[case] = (extract(path, tmp / "x" / case.replace(" ", "_")), md.coSimulation.modelIdentifier,
                               md.guid, n, params, "pf" if case.endswith("pf") else "ours")
            cases[f"{name} per-variable"] = (*cases[name][:5], "per-variable")
            if name == "KnuckleBoomCrane":
                cases[f"{name} + payload"] = (*cases[name][:4], PAYLOAD_ON, "ours")
            if any(v.name in MEAN_WRENCH_OFF for v in md.modelVariables):  # md: the null FMU's, the same interface
                cases[f"{name} - mean wrench"] = (*cases[name][:4], MEAN_WRENCH_OFF, "ours")
        fmpy, chost, threads, c_threads, loads = {c: [] for c in cases}, {c: [] for c in cases}, [], [], []
        for r in range(args.rounds):
            loads.append(load())
            for case, (unzipped, ident, guid, n, params, rt) in cases.items():
                fmpy[case].append(fmpy_figure(unzipped, ident, n, "loop", params,
                                              PER_VARIABLE if rt == "per-variable" else None))
                if rt == "per-variable":  # the C host's bench steps only: no get or set to compare
                    continue
                if not params:  # the C host's script sets no parameters: those cases are fmpy only
                    env = native_env_for_pythonfmu() if rt == "pf" else {"CRANE_COSIM_PYTHON": sys.executable}
                    chost[case].append(c_host_ns(host, unzipped, ident, guid, n, STEP, False, env) / 1e3)
            if "KnuckleBoomCrane" in cases:
                unzipped, ident, guid = cases["KnuckleBoomCrane"][:3]
                threads.append(fmpy_figure(unzipped, ident, args.steps, "threads"))
                c_threads.append(c_host_threads_ratio(threads_host, unzipped, ident, guid, 100 * args.steps))
            print(f"round {r + 1}/{args.rounds} done (load {load()})", file=sys.stderr, flush=True)
        loads.append(load())
        report(names, fmpy, chost, threads, c_threads, loads, args.rounds)


def report(names, fmpy, chost, threads, c_threads, loads, rounds) -> None:
    med = {c: statistics.median(v) for c, v in fmpy.items()}
    cmed = {c: statistics.median(v) for c, v in chost.items() if v}
    print(f"\nmedians of {rounds} interleaved rounds, 10 ms steps; /proc/loadavg (1 min) at each round: "
          f"{' '.join(loads)}")
    print(f"{'FMU':<36} {'fmpy us':>8} {'/null ours':>10} {'/null pf':>9} {'C host us':>10} {'/null ours':>10} "
          f"{'/null pf':>9}")
    for name in names:
        floor_ours, floor_pf = med[f"{name} null ours"], med[f"{name} null pf"]
        for case in (name, f"{name} + payload", f"{name} - mean wrench"):
            if case not in med:
                continue
            line = f"{case:<36} {med[case]:>8.1f} {med[case] / floor_ours:>10.2f} {med[case] / floor_pf:>9.2f}"
            if case in cmed:
                c_ours, c_pf = cmed[f"{name} null ours"], cmed[f"{name} null pf"]
                line += f" {cmed[case]:>10.1f} {cmed[case] / c_ours:>10.2f} {cmed[case] / c_pf:>9.2f}"
            print(line)
        per_variable = med[f"{name} per-variable"]
        print(f"{'  per-variable path (table off)':<36} {per_variable:>8.1f} {per_variable / floor_ours:>10.2f} "
              f"{per_variable / floor_pf:>9.2f}   table / per-variable = {med[name] / per_variable:.2f}")
        print(f"{'  do-nothing, this runtime / pythonfmu':<36} {med[f'{name} null ours']:>8.1f} "
              f"{med[f'{name} null ours'] / med[f'{name} null pf']:>10.2f} {'':>9}"
              + (f" {cmed[f'{name} null ours']:>10.1f} {cmed[f'{name} null ours'] / cmed[f'{name} null pf']:>10.2f}"
                 if cmed else ""))
    print()
    for host, ratios in (("fmpy", threads), ("C host", c_threads)):
        if ratios:
            print(f"KnuckleBoomCrane, 2 instances, {host}: serial time / two-thread time = "
                  f"{statistics.median(ratios):.2f} (2.0: perfect parallelism; each round: "
                  f"{' '.join(f'{t:.2f}' for t in ratios)})")


if __name__ == "__main__":
    main()
