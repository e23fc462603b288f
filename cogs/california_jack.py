"""California Jack at a Discord table: trumps, the face-up stock, tricks and draws."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import discord

from bot import render
from bot.client import CardTableBot
from bot.gamecog import GameCog, add_game_cog
from bot.games import GameUI
from bot.images import scene as pictures
from bot.tables import Table
from engine.cards import SUIT_LETTERS, SUIT_SYMBOLS
from engine.core import Game

RULES = """\
**California Jack** — 2 players, 6 cards each; the first to 10 game points wins.
The other 40 cards form a **face-up stock**: its top card at the start of a deal names \
**trumps**. Follow suit if you can (otherwise play anything); the highest trump wins, else \
the highest card of the suit led. The trick's winner takes the stock's top card, then the \
loser the next; when the stock is gone the last six cards are played out.
**Game points per deal**: High (ace of trumps), Jack (jack of trumps), Low (two of trumps) \
to whoever captures them, and Game to the most trick points (10 = 10, A 4, K 3, Q 2, J 1).
"""


def suit_symbol(letter: str | None) -> str:
    return SUIT_SYMBOLS[SUIT_LETTERS.index(letter)] if letter else "?"


class CaliforniaJackUI(GameUI):
    GAME_ID = "california_jack"
    COMMAND = "californiajack"
    RULES = RULES
    BLURB = "2 players, a face-up stock that names trumps, High-Low-Jack-Game."

    def heading(self, view: dict[str, Any]) -> str:
        return f"deal {view['deal'] + 1} · trumps {suit_symbol(view['trump'])}"

    def draw_table(self, view: dict[str, Any], names: Sequence[str]) -> str:
        lines = [f"**Trumps {suit_symbol(view['trump'])}**"]
        if view["stock_top"]:
            lines[0] += (f" · stock: {render.label(view['stock_top'])} on top "
                         f"({view['stock_size']} cards)")
        else:
            lines[0] += " · the stock is empty"
        if view["trick"]:
            lead = view["trick"][0]
            lines.append(f"**Trick**: {render.label(lead['card'])} {names[lead['seat']]}")
        elif view["to_act"] is not None:
            lines.append(f"**Trick**: {names[view['to_act']]} leads.")
        last = view["last_trick"]
        if last:
            played = " ".join(render.label(t["card"]) for t in last["cards"])
            lines.append(f"Last trick: {played} → {names[last['winner']]}")
        if view["draws"]:
            lines.append("Drawn: " + ", ".join(f"{names[d['seat']]} {render.label(d['card'])}"
                                               for d in view["draws"]))
        return "\n".join(lines)

    def seat_note(self, view: dict[str, Any], seat: int) -> str:
        note = f"{view['tricks_won'][seat]} tricks"
        known = view["known"][seat]
        if known:
            note += f" · holds {render.labels(known)} (drawn)"
        return note

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene:
        names = pictures.display_names(names)
        seats = tuple(
            replace(seat, backs=view["hand_sizes"][i] - len(view["known"][i]),
                    cards=tuple(pictures.Card(code) for code in view["known"][i]),
                    note=f"{view['tricks_won'][i]} tricks · {view['hand_sizes'][i]} cards, "
                         f"{len(view['known'][i])} drawn face up")
            for i, seat in enumerate(self.scene_seats(view, names)))
        return pictures.Scene(self.title, pictures.upper_first(self.heading(view)),
                              (_stock_zone(view), _trick_zone(view, names, "large"),
                               _last_zone(view, names)),
                              seats, (self.scene_status(view, names),))

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene:
        names = pictures.display_names(names)
        legal = seat_view["legal"]
        return pictures.Scene(f"Your hand · {pictures.name_of(names, seat)}",
                              f"{self.title} · {self.heading(seat_view)}",
                              (_stock_zone(seat_view), _trick_zone(seat_view, names, "small"),
                               pictures.hand_row("Your cards", seat_view["hand"], legal)),
                              captions=(pictures.keyword_caption(legal),))

    def deal_result_embed(self, table: Table, game: Game, deal: int) -> discord.Embed:
        embed = super().deal_result_embed(table, game, deal)
        result = game.public_view()["last_result"]
        if result is not None and result["deal"] == deal:
            names = table.names
            parts = [f"{label}: {names[result[key]] if result[key] is not None else 'nobody'}"
                     for key, label in (("high", "High"), ("low", "Low"), ("jack", "Jack"),
                                        ("game", "Game"))]
            points = " – ".join(str(p) for p in result["trick_points"])
            embed.description = (embed.description or "") + \
                f"\n{' · '.join(parts)}\nTrick points {points}"
        return render.fit_embed(embed)


def _stock_zone(view: dict[str, Any]) -> pictures.Zone:
    """Trumps as a tile, then the face-up stock: its top card on the face-down rest."""
    top = view["stock_top"]
    if not top:
        return pictures.Zone("Trumps and the stock", badge=suit_symbol(view["trump"]),
                             note="the stock is empty", size="small")
    return pictures.Zone("Trumps and the stock", (pictures.Card(top),),
                         f"{view['stock_size']} cards in the stock", size="small",
                         badge=suit_symbol(view["trump"]), backs=view["stock_size"] - 1)


def _trick_zone(view: dict[str, Any], names: Sequence[str],
                size: pictures.Size) -> pictures.Zone:
    leads = "" if view["trick"] or view["to_act"] is None else \
        f"{pictures.name_of(names, view['to_act'])} leads."
    return pictures.Zone("Trick", pictures.trick_cards(view["trick"], names), leads, size=size)


def _last_zone(view: dict[str, Any], names: Sequence[str]) -> pictures.Zone:
    """The last trick (its winner's card marked), then the two cards drawn after it."""
    last = view["last_trick"]
    if not last:
        return pictures.Zone("Last trick", note="—", size="small")
    played = pictures.trick_cards(last["cards"], names, last["winner"])
    drawn = tuple(pictures.Card(d["card"], caption=f"{pictures.name_of(names, d['seat'])} drew")
                  for d in view["draws"])
    label = "Last trick, then the draws" if drawn else "Last trick"
    return pictures.Zone(label, played + drawn,
                         f"→ {pictures.name_of(names, last['winner'])}", size="small",
                         slots=(0, 1, 3, 4)[:len(played) + len(drawn)])


class CaliforniaJackCog(GameCog):
    UI = CaliforniaJackUI


async def setup(bot: CardTableBot) -> None:
    await add_game_cog(bot, CaliforniaJackCog)
