-- Seasons and role rewards (docs/competition.md). Each server's season ratings, beside the
-- all-time ones: a rated game rates its players in the season it ended in as well, in the
-- same transaction (only rated games: a season's board is of rated play alone).
CREATE TABLE season_ratings (
    guild_id    INTEGER NOT NULL,
    season      INTEGER NOT NULL,
    game        TEXT NOT NULL,
    user_id     INTEGER NOT NULL REFERENCES users (user_id),
    mu          REAL NOT NULL,
    sigma       REAL NOT NULL,
    ordinal     REAL NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    points      INTEGER NOT NULL,
    rated_games INTEGER NOT NULL,
    PRIMARY KEY (guild_id, season, game, user_id)
);
CREATE INDEX season_ratings_board
    ON season_ratings (guild_id, season, game, ordinal DESC, games DESC, user_id);
-- The seasons whose end was posted (once: a restart neither skips nor repeats one).
CREATE TABLE season_posts (
    guild_id  INTEGER NOT NULL,
    season    INTEGER NOT NULL,
    posted_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, season)
);
-- Who holds a reward role because the bot gave it (a champion's): whom to take it back
-- from at the next season's end (without the Members intent the bot cannot list a role's
-- members).
CREATE TABLE role_holders (
    guild_id INTEGER NOT NULL,
    role_id  INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, role_id, user_id)
);
-- The boards of a rolling window (/leaderboard period: week, month) read a server's games
-- of one game by when they ended.
CREATE INDEX games_window ON games (guild_id, game, ended_at);
