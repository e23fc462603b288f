"""AttackJack at a Discord table: every seat's cards, the open card, the bank."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot import render
from bot.client import CardTableBot
from bot.gamecog import GameCog, add_game_cog
from bot.games import GameUI
from bot.images import scene as pictures
from bot.storage import Store
from bot.tables import Table
from engine.core import STAND, TAKE, Game, Options

RULES = """\
**AttackJack** — 2 to 17 players, a deck with two jokers; one deal, the best hand takes \
the bank.
**Values**: 2–10 face value, J Q K 10, A 11 or 1; cards of the same rank count once \
(5 8 8 = 13); a **joker** makes a bomb that wins outright.
**Turns**, once around from the seat that won the lot: over 21 you are out; on 21 (or with \
a bomb) you keep your cards; under 21 you take the open card beside the deck (out if you \
pass 21). The bot plays these forced turns for everyone.
**Showdown**: bombs win, else 21, else the highest total; ties by the counted ranks from \
the top. Everyone out: the stakes go back.
"""
STATUS = {"waiting": "waiting", "kept": "keeps", "took": "took", "stood": "stands",
          "out": "out"}
STAND_AT = 17  # the simplest sensible choice for a player who timed out (house rule)


class AttackJackUI(GameUI):
    GAME_ID = "attackjack"
    COMMAND = "attackjack"
    RULES = RULES
    BLURB = "2–17 players, a blackjack relative with bombs; chips with a stake."

    def heading(self, view: dict[str, Any]) -> str:
        if view["over"]:
            return "showdown"
        return f"bank {view['bank']}" if view["stake"] else "one deal"

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = []
        if view["open_card"] and not view["over"]:
            lines.append(f"**Open card**: {render.label(view['open_card'])} · "
                         f"{view['deck']} in the deck")
        for seat, info in enumerate(view["seats"]):
            shown = render.labels(info["cards"]) if info["cards"] else ""
            hidden = " 🂠" * info["hidden"]
            value = f" = {info['value']}" if info["value"] is not None else ""
            bomb = " 💣" if info["bomb"] else ""
            turn = "➡️ " if seat == view["turn"] else ""
            lines.append(f"{turn}{names[seat]}: {shown}{hidden}{value}{bomb} "
                         f"({STATUS[info['status']]})")
        return "\n".join(lines)

    def hand_context(self, seat_view: dict[str, Any], names: Sequence[str]) -> str:
        text = self.draw_table(seat_view, names)
        if seat_view.get("hand_value") is not None:
            text += f"\nYour hand is worth **{seat_view['hand_value']}**."
        return text

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        winners = set(view["winners"]) if view["over"] else set()
        totals = view["totals"]
        seats = tuple(
            pictures.Seat(pictures.name_of(names, seat), pictures.score_text(totals[seat]),
                          _seat_words(info),
                          tuple(pictures.Card(code) for code in info["cards"]),
                          backs=info["hidden"], active=seat == view["turn"],
                          out=info["status"] == "out", winner=seat in winners)
            for seat, info in enumerate(view["seats"]))
        bank = f"Bank {view['bank']} chips ({view['stake']} a seat)." if view["stake"] else ""
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)),
                              (_open_zone(view, "large"),), seats,
                              (bank, self.scene_status(view, names)),
                              seat_columns=pictures.columns_for(len(names)))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        hidden = seat_view.get("face_down")
        mine = tuple(pictures.Card(code, caption="face down" if code == hidden else "")
                     for code in pictures.hand_order(seat_view["hand"]))
        value = seat_view.get("hand_value")
        return pictures.Scene(
            f"Your hand · {pictures.name_of(names, seat)}",
            f"{self.title} · {self.heading(seat_view)}",
            (_open_zone(seat_view, "small"),
             pictures.Zone("Your cards", mine, "" if mine else "—")),
            captions=("" if value is None else f"Your hand is worth {value}.",
                      pictures.keyword_caption(seat_view["legal"])))

    def scene_status(self, view: dict[str, Any], names: Sequence[str]) -> str:
        if view["over"] and not view["winners"]:
            return "Everyone is out: nobody wins, the stakes go back."
        if not view["over"] and view["turn"] is not None and view["to_act"] is None:
            return f"{pictures.name_of(names, view['turn'])}'s turn (the bot plays it)."
        return super().scene_status(view, names)

    def policy(self, game: Game) -> int:
        legal = game.legal_actions()
        if TAKE in legal and STAND in legal:
            seat = game.to_act
            assert seat is not None  # legal actions exist only for the seat to act
            value = game.seat_view(seat)["hand_value"] or 0
            return STAND if value >= STAND_AT else TAKE
        return super().policy(game)

    async def start_problem(self, table: Table, store: Store) -> str | None:
        stake = _stake(table.options)
        if stake <= 0 or table.guild_id is None:
            return None
        # AI seats hold no chips (and a game with one moves none): only people need the stake.
        short = await store.check_stake(table.guild_id, [s.user_id for s in table.humans], stake)
        if not short:
            return None
        names = {s.user_id: s.name for s in table.seats}
        who = ", ".join(f"{names.get(b.user_id, b.user_id)} has {b.balance}" for b in short)
        return f"The stake is {stake} chips, but {who}. Lower the stake or let them sit out."

    def chips(self, game: Game) -> list[int]:
        if _stake(game.options) <= 0 or not game.deal_points:
            return [0] * game.players
        return list(game.deal_points[0])

    def final_embed(self, table: Table, game: Game) -> discord.Embed:
        view = game.public_view()
        names = table.names
        winners = game.winners()
        embed = discord.Embed(title=f"{self.title} · showdown", colour=render.GOLD)
        head = ("🏆 " + " and ".join(f"**{discord.utils.escape_markdown(names[w])}**"
                                    for w in winners) + (" win!" if len(winners) > 1 else " wins!")
                if winners else "Everyone is out: nobody wins, the stakes go back.")
        lines = [head, "", self.draw_table(view, names)]
        if view["stake"]:
            nets = ", ".join(f"{names[s]} {p:+d}" for s, p in enumerate(game.totals))
            lines.append(f"\nChips: {nets}")
        embed.description = "\n".join(lines)
        return render.fit_embed(embed)


def _open_zone(view: dict[str, Any], size: pictures.Size) -> pictures.Zone:
    """The face-up card beside the deck, on the deck's face-down pile."""
    if view["over"] or not view["open_card"]:
        return pictures.Zone("Open card", note="the showdown" if view["over"] else "—",
                             size=size)
    return pictures.Zone("Open card", (pictures.Card(view["open_card"]),),
                         f"{view['deck']} in the deck", size=size, backs=view["deck"])


def _seat_words(info: dict[str, Any]) -> str:
    words = [STATUS[info["status"]]]
    if info["value"] is not None:
        words.insert(0, f"= {info['value']}")
    if info["bomb"]:
        words.append("bomb")
    if info["hidden"]:
        words.append(f"{info['hidden']} face down")
    return " · ".join(words)


def _stake(options: Options) -> int:
    from engine.attackjack import AttackJackOptions  # cogs load no engine at import time

    assert isinstance(options, AttackJackOptions)
    return options.stake


class AttackJackCog(GameCog):
    UI = AttackJackUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, AttackJackCog)
