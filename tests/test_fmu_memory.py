"""Issue 5, item 4: no memory leak of our own across FMU life cycles (benchmarks/bench_memory.py, run in
a fresh subprocess).

RSS is read after ``gc.collect()`` once the allocator has warmed up (from cycle n/3 on). Bounds:
reset-and-reuse of one instance must stay flat -- below 1 kB per cycle, while leaking one evaluation's
``Kinematics`` (P, Ṗ, [P | Ṗ], rotations: > 5 kB) per cycle would exceed it five times; allocator
warm-up alone was measured at 0.0-0.5 kB per cycle over 1000 cycles. Instantiate/free may cost what
pythonfmu itself costs for a do-nothing FMU with the same interface, plus < 4 kB per cycle.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fmu_helpers import build_fmus

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPT = ("import json, sys; sys.path.insert(0, sys.argv[4]); from bench_memory import cycles; "
          "print(json.dumps(cycles(sys.argv[2], int(sys.argv[3]), sys.argv[1] == 'reuse', steps=5)))")


def growth(mode: str, fmu: Path, n: int) -> float:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(fmu), str(n), str(BENCH)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from pythonfmu.builder import FmuBuilder

    crane = build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"
    null_dir = tmp_path_factory.mktemp("null")
    null = Path(FmuBuilder.build_FMU(Path(__file__).resolve().parents[1] / "benchmarks" / "null_slave.py",
                                     dest=null_dir))
    return crane, null


def test_reset_and_reuse_stays_flat(fmus):
    crane, _ = fmus
    assert growth("reuse", crane, 1500) < 1.0


def test_instantiate_free_adds_no_leak_of_its_own(fmus):
    crane, null = fmus
    assert growth("new", crane, 400) < growth("new", null, 400) + 4.0
