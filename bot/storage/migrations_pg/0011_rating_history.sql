-- PostgreSQL's dialect of migrations/0011_rating_history.sql, which says why: each
-- player's rating after each rated game, per scope (the line /stats draws).
CREATE TABLE rating_history (
    scope   BIGINT NOT NULL,
    game    TEXT COLLATE "C" NOT NULL,
    user_id BIGINT NOT NULL,
    game_id BIGINT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    mu      DOUBLE PRECISION NOT NULL,
    sigma   DOUBLE PRECISION NOT NULL,
    ordinal DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (scope, game, user_id, game_id)
);
