-- Tournaments (bot.features.tournaments). Each one's whole state is a JSON object kept with
-- a version, as a live table's snapshot is: a save names the version it read and is
-- refused if another process saved in between. At most one tournament signing up or
-- running per channel (its sign-up and standings message, its tables' threads).
CREATE TABLE tournaments (
    tournament_id TEXT PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    status        TEXT NOT NULL
                  CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    version       INTEGER NOT NULL,
    data          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE UNIQUE INDEX tournaments_active_channel
    ON tournaments (channel_id) WHERE status IN ('signup', 'running');
-- The sign-ups, one row each (a click on Sign up is one insert, never a version
-- conflict), in the order they came (seq).
CREATE TABLE tournament_signups (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    name          TEXT NOT NULL,
    signed_at     TEXT NOT NULL,
    UNIQUE (tournament_id, user_id)
);
