"""Imports point one way: cogs → bot → engine (and web → bot → engine); engine knows
nothing of Discord or asyncio; inside ``bot/`` each package imports only the layers below
it (the table in README.md's "Layout", and docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "engine": {"discord", "asyncio", "aiosqlite", "aiohttp", "bot", "cogs"},
    "bot": {"cogs"},
}
# What each package of bot/ may import of bot/ (itself included). Every import counts,
# inside functions and under TYPE_CHECKING too.
MAY_IMPORT: dict[str, set[str]] = {
    "storage": {"storage"},
    "images": {"images"},
    "table": {"table", "storage"},
    "config": {"config", "table"},
    "ui": {"ui", "table", "config", "storage", "images"},
    "play": {"play", "table", "config", "storage"},
    "actions": {"actions", "ui", "play", "table", "config", "storage", "images"},
    "features": {"features", "actions", "ui", "play", "table", "config", "storage", "images"},
    "app": {"app", "features", "actions", "ui", "play", "table", "config", "storage",
            "images"},
}
# Packages that no front end may reach into: they serve Discord and any other front end.
WITHOUT_DISCORD = {"storage", "images", "table", "config", "play"}
# Modules directly in bot/: the entry point and the catalogue tool (python -m bot...).
TOP_LEVEL = {"__init__.py", "__main__.py", "catalogues.py"}


def imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module a file imports by its full name (``from bot.ui import board`` counts as
    ``bot.ui.board``); relative imports resolved against the file's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[:len(package) - node.level + 1]
                base = ".".join([*stem, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def layer_offences(root: Path) -> list[str]:
    offences: set[str] = set()
    for path in sorted((root / "bot").rglob("*.py")):
        parts = path.relative_to(root).parts
        if len(parts) == 2:
            continue  # bot/__main__.py, bot/catalogues.py: the program itself
        package = parts[1]
        allowed = MAY_IMPORT.get(package)
        if allowed is None:
            offences.add(f"bot/{package}/ is not a known layer")
            continue
        for name in imported_modules(path, root):
            words = name.split(".")
            if words[0] == "discord" and package in WITHOUT_DISCORD:
                offences.add(f"{path.relative_to(root)} imports discord")
            if words[0] == "bot" and len(words) > 1 and words[1] not in allowed \
                    and (root / "bot" / words[1]).is_dir():
                offences.add(f"{path.relative_to(root)} imports bot.{words[1]}")
    return sorted(offences)


def test_imports_point_cogs_to_bot_to_engine():
    offences = []
    for package, forbidden in FORBIDDEN.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            bad = imported_packages(path) & forbidden
            if bad:
                offences.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert offences == []


def test_the_check_sees_a_forbidden_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom discord.ext import commands\nfrom . import x\n")
    assert imported_packages(sample) == {"asyncio", "discord"}


def test_each_package_of_bot_imports_only_the_layers_below_it():
    assert layer_offences(ROOT) == []


def test_bot_holds_packages_and_only_the_program_beside_them():
    loose = {p.name for p in (ROOT / "bot").glob("*.py")}
    assert loose == TOP_LEVEL
    packages = {p.name for p in (ROOT / "bot").iterdir()
                if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(MAY_IMPORT)


@pytest.mark.parametrize(("where", "source", "offence"), [
    ("table/x.py", "import discord\n", "imports discord"),
    ("ui/x.py", "from bot.features import hints\n", "imports bot.features"),
    ("ui/x.py", "from bot.play.driver import Driver\n", "imports bot.play"),
    ("play/x.py", "def f():\n    from bot.ui import board\n", "imports bot.ui"),
    ("table/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from bot.app.croupier import Croupier\n", "imports bot.app"),
    ("play/x.py", "from ..ui import board\n", "imports bot.ui"),
])
def test_the_layer_check_sees_an_import_against_the_layers(tmp_path, where, source, offence):
    for package in MAY_IMPORT:
        (tmp_path / "bot" / package).mkdir(parents=True)
    (tmp_path / "bot" / where).write_text(source)
    offences = layer_offences(tmp_path)
    assert len(offences) == 1 and offence in offences[0], offences


def test_the_layer_check_lets_an_allowed_import_through(tmp_path):
    for package in MAY_IMPORT:
        (tmp_path / "bot" / package).mkdir(parents=True)
    (tmp_path / "bot" / "ui" / "x.py").write_text(
        "import discord\nfrom bot.table.state import Table\nfrom bot.ui import markup\n")
    assert layer_offences(tmp_path) == []
