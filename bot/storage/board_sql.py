"""The order of the leaderboards, in SQL that SQLite and PostgreSQL read alike.

A page is read along the board's index (``ratings_board``, ``chips_board``: the same
columns in the same order as ``ORDER BY`` below) with LIMIT and OFFSET, so it visits
at most offset + limit index entries, and its ranks are counted from the offset. No
window function over the whole board: ``COUNT(*) OVER`` or ``ROW_NUMBER`` needs every
row of the board before the first row of a page.

One player's rank is 1 + the players ahead of them, counted in ranges of that index
(one per column of the order), so it too never reads the board behind them. Ranks are
unique: ties on the rating or the balance are broken as the index orders them.

The fragments name the outer row ``r`` (ratings) or ``c`` (chips); each backend adds
its WHERE clause with its own parameter marks.
"""

from __future__ import annotations

# Ratings: higher ordinal first, then more games, then the lower user id.
BOARD_COLUMNS = """
    r.game, r.user_id, COALESCE(u.name, '') AS name, r.games, r.wins, r.points,
    r.mu, r.sigma, r.ordinal, r.rated_games
"""
BOARD_FROM = "ratings AS r LEFT JOIN users AS u ON u.user_id = r.user_id"
BOARD_ORDER = "r.ordinal DESC, r.games DESC, r.user_id"

_SAME_BOARD = "a.scope = r.scope AND a.game = r.game"
BOARD_RANK = f"""(
    (SELECT COUNT(*) FROM ratings AS a WHERE {_SAME_BOARD} AND a.ordinal > r.ordinal)
  + (SELECT COUNT(*) FROM ratings AS a WHERE {_SAME_BOARD} AND a.ordinal = r.ordinal
       AND a.games > r.games)
  + (SELECT COUNT(*) FROM ratings AS a WHERE {_SAME_BOARD} AND a.ordinal = r.ordinal
       AND a.games = r.games AND a.user_id < r.user_id)
  + 1)"""
BOARD_SIZE = f"(SELECT COUNT(*) FROM ratings AS a WHERE {_SAME_BOARD})"

# Chips: the higher balance first, then the lower user id.
CHIPS_COLUMNS = "c.user_id, COALESCE(u.name, '') AS name, c.balance"
CHIPS_FROM = "chips AS c LEFT JOIN users AS u ON u.user_id = c.user_id"
CHIPS_ORDER = "c.balance DESC, c.user_id"

CHIPS_RANK = """(
    (SELECT COUNT(*) FROM chips AS a WHERE a.guild_id = c.guild_id AND a.balance > c.balance)
  + (SELECT COUNT(*) FROM chips AS a WHERE a.guild_id = c.guild_id AND a.balance = c.balance
       AND a.user_id < c.user_id)
  + 1)"""
