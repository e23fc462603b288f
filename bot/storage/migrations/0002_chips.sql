
    CREATE TABLE chips (
        guild_id INTEGER NOT NULL,
        user_id  INTEGER NOT NULL REFERENCES users (user_id),
        balance  INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE INDEX chips_board ON chips (guild_id, balance DESC, user_id);
    ALTER TABLE results ADD COLUMN chips INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN chips_applied INTEGER NOT NULL DEFAULT 0;
    