"""RAO tables of a hull the user describes, computed with Capytaine (linear potential flow, BEM), written in the
RAO CSV format of docs/sea.md ("RAO tables").

Capytaine is an optional extra (``pip install 'crane-cosim[bem]'``), imported inside the functions that need it;
this module is not bundled into FMUs (``fmi/bundle.py`` LEFT_OUT): an FMU reads the table, it never computes one.

Axes: x forward, y to port, z up, z = 0 the mean free surface. O: for a :class:`BoxHull` midship on the
centreline on the waterline, for a :class:`MeshHull` the mesh's origin. The RAOs: translations of O and rotations
about O per unit wave amplitude, the wave's phase taken at O. Phase: Capytaine's X means Re(X e^{-iωt}) (its wave
cos(ωt) at O), the format's amp·a·cos(ωt + ε + phase): the table holds conj(X).
"""
from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .rao import COLUMNS, DOFS  # the format's one definition (the reader's)

__all__ = ["BoxHull", "MeshHull", "RaoTable", "BemMissing", "hull_raos", "write_rao_csv", "default_omegas",
           "default_headings", "DOFS", "COLUMNS", "ROLL_DAMPING", "SEAWATER_DENSITY", "GRAVITY"]

CAPYTAINE_DOFS = ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")  # the DOFS of the format (.rao), in its order
SEAWATER_DENSITY = 1025.0  # kg/m³
GRAVITY = 9.81  # m/s²
# Linear roll damping added to the BEM's, as a fraction of critical at the roll natural frequency. Potential flow
# has only wave-radiation damping, ~1-2 % of critical in roll for a ship-like hull: the roll peak would be several
# times any measured one. The viscous part (bilge eddies, skin friction, bilge keels; Ikeda's components) of a
# vessel at zero speed is 3-10 % of critical in moderate seas; 5 % is the low, conservative end (a larger roll
# peak, larger crane loads) and a linear table cannot follow its growth with the roll amplitude.
ROLL_DAMPING = 0.05
INSTALL_HINT = "pip install 'crane-cosim[bem]'"


class BemMissing(RuntimeError):
    """Capytaine is not installed: the message says what to install."""


@dataclass(frozen=True)
class BoxHull:
    """A box-shaped hull (a barge): length, beam and draught [m]; ``kg`` the height of the centre of gravity
    above the keel [m]; ``radii`` of gyration about the centre of gravity in roll, pitch and yaw [m]. Its mass is
    the displaced water's (a free-floating body at its draught), its centre of gravity on the centreline midship."""
    length: float
    beam: float
    draught: float
    kg: float
    radii: tuple

    def check(self) -> None:
        for name in ("length", "beam", "draught"):
            _positive(f"hull {name}", getattr(self, name))
        _radii_ok(self.radii)
        if not (math.isfinite(self.kg) and 0 < self.kg < self.metacentre()):
            raise ValueError(f"hull kg = {self.kg} m: must lie in (0, KM = KB + BM = {self.metacentre():.4g}) m, "
                             "the metacentre's height above the keel of this box (above it GM <= 0: it capsizes)")

    def metacentre(self) -> float:
        """KM = KB + BM [m] above the keel: KB = T/2, BM = B²/(12 T) for a box."""
        return self.draught / 2 + self.beam ** 2 / (12 * self.draught)

    def description(self) -> list[str]:
        return [f"hull: box, length {self.length:g} m, beam {self.beam:g} m, draught {self.draught:g} m, "
                f"KG {self.kg:g} m above keel (GM {self.metacentre() - self.kg:.4g} m), radii of gyration about "
                f"the centre of gravity kxx {self.radii[0]:g} m, kyy {self.radii[1]:g} m, kzz {self.radii[2]:g} m",
                "reference point O: midship, on the centreline, on the mean waterline (the centre of gravity is "
                f"{self.kg - self.draught:g} m above O)"]


@dataclass(frozen=True)
class MeshHull:
    """A hull from a mesh file Capytaine reads (``.stl``, ``.pnl``, ``.dat``, ``.gdf``, ``.msh``, ...), in the
    axes of this module with O at the mesh's origin and z = 0 the mean free surface (the part above is cut off);
    ``center_of_gravity`` (x, y, z) [m] in the mesh's coordinates; ``radii`` of gyration about it [m]. The mass is
    the displaced water's; the centre of gravity must be above the centre of buoyancy (equilibrium)."""
    path: Path
    center_of_gravity: tuple
    radii: tuple

    def check(self) -> None:
        if not Path(self.path).is_file():
            raise ValueError(f"mesh file {self.path}: not found (a file Capytaine reads: .stl, .pnl, .dat, .gdf, ...)")
        if len(self.center_of_gravity) != 3 or not all(math.isfinite(v) for v in self.center_of_gravity):
            raise ValueError(f"centre of gravity {self.center_of_gravity}: must be three finite numbers x,y,z [m]")
        _radii_ok(self.radii)

    def description(self) -> list[str]:
        x, y, z = self.center_of_gravity
        return [f"hull: mesh {Path(self.path).name}, centre of gravity ({x:g}, {y:g}, {z:g}) m from O, radii of "
                f"gyration kxx {self.radii[0]:g} m, kyy {self.radii[1]:g} m, kzz {self.radii[2]:g} m",
                "reference point O: the origin of the mesh's coordinates (z = 0 the mean free surface)"]


@dataclass
class RaoTable:
    """RAOs [omega, heading, dof] in the format's convention: motion j = Re(rao · a e^{i(ωt + ε)}) for the wave
    a cos(ωt + ε) at O; ``notes`` the computation's comment lines; for checks the coefficients about O (e^{-iωt}):
    mass matrix, stiffness, added mass and damping (with the added roll damping), excitation per unit amplitude."""
    omegas: np.ndarray
    headings: np.ndarray
    rao: np.ndarray
    notes: list = field(default_factory=list)
    mass_matrix: np.ndarray | None = None
    stiffness: np.ndarray | None = None
    added_mass: np.ndarray | None = None
    damping: np.ndarray | None = None
    excitation: np.ndarray | None = None


def _positive(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} = {value}: must be a finite number > 0")


def _radii_ok(radii) -> None:
    if len(radii) != 3:
        raise ValueError(f"radii of gyration {radii}: must be three numbers kxx,kyy,kzz [m]")
    for name, value in zip(("kxx", "kyy", "kzz"), radii):
        _positive(f"radius of gyration {name}", value)


def default_omegas() -> np.ndarray:
    """78 wave frequencies [rad/s] from 0.1 to 2.5: every 0.05 below 0.3 (long waves, the hull follows them),
    every 0.015 from 0.3 to 1.2 where the roll (period 10-20 s) and heave/pitch (6-10 s) resonances of offshore
    vessels lie, every 0.1 above (short waves, small responses)."""
    return np.round(np.concatenate([np.arange(0.10, 0.30 - 1e-9, 0.05), np.arange(0.30, 1.20 - 1e-9, 0.015),
                                    np.arange(1.20, 2.50 + 1e-9, 0.10)]), 6)


def default_headings(step_deg: float = 15.0) -> np.ndarray:
    """Headings [rad] over the full circle, 0 (following seas) to 360° - step."""
    return np.radians(np.arange(0.0, 360.0 - 1e-9, step_deg))


def check_grid(omegas: np.ndarray, headings: np.ndarray) -> None:
    """Frequencies finite, > 0, increasing; headings finite in [-2π, 2π], distinct."""
    omegas, headings = np.asarray(omegas, float), np.asarray(headings, float)
    if omegas.size < 2 or not np.all(np.isfinite(omegas)) or np.any(omegas <= 0) or np.any(np.diff(omegas) <= 0):
        raise ValueError("omegas: at least 2 finite wave frequencies > 0 rad/s in increasing order")
    if headings.size < 1 or not np.all(np.isfinite(headings)) or np.any(np.abs(headings) > 2 * np.pi) \
            or np.unique(headings).size != headings.size:
        raise ValueError("headings: distinct finite angles in [-2π, 2π] rad")


def _capytaine():
    try:
        import capytaine
    except ImportError:
        raise BemMissing(f"computing RAOs needs Capytaine: {INSTALL_HINT}") from None
    return capytaine


def box_mesh(cpt, hull: BoxHull, panel_size: float, lid_z: float | None = None):
    """The wetted surface of the box (bottom and sides, z from -T to 0), built from a quarter with the two
    symmetry planes xOz and yOz: Capytaine then solves four smaller systems instead of one (about 4x faster).
    With ``lid_z`` the sides have a row of vertices at that height: a lid whose edge crossed a side panel at its
    centre (its collocation point) would make the Green function singular (NaN)."""
    nx, ny = (max(1, math.ceil(s / 2 / panel_size)) for s in (hull.length, hull.beam))
    bands = [(0.0, -hull.draught)] if lid_z is None else [(0.0, lid_z), (lid_z, -hull.draught)]
    parts = []
    for top, bottom in bands:
        height = top - bottom
        missing = {"top", "right", "back"} | ({"bottom"} if bottom > -hull.draught else set())
        parts.append(cpt.mesh_parallelepiped(size=(hull.length / 2, hull.beam / 2, height),
                                             center=(-hull.length / 4, -hull.beam / 4, (top + bottom) / 2),
                                             resolution=(nx, ny, max(1, math.ceil(height / panel_size))),
                                             missing_sides=missing))  # right: x = 0, back: y = 0, the mirrors
    quarter = parts[0] if len(parts) == 1 else parts[0].join_meshes(*parts[1:])
    return _mirrored_twice(cpt, quarter)


def _mirrored_twice(cpt, quarter):
    """The full mesh from its quarter at x <= 0, y <= 0, as Capytaine's symmetric mesh (xOz and yOz)."""
    return cpt.ReflectionSymmetricMesh(cpt.ReflectionSymmetricMesh(quarter, plane="yOz"), plane="xOz")


def box_lid(cpt, hull: BoxHull, panel_size: float, z: float):
    """The box's waterplane at height ``z`` (< 0) as a lid, normals down, symmetric as :func:`box_mesh`, its edge
    half a panel inside the hull, as the lids Capytaine generates (faces wholly inside): a lid touching the sides
    loses 4-8 % of the Haskind relation's agreement between radiation damping and wave forces at 1.4-1.8 rad/s on
    a 20 m box, an inset one 0.5-1.5 %. Capytaine's generate_lid finds no face inside this box: written out."""
    inset = panel_size / 2
    nx, ny = (max(1, math.ceil((s / 2 - inset) / panel_size)) for s in (hull.length, hull.beam))
    xs = np.linspace(-hull.length / 2 + inset, 0.0, nx + 1)
    ys = np.linspace(-hull.beam / 2 + inset, 0.0, ny + 1)
    vertices = np.array([(x, y, z) for x in xs for y in ys])
    index = np.arange(vertices.shape[0]).reshape(nx + 1, ny + 1)
    faces = np.array([(index[i, j], index[i, j + 1], index[i + 1, j + 1], index[i + 1, j])
                      for i in range(nx) for j in range(ny)])  # Capytaine turns the normals down
    return _mirrored_twice(cpt, cpt.Mesh(vertices=vertices, faces=faces, name="lid"))


def mesh_from_file(cpt, hull: MeshHull):
    try:
        mesh = cpt.load_mesh(str(hull.path))
    except Exception as exc:  # Capytaine and meshio raise many kinds; the user needs the file and the reason
        raise ValueError(f"mesh file {hull.path}: Capytaine cannot read it ({type(exc).__name__}: {exc})") from None
    mesh = mesh.immersed_part()
    if mesh.nb_faces == 0:
        raise ValueError(f"mesh file {hull.path}: no panel below z = 0 (z = 0 is the mean free surface)")
    return mesh


def rigid_body_mass_matrix(mass: float, cog: np.ndarray, radii) -> np.ndarray:
    """The 6x6 mass matrix about O of a body with centre of gravity ``cog`` (from O) and principal radii of
    gyration about it along x, y, z: [[m I, -m [r]x], [m [r]x, I_G - m [r]x [r]x]] (momentum m (v_O + ω x r),
    moment of momentum about O)."""
    r = np.asarray(cog, float)
    cross = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * cross
    out[3:, :3] = mass * cross
    out[3:, 3:] = mass * np.diag(np.asarray(radii, float) ** 2) - mass * cross @ cross
    return out


def hull_raos(hull: BoxHull | MeshHull, omegas=None, headings=None, *, roll_damping: float = ROLL_DAMPING,
              panel_size: float = 1.7, rho: float = SEAWATER_DENSITY, g: float = GRAVITY,
              n_jobs: int = 1, progress: bool = False) -> RaoTable:
    """6-DOF RAOs of ``hull`` at O in deep water, zero forward speed, by Capytaine (radiation and diffraction,
    irregular frequencies removed with a lid), its hydrostatic stiffness and the hull's mass matrix, plus a linear
    roll damping ``roll_damping`` x critical (see :data:`ROLL_DAMPING`). ``panel_size`` [m] the box's panels
    (a mesh file is used as it is); ``progress``: Capytaine's progress bar. Inputs are checked first."""
    omegas = default_omegas() if omegas is None else np.asarray(omegas, float)
    headings = default_headings() if headings is None else np.asarray(headings, float)
    check_grid(omegas, headings)
    hull.check()
    for name, value in (("panel size", panel_size), ("rho", rho), ("g", g)):
        _positive(name, value)
    if not (math.isfinite(roll_damping) and 0 <= roll_damping < 1):
        raise ValueError(f"roll damping = {roll_damping}: a fraction of critical in [0, 1)")
    cpt = _capytaine()
    body, lid_z = hull_body(cpt, hull, omegas, panel_size, g)
    mass = float(body.disp_mass(rho=rho))
    if isinstance(hull, MeshHull):
        _check_equilibrium(hull, body, body.center_of_mass)
    stiffness = hydrostatic_stiffness(cpt, body, rho, g)
    inertia = rigid_body_mass_matrix(mass, body.center_of_mass, hull.radii)
    added, damping, force = bem_coefficients(cpt, body, omegas, headings, rho, g, n_jobs, progress)
    effective_roll_inertia = roll_inertia(omegas, inertia, added)
    roll_omega = natural_frequency(omegas, stiffness[3, 3], effective_roll_inertia)
    roll_total = effective_roll_inertia(roll_omega)
    extra = np.zeros((6, 6))
    extra[3, 3] = 2 * roll_damping * math.sqrt(stiffness[3, 3] * roll_total)
    motions = solve_motions(omegas, inertia, added, damping + extra, stiffness, force)
    notes = [*hull.description(),
             f"mass {mass:.6g} kg (the displaced water's, rho {rho:g} kg/m3), g {g:g} m/s2, deep water, "
             "zero forward speed",
             f"hydrostatic stiffness C33 {stiffness[2, 2]:.6g} N/m, C44 {stiffness[3, 3]:.6g} N m/rad, "
             f"C55 {stiffness[4, 4]:.6g} N m/rad (Capytaine, 2x2 Gauss points per panel)",
             f"roll natural frequency {roll_omega:.4g} rad/s (period {2 * math.pi / roll_omega:.4g} s), roll "
             # less m kxx² (inertia about O less the sway coupling in air M24² / M22 = m z_G²)
             f"added inertia A44 {roll_total - inertia[3, 3] + inertia[1, 3] ** 2 / inertia[1, 1]:.6g} kg m2 about the "
             "centre of gravity, sway-decoupled (I44 + A44 - (M24 + A24)^2 / (m + A22) - m kxx^2)",
             f"roll damping: the BEM's radiation damping plus a linear {roll_damping:g} of critical, "
             f"B44 {extra[3, 3]:.6g} N m s/rad = 2 zeta sqrt(C44 (I44 + A44)) at the roll natural frequency",
             *natural_frequency_notes(omegas, inertia, added, stiffness),
             "limits: linear (motions and wave amplitude small against the draught), deep water, zero forward "
             "speed, no mooring or dynamic positioning (surge, sway and yaw have no restoring), no crane or "
             "payload feedback on the hull, roll damping linear (as above), above the highest omega the table "
             "means no response",
             f"mesh: {body.mesh.nb_faces} hull panels "
             f"({f'panel size {panel_size:g} m' if isinstance(hull, BoxHull) else Path(hull.path).name}), lid of "
             f"{body.lid_mesh.nb_faces if body.lid_mesh is not None else 0} panels at z = "
             f"{lid_z:.3g} m (irregular frequencies removed)"]
    return RaoTable(omegas=omegas, headings=headings, rao=np.conj(motions), notes=notes, mass_matrix=inertia,
                    stiffness=stiffness, added_mass=added, damping=damping + extra, excitation=force)


def hull_body(cpt, hull: BoxHull | MeshHull, omegas, panel_size: float, g: float):
    """Capytaine's floating body of ``hull`` (its six rigid-body motions about O, its centre of gravity, its lid)
    and the lid's height."""
    if isinstance(hull, BoxHull):
        lid_z = _lid_height(box_mesh(cpt, hull, panel_size), omegas, g)
        mesh, cog = box_mesh(cpt, hull, panel_size, lid_z), (0.0, 0.0, hull.kg - hull.draught)
        lid = box_lid(cpt, hull, panel_size, lid_z)
    else:
        mesh, cog = mesh_from_file(cpt, hull), hull.center_of_gravity
        lid_z = _lid_height(mesh, omegas, g)
        lid = mesh.generate_lid(z=lid_z)
    body = cpt.FloatingBody(mesh=mesh, lid_mesh=lid, dofs=cpt.rigid_body_dofs(rotation_center=(0.0, 0.0, 0.0)),
                            center_of_mass=np.asarray(cog, float), name="hull")
    return body, lid_z


def bem_coefficients(cpt, body, omegas, headings, rho: float, g: float, n_jobs: int, progress: bool):
    """Added mass and radiation damping (omega, 6, 6) and wave exciting force (omega, heading, 6) about O, in
    deep water, from Capytaine's radiation and diffraction problems (e^{-iωt})."""
    import xarray as xr  # a dependency of Capytaine

    problems = xr.Dataset(coords={"omega": omegas, "wave_direction": headings,
                                  "radiating_dof": list(CAPYTAINE_DOFS), "water_depth": [np.inf],
                                  "rho": [rho], "g": [g]})
    data = cpt.BEMSolver().fill_dataset(problems, body, n_jobs=n_jobs, progress_bar=progress)
    data = data.squeeze([d for d in ("water_depth", "rho", "g") if d in data.dims], drop=True)
    dofs = dict(influenced_dof=list(CAPYTAINE_DOFS), radiating_dof=list(CAPYTAINE_DOFS))
    matrix = ("omega", "influenced_dof", "radiating_dof")
    added = data["added_mass"].sel(**dofs).transpose(*matrix).values
    damping = data["radiation_damping"].sel(**dofs).transpose(*matrix).values
    force = data["excitation_force"].sel(influenced_dof=list(CAPYTAINE_DOFS)).transpose(
        "omega", "wave_direction", "influenced_dof").values
    return added, damping, force


def hydrostatic_stiffness(cpt, body, rho: float, g: float) -> np.ndarray:
    """Capytaine's hydrostatic stiffness about O, its waterplane moments integrated with 2x2 Gauss points per
    panel: exact for flat panels, where the panels' centres alone make the box's C44 too low by
    rho g L B dy^2 / 12 (1 % of it with 1.7 m panels, 6 % with 4 m). Only here: the BEM keeps one point."""
    exact = cpt.FloatingBody(mesh=body.mesh.with_quadrature("Gauss-Legendre 2"), dofs=body.dofs,
                             center_of_mass=body.center_of_mass, name="hull")
    return exact.compute_hydrostatic_stiffness(rho=rho, g=g).values


def _lid_height(mesh, omegas, g: float) -> float:
    """The lid's height: a tenth of the draught below the waterline, or higher when Capytaine's lowest position
    (a layer above the lid thin enough that its first irregular frequency lies beyond the highest omega) is.
    Near the waterline, as the classic lid: on a 20 m box the Haskind relation holds to 0.5-1.5 % with the lid
    at 0.1 T, to 1-3 % at 0.5 T (its lowest position for 1.8 rad/s)."""
    with np.errstate(invalid="ignore"):  # arctanh(x > 1): no lid depth makes an irregular frequency that low
        lowest = float(mesh.lowest_lid_position(omega_max=float(np.max(omegas)), g=g))
    near = 0.1 * float(mesh.z_span[0])
    return max(lowest, near) if math.isfinite(lowest) and lowest < 0 else near


def _check_equilibrium(hull: MeshHull, body, cog: np.ndarray) -> None:
    """A linear RAO is about an equilibrium: the centre of gravity above the centre of buoyancy."""
    cob = np.asarray(body.center_of_buoyancy, float)
    size = float(np.ptp(body.mesh.vertices[:, 0]))
    if np.hypot(*(cog[:2] - cob[:2])) > 0.005 * size:
        raise ValueError(f"centre of gravity {tuple(hull.center_of_gravity)}: not above the centre of buoyancy "
                         f"({cob[0]:.4g}, {cob[1]:.4g}) of {hull.path} within 0.5 % of its length: not an "
                         "equilibrium at this waterline")


def solve_motions(omegas, inertia, added, damping, stiffness, force) -> np.ndarray:
    """Capytaine's complex motions X [omega, heading, dof] (e^{-iωt}): (-ω² (M + A) - iω B + C) X = F."""
    out = np.empty(force.shape, complex)
    for i, w in enumerate(omegas):
        impedance = -w ** 2 * (inertia + added[i]) - 1j * w * damping[i] + stiffness
        out[i] = np.linalg.solve(impedance, force[i].T).T
    return out


def natural_frequency(omegas, stiffness: float, inertia) -> float:
    """The undamped natural frequency w = sqrt(C / I(w)), ``inertia`` a function of w (with the added inertia
    interpolated on the grid): a fixed point, as the added inertia varies with w."""
    w = math.sqrt(stiffness / inertia(float(omegas[0])))
    for _ in range(100):
        w = math.sqrt(stiffness / inertia(w))
    return w


def roll_inertia(omegas, inertia, added):
    """The effective roll inertia of the sway-roll pair at w: I44 + A44 - (M24 + A24)² / (m + A22) (sway has no
    stiffness; the same about any point on the centre plane)."""
    def at(w: float) -> float:
        m = inertia[np.ix_((1, 3), (1, 3))] + [[np.interp(w, omegas, added[:, i, j]) for j in (1, 3)] for i in (1, 3)]
        return m[1, 1] - m[0, 1] * m[1, 0] / m[0, 0]
    return at


def natural_frequency_notes(omegas, inertia, added, stiffness) -> list[str]:
    """Undamped heave and pitch natural periods from the diagonal terms."""
    notes = []
    for name, j in (("heave", 2), ("pitch", 4)):
        w = natural_frequency(omegas, stiffness[j, j], lambda w: inertia[j, j] + np.interp(w, omegas, added[:, j, j]))
        notes.append(f"{name} natural frequency {w:.4g} rad/s (period {2 * math.pi / w:.4g} s), "
                     f"A{j + 1}{j + 1} {np.interp(w, omegas, added[:, j, j]):.6g} there")
    return notes


def write_rao_csv(path, table: RaoTable, comments=()) -> Path:
    """Write ``table`` in the RAO CSV format: ``#`` comment lines (``comments`` then the table's notes), the header
    of :data:`COLUMNS`, one row per (omega, heading), amplitudes [m/m or rad/m] and phases [rad] in (-π, π]."""
    path = Path(path)
    lines = [f"# {line}" for line in (*comments, *table.notes)]
    lines.append(",".join(COLUMNS))
    for i, w in enumerate(table.omegas):
        for h, heading in enumerate(table.headings):
            values = [f"{w:.6g}", f"{heading:.12g}"]
            for z in table.rao[i, h]:
                values += [f"{abs(z):.8e}", f"{np.angle(z):.8f}"]
            lines.append(",".join(values))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def provenance(command: str) -> list[str]:
    """Comment lines naming when, with which Capytaine, and how a table was made."""
    cpt = _capytaine()
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    return [f"computed {today} with Capytaine {cpt.__version__} (linear potential flow, BEM) by "
            "crane_models/models/wave_vessel/capytaine_rao.py", f"regenerate: {command}"]
