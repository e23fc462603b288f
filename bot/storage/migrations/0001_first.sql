
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id    INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE live_tables (
        table_id   TEXT PRIMARY KEY,
        guild_id   INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game       TEXT NOT NULL,
        status     TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'stopped')),
        version    INTEGER NOT NULL,
        data       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    -- One active table per channel, enforced by the database itself.
    CREATE UNIQUE INDEX live_tables_active_channel
        ON live_tables (channel_id) WHERE status IN ('lobby', 'playing');
    CREATE INDEX live_tables_status ON live_tables (status, created_at);
    CREATE TABLE games (
        game_id    INTEGER PRIMARY KEY AUTOINCREMENT,
        table_id   TEXT,
        guild_id   INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game       TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at   TEXT NOT NULL,
        completed  INTEGER NOT NULL CHECK (completed IN (0, 1)),
        rated      INTEGER NOT NULL CHECK (rated IN (0, 1)),
        record     TEXT NOT NULL
    );
    CREATE INDEX games_guild ON games (guild_id, game_id);
    CREATE INDEX games_channel ON games (channel_id, game_id);
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,
        user_id INTEGER REFERENCES users (user_id),
        name    TEXT NOT NULL,
        points  INTEGER NOT NULL,
        place   INTEGER NOT NULL,
        won     INTEGER NOT NULL CHECK (won IN (0, 1)),
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_user ON results (user_id, game_id);
    CREATE TABLE ratings (
        scope   INTEGER NOT NULL,
        game    TEXT NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users (user_id),
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL,
        ordinal REAL NOT NULL,
        games   INTEGER NOT NULL,
        wins    INTEGER NOT NULL,
        points  INTEGER NOT NULL,
        PRIMARY KEY (scope, game, user_id)
    );
    CREATE INDEX ratings_board ON ratings (scope, game, ordinal DESC, games DESC, user_id);
    