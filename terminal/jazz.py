"""Jazz at the terminal table: the deal's name, the trick or the Sevens rows.

What happened (cards, passes, tricks taken, a deal's points) is the generic
renderer's: Jazz's events need no words of their own.
"""

from __future__ import annotations

from typing import Any

from terminal.render import Renderer, hand_line, label


class JazzRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        return (f"=== Deal {view['deal'] + 1} of 6: {view['deal_name']} — "
                f"{self.name(view['forehand'])} to start ===")

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [f"Deal {view['deal'] + 1} of 6: {view['deal_name']}. "
                 f"Scores: {self.scores(view['totals'])}"]
        if view["deal_kind"] == "sevens":
            rows = view["rows"]
            shown = [f"{label(lo)}–{label(hi)}" for lo, hi in rows.values()]
            lines.append("Rows: " + ("  ".join(shown) if shown else "none yet (a seven opens)"))
        else:
            trick = ", ".join(f"{self.name(t['seat'])} {label(t['card'])}"
                              for t in view["trick"])
            lines.append("Trick: " + (trick or "you lead"))
        lines.append(f"Your hand: {hand_line(view['hand'])}")
        return lines


RENDERER = JazzRenderer
