-- Chips: balances per server, each seat's net chips, whether a game moved any.
CREATE TABLE chips (
    guild_id BIGINT NOT NULL,
    user_id  BIGINT NOT NULL REFERENCES users (user_id),
    balance  BIGINT NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX chips_board ON chips (guild_id, balance DESC, user_id);
ALTER TABLE results ADD COLUMN chips BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN chips_applied BOOLEAN NOT NULL DEFAULT FALSE;
