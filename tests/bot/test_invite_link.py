"""The invite link: one list of permissions (bot/app/lifecycle.py) makes the link the bot
logs, and docs/running-the-bot.md writes that same link and names those permissions."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from bot.app import lifecycle

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "running-the-bot.md"
APPLICATION = 123456789012345678


def flag(name: str) -> int:
    return discord.Permissions(**{name: True}).value


def test_the_documented_link_is_the_one_the_bot_computes():
    documented = re.findall(r"https://discord\.com/oauth2/authorize\S*", DOC.read_text())
    computed = lifecycle.invite_url(APPLICATION).replace(f"client_id={APPLICATION}",
                                                         "client_id=APPLICATION_ID")
    assert documented == [computed]


def test_the_documented_permissions_are_the_list_and_add_up_to_the_link():
    text = DOC.read_text()
    section = text[text.index("## 2. Invite"):text.index("## 3.")]
    named = {name.lower().replace(" ", "_"): int(value)
             for name, value in re.findall(r"\*\*([A-Z][A-Za-z ]+)\*\* \((\d+)\)", section)}
    assert set(named) == set(lifecycle.NEEDED_PERMISSIONS)
    assert all(value == flag(name) for name, value in named.items()), named
    assert f"`{sum(named.values())}` is the sum" in section
    assert sum(named.values()) == lifecycle.PERMISSIONS.value


def test_the_link_asks_for_every_permission_the_bot_checks_and_nothing_else():
    # Every permission bot/ui/permissions.py looks at (the ones a table needs, Send
    # Messages in Threads, Create Public Threads, Attach Files for the pictures).
    source = (ROOT / "bot" / "ui" / "permissions.py").read_text()
    checked = {word for word in re.findall(r"[a-z_]+", source)
               if word in discord.Permissions.VALID_FLAGS}
    assert checked >= {"view_channel", "send_messages", "embed_links", "attach_files",
                       "send_messages_in_threads", "create_public_threads"}
    assert set(lifecycle.NEEDED_PERMISSIONS) == checked
    asked = lifecycle.PERMISSIONS
    assert asked.value == sum(flag(name) for name in checked)
    assert not (asked.read_message_history or asked.manage_messages or asked.add_reactions
                or asked.use_external_emojis), "nothing the bot does not use"
