"""``python -m bot.catalogues``: extract every string, update the catalogues, check them.

One command for the whole cycle, with Babel: the template ``cardtable.pot`` is
extracted from ``engine``, ``bot``, ``cogs``, ``terminal`` and ``web`` (every string
marked with ``_``, ``_n``, ``_c``, ``T``, ``TN``, ``TC``) and from the slash
commands' descriptions and choices as the bot registers them; each language's
``.po`` is updated from it (new ids come in untranslated, vanished ones go);
then each catalogue is compiled in memory and its counts printed. ``--check``
changes no file and exits 1 when a catalogue is behind the code or incomplete.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from bot.ui.command_text import tree_strings
from locales import DOMAIN, ENGLISH, LANGUAGES, ROOT, catalogue_path

SOURCES = ("engine", "bot", "cogs", "terminal", "web")
KEYWORDS = {"_": None, "T": None, "_n": (1, 2), "TN": (1, 2),
            "_c": ((1, "c"), 2), "TC": ((1, "c"), 2)}
TEMPLATE = ROOT / f"{DOMAIN}.pot"


def extract() -> Catalog:
    """Every string marked in the code, with where it is used."""
    template = Catalog(domain=DOMAIN, project="cardtable", fuzzy=False)
    project = ROOT.parent
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                project / source, method_map=[("**.py", "python")], keywords=KEYWORDS,
                comment_tags=("Translators:",), strip_comment_tags=True):
            template.add(message, None, [(f"{source}/{filename}", lineno)],
                         auto_comments=comments, context=context)
    for text, where in asyncio.run(command_strings()):
        if template.get(text) is None:
            template.add(text, None, auto_comments=[f"Slash command: {where}"])
    return template


async def command_strings() -> list[tuple[str, str]]:
    """The texts of every slash command, from the command tree the bot registers."""
    from bot.app.client import CardTableBot, default_extensions
    from bot.config.settings import Settings

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(token="", database_path=Path(folder) / "unused.db",
                            dev_guild_id=None, log_level=30)
        bot = CardTableBot(settings)
        for extension in default_extensions():
            await bot.load_extension(extension)
        return [(text, where) for text, where in tree_strings(bot.tree) if text != "…"]


def updated(template: Catalog, language: str) -> Catalog:
    """The language's catalogue brought up to the template (no fuzzy guesses: a changed
    id must be translated again, not matched to a similar old one)."""
    path = catalogue_path(language)
    if path.exists():
        with path.open("rb") as f:
            catalog = read_po(f, locale=language, domain=DOMAIN)
    else:
        catalog = Catalog(locale=language, domain=DOMAIN, project="cardtable", fuzzy=False)
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    return catalog


def problems(catalog: Catalog) -> list[str]:
    """Untranslated and fuzzy ids of a catalogue."""
    found = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy:
            found.append(f"fuzzy: {message.id!r}")
        elif not all(strings):
            found.append(f"untranslated: {message.id!r}")
    return found


def _serialized(catalog: Catalog, template: bool = False) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, omit_header=False, sort_output=False,
             ignore_obsolete=True, include_previous=False)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.catalogues", description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a catalogue is behind or incomplete")
    args = parser.parse_args(argv)
    template = extract()
    failing = False
    outputs: list[tuple[Path, Catalog]] = [(TEMPLATE, template)]
    for language in LANGUAGES:
        if language == ENGLISH:
            continue
        catalog = updated(template, language)
        write_mo(io.BytesIO(), catalog)  # it compiles
        missing = problems(catalog)
        total = sum(1 for m in catalog if m.id)
        print(f"{language}: {total - len(missing)} of {total} translated"
              + (f"; {len(missing)} to do" if missing else ""))
        failing |= bool(missing)
        outputs.append((catalogue_path(language), catalog))
    for path, catalog in outputs:
        text = _serialized(catalog)
        old = path.read_bytes() if path.exists() else b""
        if _body(old, locations=not args.check) != _body(text, locations=not args.check):
            if args.check:
                print(f"{path.relative_to(ROOT.parent)} is behind the code", file=sys.stderr)
                failing = True
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(text)
    return 1 if (failing and args.check) else 0


def _body(po: bytes, locations: bool = True) -> bytes:
    """A catalogue without the header dates, which change on every run (and without the
    ``#:`` source lines, for the check: code that only moved leaves no catalogue behind)."""
    skipped: tuple[bytes, ...] = (b'"POT-Creation-Date', b'"PO-Revision-Date')
    if not locations:
        skipped += (b"#:",)
    return b"\n".join(line for line in po.splitlines() if not line.startswith(skipped))


if __name__ == "__main__":
    sys.exit(main())
