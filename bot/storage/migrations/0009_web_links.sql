-- The web table's link tokens already redeemed: a link can be spent once, in every web
-- process sharing the store. Rows go once the token has expired (it is refused anyway).
CREATE TABLE web_links (
    nonce TEXT PRIMARY KEY,
    expires REAL NOT NULL
);
