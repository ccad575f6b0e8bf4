"""The docs say what the code does: every `jeval` command line in the README and docs/ names a
command and options the parser has, every `--example` a file that ships, and every path under
assets/ a file that is there."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from conftest import ROOT

from jeval_core.commands import cli
from jeval_core.inputs import bundled

DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


def subcommands() -> dict[str, set[str]]:
    """Each `jeval` command and its option strings."""
    parser = cli._build_parser()
    found: dict[str, set[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = {s for a in sub._actions for s in a.option_strings}
    return found


def command_lines(path: Path) -> list[tuple[int, str, str]]:
    """(line number, command, text) of each code-block line that belongs to a `jeval` command:
    the line that starts it and the indented option lines that continue it."""
    found: list[tuple[int, str, str]] = []
    command = ""
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.startswith("    "):
            command = ""
            continue
        text = line.strip().split("  #")[0]
        if text.startswith("jeval "):
            word = text.split()[1]
            command = "" if word.startswith("-") else word
        elif not (command and text.startswith(("[", "--"))):
            command = ""
        if command:
            found.append((number, command, text))
    return found


LINES = [(path, *line) for path in DOCS for line in command_lines(path)]


def test_the_docs_show_jeval_commands_at_all():
    assert len({(c) for _, _, c, _ in LINES}) >= 10


@pytest.mark.parametrize(("path", "number", "command", "text"), LINES,
                         ids=[f"{p.name}:{n}" for p, n, _, _ in LINES])
def test_each_documented_command_line_fits_the_parser(path, number, command, text):
    known = subcommands()
    for one in command.split("|"):
        assert one in known, f"{path.name}:{number}: no command `jeval {one}`"
        options = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
        unknown = {o for o in options if o not in known[one]}
        if "--no-browser" in unknown and "--browser" in known[one]:
            unknown.discard("--no-browser")  # a BooleanOptionalAction's other half
        assert not unknown, f"{path.name}:{number}: `jeval {one}` has no {sorted(unknown)}"


def test_each_documented_example_name_ships():
    names = {item.name for item in bundled.listing()}
    for path, number, _, text in LINES:
        for name in re.findall(r"--example ([\w.]+)", text):
            assert name in names | {"NAME"}, f"{path.name}:{number}: no example {name}"


def test_each_path_under_assets_the_docs_name_is_there():
    for path in DOCS:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for named in re.findall(r"assets/[\w./-]+\.\w+", line):
                assert (ROOT / named).exists(), f"{path.name}:{number}: {named} is missing"


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings."""
    found = set()
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_relative_link_in_the_docs_reaches_a_file_and_its_heading():
    broken = []
    for path in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text("utf-8")):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            where = (path.parent / file).resolve() if file else path
            if not where.exists():
                broken.append(f"{path.name}: {target}")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                broken.append(f"{path.name}: {target} (no such heading)")
    assert not broken, broken


def test_the_docs_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: every page in the nav, every link and anchor resolves, the
    README as the home page and the repository files the docs link to served beside it."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, text=True,
                          capture_output=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "assets" / "screenshot.png").is_file()
