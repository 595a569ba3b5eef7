"""The workflow's last two jobs, runnable anywhere with Python and fmpy (no crane_models import: the merge runner
installs only fmpy). ``.ci/merge`` and ``.ci/release`` call them.

``python build_scripts/release.py merge DIST KERNELS_CROSS KERNELS_NATIVE OUT``: every FMU of ``DIST`` against
the manifest's sha256 and ``fmpy validate``; the natively built kernels against the cross-built ones (a
difference is a warning: zig is hermetic, but a runner's zig may differ; a platform without a native build, a
notice); then the release assets into ``OUT`` (:func:`assemble`).

``python build_scripts/release.py publish OUT [TAG] [--dry-run]``: ``gh release create TAG`` with the assets of
``OUT`` after checking them against ``SHA256SUMS`` and the tag against the FMUs' project version; ``--dry-run``
prints what it would publish and publishes nothing (TAG defaults to ``v<project version>`` there).

Release assets (flat, no two alike): ``<Model>-fmi2.fmu`` and ``<Model>-fmi3.fmu`` (the dist's
``fmi2/<Model>.fmu``, ``fmi3/<Model>.fmu``, same bytes), ``crane-cosim-<version>-fmus.zip`` (the dist's
``fmi2/`` -- with the OSP files, whose system structures name the FMUs as ``<Model>.fmu`` -- ``fmi3/`` and
``manifest.json``), ``crane-cosim-<version>-cross-check.zip``, ``manifest.json`` (with each FMU's asset name) and
``SHA256SUMS`` (every other asset).
"""
from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # every zip entry's time stamp: the same dist gives the same zip
SUMS = "SHA256SUMS"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def asset_name(entry: dict) -> str:
    """``KnuckleBoomCrane-fmi2.fmu`` for the FMI 2.0 FMU of the manifest entry."""
    return f"{entry['name']}-fmi{entry['fmi_version'].split('.')[0]}.fmu"


def fmu_problems(dist: Path, manifest: dict) -> list:
    """An FMU missing, not the manifest's bytes, or failing ``fmpy.validation.validate_fmu``."""
    from fmpy.validation import validate_fmu

    problems = []
    for entry in manifest["fmus"]:
        path = dist / entry["file"]
        if not path.is_file():
            problems.append(f"{entry['file']}: missing")
        elif sha256(path) != entry["sha256"]:
            problems.append(f"{entry['file']}: sha256 differs from the manifest's")
        else:
            problems += [f"{entry['file']}: {p}" for p in validate_fmu(str(path))]
    return problems


def kernel_differences(cross: Path, native: Path) -> tuple:
    """(warnings, notices): natively built kernels that differ from the cross-built ones; platforms with a
    cross-built kernel but no native build."""
    warnings, notices = [], []
    built = {p.relative_to(native).as_posix() for p in native.rglob("*") if p.is_file()} if native.is_dir() else set()
    for path in sorted(p for p in cross.rglob("*") if p.is_file()):
        name = path.relative_to(cross).as_posix()
        if name not in built:
            notices.append(f"{name}: no natively built kernel to compare with (no native job built it)")
        elif filecmp.cmp(path, native / name, shallow=False):
            print(f"identical: {name}")
        else:
            warnings.append(f"the natively built {name} differs from the cross-built one")
    return warnings, notices


def deterministic_zip(dest: Path, root: Path, members: list) -> Path:
    """``members`` (paths under ``root``, folders taken whole) into ``dest``, sorted, fixed time stamps."""
    files = sorted({f for m in members for f in ([m] if m.is_file() else m.rglob("*")) if f.is_file()})
    with zipfile.ZipFile(dest, "w") as z:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=ZIP_EPOCH)
            info.external_attr, info.create_system, info.compress_type = 0o644 << 16, 3, zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes(), compresslevel=9)
    return dest


def assemble(dist: Path, out: Path, manifest: dict) -> list:
    """The release assets (module docstring) into ``out``; returns their paths, ``SHA256SUMS`` last."""
    out.mkdir(parents=True, exist_ok=True)
    version, assets = manifest["project_version"], []
    released = dict(manifest, fmus=[dict(e, asset=asset_name(e)) for e in manifest["fmus"]])
    for entry in released["fmus"]:
        assets.append(Path(shutil.copyfile(dist / entry["file"], out / entry["asset"])))
    folders = sorted({Path(e["file"]).parts[0] for e in manifest["fmus"]})
    assets.append(deterministic_zip(out / f"crane-cosim-{version}-fmus.zip", dist,
                                    [dist / f for f in folders] + [dist / "manifest.json"]))
    if (dist / "cross-check").is_dir():
        assets.append(deterministic_zip(out / f"crane-cosim-{version}-cross-check.zip", dist, [dist / "cross-check"]))
    (out / "manifest.json").write_text(json.dumps(released, indent=2) + "\n")
    assets.append(out / "manifest.json")
    (out / SUMS).write_text("".join(f"{sha256(p)}  {p.name}\n" for p in sorted(assets)))
    return sorted(assets) + [out / SUMS]


def merge(dist: Path, kernels_cross: Path, kernels_native: Path, out: Path) -> int:
    manifest = json.loads((dist / "manifest.json").read_text())
    problems = fmu_problems(dist, manifest)
    warnings, notices = kernel_differences(kernels_cross, kernels_native)
    for line in notices:
        print(f"::notice title=not compared::{line}")
    for line in warnings:
        print(f"::warning title=kernel differs::{line}")
    for line in problems:
        print(f"::error title=merge::{line}")
    if problems:
        return 1
    for path in assemble(dist, out, manifest):
        print(f"{path.name}  {path.stat().st_size} bytes")
    return 0


def release_notes(manifest: dict) -> str:
    fmus = sorted({e["name"] for e in manifest["fmus"]})
    versions = sorted({e["fmi_version"] for e in manifest["fmus"]})
    kernels = ", ".join(sorted(manifest.get("kernels", {}))) or "the build machine only"
    return (f"crane-cosim {manifest['project_version']}: {len(fmus)} crane FMUs ({', '.join(fmus)}) for FMI "
            f"{' and '.join(versions)}, each with the compiled kernel for {kernels}.\n\n"
            "`<Model>-fmi2.fmu` / `<Model>-fmi3.fmu`: the FMUs; the `-fmus.zip` holds them under their model names "
            "with the OSP files (FMI 2.0) and manifest.json; the `-cross-check.zip` holds the reference results in "
            "the FMI cross-check layout, reproducible with fmpy from each folder alone. Check downloads with "
            "`sha256sum -c SHA256SUMS`.\n")


def publish(out: Path, tag: str, dry_run: bool) -> int:
    manifest = json.loads((out / "manifest.json").read_text())
    version = manifest["project_version"]
    if tag != f"v{version}":
        print(f"::error title=release::tag {tag} does not name the FMUs' project version {version} (expected "
              f"v{version})")
        return 1
    listed = [line.split(None, 1) for line in (out / SUMS).read_text().splitlines() if line.strip()]
    wrong = [name for digest, name in listed if not (out / name).is_file() or sha256(out / name) != digest]
    if wrong:
        print(f"::error title=release::assets missing or not matching {SUMS}: {', '.join(wrong)}")
        return 1
    assets = [out / name for _, name in listed] + [out / SUMS]
    with tempfile.TemporaryDirectory() as scratch:
        notes = Path(scratch) / "notes.md"
        notes.write_text(release_notes(manifest))
        command = ["gh", "release", "create", tag, "--title", f"crane-cosim {tag}", "--notes-file", str(notes),
                   *[str(p) for p in assets]]
        if not dry_run:
            return subprocess.run(command).returncode
        print(f"dry run: would publish release {tag} with {len(assets)} assets:")
        for path in assets:
            print(f"  {path.name:<50} {path.stat().st_size:>10} bytes")
        print("notes:\n" + notes.read_text())
        print("command: " + " ".join(command))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="release.py")
    sub = parser.add_subparsers(dest="action", required=True)
    m = sub.add_parser("merge", help="check the dist and the kernels, assemble the release assets")
    for name in ("dist", "kernels_cross", "kernels_native", "out"):
        m.add_argument(name, type=Path)
    p = sub.add_parser("publish", help="gh release create TAG with the assets (or --dry-run)")
    p.add_argument("out", type=Path)
    p.add_argument("tag", nargs="?", help="the git tag, v<project version> (default with --dry-run: that one)")
    p.add_argument("--dry-run", action="store_true", help="print what would be published, publish nothing")
    args = parser.parse_args(argv)
    needed = [args.dist / "manifest.json"] if args.action == "merge" else [args.out / "manifest.json", args.out / SUMS]
    missing = [str(path) for path in needed if not path.is_file()]
    if missing:  # not what .ci/build-artifacts or the merge writes: one line, before any work
        print(f"::error title=release.py {args.action}::{', '.join(missing)} not found: "
              f"{'DIST must be the dist of .ci/build-artifacts' if args.action == 'merge' else 'OUT must be the release folder of .ci/merge'}")
        return 2
    if args.action == "merge":
        return merge(args.dist, args.kernels_cross, args.kernels_native, args.out)
    tag = args.tag
    if tag is None and args.dry_run:
        tag = "v" + json.loads((args.out / "manifest.json").read_text())["project_version"]
    if tag is None:
        parser.error("publish needs the TAG (only --dry-run defaults it)")
    return publish(args.out, tag, args.dry_run)


if __name__ == "__main__":
    sys.exit(main())
