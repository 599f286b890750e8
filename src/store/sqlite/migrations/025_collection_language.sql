-- A collection's language (issue 28 item 5): an ISO 639-1 code or 'auto'; NULL is English, the
-- analysis every collection had before, so existing collections and their indexes are unchanged.
ALTER TABLE collections ADD COLUMN language TEXT;
