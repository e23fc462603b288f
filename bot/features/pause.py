"""The Pause and Resume button: the seated players pause a running game by vote, and resume it.

The rules (who votes, what carries, what a pause stops, the longest pause) are
``bot.table.pause``; the button and the paused table's line are
``bot.ui.pause_buttons``; this module answers the button's click. Every vote is one
step through the kernel (saved without a new step: nobody's menu goes stale), so a
vote, a pause and a resume survive a restart, and the pause's end comes back as a
timer (``bot.table.timers.next_due``: "resume", handled by ``bot.play.deadlines``).

**Decision**: pressing the button again withdraws one's vote (the answer says so, and
that pressing once more votes again), rather than refusing a second press: a player
who changed their mind has a way back, and the count on the button stays true.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.table import pause
from bot.table.state import Table
from bot.ui import answer_guard, markup, replies
from locales import _, _n, say

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.play.driver import Driver
    from bot.table.step import Steps
    from bot.table.timers import Clock
    from bot.ui.presenter import Presenter


class Pauses:
    def __init__(self, clicks: Clicks, steps: Steps, presenter: Presenter, driver: Driver,
                 clock: Clock):
        self.clicks = clicks
        self.steps = steps
        self.presenter = presenter
        self.driver = driver
        self.clock = clock

    async def click(self, interaction: discord.Interaction, table_id: str,
                    motion: str) -> None:
        async with self.clicks.table(interaction, table_id, channel_bound=True) as table:
            if table is None:
                return
            user, now = interaction.user.id, self.clock.now()
            said: list[str] = []  # (``vote`` checks the vote first: a refusal changes nothing)
            outcome = await self.steps.apply(
                table, lambda t: said.append(pause.vote(t, user, motion, now)))
            if outcome.refusal is not None:
                await replies.reply(interaction, markup.say_safe(outcome.refusal))
                return
            if not outcome.saved:
                await replies.reply(interaction, say(answer_guard.SOMETHING_WRONG))
                return
            await replies.reply(interaction, self._answer(said[0], motion, table))
            if said[0] == "resumed":  # the table, the turn told again, the bot plays on
                await self.presenter.after_step(table)
            else:
                await self.presenter.board.request_edit(table)
            self.driver.settle(table)  # (paused: only the pause's end is timed)

    def _answer(self, result: str, motion: str, table: Table) -> str:
        if result == "paused":
            return "⏸️ " + _("The game is paused. Nobody plays and no timer runs until a "
                             "vote on **Resume** carries, or {when} at the latest.",
                             when=markup.relative_time(table.paused_until or 0))
        if result == "resumed":
            return "▶️ " + _("The game resumes.")
        pausing = motion == pause.PAUSE
        if result == "withdrawn":
            return (_("You withdrew your vote to pause the game. Press **Pause** again to "
                      "vote again.") if pausing else
                    _("You withdrew your vote to resume the game. Press **Resume** again to "
                      "vote again."))
        votes, needed = pause.votes(table), pause.needed(table)
        if pausing:
            return _n("You voted to pause the game. It pauses at {n} vote: {votes} so far. "
                      "Press again to withdraw your vote.",
                      "You voted to pause the game. It pauses at {n} votes: {votes} so far. "
                      "Press again to withdraw your vote.", needed, votes=votes)
        return _n("You voted to resume the game. It resumes at {n} vote: {votes} so far. "
                  "Press again to withdraw your vote.",
                  "You voted to resume the game. It resumes at {n} votes: {votes} so far. "
                  "Press again to withdraw your vote.", needed, votes=votes)
