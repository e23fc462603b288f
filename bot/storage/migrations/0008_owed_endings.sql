-- What a closed table still owes its channel (NULL: nothing). A table's end is stored in
-- one transaction; what it shows comes after, and a process that dies in between leaves
-- it unshown: "result" (a finished game's result, its Rematch or a series' next deal),
-- "board" (a stopped table's message redrawn), "idle" (that, and its players told why),
-- "series_over" (a series' final standings).
-- The process that ends a table clears it once shown; a restart shows what is left.
ALTER TABLE live_tables ADD COLUMN owed TEXT;
CREATE INDEX live_tables_owed ON live_tables (created_at) WHERE owed IS NOT NULL;
