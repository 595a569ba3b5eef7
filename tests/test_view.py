"""``crane-cosim view`` and ``run FILE.ssp`` (crane_models/app/view.py, view_scene.py, run_ssp.py).

* Geometry: the page's crane comes from the model's body tree; its tip at every shown instant equals the run's own
  ``tip_x|y|z`` output within 1 mm (the CSV keeps 10 significant digits, ~1e-9 m here), for each drawn model, on a
  moving base with a mount offset, heading and NED axes too.
* Self-contained: no element or style of the page loads anything (no src/href/url() off the page), and the only
  URL strings are inside plotly.js itself, embedded byte for byte from the installed plotly package (its map-tile
  and help links, for features the page does not use); Chromium, with its network log on, requests nothing.
* Rendered by headless Chromium (Debian package ``chromium``; skipped, naming it, where it is absent): the crane
  is on the canvas, and the screenshots at two times differ where the crane moved (its orange members).
* ``run FILE.ssp`` under libcosim gives the fmpy run of the same FMU (two engines, one FMU: 1e-6 of each output's
  range; measured ~1e-9).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from crane_models.app.cli import main
from crane_models.app.results import read_csv
from crane_models.app.view_scene import crane_scene
from fmu_helpers import build_fmus

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "headless Chromium is needed (Debian: apt-get install chromium; .ci/run installs it)"
BOOM = np.array([0xe6, 0x9f, 0x00])  # view.STYLES["boom"]


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def _run(fmu_dir: Path, out: Path, name: str, *sets: str, stop: float = 3.0) -> Path:
    args = ["run", name, "--fmus", str(fmu_dir), "--stop", str(stop), "--out", str(out), "--quiet"]
    for s in sets:
        args += ["--set", s]
    assert main(args) == 0
    return out


RUNS = {  # a slew and a luff; on the moving base with the ship conventions off their defaults
    "KnuckleBoomCrane": ("q1_ref=1.0", "q2_ref=1.2"),
    "KnuckleBoomCraneOnMovingBase": ("q1_ref=-0.7", "q3_ref=0.4", "mount_x=12.5", "mount_y=-3", "mount_z=4",
                                     "mount_heading=0.6", "z_down=true", "roll=0.05"),
    "CraneOnMovingBase": ("q4_ref=0.8", "q5_ref=0.5"),
}


@pytest.fixture(scope="module")
def runs(fmu_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("view_runs")
    return {name: _run(fmu_dir, folder / f"{name}.csv", name, *sets) for name, sets in RUNS.items()}


@pytest.mark.parametrize("model", sorted(RUNS))
def test_the_drawn_tip_is_the_runs_tip_output(runs, model):
    meta = json.loads(Path(str(runs[model]) + ".json").read_text())
    assert meta["model"] == model and meta["parameters"]  # the sidecar carries what the view needs
    columns, _, _ = read_csv(runs[model])
    scene = crane_scene(meta["model"], meta["parameters"])
    tips = np.array([scene.pose({k: v[i] for k, v in columns.items()}).tip for i in range(len(columns["time"]))])
    out = np.column_stack([columns[f"tip_{a}"] for a in "xyz"])
    assert np.abs(tips - out).max() < 1e-3
    assert np.ptp(out, axis=0).max() > 1.0  # the tip travelled: a wrong joint would show


def test_the_payload_hangs_from_the_tip_on_the_wire(fmu_dir, tmp_path):
    """The drawn wire runs from the drawn tip to the run's payload position; with a taut wire its length is at
    least the paid-out length (stretch only)."""
    run = _run(fmu_dir, tmp_path / "p.csv", "KnuckleBoomCrane", "payload_enabled=true", stop=2.0)
    meta = json.loads(Path(str(run) + ".json").read_text())
    columns, _, _ = read_csv(run)
    scene = crane_scene("KnuckleBoomCrane", meta["parameters"])
    row = {k: v[-1] for k, v in columns.items()}
    pose = scene.pose(row)
    length = np.linalg.norm(pose.payload - pose.tip)
    assert row["hook_load"] > 0 and length >= row["wire_length"] - 1e-6


@pytest.fixture(scope="module")
def page(runs):
    assert main(["view", str(runs["KnuckleBoomCrane"])]) == 0
    return runs["KnuckleBoomCrane"].with_suffix(".html")


def test_the_page_loads_nothing_from_outside(page):
    import plotly

    html = page.read_text()
    bundle = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text()
    assert bundle in html  # plotly.js embedded as the package ships it
    rest = html.replace(bundle, "")
    assert not re.search(r"https?://|//cdn|www\.", rest), re.findall(r".{40}(?:https?://|//cdn|www\.).{40}", rest)[:3]
    for attribute in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", rest):
        assert attribute.startswith(("data:", "#", "javascript:")) or attribute == "", attribute
    assert "@import" not in rest and "url(" not in rest.replace("url(#", "")


def _screenshot(page: Path, t: float, out: Path, profile: Path, netlog: Path | None = None) -> np.ndarray:
    from PIL import Image

    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
           "--disable-background-networking", "--disable-component-update", "--no-first-run",
           "--window-size=900,700", "--virtual-time-budget=8000", f"--screenshot={out}"]
    if netlog:
        cmd.append(f"--log-net-log={netlog}")
    subprocess.run(cmd + [f"{page.resolve().as_uri()}#t={t}"], check=True, capture_output=True, timeout=120)
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def _crane_pixels(image: np.ndarray) -> np.ndarray:
    return np.abs(image - BOOM).sum(axis=2) < 60


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
def test_chromium_renders_the_crane_and_it_moves_with_the_slider(page, tmp_path):
    first = _screenshot(page, 0.0, tmp_path / "a.png", tmp_path / "profile-a", tmp_path / "net.json")
    last = _screenshot(page, 3.0, tmp_path / "b.png", tmp_path / "profile-b")
    a, b = _crane_pixels(first), _crane_pixels(last)
    assert a.sum() > 200 and b.sum() > 200  # the booms are drawn (WebGL canvas not blank)
    moved = (a & ~b).sum() + (b & ~a).sum()
    assert moved > 0.5 * min(a.sum(), b.sum())  # the crane is elsewhere after the slew and luff
    assert not _page_requests(tmp_path / "net.json")


def _page_requests(netlog: Path) -> list:
    """URLs the page asked for beyond file:/data: (Chromium's net log; the browser's own background requests --
    time, updates, dictionaries -- have no initiating origin and are not the page's)."""
    log = json.loads(netlog.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = [(e["params"]["url"], e["params"].get("initiator")) for e in log["events"]
            if e["type"] == start and "url" in e.get("params", {})]
    return [u for u, origin in urls if origin != "not an origin" and not u.startswith(("file:", "data:", "blob:"))]


def test_view_refuses_what_it_cannot_draw_in_one_line(runs, fmu_dir, tmp_path, capsys):
    csv = tmp_path / "bare.csv"
    shutil.copy(runs["KnuckleBoomCrane"], csv)
    with pytest.raises(SystemExit) as exit_info:
        main(["view", str(csv)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "bare.csv.json" in err and "sidecar" in err
    (tmp_path / "bare.csv.json").write_text(json.dumps({"model": "FlexibleCrane"}))
    with pytest.raises(SystemExit) as exit_info:
        main(["view", str(csv)])
    assert exit_info.value.code == 2 and "FlexibleCrane" in capsys.readouterr().err
    assert not (tmp_path / "bare.html").exists()
    with pytest.raises(SystemExit) as exit_info:  # run --view: refused before the run
        main(["run", "FlexibleCrane", "--fmus", str(fmu_dir), "--stop", "0.1", "--out", str(tmp_path / "f.csv"),
              "--view"])
    assert exit_info.value.code == 2 and "--view" in capsys.readouterr().err
    assert not (tmp_path / "f.csv").exists()


def test_view_with_a_borrowed_sidecar_names_no_option_the_user_did_not_give(runs, tmp_path, capsys):
    """A CSV of one model beside the sidecar of another: the page's default force is not a column. The message
    says so and asks about the sidecar; it does not blame a ``--force`` the command line never had."""
    csv = tmp_path / "borrowed.csv"
    shutil.copy(runs["CraneOnMovingBase"], csv)
    shutil.copy(str(runs["KnuckleBoomCrane"]) + ".json", tmp_path / "borrowed.csv.json")
    with pytest.raises(SystemExit) as exit_info:
        main(["view", str(csv)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--force joint1_force_z" not in err and "joint1_force_z" in err and "sidecar" in err, err
    assert not (tmp_path / "borrowed.html").exists()


def test_run_ssp_gives_the_fmpy_run_of_the_same_fmu(fmu_dir, tmp_path):
    ref = _run(fmu_dir, tmp_path / "fmpy.csv", "KnuckleBoomCrane", "q1_ref=1.0", "q2_ref=1.2", stop=2.0)
    args = ["run", str(fmu_dir / "KnuckleBoomCrane.ssp"), "--stop", "2", "--out", str(tmp_path / "ssp.csv"), "--quiet",
            "--set", "KnuckleBoomCrane.q1_ref=1.0", "--set", "KnuckleBoomCrane.q2_ref=1.2", "--view"]
    assert main(args) == 0
    got, _, _ = read_csv(tmp_path / "ssp.csv")
    want, _, _ = read_csv(ref)
    # one row per communication point from t = start, as an FMU run's (the t = 0 row: libcosim's initialization)
    np.testing.assert_allclose(got["time"], want["time"], rtol=0, atol=1e-12)
    for name in ("q1", "q2", "joint1_force_z", "tip_x", "end_stop_active"):
        scale = max(np.ptp(want[name]), 1e-9)
        assert np.abs(got[f"KnuckleBoomCrane.{name}"] - want[name]).max() / scale < 1e-6, name
    assert "t = 0.00 s" in (tmp_path / "ssp.html").read_text()  # the page opens at the start
    meta = json.loads((tmp_path / "ssp.csv.json").read_text())
    assert meta["components"]["KnuckleBoomCrane"]["parameters"]["l1"] > 0


def test_run_ssp_refuses_a_stop_that_is_not_a_whole_number_of_steps(fmu_dir, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(fmu_dir / "KnuckleBoomCrane.ssp"), "--stop", "1.005", "--step", "0.01",
              "--out", str(tmp_path / "x.csv")])
    assert exit_info.value.code == 2 and "whole number of steps" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_the_gif_shows_the_crane_moving(runs, tmp_path):
    from PIL import Image

    from crane_models.app.view import write_gif

    gif = write_gif(runs["KnuckleBoomCrane"], tmp_path / "a.gif", seconds=1.0, fps=4, size_px=200, orbit_deg=0.0)
    image = Image.open(gif)
    assert image.n_frames == 4
    frames = []
    for i in (0, 3):
        image.seek(i)
        frames.append(_crane_pixels(np.asarray(image.convert("RGB")).astype(int)))
    assert frames[0].sum() > 20 and (frames[0] ^ frames[1]).sum() > 20


def test_the_page_is_fitted_to_the_crane_not_the_deck():
    """A ship run with no slew (the crane stays in the y-z plane, as the SSP ship pair's default run): each
    horizontal axis spans about the crane's reach (not the 1.5-reach deck, not zero), and holds every member."""
    from crane_models.app.view import build_figure

    n = 5
    columns = {"time": np.linspace(0, 1, n), "q1": np.zeros(n), "q2": np.full(n, 0.6), "q3": np.full(n, 0.6),
               "interface_force_z": np.zeros(n)}
    fig = build_figure("KnuckleBoomCraneOnMovingBase", {}, columns, {"interface_force_z": "N"})
    scene = crane_scene("KnuckleBoomCraneOnMovingBase", {})
    ranges = [sorted(fig.layout.scene[a].range) for a in ("xaxis", "yaxis", "zaxis")]
    for lo, hi in ranges[:2]:
        assert 0.9 * scene.reach <= hi - lo <= 1.2 * scene.reach, (ranges, scene.reach)
    pose = scene.pose({"q1": 0.0, "q2": 0.6, "q3": 0.6})
    for a, b in [s for segs in pose.members.values() for s in segs]:
        for p in (a, b):
            assert all(lo <= c <= hi for c, (lo, hi) in zip(p, ranges)), (p, ranges)
    deck = fig.data[0]
    assert min(deck.x) >= ranges[0][0] and max(deck.x) <= ranges[0][1]


def test_the_gif_has_few_ticks_per_axis():
    """docs/lift_at_sea.gif (360 px): each axis has at most five tick labels; the lift at sea's y axis had seven
    (0 to 12 m) on its ~100 px, foreshortened, and its labels ran into each other."""
    from crane_models.analysis.plot_style import pyplot
    from crane_models.app.view import _deck_in, _draw_gif_frame, _ranges

    scene = crane_scene("KnuckleBoomCraneOnMovingBase", {"payload_enabled": True})
    rows = [{"q1": q1, "q2": 0.6, "q3": 0.6, "payload_x": 0.0, "payload_y": 9.0, "payload_z": -7.0}
            for q1 in (0.0, 1.2)]  # a slew with the payload hanging below the deck, as the lift at sea
    poses = [scene.pose(r) for r in rows]
    ranges = _ranges(scene, poses)
    plt = pyplot()
    fig = plt.figure(figsize=(4.5, 4.5), dpi=80)
    try:
        ax = fig.add_subplot(projection="3d")
        _draw_gif_frame(ax, scene, poses[1], _deck_in(scene, ranges), ranges, "t = 1 s", azim=-60)
        fig.canvas.draw()
        for axis, (lo, hi) in zip((ax.xaxis, ax.yaxis, ax.zaxis), ranges):
            shown = [v for v in axis.get_majorticklocs() if lo <= v <= hi]
            assert 2 <= len(shown) <= 5, (axis.axis_name, shown)
    finally:
        plt.close(fig)
