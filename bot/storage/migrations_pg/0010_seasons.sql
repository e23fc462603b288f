-- PostgreSQL's dialect of migrations/0010_seasons.sql, which says why: each server's
-- season ratings, the seasons whose end was posted, the reward roles the bot gave, and
-- the index of the rolling windows' boards.
CREATE TABLE season_ratings (
    guild_id    BIGINT NOT NULL,
    season      BIGINT NOT NULL,
    game        TEXT COLLATE "C" NOT NULL,
    user_id     BIGINT NOT NULL REFERENCES users (user_id),
    mu          DOUBLE PRECISION NOT NULL,
    sigma       DOUBLE PRECISION NOT NULL,
    ordinal     DOUBLE PRECISION NOT NULL,
    games       BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    points      BIGINT NOT NULL,
    rated_games BIGINT NOT NULL,
    PRIMARY KEY (guild_id, season, game, user_id)
);
CREATE INDEX season_ratings_board
    ON season_ratings (guild_id, season, game, ordinal DESC, games DESC, user_id);
CREATE TABLE season_posts (
    guild_id  BIGINT NOT NULL,
    season    BIGINT NOT NULL,
    posted_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (guild_id, season)
);
CREATE TABLE role_holders (
    guild_id BIGINT NOT NULL,
    role_id  BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    PRIMARY KEY (guild_id, role_id, user_id)
);
CREATE INDEX games_window ON games (guild_id, game, ended_at);
