"""``bot.views``: every game's presentation without Discord, found from the registry alone,
and drawing exactly what the game's Discord UI draws (the UI is the view plus embeds)."""

from __future__ import annotations

import itertools

import pytest

import locales
from benchmarks.images import states, ui_for
from bot.ui.game_ui import GameUI
from bot.views import GameView, view_class, views
from engine import registry
from tests.toy import SPEC as TOY

NAMES = ("Ann", "Bo_b", "*Cy*", "Dee", "Eve")
BUILT_IN = tuple(s.id for s in registry.specs() if s.id != TOY.id)


def test_every_built_in_game_has_its_view_and_none_is_a_discord_ui():
    found = views()
    assert tuple(found) == BUILT_IN
    for game_id, view in found.items():
        assert isinstance(view, GameView) and not isinstance(view, GameUI)
        assert game_id == view.GAME_ID and view.title == registry.spec(game_id).title
        assert isinstance(ui_for(game_id), type(view))  # the cog's UI is its view and more


def test_a_game_without_a_view_module_has_no_view():
    registry.register(TOY)
    try:
        assert view_class(TOY.id) is None
        assert tuple(views()) == BUILT_IN
    finally:
        registry.unregister(TOY.id)


def test_an_unknown_game_has_no_view_class():
    with pytest.raises(KeyError):
        view_class("no such game")


@pytest.mark.parametrize("game_id", BUILT_IN)
@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_view_draws_what_its_discord_ui_draws(game_id, language):
    view, ui = views()[game_id], ui_for(game_id)
    players = registry.spec(game_id).default_players
    names = NAMES[:players]
    with locales.speaking(language):
        assert view.rules_text(None) == ui.rules_text(None)
        assert view.blurb_text() == ui.blurb_text()
        assert view.deal_headings(3) == ui.deal_headings(3)
        for game in itertools.islice(states(game_id, 5, players), 0, 120, 7):
            public = game.public_view()
            assert view.heading(public) == ui.heading(public)
            assert view.draw_table(public, names) == ui.draw_table(public, names)
            assert view.deal_end(public, names) == ui.deal_end(public, names)
            assert view.table_scene(public, names) == ui.table_scene(public, names)
            assert [view.seat_note(public, s) for s in range(players)] == \
                [ui.seat_note(public, s) for s in range(players)]
            if game.to_act is not None:
                seat_view = game.seat_view(game.to_act)
                assert view.hand_context(seat_view, names) == ui.hand_context(seat_view, names)
                assert view.hand_scene(seat_view, names, game.to_act) == \
                    ui.hand_scene(seat_view, names, game.to_act)
                assert view.policy(game) == ui.policy(game)
