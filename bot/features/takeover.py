"""Taking over a seat: a member asks for a seat that was left, the table answers.

The rules (which seats, who may ask, who decides, what an accept changes) are
``bot.table.takeover``; the buttons ``bot.ui.takeover_buttons``. This module answers
their clicks:

* **Take a seat** (on the table message while a seat may be taken): refused privately
  with the reason, or, with several seats free, a private menu of them; else the ask is
  saved (one step), posted in the channel naming the newcomer and the seat, with
  **Accept** and **Refuse**, pinging exactly those who decide (the host, or the present
  players), and the asker is told privately that it was sent. An ask that nobody could
  answer in time and that this one replaces says it lapsed.
* **Accept** / **Refuse**: anyone else is refused politely and privately; a vote that
  leaves it open redraws the ask with the votes so far; once decided the ask's message
  says so and loses its buttons. Accepted: the old player's hand DM becomes one line
  (their menu is gone, and any click of theirs is refused: they are no longer seated), the
  newcomer gets the hand exactly as a player does at the start (by DM, or the table's
  usual fallback when their DMs are closed or hands are shown in the channel; told it
  is their turn if it is, their turn timer running), and the table is redrawn.

Everything an ask needs lives in the table's fields and the buttons' custom_ids, so a
restart changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.table import takeover
from bot.table.bus import Change, Saved
from bot.table.state import Table, TableError
from bot.table.takeover import ACCEPTED, HOST, LAPSED, PENDING, REFUSED, Verdict
from bot.ui import answer_guard, markup, replies
from bot.ui.board import save_posts
from bot.ui.hands import Hands
from bot.ui.poster import Gone, Poster
from bot.ui.takeover_buttons import ask_view, seat_menu
from locales import _, speaking

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.play.driver import Driver
    from bot.table.manager import TableManager
    from bot.table.step import Steps
    from bot.table.timers import Clock
    from bot.ui.board import Board

log = logging.getLogger(__name__)


class Takeovers:
    def __init__(self, clicks: Clicks, steps: Steps, manager: TableManager, board: Board,
                 hands: Hands, driver: Driver, clock: Clock):
        self.clicks = clicks
        self.steps = steps
        self.manager = manager
        self.board = board
        self.hands = hands
        self.driver = driver
        self.clock = clock
        manager.bus.subscribe(self._follow)

    def _follow(self, saved: Saved) -> None:
        """A table that ends with an ask still open: the ask's message loses its buttons
        and says the game is over (a task of the table's: shutdown waits for it)."""
        table = self.manager.get(saved.table_id)
        if saved.change != Change.CLOSED or table is None or table.takeover_ask is None:
            return
        self.driver.tasks.spawn(self._closed(table, dict(table.takeover_ask)),
                                f"ask-closed-{table.table_id}")

    async def _closed(self, table: Table, ask: dict[str, Any]) -> None:
        message = ask.get("message")
        if message is None:
            return
        with speaking(table.language):  # the channel's message: the table's language
            content = markup.content(_("⌛ {name}'s request lapsed: the game is over.",
                                       name=markup.safe_name(ask["name"])))
        with contextlib.suppress(Gone):
            await self.poster.edit(table.channel_id, table.guild_id, int(message),
                                   content=content, view=None, allowed_mentions=replies.NO_PINGS)

    @property
    def poster(self) -> Poster:
        return self.hands.poster

    # -- Take a seat -----------------------------------------------------------------

    async def click(self, interaction: discord.Interaction, table_id: str,
                    seat: int | None) -> None:
        """Take a seat (``seat`` None), or a seat picked in the private menu."""
        picked = seat is not None  # the answer replaces the private menu
        async with self.clicks.table(interaction, table_id, channel_bound=True) as table:
            if table is None:
                return
            user, now = interaction.user, self.clock.now()
            try:
                free = takeover.check_ask(table, user.id, user.bot, seat, now,
                                          markup.relative_time)
            except TableError as error:
                await _answer(interaction, picked, markup.say_safe(error))
                return
            if len(free) > 1:
                await replies.reply(interaction, _("Which seat would you like to take?"),
                                    view=seat_menu(table, free))
                return
            replaced = table.takeover_ask  # unanswered in time, or its player is back
            back = replaced is not None and takeover.live_ask(table) is None
            verdicts: list[Verdict] = []
            outcome = await self.steps.apply(table, lambda t: verdicts.append(
                takeover.ask(t, free[0], user.id, user.display_name, now)))
            if not outcome.saved:
                await _answer(interaction, picked, markup.say_safe(
                    outcome.refusal or answer_guard.SOMETHING_WRONG))
                return
            replies.step_saved(interaction)
            (verdict,) = verdicts
            if replaced is not None:
                await self._lapsed(table, replaced, back)
            if verdict.kind == ACCEPTED:  # nobody there to decide: the seat is theirs
                await _answer(interaction, picked, _(
                    "You took over {player}'s seat: nobody was there to ask, so it is yours.",
                    player=markup.safe_name(verdict.ask["player"])))
                await self._seated(table, verdict.ask)
                return
            await self._ask(interaction, table, verdict.ask, picked)

    async def _ask(self, interaction: discord.Interaction, table: Table, ask: dict[str, Any],
                   picked: bool) -> None:
        """Post the saved ask in the channel, pinging those who decide; tell the asker."""
        mode, who = takeover.deciders(table, int(ask["seat"]))
        with speaking(table.language):  # the channel reads the table's language
            content = self._ask_text(table, ask, mode, who)
            view = ask_view(table.table_id, int(ask["n"]))
        pings = discord.AllowedMentions(everyone=False, roles=False,
                                        users=[discord.Object(u) for u in who])
        message = await self.poster.send(table.channel_id, table.guild_id, view=view,
                                         content=markup.content(content),
                                         allowed_mentions=pings)
        n = int(ask["n"])
        if message is None:  # nobody could answer it: it is dropped
            await self.steps.apply(table, lambda t: takeover.withdraw(t, n))
            await _answer(interaction, picked, _("I could not post your request in this "
                                                 "channel, so nothing was asked."))
            return
        await self.steps.apply(table, lambda t: takeover.note_message(t, n, message.id))
        player = markup.safe_name(ask["player"])
        if mode == HOST:
            text = _("I asked the host, {host}, to let you take over {player}'s seat. If they "
                     "accept, the seat is yours and your hand comes as any player's does.",
                     host=markup.safe_name(table.host_name), player=player)
        else:
            text = _("I asked the players to let you take over {player}'s seat. If more than "
                     "half of them accept, the seat is yours and your hand comes as any "
                     "player's does.", player=player)
        await _answer(interaction, picked, text)

    # -- Accept and Refuse -----------------------------------------------------------

    async def vote(self, interaction: discord.Interaction, table_id: str, n: int,
                   accept: bool) -> None:
        async with self.clicks.table(interaction, table_id, channel_bound=True) as table:
            if table is None:
                return
            user, now = interaction.user, self.clock.now()
            verdicts: list[Verdict] = []
            outcome = await self.steps.apply(table, lambda t: verdicts.append(
                takeover.decide(t, n, user.id, accept, now)))
            if not outcome.saved:
                await replies.reply(interaction, markup.say_safe(
                    outcome.refusal or answer_guard.SOMETHING_WRONG))
                return
            replies.step_saved(interaction)
            (verdict,) = verdicts
            with speaking(table.language):  # the ask is the channel's: the table's language
                content, view = self._verdict_parts(table, verdict)
            await replies.update(interaction, content=markup.content(content), view=view,
                                 allowed_mentions=replies.NO_PINGS)
            if verdict.kind == ACCEPTED:
                await self._seated(table, verdict.ask)

    def _verdict_parts(self, table: Table, verdict: Verdict
                       ) -> tuple[str, discord.ui.View | None]:
        """The ask's message once answered (in the current language)."""
        ask = verdict.ask
        name, player = markup.safe_name(ask["name"]), markup.safe_name(ask["player"])
        if verdict.kind == PENDING:
            mode, who = takeover.deciders(table, int(ask["seat"]))
            return (self._ask_text(table, ask, mode, who),
                    ask_view(table.table_id, int(ask["n"])))
        if verdict.kind == ACCEPTED:
            return _("✅ {name} took over {player}'s seat at {game}.", name=name,
                     player=player, game=table.title), None
        if verdict.kind == REFUSED:
            mode, _who = takeover.deciders(table, int(ask["seat"]))
            if mode == HOST:
                return _("❌ {host} refused: {name} does not take over {player}'s seat.",
                         host=markup.mention(verdict.by), name=name, player=player), None
            return _("❌ The players refused: {name} does not take over {player}'s seat.",
                     name=name, player=player), None
        assert verdict.kind == LAPSED
        return self._back_text(ask), None

    # -- the texts of an ask (said in the current language) ----------------------------

    @staticmethod
    def _ask_text(table: Table, ask: dict[str, Any], mode: str, who: list[int]) -> str:
        # Translators: a message in the channel: {name} asks to play the seat {player} left
        asked = _("🪑 {name} asks to take over {player}'s seat at {game}.",
                  name=markup.safe_name(ask["name"]), player=markup.safe_name(ask["player"]),
                  game=table.title)
        mentions = " ".join(markup.mention(u) for u in who)
        if mode == HOST:
            # Translators: follows the request; {host} mentions the host
            return asked + " " + _("{host}, do you accept?", host=mentions)
        # Translators: follows the request; {players} mentions the players who vote
        question = _("{players}: do you accept? More than half of you must.",
                     players=mentions)
        votes = takeover.votes_for(ask, who)
        if not votes:
            return f"{asked} {question}"
        return f"{asked} {question}\n" + _("Accepted so far: {count} of {total}.",
                                           count=votes, total=len(who))

    @staticmethod
    def _back_text(ask: dict[str, Any]) -> str:
        return _("⌛ {player} is back, so {name}'s request lapsed.",
                 player=markup.safe_name(ask["player"]), name=markup.safe_name(ask["name"]))

    async def _lapsed(self, table: Table, ask: dict[str, Any], back: bool) -> None:
        """A replaced ask's message says it lapsed (its player came back, or nobody
        answered in time), without its buttons."""
        message = ask.get("message")
        if message is None:
            return
        with speaking(table.language):  # the channel's message: the table's language
            content = markup.content(self._back_text(ask) if back else _(
                "⌛ {name}'s request lapsed: nobody answered it in time.",
                name=markup.safe_name(ask["name"])))
        with contextlib.suppress(Gone):
            await self.poster.edit(table.channel_id, table.guild_id, int(message),
                                   content=content, view=None, allowed_mentions=replies.NO_PINGS)

    # -- the seat changed hands --------------------------------------------------------

    async def _seated(self, table: Table, ask: dict[str, Any]) -> None:
        """The seat is the newcomer's now (saved): the old player's hand retired, the
        newcomer's sent, the table redrawn, the bot and the timers told."""
        seat, old = int(ask["seat"]), int(ask["old"])
        await self._retire(table, old, ask)
        if table.automation() is None and table.to_act == seat and not table.paused:
            await self.hands.tell_turn(table, seat)  # their turn: the hand with its menu
        else:
            await self.hands.send(table, seat)
        await self.board.request_edit(table)
        await save_posts(self.manager, table)
        self.driver.settle(table)

    async def _retire(self, table: Table, old: int, ask: dict[str, Any]) -> None:
        """The old player's live hand DM becomes one line, and a turn notice of theirs
        goes: they no longer play this game."""
        posts, poster = table.posts, self.poster
        notice = posts.turn_notices.pop(old, None)
        if notice is not None:
            await poster.delete(table.channel_id, table.guild_id, notice)
        message, channel = posts.hand_messages.pop(old, None), posts.dm_channels.get(old)
        if message is None or channel is None:
            return
        with speaking(self.hands.language_of(old)):  # a DM: theirs
            line = "🪑 " + _("{name} took over your seat at {game}: you no longer play "
                            "this game.", name=markup.safe_name(ask["name"]), game=table.title)
        try:
            await poster.edit(channel, None, message, **Hands.collapsed(line))
        except Gone:
            pass
        except Exception:  # a courtesy: the seat changed hands whatever happens
            log.exception("cannot retire the hand of a player of table %s", table.table_id)


async def _answer(interaction: discord.Interaction, picked: bool, text: str) -> None:
    """The private answer: replacing the seat menu when one was picked in it."""
    if picked:
        await replies.update(interaction, content=markup.content(text), view=None)
    else:
        await replies.reply(interaction, text)

