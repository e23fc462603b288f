"""What /stats writes beside the numbers: head-to-head, streaks and the rating chart's
words, within Discord's limits in every language and with names escaped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import locales
from bot.storage import GameStats, GameSummary, HeadToHead, RatingPoint, SeatResult, Streak
from bot.ui import markup
from cogs.head_to_head import (
    LAST_GAMES,
    head_to_head_embed,
    most_played,
    rating_chart,
    streak_text,
)
from cogs.stats import stats_embed

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
HOSTILE = "**Bo_b** `x` @everyone <@1> ||s|| " + "ш" * 40  # longer than a name is shown
GAMES = ("attackjack", "california_jack", "jacko", "jazz")


def duel(game: str) -> HeadToHead:
    return HeadToHead(game, 123456, 65432, 54321, -9876543, 8765432, 60000, 50000)


def together(n: int) -> GameSummary:
    seats = (SeatResult(0, 1, HOSTILE, -123456, 3, False),
             SeatResult(1, None, "AI", 5, 0, True),
             SeatResult(2, 2, HOSTILE, 999999, 0, True))
    return GameSummary(1_000_000 + n, GAMES[n % 4], 1, 2, T0, T0 + timedelta(minutes=n),
                       True, False, seats)


@pytest.mark.parametrize("language", locales.LANGUAGES)
def test_a_head_to_head_fits_whole_in_every_language(language: str) -> None:
    with locales.speaking(language):
        embed = head_to_head_embed((HOSTILE, HOSTILE), (1, 2), markup.safe_name(HOSTILE),
                                   [duel(g) for g in GAMES],
                                   [together(n) for n in range(LAST_GAMES)])
    assert [f.name for f in embed.fields][:4] == ["AttackJack", "California Jack", "Jacko",
                                                  "Jazz"]
    assert len(embed.fields) == 5  # nothing dropped to fit
    assert markup.embed_size(embed) <= 6000
    for f in embed.fields:
        assert f.value is not None and len(f.value) <= 1024
        assert not f.value.endswith(markup.ELLIPSIS)  # nothing cut either
    listed = embed.fields[-1].value or ""
    assert len(listed.splitlines()) == LAST_GAMES
    # Names are escaped wherever they are written: no bold, code or spoiler they typed.
    for text in (embed.title or "", listed, embed.fields[0].value or ""):
        assert "**Bo_b**" not in text and "`x`" not in text and "||s||" not in text
    assert "\\*\\*Bo\\_b\\*\\*" in listed and "👑 **" in listed


def test_a_head_to_head_without_games_says_so() -> None:
    embed = head_to_head_embed(("Ann", "Bob"), (1, 2), "Card Club", [], [])
    assert embed.description == "Ann and Bob have not finished a game together yet."
    assert not embed.fields
    seen_none = head_to_head_embed(("Ann", "Bob"), (1, 2), "Card Club", [duel("jazz")], [])
    assert seen_none.fields[-1].value == "None in a channel you can see."


@pytest.mark.parametrize("language", locales.LANGUAGES)
def test_stats_with_streaks_fit_in_every_language(language: str) -> None:
    stats = [GameStats(g, 10**9, 10**9 - 1, 0.99, -10**12, 25.0, 8.3, -123.4, True, 99999,
                       100000) for g in GAMES]
    streaks = {g: Streak(g, 10**6, 10**7) for g in GAMES}
    with locales.speaking(language):
        embed = stats_embed(HOSTILE, "all servers", stats, None, 10**12, streaks)
    assert len(embed.fields) == 5 and markup.embed_size(embed) <= 6000
    assert all(not (f.value or "").endswith(markup.ELLIPSIS) for f in embed.fields)
    if language == locales.ENGLISH:
        assert (embed.fields[3].value or "").endswith(
            "\nWinning streak **1000000** · longest **10000000**")


def test_the_streak_line_and_the_most_played_game() -> None:
    assert streak_text(Streak("jazz", 0, 4)) == "Winning streak **0** · longest **4**"
    stats = [GameStats(g, n, 0, 0.0, 0, 25.0, 8.3, 0.0, True, 1, 1)
             for g, n in (("attackjack", 7), ("jacko", 3), ("jazz", 7))]  # as stored
    assert most_played(stats) == "attackjack"  # on a tie, the first by game id
    assert most_played(stats[1:]) == "jazz"
    assert most_played([]) is None


def test_the_chart_needs_two_rated_games_and_writes_names_as_they_are() -> None:
    points = [RatingPoint(n, T0 + timedelta(days=n), 25.0, 8.0, float(n)) for n in (1, 2, 3)]
    assert rating_chart("Ann", "jazz", "Card Club", points[:1]) is None
    chart = rating_chart("**Ann**", "jazz", "Card Club", points)
    assert chart is not None
    assert chart.title == "Rating of **Ann** in Jazz"  # a picture shows no markdown
    assert chart.values == (1.0, 2.0, 3.0)
    assert (chart.start, chart.end, chart.caption) == ("2025-03-02", "2025-03-04",
                                                       "3 rated games")
