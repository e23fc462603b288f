"""Discord's payload limits, as the API enforces them (checked on the merged message).

Each check returns a list of (path, message) problems; the REST layer turns them into
a 400 code 50035 "Invalid Form Body" whose `errors` nest by path, as Discord's do.
"""

from __future__ import annotations

import re
from typing import Any

Problem = tuple[str, str]

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
EMBED_LIMITS = {"title": 256, "description": 4096}
MAX_FIELDS = 25
MAX_FIELD_NAME, MAX_FIELD_VALUE = 256, 1024
MAX_FOOTER, MAX_AUTHOR = 2048, 256
MAX_ROWS, MAX_BUTTONS_PER_ROW = 5, 5
MAX_CUSTOM_ID, MAX_LABEL = 100, 80
MAX_OPTIONS, MAX_OPTION_TEXT, MAX_PLACEHOLDER = 25, 100, 150
SELECT_TYPES = (3, 5, 6, 7, 8)
COMPONENTS_V2_FLAG = 1 << 15


def too_long(limit: int) -> str:
    return f"Must be {limit} or fewer in length."


def is_empty(msg: dict[str, Any]) -> bool:
    """Discord's 50006: nothing at all to show."""
    return not (
        msg.get("content")
        or msg.get("embeds")
        or msg.get("components")
        or msg.get("attachments")
        or msg.get("sticker_ids")
        or msg.get("poll")
    )


def check_message(msg: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    content = msg.get("content")
    if content is not None and len(str(content)) > MAX_CONTENT:
        problems.append(("content", too_long(MAX_CONTENT)))
    problems += check_embeds(msg.get("embeds") or [])
    problems += check_components(msg.get("components") or [], int(msg.get("flags") or 0))
    return problems


def check_embeds(embeds: list[dict[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    if len(embeds) > MAX_EMBEDS:
        problems.append(("embeds", too_long(MAX_EMBEDS)))
    total = 0
    for i, embed in enumerate(embeds):
        for key, limit in EMBED_LIMITS.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                problems.append((f"embeds.{i}.{key}", too_long(limit)))
        fields = embed.get("fields") or []
        if len(fields) > MAX_FIELDS:
            problems.append((f"embeds.{i}.fields", too_long(MAX_FIELDS)))
        for j, fld in enumerate(fields):
            name, value = str(fld.get("name") or ""), str(fld.get("value") or "")
            total += len(name) + len(value)
            if not name or len(name) > MAX_FIELD_NAME:
                problems.append((f"embeds.{i}.fields.{j}.name", too_long(MAX_FIELD_NAME)))
            if not value or len(value) > MAX_FIELD_VALUE:
                problems.append((f"embeds.{i}.fields.{j}.value", too_long(MAX_FIELD_VALUE)))
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > MAX_FOOTER:
            problems.append((f"embeds.{i}.footer.text", too_long(MAX_FOOTER)))
        if len(author) > MAX_AUTHOR:
            problems.append((f"embeds.{i}.author.name", too_long(MAX_AUTHOR)))
    if total > MAX_EMBED_TOTAL:
        problems.append(("embeds", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}"))
    return problems


def check_components(rows: list[dict[str, Any]], flags: int = 0) -> list[Problem]:
    problems: list[Problem] = []
    if flags & COMPONENTS_V2_FLAG:
        return _check_v2(rows)
    if len(rows) > MAX_ROWS:
        problems.append(("components", too_long(MAX_ROWS)))
    seen: set[str] = set()
    for i, row in enumerate(rows):
        path = f"components.{i}"
        if row.get("type") != 1:
            problems.append((f"{path}.type", "Only action rows may be top-level components."))
            continue
        problems += _check_row(path, row.get("components") or [], seen)
    return problems


def _check_row(path: str, children: list[dict[str, Any]], seen: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    if not children:
        problems.append((f"{path}.components", "Must be between 1 and 5 in length."))
    selects = [c for c in children if c.get("type") in SELECT_TYPES]
    if selects and len(children) != 1:
        problems.append((f"{path}.components", "A select menu must be alone in its action row."))
    if len(children) > MAX_BUTTONS_PER_ROW:
        problems.append((f"{path}.components", too_long(MAX_BUTTONS_PER_ROW)))
    for j, comp in enumerate(children):
        cpath = f"{path}.components.{j}"
        kind = comp.get("type")
        if kind == 2:
            problems += _check_button(cpath, comp)
        elif kind in SELECT_TYPES:
            problems += _check_select(cpath, comp)
        else:
            problems.append((f"{cpath}.type", f"Component type {kind} is not allowed in a row."))
        problems += _check_unique_id(cpath, comp, seen)
    return problems


def _check_unique_id(path: str, comp: dict[str, Any], seen: set[str]) -> list[Problem]:
    cid = comp.get("custom_id")
    if cid is None:
        return []
    if cid in seen:
        return [(f"{path}.custom_id", "Component custom id must be unique")]
    seen.add(cid)
    return []


def _check_custom_id(path: str, comp: dict[str, Any]) -> list[Problem]:
    cid = comp.get("custom_id")
    if not cid:
        return [(f"{path}.custom_id", "A custom id is required")]
    if len(cid) > MAX_CUSTOM_ID:
        return [(f"{path}.custom_id", too_long(MAX_CUSTOM_ID))]
    return []


def _check_button(path: str, comp: dict[str, Any]) -> list[Problem]:
    style = comp.get("style")
    label = comp.get("label")
    problems: list[Problem] = []
    if label is not None and len(label) > MAX_LABEL:
        problems.append((f"{path}.label", too_long(MAX_LABEL)))
    if style == 5:  # link
        if not comp.get("url") or comp.get("custom_id"):
            problems.append((f"{path}.url", "A link button needs a url and no custom id"))
        return problems
    if style == 6:  # premium
        return problems
    if style not in (1, 2, 3, 4):
        problems.append((f"{path}.style", f"Value {style} is not a valid button style."))
    problems += _check_custom_id(path, comp)
    if not label and not comp.get("emoji"):
        problems.append((f"{path}.label", "A button needs a label or an emoji"))
    return problems


def _check_select(path: str, comp: dict[str, Any]) -> list[Problem]:
    problems = _check_custom_id(path, comp)
    placeholder = comp.get("placeholder") or ""
    if len(placeholder) > MAX_PLACEHOLDER:
        problems.append((f"{path}.placeholder", too_long(MAX_PLACEHOLDER)))
    lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
    if comp.get("type") != 3:
        if not 0 <= lo <= hi <= MAX_OPTIONS:
            problems.append((f"{path}.max_values", "Invalid min_values/max_values"))
        return problems
    options = comp.get("options") or []
    if not 1 <= len(options) <= MAX_OPTIONS:
        problems.append((f"{path}.options", "Must be between 1 and 25 in length."))
    values: set[str] = set()
    for k, opt in enumerate(options):
        opath = f"{path}.options.{k}"
        for key in ("label", "value", "description"):
            text = opt.get(key)
            if text is not None and len(text) > MAX_OPTION_TEXT:
                problems.append((f"{opath}.{key}", too_long(MAX_OPTION_TEXT)))
        if not opt.get("label") or not opt.get("value"):
            problems.append((opath, "An option needs a label and a value"))
        if opt.get("value") in values:
            problems.append((f"{opath}.value", "Select menu option values must be unique"))
        values.add(opt.get("value"))
    if not 0 <= lo <= hi <= len(options) or hi < 1:
        problems.append(
            (f"{path}.max_values", "min_values ≤ max_values ≤ number of options is required")
        )
    return problems


def _check_v2(components: list[dict[str, Any]]) -> list[Problem]:
    """Components v2 (LayoutView): only what we can check cheaply — ids and rows inside."""
    problems: list[Problem] = []
    seen: set[str] = set()

    def walk(comps: list[dict[str, Any]], path: str) -> None:
        nonlocal problems
        for i, comp in enumerate(comps):
            cpath = f"{path}.{i}"
            if comp.get("type") == 1:
                problems += _check_row(cpath, comp.get("components") or [], seen)
            elif comp.get("components"):
                walk(comp["components"], f"{cpath}.components")

    walk(components, "components")
    return problems


def nest_errors(problems: list[Problem]) -> dict[str, Any]:
    """[("embeds.0.title", msg)] -> {"embeds": {"0": {"title": {"_errors": [...]}}}}."""
    errors: dict[str, Any] = {}
    for path, message in problems:
        node = errors
        for part in path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "BASE_TYPE_INVALID", "message": message})
    return errors


# ----- application commands -------------------------------------------------------------
NAME_RE = re.compile(r"^[-_\w]{1,32}$")
MAX_COMMANDS, MAX_CMD_OPTIONS, MAX_CHOICES = 100, 25, 25
SUBCOMMAND, GROUP = 1, 2


def check_commands(commands: list[dict[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    if len([c for c in commands if c.get("type", 1) == 1]) > MAX_COMMANDS:
        problems.append(("_root", too_long(MAX_COMMANDS)))
    names: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        key = (cmd.get("type", 1), cmd.get("name", ""))
        if key in names:
            problems.append((f"{i}.name", "Application command names must be unique"))
        names.add(key)
        problems += _check_named(f"{i}", cmd, chat_input=cmd.get("type", 1) == 1)
        problems += _check_options(f"{i}.options", cmd.get("options") or [], depth=0)
    return problems


# Discord's locales (https://discord.com/developers/docs/reference#locales).
LOCALES = frozenset({
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu",
    "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru",
    "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"})


def _check_named(path: str, item: dict[str, Any], chat_input: bool = True) -> list[Problem]:
    problems: list[Problem] = []
    names = {None: item.get("name") or "", **(item.get("name_localizations") or {})}
    for locale, name in names.items():
        where = f"{path}.name" if locale is None else f"{path}.name_localizations.{locale}"
        if locale is not None and locale not in LOCALES:
            problems.append((where, f"Invalid locale {locale!r}"))
        if chat_input and (not NAME_RE.match(name) or name != name.lower()):
            problems.append((where, f"Invalid application command name {name!r}"))
    descriptions = {None: item.get("description") or "",
                    **(item.get("description_localizations") or {})}
    for locale, desc in descriptions.items():
        where = (f"{path}.description" if locale is None
                 else f"{path}.description_localizations.{locale}")
        if locale is not None and locale not in LOCALES:
            problems.append((where, f"Invalid locale {locale!r}"))
        if chat_input and not 1 <= len(desc) <= 100:
            problems.append((where, "Must be between 1 and 100 in length."))
    return problems


def _check_options(path: str, options: list[dict[str, Any]], depth: int) -> list[Problem]:
    problems: list[Problem] = []
    if len(options) > MAX_CMD_OPTIONS:
        problems.append((path, too_long(MAX_CMD_OPTIONS)))
    seen_optional = False
    names: set[str] = set()
    for k, opt in enumerate(options):
        opath = f"{path}.{k}"
        problems += _check_named(opath, opt)
        if opt.get("name") in names:
            problems.append((f"{opath}.name", "Option names must be unique"))
        names.add(opt.get("name", ""))
        kind = opt.get("type")
        if kind in (SUBCOMMAND, GROUP):
            if depth >= (1 if kind == GROUP else 2):
                problems.append((f"{opath}.type", "Sub-commands cannot be nested this deep"))
            problems += _check_options(f"{opath}.options", opt.get("options") or [], depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                problems.append((f"{opath}.required", "Required options must be placed first"))
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        if len(choices) > MAX_CHOICES:
            problems.append((f"{opath}.choices", too_long(MAX_CHOICES)))
        for c, choice in enumerate(choices):
            for locale, name in {None: choice.get("name", ""),
                                 **(choice.get("name_localizations") or {})}.items():
                if locale is not None and locale not in LOCALES:
                    problems.append((f"{opath}.choices.{c}", f"Invalid locale {locale!r}"))
                if not 1 <= len(str(name)) <= 100:
                    problems.append((f"{opath}.choices.{c}.name", "Must be 1 to 100 long."))
    return problems
