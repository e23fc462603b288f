"""Taking over a seat, without Discord: which seats, who may ask, who decides, what an
accept changes at the table, in the stored record and in the ratings; and the record's
``seat_changes`` through the engine's replay (the function, the command, the web's)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from bot.features.rematch import next_table
from bot.play.endings import finished_game
from bot.storage import Store, is_counted, is_rated, moves_chips
from bot.storage.ratings import default_rating
from bot.storage.results import check_seats
from bot.storage.rows import InvalidResult
from bot.table import takeover
from bot.table.seats import fresh_seats
from bot.table.state import Table, TableError
from bot.table.takeover import ACCEPTED, HOST, LAPSED, PENDING, REFUSED, VOTE
from bot.views import views
from engine.core import Game, action_code
from engine.jazz import Jazz
from engine.records import ReplayError, replay
from locales import say
from tests.bot.test_storage import GUILD, finished
from tests.engine.playout import random_game
from web.replays import replay_frames

HOST_ID, STRANGER, OTHER = 100, 900, 901
NOW = 50.0


def started(players: int = 3, ai: int = 0) -> Table:
    """A Jazz table under way: seats HOST_ID, HOST_ID + 1, ... then ``ai`` AI seats."""
    table = Table(table_id="abcd1234", game_id="jazz", engine=Jazz, guild_id=1, channel_id=2,
                  host_id=HOST_ID, created_at=0.0, last_activity=0.0,
                  options=Jazz.OPTIONS.from_dict({}), rng=random.Random(1), turn_timer=300.0)
    for i in range(players - ai):
        table.join(HOST_ID + i, f"p{i}", 0.0)
    for _ in range(ai):
        table.add_ai(HOST_ID, "easy", 0.0)
    table.start_and_deal(HOST_ID, 10.0)
    return table


def play_some(table: Table, moves: int) -> None:
    """``moves`` actions by whoever is to act (the first legal one)."""
    for _ in range(moves):
        game = table.game
        assert game is not None and game.to_act is not None
        table.apply(game.to_act, game.legal_actions()[0], 20.0)


def when(moment: float) -> str:
    return f"<{moment:g}>"


def refusal(call: Any) -> str:
    with pytest.raises(TableError) as caught:
        call()
    return say(caught.value.args[0])


def ask_for(table: Table, seat: int | None = None, user: int = STRANGER,
            now: float = NOW) -> takeover.Verdict:
    (free,) = takeover.check_ask(table, user, False, seat, now, when)
    return takeover.ask(table, free, user, "Dora", now)


# ------------------------------------------------------------------ which seats, who asks


def test_only_people_seats_left_or_away_in_a_running_game_may_be_taken() -> None:
    table = started(3, ai=1)
    assert takeover.takeable(table) == []
    table.leave(HOST_ID + 1, NOW)
    assert takeover.takeable(table) == [1]
    table.seats[2].away = True  # an AI seat is never taken, whatever it says
    assert takeover.takeable(table) == [1]
    other = started(3)
    seat = other.to_act
    while not other.seats[seat].away:  # its timer runs out three times: away, not left
        if other.to_act == seat:
            other.time_out(NOW)
        else:
            play_some(other, 1)
    assert other.seats[seat].away and not other.seats[seat].left
    assert takeover.takeable(other) == [seat]
    table.status = "finished"
    assert takeover.takeable(table) == []


def test_who_may_ask_and_for_which_seat() -> None:
    table = started()
    assert "No seat is free to take" in refusal(
        lambda: takeover.check_ask(table, STRANGER, False, None, NOW, when))
    table.leave(HOST_ID + 1, NOW)
    table.leave(HOST_ID + 2, NOW)
    assert takeover.check_ask(table, STRANGER, False, None, NOW, when) == [1, 2]
    assert takeover.check_ask(table, STRANGER, False, 2, NOW, when) == [2]
    assert "not free any more" in refusal(
        lambda: takeover.check_ask(table, STRANGER, False, 0, NOW, when))
    assert refusal(lambda: takeover.check_ask(table, HOST_ID, False, None, NOW, when)) == \
        "You are seated at this table already."
    assert "press **My hand** to play it again" in refusal(
        lambda: takeover.check_ask(table, HOST_ID + 1, False, None, NOW, when))
    assert refusal(lambda: takeover.check_ask(table, STRANGER, True, None, NOW, when)) == \
        "Bots cannot take a seat."
    table.removed = [STRANGER]
    assert "The host removed you" in refusal(
        lambda: takeover.check_ask(table, STRANGER, False, None, NOW, when))
    lobby = started()
    lobby.status = "lobby"
    assert "not started" in refusal(
        lambda: takeover.check_ask(lobby, STRANGER, False, None, NOW, when))


def test_one_open_ask_per_table_until_it_is_answered_or_waited_too_long() -> None:
    table = started()
    table.leave(HOST_ID + 1, NOW)
    table.leave(HOST_ID + 2, NOW)
    first = ask_for(table, 1)
    assert first.kind == PENDING and table.takeover_ask == {
        "n": 1, "seat": 1, "old": HOST_ID + 1, "player": "p1", "user": STRANGER,
        "name": "Dora", "at": NOW, "message": None, "yes": [], "no": []}
    patience = takeover.ask_patience(table.turn_timer)
    assert patience == 600  # ten minutes: longer than the five-minute timer
    assert refusal(lambda: takeover.check_ask(table, OTHER, False, 2, NOW + 1, when)) == \
        f"Dora has asked to take a seat: the answer is awaited. You can ask <{NOW + 600:g}>."
    assert "You have asked already" in refusal(
        lambda: takeover.check_ask(table, STRANGER, False, 2, NOW + 1, when))
    # Unanswered for too long: another may ask, and the new ask replaces it.
    assert takeover.check_ask(table, OTHER, False, 2, NOW + patience, when) == [2]
    second = ask_for(table, 2, user=OTHER, now=NOW + patience)
    assert second.ask["n"] == 2 and table.takeover_ask["user"] == OTHER
    assert takeover.ask_patience(2 * 86400) == 86400  # a slow table waits a day at most


# ------------------------------------------------------------------ who decides


def test_the_host_decides_when_present_else_the_present_players_vote() -> None:
    table = started(4)
    table.leave(HOST_ID + 1, NOW)
    assert takeover.deciders(table, 1) == (HOST, [HOST_ID])
    table.leave(HOST_ID, NOW)  # the host gone too: the present others vote
    assert takeover.deciders(table, 1) == (VOTE, [HOST_ID + 2, HOST_ID + 3])
    assert takeover.deciders(table, 0) == (VOTE, [HOST_ID + 2, HOST_ID + 3])
    with_ai = started(4, ai=2)  # AI seats never vote
    with_ai.leave(HOST_ID, NOW)
    assert takeover.deciders(with_ai, 0) == (VOTE, [HOST_ID + 1])


def test_the_host_accepts_and_the_seat_changes_hands_mid_deal() -> None:
    table = started()
    play_some(table, 4)
    table.leave(HOST_ID + 1, NOW)
    table.seats[1].expiries = 2
    n = ask_for(table).ask["n"]
    step = table.step
    assert refusal(lambda: takeover.decide(table, n, STRANGER, True, NOW)) == \
        "You cannot answer your own request: the players decide."
    assert refusal(lambda: takeover.decide(table, n, HOST_ID + 2, True, NOW)) == \
        "Only the host, p0, can answer this request."
    assert refusal(lambda: takeover.decide(table, n + 1, HOST_ID, True, NOW)) == \
        "This request is no longer open."
    verdict = takeover.decide(table, n, HOST_ID, True, NOW + 5)
    assert verdict.kind == ACCEPTED and table.takeover_ask is None
    seat = table.seats[1]
    assert (seat.user_id, seat.name, seat.away, seat.left, seat.expiries) == \
        (STRANGER, "Dora", False, False, 0)
    assert table.seat_changes == [{"deal": 0, "step": 4, "seat": 1, "old": HOST_ID + 1,
                                   "new": STRANGER, "old_name": "p1"}]
    assert say(table.lines[-1]) == "Dora took over p1's seat."
    assert table.step == step  # nobody's menu goes stale
    assert table.last_activity == NOW + 5
    # The old player is no longer seated: their menus and My hand are refused.
    assert table.seat_of(HOST_ID + 1) is None
    assert refusal(lambda: table.check_move(HOST_ID + 1, table.step, "2C")) == \
        "You are not seated at this table."
    assert not table.come_back(HOST_ID + 1)
    assert takeover.takeable(table) == []
    assert "You held a seat in this game" in refusal(
        lambda: takeover.check_ask(table, HOST_ID + 1, False, None, NOW, when))


def test_the_host_refuses_and_nothing_changes_at_the_seat() -> None:
    table = started()
    table.leave(HOST_ID + 2, NOW)
    n = ask_for(table).ask["n"]
    verdict = takeover.decide(table, n, HOST_ID, False, NOW)
    assert verdict.kind == REFUSED and verdict.ask["no"] == [HOST_ID]
    assert table.takeover_ask is None and table.seat_changes == []
    assert table.seats[2].user_id == HOST_ID + 2 and table.seats[2].left


def test_without_the_host_more_than_half_of_the_present_players_accepts() -> None:
    table = started(5)
    table.leave(HOST_ID, NOW)  # the host is the one gone: seats 1-4 minus the one asked
    table.leave(HOST_ID + 4, NOW)  # ... and one more gone: voters are 1, 2, 3
    n = ask_for(table, 0).ask["n"]
    assert takeover.deciders(table, 0) == (VOTE, [HOST_ID + 1, HOST_ID + 2, HOST_ID + 3])
    assert refusal(lambda: takeover.decide(table, n, HOST_ID + 4, True, NOW)) == \
        "Only the players at the table can answer this request."
    assert takeover.decide(table, n, HOST_ID + 1, True, NOW).kind == PENDING
    assert takeover.decide(table, n, HOST_ID + 1, True, NOW).kind == PENDING  # counted once
    assert takeover.votes_for(table.takeover_ask, [HOST_ID + 1, HOST_ID + 2, HOST_ID + 3]) == 1
    assert takeover.decide(table, n, HOST_ID + 2, False, NOW).kind == PENDING
    assert takeover.decide(table, n, HOST_ID + 2, True, NOW).kind == ACCEPTED  # changed mind
    assert table.seats[0].user_id == STRANGER
    # The host's seat was taken: the first present player who played all along hosts now.
    assert table.host_id == HOST_ID + 1


def test_half_of_the_voters_refusing_refuses() -> None:
    table = started(3)
    table.leave(HOST_ID, NOW)
    n = ask_for(table, 0).ask["n"]
    assert takeover.decide(table, n, HOST_ID + 2, False, NOW).kind == REFUSED
    assert table.takeover_ask is None and table.seats[0].user_id == HOST_ID


def test_a_vote_of_someone_gone_since_does_not_count() -> None:
    ask = {"yes": [1, 2], "no": [3]}
    assert takeover.tally(ask, [1, 2, 3]) == ACCEPTED
    assert takeover.tally(ask, [1, 3, 4, 5]) == PENDING
    assert takeover.tally(ask, [3, 4]) == REFUSED


def test_nobody_left_to_decide_accepts_at_once() -> None:
    table = started(3, ai=2)  # the host and two AI seats
    table.leave(HOST_ID, NOW)
    verdict = ask_for(table, 0)
    assert verdict.kind == ACCEPTED and table.takeover_ask is None
    assert table.seats[0].user_id == STRANGER and table.host_id == STRANGER


def test_the_player_coming_back_first_lets_the_ask_lapse() -> None:
    table = started()
    table.leave(HOST_ID + 1, NOW)
    n = ask_for(table).ask["n"]
    table.welcome_back(HOST_ID + 1, NOW + 1)
    assert takeover.live_ask(table) is None
    assert "No seat is free" in refusal(
        lambda: takeover.check_ask(table, OTHER, False, None, NOW, when))
    verdict = takeover.decide(table, n, HOST_ID, True, NOW + 2)
    assert verdict.kind == LAPSED and table.takeover_ask is None
    assert table.seats[1].user_id == HOST_ID + 1 and table.seat_changes == []


def test_the_newcomer_to_act_gets_their_own_timer() -> None:
    table = started()
    seat = table.to_act
    user = table.seats[seat].user_id
    table.leave(user, NOW)  # (before the bot plays the seat)
    assert table.automation() == "away" and table.turn_deadline is not None
    n = ask_for(table, seat).ask["n"]
    _mode, who = takeover.deciders(table, seat)  # the host, or both others if it is theirs
    kinds = [takeover.decide(table, n, voter, True, NOW + 7).kind for voter in who]
    assert kinds[-1] == ACCEPTED and table.seats[seat].user_id == STRANGER
    assert table.automation() is None and table.to_act == seat
    assert table.turn_deadline == NOW + 7 + table.turn_timer
    legal = action_code(table.game.legal_actions()[0])
    assert table.check_move(STRANGER, table.step, legal) == (seat, table.game.legal_actions()[0])


# ------------------------------------------------------------------ kept and reset


def test_the_fields_are_saved_with_the_snapshot_and_a_rematch_starts_clean() -> None:
    table = started()
    table.leave(HOST_ID + 1, NOW)
    n = ask_for(table).ask["n"]
    takeover.note_message(table, n, 4242)
    back = Table.from_data(json.loads(json.dumps(table.to_data())), Jazz, table.version)
    assert back.takeover_ask == table.takeover_ask and back.takeover_ask["message"] == 4242
    assert back.takeover_asks == 1
    takeover.decide(table, n, HOST_ID, True, NOW)
    back = Table.from_data(json.loads(json.dumps(table.to_data())), Jazz, table.version)
    assert back.seat_changes == table.seat_changes and back.seats[1].user_id == STRANGER
    old_snapshot = table.to_data()
    for key in ("seat_changes", "takeover_ask", "takeover_asks"):
        del old_snapshot[key]  # a table saved before this feature
    assert Table.from_data(old_snapshot, Jazz, 1).seat_changes == []
    table.status = "finished"
    rematch = next_table(table, fresh_seats(table.seats), NOW)
    assert (rematch.seat_changes, rematch.takeover_ask, rematch.takeover_asks) == ([], None, 0)
    assert [s.user_id for s in rematch.seats] == [HOST_ID, STRANGER, HOST_ID + 2]


# ------------------------------------------------------------------ the record and ratings


class Rules:
    """A game's rules as the ending asks them (``bot.play.front.GameRules``)."""

    def policy(self, game: Game) -> int:
        return game.legal_actions()[0]

    def chips(self, game: Game) -> list[int]:
        return [0] * game.players


def finished_table() -> Table:
    """A whole Jazz game where seat 1 changed hands in its first deal."""
    table = started()
    play_some(table, 3)
    table.leave(HOST_ID + 1, NOW)
    takeover.decide(table, ask_for(table).ask["n"], HOST_ID, True, NOW)
    game = table.game
    rng = random.Random(3)
    while not game.is_over:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    table.status = "finished"
    return table


def test_the_stored_record_says_where_a_seat_changed_hands_but_not_who() -> None:
    table = finished_table()
    result = finished_game(table, Rules(), completed=True, now=NOW + 100)
    assert result.record["seat_changes"] == [{"deal": 0, "step": 3, "seat": 1}]
    assert str(STRANGER) not in json.dumps(result.record)
    assert str(HOST_ID + 1) not in json.dumps(result.record)
    seats = result.seats
    assert [s.user_id for s in seats] == [HOST_ID, None, HOST_ID + 2]
    assert seats[1].name == "p1 → Dora" and result.taken_over == (1,)
    check_seats(result)
    assert is_counted(result) and is_rated(result) and not moves_chips(result)
    assert replay(result.record)["complete"]


@pytest.mark.parametrize(("users", "taken", "hinted", "rated"), [
    ([1, None, 3], (1,), False, True),  # the others rated among themselves
    ([1, None, None], (1,), False, False),  # one person left to rate: no rating
    ([1, None, 3], (), False, False),  # an AI seat: not rated
    ([1, None, 3], (1,), True, False),  # a hint: not rated, as always
])
def test_a_seat_that_changed_hands_leaves_the_others_rated(
        users: list[int | None], taken: tuple[int, ...], hinted: bool, rated: bool) -> None:
    game = finished([(u, 10 - i) for i, u in enumerate(users)])
    game.taken_over, game.hinted = taken, hinted
    assert is_rated(game) is rated


def test_a_seat_that_changed_hands_must_be_credited_to_nobody() -> None:
    game = finished([(7, 3), (8, 1), (9, 0)])
    game.taken_over = (1,)
    with pytest.raises(InvalidResult, match="changed hands"):
        check_seats(game)


async def test_ratings_count_the_game_for_nobody_who_left_it(store: Store) -> None:
    leaver, newcomer = 8, 10
    game = finished([(7, 9), (None, 5), (9, 1)],
                    names={7: "Ann", 9: "Cy"})
    game.taken_over = (1,)
    game_id = await store.record_game(game)
    board = await store.leaderboard("jazz", GUILD)
    assert sorted(r.user_id for r in board) == [7, 9]
    assert all(r.games == 1 for r in board)
    stats = {r.user_id: await store.stats(r.user_id, GUILD) for r in board}
    assert all(s[0].mu != default_rating().mu for s in stats.values())  # rated
    assert [s.wins for s in stats[7]] == [1] and [s.wins for s in stats[9]] == [0]
    for nobody in (leaver, newcomer):
        assert await store.stats(nobody, GUILD) == []
        assert await store.history(GUILD, user_id=nobody) == []
    (summary,) = await store.history(GUILD)
    assert summary.game_id == game_id and summary.rated
    assert [p.user_id for p in summary.players] == [7, None, 9]


# ------------------------------------------------------------------ the replays


def jazz_record_with_changes(changes: Any) -> dict[str, Any]:
    game = random_game(Jazz, 3, Jazz.OPTIONS.from_dict({}), 5)
    return {**game.to_record(), "seat_changes": changes}


def test_a_record_with_seat_changes_replays_as_without_them() -> None:
    record = jazz_record_with_changes([{"deal": 1, "step": 4, "seat": 2},
                                       {"deal": 0, "step": 0, "seat": 0}])
    plain = {k: v for k, v in record.items() if k != "seat_changes"}
    assert replay(record) == replay(plain)
    last = len(record["deals"][-1]["actions"])  # after the last action of a deal: fine
    replay(jazz_record_with_changes([{"deal": len(record["deals"]) - 1, "step": last,
                                      "seat": 1}]))


@pytest.mark.parametrize(("changes", "where", "words"), [
    ("seat 1", (None, None), "'seat_changes' must be a list."),
    ([{"deal": 0, "seat": 1}], (None, None), "needs whole numbers"),
    ([{"deal": 0, "step": 1, "seat": True}], (None, None), "needs whole numbers"),
    ([{"deal": 99, "step": 0, "seat": 1}], (None, None), "names deal 99"),
    ([{"deal": 0, "step": 999, "seat": 1}], (0, None), "names step 999"),
    ([{"deal": 0, "step": 2, "seat": 3}], (0, 2), "There is no seat 3."),
])
def test_a_broken_seat_change_is_refused_where_it_is(changes: Any, where: tuple[Any, Any],
                                                    words: str) -> None:
    with pytest.raises(ReplayError) as caught:
        replay(jazz_record_with_changes(changes))
    assert (caught.value.deal, caught.value.step) == where
    assert words in say(caught.value.reason)


def test_the_replay_command_and_the_web_replay_take_a_record_with_seat_changes(tmp_path
                                                                              ) -> None:
    record = finished_game(finished_table(), Rules(), completed=True, now=NOW + 100).record
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    done = subprocess.run([sys.executable, "-m", "engine", "replay", str(path), "--summary"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["complete"] is True
    frames = replay_frames(record, dict(views()), ["Ann", "Bo → Dora", "Cy"], "en")
    assert frames["players"] == ["Ann", "Bo → Dora", "Cy"] and frames["frames"]
