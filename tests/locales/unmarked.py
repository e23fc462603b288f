"""Finding strings a person would read that are not marked for translation.

A string literal in ``bot/`` or ``cogs/`` that looks like words for people
(a space between words, or a capitalised word: "Join", "Your hand") must be
inside ``_``/``_n``/``_c`` (translated at once) or ``T``/``TN``/``TC`` (said
later). Not counted: docstrings, log calls, ``Exception``s that never reach a
player (a ``RuntimeError`` for the programmer), the modules listed in
``OPERATOR_MODULES`` (what only the operator reads: settings, start-up,
health, storage's SQL), and a line that says ``# not for players``, which a
reviewer sees (on the string's lines or the one before).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs")
MARKERS = {"_", "_n", "_c", "T", "TN", "TC"}
# The slash commands' texts: ``bot.catalogues`` extracts them from the command tree the
# bot registers, and ``bot.ui.command_text.CatalogueTranslator`` gives Discord their
# translations, so they are marked by where they are.
COMMAND_CALLS = {"command", "Group", "group", "describe", "Choice", "Parameter",
                 "choices", "rename"}
FILE_NAME = re.compile(r"^[\w.-]+\.\w{2,4}$")
LOGGERS = {"debug", "info", "warning", "error", "exception", "critical", "log"}
# Exceptions a player never reads (they are bugs or the operator's business).
PROGRAMMER_ERRORS = {"RuntimeError", "ValueError", "TypeError", "KeyError", "AssertionError",
                     "NotImplementedError", "SystemExit", "SettingsError", "LookupError",
                     "StorageError", "MigrationFailed", "SchemaTooNew", "CommandSyncRefused",
                     "StorageBusy", "CorruptRecord"}
OPERATOR_MODULES = {
    "bot/config/settings.py": "environment settings: errors for the operator at start-up",
    "bot/app/lifecycle.py": "start-up and shutdown lines on stderr for the operator",
    "bot/app/health.py": "the metrics endpoint for monitoring",
    "bot/app/readiness.py": "why /healthz answers 503: for the log and the probe",
    "bot/app/commandsync.py": "command sync log lines",
    "bot/catalogues.py": "the catalogue maintenance tool",
    "bot/__main__.py": "the process entry point",
}
OPERATOR_FOLDERS = ("bot/storage/",)  # SQL and storage errors, never shown to players
OPT_OUT = "# not for players"
PROSE = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}|\b[A-ZА-Я][a-zа-я]{2,}")


@dataclass(frozen=True)
class Unmarked:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def looks_like_prose(text: str) -> bool:
    return bool(PROSE.search(text)) and not FILE_NAME.match(text)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    # a bare string statement anywhere (an attribute's docstring) is documentation too
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))
    return found


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _exempt_calls(tree: ast.AST) -> set[int]:
    """Ids of nodes inside marker calls, log calls and programmer errors."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            logger = isinstance(node.func, ast.Attribute) and name in LOGGERS
            if name in MARKERS or logger or name in PROGRAMMER_ERRORS or name in COMMAND_CALLS:
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    exempt.update(id(n) for n in ast.walk(arg))
        elif isinstance(node, ast.ClassDef):  # class Cog(GroupCog, group_description=...)
            for keyword in node.keywords:
                exempt.update(id(n) for n in ast.walk(keyword.value))
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exempt.update(id(n) for n in ast.walk(node.value))
    return exempt


def scan_source(source: str, path: str) -> list[Unmarked]:
    tree = ast.parse(source)
    lines = source.splitlines()
    skip = _docstrings(tree) | _exempt_calls(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values
                           if isinstance(v, ast.Constant) and isinstance(v.value, str))
            for v in node.values:  # the parts of an f-string are not reported again
                skip.add(id(v))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if not looks_like_prose(text):
            continue
        end = getattr(node, "end_lineno", node.lineno) or node.lineno
        # the marker on the string's lines, or on the line before (where its call opens)
        if any(OPT_OUT in lines[n - 1] for n in range(max(1, node.lineno - 1), end + 1)):
            continue
        found.append(Unmarked(path, node.lineno, text))
    return sorted(found, key=lambda u: u.line)


def scan() -> list[Unmarked]:
    found = []
    for package in PACKAGES:
        for file in sorted((ROOT / package).rglob("*.py")):
            rel = file.relative_to(ROOT).as_posix()
            if rel in OPERATOR_MODULES or rel.startswith(OPERATOR_FOLDERS):
                continue
            found += scan_source(file.read_text(encoding="utf-8"), rel)
    return found
