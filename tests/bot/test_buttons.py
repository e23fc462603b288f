"""Menus of legal actions within Discord's component limits."""

from __future__ import annotations

import gettext

import pytest

import locales
from bot.ui import buttons, custom_ids
from engine import cards

DECK = [cards.CODE[c] for c in range(52)]


def test_up_to_25_cards_make_one_select_sorted_by_suit_and_rank():
    groups, keywords = buttons.action_groups(["AS", "2S", "TH", "stop"])
    assert groups == [["2S", "AS", "TH"]] and keywords == ["stop"]


def test_more_than_25_cards_are_split_by_suit():
    groups, keywords = buttons.action_groups(DECK[:30])
    assert [len(g) for g in groups] == [13, 13, 4] and keywords == []
    assert all(len({c[-1] for c in g}) == 1 for g in groups)


def test_a_whole_deck_and_a_keyword_still_fit_five_rows():
    groups, keywords = buttons.action_groups([*DECK, "pass"])
    assert len(groups) == 4 and len(groups) + (1 if keywords else 0) <= 5


def test_a_hand_view_offers_exactly_the_legal_actions():
    view = buttons.hand_view("abcd1234", 7, ["QH", "3C", "pass"])
    selects = [i for i in view.children if isinstance(i, buttons.MoveSelect)]
    acts = [i for i in view.children if isinstance(i, buttons.ActButton)]
    assert [o.value for o in selects[0].item.options] == ["QH", "3C"]
    assert [o.label for o in selects[0].item.options] == ["Q♥", "3♣"]
    assert [b.item.label for b in acts] == ["Pass"]
    ids = [custom_ids.parse(i.custom_id) for i in view.children]
    assert all(i is not None and i.table_id == "abcd1234" and i.version == 7 for i in ids)


def test_nothing_to_choose_means_no_menu():
    assert buttons.hand_view("abcd1234", 7, []) is None


def test_split_selects_have_unique_custom_ids():
    view = buttons.hand_view("abcd1234", 7, DECK[:30])
    ids = [i.custom_id for i in view.children]
    assert len(ids) == len(set(ids)) == 3


def test_the_lobby_start_button_is_disabled_until_the_count_fits():
    for can_start in (False, True):
        view = buttons.lobby_view("abcd1234", 2, can_start)
        start = next(i for i in view.children if i.action == "start")
        assert start.item.disabled is (not can_start)


@pytest.mark.parametrize("code", ["pass", "stop", "take", "stand"])
def test_keyword_buttons_have_plain_labels(code):
    assert buttons.ActButton("abcd1234", 1, code).item.label == buttons.KEYWORD_LABELS[code]


_WORDS = {"Join": "Gå med", "Pass": "Passa", "Play a card…": "Spela ett kort…",
          "Play a card {suit}…": "Spela ett kort {suit}…", "My hand": "Min hand"}


class _Swedish(gettext.NullTranslations):
    def gettext(self, message):
        return _WORDS.get(message, message)


def test_labels_are_said_in_the_language_the_view_is_drawn_in(monkeypatch):
    monkeypatch.setattr(locales, "translations", lambda language: _Swedish())
    with locales.speaking("sv"):
        lobby = buttons.lobby_view("abcd1234", 1, can_start=False)
        hand = buttons.hand_view("abcd1234", 7, ["QH", "pass"])
        split = buttons.hand_view("abcd1234", 7, DECK[:30])
        table = buttons.table_view("abcd1234", 7)
    assert lobby.children[0].item.label == "Gå med"
    assert [i.item.label for i in hand.children if isinstance(i, buttons.ActButton)] == ["Passa"]
    assert [i.item.placeholder for i in hand.children if isinstance(i, buttons.MoveSelect)] == [
        "Spela ett kort…"]
    assert split.children[0].item.placeholder == "Spela ett kort ♠…"
    assert table.children[0].item.label == "Min hand"
    english = buttons.hand_view("abcd1234", 7, DECK[:30])  # outside: English as before
    assert english.children[0].item.placeholder == "Play a card ♠…"
