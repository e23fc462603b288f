-- A table's posts (its message ids, its players' DM channels and messages), kept apart
-- from the versioned snapshot so that a move is one versioned save: a JSON object, or
-- NULL while none is known. Written without a version (Store.save_posts).
ALTER TABLE live_tables ADD COLUMN posts TEXT;
