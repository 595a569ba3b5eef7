"""The README stays in step with the code: its table of FMUs names every FMU of the registry and only variables those
FMUs have, every `crane-cosim` command of its shell blocks is a command that answers `--help`, the ship section names
variables the moving-base cranes have, and every file and link it points to exists.

Each check is a function from the README's text to a list of problems, so that the tests below can also show that each
check fails on a README with one thing broken (``test_each_check_finds_a_broken_readme``)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

import pytest

from crane_models.models.registry import SPECS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# Paths in the README's inline code that are made by the commands, not files of the repository.
MADE_BY_COMMANDS = ("crane-cosim-out", "fmus")
MOVING_BASE_CRANES = ("KnuckleBoomCraneOnMovingBase", "CraneOnMovingBase")


def section(text: str, heading: str) -> str:
    """The text under ``## heading`` (its ``###`` subsections included) up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README has no section '## {heading}'"
    return match.group(1)


def subsection(text: str, heading: str) -> str:
    match = re.search(rf"^### {re.escape(heading)}\n(.*?)(?=^##|\Z)", text, re.S | re.M)
    assert match, f"README has no section '### {heading}'"
    return match.group(1)


def code_spans(cell: str) -> list:
    return re.findall(r"`([^`\n]+)`", cell)


def fenced_blocks(text: str, language: str) -> list:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def outside_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


@lru_cache(maxsize=None)
def variables(fmu: str) -> dict:
    spec = SPECS[fmu]()
    return {"inputs": [v.name for v in spec.inputs], "outputs": [v.name for v in spec.outputs],
            "all": [v.name for v in spec.variables()]}


# ---------------------------------------------------------------------------------------------------- the FMU table

def fmu_table(text: str) -> list:
    """Rows of the table under '## The FMUs': (FMU, input patterns, output patterns)."""
    lines = [line.strip() for line in section(text, "The FMUs").splitlines() if line.strip().startswith("|")]
    header = [c.strip().lower() for c in lines[0].strip("|").split("|")]
    i_in, i_out = header.index("inputs"), header.index("outputs")
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((cells[0].strip("`"), code_spans(cells[i_in]), code_spans(cells[i_out])))
    return rows


def fmu_table_problems(text: str) -> list:
    rows = fmu_table(text)
    names = [name for name, _, _ in rows]
    problems = [f"FMU {n} has no row in the README's FMU table" for n in SPECS if n not in names]
    problems += [f"the FMU table's row {n} names no FMU of the registry" for n in names if n not in SPECS]
    problems += [f"the FMU table has {n} twice" for n in set(names) if names.count(n) > 1]
    for name, inputs, outputs in rows:
        if name not in SPECS:
            continue
        for kind, patterns in (("inputs", inputs), ("outputs", outputs)):
            if not patterns and variables(name)[kind]:  # an FMU without inputs (the WaveVessel) says so in words
                problems.append(f"{name}: the FMU table lists no {kind}")
            problems += [f"{name}: {p!r} in the table's {kind} matches none of the FMU's {kind}"
                         for p in patterns if not any(fnmatchcase(v, p) for v in variables(name)[kind])]
    return problems


def test_the_fmu_table_lists_every_fmu_with_its_own_inputs_and_outputs():
    assert fmu_table_problems(README.read_text()) == []


# ---------------------------------------------------------------------------------------------- the ship section

def ship_section_problems(text: str) -> list:
    """Variable names in 'Your own ship simulator' exist in both moving-base crane FMUs."""
    names = [t for t in code_spans(subsection(text, "Your own ship simulator"))
             if re.fullmatch(r"[a-z][a-z0-9_*]*", t) and t not in ("true", "false")]
    problems = [] if names else ["the ship section names no variable"]
    for fmu in MOVING_BASE_CRANES:
        problems += [f"{fmu} has no variable matching {n!r} (README, Your own ship simulator)"
                     for n in names if not any(fnmatchcase(v, n) for v in variables(fmu)["all"])]
    return problems


def test_the_ship_section_names_variables_of_the_moving_base_cranes():
    assert ship_section_problems(README.read_text()) == []


# -------------------------------------------------------------------------------------------------- shell commands

def shell_commands(text: str) -> list:
    """Every simple command of the README's bash blocks, as a token list (continuation lines joined, comments off,
    split at &&, ||, ; and |)."""
    commands = []
    for block in fenced_blocks(text, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split, lexer.commenters = True, "#"
            command = []
            for token in lexer:
                if token in ("&&", "||", ";", "|"):
                    commands.append(command)
                    command = []
                else:
                    command.append(token)
            commands.append(command)
    return [c for c in commands if c]


def crane_cosim_commands(text: str) -> list:
    """(subcommand, arguments) of every `crane-cosim` command in a bash block."""
    found = []
    for tokens in shell_commands(text):
        if tokens[0] == "crane-cosim":
            sub = next((t for t in tokens[1:] if not t.startswith("-")), None)
            found.append((sub, tokens[1:]))
    return found


def subcommands() -> set:
    from crane_models.app.cli import build_parser

    parser = build_parser()
    return {name for action in parser._subparsers._group_actions for name in getattr(action, "choices", {})}


def command_problems(text: str) -> list:
    """Every `crane-cosim X` is a subcommand; `run NAME --set V=...` sets a variable NAME has."""
    known = subcommands()
    found = crane_cosim_commands(text)
    problems = [] if found else ["the README's bash blocks have no crane-cosim command"]
    for sub, args in found:
        if sub not in known:
            problems.append(f"crane-cosim {' '.join(args)}: {sub!r} is not a command ({', '.join(sorted(known))})")
        elif sub == "run" and args[1] in SPECS:
            sets = [args[i + 1].split("=")[0] for i, a in enumerate(args[:-1]) if a == "--set"]
            problems += [f"crane-cosim {' '.join(args)}: {args[1]} has no variable {v}"
                         for v in sets if v not in variables(args[1])["all"]]
    return problems


def crane_cosim() -> list:
    script = Path(sys.executable).with_name("crane-cosim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "crane_models.app.cli"]


def test_every_crane_cosim_command_of_the_readme_is_a_command():
    assert command_problems(README.read_text()) == []


@pytest.mark.parametrize("sub", sorted({sub for sub, _ in crane_cosim_commands(README.read_text())}, key=str))
def test_every_crane_cosim_command_of_the_readme_answers_help(sub):
    done = subprocess.run([*crane_cosim(), sub, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert f"crane-cosim {sub}" in done.stdout


def test_the_python_snippets_of_the_readme_compile():
    blocks = fenced_blocks(README.read_text(), "python")
    assert blocks
    for block in blocks:
        compile(block, "README.md", "exec")


# ------------------------------------------------------------------------------------------------- files and links

def path_problems(text: str) -> list:
    """Files the README names: `python X.py` in its bash blocks, paths in its inline code (except the ones the
    commands make) and `LICENSE`."""
    named = [tokens[1] for tokens in shell_commands(text) if tokens[0] in ("python", "python3") and len(tokens) > 1
             and tokens[1].endswith(".py")]
    for token in code_spans(outside_fences(text)):
        token = token.removeprefix("./")
        if re.fullmatch(r"[\w.-]+(/[\w.*-]+)+/?", token) and token.split("/")[0] not in MADE_BY_COMMANDS:
            named.append(token)
        elif re.fullmatch(r"LICENSE|[\w-]+\.(py|md|toml|cfg)", token):
            named.append(token)
    problems = [] if named else ["the README names no file"]
    return problems + [f"the README names {p}, which does not exist" for p in named
                       if not (list(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())]


def test_every_file_the_readme_names_exists():
    assert path_problems(README.read_text()) == []


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (word characters, spaces and hyphens kept),
    spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set:
    seen, found = {}, set()
    for heading in re.findall(r"^#{1,6} (.+)$", outside_fences(path.read_text()), re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def link_problems(text: str, where: Path) -> list:
    """Every relative link (and image) of ``text``, a file in ``where``'s folder, resolves: the file exists and, for
    a Markdown file, the #anchor is one of its headings."""
    problems = []
    for target in re.findall(r"\]\(([^)\s]+)\)", outside_fences(text)):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        path = (where.parent / file).resolve() if file else where
        if not path.exists():
            problems.append(f"{where.name}: link {target} -- no file {file}")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{where.name}: link {target} -- {file or where.name} has no heading #{anchor}")
    return problems


def test_every_link_of_the_readme_resolves():
    text = README.read_text()
    assert "](docs/" in text
    assert link_problems(text, README) == []


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs").glob("*.md")))
def test_every_link_of_the_docs_resolves(page):
    path = ROOT / "docs" / page
    assert link_problems(path.read_text(), path) == []


# ------------------------------------------------------------------------------------ each check can fail

def _drop_line(text: str, start: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(start))


MUTATIONS = {
    "an FMU row removed": (fmu_table_problems, lambda t: _drop_line(t, "| `FlexibleCrane`")),
    "a row for an FMU that does not exist": (fmu_table_problems, lambda t: t.replace("| `Vessel` |", "| `Barge` |", 1)),
    "an input the FMU does not have": (fmu_table_problems, lambda t: t.replace("`winch_speed` |", "`winch_sped` |", 1)),
    "an output listed as an input": (fmu_table_problems, lambda t: t.replace("| `column_torque` |", "| `tip_*` |", 1)),
    "a ship variable misspelt": (ship_section_problems, lambda t: t.replace("`mount_heading`", "`mount_yaw`", 1)),
    "a command that does not exist": (command_problems, lambda t: t.replace("crane-cosim info Knuckle",
                                                                        "crane-cosim inf Knuckle", 1)),
    "a --set of a variable the FMU does not have": (command_problems,
                                                    lambda t: t.replace("--set m3=", "--set m33=", 1)),
    "an example that does not exist": (path_problems, lambda t: t.replace("examples/replace_vessel_fmu.py fmus",
                                                                          "examples/replace_vessel.py fmus", 1)),
    "a link to a page that does not exist": (lambda t: link_problems(t, README),
                                             lambda t: t.replace("](docs/models.md)", "](docs/model.md)", 1)),
    "a link to a heading that does not exist": (lambda t: link_problems(t, README),
                                                lambda t: t.replace("line.md#ecos)", "line.md#ecoss)", 1)),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_each_check_finds_a_broken_readme(mutation):
    check, mutate = MUTATIONS[mutation]
    text = README.read_text()
    broken = mutate(text)
    assert broken != text, f"the mutation '{mutation}' no longer applies to the README: update it"
    assert check(text) == []
    assert check(broken), f"the check passes a README with {mutation}"
