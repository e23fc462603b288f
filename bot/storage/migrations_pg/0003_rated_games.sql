-- Games with AI seats count but are not rated: how many of a player's games were.
ALTER TABLE ratings ADD COLUMN rated_games BIGINT NOT NULL DEFAULT 0;
UPDATE ratings SET rated_games = games;
