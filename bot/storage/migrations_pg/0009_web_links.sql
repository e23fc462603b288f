-- PostgreSQL's dialect of migrations/0009_web_links.sql, which says why: the web table's
-- link tokens already redeemed (each is spent once).
CREATE TABLE web_links (
    nonce TEXT PRIMARY KEY,
    expires DOUBLE PRECISION NOT NULL
);
