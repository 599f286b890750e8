-- Prefix bands of a tenant's term dictionary, for typo tolerance and prefix search (issue 28 item 4;
-- src/store/postgres/content/lexical-terms.ts): the terms in byte order whatever the database's
-- collation, so "terms starting with kube" is one range of this index.
CREATE INDEX lexical_df_term_bytes ON lexical_df (tenant_id, term COLLATE "C");
