-- PostgreSQL's dialect of migrations/0007_one_game_per_table.sql, which says why: a table
-- has at most one game, UNIQUE(games.table_id) (NULLs, games older than table ids, stay
-- allowed). The twins (every game of a table after its first, by game_id) go first, with
-- their seats, and what they moved is taken back: counts (games, wins, points,
-- rated_games) and chips, exactly. Ratings (mu, sigma) stay as the twins left them (no
-- exact undo exists without replaying every rated game of the board). A ratings row left
-- with no game is removed.

CREATE TEMP TABLE twins ON COMMIT DROP AS
    SELECT g.game_id, g.guild_id, g.game, g.completed, g.rated, g.chips_applied
    FROM games AS g
    WHERE g.table_id IS NOT NULL
      AND g.game_id > (SELECT MIN(f.game_id) FROM games AS f WHERE f.table_id = g.table_id);

-- What each twin counted, per scope, game and player: a completed game, for its humans.
CREATE TEMP TABLE twin_counts ON COMMIT DROP AS
    SELECT s.scope, t.game, r.user_id, COUNT(*) AS games,
           SUM(r.won::int) AS wins, SUM(r.points) AS points, SUM(t.rated::int) AS rated_games
    FROM twins AS t
    JOIN (SELECT game_id, guild_id AS scope FROM twins
          UNION SELECT game_id, 0 AS scope FROM twins) AS s ON s.game_id = t.game_id
    JOIN results AS r ON r.game_id = t.game_id
    WHERE t.completed AND r.user_id IS NOT NULL
    GROUP BY s.scope, t.game, r.user_id;

UPDATE ratings AS x SET games = x.games - c.games, wins = x.wins - c.wins,
                        points = x.points - c.points,
                        rated_games = x.rated_games - c.rated_games
FROM twin_counts AS c
WHERE c.scope = x.scope AND c.game = x.game AND c.user_id = x.user_id;

DELETE FROM ratings AS x USING twin_counts AS c
WHERE x.games <= 0 AND c.scope = x.scope AND c.game = x.game AND c.user_id = x.user_id;

-- The chips a twin moved (only a game that says it moved them), in its server.
UPDATE chips AS x SET balance = x.balance - m.moved
FROM (SELECT t.guild_id, r.user_id, SUM(r.chips) AS moved
      FROM twins AS t JOIN results AS r ON r.game_id = t.game_id
      WHERE t.chips_applied AND r.user_id IS NOT NULL
      GROUP BY t.guild_id, r.user_id) AS m
WHERE m.guild_id = x.guild_id AND m.user_id = x.user_id;

DELETE FROM results WHERE game_id IN (SELECT game_id FROM twins);
DELETE FROM games WHERE game_id IN (SELECT game_id FROM twins);

CREATE UNIQUE INDEX games_table ON games (table_id);
