"""``crane-cosim view RESULT.csv``: the run in 3-D as one self-contained HTML page (plotly.js embedded: it opens
from file:// with no network), and the animated GIF of the demo.

The page: the crane from the model's own geometry (:mod:`.view_scene`), the deck (or ground), the wire and the
payload; a time slider with play and pause; a live readout of the hook load and a chosen reaction force (default:
the one the crane puts on its foundation or on the vessel); camera orbit with the mouse. ``#t=SECONDS`` at the end
of the page's address opens it at that time (used by the tests' screenshots, handy for sharing a moment).

What the page needs comes from the result's sidecar (``RESULT.csv.json``, written by ``crane-cosim run`` and the
demo): the FMU's model name and its parameter values. A run of an SSP package (columns ``component.variable``)
shows its crane component.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from .fmus import CliError
from .view_scene import DRAWN_MODELS, Pose, crane_scene
from .view_sea import sea_view

__all__ = ["add_commands", "view_command", "load_run", "write_view", "write_gif", "MAX_FRAMES", "check_drawable"]

MAX_FRAMES = 200  # frames in the page: 0.1 s apart for a 20 s run; the page stays a few MB beside plotly.js
STYLES = {  # member style -> (colour, line width [px])
    "boom": ("#e69f00", 12), "barrel": ("#555555", 9), "piston": ("#b0b0b0", 5), "wire": ("#000000", 2)}
DEFAULT_FORCE = {"KnuckleBoomCrane": "joint1_force_z", "KnuckleBoomCraneOnMovingBase": "interface_force_z",
                 "VesselCrane": "interface_force_z", "CraneOnMovingBase": "interface_force_z"}


def add_commands(sub) -> None:
    v = sub.add_parser("view", help="the crane of a result CSV in 3-D: a self-contained HTML page",
                       description="Write RESULT.html: the crane of a crane-cosim run (run or demo result CSV with "
                                   "its .json sidecar) in 3-D with a time slider, play/pause, the hook load and a "
                                   "reaction force as readouts. Opens in any browser, offline.")
    v.add_argument("result", type=Path, metavar="RESULT.csv")
    v.add_argument("--force", metavar="COLUMN", help="the reaction force shown beside the hook load (default: "
                   "joint1_force_z on a fixed base, interface_force_z on a moving base)")
    v.add_argument("--out", type=Path, help="the HTML file (default: RESULT.html)")
    v.set_defaults(func=view_command)


def check_drawable(models: list) -> None:
    """``run --view``: refused before the run when none of its models can be drawn."""
    if not any(m in DRAWN_MODELS for m in models):
        raise CliError(f"--view: crane-cosim view draws {', '.join(DRAWN_MODELS)}; not {', '.join(models)}")


def load_run(csv_path: Path) -> tuple:
    """``(model, parameters, columns, units, prefix, sea)`` of a result file; one clear error for what cannot be
    viewed. ``prefix``: ``"crane."`` for an SSP run's crane component; ``sea``: the run's sea (:mod:`.view_sea`) when a
    WaveVessel carries the crane, else None."""
    from .results import metadata_path, read_csv

    csv_path = Path(csv_path)
    meta_path = metadata_path(csv_path)
    if not csv_path.is_file():
        raise CliError(f"{csv_path}: no such result file")
    try:
        meta = json.loads(meta_path.read_text())
    except OSError:
        raise CliError(f"{meta_path}: missing -- crane-cosim view needs the sidecar that crane-cosim run and the demo "
                       "write beside the CSV (model and parameters)") from None
    except ValueError as exc:
        raise CliError(f"{meta_path}: not JSON ({exc})") from None
    prefix, model, parameters = "", meta.get("model"), meta.get("parameters", meta.get("start_values", {}))
    if isinstance(meta.get("components"), dict):  # an SSP run: draw its crane component
        drawn = [c for c, comp in meta["components"].items() if comp.get("model") in DRAWN_MODELS]
        if not drawn:
            raise CliError(f"{meta_path}: no component of a model crane-cosim view draws ({', '.join(DRAWN_MODELS)})")
        prefix, model, parameters = f"{drawn[0]}.", meta["components"][drawn[0]]["model"], \
            meta["components"][drawn[0]].get("parameters", {})
    if model not in DRAWN_MODELS:
        raise CliError(f"{meta_path}: model {model!r}; crane-cosim view draws {', '.join(DRAWN_MODELS)}")
    try:
        columns, units, _ = read_csv(csv_path)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if "time" not in columns:
        raise CliError(f"{csv_path}: no 'time' column")
    columns = {(k[len(prefix):] if prefix and k.startswith(prefix) else k): v for k, v in columns.items()}
    units = {(k[len(prefix):] if prefix and k.startswith(prefix) else k): v for k, v in units.items()}
    try:
        sea = sea_view(meta, columns)
    except ValueError as exc:
        raise CliError(f"{meta_path}: {exc}") from None
    return model, dict(parameters or {}), columns, units, prefix, sea


def _frame_rows(columns: dict, max_frames: int = MAX_FRAMES) -> list:
    """Indices of the rows shown: evenly spaced, first and last included."""
    n = len(columns["time"])
    return sorted(set(np.linspace(0, n - 1, min(n, max_frames)).round().astype(int).tolist()))


def _lines(pose, style: str) -> tuple:
    """x, y, z of a style's members as one line trace (None between members)."""
    xs, ys, zs = [], [], []
    for a, b in pose.members.get(style, []):
        for p in (a, b):
            xs.append(float(p[0]))
            ys.append(float(p[1]))
            zs.append(float(p[2]))
        xs.append(None)
        ys.append(None)
        zs.append(None)
    return xs, ys, zs


def _readout(row: dict, units: dict, force: str, payload: bool) -> str:
    def kn(name: str) -> str:
        if name not in row:
            return "–"
        unit = units.get(name) or ""
        return f"{row[name] / 1e3:.1f} kN" if unit == "N" else f"{row[name]:.4g} {unit}"

    hook = kn("hook_load") if payload and "hook_load" in row else "– (no payload)"
    return f"t = {row['time']:.2f} s    hook load {hook}    {force} {kn(force)}"


def _traces(pose, row: dict) -> list:
    import plotly.graph_objects as go

    traces = []
    for style, (colour, width) in STYLES.items():
        if style == "wire":
            xs, ys, zs = ([], [], []) if pose.payload is None else zip(*(pose.tip, pose.payload))
            xs, ys, zs = list(map(float, xs)), list(map(float, ys)), list(map(float, zs))
        else:
            xs, ys, zs = _lines(pose, style)
        traces.append(go.Scatter3d(x=xs, y=ys, z=zs, mode="lines", line=dict(color=colour, width=width), name=style,
                                   hoverinfo="skip"))
    payload = [] if pose.payload is None else [float(c) for c in pose.payload]
    traces.append(go.Scatter3d(x=payload[:1], y=payload[1:2], z=payload[2:], mode="markers", name="payload",
                               marker=dict(size=9, color="#0072b2", symbol="square")))
    traces.append(go.Scatter3d(x=[float(pose.tip[0])], y=[float(pose.tip[1])], z=[float(pose.tip[2])],
                               mode="markers", name="tip", marker=dict(size=4, color="#d55e00")))
    return traces


def _poses(scene, rows: list) -> list:
    """The crane at each shown row; a row whose coordinates are not finite numbers is refused (a failed run)."""
    poses = []
    for row in rows:
        if not all(np.isfinite(row[c]) for c in scene.coordinates if c in row):
            raise CliError(f"t = {row['time']:g} s: the joint coordinates {', '.join(scene.coordinates)} are not all "
                           "finite numbers; the run cannot be drawn")
        poses.append(scene.pose(row))
    return poses


def _ranges(scene, poses: list) -> list:
    """The axis ranges ``[[lo, hi]] * 3`` of the drawing: fitted to the crane (its members, tip and payload over
    the run), not to the deck. Each horizontal axis spans the crane's horizontal extent and at least its reach,
    about the crane's centre, so that a crane that stays in one vertical plane (no slew) is not drawn as a stick
    on an axis of zero span; the vertical axis also holds the deck's height. 5 % margin all round."""
    points = [np.array([p for segs in pose.members.values() for s in segs for p in s] + [pose.tip]) for pose in poses]
    points += [np.array([pose.payload]) for pose in poses if pose.payload is not None]
    allp = np.vstack(points)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    lo[2], hi[2] = min(lo[2], scene.deck[:, 2].min()), max(hi[2], scene.deck[:, 2].max())
    half = 0.5 * max(scene.reach, float(np.max(hi[:2] - lo[:2])))
    centre = 0.5 * (lo[:2] + hi[:2])
    lo[:2], hi[:2] = centre - half, centre + half
    pad = 0.05 * float(np.max(hi - lo))
    return [[float(a - pad), float(b + pad)] for a, b in zip(lo, hi)]


def _deck_in(scene, ranges: list) -> np.ndarray:
    """The deck's corners clipped to the drawing's horizontal ranges (the deck is flat in the drawing frame)."""
    z = float(np.mean(scene.deck[:, 2]))
    (x0, x1), (y0, y1) = ranges[0], ranges[1]
    lo_x, hi_x = max(x0, scene.deck[:, 0].min()), min(x1, scene.deck[:, 0].max())
    lo_y, hi_y = max(y0, scene.deck[:, 1].min()), min(y1, scene.deck[:, 1].max())
    return np.array([[lo_x, lo_y, z], [hi_x, lo_y, z], [hi_x, hi_y, z], [lo_x, hi_y, z]])


# Opens the page at #t=SECONDS: the nearest frame, without animation.
_JUMP_SCRIPT = """
var gd = document.getElementById('{plot_id}');
function craneCosimJump() {
  var m = /t=([0-9.eE+-]+)/.exec(window.location.hash);
  if (!m) return;
  var t = parseFloat(m[1]), names = gd._transitionData._frames.map(function (f) { return f.name; });
  var best = names.reduce(function (a, b) { return Math.abs(b - t) < Math.abs(a - t) ? b : a; });
  Plotly.animate(gd, [best], {mode: 'immediate', frame: {duration: 0, redraw: true}, transition: {duration: 0}});
}
craneCosimJump();
window.addEventListener('hashchange', craneCosimJump);
"""


def _carried(poses: list, rows: list, scene, sea) -> tuple:
    """The poses and the deck's corners of each row in the sea frame, carried by the vessel (``sea``)."""
    carried, decks = [], []
    for pose, row in zip(poses, rows):
        move = sea.carry(row)
        members = {s: [(move(a), move(b)) for a, b in segs] for s, segs in pose.members.items()}
        carried.append(Pose(members, move(pose.tip), None if pose.payload is None else move(pose.payload)))
        decks.append(np.array([move(c) for c in scene.deck]))
    return carried, decks


def _sea_traces(deck: np.ndarray, surface: tuple, zrange: list) -> list:
    import plotly.graph_objects as go

    x, y, z = surface
    return [go.Mesh3d(x=deck[:, 0], y=deck[:, 1], z=deck[:, 2], i=[0, 0], j=[1, 2], k=[2, 3], color="#9ecae1",
                      opacity=0.6, name="deck", hoverinfo="skip"),
            go.Surface(x=x, y=y, z=z, cmin=zrange[0], cmax=zrange[1], colorscale="Blues", reversescale=True,
                       opacity=0.8, showscale=False, name="sea", hoverinfo="skip")]


def build_figure(model: str, parameters: dict, columns: dict, units: dict, force: str | None = None, sea=None):
    """The plotly figure: crane, deck, frames, slider, play/pause, readout; with ``sea`` (:mod:`.view_sea`) in the sea
    frame over the sea surface, the vessel carrying the crane and its deck."""
    import plotly.graph_objects as go

    scene = crane_scene(model, parameters)
    if force is None and DEFAULT_FORCE[model] not in columns:  # the user chose no force: do not name --force
        raise CliError(f"the result has no column {DEFAULT_FORCE[model]}, which every {model} result carries (the "
                       f"sidecar names the model): is the sidecar this CSV's? (--force COLUMN shows another force)")
    force = force or DEFAULT_FORCE[model]
    if force not in columns:
        raise CliError(f"--force {force}: not a column of the result ({', '.join(n for n in columns if n != 'time')})")
    rows = [{k: float(v[i]) for k, v in columns.items()} for i in _frame_rows(columns)]
    poses = _poses(scene, rows)
    names = [f"{r['time']:.6g}" for r in rows]
    if sea is None:
        ranges = _ranges(scene, poses)
        deck = _deck_in(scene, ranges)
        static = [go.Mesh3d(x=deck[:, 0], y=deck[:, 1], z=deck[:, 2], i=[0, 0], j=[1, 2], k=[2, 3], color="#9ecae1",
                            opacity=0.45, name="deck", hoverinfo="skip")]
        moving = [[] for _ in rows]
    else:  # the sea frame: deck and sea surface change from frame to frame
        poses, decks = _carried(poses, rows, scene, sea)
        ranges = _ranges(scene, poses)
        for axis in ranges[:2]:  # the sea around the crane too: half its reach beyond it on every side
            axis[0], axis[1] = axis[0] - 0.5 * scene.reach, axis[1] + 0.5 * scene.reach
        surfaces = [sea.surface(r["time"], ranges) for r in rows]
        lowest = min(float(s[2].min()) for s in surfaces)
        zrange = [lowest, max(float(s[2].max()) for s in surfaces)]
        ranges[2] = [min(ranges[2][0], lowest - 0.5), max(ranges[2][1], float(max(d[:, 2].max() for d in decks)))]
        static, moving = [], [_sea_traces(d, s, zrange) for d, s in zip(decks, surfaces)]
    first = moving[0] + _traces(poses[0], rows[0])
    frames = [go.Frame(name=n, data=m + _traces(p, r), traces=list(range(len(static), len(static) + len(first))),
                       layout=dict(title=dict(text=_readout(r, units, force, scene.payload))))
              for n, p, r, m in zip(names, poses, rows, moving)]
    step_ms = 1000.0 * (rows[-1]["time"] - rows[0]["time"]) / max(1, len(rows) - 1)
    play = dict(label="▶ play", method="animate",
                args=[None, dict(frame=dict(duration=step_ms, redraw=True), fromcurrent=True,
                                 transition=dict(duration=0), mode="immediate")])
    pause = dict(label="❚❚ pause", method="animate",
                 args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate",
                                    transition=dict(duration=0))])
    # One step per frame; the tick labels would overlap, so only the current time is shown (currentvalue).
    slider = dict(active=0, currentvalue=dict(prefix="t = ", suffix=" s", font=dict(size=14, color="#333")),
                  pad=dict(t=30),
                  font=dict(color="rgba(0,0,0,0)"), ticklen=3,
                  steps=[dict(label=n, method="animate",
                              args=[[n], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                              transition=dict(duration=0))]) for n in names])
    spans = [r[1] - r[0] for r in ranges]
    flipped = {"y", "z"} if scene.z_down and sea is None else set()  # z down: seen upright, turned about x
    axis = lambda name, r: dict(title=f"{name} [m]", range=r[::-1] if name in flipped else r,  # noqa: E731
                                autorange=False)
    layout = go.Layout(
        title=dict(text=_readout(rows[0], units, force, scene.payload), x=0.02),
        scene=dict(xaxis=axis("x", ranges[0]), yaxis=axis("y", ranges[1]), zaxis=axis("z", ranges[2]),
                   aspectmode="manual", aspectratio=dict(zip("xyz", np.array(spans) / max(spans))),
                   dragmode="orbit", camera=dict(eye=dict(x=1.4, y=-1.4, z=0.8))),
        updatemenus=[dict(type="buttons", direction="left", x=0.02, y=0.02, xanchor="left", yanchor="bottom",
                          buttons=[play, pause])],
        sliders=[slider], margin=dict(l=0, r=0, t=50, b=0), showlegend=True,
        legend=dict(x=0.99, xanchor="right", y=0.98),
        annotations=[dict(text=f"{model}, {scene.frame if sea is None else _SEA_FRAME}", showarrow=False, x=0.02, y=0.95, xref="paper", yref="paper",
                          xanchor="left", font=dict(size=11, color="#555"))])
    return go.Figure(data=static + first, layout=layout, frames=frames)


_SEA_FRAME = "on the WaveVessel in its sea: the sea frame (z up from the still water level, x along the vessel's heading)"


def write_view(csv_path: Path, out: Path | None = None, force: str | None = None) -> Path:
    """The HTML page of a result file (``RESULT.html`` beside it by default)."""
    model, parameters, columns, units, _, sea = load_run(csv_path)
    fig = build_figure(model, parameters, columns, units, force, sea)
    out = Path(out) if out else Path(csv_path).with_suffix(".html")
    # plotly.js inside the page (no CDN), no links to plotly's servers: the page works offline from file://.
    fig.write_html(str(out), include_plotlyjs=True, full_html=True, auto_play=False, post_script=_JUMP_SCRIPT,
                   default_height="96vh",
                   config={"displaylogo": False, "showSendToCloud": False,
                           "responsive": True})
    return out


def view_command(args: argparse.Namespace) -> int:
    try:
        out = write_view(args.result, args.out, args.force)
    except (KeyError, ValueError) as exc:
        raise CliError(str(exc).strip("'\"")) from None
    print(out)
    return 0


def write_gif(csv_path: Path, out: Path, seconds: float = 6.0, fps: int = 6, size_px: int = 360,
              orbit_deg: float = 30.0) -> Path:
    """An animated GIF of a result file's crane (matplotlib, same geometry as the page): ``seconds`` of
    playback at ``fps`` frames per second spread evenly over the run, the camera turning by ``orbit_deg``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    model, parameters, columns, units, _, _ = load_run(csv_path)  # the GIF: the crane in its ship frame
    scene = crane_scene(model, parameters)
    rows = [{k: float(v[i]) for k, v in columns.items()} for i in _frame_rows(columns, int(seconds * fps))]
    poses = _poses(scene, rows)
    ranges = _ranges(scene, poses)
    deck_corners = _deck_in(scene, ranges)
    fig = plt.figure(figsize=(size_px / 80, size_px / 80), dpi=80)
    ax = fig.add_subplot(projection="3d")
    force = DEFAULT_FORCE[model]

    def draw(i: int):
        _draw_gif_frame(ax, scene, poses[i], deck_corners, ranges,
                        _readout(rows[i], units, force, scene.payload),
                        azim=-60 + orbit_deg * i / max(1, len(poses) - 1))  # a slow orbit while it plays
        return []

    animation = FuncAnimation(fig, draw, frames=len(poses), blit=False)
    animation.save(str(out), writer=PillowWriter(fps=fps))
    plt.close(fig)
    return Path(out)


GIF_TICKS = 4  # at most this many ticks per axis of the GIF: its 360 px leave room for no more labels


def _draw_gif_frame(ax, scene, pose, deck_corners: np.ndarray, ranges: list, title: str, azim: float) -> None:
    """One frame of the GIF on the 3-D axes ``ax``: deck outline, members, wire and payload, fitted ``ranges``."""
    from matplotlib.ticker import MaxNLocator

    ax.cla()
    deck = np.vstack([deck_corners, deck_corners[:1]])
    ax.plot(deck[:, 0], deck[:, 1], deck[:, 2], color="#4a90c2", lw=1)
    for style, (colour, width) in STYLES.items():
        for a, b in pose.members.get(style, []):
            ax.plot(*zip(a, b), color=colour, lw=width / 2.5, solid_capstyle="round")
    if pose.payload is not None:
        ax.plot(*zip(pose.tip, pose.payload), color="k", lw=0.8)
        ax.scatter(*pose.payload, color="#0072b2", marker="s", s=40)
    ax.set(xlim=ranges[0], ylim=ranges[1], zlim=ranges[2], xlabel="x [m]", ylabel="y [m]", zlabel="z [m]")
    if scene.z_down:
        ax.invert_zaxis()
        ax.invert_yaxis()
    ax.grid(False)  # a plain background: a smaller GIF
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_pane_color((1.0, 1.0, 1.0, 0.0))
        axis.set_major_locator(MaxNLocator(GIF_TICKS))  # labels that do not run into each other
    ax.set_box_aspect([r[1] - r[0] for r in ranges])
    ax.view_init(elev=20, azim=azim)
    ax.set_title(title, fontsize=8)
