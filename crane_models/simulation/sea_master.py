"""A master for the one-way systems of ``models/sea_systems.py`` (a crane on the ``WaveVessel``) with fmpy: libcosim's
fixed-step algorithm for such a system, written out -- every component steps from ``t_n`` to ``t_n + h`` with the
inputs it had at ``t_n``, then the outputs at ``t_n + h`` are passed on by name (Jacobi). With the coupling one way
the crane's only coupling error is the zero-order hold of the vessel's motion over a step; libcosim and Ecos run the
same algorithm from the shipped system files (tests/test_sea_systems.py compares them)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ..fmi.instance import FmuInstance
from ..models.registry import SPECS
from ..models.sea_systems import SEA_SYSTEMS, sea_connections, with_sea

__all__ = ["run_sea_system"]


def run_sea_system(fmu_dir: Path, system: str, stop: float, step: float, record: dict,
                   setpoints: Optional[Callable[[float], dict]] = None, overrides: Optional[dict] = None,
                   read_after_exchange: bool = False) -> dict:
    """Run ``system`` (a name of :data:`SEA_SYSTEMS`) from its FMUs in ``fmu_dir`` to ``stop`` at the fixed ``step``.
    ``record``: ``{component: [output names]}``, returned as ``{"time": ..., "component.name": array}`` at every
    communication point from ``step`` on; ``setpoints(t)``: ``{input: value}`` of the crane set before the step from
    ``t``; ``overrides``: ``{component: {parameter: value}}`` beyond the system's (the sea's go to every component
    that has them). The outputs are read after each step and before the exchange, as libcosim's observers sample
    them (an output with direct feedthrough -- the crane's load depends on the base acceleration -- then still
    holds the vessel's motion of the step's start); ``read_after_exchange``: after it, with the new motion, as Ecos'
    ``get_real`` reads them."""
    members = dict(SEA_SYSTEMS[system])
    for name, values in (overrides or {}).items():
        fmu, own = members[name]
        members[name] = (fmu, {**own, **values})
    members = with_sea(members, SPECS)
    links = sea_connections(members, SPECS)
    fmus = {name: FmuInstance(Path(fmu_dir) / f"{fmu}.fmu", name)
            for name, (fmu, _) in members.items()}
    try:
        for name, (_, values) in members.items():
            fmus[name].enter_initialization(values)
        _pass_on(fmus, links)
        for f in fmus.values():
            f.fmu.exitInitializationMode()
        n = int(round(stop / step))
        if not math.isclose(n * step, stop, rel_tol=1e-9):
            raise ValueError(f"step = {step!r} s does not divide stop = {stop!r} s")
        rows = []
        for k in range(n):
            if setpoints is not None:
                fmus["crane"].set(setpoints(k * step))
            for f in fmus.values():
                f.step(step)
            if read_after_exchange:
                _pass_on(fmus, links)
            rows.append(np.concatenate([fmus[c].get(names) for c, names in record.items()]))
            if not read_after_exchange:
                _pass_on(fmus, links)
    finally:
        for f in fmus.values():
            f.close()
    data = np.array(rows)
    out = {"time": step * np.arange(1, n + 1)}
    columns = [f"{c}.{name}" for c, names in record.items() for name in names]
    out.update({name: data[:, i] for i, name in enumerate(columns)})
    return out


def _pass_on(fmus: dict, links: list) -> None:
    """Every connection's output value to its input, all read before any is set (the Jacobi exchange): one get per
    source and one set per target component, not one FMI call per connection."""
    sources = {}
    for a, va, _, _ in links:
        sources.setdefault(a, []).append(va)
    read = {a: dict(zip(names, fmus[a].get(names))) for a, names in sources.items()}
    targets = {}
    for a, va, b, vb in links:
        targets.setdefault(b, {})[vb] = float(read[a][va])
    for b, values in targets.items():
        fmus[b].set(values)
