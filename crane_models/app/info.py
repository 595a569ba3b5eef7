"""``crane-cosim info NAME|FILE.fmu``: the FMU's variables -- causality, type, unit, start, range,
description -- as a table or, with ``--json``, for machines."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from .fmus import resolve_fmu

__all__ = ["add_commands", "describe", "info_command"]


def add_commands(sub) -> None:
    p = sub.add_parser("info", help="list an FMU's variables (causality, unit, start, range, description)")
    p.add_argument("fmu", metavar="NAME|FILE.fmu")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--causality", choices=("parameter", "input", "output", "local", "independent",
                                           "calculatedParameter", "structuralParameter"),
                   help="only variables of this causality")
    p.add_argument("--fmus", type=Path, help="folder of built FMUs for NAME (default: crane-cosim-out/fmus)")
    p.set_defaults(func=info_command)


def _number(text, kind: str = "Real"):
    """A start/min/max attribute (fmpy keeps them as strings) as a value of the variable's type."""
    if text is None:
        return None
    if kind == "Boolean":
        return str(text).lower() in ("true", "1")
    try:
        integer = kind in ("Integer", "Enumeration") or kind.startswith(("Int", "UInt"))  # FMI 3: Int32, ...
        return int(text) if integer else float(text)
    except (TypeError, ValueError):
        return text


def describe(fmu_path: Path) -> dict:
    """The model description as plain data: model, FMI version, GUID, default experiment, variables."""
    from .run import variable_table

    md = variable_table(fmu_path)
    de = md.defaultExperiment
    experiment = None
    if de is not None:
        experiment = {k: _number(getattr(de, k)) for k in ("startTime", "stopTime", "stepSize", "tolerance")
                      if getattr(de, k) is not None}
    variables = [{"name": v.name, "causality": v.causality, "variability": v.variability, "type": v.type,
                  "unit": v.unit or "", "start": _number(v.start, v.type), "min": _number(v.min, v.type),
                  "max": _number(v.max, v.type),
                  "description": v.description or ""} for v in md.modelVariables]
    return {"file": str(fmu_path), "model": md.modelName, "fmi_version": md.fmiVersion, "guid": md.guid,
            "description": md.description or "", "generation_tool": md.generationTool or "",
            "default_experiment": experiment, "variables": variables}


def _range(v: dict) -> str:
    lo = "" if v["min"] is None else f"{v['min']:g}" if isinstance(v["min"], float) else str(v["min"])
    hi = "" if v["max"] is None else f"{v['max']:g}" if isinstance(v["max"], float) else str(v["max"])
    return f"[{lo}, {hi}]" if lo or hi else ""


def info_command(args: argparse.Namespace) -> int:
    data = describe(resolve_fmu(args.fmu, args.fmus))
    if args.causality:
        data["variables"] = [v for v in data["variables"] if v["causality"] == args.causality]
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    about = f": {data['description']}" if data["description"] else " (no description in modelDescription.xml)"
    print(f"{data['model']} (FMI {data['fmi_version']}, GUID {data['guid']}){about}")
    if data["default_experiment"]:
        print("default experiment: " + ", ".join(f"{k} {v}" for k, v in data["default_experiment"].items()))
    rows = [(v["name"], v["causality"], v["type"], v["unit"] or "-",
             "" if v["start"] is None else f"{v['start']:.6g}" if isinstance(v["start"], float) else str(v["start"]),
             _range(v), v["description"]) for v in data["variables"]]
    header = ("name", "causality", "type", "unit", "start", "range", "description")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(6)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  description")
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[6])
    return 0
