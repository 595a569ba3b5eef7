"""The ship pairs as shipped, in the engines ship engineers use, against the monolithic models (issue 33's targets).

libcosim runs each default OSP system structure, Ecos each default SSP package, at 10 ms and at 5 ms, with the demo's
set-points (set on the crane before each step); the monolithic one-tree model with the same set-points held on the
same grid is the reference (an independent computation: one tree, no coupling). Bounds, in % of each signal's range
over the 10 s, as a ship engineer would ask them (issue 33): vessel roll and pitch <= 2 %, yaw <= 5 %, every
interface force and moment <= 5 %; no start-up spike (the first 0.1 s no worse than the rest); and first order from
the engine's usual step on -- the 10 ms error at least 1.6x the 5 ms one (2 for an exact first-order error; 1.6 leaves
room for the second-order part at 10 ms) for every signal whose 10 ms error is above 0.01 % (below that the
reference's own tolerance, 1e-9, and round-off take over).

Wiring the end-of-step wrench back into the default files fails these bounds (the ``_PointWrench`` variants:
measured yaw 6.5 % on the knuckle boom pair, 33 % on the paper's).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fmu_helpers import build_fmus, needs_runtime

sys.path.insert(0, str(Path(__file__).parent))
from engine_runs import ECOSPY_MARKS, NO_LIBCOSIM, libcosim_missing  # noqa: E402

from crane_models.app.ship_demo import DEFAULT_RUNS, SSP_OF, deviations, monolithic_run  # noqa: E402

DEFAULT_STRUCTURES = sorted(DEFAULT_RUNS)
BOUND = {"roll": 0.02, "pitch": 0.02, "yaw": 0.05}  # the rest: interface forces and moments, 5 %
STEPS = (0.01, 0.005)


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def _run(engine: str, fmu_dir: Path, structure: str, setpoints, step: float) -> dict:
    from crane_models.app.ship_demo import STOP, run_in_ecos, run_in_libcosim

    if engine == "libcosim":
        return run_in_libcosim(fmu_dir / structure, setpoints, step, STOP)
    return run_in_ecos(fmu_dir / SSP_OF[structure], setpoints, step, STOP)


def check_targets(engine: str, fmu_dir: Path, structure: str) -> dict:
    """The bounds of the module docstring for one engine and structure; returns the 10 ms errors."""
    errors = {}
    for step in STEPS:
        setpoints, mono = monolithic_run(structure, step)
        split = _run(engine, fmu_dir, structure, setpoints, step)
        errors[step] = deviations(split, mono)
        if step == STEPS[0]:
            early, rest = deviations(split, mono, until=0.1), deviations(split, mono, after=0.1)
    coarse, fine = errors[STEPS[0]], errors[STEPS[1]]
    over = {n: e for n, e in coarse.items() if e > BOUND.get(n, 0.05)}
    assert not over, f"{engine}, {structure} at 10 ms, % of range: {_pct(over)} (all: {_pct(coarse)})"
    spikes = {n: (early[n], rest[n]) for n in early if early[n] > rest[n] * (1 + 1e-9) + 1e-12}
    assert not spikes, f"{engine}, {structure}: first 0.1 s worse than the rest: {spikes}"
    slow = {n: coarse[n] / fine[n] for n in coarse if coarse[n] > 1e-4 and coarse[n] / fine[n] < 1.6}
    assert not slow, f"{engine}, {structure}: 10/5 ms error ratios below 1.6: {slow} (10 ms: {_pct(coarse)})"
    return coarse


def _pct(d: dict) -> str:
    return ", ".join(f"{n} {100 * v:.2f}" for n, v in d.items())


@needs_runtime
@pytest.mark.skipif(libcosim_missing(), reason=NO_LIBCOSIM)
@pytest.mark.parametrize("structure", DEFAULT_STRUCTURES)
def test_libcosim_gives_the_monolithic_answer_with_the_shipped_structure(fmu_dir, structure):
    check_targets("libcosim", fmu_dir, structure)


@needs_runtime
@pytest.mark.parametrize("structure", DEFAULT_STRUCTURES)
def test_ecos_gives_the_monolithic_answer_with_the_shipped_package(fmu_dir, structure):
    for mark in ECOSPY_MARKS:  # skips, naming why, where ecospy cannot run
        if mark.name == "skipif" and mark.args and mark.args[0]:
            pytest.skip(mark.kwargs["reason"])
    check_targets("Ecos", fmu_dir, structure)
