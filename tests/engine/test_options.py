"""Every game's options: a name for people, values in words, bounds from the rules files,
and the seats a table may have under them."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from engine.attackjack import AttackJack
from engine.california_jack import CaliforniaJack
from engine.core import Game, OptionError, choice_label, option_label
from engine.jacko import Jacko
from engine.jazz import Jazz, JazzOptions
from engine.text import Text

GAMES: tuple[type[Game], ...] = (Jazz, Jacko, CaliforniaJack, AttackJack)
FIELDS = [(game, f) for game in GAMES for f in dataclasses.fields(game.OPTIONS)]
NUMBERS = [(game, f) for game, f in FIELDS if type(f.default) is int]
# What each rules file implies (docs/rules/*.md): a bonus, a target, a stake.
BOUNDS = {("jazz", "sevens_bonus"): (0, 200), ("jacko", "target"): (1, 500),
          ("california_jack", "target"): (1, 50), ("attackjack", "stake"): (0, 10000)}


@pytest.mark.parametrize(("game", "f"), FIELDS, ids=lambda x: getattr(x, "name", ""))
def test_every_option_has_a_short_name_for_people(game, f):
    label = option_label(f)
    assert isinstance(label, Text) and label != f.name
    assert 0 < len(label) <= 30 and label[0].isupper() and "_" not in label


def test_a_choice_has_words_and_stays_a_code():
    scoring = next(f for f in dataclasses.fields(CaliforniaJack.OPTIONS) if f.name == "scoring")
    assert scoring.metadata["choices"] == ("standard", "simple")
    assert choice_label(scoring, "simple") == "most tricks"
    assert isinstance(choice_label(scoring, "standard"), Text)
    assert CaliforniaJack.OPTIONS.from_dict({"scoring": "simple"}).scoring == "simple"


@pytest.mark.parametrize(("game", "f"), NUMBERS, ids=lambda x: getattr(x, "name", ""))
def test_every_number_is_bounded_as_its_rules_file_implies(game, f):
    low, high = BOUNDS[(game.GAME_ID, f.name)]
    assert (f.metadata["minimum"], f.metadata["maximum"]) == (low, high)
    assert low <= f.default <= high
    assert f.metadata["suggested"] and all(low <= v <= high for v in f.metadata["suggested"])
    for value in (low, high):
        assert getattr(game.OPTIONS.from_dict({f.name: value}), f.name) == value
    with pytest.raises(OptionError, match=f"must be at least {low}"):
        game.OPTIONS.from_dict({f.name: low - 1})
    with pytest.raises(OptionError, match=f"must be at most {high}"):
        game.OPTIONS.from_dict({f.name: high + 1})


def test_a_negative_sevens_bonus_is_refused_but_an_old_snapshot_still_loads():
    with pytest.raises(OptionError, match="'sevens_bonus' must be at least 0"):
        JazzOptions.from_dict({"sevens_bonus": -5})
    assert JazzOptions.from_dict({"sevens_bonus": -5}, bounded=False).sevens_bonus == -5
    with pytest.raises(OptionError, match="whole number"):  # the type is checked still
        JazzOptions.from_dict({"sevens_bonus": "-5"}, bounded=False)


def test_norwegian_jazz_narrows_the_seats_and_the_others_do_not():
    assert Jazz.player_range() == Jazz.player_range(JazzOptions()) == (3, 7)
    assert Jazz.player_range(JazzOptions(norwegian=True)) == (3, 5)
    for game in (Jacko, CaliforniaJack, AttackJack):
        assert game.player_range(game.OPTIONS()) == (game.MIN_PLAYERS, game.MAX_PLAYERS)


def _variants(game: type[Game]):
    """Every combination of the switches and choices, the numbers at their default."""
    fields = [f for f in dataclasses.fields(game.OPTIONS) if type(f.default) is not int]
    values = [[False, True] if type(f.default) is bool else list(f.metadata["choices"])
              for f in fields]
    for combo in itertools.product(*values):
        yield game.OPTIONS(**{f.name: v for f, v in zip(fields, combo, strict=True)})


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.GAME_ID)
def test_the_seat_range_agrees_with_the_engines_own_check(game):
    for options in _variants(game):
        low, high = game.player_range(options)
        assert game.MIN_PLAYERS <= low <= high <= game.MAX_PLAYERS
        for players in range(game.MIN_PLAYERS, game.MAX_PLAYERS + 1):
            fits = low <= players <= high
            try:
                game(players, options)
            except OptionError:
                assert not fits, (options, players)
            else:
                assert fits, (options, players)
