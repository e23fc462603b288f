"""The events each step returns: what happened, in order, agreeing with the game."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import registry
from engine.attackjack import AttackJack, AttackJackOptions
from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.core import TAKE, Deal, Game
from engine.events import (
    PLAYED,
    CardsDrawn,
    DealEnded,
    DealScored,
    DealStarted,
    Event,
    ForcedStep,
    GameEnded,
    OpenCardTaken,
    Played,
    PointsScored,
    RoundWon,
    RowChanged,
    TrickTaken,
    played,
)
from engine.jacko import Jacko, JackoOptions
from engine.jazz import SEVENS_DEAL, Jazz

GAMES: list[tuple[type[Game], int, object]] = [
    (Jazz, 4, None),
    (Jazz, 3, None),
    (Jacko, 2, JackoOptions(target=40)),
    (CaliforniaJack, 2, CaliforniaJackOptions(target=5)),
    (AttackJack, 5, None),
    (AttackJack, 3, AttackJackOptions(choice=True, stake=3)),
]
IDS = ["jazz4", "jazz3", "jacko", "california_jack", "attackjack", "attackjack-choice"]


def play_logging(game: Game, seed: int) -> list[tuple[str, list[Event]]]:
    """A random game to its end; every step's kind and events."""
    rng = random.Random(seed)
    steps: list[tuple[str, list[Event]]] = []
    while not game.is_over:
        if game.needs_deal:
            steps.append(("deal", game.start_deal(game.random_deal(rng))))
        elif game.has_auto_step:
            steps.append(("forced", game.auto_step()))
        else:
            seat = game.to_act
            assert seat is not None
            steps.append(("action", game.apply(seat, rng.choice(game.legal_actions()))))
    return steps


@pytest.mark.parametrize(("cls", "players", "options"), GAMES, ids=IDS)
@pytest.mark.parametrize("seed", range(4))
def test_every_step_says_what_happened_and_the_ends_come_once(cls, players, options, seed):
    game = cls(players, options, first_dealer=seed % players)
    steps = play_logging(game, seed)
    flat = [e for _, events in steps for e in events]
    history = [a for h in game.history for a in h.actions]
    assert [(e.seat, e.action) for e in flat if isinstance(e, Played)] == history
    for kind, events in steps:
        first = events[0]
        assert isinstance(first, {"deal": DealStarted, "forced": ForcedStep,
                                  "action": Played}[kind])
        assert all(isinstance(e, Event) for e in events)
        # The ends close their step: the deal's, then the game's.
        kinds = [type(e) for e in events]
        if GameEnded in kinds:
            assert kinds[-2:] == [DealEnded, GameEnded]
        elif DealEnded in kinds:
            assert kinds[-1] is DealEnded
    started = [e.deal for e in flat if isinstance(e, DealStarted)]
    ended = [e for e in flat if isinstance(e, DealEnded)]
    assert started == list(range(len(game.deal_points)))
    assert [e.deal for e in ended] == started  # every deal ends once, in order
    assert [list(e.points) for e in ended] == game.deal_points
    assert flat[-1] == GameEnded(tuple(game.winners()), tuple(game.totals))
    assert sum(isinstance(e, GameEnded) for e in flat) == 1


@pytest.mark.parametrize(("cls", "players", "options"), GAMES, ids=IDS)
def test_the_quiet_path_plays_the_same_game(cls, players, options):
    loud, quiet = (cls(players, options, first_dealer=1 % players) for _ in range(2))
    rng_a, rng_b = random.Random(9), random.Random(9)
    while not loud.is_over:
        if loud.needs_deal:
            loud.start_deal(loud.random_deal(rng_a))
            quiet.start_deal(quiet.random_deal(rng_b))
        elif loud.has_auto_step:
            loud.auto_step()
            quiet.auto_step_quietly()
        else:
            seat = loud.to_act
            assert seat is not None
            loud.apply(seat, rng_a.choice(loud.legal_actions()))
            quiet.apply_quietly(seat, rng_b.choice(quiet.legal_actions()))
        assert quiet.public_view() == loud.public_view()
    assert quiet.to_data() == loud.to_data()


def test_jazz_tricks_and_rows():
    game = Jazz(4)
    steps = play_logging(game, 3)
    flat = [e for _, events in steps for e in events]
    tricks = [e for e in flat if isinstance(e, TrickTaken)]
    assert all(len(t.cards) == 4 for t in tricks)
    trick_deals = [h for h in game.history[:SEVENS_DEAL]]
    assert len(tricks) == sum(len(h.actions) for h in trick_deals) // 4
    # Each trick's cards are the four actions before it, the first by its leader.
    actions = [a for h in trick_deals for a in h.actions]
    for i, trick in enumerate(tricks):
        four = actions[4 * i:4 * i + 4]
        assert trick.cards == tuple(card for _, card in four)
        assert trick.leader == four[0][0]
    rows = [e for e in flat if isinstance(e, RowChanged)]
    sevens_cards = [a for _, a in game.history[SEVENS_DEAL].actions if a < 52]
    assert len(rows) == len(sevens_cards)
    assert all(e.low <= card <= e.high for e, card in zip(rows, sevens_cards, strict=True))


def test_jacko_points_and_rounds_add_up():
    game = Jacko(2, JackoOptions(target=60))
    flat = [e for _, events in play_logging(game, 5) for e in events]
    scored = [0, 0]
    for e in flat:
        if isinstance(e, PointsScored):
            scored[e.seat] += e.points
            assert e.reason in ("made eleven", "held eleven", "round")
    assert scored == game.totals
    rounds = [e for e in flat if isinstance(e, RoundWon)]
    assert rounds and all(0 <= r.total <= 21 for r in rounds)
    # A round's points follow its RoundWon as a PointsScored for its winner.
    for i, e in enumerate(flat):
        if isinstance(e, RoundWon) and e.points:
            assert flat[i + 1] == PointsScored(e.seat, e.points, "round")


def test_california_jack_draws_and_scoring_match_the_view():
    game = CaliforniaJack(2, CaliforniaJackOptions(target=3))
    rng = random.Random(4)
    game.start_deal(game.random_deal(rng))
    while game.to_act is not None:
        events = game.apply(game.to_act, rng.choice(game.legal_actions()))
        view = game.public_view()
        taken = [e for e in events if isinstance(e, TrickTaken)]
        if taken:
            last = view["last_trick"]
            assert taken[0].seat == last["winner"] and taken[0].leader == last["cards"][0]["seat"]
            drawn = [e for e in events if isinstance(e, CardsDrawn)]
            draws = [(d["seat"], d["card"]) for d in view["draws"]]
            if drawn:
                from engine.cards import CODE
                d = drawn[0]
                assert draws == [(d.seat, CODE[d.card]), (1 - d.seat, CODE[d.other_card])]
            else:
                assert draws == []
    scored = next(e for e in events if isinstance(e, DealScored))
    result = game.public_view()["last_result"]
    assert dataclasses.asdict(scored) == {**result, **{k: tuple(v) for k, v in result.items()
                                                      if isinstance(v, list)}}


def test_attackjack_turns_forced_and_chosen():
    game = AttackJack(3, AttackJackOptions(choice=True))
    game.start_deal(Deal(hands=[[0, 1], [2, 3], [4, 5]],
                         stock=[6, *range(7, 52), 52, 52], first=0))
    assert game.to_act == 0
    events = game.apply(0, TAKE)
    assert events == [Played(0, TAKE), OpenCardTaken(0, 6, False)]
    while not game.is_over:
        events = game.apply(game.to_act, TAKE) if game.to_act is not None else game.auto_step()
    assert isinstance(events[-1], GameEnded) and isinstance(events[-2], DealEnded)
    forced = AttackJack(2)
    forced.start_deal(Deal(hands=[[52, 1], [2, 3]], stock=[6, *range(7, 52), 0, 4, 5, 52],
                           first=0))
    assert forced.auto_step() == [ForcedStep(0, "kept")]
    assert forced.auto_step()[0] == ForcedStep(1, "took", 6)


def test_start_deal_and_run_auto_steps_return_their_events():
    game = AttackJack(4)
    assert game.start_deal(game.random_deal(random.Random(1))) == [DealStarted(0)]
    events = game.run_auto_steps()
    assert [type(e) for e in events[:4]] == [ForcedStep] * 4
    assert type(events[-1]) is GameEnded and game.is_over
    assert game.run_auto_steps() == []


def test_events_are_frozen_values_and_played_ones_are_shared():
    event = TrickTaken(1, (3, 4, 5), 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 2  # type: ignore[misc]
    assert event == TrickTaken(1, (3, 4, 5), 0) and hash(event) == hash(TrickTaken(1, (3, 4, 5), 0))
    assert played(2, 7) is PLAYED[2][7] and played(2, 7) == Played(2, 7)
    assert played(40, 7) == Played(40, 7)
    assert ForcedStep(1, "kept") == ForcedStep(1, "kept", None)
    assert repr(Played(1, 100)) == "Played(seat=1, action=100)"


def test_every_registered_game_returns_events():
    for spec in registry.specs():
        game = spec.engine_class(spec.default_players)
        assert game.start_deal(game.random_deal(random.Random(0))) == [DealStarted(0)]
