"""The AI players: legal actions only, only what the seat may know, determinism.

Search budgets are tiny here (the code paths are the same at any budget);
strength and speed are measured by ``python -m benchmarks ai-…``, not here.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import engine.ai
from engine.ai import LEVELS, AIPlayer, choose, decide, game_ai
from engine.ai.base import GameAI, Observation, engine_rollout
from engine.ai.jazz import rollout_tricks
from engine.ai.search import search
from engine.attackjack import AttackJack, AttackJackOptions
from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.cards import parse_card
from engine.core import ACTIONS, PASS, Game, Options, RulesError
from engine.jacko import Jacko, JackoOptions
from engine.jazz import SEVENS_DEAL, Jazz, JazzOptions
from engine.records import restore

ITERATIONS = 12  # small: these tests check behaviour, not strength

CONFIGS: list[tuple[type[Game], int, Options | None]] = [
    (Jazz, 3, None),
    (Jazz, 4, None),
    (Jazz, 5, JazzOptions(norwegian=True)),
    (Jazz, 6, JazzOptions(play_out=True)),
    (Jazz, 7, None),
    (CaliforniaJack, 2, CaliforniaJackOptions(target=5)),
    (CaliforniaJack, 2, CaliforniaJackOptions(target=3, follow_or_trump=True,
                                              scoring="simple")),
    (Jacko, 2, JackoOptions(target=40)),
    (Jacko, 2, JackoOptions(target=40, open_hands=False)),
    (AttackJack, 2, AttackJackOptions(choice=True)),
    (AttackJack, 4, AttackJackOptions(choice=True, blind=True, stake=3)),
    (AttackJack, 9, AttackJackOptions(choice=True, blind=True)),
]


def config_id(config: tuple[type[Game], int, Options | None]) -> str:
    cls, players, options = config
    return f"{cls.GAME_ID}-{players}-{options}"


def play_game(cls: type[Game], players: int, options: Options | None, seed: int,
              decide_for: Callable[[Game, int], int]) -> Game:
    rng = random.Random(seed)
    game = cls(players, options, first_dealer=rng.randrange(players))
    while not game.is_over:
        game.advance(rng, decide_for)
    return game


# ---------------------------------------------------------------- legal actions only


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_level_returns_only_legal_actions_and_leaves_the_game_alone(config):
    cls, players, options = config
    levels = list(LEVELS)
    decisions = dict.fromkeys(levels, 0)
    # Enough games that every level sits somewhere (AttackJack decides once a game).
    games = 30 if cls is AttackJack else -(-len(levels) // players)
    for game_no in range(games):
        rng = random.Random(game_no)

        def decide_for(game: Game, seat: int, game_no: int = game_no,
                       rng: random.Random = rng) -> int:
            level = levels[(seat + game_no * players) % len(levels)]
            before = game.to_record()
            action = choose(game, seat, level, rng, iterations=ITERATIONS, time_limit=None)
            assert action in game.legal_actions(), level
            if decisions[level] % 7 == 0:  # the AI works on copies: the game is untouched
                assert game.to_record() == before
            decisions[level] += 1
            return action

        game = play_game(cls, players, options, 100 + game_no, decide_for)
        assert game.is_over
    assert all(decisions.values()), decisions


def test_a_seat_that_is_not_to_act_is_refused():
    game = Jazz(4)
    game.start_deal(game.random_deal(random.Random(1)))
    other = (game.to_act + 1) % 4
    with pytest.raises(RulesError):
        choose(game, other, "easy", random.Random(1))


def test_an_unknown_level_is_refused():
    game = Jazz(4)
    game.start_deal(game.random_deal(random.Random(1)))
    with pytest.raises(ValueError, match="Unknown AI level"):
        choose(game, game.to_act, "grandmaster", random.Random(1))
    with pytest.raises(ValueError, match="Unknown AI level"):
        AIPlayer("grandmaster")


def test_a_copy_without_history_is_refused_where_the_public_actions_matter():
    # A copy has no record of the cards everybody saw played: the AI cannot know them.
    game = Jazz(4)
    game.start_deal(game.random_deal(random.Random(1)))
    game.apply(game.to_act, game.legal_actions()[0])
    with pytest.raises(ValueError, match="history"):
        choose(game.copy(), game.to_act, "normal", random.Random(1), iterations=5)


def test_a_single_legal_action_is_played_without_a_search():
    game = Jacko(2)
    rng = random.Random(4)
    game.start_deal(game.random_deal(rng))
    while len(game.legal_actions()) != 1:
        game.apply(game.to_act, rng.choice(game.legal_actions()))
    result = decide(game, game.to_act, "hard", random.Random(1))
    assert result.action == game.legal_actions()[0]
    assert result.iterations == 0


# ---------------------------------------------------------------- determinism


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_the_same_seed_gives_the_same_action(level):
    game = Jazz(4)
    rng = random.Random(3)
    game.start_deal(game.random_deal(rng))
    for _ in range(9):
        game.apply(game.to_act, rng.choice(game.legal_actions()))
    seat = game.to_act
    runs = {choose(game, seat, level, random.Random(42), iterations=40, time_limit=None)
            for _ in range(3)}
    assert len(runs) == 1
    # ... and the rng matters: other seeds reach other choices somewhere among these.
    if level != "easy":
        others = {choose(game, seat, level, random.Random(s), iterations=30, time_limit=None)
                  for s in range(12)}
        assert len(others) > 1


def test_an_ai_player_replays_its_decisions_on_a_restored_game():
    # AIPlayer seeds each decision from its seed and the position: a table restored from
    # its saved data gets the very same decisions, so whole games repeat exactly.
    def run() -> list[tuple[int, int]]:
        bots = [AIPlayer("normal", seed=9 + s, iterations=ITERATIONS, time_limit=None)
                for s in range(2)]

        def decide_for(game: Game, seat: int) -> int:
            action = bots[seat].choose(game, seat)
            restored = restore(game.to_data(), type(game))
            assert bots[seat].choose(restored, seat) == action
            return action

        game = play_game(CaliforniaJack, 2, CaliforniaJackOptions(target=2), 5, decide_for)
        return [a for h in game.history for a in h.actions]

    first = run()
    assert first == run()
    # Another seed plays another game (the seed is not ignored).
    bots = [AIPlayer("normal", seed=1 + s, iterations=ITERATIONS, time_limit=None)
            for s in range(2)]
    other = play_game(CaliforniaJack, 2, CaliforniaJackOptions(target=2), 5,
                      lambda g, s: bots[s].choose(g, s))
    assert [a for h in other.history for a in h.actions] != first


def test_a_worker_process_choosing_from_plain_data_picks_what_the_player_picks():
    from concurrent.futures import ProcessPoolExecutor

    from engine.ai import choose_from_data

    game = AttackJack(4, AttackJackOptions(choice=True, blind=True))
    game.start_deal(game.random_deal(random.Random(8)))
    game.run_auto_steps()
    seat = game.to_act
    here = AIPlayer("easy", seed=3).choose(game, seat)
    with ProcessPoolExecutor(1) as pool:
        there = pool.submit(choose_from_data, game.to_data(), seat, "easy", 3).result()
    assert there == here
    jazz = Jazz(4)
    rng = random.Random(2)
    jazz.start_deal(jazz.random_deal(rng))
    for _ in range(6):
        jazz.apply(jazz.to_act, rng.choice(jazz.legal_actions()))
    picks = [choose_from_data(jazz.to_data(), jazz.to_act, "normal", seed, iterations=60,
                              time_limit=None) for seed in range(4)]
    assert picks == [AIPlayer("normal", seed, iterations=60, time_limit=None).choose(
        jazz, jazz.to_act) for seed in range(4)]


# ---------------------------------------------------------------- information


def hidden_variants(game: Game, seat: int, swaps: list[tuple[tuple, tuple]],
                    locate: Callable[[dict, tuple], list], limit: int) -> list[Game]:
    """Games whose record differs from ``game``'s only by swapping two hidden cards, kept
    when the replay accepts them and the seat's view and the public actions are equal."""
    record = game.to_record()
    view = game.seat_view(seat)
    found = []
    for a, b in swaps:
        variant = {**record, "deals": [dict(d) for d in record["deals"]]}
        deal = variant["deals"][-1]
        deal["hands"] = [list(h) for h in deal["hands"]]
        deal["stock"] = list(deal["stock"])
        list_a, list_b = locate(deal, a), locate(deal, b)
        list_a[a[-1]], list_b[b[-1]] = list_b[b[-1]], list_a[a[-1]]
        try:
            other = restore(variant, type(game))
        except RulesError:
            continue  # the swap contradicts what was played: not a hidden difference
        other.run_auto_steps()
        if other.seat_view(seat) == view and other.history[-1].actions == \
                game.history[-1].actions:
            found.append(other)
            if len(found) == limit:
                break
    return found


def locate(deal: dict, where: tuple) -> list:
    return deal["stock"] if where[0] == "stock" else deal["hands"][where[0]]


def _jazz_deal_in_progress(players: int, deal_index: int, rng: random.Random,
                           options: JazzOptions | None = None) -> Jazz:
    """A game at the start of deal ``deal_index``, the deals before played at random."""
    game = Jazz(players, options, first_dealer=0)
    while game.deal_number < deal_index or not game.needs_deal:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        else:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    game.start_deal(game.random_deal(rng))
    return game


def jazz_pairs() -> list[tuple[Game, Game, int]]:
    pairs = []
    for seed, deal_index, actions in ((1, 0, 19), (2, 2, 27), (3, SEVENS_DEAL, 30)):
        rng = random.Random(seed)
        game = _jazz_deal_in_progress(4, deal_index, rng)
        for _ in range(actions):
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        seat = game.to_act
        deal = game.to_record()["deals"][-1]
        played = {a for _, a in deal["actions"]}
        places = [(s, i) for s in range(4) if s != seat
                  for i, code in enumerate(deal["hands"][s]) if code not in played]
        swaps = [(a, b) for a in places for b in places if a[0] < b[0]]
        random.Random(seed).shuffle(swaps)
        pairs += [(game, other, seat) for other in hidden_variants(game, seat, swaps, locate, 2)]
    return pairs


def california_jack_pairs() -> list[tuple[Game, Game, int]]:
    pairs = []
    for seed, actions in ((1, 9), (2, 30), (3, 45)):
        rng = random.Random(seed)
        game = CaliforniaJack(2, None, first_dealer=seed % 2)
        game.start_deal(game.random_deal(rng))
        for _ in range(actions):
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        seat = game.to_act
        view = game.seat_view(seat)
        deal = game.to_record()["deals"][-1]
        played = {a for _, a in deal["actions"]}
        top = 40 - view["stock_size"]  # stock index of the visible top card
        hidden = [(1 - seat, i) for i, code in enumerate(deal["hands"][1 - seat])
                  if code not in played]
        hidden += [("stock", i) for i in range(top + 1, 40)]
        swaps = [(a, b) for i, a in enumerate(hidden) for b in hidden[i + 1:]]
        random.Random(seed).shuffle(swaps)
        pairs += [(game, other, seat) for other in hidden_variants(game, seat, swaps, locate, 2)]
    return pairs


def attackjack_pairs() -> list[tuple[Game, Game, int]]:
    pairs = []
    for seed in range(40):
        rng = random.Random(seed)
        game = AttackJack(5, AttackJackOptions(choice=True, blind=True))
        game.start_deal(game.random_deal(rng))
        game.run_auto_steps()
        # Let a few turns go by so the statuses carry clues about the face-down cards.
        while game.to_act is not None and rng.random() < 0.7:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
            game.run_auto_steps()
        seat = game.to_act
        if seat is None:
            continue
        view = game.seat_view(seat)
        deal = game.to_record()["deals"][-1]
        open_index = len(deal["stock"]) - view["deck"] - 1
        hidden = [(s, 1) for s in range(5) if s != seat]
        hidden += [("stock", i) for i in range(open_index + 1, len(deal["stock"]))]
        swaps = [(a, b) for i, a in enumerate(hidden[:4]) for b in hidden[i + 1:]]
        random.Random(seed).shuffle(swaps)
        pairs += [(game, other, seat) for other in hidden_variants(game, seat, swaps, locate, 1)]
        if len(pairs) >= 6:
            break
    return pairs


PAIRS = {"jazz": jazz_pairs, "california_jack": california_jack_pairs,
         "attackjack": attackjack_pairs}


@pytest.mark.parametrize("game_id", list(PAIRS))
def test_states_differing_only_in_hidden_cards_get_the_same_decisions(game_id):
    pairs = PAIRS[game_id]()
    assert len(pairs) >= 4
    ai = game_ai(game_id)
    for a, b, seat in pairs:
        assert a.to_record() != b.to_record()  # the hidden cards do differ
        # Same observation, so the same sampled worlds, field by field ...
        obs_a, obs_b = ai.observe(a, seat), ai.observe(b, seat)
        for k in range(3):
            world_a = vars(ai.determinize(obs_a, random.Random(k)))
            world_b = vars(ai.determinize(obs_b, random.Random(k)))
            assert world_a == world_b
        # ... and the same decision at every level.
        for level in LEVELS:
            for k in range(2):
                assert choose(a, seat, level, random.Random(k), iterations=150,
                              time_limit=None) == \
                       choose(b, seat, level, random.Random(k), iterations=150,
                              time_limit=None), level


def peeking(ai: GameAI, truth: Game) -> GameAI:
    """The same AI made to cheat: every 'sample' is the real state."""

    class Peeking(type(ai)):  # type: ignore[misc]
        def determinize(self, obs: Observation, rng: random.Random) -> Game:
            return truth.copy()

    return Peeking()


@pytest.mark.parametrize("game_id", ["jazz", "california_jack"])
def test_the_information_test_would_catch_an_ai_reading_hidden_cards(game_id):
    # The pairs are different enough: a search that peeks at the real hands decides
    # differently on some of them, so the test above has the power to catch a leak.
    ai = game_ai(game_id)
    differ = 0
    for a, b, seat in PAIRS[game_id]():
        picks = {search(peeking(ai, g), ai.observe(g, seat), random.Random(0), 300).action
                 for g in (a, b)}
        differ += len(picks) > 1
    assert differ > 0


def test_jacko_works_the_hidden_hand_out_instead_of_reading_it():
    # Jacko's hands are complementary: without open hands the AI computes the other
    # hand from its own and the cards played, and decides exactly as with open hands.
    for seed in range(4):
        rng = random.Random(seed)
        games = [Jacko(2, JackoOptions(open_hands=flag)) for flag in (True, False)]
        deal = games[0].random_deal(rng)
        for g in games:
            g.start_deal(deal)
        for _ in range(25 + seed * 7):
            action = rng.choice(games[0].legal_actions())
            for g in games:
                g.apply(g.to_act, action)
        seat = games[0].to_act
        assert games[1].seat_view(seat)["opponent_hand"] is None
        obs = [game_ai("jacko").observe(g, seat) for g in games]
        assert obs[0].base._hands == obs[1].base._hands
        for level in LEVELS:
            picks = {choose(g, seat, level, random.Random(seed), iterations=100,
                            time_limit=None) for g in games}
            assert len(picks) == 1, level


# ---------------------------------------------------------------- the fast rollout


@pytest.mark.parametrize("options", [None, JazzOptions(play_out=True)])
@pytest.mark.parametrize("players", [3, 4, 7])
def test_the_fast_trick_rollout_plays_and_scores_as_the_engine_does(players, options):
    # Same rng, same choices: the bare-list rollout must end each deal with the engine's
    # points, early ends of deals 2-4 included.
    rng = random.Random(players)
    for deal_index in range(5):
        game = _jazz_deal_in_progress(players, deal_index, rng, options)
        for _ in range(rng.randrange(2 * players)):
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        for seed in range(15):
            fast, slow = game.copy(), game.copy()
            points = rollout_tricks(fast, random.Random(seed))
            engine_rollout(slow, random.Random(seed))
            assert slow.to_act is None
            assert points == slow.deal_points[deal_index]


@pytest.mark.parametrize("players", [3, 4, 7])
def test_the_worlds_jazz_samples_keep_the_engines_rules(players):
    # The engine keeps each hand sorted and finds the led suit's cards by bisection, so
    # a sampled world with a hand out of order would give the search wrong legal actions.
    ai = game_ai("jazz")
    rng = random.Random(players)
    for deal_index in range(SEVENS_DEAL + 1):
        game = _jazz_deal_in_progress(players, deal_index, rng)
        for _ in range(rng.randrange(3 * players)):
            if game.to_act is None:
                break
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        if game.to_act is None:
            continue
        obs = ai.observe(game, game.to_act)
        for seed in range(4):
            world = ai.determinize(obs, random.Random(seed))
            while world.to_act is not None:
                legal = world.legal_actions()
                assert sorted(legal) == [a for a in ACTIONS if world.why_illegal(a) is None]
                world.apply_quietly(world.to_act, rng.choice(legal))


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_guided_trick_rollout_without_noise_plays_easy_at_every_seat(players):
    # Guided rollouts (hard) play the easy level's card at every seat: with no noise the
    # bare-list rollout must end the deal as the engine does with easy at every seat.
    rng = random.Random(players)
    for deal_index in range(5):
        game = _jazz_deal_in_progress(players, deal_index, rng)
        guided = game.copy()
        points = rollout_tricks(guided, random.Random(0), noise=0.0)
        while game.to_act is not None:
            game.apply(game.to_act, choose(game, game.to_act, "easy"))
        assert points == game.deal_points[deal_index]


def test_california_jack_guided_rollout_without_noise_plays_easy_at_both_seats():
    ai = game_ai("california_jack")
    for seed in range(6):
        rng = random.Random(seed)
        game = CaliforniaJack(2, CaliforniaJackOptions(target=5), first_dealer=seed % 2)
        game.start_deal(game.random_deal(rng))
        for _ in range(rng.randrange(10)):
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        seat = game.to_act
        obs = ai.observe(game, seat)
        state = game.copy()
        old = ai.GUIDED_NOISE
        try:
            ai.GUIDED_NOISE = 0.0
            rewards = ai.guided_rollout(state, obs, random.Random(0))
        finally:
            ai.GUIDED_NOISE = old
        deal = len(game.deal_points) - 1
        while game.to_act is not None:
            game.apply(game.to_act, choose(game, game.to_act, "easy"))
        assert state.deal_points[deal] == game.deal_points[deal]
        assert rewards == ai.rollout(game.copy(), obs, random.Random(0))  # deal over: scored


@pytest.mark.parametrize(("level", "game_id", "expected"), [
    ("normal", "california_jack", (0.7, False)),
    ("hard", "california_jack", (0.3, True)),  # guided rollouts: California Jack's own constant
    ("hard", "jazz", (0.7, True)),  # no constant of its own for guided rollouts
])
def test_each_level_searches_with_the_exploration_its_rollouts_call_for(
        monkeypatch, level, game_id, expected):
    seen = []

    def spy(ai, obs, rng, iterations, time_limit, exploration, guided):
        seen.append((exploration, guided))
        return search(ai, obs, rng, iterations, time_limit, exploration, guided)

    monkeypatch.setattr(engine.ai, "search", spy)
    rng = random.Random(2)
    if game_id == "jazz":
        game: Game = _jazz_deal_in_progress(4, 1, rng)
    else:
        game = CaliforniaJack(2, first_dealer=0)
        game.start_deal(game.random_deal(rng))
    seat = game.to_act
    assert len(game.legal_actions()) > 1  # a real decision: the search runs
    result = decide(game, seat, level, rng, iterations=ITERATIONS, time_limit=None)
    assert seen == [expected]
    assert result.action in game.legal_actions()


# ---------------------------------------------------------------- what the seat infers


def random_positions(cls: type[Game], players: int, options: Options | None, seed: int,
                     every: int, limit: int = 40) -> list[Game]:
    """Snapshots (restored copies with history) of a random game at its decisions."""
    found: list[Game] = []
    rng = random.Random(seed)
    game = cls(players, options, first_dealer=0)
    step = 0
    while not game.is_over and len(found) < limit:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            step += 1
            if step % every == 0:
                snap = restore(game.to_data(), type(game))
                snap.run_auto_steps()
                found.append(snap)
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    return found


@pytest.mark.parametrize("players", [3, 4, 7])
def test_jazz_inferences_are_true_of_the_real_hands(players):
    # Voids and Sevens passes bar cards from seats; the real deal must never be barred,
    # else the AI would sample only impossible worlds.
    ai = game_ai("jazz")
    barred_seen = 0
    for game in random_positions(Jazz, players, None, players, every=4, limit=90):
        seat = game.to_act
        obs = ai.observe(game, seat)
        real = {s: set(game._hands[s]) for s in obs.others}
        assert sorted(c for s in obs.others for c in real[s]) == obs.pool
        for s, barred in zip(obs.others, obs.barred, strict=True):
            assert not real[s] & barred
            barred_seen += bool(barred)
        world = ai.determinize(obs, random.Random(0))
        for s, barred in zip(obs.others, obs.barred, strict=True):
            assert len(world._hands[s]) == len(game._hands[s])
            assert not set(world._hands[s]) & barred
    assert barred_seen > 10


def test_california_jack_inferences_are_true_of_the_real_cards():
    ai = game_ai("california_jack")
    voids = 0
    for seed in range(3):
        for game in random_positions(CaliforniaJack, 2, None, seed, every=3):
            seat = game.to_act
            obs = ai.observe(game, seat)
            opp = 1 - seat
            hidden = [c for c in game._hands[opp] if c not in obs.known]
            below = list(game._stock[game._pos + 1:])
            assert sorted(hidden + below) == obs.pool
            assert obs.sizes == [len(hidden), len(below)]
            assert not set(hidden) & obs.barred[0]
            voids += bool(obs.barred[0])
            # What the view hides but the cards played show: the trick points.
            assert obs.base._trick_points == game._trick_points
    assert voids > 5


def test_attackjack_clues_from_the_statuses_are_true_of_the_face_down_cards():
    ai = game_ai("attackjack")
    clues = 0
    for seed in range(60):
        rng = random.Random(seed)
        game = AttackJack(6, AttackJackOptions(choice=True, blind=True))
        game.start_deal(game.random_deal(rng))
        game.run_auto_steps()
        while game.to_act is not None:
            seat = game.to_act
            obs = ai.observe(game, seat)
            truth = [game.hand(s)[1] for s in obs.blind]
            assert sorted([*truth, *game.stock_left()[1:]]) == obs.pool
            for card, barred in zip(truth, obs.barred, strict=False):
                assert card not in barred
                clues += bool(barred)
            game.apply(seat, rng.choice(game.legal_actions()))
            game.run_auto_steps()
    assert clues > 20


def test_sevens_passes_bar_the_cards_that_were_playable():
    # Forehand passes on the first turn of Sevens: it holds no seven. Seat 1, holding
    # 7♠ itself, learns that seat 0 has none of the three other sevens.
    from tests.engine.jazz_helpers import sevens_game

    sevens = {parse_card(f"7{s}") for s in "SHCD"}
    game = sevens_game(4, {1: ["7S"]}, refuse={0: lambda c: c in sevens,
                                               1: lambda c: c in sevens})
    game.apply(0, PASS)
    obs = game_ai("jazz").observe(game, 1)
    assert obs.barred[obs.others.index(0)] == frozenset(sevens - {parse_card("7S")})
    assert obs.barred[obs.others.index(2)] == frozenset()
