-- Each player's rating after each rated game, in each scope it was rated in (the game's
-- server, the global one): what /stats draws as a line. Written in the game's own
-- transaction, beside the update of `ratings`, so the line ends where the leaderboard
-- stands. Games rated before this migration have no row (their ratings before and after
-- were never kept); the line starts with the first game rated after it.
-- Read per player and game, newest first: the primary key's order.
CREATE TABLE rating_history (
    scope   INTEGER NOT NULL,
    game    TEXT NOT NULL,
    user_id INTEGER NOT NULL,
    game_id INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    mu      REAL NOT NULL,
    sigma   REAL NOT NULL,
    ordinal REAL NOT NULL,
    PRIMARY KEY (scope, game, user_id, game_id)
);
