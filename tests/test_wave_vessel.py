"""The WaveVessel's parts in-process: the RAO table reader (the format, its interpolation and mirror, one line per
fault), the motion's kernel against its numpy specification, the axis conventions, and the irregular sea's motion
statistics against |RAO|² S (bounds derived in each test). The FMU itself: test_wave_vessel_fmu.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import welch

from crane_models.core.moving_base.harmonic import VALUE_NAMES, HarmonicBody
from crane_models.core.moving_base.ship import FLIP
from crane_models.core.screws import rot_x, rot_y, rot_z
from crane_models.core.sea import SeaState, spectrum, wave_components
from crane_models.core.sea.components import energy_band
from crane_models.integration.cosimulation import CoSimulation
from crane_models.models.at_sea import sea_parameters
from crane_models.models.wave_vessel.model import OUTPUTS
from crane_models.models.wave_vessel.motion import vessel_body
from crane_models.models.wave_vessel.rao import COLUMNS, RaoError, parse_rao_table, read_rao_table
from crane_models.models.wave_vessel.spec import DEFAULT_TABLE, wave_vessel_spec
from fmu_helpers import needs_kernel
from wave_vessel_helpers import HEADINGS_DEG, PERIODS, synthetic_raos, write_synthetic_table


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    return write_synthetic_table(tmp_path_factory.mktemp("rao") / "synthetic_rao.csv")


@pytest.fixture(scope="module")
def table(table_file):
    return read_rao_table(table_file)


def test_the_table_reads_back_its_grid_and_mirrors_the_other_side(table):
    omega = np.sort([2 * math.pi / T for T in PERIODS])
    assert table.omega.tolist() == omega.tolist()
    one_side = [math.radians(d) for d in HEADINGS_DEG]
    assert table.heading.size == 2 * len(one_side) - 2  # 0 and pi are their own mirror images
    want = synthetic_raos(omega, np.array(one_side))
    at = table.at(np.repeat(omega, len(one_side)), np.tile(one_side, omega.size))
    assert np.allclose(at, want.transpose(0, 2, 1).reshape(6, -1), rtol=0, atol=1e-14)
    mirrored = table.at(omega, np.full(omega.size, -math.radians(60)))  # starboard side: sway, roll, yaw change sign
    assert np.allclose(mirrored, synthetic_raos(omega, np.array([math.radians(60)]))[:, 0, :]
                       * np.array([1, -1, 1, -1, 1, -1])[:, None], atol=1e-14)


def test_interpolation_is_linear_in_the_complex_value_and_held_outside():
    rows = [f"{w},{b},0,0,0,0,{amp},{ph},0,0,0,0,0,0" for b in (0.0, math.pi / 2, math.pi, 3 * math.pi / 2)
            for w, amp, ph in ((0.5, 1.0, 0.0), (1.5, 2.0, math.pi / 2))]
    t = parse_rao_table(",".join(COLUMNS) + "\n" + "\n".join(rows))
    assert t.at(np.array([1.0]), np.array([0.3]))[2, 0] == pytest.approx(0.5 + 1.0j, abs=1e-15)
    assert t.at(np.array([0.1, 9.0]), np.array([1.0, 1.0]))[2].tolist() == pytest.approx([1.0, 2.0j], abs=1e-15)
    # across 2 pi: the last heading (3 pi / 2) joined to the first (0 = 2 pi)
    assert t.at(np.array([0.5]), np.array([-0.2]))[2, 0] == pytest.approx(1.0, abs=1e-15)


HEADER = ",".join(COLUMNS)
ROW = "0.5,0.0,0,0,0,0,1,0,0,0,0,0,0,0"  # heave amplitude 1
ROW2 = "1.0,0.0,0,0,0,0,1,0,0,0,0,0,0,0"


@pytest.mark.parametrize("text,message", [
    ("# only a comment\n\n", "no header line"),
    (HEADER.replace("heave_phase", "heave_phse") + "\n" + ROW, "unknown column 'heave_phse'"),
    (HEADER.replace(",yaw_phase", "") + "\n" + ROW, "missing column yaw_phase"),
    (HEADER.replace("yaw_phase", "roll_phase") + "\n" + ROW, "column roll_phase appears twice"),
    (HEADER + "\n", "no rows after the header"),
    (HEADER + "\n" + ROW + ",0", "line 2: 15 values, the header has 14"),
    (HEADER + "\n" + ROW.replace(",1,", ",x,"), "line 2, column heave_amplitude: 'x' is not a number"),
    (HEADER + "\n" + ROW.replace(",1,", ",nan,"), "line 2, column heave_amplitude: nan is not finite"),
    (HEADER + "\n" + ROW.replace("0.5,", "-0.5,", 1), "line 2, column omega: -0.5 rad/s must be > 0"),
    (HEADER + "\n" + ROW.replace(",1,", ",-1,"), "line 2, column heave_amplitude: -1.0 must be >= 0"),
    (HEADER + "\n" + ROW.replace("0.5,0.0,", "0.5,180,"), "column heading: 180.0 is outside [-2 pi, 2 pi] rad"),
    (HEADER + "\n" + ROW + "\n" + ROW2 + "\n" + ROW.replace(",0.0,", f",{2 * math.pi},", 1),
     "line 4: omega = 0.5 rad/s at heading 6.28"),
    (HEADER + "\n" + ROW + "\n" + ROW2 + "\n" + ROW.replace(",0.0,", ",1.0,", 1),
     "heading 1.0 rad has no row for omega = 1.0 rad/s"),
    (HEADER + "\n" + ROW, "1 frequency; at least 2 are needed"),
])
def test_each_fault_of_a_table_is_one_line_naming_it(text, message):
    with pytest.raises(RaoError) as info:
        parse_rao_table(text, "my.csv")
    text = str(info.value)
    assert message in text and text.startswith("RAO table my.csv") and "\n" not in text


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(RaoError, match=r"^RAO table .*nothere.csv: cannot be read \(FileNotFoundError"):
        read_rao_table(tmp_path / "nothere.csv")


def random_body(z_down=False, use_kernel=True, n=200, series=7):
    rng = np.random.default_rng(7)
    return HarmonicBody(rng.uniform(0.3, 2.5, n), rng.uniform(0, 2 * math.pi, n),
                        rng.normal(size=(series, n)) * 0.02, rng.normal(size=(series, n)) * 0.02, (0.5, -1.0, 3.0),
                        z_down, use_kernel)


@needs_kernel
@pytest.mark.parametrize("z_down", [False, True])
def test_the_kernel_computes_the_numpy_specification(z_down):
    body = random_body(z_down)
    assert body.native is not None
    for t in (0.0, 3.7, 1234.5, 10800.0):
        got, want = body.values(t), body.numpy_values(t)
        assert np.abs(got - want).max() <= 1e-13 * max(1.0, np.abs(want).max()), t


def test_z_down_is_the_flip_of_z_up():
    up, down = random_body(False, use_kernel=True), random_body(True, use_kernel=True)
    for t in (0.0, 5.5, 77.0):
        u, d = up.values(t), down.values(t)
        assert d[:3].tolist() == [u[0], -u[1], -u[2]]  # F R F: roll, -pitch, -yaw
        for k in range(3, 21, 3):
            assert d[k:k + 3].tolist() == (FLIP @ u[k:k + 3]).tolist()
        assert d[21:].tolist() == u[21:]  # the scalars (the wave elevation) as they are
        R = rot_z(u[2]) @ rot_y(u[1]) @ rot_x(u[0])
        Rd = rot_z(d[2]) @ rot_y(d[1]) @ rot_x(d[0])
        assert np.allclose(Rd, FLIP @ R @ FLIP, atol=1e-15)


def sim_of(table_file, **sea):
    spec = wave_vessel_spec(table_file)
    values = {v.name: v.start for v in spec.parameters}
    values.update(sea)
    model, x0, options = spec.build(values)
    return CoSimulation(model, x0, **options), model


def test_the_fmu_has_the_sea_parameters_and_the_cranes_motion_names(table_file):
    from crane_models.core.moving_base.interface import BASE_VELOCITY, MOTION
    spec = wave_vessel_spec(table_file)
    names = [v.name for v in spec.parameters]
    assert [v.name for v in sea_parameters()] == names[:len(sea_parameters())] and "z_down" in names
    outputs = [v.name for v in spec.outputs]
    assert outputs[:len(MOTION) + 3] == [n for n, _, _ in tuple(MOTION) + tuple(BASE_VELOCITY)]
    assert {"heave", "wave_elevation", "base_position_x", "base_position_y", "base_position_z"} <= set(outputs)
    assert spec.inputs == [] and len(outputs) == len(OUTPUTS)


def test_a_step_without_state_is_one_evaluation_at_its_end(table_file):
    sim, model = sim_of(table_file)
    assert sim.reach == math.inf
    sim.step(0.01)
    sim.step(1000.0)
    assert sim.t == 1000.01
    assert sim.outputs()["heave"] == float(model.body.values(1000.01)[VALUE_NAMES.index("displacement_z")])


def cross_term_bounds(amplitude, omega, dt, n):
    """``(exact, sigma)`` for |mean of x² over n samples dt apart − Σ A²/2|, x = Σ A_i cos(ω_i t + φ_i):
    x² = ½ Σ_ij A_i A_j [cos(θ_i − θ_j) + cos(θ_i + θ_j)], and the mean of cos(Ω k dt + ψ) over k < n is at most
    m(Ω) = min(1, 1 / (n |sin(Ω dt / 2)|)) in size (a geometric sum). ``exact``: every cross term at its largest
    (any phases); ``sigma``: the standard deviation of their sum over independent uniform phases, the sea's (the
    terms are uncorrelated with zero mean: E[cos(φ_i − φ_j) cos(φ_k − φ_l)] = 0 for different pairs), each term
    at most its bound."""
    A = np.abs(amplitude)
    def m(W):
        return np.minimum(1.0, 1.0 / (n * np.maximum(np.abs(np.sin(0.5 * W * dt)), 1e-300)))
    AA = A[:, None] * A[None, :]
    diff, total = AA * m(omega[:, None] - omega[None, :]), AA * m(omega[:, None] + omega[None, :])
    np.fill_diagonal(diff, 0.0)
    exact = 0.5 * float(diff.sum() + total.sum())
    # i < j pairs of the difference terms appear twice in the double sum (A_i A_j m, counted once per order)
    sigma = math.sqrt(float(np.sum(np.triu(diff, 1) ** 2) + 0.25 * np.sum(total ** 2)) / 2.0)
    return exact, sigma


def test_irregular_heave_variance_is_the_sum_of_rao_squared_energies(table_file, table):
    """Heave over 3 hours (JONSWAP Hs 2.5 m, Tp 8 s, 200 components, 20° off head seas): its mean square equals
    Σ |H(ω_i, β_i)|² a_i² / 2 within 4 standard deviations of the cross terms' averages over random phases
    (cross_term_bounds: 4 sigma is 2.6 % of the variance here; their worst case over all phases, 6.7 %, bounds it
    too): a wrong RAO amplitude, interpolation or a component counted twice is far outside."""
    sim, model = sim_of(table_file, sea_heading=math.pi - 0.35)
    comps = wave_components(SeaState(sea_heading=math.pi - 0.35))
    H = table.at(comps.omega, comps.direction)[2]
    energy = 0.5 * float(np.sum(np.abs(H * comps.amplitude) ** 2))
    dt, n = 0.25, 43200
    heave = np.array([model.body.values(k * dt)[VALUE_NAMES.index("displacement_z")] for k in range(n)])
    exact, sigma = cross_term_bounds(np.abs(H * comps.amplitude), comps.omega, dt, n)
    assert 4 * sigma < 0.04 * energy and exact < 0.1 * energy
    error = abs(np.mean(heave ** 2) - energy)
    print(f"mean square {np.mean(heave ** 2):.5f} m², sum {energy:.5f} m², error {error / energy:.2%}, 4 sigma "
          f"{4 * sigma / energy:.2%}, worst case {exact / energy:.2%}")
    assert error <= min(4 * sigma, exact), (np.mean(heave ** 2), energy, sigma, exact)


def test_irregular_heave_spectrum_is_rao_squared_times_the_sea_spectrum(table_file, table):
    """Welch's spectrum of 3 hours of heave against |H(ω)|² S(ω) integrated over bands of 0.15 rad/s across the
    sea's energy band. Bound: Welch with K = 2T/L − 1 half-overlapping Hann segments of L = 256 s has a relative
    standard deviation of about 1/√(0.53 K) per frequency bin for a Gaussian sea (Welch 1967: 50 % overlap with a
    Hann window keeps ~53 % of the degrees of freedom of independent segments), and a band of M bins about
    1/√(0.53 K M); 4 of those, plus the window's leakage across the band edges (a main lobe of 2 bins of M on either
    side against a slope of S: at most 2/M of the band's energy), bound each band; the sum of the bands within 5 %."""
    sea = SeaState()
    sim, model = sim_of(table_file)
    comps = wave_components(sea)
    dt, duration = 0.25, 3 * 3600.0
    heave = np.array([model.body.values(k * dt)[VALUE_NAMES.index("displacement_z")]
                      for k in range(int(duration / dt))])
    segment = 256.0
    f, p = welch(heave, fs=1 / dt, window="hann", nperseg=int(segment / dt), noverlap=int(segment / dt / 2))
    w, s_w = 2 * math.pi * f, p / (2 * math.pi)  # one-sided density per rad/s
    low, high = energy_band(sea)
    fine = np.linspace(low, high, 4001)
    target = np.abs(table.at(fine, np.full(fine.size, sea.sea_heading))[2]) ** 2 * spectrum(
        sea.sea_spectrum, fine, sea.sea_hs, sea.sea_tp, sea.sea_gamma)
    K = 2 * duration / segment - 1
    bin_width = 2 * math.pi / segment
    edges = np.arange(low, high, 0.15)
    total_want = total_got = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        inside = (fine >= a) & (fine <= b)
        want = np.trapezoid(target[inside], fine[inside])
        got = np.sum(s_w[(w >= a) & (w < b)]) * bin_width
        M = (b - a) / bin_width
        bound = 4 / math.sqrt(0.53 * K * M) + 2 / M
        total_want, total_got = total_want + want, total_got + got
        if want > 0.02 * np.trapezoid(target, fine):  # bands that hold the energy
            assert abs(got - want) <= bound * want, (a, b, got, want, bound)
    assert abs(total_got - total_want) <= 0.05 * total_want


def test_the_default_table_reads_when_it_is_there():
    if not DEFAULT_TABLE.is_file():
        pytest.skip("the package's default RAO table (models/wave_vessel/data/default_rao.csv) is not there yet")
    t = read_rao_table(DEFAULT_TABLE)
    assert t.omega.size >= 2 and np.isfinite(t.values).all()
