"""Resident memory growth of FMU life cycles in one process (issue 5, item 4).

Instantiate -> initialize -> 20 steps -> free, N times, for the crane FMU and for a do-nothing pythonfmu
FMU with the same interface (pythonfmu's own cost); and reset-and-reuse of one instance N times.
Prints kB per cycle, measured between cycle N/3 and N (after the allocator has warmed up).

    python benchmarks/bench_memory.py [FMU_DIR] [N]
"""
from __future__ import annotations

import gc
import json
import resource
import sys
import tempfile
from pathlib import Path


def rss_kb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 1024.0


def cycles(fmu_path: Path, n: int, reuse: bool, steps: int = 20) -> float:
    """kB of resident memory per cycle, between cycle n/3 and n, after ``gc.collect()``."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu_path))
    unzip = extract(str(fmu_path))
    warm, samples = n // 3, {}
    slave = None
    for i in range(n):
        if slave is None or not reuse:
            slave = FMU2Slave(guid=md.guid, unzipDirectory=unzip, modelIdentifier=md.coSimulation.modelIdentifier,
                              instanceName=f"i{i}")
            slave.instantiate()
        else:
            slave.reset()
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        for k in range(steps):
            slave.doStep(currentCommunicationPoint=k * 0.01, communicationStepSize=0.01)
        if not reuse:
            slave.terminate()
            slave.freeInstance()
        if i in (warm, n - 1):
            gc.collect()  # reference cycles (slave <-> variable getters) are garbage, not leaks
            samples[i] = rss_kb()
    return (samples[n - 1] - samples[warm]) / (n - 1 - warm)


def main() -> int:
    from crane_models.fmi.build import build_fmu

    n = int(sys.argv[2]) if len(sys.argv) > 2 else 900
    with tempfile.TemporaryDirectory() as tmp:
        fmu_dir = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "-" else Path(tmp)
        crane = fmu_dir / "KnuckleBoomCrane.fmu"
        if not crane.exists():
            crane = build_fmu("KnuckleBoomCrane", fmu_dir)
        from pythonfmu.builder import FmuBuilder

        null = Path(FmuBuilder.build_FMU(Path(__file__).resolve().parent / "null_slave.py", dest=tmp))
        result = {"cycles": n,
                  "crane_instantiate_free_kB_per_cycle": cycles(crane, n, reuse=False),
                  "null_instantiate_free_kB_per_cycle": cycles(null, n, reuse=False),
                  "crane_reset_reuse_kB_per_cycle": cycles(crane, n, reuse=True),
                  "null_reset_reuse_kB_per_cycle": cycles(null, n, reuse=True)}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
