-- The language of each user's Discord client, as their latest interaction said: what a
-- DM to them is written in (locales). Not a users row: a user may click before they play.
CREATE TABLE user_languages (
    user_id  BIGINT PRIMARY KEY,
    language TEXT NOT NULL
);
