"""Per-step cost of the FMI binary: pythonfmu's export library vs the project's runtime, in one run.

Hosts: the plain C host of the tests (tests/native_host/fmi2_host.c), stepping from one thread and from a
new thread for every call (as a host with a worker pool it does not keep; the figure includes creating
and joining the thread), and fmpy (FMU2Slave.doStep from Python).
FMUs: a do-nothing slave with KnuckleBoomCrane's interface (benchmarks/null_slave.py: the floor of FMI +
Python call cost) and KnuckleBoomCrane itself. pythonfmu's binary needs libpython preloaded and the
site-packages on PYTHONPATH in the C host; the project's runtime runs under ``env -i`` with only
``CRANE_COSIM_PYTHON`` naming this Python.

    python benchmarks/bench_runtime.py [--null-steps 20000] [--kb-steps 1000]

Figures are wall-clock on a shared machine (each the best of 5 runs): read the ratios, which come from
one run.
"""
from __future__ import annotations

import argparse
import shutil
import site
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "native_host"))
from c_host import compile_host, extract  # noqa: E402

FMPY_LOOP = """
import sys, time
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave
unzipped, identifier, n, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
md = read_model_description(unzipped)
s = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=identifier, instanceName="bench")
s.instantiate(); s.setupExperiment(startTime=0.0); s.enterInitializationMode(); s.exitInitializationMode()
s.doStep(0.0, h)
t0 = time.perf_counter()
for k in range(1, n + 1):
    s.doStep(k * h, h)
print((time.perf_counter() - t0) / n * 1e9, flush=True)
"""


def pythonfmu_binary() -> Path:
    import pythonfmu

    return Path(pythonfmu.__file__).parent / "resources" / "binaries" / "linux64" / "libpythonfmu-export.so"


def with_binary(fmu: Path, binary: Path, out: Path) -> Path:
    """A copy of ``fmu`` whose linux64 binary is ``binary`` (the record is left: pythonfmu ignores it)."""
    with zipfile.ZipFile(fmu) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith("binaries/linux64/"):
                data = binary.read_bytes()
            zout.writestr(item, data)
    return out


def native_env_for_pythonfmu() -> dict:
    """What pythonfmu's binary needs in a native host: libpython preloaded and the site-packages."""
    from crane_models.fmi.runtime import shared_libpython

    return {"LD_PRELOAD": shared_libpython() or "", "PYTHONPATH": ":".join(site.getsitepackages()),
            "PYTHONHOME": sys.base_prefix}


def c_host_ns(host: Path, unzipped: Path, identifier: str, guid: str, n: int, h: float, threads: bool,
              env: dict) -> float:
    # one untimed step first (imports, caches), then n steps continuing from t = h
    script = (f"instantiate {guid}\nsetup 0\nenter\nexit\nstep 0 {h!r}\n"
              f"bench {n} {h!r} {'thread' if threads else 'one'} {h!r}\nfree\n")
    proc = subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(host), str(unzipped), identifier],
                          input=script, capture_output=True, text=True, timeout=900)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("bench ")), None)
    if line is None:
        return float("nan")
    _, status, per_step, per_thread = line.split()
    if int(status) != 0:
        sys.exit(f"{identifier}: doStep returned status {status} in the C host: {proc.stderr[-1500:]}")
    return float(per_step)


def fmpy_ns(unzipped: Path, identifier: str, n: int, h: float) -> float:
    proc = subprocess.run([sys.executable, "-c", FMPY_LOOP, str(unzipped), identifier, str(n), repr(h)],
                          capture_output=True, text=True, timeout=900)
    try:
        return float(proc.stdout.split()[0])
    except (IndexError, ValueError):
        return float("nan")


def best(measure, repeat: int = 5) -> float:
    """The smallest of a few measurements: on a shared machine the others carry other processes' load."""
    return min(measure() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null-steps", type=int, default=20000)
    parser.add_argument("--kb-steps", type=int, default=1000)
    args = parser.parse_args()
    from fmpy import read_model_description
    from pythonfmu.builder import FmuBuilder

    from crane_models.fmi.build import build_fmu, fmi2_runtime_binary, install_runtime

    runtime = fmi2_runtime_binary()
    if runtime is None:
        sys.exit("no C compiler: the runtime cannot be built")
    with tempfile.TemporaryDirectory(prefix="bench_runtime_") as tmp:
        tmp = Path(tmp)
        host = compile_host(tmp)
        import crane_models  # bundled: a host without this checkout on its path imports it from the FMU

        null = Path(FmuBuilder.build_FMU(HERE / "null_slave.py", dest=tmp / "pf",
                                         project_files=[Path(crane_models.__file__).parent]))
        ours_null = shutil.copy(null, tmp / "NullCrane_ours.fmu")
        install_runtime(Path(ours_null), runtime)
        kb = build_fmu("KnuckleBoomCrane", tmp / "ours")
        cases = [("NullCrane", null, Path(ours_null), args.null_steps, 1e-3),
                 ("KnuckleBoomCrane", with_binary(kb, pythonfmu_binary(), tmp / "KnuckleBoomCrane_pf.fmu"), kb,
                  args.kb_steps, 0.01)]
        print(f"{'FMU':<17} {'host':<24} {'pythonfmu us/step':>18} {'ours us/step':>13} {'ours/pf':>8}")
        for name, pf_fmu, our_fmu, n, h in cases:
            md = read_model_description(str(our_fmu))
            identifier = md.coSimulation.modelIdentifier
            pf_dir, our_dir = extract(pf_fmu, tmp / "x_pf"), extract(our_fmu, tmp / "x_ours")
            figures = {}
            for host_name, threads in (("C host, one thread", False), ("C host, thread per call", True)):
                figures[host_name] = (best(lambda: c_host_ns(host, pf_dir, identifier, md.guid, n, h, threads,
                                                             native_env_for_pythonfmu())),
                                      best(lambda: c_host_ns(host, our_dir, identifier, md.guid, n, h, threads,
                                                             {"CRANE_COSIM_PYTHON": sys.executable})))
            figures["fmpy"] = (best(lambda: fmpy_ns(pf_dir, identifier, n, h)),
                               best(lambda: fmpy_ns(our_dir, identifier, n, h)))
            for host_name, (pf, ours) in figures.items():
                print(f"{name:<17} {host_name:<24} {pf / 1e3:>18.2f} {ours / 1e3:>13.2f} {ours / pf:>8.2f}")
            c_one = figures["C host, one thread"][1]
            print(f"{name:<17} ours: C host (one thread) / fmpy = {c_one / figures['fmpy'][1]:.2f}, "
                  f"thread per call / fmpy = {figures['C host, thread per call'][1] / figures['fmpy'][1]:.2f}")


if __name__ == "__main__":
    main()
