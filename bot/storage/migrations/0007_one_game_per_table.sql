-- A table has at most one game: UNIQUE(games.table_id) (NULL, the table id of games older
-- than table ids, stays allowed: any number of NULLs). A table closed and recorded in two
-- transactions could be recorded twice (a failed close, then a restart finished it again):
-- the twins go first. The first game recorded of a table (the lowest game_id) is kept,
-- each later one ("twin") is removed with its seats, and what it moved is taken back:
--   * counts (games, wins, points, rated_games) and chips are sums: the twin's own share,
--     read from its games and results rows, is subtracted exactly, in the scopes it was
--     counted in (its server and the global one, once for a game without a server),
--   * ratings (mu, sigma, ordinal) stay as they are: a rating is a chain of updates, each
--     from the one before and the opponents', and the rating before a twin was never kept,
--     so no exact undo exists short of replaying every rated game of the board from the
--     first under today's rating code, which would move players who never sat at a twin
--     table (and old games were rated under older rules). A twin's update is the same
--     result applied once more: it moved its players a little further in the direction
--     the game already had, and the games that follow keep correcting it.
-- A ratings row left with no game at all (its player's only counted game was a twin) is
-- removed, as if never made.

CREATE TEMP TABLE twins AS
    SELECT g.game_id, g.guild_id, g.game, g.completed, g.rated, g.chips_applied
    FROM games AS g
    WHERE g.table_id IS NOT NULL
      AND g.game_id > (SELECT MIN(f.game_id) FROM games AS f WHERE f.table_id = g.table_id);

-- What each twin counted, per scope, game and player: a completed game, for its humans.
CREATE TEMP TABLE twin_counts AS
    SELECT s.scope, t.game, r.user_id, COUNT(*) AS games, SUM(r.won) AS wins,
           SUM(r.points) AS points, SUM(t.rated) AS rated_games
    FROM twins AS t
    JOIN (SELECT game_id, guild_id AS scope FROM twins
          UNION SELECT game_id, 0 AS scope FROM twins) AS s ON s.game_id = t.game_id
    JOIN results AS r ON r.game_id = t.game_id
    WHERE t.completed = 1 AND r.user_id IS NOT NULL
    GROUP BY s.scope, t.game, r.user_id;

UPDATE ratings SET
    games = games - (SELECT c.games FROM twin_counts AS c WHERE c.scope = ratings.scope
                     AND c.game = ratings.game AND c.user_id = ratings.user_id),
    wins = wins - (SELECT c.wins FROM twin_counts AS c WHERE c.scope = ratings.scope
                   AND c.game = ratings.game AND c.user_id = ratings.user_id),
    points = points - (SELECT c.points FROM twin_counts AS c WHERE c.scope = ratings.scope
                       AND c.game = ratings.game AND c.user_id = ratings.user_id),
    rated_games = rated_games - (SELECT c.rated_games FROM twin_counts AS c
                                 WHERE c.scope = ratings.scope AND c.game = ratings.game
                                 AND c.user_id = ratings.user_id)
WHERE EXISTS (SELECT 1 FROM twin_counts AS c WHERE c.scope = ratings.scope
              AND c.game = ratings.game AND c.user_id = ratings.user_id);

DELETE FROM ratings
WHERE games <= 0
  AND EXISTS (SELECT 1 FROM twin_counts AS c WHERE c.scope = ratings.scope
              AND c.game = ratings.game AND c.user_id = ratings.user_id);

-- The chips a twin moved (only a game that says it moved them), in its server.
UPDATE chips SET
    balance = balance - (SELECT SUM(r.chips) FROM twins AS t
                         JOIN results AS r ON r.game_id = t.game_id
                         WHERE t.chips_applied = 1 AND t.guild_id = chips.guild_id
                           AND r.user_id = chips.user_id)
WHERE EXISTS (SELECT 1 FROM twins AS t JOIN results AS r ON r.game_id = t.game_id
              WHERE t.chips_applied = 1 AND t.guild_id = chips.guild_id
                AND r.user_id = chips.user_id);

DELETE FROM results WHERE game_id IN (SELECT game_id FROM twins);
DELETE FROM games WHERE game_id IN (SELECT game_id FROM twins);

DROP TABLE twin_counts;
DROP TABLE twins;

CREATE UNIQUE INDEX games_table ON games (table_id);
