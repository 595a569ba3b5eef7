"""``crane-cosim rao``: the RAO table of a hull (a box or a mesh file) computed with Capytaine, written in the RAO
CSV format of docs/sea.md, the table a WaveVessel FMU reads."""
from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

import numpy as np

from ..models.wave_vessel import capytaine_rao as bem
from .fmus import CliError, MissingTool, writable_file

__all__ = ["add_commands", "rao_command", "parse_numbers", "parse_omegas"]


def add_commands(sub) -> None:
    p = sub.add_parser("rao", help="compute a vessel's RAO table with Capytaine (pip install 'crane-cosim[bem]') "
                                   "for a box hull or a mesh file, written as RAO CSV")
    hull = p.add_mutually_exclusive_group(required=True)
    hull.add_argument("--box", metavar="L,B,T", help="a box hull: length, beam, draught [m]; O midship on the "
                                                     "centreline on the waterline")
    hull.add_argument("--mesh", type=Path, metavar="FILE", help="a hull mesh Capytaine reads (.stl, .pnl, .gdf, "
                                                                "...): x forward, y port, z up, z = 0 the waterline, "
                                                                "O its origin")
    p.add_argument("--kg", type=float, help="--box: centre of gravity above the keel [m]")
    p.add_argument("--cog", metavar="X,Y,Z", help="--mesh: centre of gravity in the mesh's coordinates [m]")
    p.add_argument("--radii", required=True, metavar="KXX,KYY,KZZ",
                   help="radii of gyration about the centre of gravity [m]")
    p.add_argument("--out", required=True, type=Path, help="the CSV file to write")
    p.add_argument("--omegas", default=None, metavar="MIN:MAX:N|W1,W2,...",
                   help="wave frequencies [rad/s] (default: 78 from 0.1 to 2.5, every 0.015 from 0.3 to 1.2)")
    p.add_argument("--heading-step", type=float, default=15.0,
                   help="headings every this many degrees over the full circle (default: %(default)s)")
    p.add_argument("--roll-damping", type=float, default=bem.ROLL_DAMPING,
                   help="linear roll damping added to the BEM's, fraction of critical (default: %(default)s)")
    p.add_argument("--panel-size", type=float, default=1.7,
                   help="--box: panel size [m] (default: %(default)s, fine enough up to 2.5 rad/s)")
    p.add_argument("--rho", type=float, default=bem.SEAWATER_DENSITY, help="water density [kg/m3] "
                                                                          "(default: %(default)s)")
    p.add_argument("--jobs", type=int, default=1, help="processes for the BEM (default: %(default)s)")
    p.add_argument("--comment", action="append", default=[], metavar="TEXT",
                   help="a comment line for the file's head (repeatable), e.g. what the hull stands for")
    p.set_defaults(func=rao_command)


def parse_numbers(text: str, option: str, count: int | None = None) -> tuple:
    """Comma-separated finite numbers, ``count`` of them when given."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise CliError(f"{option} {text!r}: not comma-separated numbers") from None
    if count is not None and len(values) != count or not all(math.isfinite(v) for v in values):
        raise CliError(f"{option} {text!r}: {count or 'some'} finite comma-separated numbers expected")
    return values


def parse_omegas(text: str | None) -> np.ndarray:
    """``MIN:MAX:N`` (N evenly spaced) or a comma-separated list [rad/s]; None: the default grid."""
    if text is None:
        return bem.default_omegas()
    if ":" in text:
        parts = text.split(":")
        try:
            low, high, n = float(parts[0]), float(parts[1]), int(parts[2])
        except (ValueError, IndexError):
            raise CliError(f"--omegas {text!r}: MIN:MAX:N expected (e.g. 0.1:2.5:80)") from None
        if len(parts) != 3 or not (0 < low < high and math.isfinite(high) and n >= 2):
            raise CliError(f"--omegas {text!r}: 0 < MIN < MAX and N >= 2 expected")
        return np.linspace(low, high, n)
    return np.array(parse_numbers(text, "--omegas"))


def hull_of(args: argparse.Namespace):
    radii = parse_numbers(args.radii, "--radii", 3)
    if args.box:
        if args.kg is None or args.cog is not None:
            raise CliError("--box needs --kg (the centre of gravity above the keel) and takes no --cog")
        return bem.BoxHull(*parse_numbers(args.box, "--box", 3), kg=args.kg, radii=radii)
    if args.cog is None or args.kg is not None:
        raise CliError("--mesh needs --cog X,Y,Z (the centre of gravity) and takes no --kg")
    return bem.MeshHull(args.mesh, center_of_gravity=parse_numbers(args.cog, "--cog", 3), radii=radii)


def command_line(args: argparse.Namespace) -> str:
    """The command that computes the same table again, every setting spelled out (defaults may change)."""
    hull = (f"--box {args.box} --kg {args.kg:g}" if args.box else f"--mesh {shlex.quote(str(args.mesh))} "
            f"--cog {args.cog}")
    omegas = f" --omegas {shlex.quote(args.omegas)}" if args.omegas else ""
    comments = "".join(f" --comment {shlex.quote(c)}" for c in args.comment)
    return (f"crane-cosim rao {hull} --radii {args.radii}{omegas} --heading-step {args.heading_step:g} "
            f"--roll-damping {args.roll_damping:g} --panel-size {args.panel_size:g} --rho {args.rho:g}"
            f"{comments} --out {shlex.quote(str(args.out))}")


def rao_command(args: argparse.Namespace) -> int:
    out = writable_file(args.out, "--out")
    hull = hull_of(args)
    if not (math.isfinite(args.heading_step) and 0 < args.heading_step <= 360):
        raise CliError(f"--heading-step {args.heading_step}: must be in (0, 360] degrees")
    if args.jobs < 1:
        raise CliError(f"--jobs {args.jobs}: must be >= 1")
    omegas, headings = parse_omegas(args.omegas), bem.default_headings(args.heading_step)
    try:
        table = bem.hull_raos(hull, omegas, headings, roll_damping=args.roll_damping, panel_size=args.panel_size,
                              rho=args.rho, n_jobs=args.jobs, progress=sys.stderr.isatty())
        comments = [*args.comment, *bem.provenance(command_line(args))]
    except bem.BemMissing as exc:
        raise MissingTool(str(exc)) from None
    except ValueError as exc:  # the hull, grid or damping refused before any BEM work
        raise CliError(str(exc)) from None
    print(bem.write_rao_csv(out, table, comments))
    return 0
