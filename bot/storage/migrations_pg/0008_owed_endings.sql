-- PostgreSQL's dialect of migrations/0008_owed_endings.sql, which says why: what a closed
-- table still owes its channel once its end is stored (NULL: nothing).
ALTER TABLE live_tables ADD COLUMN owed TEXT;
CREATE INDEX live_tables_owed ON live_tables (created_at) WHERE owed IS NOT NULL;
