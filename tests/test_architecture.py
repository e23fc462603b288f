"""Imports point one way: cogs → bot → engine (and web → bot → engine); engine knows
nothing of Discord or asyncio; inside ``bot/`` each package imports only the layers below
it (the table in README.md's "Layout", and docs/architecture.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
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
    "views": {"views", "table", "storage", "images"},
    "config": {"config", "table"},
    "ui": {"ui", "views", "table", "config", "storage", "images"},
    "play": {"play", "table", "config", "storage"},
    "actions": {"actions", "ui", "views", "play", "table", "config", "storage", "images"},
    "features": {"features", "actions", "ui", "views", "play", "table", "config", "storage",
                 "images"},
    "app": {"app", "features", "actions", "ui", "views", "play", "table", "config", "storage",
            "images"},
}
# Packages that no front end may reach into: they serve Discord and any other front end.
WITHOUT_DISCORD = {"storage", "images", "table", "config", "play", "views"}
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


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The file of a module of the project by its full name; None for anything else (a
    name imported from a module, a third-party module)."""
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def discord_chains(root: Path, packages: tuple[str, ...]) -> list[str]:
    """How the modules of ``packages`` reach discord: each chain of project modules, from
    one of theirs to one that imports discord. Every import counts (inside functions and
    under TYPE_CHECKING too), and importing a module imports its packages."""
    start = [path for package in packages if (root / package).is_dir()
             for path in sorted((root / package).rglob("*.py"))]
    came_from: dict[Path, Path | None] = dict.fromkeys(start)
    queue, chains = list(start), []
    while queue:
        path = queue.pop(0)
        names = imported_modules(path, root)
        if any(name == "discord" or name.startswith("discord.") for name in names):
            chain, step = [], path
            while step is not None:
                chain.append(str(step.relative_to(root)))
                step = came_from[step]
            chains.append(" <- ".join(chain))
            continue
        for name in sorted(names):
            words = name.split(".")
            for n in range(1, len(words) + 1):  # the packages on the way, then the module
                found = module_file(".".join(words[:n]), root)
                if found is not None and found not in came_from:
                    came_from[found] = path
                    queue.append(found)
    return sorted(chains)


def test_the_views_and_the_web_never_import_discord():
    """``bot/views`` (every game's presentation without Discord) and ``web/`` import no
    module that imports discord, however far down."""
    assert discord_chains(ROOT, ("bot/views", "web")) == []


def test_every_game_view_loads_without_discord():
    """``bot.views.views()`` finds a view for every game with a module in ``bot/views``,
    by the registry's ids alone, and loading them all loads no discord. Run in a fresh
    interpreter, where nothing else has loaded it."""
    script = ("import sys\n"
              "import bot.views\n"
              "found = bot.views.views()\n"
              "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'discord')\n"
              "assert not loaded, loaded\n"
              "print(','.join(found))\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    expected = {p.stem for p in (ROOT / "bot" / "views").glob("*.py")
                if p.stem not in ("__init__", "game_view", "replay")}  # (shared, no game)
    assert set(run.stdout.strip().split(",")) == expected


def test_the_discord_check_follows_imports_through_other_modules(tmp_path):
    for package in ("web", "bot", "bot/ui", "bot/views"):
        (tmp_path / package).mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "bot" / "ui" / "markup.py").write_text("import discord\n")
    (tmp_path / "bot" / "views" / "fine.py").write_text("from bot import views\n")
    (tmp_path / "web" / "page.py").write_text(
        "def draw():\n    from bot.ui.markup import label\n")
    assert discord_chains(tmp_path, ("bot/views", "web")) == [
        "bot/ui/markup.py <- web/page.py"]
    (tmp_path / "bot" / "ui" / "__init__.py").write_text("from discord import Embed\n")
    assert discord_chains(tmp_path, ("bot/views",)) == []
    assert discord_chains(tmp_path, ("web",)) == ["bot/ui/__init__.py <- web/page.py",
                                                  "bot/ui/markup.py <- web/page.py"]


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
