"""Jazz's options (``docs/rules/jazz.md``): the Sevens bonus and the variants."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import OptionError, Options, option
from engine.text import T

NORWEGIAN_MAX_PLAYERS = 5  # Norwegian Jazz: 3-5 players


@dataclass(frozen=True)
class JazzOptions(Options):
    # Bounds (rules: an integer, 10, or 80 in the Swedish variant): a bonus, never a penalty.
    sevens_bonus: int = option(10, T("Points for the first empty hand in the Sevens deal (80 "
                                     "in the Swedish variant)."),
                               # Translators: an option's short name (Jazz): "Sevens bonus: 10"
                               label=T("Sevens bonus"), minimum=0, maximum=200,
                               suggested=(0, 5, 10, 20, 40, 80, 100))
    norwegian: bool = option(False, T("Norwegian Jazz: 3-5 players; in Sevens the king tops a "
                                      "row and the ace ends it below."),
                             # Translators: an option's short name (Jazz): Norwegian Jazz
                             label=T("Norwegian variant"))
    play_out: bool = option(False, T("Play deals 2-4 to the last trick even when no penalty "
                                     "is left."),
                            # Translators: an option's short name (Jazz): deals 2-4 played to
                            # the last trick
                            label=T("Play every trick"))

    def check_players(self, players: int) -> None:
        if self.norwegian and players > NORWEGIAN_MAX_PLAYERS:
            raise OptionError(T("Norwegian Jazz is for 3 to 5 players."))
