"""Replays in Discord: a finished game stepped through in a private message.

**Replay** (``bot.ui.replay_buttons``) sits under every game's result and on
``/history``'s answer with a game's record. Pressed, it answers with an **ephemeral**
message, only ever: a replay shows every hand, so it is never posted where others
read it (a step button pressed on a message that is not private, which only a forged
click could do, answers with a new private message rather than edit it). The message
shows one frame of the game's record (``bot.views.replay``, the web table's stepping
too): the table picture of that step, every hand face up, a line saying what happened,
the deal and step numbers, and ⏮ Previous deal, ◀ Back, Next ▶, Next deal ⏭. The last
frame shows the game's result.

**Decision**: one picture, the table as its players saw it, and each hand as text (an
embed field per seat, by suit, in the reader's language), rather than one picture
holding the table and every hand. Discord shows an embed's picture at about 400 px wide
and caps its height, and a hand under the table for every seat makes it 1,100 px tall
at Jazz for four, 1,600 px for seven and 3,000 px at AttackJack for seventeen, shrunk
until the cards cannot be read; the text stays legible at any table size, is read out
by screen readers, and stays within an embed's limits (a field per seat: at most 17 of
25). The table picture keeps its usual size and is drawn off the event loop by the
``Painter``, as every table picture.

Who may: only a game the asker may see, by ``/history``'s rule
(``bot.ui.visibility.may_see``: the stored game's channel, whose past they can read),
and, as ``/history``, only a game of the server asked in. Checked at every click.

Cost: a click names the game and the frame (its custom_id: no state in memory, so the
buttons work after a restart). The frames of a game are built once per language, in a
worker thread (a long game takes a few tens of ms), and a few games' frames are kept
(``KEPT_GAMES``), so stepping costs one read of the game's listing, a scene and its
picture. A record over ``MAX_STEPS`` actions is refused politely, as the web table's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

import discord

import locales
from bot.images.lru import LRU
from bot.images.painter import Painter
from bot.storage import GameSummary, Store
from bot.table.tournament_secrecy import SECRET_DEALS, deals_secret
from bot.ui import markup, replies
from bot.ui.attachments import Picture, show
from bot.ui.replay_buttons import step_view
from bot.ui.visibility import may_see
from bot.views import GameView, views
from bot.views.replay import MAX_STEPS, Frame, Replayed, action_count, frame_of, replay_steps
from engine.records import ReplayError
from engine.text import TN, T, Text
from locales import _

log = logging.getLogger(__name__)

KEPT_GAMES = 16  # games whose frames are kept, in each language asked
KEPT_FRAMES = 8_000  # at most this many frames kept in all (a long game holds ~400)
PICTURE = "replay.png"

NOT_FOUND = T("I cannot find that game's record on this server.")
NOT_RECORDED = T("That game's record is not available.")
HIDDEN = T("That game was played in a channel you cannot see, so I cannot show you its "
           "replay.")
DAMAGED = T("That game's record cannot be replayed.")
UNREADABLE = T("I could not read that game just now. Please try again in a moment.")


@dataclass(frozen=True)
class Built:
    """A game's replay, as kept: its frames in one language, and its stored listing."""

    summary: GameSummary
    replayed: Replayed[Frame]


class Refused(Exception):
    """A replay that cannot be shown to this asker; ``args[0]``: why, a ``Text``."""


class Replays:
    def __init__(self, store: Store, painter: Painter,
                 game_views: Mapping[str, GameView] | None = None):
        self.store = store
        # Every registered game's view (bot.views), whether or not its cog is loaded here:
        # a game recorded here may be replayed by a process serving other games.
        self.views = dict(views()) if game_views is None else game_views
        self.painter = painter
        self.kept: LRU[tuple[int, str], Built] = LRU(
            KEPT_GAMES, KEPT_FRAMES, lambda built: len(built.replayed.frames))

    async def click(self, interaction: discord.Interaction, game_id: int | None,
                    table_id: str | None) -> None:
        """Replay pressed: the game's first frame, in a new private message."""
        try:
            if game_id is None and table_id is not None:
                game_id = await self.store.game_of_table(table_id)
            if game_id is None:
                raise Refused(NOT_RECORDED)
        except Refused as refused:
            await replies.reply(interaction, markup.say_safe(refused.args[0]))
            return
        except Exception:
            log.exception("cannot find the game of table %s", table_id)
            await replies.reply(interaction, locales.say(UNREADABLE))
            return
        await self.show(interaction, game_id, 0, new=True)

    async def step(self, interaction: discord.Interaction, game_id: int, frame: int) -> None:
        """A step button: that frame, in place of the one shown (the message is private)."""
        message = interaction.message
        private = message is not None and message.flags.ephemeral
        await self.show(interaction, game_id, frame, new=not private)

    async def show(self, interaction: discord.Interaction, game_id: int, index: int,
                   new: bool) -> None:
        """Frame ``index`` of game ``game_id`` (the last one if beyond it), privately: a new
        message (``new``) or the clicked one edited."""
        language = locales.current()
        try:
            built = await self.built(interaction, game_id, language)
        except Refused as refused:
            await replies.reply(interaction, markup.say_safe(refused.args[0]))
            return
        replayed = built.replayed
        index = max(0, min(index, len(replayed.frames) - 1))
        frame = replayed.frames[index]
        ui = self.views[replayed.game]  # (built: the game has a view)
        with locales.speaking(language):
            embed = replay_embed(ui, game_id, replayed, index)
            scene = ui.table_scene(frame.public, replayed.players)
            view = step_view(game_id, index, len(replayed.frames), replayed.deals)
        data = await self.painter.render_or_none(scene, "replay")
        picture = Picture(PICTURE, data) if data is not None else None
        show(embed, picture)
        if new:
            await replies.reply(interaction, embed=embed, view=view, picture=picture,
                                ephemeral=True)
        else:
            await replies.update(interaction, content=None, embed=embed, view=view,
                                 picture=picture)

    async def built(self, interaction: discord.Interaction, game_id: int,
                    language: str) -> Built:
        """The game's frames in ``language`` (kept, or built now), if the asker may see the
        game; ``Refused`` otherwise, or when it cannot be replayed."""
        try:
            summary = await self.summary(game_id)
        except Exception:
            log.exception("cannot read game %s for its replay", game_id)
            raise Refused(UNREADABLE) from None
        if summary is None or (interaction.guild_id is not None
                               and summary.guild_id != interaction.guild_id):
            raise Refused(NOT_FOUND)  # (as /history: only this server's games)
        if not may_see(interaction, summary):
            raise Refused(HIDDEN)
        try:
            secret = await deals_secret(self.store, game_id, summary.guild_id)
        except Exception:
            log.exception("cannot read the tournaments of game %s", game_id)
            raise Refused(UNREADABLE) from None
        if secret:  # (checked before the kept frames too: never shown while secret)
            raise Refused(SECRET_DEALS)
        key = (game_id, language)
        built = self.kept.peek(key)
        if built is not None:
            return built
        try:
            record = await self.store.game_record(game_id)
        except Exception:
            log.exception("cannot read the record of game %s", game_id)
            raise Refused(UNREADABLE) from None
        if record is None:
            raise Refused(NOT_FOUND)
        if record.get("game") not in self.views:  # a game this build draws no table of
            raise Refused(DAMAGED)
        steps = action_count(record)
        if steps > MAX_STEPS:
            raise Refused(too_long(steps))
        names = [p.name for p in sorted(summary.players, key=lambda p: p.seat)]
        try:
            # A long game takes a few tens of ms: off the event loop.
            replayed = await asyncio.to_thread(replay_steps, record, names, language, frame_of,
                                               markup.safe_name)
        except (ReplayError, ValueError, KeyError, TypeError) as error:
            log.warning("game %s cannot be replayed: %s", game_id, error)
            raise Refused(DAMAGED) from None
        if not replayed.frames:
            raise Refused(DAMAGED)
        return self.kept.get(key, lambda: Built(summary, replayed))

    async def summary(self, game_id: int) -> GameSummary | None:
        """The game as ``/history`` lists it (its server, channel and players), or None."""
        found = await self.store.history(None, before=game_id + 1, limit=1)
        return found[0] if found and found[0].game_id == game_id else None


def too_long(steps: int) -> Text:
    """Why a record of ``steps`` actions is not replayed (more than ``MAX_STEPS``)."""
    # Translators: {n} is the number of moves of the game, {most} the most a replay shows
    return TN("That game is too long to replay here: it holds {n} move, and a replay shows "
              "at most {most}.",
              "That game is too long to replay here: it holds {n} moves, and a replay shows "
              "at most {most}.", steps, most=MAX_STEPS)


def replay_embed(ui: GameView, game_id: int, replayed: Replayed[Frame],
                 index: int) -> discord.Embed:
    """Frame ``index`` as an embed, in the current language: what happened (and the result
    where a deal or the game ended), each seat's hand face up, the deal and the step."""
    frame = replayed.frames[index]
    moment = frame.moment
    lines = [moment.line or "…"]
    if moment.result:
        lines.append("\n".join(f"**{line}**" for line in moment.result.splitlines()))
    embed = discord.Embed(
        # Translators: the title of a replay (a finished game stepped through): its number
        # and its game, as in "Replay of game #12 · Jazz"
        title=_("Replay of game #{id} · {game}", id=game_id, game=ui.title),
        colour=markup.GOLD if index == len(replayed.frames) - 1 else markup.COLOUR,
        description="\n\n".join(lines))
    for seat, name in enumerate(replayed.players):
        hand = frame.hands[seat] if seat < len(frame.hands) else ()
        embed.add_field(name=markup.safe_name(name),
                        value=markup.hand_lines(hand) if hand else "—", inline=True)
    deals = replayed.deals
    deal = moment.deal
    start = deals[deal] if deal < len(deals) else 0
    end = deals[deal + 1] if deal + 1 < len(deals) else len(replayed.frames)
    # Translators: under a replay: which deal of the game, which step of that deal
    embed.set_footer(text=_("Deal {deal} of {deals} · step {step} of {steps}",
                                    deal=deal + 1, deals=len(deals), step=index - start + 1,
                                    steps=end - start))
    return markup.fit_embed(embed)
