-- The rollup rows of the current hour and day are rewritten by every batch of the search log: room
-- left in each page lets PostgreSQL write the new version beside the old one (a HOT update, no new
-- index entry) and prune the old one when the page is next read, without waiting for autovacuum.
ALTER TABLE query_daily SET (fillfactor = 70);
ALTER TABLE search_hourly SET (fillfactor = 70);
