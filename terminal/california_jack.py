"""California Jack at the terminal table: trumps, the face-up stock, the draws, and
how each deal scored."""

from __future__ import annotations

from typing import Any

from engine import cards
from engine.events import CardsDrawn, DealEnded, DealScored, Event, TrickTaken
from locales import _, _n, say
from terminal.render import HUMAN, Renderer, hand_line, label


class CaliforniaJackRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        suit = cards.SUIT_LETTERS.index(view["trump"])
        trump, top, deal = say(cards.SUIT_TEXTS[suit]), label(view["stock_top"]), view["deal"] + 1
        leader = view["leader"]
        # Translators: {trump} is a suit's name (spades...), {top} a card.
        header = (_("Deal {deal}: trumps are {trump} (stock top {top}), You lead", deal=deal,
                    trump=trump, top=top) if leader == HUMAN else
                  _("Deal {deal}: trumps are {trump} (stock top {top}), {name} leads",
                    deal=deal, trump=trump, top=top, name=self.name(leader)))
        return f"=== {header} ==="

    def table(self, view: dict[str, Any]) -> list[str]:
        trump = cards.SUIT_SYMBOLS[cards.SUIT_LETTERS.index(view["trump"])]
        left = view["stock_size"]
        stock = (_n("stock top {card} ({n} left)", "stock top {card} ({n} left)", left,
                    card=label(view["stock_top"])) if view["stock_top"]
                 else _n("stock top empty ({n} left)", "stock top empty ({n} left)", left))
        tricks = " · ".join(f"{self.name(s)} {n}" for s, n in enumerate(view["tricks_won"]))
        parts = [_("Trumps {suit}", suit=trump), stock, _("tricks {counts}", counts=tricks),
                 _("game points {scores} (to {target})", scores=self.scores(view["totals"]),
                   target=view["target"])]
        lines = [" · ".join(parts)]
        known = view["known"][1]
        if known:
            lines.append(_("{name} drew and holds: {hand}", name=self.name(1),
                           hand=hand_line(known)))
        if view["trick"]:
            lines.append(_("{name} led {card}.", name=self.name(view["trick"][0]["seat"]),
                           card=label(view["trick"][0]["card"])))
        lines.append(_("Your hand: {hand}", hand=hand_line(view["hand"])))
        return lines

    def step(self, events: list[Event], view: dict[str, Any]) -> list[str]:
        # The draws after a trick are told on the trick's line.
        drawn = next((e for e in events if isinstance(e, CardsDrawn)), None)
        lines: list[str] = []
        for event in events:
            if isinstance(event, TrickTaken):
                lines.append("  " + self._trick_line(event.seat, drawn))
            elif isinstance(event, DealScored):
                lines.append(self._scored(event, view))
            elif not isinstance(event, DealEnded | CardsDrawn):  # the scoring says it all
                lines.extend(self.event(event, view))
        return lines

    def _trick_line(self, seat: int, drawn: CardsDrawn | None) -> str:
        if drawn is None:
            return (_("You win the trick.") if seat == HUMAN
                    else _("{name} wins the trick.", name=self.name(seat)))
        draws = self._draws(drawn)
        # Translators: {draws} says who drew which card: "AI 1 2♥, You 2♣".
        return (_("You win the trick. Drawn: {draws}.", draws=draws) if seat == HUMAN
                else _("{name} wins the trick. Drawn: {draws}.", name=self.name(seat),
                       draws=draws))

    def _draws(self, drawn: CardsDrawn) -> str:
        other = 1 - drawn.seat
        return (f"{self.name(drawn.seat)} {say(cards.label(drawn.card))}, "
                f"{self.name(other)} {say(cards.label(drawn.other_card))}")

    def _scored(self, result: DealScored, view: dict[str, Any]) -> str:
        points = f"{result.trick_points[0]}–{result.trick_points[1]}"
        names = {"deal": result.deal + 1, "high": self.name(result.high),
                 "jack": self.name(result.jack), "low": self.name(result.low),
                 "points": points, "totals": self.scores(view["totals"])}
        if result.game is None:
            # Translators: how a deal scored: who won the honours High, Jack, Low and Game.
            return _("Deal {deal} scored: high {high}, jack {jack}, low {low}, game nobody "
                     "(trick points {points}). Totals: {totals}", **names)
        # Translators: how a deal scored: who won the honours High, Jack, Low and Game.
        return _("Deal {deal} scored: high {high}, jack {jack}, low {low}, game {game} "
                 "(trick points {points}). Totals: {totals}", game=self.name(result.game),
                 **names)


RENDERER = CaliforniaJackRenderer
