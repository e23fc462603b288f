"""The shared engine vocabulary: card codes, action codes, options."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine import cards
from engine.core import (
    PASS,
    STAND,
    STOP,
    TAKE,
    OptionError,
    Options,
    RulesError,
    action_code,
    option,
    parse_action,
)


def test_every_card_has_a_unique_code_rank_and_suit():
    assert len(set(cards.CODE[:52])) == 52
    for c in cards.DECK:
        assert cards.parse_card(cards.code(c)) == c
        assert cards.card(cards.RANK[c], cards.SUIT[c]) == c
    assert cards.code(cards.card(10, cards.HEARTS)) == "TH"
    assert cards.code(cards.JOKER) == "JK"


@pytest.mark.parametrize(("text", "code"), [("10h", "TH"), ("th", "TH"), (" as ", "AS"),
                                            ("jk", "JK"), ("10S", "TS")])
def test_card_input_accepts_ten_and_any_case(text, code):
    assert cards.code(cards.parse_card(text)) == code


@pytest.mark.parametrize("text", ["1S", "TX", "", "10", "JKR", "AH "[:1]])
def test_bad_card_codes_are_refused(text):
    with pytest.raises(cards.CardError):
        cards.parse_card(text)


def test_hands_sort_by_suit_then_rank_and_labels_read_well():
    hand = [cards.parse_card(x) for x in ("2D", "AS", "TH", "3S", "KC")]
    assert cards.codes(cards.sorted_hand(hand)) == ["3S", "AS", "TH", "KC", "2D"]
    assert cards.label(cards.parse_card("TH")) == "10♥"
    assert cards.label(cards.JOKER) == "Joker"


def test_action_codes_round_trip_and_keywords_ignore_case():
    for action, text in ((PASS, "pass"), (STOP, "stop"), (TAKE, "take"), (STAND, "stand")):
        assert action_code(action) == text
        assert parse_action(text.upper()) == action
    assert action_code(parse_action("10d")) == "TD"
    with pytest.raises(RulesError):
        parse_action("fold")


@dataclass(frozen=True)
class DemoOptions(Options):
    bonus: int = option(10, "A bonus.", minimum=0)
    fast: bool = option(False, "Go fast.")
    mode: str = option("a", "A mode.", choices=("a", "b"))


@pytest.mark.parametrize("raw", [{"bonus": "3"}, {"bonus": True}, {"bonus": -1},
                                 {"fast": 1}, {"mode": "c"}, {"mode": 2}, {"other": 1}])
def test_options_are_strictly_typed(raw):
    with pytest.raises(OptionError):
        DemoOptions.from_dict(raw)


def test_options_take_defaults_and_round_trip():
    made = DemoOptions.from_dict({"bonus": 80, "mode": "b"})
    assert made == DemoOptions(bonus=80, fast=False, mode="b")
    assert DemoOptions.from_dict(made.to_dict()) == made
