"""A hint as people read it: the private answer, and the note on a hinted game's result."""

from __future__ import annotations

import discord

from bot.ui import markup
from engine.core import action_code
from locales import _


def hint_text(action: int, reason_said: str | None, newly_unrated: bool) -> str:
    """The private answer, in the current language."""
    lines = [_("💡 The Normal AI would play **{action}**.", action=markup.label(
        action_code(action)))]
    if reason_said:
        # Translators: a hint's reason follows ({reason} is one sentence)
        lines.append(_("Why: {reason}", reason=reason_said))
    if newly_unrated:
        lines.append(_("A hint was used, so this game will not change anyone's rating."))
    return "\n".join(lines)


def note_on_result(embed: discord.Embed) -> None:
    """The final result of a hinted game says so (in the current language)."""
    note = "💡 " + _("Hints were used in this game, so it changed no ratings.")
    footer = embed.footer.text
    embed.set_footer(text=f"{footer}\n{note}" if footer else note)
