"""A finished game's replay for the web table (``web.replays``), for every registered game:
one frame per deal start, action and forced step; every hand face up, holding exactly
that seat's cards at that step (checked against a separate run of the engine); the
final scores; the deals' first frames; JSON all through. And the refusals: a record
too long to replay, a damaged one."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import locales
from bot.images.scene import score_text
from bot.views import views
from engine import registry
from engine.core import Game
from engine.records import ReplayError
from tests.engine.playout import random_game
from web.replays import MAX_STEPS, SceneViews, replay_frames
from web.scenes import scene_json

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"]


def all_views() -> dict[str, SceneViews]:
    """Each game's scene builders: its discord-free view, as the web table gets them."""
    return dict(views())


def cases() -> Iterator[Any]:
    """Each registered game at its usual table, with its defaults and, where the registry
    names them, the options under which its players choose (AttackJack's ``choice``)."""
    for spec in registry.specs():
        variants: list[dict[str, Any]] = [{}]
        if spec.benchmark_options:
            variants.append(dict(spec.benchmark_options))
        for options in variants:
            yield pytest.param(spec.id, spec.default_players, options,
                               id=f"{spec.id}-{'-'.join(options) or 'defaults'}")


class Run:
    """A seeded random game, with each seat's hand and view after every step."""

    def __init__(self, game_id: str, players: int, options: dict[str, Any], seed: int):
        self.states: list[list[dict[str, Any]]] = []  # per step: each seat's view
        self.publics: list[dict[str, Any]] = []
        self.deal_of: list[int] = []
        cls = registry.game_class(game_id)

        def check(game: Game) -> None:
            self.states.append([game.seat_view(s) for s in range(game.players)])
            self.publics.append(game.public_view())
            self.deal_of.append(len(game.deal_points) - 1)

        self.game = random_game(cls, players, cls.OPTIONS.from_dict(options, players), seed,
                                check=check)


def codes(scene: dict[str, Any]) -> Counter[str]:
    """The face-up cards a scene shows, in zones and in seat boxes."""
    shown = [card["code"] for zone in scene["zones"] for card in zone["cards"]]
    shown += [card["code"] for seat in scene["seats"] for card in seat["cards"]]
    return Counter(code for code in shown if code is not None)


@pytest.mark.parametrize(("game_id", "players", "options"), list(cases()))
@pytest.mark.parametrize(("seed", "language"), [(1, "en"), (2, "ru")])
def test_a_whole_game_replays_frame_by_frame(game_id, players, options, seed, language):
    assert game_id in all_views(), "every registered game has a view"
    run = Run(game_id, players, options, seed)
    game, record, names = run.game, run.game.to_record(), NAMES[:players]
    scene_views = all_views()
    replay = replay_frames(record, scene_views, names, language)
    frames = replay["frames"]

    assert json.loads(json.dumps(replay)) == replay
    assert replay["game"] == game_id and replay["players"] == names
    assert replay["language"] == language
    with locales.speaking(language):
        assert replay["title"] == scene_views[game_id].title

    # One frame per deal start, action and forced step: the steps the engine re-run saw.
    actions = sum(len(deal["actions"]) for deal in record["deals"])
    assert len(frames) == len(run.states) >= actions + len(record["deals"])
    assert [f["deal"] for f in frames] == run.deal_of

    # Each deal's first frame: exactly where the deal changes.
    starts = [i for i, f in enumerate(frames) if i == 0 or f["deal"] != frames[i - 1]["deal"]]
    assert replay["deals"] == starts and len(starts) == len(record["deals"])
    assert [frames[i]["deal"] for i in starts] == list(range(len(record["deals"])))

    # A result where each deal ends, the game's at the last frame.
    assert sum(f["result"] is not None for f in frames) == len(game.deal_points)
    assert frames[-1]["result"] is not None
    assert [s["score"] for s in frames[-1]["scene"]["seats"]] == \
        [score_text(t) for t in game.totals]

    view = scene_views[game_id]
    with locales.speaking(language):
        for i, frame in enumerate(frames):
            assert frame["line"]
            assert frame["scene"] == scene_json(view.table_scene(run.publics[i], names))
            assert len(frame["hands"]) == players
            public = codes(frame["scene"])
            hands = [Counter(run.states[i][seat]["hand"]) for seat in range(players)]
            for seat, hand_scene in enumerate(frame["hands"]):
                seat_view = run.states[i][seat]
                held, shown = hands[seat], codes(hand_scene)
                # Every card the seat holds; besides them only cards on the table or in
                # other hands (Jacko's open hands show the opponent's), all face up here.
                assert held <= shown, (i, seat)
                assert not (shown - held) - public - sum(hands, Counter()), (i, seat)
                marks = {c["mark"] for z in hand_scene["zones"] for c in z["cards"]}
                assert marks <= {"", "win"}, "a replay's hand has nothing to play"
                # The hand picture's scene, titled with its player's name (not "Your hand").
                assert hand_scene == {**scene_json(view.hand_scene(
                    {**seat_view, "legal": []}, names, seat)), "title": names[seat]}
                assert hand_scene["language"] == language


def short_record(game_id: str = "jazz") -> dict[str, Any]:
    spec = registry.spec(game_id)
    return Run(game_id, spec.default_players, {}, 5).game.to_record()


def test_the_record_s_own_names_win_and_a_seat_without_one_is_player_n():
    record = short_record("california_jack")
    assert replay_frames(record, all_views(), ["Ann"], "en")["players"] == ["Ann", "Player 2"]
    named = {**record, "names": ["Zed", "Yo"]}
    replay = replay_frames(named, all_views(), ["Ann", "Bo"], "en")
    assert replay["players"] == ["Zed", "Yo"]
    assert replay["frames"][1]["line"].startswith(("Zed ", "Yo "))
    assert replay_frames(record, all_views(), None, "sv")["players"] == \
        ["Spelare 1", "Spelare 2"]


def test_a_record_over_the_step_bound_is_refused_before_any_replay():
    record = short_record()
    record["deals"][0]["actions"] = [[0, "??"]] * (MAX_STEPS + 1)  # never looked at
    with pytest.raises(ValueError, match=str(MAX_STEPS)):
        replay_frames(record, all_views(), NAMES[:4], "en")


@pytest.mark.parametrize("tamper", ["illegal", "seat", "card", "shape"])
def test_a_damaged_record_raises_the_engine_s_record_error(tamper):
    record = short_record()
    deal = record["deals"][0]
    if tamper == "illegal":  # a card the seat to act does not hold
        seat, _ = deal["actions"][0]
        deal["actions"][0] = [seat, next(c for c in deal["hands"][(seat + 1) % 4])]
    elif tamper == "seat":
        deal["actions"][3][0] = (deal["actions"][3][0] + 1) % 4
    elif tamper == "card":
        deal["hands"][0][0] = deal["hands"][1][0]  # dealt twice
    else:
        del record["first_dealer"]
    with pytest.raises(ReplayError) as error:
        replay_frames(record, all_views(), NAMES[:4], "en")
    expected = {"illegal": (0, 0), "seat": (0, 3), "card": (0, None), "shape": (None, None)}
    assert (error.value.deal, error.value.step) == expected[tamper]
