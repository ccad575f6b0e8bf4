"""How the house is built, read from its source: the core never reaches for the pages, and a
browser session's keys have one home (jeval_app/state.py), each page's under its own prefix."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

from jeval_app import state

PAGE_SOURCES = sorted([ROOT / "app.py", *(ROOT / "pages").rglob("*.py"),
                       *(ROOT / "jeval_app").rglob("*.py")])
CORE_SOURCES = sorted((ROOT / "jeval_core").rglob("*.py"))


def imported(path: Path) -> set[str]:
    """Every module `path` imports, by its full dotted name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def imported_resolved(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved against its package; for
    `from M import n` both M and M.n (n may be a module: `from jeval_core.runs import store`)."""
    package = list(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def imports_of(sources: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    """Each `file imports module` among `sources` that names a forbidden module or its parts."""
    assert sources, "no sources found: has the wing moved?"
    return [f"{path.relative_to(ROOT)} imports {m}" for path in sources
            for m in sorted(imported_resolved(path))
            if any(m == f or m.startswith(f + ".") for f in forbidden)]


def session_state_uses(path: Path) -> list[int]:
    """The lines where `path` names `st.session_state` (or any `.session_state`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "session_state"]


@pytest.mark.parametrize("path", CORE_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_core_never_imports_streamlit_or_the_pages(path):
    wrong = {m for m in imported(path)
             if m.split(".")[0] in ("streamlit", "pages", "app", "jeval_app")}
    assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


def test_the_app_never_imports_the_commands_wing():
    """The pages ask the core, never the command line: app.py, pages/ and jeval_app/ never import
    jeval_core.commands (a judge's connection rules live on its catalog entry)."""
    wrong = imports_of(PAGE_SOURCES, ("jeval_core.commands",))
    assert not wrong, wrong


def test_the_inputs_wing_never_imports_the_runs_wing():
    """What comes in (case files, datasets, evaluator files, links) is read without the store
    or a run: jeval_core/inputs never imports jeval_core.runs."""
    wrong = imports_of(sorted((ROOT / "jeval_core" / "inputs").rglob("*.py")), ("jeval_core.runs",))
    assert not wrong, wrong


def test_the_analysis_wing_never_imports_the_store():
    """Figures are computed from results handed in, never read from a database:
    jeval_core/analysis never imports the store or its migrations (comparing judges, which
    runs and stores a dataset per judge, lives in the runs wing)."""
    wrong = imports_of(sorted((ROOT / "jeval_core" / "analysis").rglob("*.py")),
                       ("jeval_core.runs.store", "jeval_core.runs.migrations"))
    assert not wrong, wrong


@pytest.mark.parametrize("path", [p for p in PAGE_SOURCES if p != ROOT / "jeval_app/state.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_state_module_touches_the_session(path):
    lines = session_state_uses(path)
    assert not lines, (f"{path.relative_to(ROOT)} reads st.session_state on lines {lines}: "
                       "go through jeval_app/state.py")


def test_the_state_module_is_where_the_session_is_read():
    assert session_state_uses(ROOT / "jeval_app" / "state.py")


def test_a_pages_keys_carry_its_prefix_and_stay_what_the_tests_and_links_use():
    assert state.DATASET("run") == "ds_run"
    assert state.DATASET("th", "faithfulness") == "ds_th_faithfulness"
    assert state.COMPARE("pair", "local", "lexical") == "cmp_pair_local_lexical"
    assert state.DASHBOARD("confirm") == "dash_confirm"
    assert state.EDITOR("name") == "ev_name"


def test_no_two_pages_share_a_prefix():
    prefixes = [k.prefix for k in (state.DATASET, state.COMPARE, state.DASHBOARD, state.EDITOR)]
    assert len(set(prefixes)) == len(prefixes)
