
    ALTER TABLE ratings ADD COLUMN rated_games INTEGER NOT NULL DEFAULT 0;
    UPDATE ratings SET rated_games = games;
    