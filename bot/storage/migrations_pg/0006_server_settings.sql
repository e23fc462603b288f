-- Each server's settings for its new tables (/settings): one JSON object per guild, read
-- by bot.server_settings (a value it does not know reads back as its default).
CREATE TABLE server_settings (
    guild_id BIGINT PRIMARY KEY,
    data     TEXT NOT NULL
);
