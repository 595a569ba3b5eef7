"""``crane-cosim splash-zone``: DNV-RP-N103's simplified method for a lift through the wave zone
(:mod:`analysis.splash_zone`) -- the characteristic slamming, varying-buoyancy, mass and drag forces, F_hyd and the
slack-sling check at the three positions of the lift, as a table or ``--json``."""
from __future__ import annotations

import argparse
import json
import math

from ..analysis.splash_zone import stages, tz_of_jonswap, tz_range
from ..core.hydro import SHAPES, body_of
from .fmus import CliError

__all__ = ["add_commands", "splash_zone_command"]

_SHAPE_NAMES = {"box": 0, "cylinder": 1, "sphere": 2}
_ROWS = (("wave_amplitude", "m", "characteristic wave amplitude"), ("water_velocity", "m/s", "water particle velocity"),
         ("water_acceleration", "m/s2", "water particle acceleration"),
         ("relative_velocity", "m/s", "slamming / relative velocity"), ("slamming", "kN", "slamming force"),
         ("varying_buoyancy", "kN", "varying buoyancy force"), ("mass_force", "kN", "mass force"),
         ("drag", "kN", "drag force"), ("hydrodynamic", "kN", "F_hyd"), ("static_min", "kN", "F_static-min"),
         ("total", "kN", "F_total = F_static-max + F_hyd"))


def add_commands(sub) -> None:
    p = sub.add_parser("splash-zone", help="DNV-RP-N103's simplified method for a lift through the wave zone: "
                       "characteristic forces and the slack-sling check")
    p.add_argument("--mass", type=float, required=True, help="payload mass in air [kg]")
    p.add_argument("--shape", choices=sorted(_SHAPE_NAMES), default="box", help="payload shape (default box)")
    p.add_argument("--size", type=float, nargs=3, metavar=("X", "Y", "Z"), default=(2.0, 2.0, 2.0),
                   help="box edges; cylinder diameter, -, height; sphere diameter, -, - [m]")
    p.add_argument("--hs", type=float, required=True, help="significant wave height [m]")
    p.add_argument("--tp", type=float, help="peak period [s] (JONSWAP, --gamma); or give --tz")
    p.add_argument("--tz", type=float, help="zero-up-crossing period [s]")
    p.add_argument("--gamma", type=float, default=3.3, help="JONSWAP peak enhancement for Tz from Tp (default 3.3)")
    p.add_argument("--lowering-speed", type=float, default=0.5, help="hook lowering speed v_c [m/s] (default 0.5)")
    p.add_argument("--tip-amplitude", type=float, default=0.0, help="crane tip heave amplitude [m] (default 0)")
    p.add_argument("--tip-period", type=float, default=8.0, help="crane tip heave period [s] (default 8)")
    p.add_argument("--cd", type=float, default=2.5, help="drag coefficient (default 2.5, DNV's for subsea modules)")
    p.add_argument("--cs", type=float, default=5.0, help="slamming coefficient (default 5, DNV's for a box)")
    p.add_argument("--density", type=float, default=1025.0, help="water density [kg/m3]")
    p.add_argument("--amplitude-factor", type=float, default=0.9, help="characteristic wave amplitude over Hs "
                   "(default 0.9; check the DNV-RP-N103 edition in use)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=splash_zone_command)


def _check(args: argparse.Namespace) -> float:
    """Tz from the arguments, after checking each number (one line naming the argument)."""
    positive = {"--mass": args.mass, "--hs": args.hs, "--density": args.density, "--tip-period": args.tip_period,
                **{f"--size {a}": s for a, s in zip("XYZ", args.size)}}
    for name, value in positive.items():
        if not (math.isfinite(value) and value > 0.0):
            raise CliError(f"{name} = {value!r} must be a positive number")
    for name, value in {"--lowering-speed": args.lowering_speed, "--tip-amplitude": args.tip_amplitude,
                        "--cd": args.cd, "--cs": args.cs, "--amplitude-factor": args.amplitude_factor}.items():
        if not (math.isfinite(value) and value >= 0.0):
            raise CliError(f"{name} = {value!r} must be a number >= 0")
    if (args.tp is None) == (args.tz is None):
        raise CliError("give one of --tp (JONSWAP peak period) or --tz (zero-up-crossing period)")
    if not 1.0 <= args.gamma <= 7.0:
        raise CliError(f"--gamma = {args.gamma!r} is outside [1, 7]")
    period = args.tz if args.tz is not None else args.tp
    if not (math.isfinite(period) and period > 0.0):
        raise CliError(f"{'--tz' if args.tz is not None else '--tp'} = {period!r} must be a positive number")
    return args.tz if args.tz is not None else tz_of_jonswap(args.tp, args.gamma)


def splash_zone_command(args: argparse.Namespace) -> int:
    tz = _check(args)
    shape = _SHAPE_NAMES[args.shape]
    body = body_of(shape, args.size, args.density)
    results = stages(body, args.mass, args.hs, tz, args.lowering_speed, args.tip_amplitude, args.tip_period,
                     args.cd, args.cs, amplitude_factor=args.amplitude_factor)
    low, high = tz_range(args.hs)
    if args.json:
        data = {"shape": SHAPES[shape], "tz": tz, "tz_range": [low, high],
                "positions": {name: {**{k: getattr(f, k) for k, _, _ in _ROWS}, "slack_sling_ratio":
                                     f.slack_sling_ratio, "slack_sling_ok": f.slack_sling_ok}
                              for name, f in results.items()}}
        print(json.dumps(data, indent=2))
        return 0
    print(f"DNV-RP-N103 simplified method: {args.mass:g} kg {SHAPES[shape]} {' x '.join(f'{s:g}' for s in args.size)} m,"
          f" Hs {args.hs:g} m, Tz {tz:.2f} s (DNV asks to cover Tz {low:.1f}-{high:.0f} s), lowering "
          f"{args.lowering_speed:g} m/s, tip heave {args.tip_amplitude:g} m at {args.tip_period:g} s")
    names = list(results)
    print(f"{'':34s}" + "".join(f"{n:>18s}" for n in names))
    for key, unit, label in _ROWS:
        scale = 1e-3 if unit == "kN" else 1.0
        print(f"{label + ' [' + unit + ']':34s}" + "".join(f"{getattr(results[n], key) * scale:18.3f}" for n in names))
    print(f"{'F_hyd / (0.9 F_static-min)':34s}" + "".join(f"{results[n].slack_sling_ratio:18.3f}" for n in names))
    print(f"{'slack sling avoided':34s}" + "".join(f"{'yes' if results[n].slack_sling_ok else 'NO':>18s}"
                                                    for n in names))
    return 0
