"""An FMU carries what it runs (crane_models/fmi/bundle.py): the import analysis of the bundled modules, the
requirements the runtime record states against pyproject.toml, and every FMU (FMI 2.0 and 3.0) loaded and stepped
from its own files only, in a process where the checkout's ``crane_models`` cannot be imported."""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fmu_helpers import build_fmi3_fmus, build_fmus  # noqa: E402

from crane_models.fmi import bundle  # noqa: E402

PACKAGE = Path(bundle.__file__).resolve().parents[1]  # the checkout's crane_models, or the installed copy
CHECKOUT = HERE.parent  # pyproject.toml, tests/, fmu_src/: where the tests run from, installed or not
# The project's code an FMU must not load from outside itself: the package (in the checkout and where pip put it)
# and the slave and build scripts. Not the whole checkout: CI's virtual environment lives inside it.
PROJECT_CODE = (PACKAGE, CHECKOUT / "crane_models", CHECKOUT / "fmu_src", CHECKOUT / "build_scripts")
# The FMI builders copy themselves into every FMU's resources/ (seen in every FMU: test_fmus_carry_the_builders)
BUILDER_PACKAGES = {"pythonfmu", "pythonfmu3"}


def module_name(path: Path) -> str:
    """crane_models/core/kane.py -> core.kane; crane_models/core/__init__.py -> core ('' for the package)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[str, bool, bool]]:
    """(module, relative, inside a function) for each module an import statement of ``path`` loads. Relative
    imports are resolved to names inside crane_models ('core.kane'; the package itself is ''), and
    ``from .x import y`` gives x.y too when y is a module; absolute ones are as written ('numpy.linalg')."""
    own = module_name(path)
    package = own.split(".") if own else []
    if path.name != "__init__.py":
        package = package[:-1]
    every_module = all_modules()
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, False, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0:
                found.append((child.module, False, in_function))
            elif isinstance(child, ast.ImportFrom):
                base = package[:len(package) - (child.level - 1)]
                target = ".".join(base + ([child.module] if child.module else []))
                found.append((target, True, in_function))
                found.extend((f"{target}.{a.name}".lstrip("."), True, in_function) for a in child.names
                             if f"{target}.{a.name}".lstrip(".") in every_module)
            visit(child, nested)

    visit(ast.parse(path.read_text()), False)
    return found


def all_modules() -> set[str]:
    """Every module name of the whole package, bundled or not."""
    return {module_name(p) for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}


def bundled_modules() -> dict[str, Path]:
    return {module_name(p): p for p in bundle.bundled_files(PACKAGE) if p.suffix == ".py"}


def requirement_names() -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower().replace("-", "_") for r in bundle.RUNTIME_REQUIREMENTS}


def test_every_bundled_module_imports_only_what_the_fmu_carries_or_the_target_has():
    """Each import of a bundled module names a bundled module, the standard library, a requirement of the runtime
    record (numpy) or a builder the FMU carries (pythonfmu, pythonfmu3); the only exceptions are the imports in
    functions an FMU never calls, listed with their reason in bundle.NOT_ON_THE_FMU_PATH. An absolute import of
    ``crane_models`` would escape the FMU's own copy (it is renamed per FMU) and is refused too."""
    modules = bundled_modules()
    allowed_outside = set(sys.stdlib_module_names) | requirement_names() | BUILDER_PACKAGES | {"__future__"}
    problems = []
    for name, path in modules.items():
        for target, relative, in_function in imports_of(path):
            top = target.split(".")[0]
            if relative and target not in modules:
                problems.append(f"{name} imports crane_models.{target}, which the FMU does not carry")
            elif not relative and top == "crane_models":
                problems.append(f"{name}: absolute import of {target} (use a relative import)")
            elif not relative and top not in allowed_outside and not (
                    in_function and top in bundle.NOT_ON_THE_FMU_PATH.get(name, {})):
                problems.append(f"{name} imports {target}{' in a function' if in_function else ''}")
    assert not problems, "\n".join(problems)


def test_the_record_requirements_are_what_the_bundled_code_imports():
    """RUNTIME_REQUIREMENTS names exactly the third-party packages the bundled code imports (beyond the builders
    the FMU carries): a stale requirement would make the runtime refuse a Python for nothing."""
    imported = {target.split(".")[0] for path in bundled_modules().values()
                for target, relative, in_function in imports_of(path) if not relative and not in_function}
    third_party = imported - set(sys.stdlib_module_names) - BUILDER_PACKAGES - {"__future__"}
    assert third_party == requirement_names()


def test_requirements_agree_with_pyproject():
    """One truth for the Python version and numpy's bound: pyproject.toml's requires-python and dependency."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11 (tomllib)")
    project = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=" + ".".join(map(str, bundle.MIN_PYTHON))
    for requirement in bundle.RUNTIME_REQUIREMENTS:
        assert requirement in [d.split(";")[0].strip() for d in project["dependencies"]], requirement
    assert all(">=" in r and "," not in r for r in bundle.RUNTIME_REQUIREMENTS)  # what the runtime can check


def test_the_bundle_leaves_out_what_an_fmu_does_not_run():
    files = {p.relative_to(PACKAGE).as_posix() for p in bundle.bundled_files(PACKAGE)}
    left_out = [f for f in files if f.startswith(("app/", "analysis/", "fmi/runtime/")) or f.endswith((".c", ".h"))
                or f in ("fmi/build.py", "fmi/platforms.py", "fmi/packaging.py", "fmi/osp.py", "models/build.py",
                         "simulation/runs.py", "simulation/split_masters.py", "integration/scenario.py")
                or f.endswith("/scenarios.py")]
    assert not left_out
    assert "fmi/adapter.py" in files and "core/kane.py" in files and "integration/integrators.py" in files


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return sorted(build_fmus(tmp_path_factory).glob("*.fmu")) + sorted(build_fmi3_fmus(tmp_path_factory).glob("*.fmu"))


def test_fmus_carry_the_bundle_and_the_builders_only(fmus, tmp_path_factory):
    """Each FMU's copy of the package holds exactly the bundled files -- and the files its build gives it besides
    (the WaveVessel's RAO table, when one is given: models.build.fmu_files) --, with the kernel the build names in its
    manifest (compiled for this machine, build.default_binaries, in place of the one pip compiled); beside it in
    resources/ only the FMI builder (pythonfmu or pythonfmu3, which the slave imports) and no sources/
    (pythonfmu3's C++, run by nobody)."""
    from crane_models.models.build import fmu_files

    besides = fmu_files(None)
    kernel = "core/native/multibody"
    expected = {p.relative_to(PACKAGE).as_posix() for p in bundle.bundled_files(PACKAGE)}
    expected = {f for f in expected if not f.startswith(kernel)}
    for fmu in fmus:
        with zipfile.ZipFile(fmu) as z:
            names = z.namelist()
            builder = "pythonfmu3" if b'fmiVersion="3.0"' in z.read("modelDescription.xml") else "pythonfmu"
        (copy,) = {n.split("/")[1] for n in names if n.endswith("_crane_models/__init__.py")}
        carried = {n[len(f"resources/{copy}/"):] for n in names if n.startswith(f"resources/{copy}/")}
        manifest = json.loads((fmu.parent / "manifest.json").read_text())
        kernels = {f"core/native/{k}" for k in manifest["kernels"].values()}
        assert {f for f in carried if f.startswith(kernel)} == kernels
        assert {f for f in carried if not f.startswith(kernel)} == expected | set(besides.get(fmu.stem, {}))
        own_builder = copy[:-len("crane_models")] + builder  # the builder's copy in the build's namespace too
        assert {n.split("/")[1] for n in names if n.startswith("resources/") and n.count("/") > 1} == {copy, own_builder}
        assert not [n for n in names if n.startswith("sources/")], fmu


LOAD_ALONE = textwrap.dedent("""
    import importlib.abc, sys
    from pathlib import Path

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("crane_models", "crane_cosim_fmu_src", "crane_cosim_build"):
                raise ImportError(f"the FMU imported {name} from outside itself")

    sys.meta_path.insert(0, Refuse())
    from fmpy import extract, simulate_fmu

    fmu, roots = sys.argv[1], [Path(r).resolve() for r in sys.argv[2:]]
    unzipped = Path(extract(fmu)).resolve()
    simulate_fmu(str(unzipped), stop_time=0.05, output_interval=0.01)
    loaded = [m for m in list(sys.modules.values()) if getattr(m, "__file__", None)]
    outside = [m.__name__ for m in loaded if any(Path(m.__file__).resolve().is_relative_to(r) for r in roots)]
    bundled = [m.__name__ for m in loaded if "_crane_models" in m.__name__.split(".")[0]]
    foreign = [n for n in bundled if not Path(sys.modules[n].__file__).resolve().is_relative_to(unzipped)]
    print("bundled", len(bundled), "outside", outside, "foreign", foreign)
""")


def test_every_fmu_runs_from_its_own_files(fmus, tmp_path):
    """fmpy steps each FMU in a fresh process that cannot import the checkout's crane_models (nor the installed
    slave scripts): every module of the FMU's package comes from the FMU's folder, none from the checkout nor from
    the crane_models pip installed (CI installs it into site-packages, not in place)."""
    script = tmp_path / "load_alone.py"
    script.write_text(LOAD_ALONE)
    for fmu in fmus:
        done = subprocess.run([sys.executable, str(script), str(fmu), *map(str, PROJECT_CODE)], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        count, rest = re.match(r"bundled (\d+) (.*)", done.stdout.strip().splitlines()[-1]).groups()
        assert int(count) > 20 and rest == "outside [] foreign []", (fmu, done.stdout)
