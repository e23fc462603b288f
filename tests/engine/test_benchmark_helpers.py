"""The statistics and the AttackJack ceiling the strength benchmark prints, and how the
benchmarks find a game's own figures."""

from __future__ import annotations

import random

import pytest

from benchmarks import hooks
from benchmarks.ai import dealt, default_players, make_game, mean_ci, wilson, win_share
from benchmarks.attackjack import oracle_share, strength_extras
from benchmarks.engine import interleaved_rates, play_first_deal, play_first_deal_quietly
from engine.ai import decide
from engine.core import STAND, TAKE
from engine.jazz import Jazz


def test_wilson_interval_contains_the_rate_and_narrows_with_more_games():
    low, high = wilson(65, 100)
    assert low < 0.65 < high
    wide = high - low
    low, high = wilson(650, 1000)
    assert low < 0.65 < high and high - low < wide / 2
    assert wilson(20, 20)[1] == 1.0 and wilson(20, 20)[0] > 0.8
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_win_counts_one_a_shared_win_splits_and_nobody_winning_is_a_draw_among_all():
    assert win_share([1], 3, 1) == 1.0 and win_share([1], 3, 0) == 0.0
    assert win_share([0, 2], 3, 2) == 0.5
    assert win_share([], 4, 3) == 0.25


def test_mean_ci_is_the_normal_interval():
    mean, half = mean_ci([1.0, 3.0])  # sample standard deviation √2, over √2 values
    assert mean == 2.0 and half == pytest.approx(1.96)
    assert mean_ci([5.0, 5.0, 5.0]) == (5.0, 0.0)


def _policy_share(state, seat: int, policy) -> float:
    """``seat``'s exact expected share playing ``policy`` while the others flip coins."""
    while state.has_auto_step:
        state.auto_step()
    if state.is_over:
        return win_share(state.winners(), state.players, seat)
    choices = [policy(state, seat)] if state.to_act == seat else state.legal_actions()
    total = 0.0
    for action in choices:
        after = state.copy()
        after.apply(state.to_act, action)
        total += _policy_share(after, seat, policy)
    return total / len(choices)


def _easy(state, seat):
    return decide(state, seat, "easy", random.Random(0)).action


@pytest.mark.parametrize("players", [2, 3])
def test_the_oracle_ceiling_bounds_every_policy_against_random_players(players):
    policies = {"easy": _easy, "always take": lambda s, _: TAKE,
                "always stand": lambda s, _: STAND}
    strictly_better = set()
    for seed in range(30):
        seat = seed % players
        plan = ("attackjack", players, ["random"] * players, seed, seed % players)
        ceiling = oracle_share(dealt(plan), seat)
        for name, policy in policies.items():
            share = _policy_share(dealt(plan), seat, policy)
            assert share <= ceiling + 1e-12, (seed, name)
            if share < ceiling - 1e-12:
                strictly_better.add(name)
    # The oracle does choose: it beats each fixed policy somewhere (easy, which looks
    # at the open card, is mostly as good as seeing everything).
    assert {"always take", "always stand"} <= strictly_better


def test_the_ceiling_is_printed_only_against_random_players_at_small_tables():
    plans = [("attackjack", 2, ["normal", "random"], s, s % 2) for s in range(4)]
    assert set(strength_extras(plans, "normal", "random")) == {"a_ceiling"}
    assert strength_extras(plans, "normal", "easy") == {}
    big = [("attackjack", 7, ["normal"] + ["random"] * 6, 1, 0)]
    assert strength_extras(big, "normal", "random") == {}


def test_benchmarks_take_players_and_options_from_the_registry_and_the_game_module():
    from engine import registry

    for spec in registry.specs():
        players = default_players(spec.id)
        module = hooks.game_module(spec.id)
        expected = getattr(module, "AI_PLAYERS", spec.default_players)
        assert players == expected
        game = make_game(spec.id, players, None, 0)
        assert game.options == spec.options.from_dict(dict(spec.benchmark_options))
    assert default_players("attackjack") == 2  # its module's AI_PLAYERS
    assert make_game("attackjack", 2, None, 0).options.choice  # the registry's option
    assert hooks.game_module("jacko") is None and hooks.hook("jacko", "engine_extras") is None
    assert callable(hooks.hook("jazz", "engine_extras"))


def test_both_trick_deal_benchmarks_play_a_whole_first_deal():
    # 4 players, deal 1 (tricks): 13 tricks of 4 cards, whichever path plays them.
    assert play_first_deal(Jazz, 4, random.Random(1)) == (52, 0)
    assert play_first_deal_quietly(Jazz, 4, random.Random(1)) == (52, 0)


def test_every_step_of_the_jazz_breakdown_plays_a_whole_first_deal():
    from benchmarks.jazz import (
        bare_deal_setup,
        deal_setup,
        play_first_deal_recorded,
        play_first_deal_unchecked,
        play_first_deal_unrecorded,
    )

    for play in (play_first_deal_recorded, play_first_deal_unrecorded,
                 play_first_deal_unchecked):
        assert play(Jazz, 4, random.Random(1)) == (52, 0)
    assert deal_setup(Jazz, 4, random.Random(1)) == bare_deal_setup(random.Random(1)) == (0, 0)


def test_the_jazz_breakdown_reports_each_step_and_layer():
    from benchmarks.jazz import BREAKDOWN, LAYERS, breakdown

    out = breakdown(seconds=0.01)
    assert {f"{name}_deals_per_s" for name in BREAKDOWN} <= set(out)
    assert {f"{name}_vs_bare" for name in BREAKDOWN[:-1]} <= set(out)
    assert {f"{layer}_us" for layer in LAYERS} | {"setup_us", "calls_us"} <= set(out)
    five = breakdown(seconds=0.01, players=5)  # no bare-int deal to compare with
    assert "bare_deals_per_s" not in five and "events_us" in five and "calls_us" not in five


def test_interleaved_rates_give_every_work_its_time_in_turns():
    turns: list[str] = []

    def work(name):
        def one(rng):
            turns.append(name)
            return 1, 0
        return one

    rates = interleaved_rates({"a": work("a"), "b": work("b")}, 0.02, seed=1,
                              slice_seconds=0.005)
    assert set(rates) == {"a", "b"} and all(r > 0 for r in rates.values())
    # In turns, not one after the other: "b" ran before "a" was done.
    assert turns.index("b") < len(turns) - 1 - turns[::-1].index("a")
