-- The interned query texts and actors are keyed by (scope, id), not id alone: on Citus the search
-- log is hash-distributed by scope (distribution.ts), and every unique key of a distributed table
-- must hold its distribution column. Every join to these tables names the scope as well
-- (analytics.ts): a join inside one shard there, a primary-key lookup on one PostgreSQL. The index
-- is as large as before (two int4 fill the 8 bytes one int4 took with its padding).
-- The tables are made again, the ids kept, with a sequence as the id's default instead of an
-- identity column: on a cluster upgraded from the first Citus deployments these tables are Citus
-- local tables, and Citus can neither alter the identity of one nor hand one back to be
-- distributed ("cannot complete operation on a table with identity column"). The new table gets
-- its key to analytics_scopes once filled, and before the old one is dropped: made after the
-- drop, in the same transaction, Citus deadlocks on its own locks there.
CREATE SEQUENCE analytics_query_ids AS integer;
CREATE TABLE analytics_queries_k (
  id INTEGER NOT NULL DEFAULT nextval('analytics_query_ids'),
  scope INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (scope, id),
  UNIQUE (scope, text)
);
ALTER SEQUENCE analytics_query_ids OWNED BY analytics_queries_k.id;
INSERT INTO analytics_queries_k (id, scope, text) SELECT id, scope, text FROM analytics_queries;
SELECT setval('analytics_query_ids', coalesce((SELECT max(id) FROM analytics_queries_k), 0) + 1, false);
ALTER TABLE analytics_queries_k ADD CONSTRAINT analytics_queries_scope_fkey FOREIGN KEY (scope) REFERENCES analytics_scopes(id) ON DELETE CASCADE;
DROP TABLE analytics_queries;
ALTER TABLE analytics_queries_k RENAME TO analytics_queries;
ALTER INDEX analytics_queries_k_pkey RENAME TO analytics_queries_pkey;
ALTER INDEX analytics_queries_k_scope_text_key RENAME TO analytics_queries_scope_text_key;
ALTER SEQUENCE analytics_query_ids RENAME TO analytics_queries_id_seq;

CREATE SEQUENCE analytics_actor_ids AS integer;
CREATE TABLE analytics_actors_k (
  id INTEGER NOT NULL DEFAULT nextval('analytics_actor_ids'),
  scope INTEGER NOT NULL,
  actor BYTEA NOT NULL,
  PRIMARY KEY (scope, id),
  UNIQUE (scope, actor)
);
ALTER SEQUENCE analytics_actor_ids OWNED BY analytics_actors_k.id;
INSERT INTO analytics_actors_k (id, scope, actor) SELECT id, scope, actor FROM analytics_actors;
SELECT setval('analytics_actor_ids', coalesce((SELECT max(id) FROM analytics_actors_k), 0) + 1, false);
ALTER TABLE analytics_actors_k ADD CONSTRAINT analytics_actors_scope_fkey FOREIGN KEY (scope) REFERENCES analytics_scopes(id) ON DELETE CASCADE;
DROP TABLE analytics_actors;
ALTER TABLE analytics_actors_k RENAME TO analytics_actors;
ALTER INDEX analytics_actors_k_pkey RENAME TO analytics_actors_pkey;
ALTER INDEX analytics_actors_k_scope_actor_key RENAME TO analytics_actors_scope_actor_key;
ALTER SEQUENCE analytics_actor_ids RENAME TO analytics_actors_id_seq;
