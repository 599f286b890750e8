-- pgvector for the vector index (HNSW, cosine). Operators without it get a clear error here:
-- see README "Scale-out" for how to install it (distribution package, managed service, image).
CREATE EXTENSION IF NOT EXISTS vector;
