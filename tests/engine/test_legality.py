"""One source of legality: ``legal_actions()`` and ``why_illegal()`` say the same thing.

For every registered game, several table sizes and random option sets, random
playouts visit every kind of state (before a deal, in play, forced steps pending,
between deals, over); at each one, for every action there is (the 52 cards, the
joker and every keyword), an action is in ``legal_actions()`` exactly when
``why_illegal`` finds nothing against it, and a refusal is one sentence. ``apply``
refuses with that sentence and changes nothing.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import registry
from engine.core import ACTIONS, KEYWORDS, Game, OptionError, RulesError
from engine.events import Played

CASES = sorted({(spec.id, n) for spec in registry.specs()
                for n in (spec.min_players, spec.default_players, spec.max_players)})


def option_values(game_id: str) -> st.SearchStrategy[dict[str, Any]]:
    """Any value each option of the game may take (numbers kept small: short games)."""
    fields = {}
    for f in dataclasses.fields(registry.spec(game_id).options):
        meta, default = f.metadata, f.default
        if isinstance(default, bool):
            fields[f.name] = st.booleans()
        elif isinstance(default, int):
            low = meta.get("minimum")
            low = low if low is not None else min(0, default) - 5
            high = meta.get("maximum")
            fields[f.name] = st.integers(low, high if high is not None else low + 40)
        elif isinstance(default, str):
            fields[f.name] = st.sampled_from(meta["choices"])
    return st.fixed_dictionaries(fields)


def check_state(game: Game, rng: random.Random) -> None:
    legal = game.legal_actions()
    assert len(set(legal)) == len(legal), legal
    assert set(legal) <= set(ACTIONS)
    for action in ACTIONS:
        reason = game.why_illegal(action)
        assert (action in legal) == (reason is None), (action, legal, reason)
        if reason is not None:  # one sentence, fit to show the player
            assert isinstance(reason, str) and reason.endswith("."), reason
            assert not reason[0].islower(), reason
    if game.to_act is None:
        assert legal == []
    elif rng.random() < 0.2:  # now and then, a refused move: the reason, and no change
        illegal = [a for a in ACTIONS if a not in legal]
        action = rng.choice(illegal)
        before = game.to_data()
        with pytest.raises(RulesError) as refused:
            game.apply(game.to_act, action)
        assert str(refused.value) == game.why_illegal(action)
        assert game.to_data() == before


def playout(game: Game, seed: int) -> int:
    """Play ``game`` at random to its end, checking every state; the states seen."""
    rng = random.Random(seed)
    states = 0
    while True:
        check_state(game, rng)
        states += 1
        if game.is_over:
            return states
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            seat = game.to_act
            assert seat is not None, "nobody to act in a running deal"
            action = rng.choice(game.legal_actions())
            assert game.apply(seat, action)[0] == Played(seat, action)


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "players"), CASES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_legal_actions_are_exactly_the_actions_without_a_reason_against(
        game_id: str, players: int, data: st.DataObject, seed: int) -> None:
    cls = registry.game_class(game_id)
    raw = data.draw(option_values(game_id), label="options")
    try:
        options = cls.OPTIONS.from_dict(raw, players)
    except OptionError:  # e.g. Norwegian Jazz at 6 or 7 players: refused, as it should be
        return
    game = cls(players, options, first_dealer=seed % players)
    assert playout(game, seed) > 1


def test_every_keyword_and_card_is_in_the_universe_checked() -> None:
    assert set(KEYWORDS) <= set(ACTIONS) and set(range(53)) <= set(ACTIONS)
    assert len(CASES) >= len(registry.game_ids())
