"""Jazz at the terminal table: the deal's name, the trick or the Sevens rows.

What happened (cards, passes, tricks taken, a deal's points) is the generic
renderer's: Jazz's events need no words of their own.
"""

from __future__ import annotations

from typing import Any

from locales import _
from terminal.render import Renderer, hand_line, label


class JazzRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        # Translators: {name} is the deal's name (Clubs: −1 a club), {player} who plays first.
        header = _("Deal {deal} of 6: {name} — {player} to start", deal=view["deal"] + 1,
                   name=view["deal_name"], player=self.name(view["forehand"]))
        return f"=== {header} ==="

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [_("Deal {deal} of 6: {name}. Scores: {scores}", deal=view["deal"] + 1,
                   name=view["deal_name"], scores=self.scores(view["totals"]))]
        if view["deal_kind"] == "sevens":
            rows = view["rows"]
            shown = [f"{label(lo)}–{label(hi)}" for lo, hi in rows.values()]
            lines.append(_("Rows: {rows}", rows="  ".join(shown)) if shown
                         else _("Rows: none yet (a seven opens)"))
        else:
            trick = ", ".join(f"{self.name(t['seat'])} {label(t['card'])}"
                              for t in view["trick"])
            lines.append(_("Trick: {cards}", cards=trick) if trick else _("Trick: you lead"))
        lines.append(_("Your hand: {hand}", hand=hand_line(view["hand"])))
        return lines


RENDERER = JazzRenderer
