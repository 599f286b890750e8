-- The interned query texts and actors are keyed by (scope, id), not id alone: on Citus the search
-- log is hash-distributed by scope (distribution.ts), and every unique key of a distributed table
-- must hold its distribution column. The ids still come from one sequence each, so they stay
-- unique by themselves; every join to these tables names the scope as well (analytics.ts), which
-- makes it a join inside one shard there and a primary-key lookup on one PostgreSQL. The index is
-- as large as before (two int4 pack into the 8 bytes one int4 took with its padding).
ALTER TABLE analytics_queries DROP CONSTRAINT analytics_queries_pkey;
ALTER TABLE analytics_queries ADD CONSTRAINT analytics_queries_pkey PRIMARY KEY (scope, id);
ALTER TABLE analytics_actors DROP CONSTRAINT analytics_actors_pkey;
ALTER TABLE analytics_actors ADD CONSTRAINT analytics_actors_pkey PRIMARY KEY (scope, id);
